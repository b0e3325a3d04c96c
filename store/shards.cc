#include "store/shards.h"

#include <signal.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <memory>
#include <string>

#include "common/error.h"
#include "common/fs.h"

namespace skb::store {
namespace fs = std::filesystem;

namespace {

// A writer's leftover: <key>.entry.tmp.<pid> of a process that is gone.
bool dead_writers_temp(const fs::path& p) {
  std::string name = p.filename().string();
  auto at = name.rfind(".tmp.");
  if (at == std::string::npos) return false;
  int pid = 0;
  const char* first = name.data() + at + 5;
  const char* last = name.data() + name.size();
  auto [end, ec] = std::from_chars(first, last, pid);
  if (ec != std::errc() || end != last || pid <= 0) return false;
  return ::kill(pid, 0) != 0 && errno == ESRCH;
}

bool older(const struct timespec& a, const struct timespec& b) {
  return a.tv_sec != b.tv_sec ? a.tv_sec < b.tv_sec : a.tv_nsec < b.tv_nsec;
}

}  // namespace

std::vector<ShardEntry> shard_entries(const fs::path& shard, DeadTemps temps) {
  std::vector<ShardEntry> out;
  std::error_code ec;
  for (const auto& d : fs::directory_iterator(shard, ec)) {
    if (temps == DeadTemps::kRemove && dead_writers_temp(d.path())) {
      fs::remove(d.path(), ec);
      continue;
    }
    struct stat st {};
    if (d.path().extension() != kEntrySuffix || ::lstat(d.path().c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    out.push_back({d.path(), static_cast<std::uint64_t>(st.st_size), st.st_mtim});
  }
  return out;
}

std::uint64_t read_shard_size(const fs::path& shard) {
  std::optional<std::string> text;
  try {
    text = common::read_file_if_exists(shard / kShardSize, 64);
  } catch (const common::Error&) {  // counted anew by the next eviction
  }
  std::uint64_t n = 0;
  if (text) std::from_chars(text->data(), text->data() + text->size(), n);
  return n;
}

void write_shard_size(const fs::path& shard, std::uint64_t n, unsigned mode) {
  common::write_atomic(shard / kShardSize, std::to_string(n) + "\n", mode, common::Sync::kAtomic);
}

void note_shard_size(const fs::path& shard, std::uint64_t n, unsigned mode, std::string& failed) {
  try {
    write_shard_size(shard, n, mode);
  } catch (const common::Error& e) {
    if (failed.empty()) failed = e.what();
  }
}

std::uint64_t recorded_size(const fs::path& root) {
  std::uint64_t total = 0;
  for (int i = 0; i < kShards; ++i) total += read_shard_size(root / shard_name(i));
  return total;
}

Eviction evict_lru(const fs::path& root, std::optional<std::uint64_t> older_than_s,
                   std::optional<std::uint64_t> max_size, unsigned mode, DeadTemps temps) {
  std::vector<std::unique_ptr<ShardLock>> locks;
  std::vector<fs::path> shards;
  std::vector<ShardEntry> all;
  for (int i = 0; i < kShards; ++i) {
    fs::path shard = root / shard_name(i);
    std::error_code ec;
    if (!fs::is_directory(shard, ec)) continue;
    locks.push_back(std::make_unique<ShardLock>(shard, mode));
    shards.push_back(shard);
    for (ShardEntry& e : shard_entries(shard, temps)) all.push_back(std::move(e));
  }
  std::sort(all.begin(), all.end(), [](const ShardEntry& a, const ShardEntry& b) { return older(a.used, b.used); });
  std::uint64_t total = 0;
  for (const ShardEntry& e : all) total += e.size;
  struct timespec now {};
  ::clock_gettime(CLOCK_REALTIME, &now);
  Eviction out;
  std::error_code ec;
  for (const ShardEntry& e : all) {
    bool too_old =
        older_than_s && static_cast<std::uint64_t>(std::max<long>(0, now.tv_sec - e.used.tv_sec)) >= *older_than_s;
    bool too_big = max_size && total > *max_size;
    if (!too_old && !too_big) continue;
    if (fs::remove(e.path, ec)) {
      total -= e.size;
      ++out.removed;
    }
  }
  for (const fs::path& shard : shards) {
    std::uint64_t bytes = 0;
    for (const ShardEntry& e : shard_entries(shard, temps)) bytes += e.size;
    note_shard_size(shard, bytes, mode, out.failed);
  }
  return out;
}

}  // namespace skb::store
