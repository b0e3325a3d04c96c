// The entry point of skb_store.so (and of the same objects linked into tests).
#include "store/module.h"

extern "C" __attribute__((visibility("default"))) const skb::store::StoreModule* skb_store_module() {
  using namespace skb::store;
  static const StoreModule module = {&open_file_store, &open_redis_store, &pack_entry, &unpack_entry};
  return &module;
}
