#pragma once
#include <filesystem>
#include <string>

#include "common/sha256.h"

namespace skb::store {

/// The layout of a file store, which the store's client (file_store.cc) and `skb cache`
/// (local_admin.cc) share: <root>/<shard>/<key>.entry, 16 shards by the first hex digit of the
/// key's sha256, each with its byte count in <shard>/size, kept under an flock of <shard>/lock.
/// An entry is written as <key>.entry.tmp.<pid> and renamed into place.
inline constexpr int kShards = 16;
inline constexpr const char* kEntrySuffix = ".entry";
inline constexpr const char* kShardLock = "lock";
inline constexpr const char* kShardSize = "size";

inline std::filesystem::path shard_of(const std::filesystem::path& root, const std::string& key) {
  return root / std::string(1, common::sha256_hex(key)[0]);
}
inline std::string shard_name(int i) { return std::string(1, "0123456789abcdef"[i]); }

}  // namespace skb::store
