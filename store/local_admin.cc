#include "store/local_admin.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>
#include <cerrno>
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
#include "store/shards.h"
#include "trust/signature.h"
#include "trust/user_keys.h"

namespace skb::store {
namespace fs = std::filesystem;
using common::Json;

namespace {

constexpr const char* kKeyPrefix = "skb1_";
constexpr unsigned kMode = 0600;  // the user's private store: its lock and count files

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
  std::string failed;
  for (int i = 0; i < kShards; ++i) {
    fs::path shard = root / shard_name(i);
    std::error_code ec;
    if (!fs::is_directory(shard, ec)) continue;
    ShardLock lock(shard, kMode);
    for (const ShardEntry& e : shard_entries(shard, DeadTemps::kRemove))
      if (fs::remove(e.path, ec)) ++removed;
    note_shard_size(shard, 0, kMode, failed);
  }
  if (!failed.empty()) throw common::Error(fmt::format("{} entries removed, but {}", removed, failed));
  return removed;
}

std::uint64_t evict(const fs::path& root, std::optional<std::uint64_t> older_than_s,
                    std::optional<std::uint64_t> max_size) {
  Eviction done = evict_lru(root, older_than_s, max_size, kMode, DeadTemps::kRemove);
  TierStats counted;
  counted.local.evictions = counted.total.evictions = done.removed;
  add_store_stats(root, counted);
  if (!done.failed.empty()) throw common::Error(fmt::format("{} entries evicted, but {}", done.removed, done.failed));
  return done.removed;
}

VerifyResult verify(const fs::path& root, const std::function<void(const std::string&, const std::string&)>& report) {
  VerifyResult r;
  std::string failed;
  std::optional<trust::TrustedKeys> trusted;
  for (int i = 0; i < kShards; ++i) {
    fs::path shard = root / shard_name(i);
    std::error_code ec;
    if (!fs::is_directory(shard, ec)) continue;
    ShardLock lock(shard, kMode);
    std::uint64_t bytes = 0;
    for (const ShardEntry& e : shard_entries(shard, DeadTemps::kRemove)) {
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
        // A signature that does not verify under the key of its name may be another key's of the
        // same name (a new HOME's user@host): as untrusted as an unknown key's, kept as such.
        if (!c.trusted()) {
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
    note_shard_size(shard, bytes, kMode, failed);
  }
  TierStats counted;
  counted.local.corrupt = counted.total.corrupt = r.damaged;
  add_store_stats(root, counted);
  if (!failed.empty())
    throw common::Error(fmt::format("{} entries checked, {} damaged (removed), but {}", r.checked, r.damaged, failed));
  return r;
}

}  // namespace skb::store
