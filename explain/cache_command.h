#pragma once
#include <optional>
#include <string>

namespace CLI {
class App;
}  // namespace CLI

namespace skb::explain {

/// The text `skb cache --help` ends with.
extern const char* const kCacheHelp;

/// `skb cache`: the user's private local kernel store, seen and managed (stats, zero, clean,
/// evict, verify, config). add_cache_command declares it; run_cache_command runs it once parsed.
struct CacheCommand {
  CLI::App* app = nullptr;
  std::string action;              // the subcommand given: stats, zero, clean, evict, verify or config
  std::optional<std::string> dir;  // --cache-dir
  std::string older_than, max_size;
  bool json = false;
};
void add_cache_command(CLI::App& skb, CacheCommand& c);
int run_cache_command(const CacheCommand& c);

/// Seconds of a duration such as 30d, 12h, 90m, 3600s or 3600; throws common::Error otherwise.
std::uint64_t parse_duration(const std::string& text);

}  // namespace skb::explain
