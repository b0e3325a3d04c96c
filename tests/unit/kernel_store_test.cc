#include <fcntl.h>
#include <sys/stat.h>

#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>
#include <atomic>
#include <chrono>
#include <set>
#include <thread>
#include <vector>

#include "common/error.h"
#include "common/fs.h"
#include "common/sha256.h"
#include "generator/compile_step.h"
#include "store/entry.h"
#include "store/entry_signature.h"
#include "store/kernel_cache.h"
#include "store/lease.h"
#include "store/store.h"
#include "test_util.h"
#include "trust/signature.h"
#include "trust/user_keys.h"

namespace skb::generator {
namespace {
namespace fs = std::filesystem;
using store::EntryFiles;

// A kernel store and two build folders that share it.
struct Shared {
  fs::path root = test::scratch_dir();
  fs::path store = root / "store";

  // A step of build folder `build` whose compiler writes `bytes` (and counts its runs).
  CompileStep step(const std::string& build, const std::string& bytes, const std::string& url = "") const {
    fs::path dir = root / build / "kernel_meta";
    fs::create_directories(dir);
    fs::path cache_dir = root / build / "cache";
    fs::create_directories(cache_dir);
    store::Settings settings;
    settings.where = store::parse_location(url.empty() ? "file://" + store.string() : url);
    common::write_atomic(cache_dir / "config.json", store::settings_json(settings));
    CompileStep s = test::relu_step(dir, {"sh", "-c", "printf '%s' \"$1\" > \"$0\"; echo x >> \"$2\"", "@OUT@", bytes,
                                          (root / build / "compiles").string()});
    s.toolchain_id = "tc-a";
    s.cache_dir = cache_dir;
    return s;
  }
  // What a build does for one kernel: the store lookup, then the compile step.
  static int run(const CompileStep& s) {
    common::Diag diag("skb-generate");
    prefetch_kernels({s}, s.cache_dir, s.cache_dir / store::kLookupStamp, diag);
    return run_compile_step(s, diag);
  }
  int compiles(const std::string& build) const {
    auto text = common::read_file_if_exists(root / build / "compiles");
    return text ? static_cast<int>(std::count(text->begin(), text->end(), '\n')) : 0;
  }
  // The counts the steps of a build folder logged, added up.
  store::Stats stats(const std::string& build) const {
    store::Stats total;
    auto log = common::read_file_if_exists(root / build / "cache" / "log");
    for (std::size_t at = 0; log && at < log->size();) {
      std::size_t end = log->find('\n', at);
      total.add(common::parse_json(log->substr(at, end - at)));
      at = end + 1;
    }
    return total;
  }
  // The one entry file of the store.
  fs::path entry_file() const {
    std::vector<fs::path> found;
    for (const auto& e : fs::recursive_directory_iterator(store))
      if (e.path().extension() == ".entry") found.push_back(e.path());
    EXPECT_EQ(found.size(), 1u);
    return found.empty() ? fs::path() : found[0];
  }
  std::string kernel(const CompileStep& s) const { return common::read_file(s.dir / (s.name + ".so")); }
  std::string record(const CompileStep& s) const { return common::read_file(s.dir / (s.name + ".json")); }
};

// A password in the URL would reach build.ninja and cache/config.json: refused, and not echoed,
// even when something else is wrong with the URL too; a query key of the server's, where a token
// would travel, is refused the same way.
TEST(KernelStore, RefusesAPasswordInTheUrl) {
  for (const char* url :
       {"redis://:s3cret@cache.example:7000/3", "http://user:s3cret@127.0.0.1/kernels",
        "redis://:s3cret@127.0.0.1:1/2?mode=rx", "https://u:s3cret@127.0.0.1:1/p?timeout=0",
        "http://u:s3cret@127.0.0.1:1@evil/", "file://u:s3cret@localhost/tmp/x", "redis://127.0.0.1:1/2?password=s3cret",
        "http://h/p?token=s3cret", "redis://[::1]:1/2?auth=s3cret", "ftp://u:s3cret@h/x"}) {
    try {
      store::parse_location(url);
      ADD_FAILURE() << url << " was taken";
    } catch (const common::Error& e) {
      EXPECT_EQ(std::string(e.what()).find("s3cret"), std::string::npos) << e.what();
    }
  }
  try {
    store::parse_location("redis://:s3cret@cache.example:7000/3");
  } catch (const common::Error& e) {
    EXPECT_NE(std::string(e.what()).find("SKB_REDIS_PASSWORD"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("redis://:***@cache.example:7000/3"), std::string::npos) << e.what();
  }
  try {
    store::parse_location("http://h/p?token=s3cret");
  } catch (const common::Error& e) {
    EXPECT_NE(std::string(e.what()).find("?token=...: expected mode, timeout"), std::string::npos) << e.what();
  }
}

TEST(KernelStore, ParsesTheThreeKindsOfUrl) {
  auto f = store::parse_location("file:///srv/kernels");
  EXPECT_EQ(f.scheme, "file");
  EXPECT_EQ(f.path, "/srv/kernels");
  EXPECT_FALSE(f.read_only);
  auto r = store::parse_location("redis://builder@cache.example:7000/3?mode=ro");
  EXPECT_EQ(r.host, "cache.example");
  EXPECT_EQ(r.port, 7000);
  EXPECT_EQ(r.path, "/3");
  EXPECT_EQ(r.user, "builder");
  EXPECT_TRUE(r.password.empty());
  EXPECT_TRUE(r.read_only);
  EXPECT_EQ(store::parse_location("redis://localhost").port, 6379);
  auto h = store::parse_location("http://127.0.0.1:8080/kernels/?timeout=1.5");
  EXPECT_EQ(h.path, "/kernels");
  EXPECT_EQ(h.timeout_ms, 1500u);
  EXPECT_EQ(h.connect_timeout_ms, 1500u);
  auto c = store::parse_location("redis://h/1?lease=2&wait=1.5&claims=off");
  EXPECT_EQ(c.lease_ms, 2000u);
  EXPECT_EQ(c.wait_ms, 1500u);
  EXPECT_FALSE(c.claims);
  EXPECT_EQ(c.display, "redis://h/1");
  EXPECT_TRUE(store::parse_location("redis://h").claims);
  for (const char* bad :
       {"ftp://host/x", "redis://host/db1", "file://server/x", "http://h/p?mode=rx", "http://h/p?timeout=0",
        "not a url", "file:///", "redis://h?lease=0", "redis://h?claims=maybe", "file:///x?wait=-1"}) {
    EXPECT_THROW(store::parse_location(bad), common::Error) << bad;
  }
}

TEST(KernelStore, AnEntryIsOneObjectAndNoPrefixOfItPassesForIt) {
  EntryFiles files{"{\"size\": 5}\n", std::string(4000, 'k') + "tail", std::string("{\"blockDim\": 8}")};
  std::string object = store::pack_entry(files);
  EXPECT_EQ(store::pack_entry(files), object);  // the same files make the same bytes
  EntryFiles back = store::unpack_entry(object);
  EXPECT_EQ(back.record, files.record);
  EXPECT_EQ(back.binary, files.binary);
  EXPECT_EQ(back.sidecar, files.sidecar);
  EXPECT_EQ(back.binary_mode, 0644u);
  files.binary_mode = 04777;  // no set-id bit, nothing writable by others, ever comes back
  EXPECT_EQ(store::unpack_entry(store::pack_entry(files)).binary_mode, 0755u);
  // A truncated object is refused, or (cut in its end padding) still the whole entry.
  for (std::size_t cut = 0; cut < object.size(); ++cut) {
    try {
      EntryFiles part = store::unpack_entry(object.substr(0, cut));
      EXPECT_EQ(part.binary, files.binary) << cut;
      EXPECT_EQ(part.sidecar, files.sidecar) << cut;
    } catch (const store::BadEntry&) {
    }
  }
  EXPECT_THROW(store::unpack_entry("garbage"), store::BadEntry);
}

TEST(KernelStore, SecondBuildFolderTakesTheKernelWithoutCompiling) {
  Shared sh;
  CompileStep a = sh.step("a", "kernel-bytes");
  ASSERT_EQ(sh.run(a), 0);
  EXPECT_EQ(sh.compiles("a"), 1);
  EXPECT_EQ(sh.stats("a").uploads, 1u);
  // b's compiler would write other bytes: the kernel must come from the store
  CompileStep b = sh.step("b", "other-bytes");
  ASSERT_EQ(sh.run(b), 0);
  EXPECT_EQ(sh.compiles("b"), 0);
  EXPECT_EQ(sh.kernel(b), "kernel-bytes");
  EXPECT_EQ(sh.record(b), sh.record(a));
  EXPECT_EQ(fs::status(b.dir / (b.name + ".so")).permissions(), fs::status(a.dir / (a.name + ".so")).permissions());
  EXPECT_TRUE(keep_if_complete(b.dir, b.name, ".so"));
  store::Stats st = sh.stats("b");
  EXPECT_EQ(st.hits, 1u);
  EXPECT_EQ(st.misses, 0u);
  EXPECT_EQ(st.uploads, 0u);
  EXPECT_GT(st.bytes_down, 0u);
}

TEST(KernelStore, DamagedTruncatedOrForeignEntriesAreCompiledLocallyAndReplaced) {
  Shared sh;
  ASSERT_EQ(sh.run(sh.step("a", "kernel-bytes")), 0);
  fs::path entry = sh.entry_file();
  std::string good = common::read_file(entry);

  // A foreign entry: a whole, well-formed object whose record names another toolchain.
  CompileStep other = sh.step("x", "kernel-bytes");
  other.toolchain_id = "tc-b";
  EntryFiles foreign{build_result(other, common::sha256_hex("kernel-bytes"), 12).dump(2) + "\n", "kernel-bytes",
                     std::nullopt};
  // An entry whose record does not describe its binary (same size, other bytes).
  CompileStep same = sh.step("y", "kernel-bytes");
  EntryFiles swapped{build_result(same, common::sha256_hex("kernel-bytes"), 12).dump(2) + "\n", "kernel-byteZ",
                     std::nullopt};
  // Both signed by a trusted key (the user's own, as a builder of another toolchain would be):
  // what proves them wrong is their contents, not their signer.
  for (EntryFiles* e : {&foreign, &swapped})
    e->signature = trust::signature_line(trust::own_signing_key(), store::entry_message(same.name, *e));
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"damaged", std::string(good).replace(good.size() / 2, 8, "XXXXXXXX")},
      {"truncated", good.substr(0, good.size() / 2)},
      {"foreign", store::pack_entry(foreign)},
      {"swapped", store::pack_entry(swapped)},
  };
  for (const auto& [what, object] : bad) {
    common::write_atomic(entry, object);
    std::string build = "b-" + what;
    CompileStep b = sh.step(build, "kernel-bytes");
    ASSERT_EQ(sh.run(b), 0) << what;
    EXPECT_EQ(sh.compiles(build), 1) << what;
    EXPECT_EQ(sh.kernel(b), "kernel-bytes") << what;
    store::Stats st = sh.stats(build);
    EXPECT_EQ(st.corrupt, 1u) << what;
    EXPECT_EQ(st.misses, 1u) << what;
    EXPECT_EQ(st.hits, 0u) << what;
    EXPECT_EQ(st.uploads, 1u) << what;  // the good entry replaces the bad one
    EXPECT_EQ(store::unpack_entry(common::read_file(entry)).binary, "kernel-bytes") << what;
  }
}

// What a hit uses is signed with its name: an entry that is unsigned, signed by a key the reader
// does not trust, signed for another name or changed after signing is never used.
TEST(KernelStore, OnlyEntriesSignedByATrustedKeyAreUsed) {
  Shared sh;
  CompileStep a = sh.step("a", "kernel-bytes");
  ASSERT_EQ(sh.run(a), 0);
  fs::path entry = sh.entry_file();
  EntryFiles good = store::unpack_entry(common::read_file(entry));
  ASSERT_TRUE(good.signature.has_value());
  EXPECT_TRUE(
      trust::check_signature(trust::own_trusted_keys(), store::entry_message(a.name, good), good.signature).trusted());

  EntryFiles unsigned_entry = good, other_key = good, other_name = good, changed = good;
  unsigned_entry.signature.reset();
  other_key.signature =
      trust::signature_line(trust::generate_signing_key("stranger"), store::entry_message(a.name, other_key));
  other_name.signature = trust::signature_line(trust::own_signing_key(), store::entry_message("Relu_other", good));
  changed.binary_mode = 0600;  // a field a hit uses, the signature left as it was
  for (const auto& [what, files] : std::vector<std::pair<std::string, EntryFiles>>{
           {"unsigned", unsigned_entry}, {"other key", other_key}, {"other name", other_name}, {"changed", changed}}) {
    common::write_atomic(entry, store::pack_entry(files));
    std::string build = "u-" + what.substr(0, 1) + what.substr(what.size() - 1);
    CompileStep b = sh.step(build, "kernel-bytes");
    ASSERT_EQ(sh.run(b), 0) << what;
    EXPECT_EQ(sh.compiles(build), 1) << what;
    store::Stats st = sh.stats(build);
    EXPECT_EQ(st.untrusted, 1u) << what;
    EXPECT_EQ(st.corrupt, 0u) << what;
    EXPECT_EQ(st.hits, 0u) << what;
  }
}

TEST(KernelStore, SidecarTravelsWithItsKernel) {
  Shared sh;
  CompileStep a = sh.step("a", "kernel-bytes");
  a.sidecar = true;
  a.command = {"sh", "-c", "printf k > \"$0\"; printf '{\"blockDim\": 24, \"kernelName\": \"k_mix\"}' > \"$1\"",
               "@OUT@", "@SIDECAR@"};
  ASSERT_EQ(sh.run(a), 0);
  CompileStep b = sh.step("b", "unused");
  b.sidecar = true;
  b.command = {"false"};
  ASSERT_EQ(sh.run(b), 0);
  EXPECT_EQ(common::read_file(b.dir / (b.name + kSidecarSuffix)), common::read_file(a.dir / (a.name + kSidecarSuffix)));
  EXPECT_EQ(sh.record(b), sh.record(a));
  // a toolchain without sidecars does not take an entry that has one
  CompileStep c = sh.step("c", "k");
  ASSERT_EQ(sh.run(c), 0);
  EXPECT_EQ(sh.compiles("c"), 1);
  EXPECT_EQ(sh.stats("c").corrupt, 1u);
}

TEST(KernelStore, ReadOnlyConsumerNeverWrites) {
  Shared sh;
  CompileStep a = sh.step("a", "kernel-bytes", "file://" + (sh.root / "store").string() + "?mode=ro");
  fs::create_directories(sh.store);
  ASSERT_EQ(sh.run(a), 0);
  EXPECT_EQ(sh.compiles("a"), 1);
  EXPECT_EQ(sh.stats("a").uploads, 0u);
  EXPECT_TRUE(fs::is_empty(sh.store));
  // a hit of a read-only consumer does not even renew the entry's time
  ASSERT_EQ(sh.run(sh.step("w", "kernel-bytes")), 0);
  auto old = fs::file_time_type::clock::now() - std::chrono::hours(24);
  fs::last_write_time(sh.entry_file(), old);
  CompileStep b = sh.step("b", "other", "file://" + sh.store.string() + "?mode=ro");
  ASSERT_EQ(sh.run(b), 0);
  EXPECT_EQ(sh.stats("b").hits, 1u);
  EXPECT_EQ(fs::last_write_time(sh.entry_file()), old);
}

TEST(KernelStore, StoreThatIsDownCostsOneWarningAndALocalCompile) {
  Shared sh;
  CompileStep a = sh.step("a", "kernel-bytes", "redis://127.0.0.1:1?timeout=1");
  ASSERT_EQ(sh.run(a), 0);
  EXPECT_EQ(sh.kernel(a), "kernel-bytes");
  EXPECT_EQ(sh.stats("a").errors, 1u);
  EXPECT_TRUE(fs::exists(sh.root / "a" / "cache" / "down"));
  // the next step leaves the store alone for a while: no second error, no second timeout
  fs::remove(a.dir / (a.name + ".json"));
  ASSERT_EQ(sh.run(a), 0);
  store::Stats st = sh.stats("a");
  EXPECT_EQ(st.errors, 1u);
  EXPECT_EQ(st.misses, 2u);
}

TEST(KernelStore, FileStoreStaysUnderItsCapWithSeveralWritersAtOnce) {
  fs::path root = test::scratch_dir() / "store";
  store::Location where = store::parse_location("file://" + root.string());
  constexpr std::uint64_t kCap = 64 * 1024;
  std::atomic<int> failures{0};
  std::vector<std::thread> writers;
  for (int w = 0; w < 4; ++w) {
    writers.emplace_back([&, w] {
      auto store = store::open_store(where, kCap);
      for (int i = 0; i < 100; ++i) {
        try {
          store->put("k" + std::to_string(w * 100 + i), std::string(1024 + i, 'a' + w));
        } catch (const std::exception&) {
          ++failures;
        }
      }
    });
  }
  for (auto& t : writers) t.join();
  EXPECT_EQ(failures.load(), 0);
  std::uint64_t total = 0;
  for (const auto& shard : fs::directory_iterator(root)) {
    std::uint64_t in_shard = 0;
    for (const auto& e : fs::directory_iterator(shard.path())) {
      EXPECT_EQ(e.path().filename().string().find(".tmp"), std::string::npos) << e.path();
      if (e.path().extension() == ".entry") in_shard += fs::file_size(e.path());
    }
    // each shard's ledger is exactly what it holds
    EXPECT_EQ(std::stoull(common::read_file(shard.path() / "size")), in_shard) << shard.path();
    total += in_shard;
  }
  EXPECT_LE(total, kCap);
  EXPECT_GT(total, kCap / 4);  // eviction keeps most of the cap, not nothing
}

TEST(KernelStore, EvictionTakesTheStoresLeastRecentlyUsedFirst) {
  fs::path root = test::scratch_dir() / "store";
  auto store = store::open_store(store::parse_location("file://" + root.string()), 16 * 1024);
  // keys of every shard: the cap is the whole store's, not a sixteenth of it in each shard
  std::vector<std::string> keys;
  std::set<char> shards;
  for (int i = 0; i < 20; ++i) {
    keys.push_back("key" + std::to_string(i));
    shards.insert(common::sha256_hex(keys.back())[0]);
  }
  ASSERT_GT(shards.size(), 8u);
  for (std::size_t i = 0; i < 10; ++i) store->put(keys[i], std::string(1024, 'x'));
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ASSERT_TRUE(store->get(keys[0]));  // used again: now the most recent of the first ten
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  for (std::size_t i = 10; i < 16; ++i) store->put(keys[i], std::string(1024, 'y'));
  EXPECT_EQ(store->evictions(), 0u) << "16 KiB in a store capped at 16 KiB";
  // A writer's temporary entry whose pid is no process here: another machine's, in a shared store.
  fs::path theirs = root / std::string(1, common::sha256_hex(keys[19])[0]) / "skb1_x.entry.tmp.4194303";
  test::write_text(theirs, "being written");
  for (std::size_t i = 16; i < 20; ++i) store->put(keys[i], std::string(1024, 'y'));
  EXPECT_GT(store->evictions(), 0u);
  EXPECT_TRUE(fs::exists(theirs)) << "a builder's eviction removed another writer's temporary entry";
  EXPECT_TRUE(store->get(keys[0]));
  EXPECT_FALSE(store->get(keys[1]));
  EXPECT_TRUE(store->get(keys[19]));
  std::uint64_t total = 0;
  for (const auto& shard : fs::directory_iterator(root))
    if (fs::is_directory(shard.path()))
      for (const auto& e : fs::directory_iterator(shard.path()))
        if (e.path().extension() == ".entry") total += fs::file_size(e.path());
  EXPECT_LE(total, 16u * 1024);
  EXPECT_GE(total, 14u * 1024) << "eviction goes to 90% of the cap, no further";
}

}  // namespace
}  // namespace skb::generator

namespace skb::generator {
namespace {
namespace fs = std::filesystem;

// A claim in a file store: O_EXCL makes one claimant of many; it is renewed and released only by
// its own token, and lapses by itself when nothing renews it. The live claims' lease is a minute,
// so that no pause of the test (a loaded machine, a sanitizer) lets one lapse; the claim meant to
// lapse has a lease of 1 ms, so that any pause only makes it lapse surer.
TEST(KernelStore, AFileStoreClaimIsALeaseThatLapsesByItself) {
  fs::path root = test::scratch_dir() / "store";
  auto store = store::open_store(store::parse_location("file://" + root.string()), 0);
  using Claim = store::Store::Claim;
  constexpr unsigned kLive = 60'000;
  EXPECT_EQ(store->claim("k", "a", kLive), Claim::kOurs);
  EXPECT_EQ(store->claim("k", "b", kLive), Claim::kTheirs);
  EXPECT_EQ(store->claimant("k"), "a");
  EXPECT_FALSE(store->renew("k", "b", kLive));
  EXPECT_TRUE(store->renew("k", "a", kLive));
  store->release("k", "b");  // not b's to give up
  EXPECT_EQ(store->claimant("k"), "a");
  store->release("k", "a");
  EXPECT_FALSE(store->claimant("k").has_value());
  EXPECT_EQ(store->claim("k", "b", 1), Claim::kOurs);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_FALSE(store->claimant("k").has_value());  // lapsed: nothing renewed it
  EXPECT_EQ(store->claim("k", "c", kLive), Claim::kOurs);
  EXPECT_FALSE(store->renew("k", "b", 1));  // b's lapsed claim is c's now
  EXPECT_EQ(store->claimant("k"), "c");
  EXPECT_EQ(store::parse_location("file://" + root.string() + "?mode=ro").read_only, true);
}

TEST(KernelStore, AClaimFileItsBuilderNeverFinishedWritingLapsesInSeconds) {
  fs::path root = test::scratch_dir() / "store";
  auto store = store::open_store(store::parse_location("file://" + root.string()), 0);
  using Claim = store::Store::Claim;
  EXPECT_EQ(store->claim("k", "a", 60'000), Claim::kOurs);
  fs::path file = root / "claims" / "k";
  ASSERT_TRUE(fs::exists(file));
  test::write_text(file, "");  // killed between creating it and writing it
  EXPECT_EQ(store->claim("k", "b", 60'000), Claim::kTheirs) << "a claim being written is live";
  struct timespec old[2] = {{0, UTIME_OMIT}, {::time(nullptr) - 3, 0}};
  ASSERT_EQ(::utimensat(AT_FDCWD, file.c_str(), old, 0), 0);
  EXPECT_EQ(store->claim("k", "b", 60'000), Claim::kOurs) << "never finished: taken over";
  EXPECT_EQ(store->claimant("k"), "b");
  test::write_text(file, "c\n600");  // cut short in its lease
  ASSERT_EQ(::utimensat(AT_FDCWD, file.c_str(), old, 0), 0);
  EXPECT_EQ(store->claim("k", "d", 60'000), Claim::kOurs);
}

TEST(KernelStore, OfManyBuildersClaimingAtOnceOneGetsTheClaim) {
  fs::path root = test::scratch_dir() / "store";
  store::Location where = store::parse_location("file://" + root.string());
  for (int round = 0; round < 20; ++round) {
    std::atomic<int> ours{0};
    std::vector<std::thread> builders;
    for (int b = 0; b < 8; ++b)
      builders.emplace_back([&, b] {
        auto store = store::open_store(where, 0);
        if (store->claim("k" + std::to_string(round), "t" + std::to_string(b), 60000) == store::Store::Claim::kOurs)
          ++ours;
      });
    for (auto& t : builders) t.join();
    EXPECT_EQ(ours.load(), 1) << "round " << round;
  }
}

// A claim of a process of this host that no longer runs need not be waited out (an interrupted
// build's); another host's, or a live process's, must.
TEST(KernelStore, AClaimOfADeadProcessOfThisHostIsKnownDead) {
  pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  ASSERT_GT(child, 0);
  ::waitpid(child, nullptr, 0);
  std::string token = store::claim_token();
  std::string host = token.substr(0, token.find(':'));
  EXPECT_FALSE(store::claimant_is_dead(token));  // this process
  EXPECT_TRUE(store::claimant_is_dead(fmt::format("{}:{}:0123456789abcdef", host, child)));
  EXPECT_FALSE(store::claimant_is_dead(fmt::format("{}x:{}:0123456789abcdef", host, child)));
  EXPECT_FALSE(store::claimant_is_dead("not a token"));
}

// skb cache zero: counts that cannot be written are an error, never "set to zero".
TEST(KernelStore, ZeroingCountsItCannotWriteIsAnError) {
  auto dir = test::scratch_dir();
  store::TierStats counted;
  counted.local.hits = counted.total.hits = 3;
  store::add_store_stats(dir, counted);
  EXPECT_EQ(store::read_store_stats(dir).total.hits, 3u);
  store::zero_store_stats(dir);
  EXPECT_EQ(store::read_store_stats(dir).total.hits, 0u);
  store::add_store_stats(dir, counted);
  fs::remove(dir / "stats.lock");
  fs::create_directory(dir / "stats.lock");  // a lock that cannot be opened, as on a read-only disk
  EXPECT_THROW(store::zero_store_stats(dir), common::Error);
  EXPECT_EQ(store::read_store_stats(dir).total.hits, 3u);
  EXPECT_NO_THROW(store::zero_store_stats(dir / "never-used")) << "nothing counted, nothing to write";
}

}  // namespace
}  // namespace skb::generator
