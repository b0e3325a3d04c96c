// The entry point of skb_store_curl.so (and of the same objects linked into tests).
#include "generator/cache/module.h"

extern "C" __attribute__((visibility("default"))) const skb::generator::cache::CurlModule* skb_store_curl_module() {
  using namespace skb::generator::cache;
  static const CurlModule module = {&parse_location, &open_http_store};
  return &module;
}
