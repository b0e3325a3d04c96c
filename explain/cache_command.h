#pragma once
#include <CLI/CLI.hpp>
#include <optional>
#include <string>

namespace skb::explain {

/// `skb cache`: the user's private local kernel store, seen and managed (stats, zero, clean,
/// evict, verify, config). add_cache_command declares it; run_cache_command runs it once parsed.
struct CacheCommand {
  CLI::App* app = nullptr;
  CLI::App *stats = nullptr, *zero = nullptr, *clean = nullptr, *evict = nullptr, *verify = nullptr, *config = nullptr;
  std::optional<std::string> dir;  // --cache-dir
  std::string older_than, max_size;
  bool json = false;
};
void add_cache_command(CLI::App& skb, CacheCommand& c);
int run_cache_command(const CacheCommand& c);

}  // namespace skb::explain
