#include "store/kernel_cache.h"

#include <fcntl.h>
#include <unistd.h>

#include <fmt/format.h>
#include <chrono>
#include <system_error>

#include "common/error.h"
#include "common/fs.h"
#include "store/entry_signature.h"
#include "store/module.h"
#include "trust/signature.h"
#include "trust/user_keys.h"

namespace skb::store {
namespace fs = std::filesystem;
using common::Json;

namespace {

constexpr const char* kConfig = "config.json";
constexpr const char* kLog = "log";
constexpr const char* kStats = "stats.json";
constexpr const char* kDown = "down";
// How long a store that failed is left alone, so that a down or hung server costs one timeout
// per build, not one per kernel.
constexpr auto kDownFor = std::chrono::seconds(30);
constexpr const char* kCompiling = "compiling locally";
// The key of a kernel's entry: the entry format's version, then the kernel's name (the hash of
// everything that decides its bytes).
std::string key_of(const std::string& name) { return "skb1_" + name; }

bool recently_down(const fs::path& marker) {
  std::error_code ec;
  auto when = fs::last_write_time(marker, ec);
  return !ec && fs::file_time_type::clock::now() - when < kDownFor;
}

std::string bytes_text(std::uint64_t n) {
  if (n < 1024) return fmt::format("{} B", n);
  if (n < 1024 * 1024) return fmt::format("{:.1f} KiB", n / 1024.0);
  return fmt::format("{:.1f} MiB", n / (1024.0 * 1024.0));
}

}  // namespace

std::string settings_json(const Settings& s) {
  const Location& l = s.where;
  return Json({{"url", l.url},
               {"display", l.display},
               {"scheme", l.scheme},
               {"host", l.host},
               {"port", l.port},
               {"path", l.path},
               {"user", l.user},
               {"read_only", l.read_only},
               {"timeout_ms", l.timeout_ms},
               {"connect_timeout_ms", l.connect_timeout_ms},
               {"max_size", s.max_size},
               {"signing_key", s.signing_key},
               {"trusted_keys", s.trusted_keys}})
             .dump(2) +
         "\n";
}

Settings parse_settings(const fs::path& file, const std::string& text) {
  Settings s;
  try {
    Json j = common::parse_json(text);
    Location& l = s.where;
    l.url = j.at("url").get<std::string>();
    l.display = j.at("display").get<std::string>();
    l.scheme = j.at("scheme").get<std::string>();
    l.host = j.at("host").get<std::string>();
    l.port = j.at("port").get<int>();
    l.path = j.at("path").get<std::string>();
    l.user = j.at("user").get<std::string>();
    l.read_only = j.at("read_only").get<bool>();
    l.timeout_ms = j.at("timeout_ms").get<unsigned>();
    l.connect_timeout_ms = j.at("connect_timeout_ms").get<unsigned>();
    s.max_size = j.at("max_size").get<std::uint64_t>();
    s.signing_key = j.at("signing_key").get<std::string>();
    s.trusted_keys = j.at("trusted_keys").get<std::string>();
  } catch (const Json::exception& e) {
    throw common::Error(fmt::format("{}: {} (rerun skb-generate)", file.string(), e.what()));
  } catch (const common::FieldError& e) {
    throw common::Error(fmt::format("{}: {}", file.string(), e.describe()));
  }
  return s;
}

trust::SigningKey signer_of(const Settings& s) {
  return s.signing_key.empty() ? trust::own_signing_key() : trust::read_signing_key(s.signing_key);
}

trust::TrustedKeys trusted_keys_of(const Settings& s) {
  if (!s.trusted_keys.empty()) return trust::read_trusted_keys(s.trusted_keys);
  if (s.signing_key.empty()) return trust::own_trusted_keys();
  // A builder trusts the key it signs with, and the user's own trust file.
  trust::TrustedKeys keys = trust::own_trusted_keys(false);
  keys.add(trust::read_signing_key(s.signing_key).public_key());
  keys.source = s.signing_key + (keys.keys.size() > 1 ? " and " + keys.source : "");
  return keys;
}

Json Stats::json() const {
  return {{"hits", hits},           {"misses", misses}, {"uploads", uploads},       {"corrupt", corrupt},
          {"untrusted", untrusted}, {"errors", errors}, {"bytes_down", bytes_down}, {"bytes_up", bytes_up},
          {"trust_us", trust_us}};
}

void Stats::add(const Json& j) {
  for (auto [field, value] : {std::pair{"hits", &hits},
                              {"misses", &misses},
                              {"uploads", &uploads},
                              {"corrupt", &corrupt},
                              {"untrusted", &untrusted},
                              {"errors", &errors},
                              {"bytes_down", &bytes_down},
                              {"bytes_up", &bytes_up},
                              {"trust_us", &trust_us}})
    if (j.contains(field) && j[field].is_number_unsigned()) *value += j[field].get<std::uint64_t>();
}

std::unique_ptr<KernelCache> KernelCache::open(const fs::path& dir, const common::Diag& diag) {
  auto text = common::read_file_if_exists(dir / kConfig, 1 << 16);
  if (!text) return nullptr;
  Settings s = parse_settings(dir / kConfig, *text);
  return std::unique_ptr<KernelCache>(new KernelCache(dir, std::move(s), diag));
}

KernelCache::KernelCache(fs::path dir, Settings settings, const common::Diag& diag)
    : dir_(std::move(dir)), settings_(std::move(settings)), diag_(diag) {
  if (recently_down(dir_ / kDown)) return;  // another step found it down a moment ago
  try {
    store_ = open_store(where_, settings_.max_size);
  } catch (const StoreError& e) {
    failed(e.what(), kCompiling);
  }
}

KernelCache::~KernelCache() {
  // One line per step, in one write to a file opened for appending: the steps of a parallel
  // build add theirs without mixing.
  std::string line = stats_.json().dump() + "\n";
  int fd = ::open((dir_ / kLog).c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return;
  if (::write(fd, line.data(), line.size()) < 0) diag_.warning(fmt::format("cannot write {}", (dir_ / kLog).string()));
  ::close(fd);
}

void KernelCache::failed(const std::string& what, const char* consequence) {
  ++stats_.errors;
  store_.reset();
  diag_.warning(fmt::format("kernel store {}: {}; {} (the store is skipped for {} s)", where_.display, what,
                            consequence, kDownFor.count()));
  try {
    common::write_atomic(dir_ / kDown, "", 0644, common::Sync::kAtomic);
  } catch (const common::Error&) {
  }
}

std::optional<EntryFiles> KernelCache::fetch(const std::string& name,
                                             const std::function<std::string(const EntryFiles&)>& check) {
  ++stats_.misses;  // until proven a hit
  if (!store_) return std::nullopt;
  std::optional<std::string> object;
  try {
    object = store_->get(key_of(name));
  } catch (const StoreError& e) {
    failed(e.what(), kCompiling);
    return std::nullopt;
  }
  if (!object) return std::nullopt;
  stats_.bytes_down += object->size();
  std::string why;
  EntryFiles files;
  try {
    files = store_module().unpack_entry(*object);
  } catch (const BadEntry& e) {
    why = e.what();
  }
  if (why.empty()) {
    auto start = std::chrono::steady_clock::now();
    const trust::TrustedKeys* keys = trusted();
    if (!keys) return std::nullopt;
    trust::SignatureCheck signed_by = trust::check_signature(*keys, entry_message(name, files), files.signature);
    stats_.trust_us += static_cast<std::uint64_t>(
        std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - start).count());
    if (!signed_by.trusted()) {
      ++stats_.untrusted;
      diag_.warning(
          fmt::format("kernel store {}: the entry of {} is not used: {} (trusted keys: {}); compiling locally",
                      where_.display, name, signed_by.describe(), keys->source));
      return std::nullopt;
    }
    why = check(files);
  }
  if (!why.empty()) {
    ++stats_.corrupt;
    diag_.warning(
        fmt::format("kernel store {}: the entry of {} is not used: {}; compiling locally", where_.display, name, why));
    return std::nullopt;
  }
  --stats_.misses;
  ++stats_.hits;
  return files;
}

const trust::TrustedKeys* KernelCache::trusted() {
  if (!trusted_) {
    try {
      trusted_ = trusted_keys_of(settings_);
    } catch (const common::Error& e) {
      failed(e.what(), kCompiling);
      return nullptr;
    }
  }
  return &*trusted_;
}

void KernelCache::store(const std::string& name, const EntryFiles& files) {
  if (!store_ || where_.read_only) return;
  std::string object;
  try {
    EntryFiles signed_files = files;
    signed_files.signature = trust::signature_line(signer_of(settings_), entry_message(name, files));
    object = store_module().pack_entry(signed_files);
    store_->put(key_of(name), object);
  } catch (const std::exception& e) {  // StoreError, or libarchive out of memory
    failed(e.what(), "the kernel is built here but not stored");
    return;
  }
  ++stats_.uploads;
  stats_.bytes_up += object.size();
}

int report_cache(const fs::path& build_dir, const common::Diag& diag) {
  fs::path dir = build_dir / kCacheDir;
  Stats total;
  if (auto log = common::read_file_if_exists(dir / kLog)) {
    for (std::size_t at = 0; at < log->size();) {
      std::size_t end = log->find('\n', at);
      if (end == std::string::npos) break;  // a step killed mid-line: its counts are lost
      Json line = Json::parse(log->substr(at, end - at), nullptr, false);
      if (line.is_object()) total.add(line);
      at = end + 1;
    }
  }
  Json stats = total.json();
  common::write_atomic(dir / kStats, stats.dump(2) + "\n", 0644, common::Sync::kAtomic);
  fs::path summary = build_dir / "summary.json";
  if (auto text = common::read_file_if_exists(summary)) {
    Json j = Json::parse(*text, nullptr, false);
    if (j.is_object()) {
      j["cache"] = stats;
      common::write_atomic(summary, j.dump(2) + "\n", 0644, common::Sync::kAtomic);
    }
  }
  std::error_code ec;
  fs::remove(dir / kLog, ec);
  diag.note(
      fmt::format("kernel store: {} hits, {} misses, {} uploads, {} corrupt, {} untrusted, {} errors; {} down, {} up",
                  total.hits, total.misses, total.uploads, total.corrupt, total.untrusted, total.errors,
                  bytes_text(total.bytes_down), bytes_text(total.bytes_up)));
  return 0;
}

}  // namespace skb::store
