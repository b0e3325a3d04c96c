#pragma once
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>

namespace skb::store {

/// What `skb cache` does to a local (file) store. Each shard is changed under its flock, as
/// builders change it (file_layout.h): a builder never sees a half entry, and a reader that
/// opened an entry before it was removed reads it whole. Leftovers of writers that died
/// (<key>.entry.tmp.<pid> of a process that is gone) are removed by clean, evict and verify.

struct Usage {
  std::uint64_t entries = 0, bytes = 0;
};
/// Entries and their bytes, counted from the folder itself.
Usage usage(const std::filesystem::path& root);

/// Removes every entry; returns how many.
std::uint64_t clean(const std::filesystem::path& root);

/// Removes entries not used for older_than_s seconds, then the least recently used ones until
/// the store holds at most max_size bytes; returns how many (counted as evictions).
std::uint64_t evict(const std::filesystem::path& root, std::optional<std::uint64_t> older_than_s,
                    std::optional<std::uint64_t> max_size);

struct VerifyResult {
  std::uint64_t checked = 0, damaged = 0, untrusted = 0;
};
/// Reads every entry again: a whole entry whose build record matches its kernel and sidecar
/// (sha256 and size), signed by a key the user trusts. A damaged one is removed (and counted
/// as corrupt); an untrusted one is counted and kept (a build never uses it). Each finding is
/// passed to report (entry file, why).
VerifyResult verify(const std::filesystem::path& root,
                    const std::function<void(const std::string&, const std::string&)>& report);

/// The kernel's name of an entry file (<root>/<shard>/skb1_<name>.entry), "" when it is not one.
std::string entry_kernel_name(const std::filesystem::path& entry);

}  // namespace skb::store
