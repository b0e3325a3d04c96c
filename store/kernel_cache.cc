#include "store/kernel_cache.h"

#include <fcntl.h>
#include <unistd.h>

#include <fmt/format.h>
#include <chrono>
#include <system_error>
#include <thread>

#include "common/error.h"
#include "common/file_lock.h"
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
constexpr const char* kDownLocal = "down.local";
// How long a store that failed is left alone, so that a down or hung server costs one timeout
// per build, not one per kernel.
constexpr auto kDownFor = std::chrono::seconds(30);
constexpr const char* kCompiling = "compiling locally";
// How long a builder waits for another builder's kernel before it says so.
constexpr std::uint64_t kSayWaitAfterMs = 5'000;
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
               {"lease_ms", l.lease_ms},
               {"wait_ms", l.wait_ms},
               {"claims", l.claims},
               {"max_size", s.max_size},
               {"local_dir", s.local_dir},
               {"local_max_size", s.local_max_size},
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
    l.lease_ms = j.value("lease_ms", l.lease_ms);
    l.wait_ms = j.value("wait_ms", l.wait_ms);
    l.claims = j.value("claims", l.claims);
    s.max_size = j.at("max_size").get<std::uint64_t>();
    s.local_dir = j.at("local_dir").get<std::string>();
    s.local_max_size = j.at("local_max_size").get<std::uint64_t>();
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
  return {{"hits", hits},           {"misses", misses},     {"uploads", uploads},       {"corrupt", corrupt},
          {"untrusted", untrusted}, {"errors", errors},     {"bytes_down", bytes_down}, {"bytes_up", bytes_up},
          {"evictions", evictions}, {"trust_us", trust_us}, {"claims", claims},         {"waited", waited},
          {"taken", taken},         {"wait_ms", wait_ms}};
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
                              {"evictions", &evictions},
                              {"trust_us", &trust_us},
                              {"claims", &claims},
                              {"waited", &waited},
                              {"taken", &taken},
                              {"wait_ms", &wait_ms}})
    if (j.contains(field) && j[field].is_number_unsigned()) *value += j[field].get<std::uint64_t>();
}

Json TierStats::json() const {
  Json j = total.json();
  j["local"] = local.json();
  j["remote"] = remote.json();
  return j;
}

void TierStats::add(const Json& j) {
  total.add(j);
  if (j.contains("local") && j["local"].is_object()) local.add(j["local"]);
  if (j.contains("remote") && j["remote"].is_object()) remote.add(j["remote"]);
}

std::unique_ptr<KernelCache> KernelCache::open(const fs::path& dir, const common::Diag& diag) {
  auto text = common::read_file_if_exists(dir / kConfig, 1 << 16);
  if (!text) return nullptr;
  Settings s = parse_settings(dir / kConfig, *text);
  return std::unique_ptr<KernelCache>(new KernelCache(dir, std::move(s), diag));
}

KernelCache::KernelCache(fs::path dir, Settings settings, const common::Diag& diag)
    : dir_(std::move(dir)), settings_(std::move(settings)), diag_(diag) {
  if (!settings_.local_dir.empty()) {
    Location local;
    local.scheme = "file";
    local.path = settings_.local_dir;
    local.url = local.display = "file://" + settings_.local_dir;
    tiers_.push_back({local, settings_.local_max_size, kDownLocal, nullptr, &stats_.local});
  }
  if (!settings_.where.scheme.empty())
    tiers_.push_back({settings_.where, settings_.max_size, kDown, nullptr, &stats_.remote});
  for (Tier& t : tiers_) {
    if (recently_down(dir_ / t.down)) continue;  // another step found it down a moment ago
    try {
      t.store = open_store(t.where, t.max_size);
    } catch (const StoreError& e) {
      failed(t, e.what(), kCompiling);
    }
  }
}

KernelCache::~KernelCache() {
  for (Tier& t : tiers_)
    if (t.store) t.stats->evictions += t.store->evictions();
  stats_.total.evictions = stats_.local.evictions + stats_.remote.evictions;
  // One line per step, in one write to a file opened for appending: the steps of a parallel
  // build add theirs without mixing.
  std::string line = stats_.json().dump() + "\n";
  int fd = ::open((dir_ / kLog).c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return;
  if (::write(fd, line.data(), line.size()) < 0) diag_.warning(fmt::format("cannot write {}", (dir_ / kLog).string()));
  ::close(fd);
}

void KernelCache::failed(Tier& t, const std::string& what, const char* consequence) {
  ++t.stats->errors;
  ++stats_.total.errors;
  t.store.reset();
  diag_.warning(fmt::format("kernel store {}: {}; {} (the store is skipped for {} s)", t.where.display, what,
                            consequence, kDownFor.count()));
  try {
    common::write_atomic(dir_ / t.down, "", 0644, common::Sync::kAtomic);
  } catch (const common::Error&) {
  }
}

std::optional<EntryFiles> KernelCache::accept(Tier& t, const std::string& name, const std::string& object,
                                              const std::function<std::string(const EntryFiles&)>& check, bool report) {
  std::string why;
  EntryFiles files;
  try {
    files = store_module().unpack_entry(object);
  } catch (const BadEntry& e) {
    why = e.what();
  }
  if (why.empty()) {
    auto start = std::chrono::steady_clock::now();
    const trust::TrustedKeys* keys = trusted(t);
    if (!keys) return std::nullopt;
    trust::SignatureCheck signed_by = trust::check_signature(*keys, entry_message(name, files), files.signature);
    auto us = static_cast<std::uint64_t>(
        std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - start).count());
    t.stats->trust_us += us;
    stats_.total.trust_us += us;
    if (!signed_by.trusted()) {
      if (!report) return std::nullopt;
      ++t.stats->untrusted;
      ++stats_.total.untrusted;
      diag_.warning(
          fmt::format("kernel store {}: the entry of {} is not used: {} (trusted keys: {}); compiling locally",
                      t.where.display, name, signed_by.describe(), keys->source));
      return std::nullopt;
    }
    why = check(files);
  }
  if (!why.empty()) {
    if (!report) return std::nullopt;
    ++t.stats->corrupt;
    ++stats_.total.corrupt;
    diag_.warning(
        fmt::format("kernel store {}: the entry of {} is not used: {}; compiling locally", t.where.display, name, why));
    return std::nullopt;
  }
  return files;
}

std::optional<EntryFiles> KernelCache::fetch(const std::string& name,
                                             const std::function<std::string(const EntryFiles&)>& check) {
  ++stats_.total.misses;  // until proven a hit
  for (std::size_t i = 0; i < tiers_.size(); ++i) {
    Tier& t = tiers_[i];
    if (!t.store) continue;
    ++t.stats->misses;
    std::optional<std::string> object;
    try {
      object = t.store->get(key_of(name));
    } catch (const StoreError& e) {
      failed(t, e.what(), kCompiling);
      continue;
    }
    if (!object) continue;
    t.stats->bytes_down += object->size();
    stats_.total.bytes_down += object->size();
    auto files = accept(t, name, *object, check);
    if (!files) continue;
    --t.stats->misses, ++t.stats->hits;
    --stats_.total.misses, ++stats_.total.hits;
    // A shared hit is kept locally as it is, signature and all: the local tier checks it against
    // the build's keys and the user's own signing keys, never turning an entry the shared tier
    // refuses into one it takes.
    for (std::size_t j = 0; j < i; ++j) put(tiers_[j], name, *object);
    return files;
  }
  return std::nullopt;
}

// The local tier's: the build's keys, and those this user's builds sign its entries with (the own
// key, when there is one, and the build's signing key). The local store is private and holds only
// what this user's builds put there, or entries the shared tier's keys accepted: a build never
// refuses what it stored itself, whichever keys it was given.
namespace {
trust::TrustedKeys local_trusted_keys_of(const Settings& s) {
  trust::TrustedKeys keys = trusted_keys_of(s);
  std::vector<trust::PublicKey> own;  // read, never made: a build that has none signs nothing with it
  try {
    if (!s.signing_key.empty()) own.push_back(trust::read_signing_key(s.signing_key).public_key());
    if (common::path_exists(trust::own_key_file())) own.push_back(trust::own_signing_key().public_key());
  } catch (const common::Error&) {  // one that cannot be read: its entries are not taken, the tier still serves
  }
  bool added = false;
  for (const trust::PublicKey& k : own) {
    if (keys.find(k.name)) continue;  // one of that name trusted already (another key of that name is not added)
    keys.add(k);
    added = true;
  }
  if (added) keys.source += " and, in the local store, the keys this user's builds sign with";
  return keys;
}
}  // namespace

const trust::TrustedKeys* KernelCache::trusted(Tier& t) {
  const bool local = t.stats == &stats_.local;
  std::optional<trust::TrustedKeys>& keys = local ? trusted_local_ : trusted_;
  if (!keys) {
    try {
      keys = local ? local_trusted_keys_of(settings_) : trusted_keys_of(settings_);
    } catch (const common::Error& e) {
      failed(t, e.what(), kCompiling);
      return nullptr;
    }
  }
  return &*keys;
}

void KernelCache::put(Tier& t, const std::string& name, const std::string& object) {
  if (!t.store || t.where.read_only) return;
  try {
    t.store->put(key_of(name), object);
  } catch (const std::exception& e) {  // StoreError
    failed(t, e.what(), "the kernel is built here but not stored");
    return;
  }
  ++t.stats->uploads;
  t.stats->bytes_up += object.size();
}

void KernelCache::store(const std::string& name, const EntryFiles& files) {
  bool any = false;
  for (Tier& t : tiers_) any |= t.store && !t.where.read_only;
  if (!any) return;
  std::string object;
  try {
    EntryFiles signed_files = files;
    signed_files.signature = trust::signature_line(signer_of(settings_), entry_message(name, files));
    object = store_module().pack_entry(signed_files);
  } catch (const std::exception& e) {  // a key that cannot be read, libarchive out of memory
    for (Tier& t : tiers_)
      if (t.store) failed(t, e.what(), "the kernel is built here but not stored");
    return;
  }
  std::uint64_t before = stats_.local.uploads + stats_.remote.uploads;
  for (Tier& t : tiers_) put(t, name, object);
  if (stats_.local.uploads + stats_.remote.uploads > before) {
    ++stats_.total.uploads;
    stats_.total.bytes_up += object.size();
  }
}

std::optional<EntryFiles> KernelCache::take(Tier& t, const std::string& name, const std::string& object,
                                            const std::function<std::string(const EntryFiles&)>& check, bool report) {
  t.stats->bytes_down += object.size();
  stats_.total.bytes_down += object.size();
  auto files = accept(t, name, object, check, report);
  if (files)
    for (Tier& lower : tiers_)
      if (&lower != &t) put(lower, name, object);
  return files;
}

std::optional<EntryFiles> KernelCache::claim(const std::string& name,
                                             const std::function<std::string(const EntryFiles&)>& check,
                                             std::unique_ptr<Lease>& lease) {
  // The store the builders share: the shared one when the build has it, else the local one.
  Tier* shared = nullptr;
  for (Tier& t : tiers_) shared = &t;
  if (!shared || !shared->store || shared->where.read_only || !shared->where.claims) return std::nullopt;
  Tier& t = *shared;
  const std::string key = key_of(name);
  const std::string token = claim_token();
  const auto start = std::chrono::steady_clock::now();
  auto waited_ms = [&] {
    return static_cast<std::uint64_t>(
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start).count());
  };
  bool waiting = false, ours = false;
  std::uint64_t said_at = kSayWaitAfterMs;
  // Counts how the step ended: the time it waited, if it did, and whether it took another
  // builder's entry (waiting or not: an entry stored before its own claim was taken).
  auto stop_waiting = [&](bool took) {
    for (Stats* s : {t.stats, &stats_.total}) s->wait_ms += waiting ? waited_ms() : 0, s->taken += took;
  };
  try {
    for (;;) {
      Store::Claim c = t.store->claim(key, token, t.where.lease_ms);
      if (c == Store::Claim::kNone) return std::nullopt;
      if (c == Store::Claim::kOurs) {
        ours = true;
        // Its entry may have come since the lookup missed it: a claimant that stored it and
        // released its claim before this one was taken.
        // (An entry the lookup already found unusable is not said or counted again: it is then
        // compiled under this claim and replaced.)
        if (auto object = t.store->get(key)) {
          if (auto files = take(t, name, *object, check, waiting)) {
            t.store->release(key, token);
            stop_waiting(true);
            return files;
          }
        }
        stop_waiting(false);
        ++t.stats->claims, ++stats_.total.claims;
        lease = std::make_unique<Lease>(open_store(t.where, t.max_size), key, token, t.where.lease_ms);
        return std::nullopt;
      }
      if (!waiting) {
        waiting = true;
        ++t.stats->waited, ++stats_.total.waited;
      }
      // Its entry, as soon as it is there; the claim again when it is gone without one.
      for (auto pause = std::chrono::milliseconds(20);; pause = std::min(pause * 2, std::chrono::milliseconds(500))) {
        if (waited_ms() > t.where.wait_ms) {
          stop_waiting(false);
          diag_.warning(fmt::format("{}: waited {} s for another builder's entry; compiling it here", name,
                                    t.where.wait_ms / 1000));
          return std::nullopt;
        }
        std::this_thread::sleep_for(pause);
        // A short wait goes unsaid (the build's last line counts it); a long one is said at
        // kSayWaitAfter, then every minute, with who holds the claim.
        if (std::uint64_t ms = waited_ms(); ms >= said_at) {
          auto holder = t.store->claimant(key);
          diag_.note(fmt::format("{}: waiting {} s for another builder's compile ({}) to reach {} (at most {} s)", name,
                                 ms / 1000, holder ? *holder : "its claim just ended", t.where.display,
                                 t.where.wait_ms / 1000));
          said_at = ms + 60'000;
        }
        if (auto object = t.store->get(key)) {
          auto files = take(t, name, *object, check);
          stop_waiting(files.has_value());
          return files;  // or nullopt: an entry not to be used, said and counted by accept
        }
        // Released without an entry, lapsed, or held by a process of this host that is gone
        // (a build interrupted here: its claim need not be waited out): claim it.
        auto holder = t.store->claimant(key);
        if (!holder) break;
        if (claimant_is_dead(*holder)) {
          t.store->release(key, *holder);
          break;
        }
      }
    }
  } catch (const StoreError& e) {
    stop_waiting(false);
    failed(t, e.what(), kCompiling);
    if (ours && !lease) {  // a claim this step will not compile under: the others need not wait it out
      try {
        t.store->release(key, token);
      } catch (const StoreError&) {
      }
    }
    return std::nullopt;
  }
}

namespace {

constexpr const char* kStoreStats = "stats.json";
constexpr const char* kStoreStatsLock = "stats.lock";

// Runs f under an exclusive flock of <dir>/stats.lock; throws common::Error when it cannot be taken.
template <typename F>
void with_stats_lock(const fs::path& dir, F&& f) {
  common::FileLock lock(dir / kStoreStatsLock, 0600);
  f();
}

}  // namespace

TierStats read_store_stats(const fs::path& dir) {
  TierStats s;
  auto text = common::read_file_if_exists(dir / kStoreStats, 1 << 20);
  Json j = text ? Json::parse(*text, nullptr, false) : Json();
  if (j.is_object()) s.add(j);
  return s;
}

void add_store_stats(const fs::path& dir, const TierStats& build) {
  try {
    with_stats_lock(dir, [&] {
      TierStats s = read_store_stats(dir);
      s.add(build.json());
      common::write_atomic(dir / kStoreStats, s.json().dump(2) + "\n", 0600, common::Sync::kAtomic);
    });
  } catch (const std::exception&) {  // a full disk: the counts are lost, nothing else
  }
}

void zero_store_stats(const fs::path& dir) {
  std::error_code ec;
  if (!fs::exists(dir, ec) && !ec) return;  // a store never used has counted nothing
  with_stats_lock(dir, [&] {
    common::write_atomic(dir / kStoreStats, TierStats().json().dump(2) + "\n", 0600, common::Sync::kAtomic);
  });
}

int report_cache(const fs::path& build_dir, const common::Diag& diag) {
  fs::path dir = build_dir / kCacheDir;
  TierStats total;
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
  if (auto config = common::read_file_if_exists(dir / kConfig, 1 << 16)) {
    Settings settings = parse_settings(dir / kConfig, *config);
    if (!settings.local_dir.empty()) add_store_stats(settings.local_dir, total);
  }
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
  const Stats& t = total.total;
  std::string claims;  // with builders that share the store: who compiled what
  if (t.claims + t.waited + t.taken > 0)
    claims = fmt::format("; {} compiled under a claim, {} taken from other builders, {} waited for ({:.1f} s)",
                         t.claims, t.taken, t.waited, t.wait_ms / 1000.0);
  diag.note(
      fmt::format("kernel store: {} hits, {} misses, {} uploads, {} corrupt, {} untrusted, {} errors; {} down, {} "
                  "up{}",
                  t.hits, t.misses, t.uploads, t.corrupt, t.untrusted, t.errors, bytes_text(t.bytes_down),
                  bytes_text(t.bytes_up), claims));
  return 0;
}

}  // namespace skb::store
