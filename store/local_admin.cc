#include "store/local_admin.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>
#include <algorithm>
#include <cerrno>
#include <charconv>
#include <vector>

#include "common/error.h"
#include "common/file_lock.h"
#include "common/fs.h"
#include "common/json_input.h"
#include "common/sha256.h"
#include "store/entry_signature.h"
#include "store/file_layout.h"
#include "store/kernel_cache.h"
#include "store/module.h"
#include "trust/signature.h"
#include "trust/user_keys.h"

namespace skb::store {
namespace fs = std::filesystem;
using common::Json;

namespace {

constexpr const char* kKeyPrefix = "skb1_";

// One shard, locked for as long as the object lives.
class ShardLock : public common::FileLock {
 public:
  explicit ShardLock(const fs::path& shard) : common::FileLock(shard / kShardLock, 0600) {}
};

struct Entry {
  fs::path path;
  std::uint64_t size;
  struct timespec used;
};

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

// The shard's entries (and, removed on the way, dead writers' leftovers).
std::vector<Entry> entries_of(const fs::path& shard) {
  std::vector<Entry> out;
  std::error_code ec;
  for (const auto& d : fs::directory_iterator(shard, ec)) {
    if (dead_writers_temp(d.path())) {
      fs::remove(d.path(), ec);
      continue;
    }
    struct stat st {};
    if (d.path().extension() != kEntrySuffix || ::lstat(d.path().c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    out.push_back({d.path(), static_cast<std::uint64_t>(st.st_size), st.st_mtim});
  }
  return out;
}

void write_size(const fs::path& shard, std::uint64_t n) {
  common::write_atomic(shard / kShardSize, std::to_string(n) + "\n", 0600, common::Sync::kAtomic);
}

bool older(const struct timespec& a, const struct timespec& b) {
  return a.tv_sec != b.tv_sec ? a.tv_sec < b.tv_sec : a.tv_nsec < b.tv_nsec;
}

// Why an entry is damaged, or "".
std::string damage(const EntryFiles& f) {
  Json record = Json::parse(f.record, nullptr, false);
  if (!record.is_object()) return "its build record is not a JSON object";
  if (record.value("size", std::uint64_t(0)) != f.binary.size()) return "its kernel's size is not its record's";
  if (record.value("sha256", std::string()) != common::sha256_hex(f.binary))
    return "its kernel's sha256 is not its record's";
  if (record.contains("sidecar") != f.sidecar.has_value()) return "its sidecar and its record disagree";
  if (f.sidecar && (!record["sidecar"].is_object() ||
                    record["sidecar"].value("sha256", std::string()) != common::sha256_hex(*f.sidecar)))
    return "its sidecar's sha256 is not its record's";
  return "";
}

}  // namespace

std::string entry_kernel_name(const fs::path& entry) {
  std::string file = entry.filename().string();
  std::string suffix = kEntrySuffix;
  if (file.size() <= suffix.size() + 5 || file.compare(file.size() - suffix.size(), suffix.size(), suffix) != 0 ||
      file.rfind(kKeyPrefix, 0) != 0)
    return "";
  return file.substr(5, file.size() - suffix.size() - 5);
}

Usage usage(const fs::path& root) {
  Usage u;
  for (int i = 0; i < kShards; ++i) {
    std::error_code ec;
    for (const auto& d : fs::directory_iterator(root / shard_name(i), ec)) {
      struct stat st {};
      if (d.path().extension() != kEntrySuffix || ::lstat(d.path().c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
      ++u.entries;
      u.bytes += static_cast<std::uint64_t>(st.st_size);
    }
  }
  return u;
}

std::uint64_t clean(const fs::path& root) {
  std::uint64_t removed = 0;
  for (int i = 0; i < kShards; ++i) {
    fs::path shard = root / shard_name(i);
    std::error_code ec;
    if (!fs::is_directory(shard, ec)) continue;
    ShardLock lock(shard);
    for (const Entry& e : entries_of(shard))
      if (fs::remove(e.path, ec)) ++removed;
    write_size(shard, 0);
  }
  return removed;
}

std::uint64_t evict(const fs::path& root, std::optional<std::uint64_t> older_than_s,
                    std::optional<std::uint64_t> max_size) {
  // Every shard locked, in one order (as no builder holds two), for one least-recently-used
  // order over the whole store.
  std::vector<std::unique_ptr<ShardLock>> locks;
  std::vector<Entry> all;
  std::vector<std::uint64_t> shard_bytes(kShards, 0);
  for (int i = 0; i < kShards; ++i) {
    fs::path shard = root / shard_name(i);
    std::error_code ec;
    if (!fs::is_directory(shard, ec)) continue;
    locks.push_back(std::make_unique<ShardLock>(shard));
    for (Entry& e : entries_of(shard)) all.push_back(std::move(e));
  }
  std::sort(all.begin(), all.end(), [](const Entry& a, const Entry& b) { return older(a.used, b.used); });
  std::uint64_t total = 0;
  for (const Entry& e : all) total += e.size;
  struct timespec now {};
  ::clock_gettime(CLOCK_REALTIME, &now);
  std::uint64_t removed = 0;
  std::error_code ec;
  for (const Entry& e : all) {
    bool too_old =
        older_than_s && static_cast<std::uint64_t>(std::max<long>(0, now.tv_sec - e.used.tv_sec)) >= *older_than_s;
    bool too_big = max_size && total > *max_size;
    if (!too_old && !too_big) continue;
    if (fs::remove(e.path, ec)) {
      total -= e.size;
      ++removed;
    }
  }
  for (int i = 0; i < kShards; ++i) {
    fs::path shard = root / shard_name(i);
    std::uint64_t bytes = 0;
    if (!fs::is_directory(shard, ec)) continue;
    for (const Entry& e : entries_of(shard)) bytes += e.size;
    write_size(shard, bytes);
  }
  TierStats counted;
  counted.local.evictions = counted.total.evictions = removed;
  locks.clear();
  add_store_stats(root, counted);
  return removed;
}

VerifyResult verify(const fs::path& root, const std::function<void(const std::string&, const std::string&)>& report) {
  VerifyResult r;
  std::optional<trust::TrustedKeys> trusted;
  for (int i = 0; i < kShards; ++i) {
    fs::path shard = root / shard_name(i);
    std::error_code ec;
    if (!fs::is_directory(shard, ec)) continue;
    ShardLock lock(shard);
    std::uint64_t bytes = 0;
    for (const Entry& e : entries_of(shard)) {
      ++r.checked;
      std::string why, name = entry_kernel_name(e.path);
      EntryFiles files;
      try {
        files = store_module().unpack_entry(common::read_file(e.path, std::size_t(1) << 30));
        why = name.empty() ? "its file name is not an entry's" : damage(files);
      } catch (const BadEntry& x) {
        why = x.what();
      } catch (const common::Error& x) {
        why = x.what();
      }
      if (why.empty()) {
        if (!trusted) trusted = trust::own_trusted_keys();
        trust::SignatureCheck c = trust::check_signature(*trusted, entry_message(name, files), files.signature);
        if (c.verdict == trust::Verdict::kBadSignature) {
          why = c.describe();
        } else if (!c.trusted()) {
          ++r.untrusted;
          report(e.path.string(), "kept, never used: " + c.describe());
        }
      }
      if (!why.empty()) {
        ++r.damaged;
        fs::remove(e.path, ec);
        report(e.path.string(), "removed: " + why);
        continue;
      }
      bytes += e.size;
    }
    write_size(shard, bytes);
  }
  TierStats counted;
  counted.local.corrupt = counted.total.corrupt = r.damaged;
  add_store_stats(root, counted);
  return r;
}

}  // namespace skb::store
