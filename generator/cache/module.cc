// The entry point of skb_store.so (and of the same objects linked into tests).
#include "generator/cache/module.h"

extern "C" __attribute__((visibility("default"))) const skb::generator::cache::StoreModule* skb_store_module() {
  using namespace skb::generator::cache;
  static const StoreModule module = {&open_file_store, &open_redis_store, &pack_entry, &unpack_entry};
  return &module;
}
