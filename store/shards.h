#pragma once
#include <cstdint>
#include <ctime>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "common/file_lock.h"
#include "store/file_layout.h"

namespace skb::store {

/// The shards of a file store (file_layout.h) as the store's client and `skb cache` change them:
/// each under its flock, a byte count beside its entries, and one least-recently-used order over
/// the whole store when it passes its cap.

/// One shard, locked for as long as the object lives (mode: the lock file's, when it is made).
class ShardLock : public common::FileLock {
 public:
  ShardLock(const std::filesystem::path& shard, unsigned mode) : common::FileLock(shard / kShardLock, mode) {}
};

struct ShardEntry {
  std::filesystem::path path;
  std::uint64_t size;
  struct timespec used;  // its mtime, which a hit renews
};

/// What shard_entries does with a writer's leftover (<key>.entry.tmp.<pid>) whose process is gone:
/// removes it where every writer runs on this machine (the user's local store), keeps it in a
/// store other machines write too, where that pid says nothing.
enum class DeadTemps { kRemove, kKeep };

/// The shard's entries (regular files only). Call it under the shard's lock.
std::vector<ShardEntry> shard_entries(const std::filesystem::path& shard, DeadTemps temps);

/// The shard's recorded byte count (0 when it has none yet), and its replacement.
std::uint64_t read_shard_size(const std::filesystem::path& shard);
void write_shard_size(const std::filesystem::path& shard, std::uint64_t n, unsigned mode);

/// write_shard_size for a command that removed entries first: a failure is kept in `failed` (the
/// first one), not thrown, so that what was removed is still counted and said.
void note_shard_size(const std::filesystem::path& shard, std::uint64_t n, unsigned mode, std::string& failed);

/// The store's recorded bytes: the sum of its shards' counts, read without their locks.
std::uint64_t recorded_size(const std::filesystem::path& root);

/// Removes the entries not used for older_than_s seconds, then the least recently used ones of
/// the whole store until it holds at most max_size bytes; every shard is locked, in one order (a
/// builder holds one lock at a time, so none waits on another), and its count written anew.
/// Says how many went, and the first count it could not write (note_shard_size).
struct Eviction {
  std::uint64_t removed = 0;
  std::string failed;
};
Eviction evict_lru(const std::filesystem::path& root, std::optional<std::uint64_t> older_than_s,
                   std::optional<std::uint64_t> max_size, unsigned mode, DeadTemps temps);

}  // namespace skb::store
