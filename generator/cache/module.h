#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include "generator/cache/entry.h"
#include "generator/cache/store.h"

namespace skb::generator::cache {

/// The kernel store's clients and entry format, loaded only by builds that have a store: they
/// bring libcurl, hiredis and libarchive (dozens of shared libraries), which every compile step
/// would otherwise load at its start.
struct StoreModule {
  Location (*parse_location)(const std::string& url);
  std::unique_ptr<Store> (*open_store)(const Location& where, std::uint64_t max_size);
  std::string (*pack_entry)(const EntryFiles& files);
  EntryFiles (*unpack_entry)(const std::string& object);
};

/// The module's functions: linked in (tests), else from <bin>/../lib/skb/skb_store.so, loaded
/// at the first call. Throws common::Error when the module cannot be loaded.
const StoreModule& store_module();

}  // namespace skb::generator::cache

/// The one symbol skb_store.so exports.
extern "C" const skb::generator::cache::StoreModule* skb_store_module();
