#pragma once
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/diag.h"
#include "common/json_input.h"
#include "store/entry.h"
#include "store/lease.h"
#include "store/store.h"
#include "trust/key.h"
#include "trust/trusted_keys.h"

namespace skb::store {

/// The build folder's cache files, in OUT/cache/: config.json (the store, written by the
/// generator), log (one line per compile step of the running build), stats.json (the last
/// build's counts, by the report step) and down (a store that failed: skipped for a while).
inline constexpr const char* kCacheDir = "cache";
/// Written in kCacheDir by the build's one store lookup (cache-prefetch), which every compile
/// step waits for.
inline constexpr const char* kLookupStamp = "lookup.stamp";

/// How a build uses its store, as the generator records it in cache/config.json: the URL parsed
/// once (a compile step of a file or redis store then needs no URL parser, nor libcurl).
/// No secret is ever in it: a store's password comes from the environment or a netrc file when
/// the step connects, and the signing key is named by its path.
struct Settings {
  Location where;              // the shared store (--cache); scheme "": none
  std::uint64_t max_size = 0;  // of a shared file store; 0: unbounded
  std::string local_dir;       // the user's private local store, looked up first; "": none
  std::uint64_t local_max_size = 0;
  std::string signing_key;   // the private key file that signs uploads; "": the user's own key
  std::string trusted_keys;  // the trust file an entry's signer must be in; "": the user's own keys
};
std::string settings_json(const Settings& s);
/// The settings of a config.json; throws Error naming the file and the field.
Settings parse_settings(const std::filesystem::path& file, const std::string& text);

/// The key that signs what a build stores, and the keys an entry must be signed by to be used
/// (trust/user_keys.h when the settings name none). Throw common::Error naming the file.
trust::SigningKey signer_of(const Settings& s);
trust::TrustedKeys trusted_keys_of(const Settings& s);
/// What the compile steps of one build did with the store. hits + misses = kernels looked up;
/// corrupt entries (damaged, truncated, of other files or another toolchain), untrusted entries
/// (unsigned, or not signed by a trusted key) and lookups that failed are misses too; errors
/// counts every store operation that failed. Of the misses, claims are the kernels this builder
/// claimed and compiled, taken those another builder compiled and it took from the store
/// instead (after waiting for them, or found there once it could claim them), waited those
/// another builder held the claim of when it looked, and wait_ms the time it waited.
struct Stats {
  std::uint64_t hits = 0, misses = 0, uploads = 0, corrupt = 0, untrusted = 0, errors = 0, bytes_down = 0, bytes_up = 0,
                evictions = 0;
  std::uint64_t claims = 0, waited = 0, taken = 0, wait_ms = 0;
  std::uint64_t trust_us = 0;  // time spent checking entries' signatures (trust file, keys, Ed25519)
  common::Json json() const;
  void add(const common::Json& j);
};

/// The counts of one build (or of a store since its last zero): every kernel's, and each tier's
/// (a kernel missed locally and found in the shared store is a local miss and a shared hit).
struct TierStats {
  Stats total, local, remote;
  common::Json json() const;  // total's fields, and "local" and "remote"
  void add(const common::Json& j);
};

/// One compile step's use of the store: look up (the local tier first, then the shared one; a
/// shared hit is kept locally), then store what was compiled (in both). Its counts are
/// appended to cache/log when it ends.
class KernelCache {
 public:
  /// The build's cache, or nullptr when it has none. Throws Error for a bad config.json.
  static std::unique_ptr<KernelCache> open(const std::filesystem::path& cache_dir, const common::Diag& diag);
  ~KernelCache();

  /// The stored files of a kernel, when there are, a trusted key signed them, and check accepts
  /// them (check returns "" or why not). An entry that is not used is reported, counted
  /// (untrusted or corrupt) and never written anywhere.
  std::optional<EntryFiles> fetch(const std::string& name, const std::function<std::string(const EntryFiles&)>& check);
  /// Signs and stores a kernel's files (not when read-only, or after a failure of the store).
  void store(const std::string& name, const EntryFiles& files);
  /// Before compiling a kernel that fetch missed: claims it in the store builders share (the
  /// shared one, else the local one), so that of the builders that miss it at once one compiles
  /// it. When another builder holds the claim, waits for its entry (up to the location's wait
  /// bound) and returns it. Returns nullopt when this builder is to compile the kernel: `lease`
  /// then holds its claim, unless the store has no claims, failed, or the wait ended without an
  /// entry (the claimant's compile failed, or it took longer than the bound).
  std::optional<EntryFiles> claim(const std::string& name, const std::function<std::string(const EntryFiles&)>& check,
                                  std::unique_ptr<Lease>& lease);

 private:
  struct Tier {
    Location where;
    std::uint64_t max_size = 0;
    const char* down;              // the marker of a recent failure, in the build's cache folder
    std::unique_ptr<Store> store;  // null once the store failed
    Stats* stats;
  };
  KernelCache(std::filesystem::path dir, Settings settings, const common::Diag& diag);
  void failed(Tier& tier, const std::string& what, const char* consequence);
  const trust::TrustedKeys* trusted(Tier& tier);  // loaded at the first entry; nullptr when that failed
  // Why an entry object must not be used ("" when it can), counting untrusted and corrupt ones.
  void put(Tier& tier, const std::string& name, const std::string& object);
  // `report`: an entry not to be used is said and counted (not when it was already, by the lookup).
  std::optional<EntryFiles> accept(Tier& tier, const std::string& name, const std::string& object,
                                   const std::function<std::string(const EntryFiles&)>& check, bool report = true);
  // Another builder's entry, found in the tier builders share: checked, counted, kept locally.
  std::optional<EntryFiles> take(Tier& tier, const std::string& name, const std::string& object,
                                 const std::function<std::string(const EntryFiles&)>& check, bool report = true);

  std::filesystem::path dir_;
  Settings settings_;
  const common::Diag& diag_;
  std::optional<trust::TrustedKeys> trusted_, trusted_local_;  // the shared tier's, the local tier's
  TierStats stats_;
  std::vector<Tier> tiers_;  // local first
};

/// Adds a build's counts to those a local store keeps since its last zero (<dir>/stats.json,
/// under an flock of <dir>/stats.lock). A store that cannot take them costs nothing.
void add_store_stats(const std::filesystem::path& local_dir, const TierStats& build);
/// What a local store counted since its last zero.
TierStats read_store_stats(const std::filesystem::path& local_dir);
/// Starts a local store's counts again; throws common::Error when they cannot be written.
void zero_store_stats(const std::filesystem::path& local_dir);

/// The report step: adds up cache/log into cache/stats.json and summary.json's "cache", prints
/// one line for people, and starts the next build's log. Returns 0.
int report_cache(const std::filesystem::path& build_dir, const common::Diag& diag);

}  // namespace skb::store
