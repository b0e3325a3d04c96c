#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include "store/entry.h"
#include "store/store.h"

namespace skb::store {

/// The kernel store's clients and entry format live in two modules that only builds with a store
/// load, so that no compile step pays for loading their libraries otherwise, and a step of a
/// file or redis store does not pay for libcurl's (a dozen libraries, about 4 ms a process).
///
/// skb_store.so: the entry format (libarchive), the file and the redis (hiredis) stores.
struct StoreModule {
  std::unique_ptr<Store> (*open_file_store)(const Location& where, std::uint64_t max_size);
  std::unique_ptr<Store> (*open_redis_store)(const Location& where);
  std::string (*pack_entry)(const EntryFiles& files);
  EntryFiles (*unpack_entry)(const std::string& object);
};

/// skb_store_curl.so: store URLs (parsed once, by the generator) and the HTTP store (libcurl).
struct CurlModule {
  Location (*parse_location)(const std::string& url);
  std::unique_ptr<Store> (*open_http_store)(const Location& where);
};

/// Each module's functions: linked in (tests), else from <bin>/../lib/skb/, loaded at the first
/// call. Throw common::Error when the module cannot be loaded.
const StoreModule& store_module();
const CurlModule& curl_module();

}  // namespace skb::store

/// The one symbol each module exports.
extern "C" const skb::store::StoreModule* skb_store_module();
extern "C" const skb::store::CurlModule* skb_store_curl_module();
