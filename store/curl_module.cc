// The entry point of skb_store_curl.so (and of the same objects linked into tests).
#include "store/module.h"

extern "C" __attribute__((visibility("default"))) const skb::store::CurlModule* skb_store_curl_module() {
  using namespace skb::store;
  static const CurlModule module = {&parse_location, &open_http_store};
  return &module;
}
