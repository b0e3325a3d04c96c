#include "explain/cache_command.h"

#include <fmt/format.h>
#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <limits>

#include "common/error.h"
#include "common/json_input.h"
#include "explain/cli.h"
#include "store/kernel_cache.h"
#include "store/local_admin.h"
#include "store/local_config.h"
#include "trust/user_keys.h"

namespace skb::explain {

const char* const kCacheHelp = R"(
Every build (skb-generate, skb-package, op_compiler, the CMake function) looks each kernel up
in the user's private local store before compiling it, and keeps what it compiles there, so a
restart, a rerun into a fresh folder, or another project compiles only what is new. A shared
store (--cache URL or SKB_CACHE) is a second tier behind it: looked up after it, a hit kept
locally, what is compiled stored in both. Entries are used only when a trusted key signed them
(see skb key --help), in either tier.

Where, first that applies:   --cache-dir DIR, SKB_CACHE_DIR, cache_dir in ~/.config/skb/skb.conf,
                             $XDG_CACHE_HOME/skb, ~/.cache/skb; "off" turns the store off
Cap, first that applies:     --cache-dir-max-size (builds), SKB_CACHE_MAX_SIZE, max_size in
                             DIR/skb.conf, max_size in ~/.config/skb/skb.conf, 5G
skb.conf:                    "key = value" lines, '#' comments: cache_dir = /data/skb-cache,
                             max_size = 20G
Private:                     made 0700; a folder owned by another user or writable by group or
                             others is not used (one warning; kernels are compiled)

Commands:
  stats [--json]             entries, bytes, cap; hits, misses, uploads, evictions, corrupt and
                             untrusted entries since the last zero, per tier
  zero                       starts those counts again
  clean                      removes every entry
  evict --older-than 30d     removes entries not used for that long (s, m, h, d)
        --max-size 2G        and the least recently used ones until the store holds at most that
  verify                     reads every entry again; a damaged one is removed and named, one not
                             trusted (a signature that does not verify included) named and kept
  config [--json]            which stores a build here uses, and where each setting came from

Builders, clean and evict may run at once on one store: each change is made under the lock of
the part it changes, and an entry is written beside its name and renamed into place, so nobody
is ever handed half an entry.

Exit status: 0 done, 3 (verify) damaged entries were found and removed, 1 error, 2 bad command
line.

Examples:
  skb cache stats
  SKB_CACHE_DIR=/mnt/persistent/skb skb cache config
  skb cache evict --older-than 30d
)";

namespace fs = std::filesystem;
using common::Error;
using common::Json;

namespace {

constexpr int kExitDamaged = 3;

std::string bytes_text(std::uint64_t n) {
  if (n < 1024) return fmt::format("{} B", n);
  if (n < (1u << 20)) return fmt::format("{:.1f} KiB", n / 1024.0);
  if (n < (1u << 30)) return fmt::format("{:.1f} MiB", n / 1048576.0);
  return fmt::format("{:.2f} GiB", n / 1073741824.0);
}

store::LocalConfig local_config(const CacheCommand& c) {
  store::LocalFlags flags;
  flags.dir = c.dir;
  store::LocalConfig local = store::resolve_local(flags);
  if (local.dir.empty())
    throw Error(fmt::format("the local kernel store is off (from {}): give --cache-dir DIR", local.dir_from));
  return local;
}

void print(const std::string& text) { std::fwrite(text.data(), 1, text.size(), stdout); }

std::string tier_line(const char* name, const store::Stats& s) {
  return fmt::format(
      "  {:<7} {:>7} hits {:>7} misses {:>7} uploads {:>6} evictions {:>4} corrupt {:>4} untrusted {:>4} errors\n",
      name, s.hits, s.misses, s.uploads, s.evictions, s.corrupt, s.untrusted, s.errors);
}

int stats(const CacheCommand& c, const store::LocalConfig& local) {
  store::Usage u = store::usage(local.dir);
  store::TierStats s = store::read_store_stats(local.dir);
  if (c.json) {
    Json j = {{"dir", local.dir.string()},
              {"entries", u.entries},
              {"bytes", u.bytes},
              {"max_size", local.max_size},
              {"counts", s.json()}};
    print(j.dump(2) + "\n");
    return 0;
  }
  std::uint64_t lookups = s.total.hits + s.total.misses;
  print(fmt::format("local store   {}\nentries       {}\nsize          {} of {} ({:.1f}%)\n", local.dir.string(),
                    u.entries, bytes_text(u.bytes), bytes_text(local.max_size),
                    local.max_size ? 100.0 * u.bytes / local.max_size : 0.0));
  const std::uint64_t taken = std::min(s.total.taken, s.total.misses);
  print(fmt::format("kernels       {} looked up: {} found ({:.1f}%), {} compiled\n", lookups, s.total.hits,
                    lookups ? 100.0 * s.total.hits / lookups : 0.0, s.total.misses - taken));
  if (s.total.claims + s.total.waited + s.total.taken > 0)
    print(
        fmt::format("claims        {} compiled under a claim, {} taken from other builders, {} waited for ({:.1f} s)\n",
                    s.total.claims, taken, s.total.waited, s.total.wait_ms / 1000.0));
  print("since the last zero, per tier:\n");
  print(tier_line("local", s.local));
  print(tier_line("shared", s.remote));
  return 0;
}

int config(const CacheCommand& c) {
  store::LocalFlags flags;
  flags.dir = c.dir;
  store::LocalConfig local = store::resolve_local(flags);
  std::error_code ec;
  const bool made = !local.dir.empty() && fs::symlink_status(local.dir, ec).type() != fs::file_type::not_found;
  std::string why = made ? store::private_dir_problem(local.dir) : "";  // it reports; it makes nothing
  const char* shared = std::getenv("SKB_CACHE");
  const char* sign = std::getenv("SKB_SIGNING_KEY");
  const char* trusted = std::getenv("SKB_TRUSTED_KEYS");
  Json j = {{"local",
             {{"dir", local.dir.string()},
              {"dir_from", local.dir_from},
              {"max_size", local.max_size},
              {"max_size_from", local.max_size_from},
              {"usable", !local.dir.empty() && why.empty()},
              {"why_not", why}}},
            {"shared", {{"url", shared ? shared : ""}, {"from", shared ? "SKB_CACHE" : "none (--cache URL)"}}},
            {"signing_key", sign ? sign : trust::own_key_file().string()},
            {"signing_key_from", sign ? "SKB_SIGNING_KEY" : "default"},
            {"trusted_keys", trusted ? trusted : trust::own_trust_file().string() + " and the signing key"},
            {"trusted_keys_from", trusted ? "SKB_TRUSTED_KEYS" : "default"}};
  if (c.json) {
    print(j.dump(2) + "\n");
    return 0;
  }
  if (local.dir.empty())
    print(fmt::format("local store   off (from {})\n", local.dir_from));
  else
    print(fmt::format("local store   {} (from {}){}\ncap           {} (from {})\n", local.dir.string(), local.dir_from,
                      !why.empty() ? "\n              NOT USED: " + why
                      : made       ? ""
                                   : "\n              not made yet (the first build makes it, 0700)",
                      bytes_text(local.max_size), local.max_size_from));
  print(fmt::format("shared store  {}\n", shared && *shared ? fmt::format("{} (from SKB_CACHE)", shared)
                                                            : std::string("none (--cache URL or SKB_CACHE)")));
  print(fmt::format("signing key   {} (from {})\n", j["signing_key"].get<std::string>(),
                    j["signing_key_from"].get<std::string>()));
  print(fmt::format("trusted keys  {} (from {})\n", j["trusted_keys"].get<std::string>(),
                    j["trusted_keys_from"].get<std::string>()));
  return 0;
}

}  // namespace

std::uint64_t parse_duration(const std::string& text) {
  std::uint64_t n = 0;  // digits only: no sign, no blank, no overflow
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  std::string_view unit(end, static_cast<std::size_t>(text.data() + text.size() - end));
  std::uint64_t scale = unit.empty() || unit == "s" ? 1
                        : unit == "m"               ? 60
                        : unit == "h"               ? 3600
                        : unit == "d"               ? 86400
                                                    : 0;
  if (ec != std::errc() || scale == 0 || n > std::numeric_limits<std::uint64_t>::max() / scale)
    throw Error(fmt::format("{}: expected a duration such as 30d, 12h, 90m or 3600s", text));
  return n * scale;
}

int run_cache_command(const CacheCommand& c) {
  if (c.action == "config") return config(c);
  store::LocalConfig local = local_config(c);
  std::error_code ec;
  if (fs::exists(fs::symlink_status(local.dir, ec)) && !fs::is_directory(local.dir, ec))
    throw Error(fmt::format("{}: not a folder (a kernel store is a folder)", local.dir.string()));
  if (c.action == "stats") return stats(c, local);
  if (!fs::is_directory(local.dir, ec)) {
    print(fmt::format("{}: no store yet (nothing to do)\n", local.dir.string()));
    return 0;
  }
  if (c.action == "zero") {
    store::zero_store_stats(local.dir);
    print(fmt::format("{}: counts set to zero\n", local.dir.string()));
    return 0;
  }
  if (c.action == "clean") {
    print(fmt::format("{}: {} entries removed\n", local.dir.string(), store::clean(local.dir)));
    return 0;
  }
  if (c.action == "evict") {
    std::optional<std::uint64_t> older, max;
    if (!c.older_than.empty()) older = parse_duration(c.older_than);
    if (!c.max_size.empty()) {
      max = store::parse_size(c.max_size);
      if (!max) throw Error(fmt::format("--max-size {}: expected a size such as 2G or 500M", c.max_size));
    }
    std::uint64_t n = store::evict(local.dir, older, max);
    store::Usage u = store::usage(local.dir);
    print(fmt::format("{}: {} entries evicted; {} entries, {} left\n", local.dir.string(), n, u.entries,
                      bytes_text(u.bytes)));
    return 0;
  }
  store::VerifyResult r = store::verify(
      local.dir, [](const std::string& file, const std::string& what) { print(fmt::format("{}: {}\n", file, what)); });
  print(fmt::format("{}: {} entries checked, {} damaged (removed), {} untrusted\n", local.dir.string(), r.checked,
                    r.damaged, r.untrusted));
  return r.damaged ? kExitDamaged : 0;
}

}  // namespace skb::explain
