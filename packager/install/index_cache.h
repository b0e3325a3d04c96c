#pragma once
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace skb::installer {

/// What the library keeps beside its merged indexes (ai_core/index_cache.txt) so that an install
/// neither reads every installed package's index pieces nor merges them: the merged indexes
/// themselves are what the new package's entries are spliced into (splice_index), and this file
/// says which install order they merge and which bytes they had when it was written. Written
/// after the indexes on every change, under the lock; an install uses it only when the order is
/// today's and each index still has the bytes it names, else it merges every package's pieces as
/// before (and writes it anew): a missing, damaged or outdated cache costs time, never a wrong
/// index. (The installed files a new package links to are found through the index: listed_bins.)
struct IndexCache {
  std::vector<std::string> order;              // newest first, as config.ini lists them
  std::map<std::string, std::string> indexes;  // soc: index_check of its merged index
};

inline constexpr const char* kIndexCacheName = "index_cache.txt";

/// A check of an index's bytes: its size, CRC-32 and Adler-32 ("<size>:<crc32>:<adler32>").
std::string index_check(std::string_view text);
/// The same, of a text in parts.
std::string index_check(const std::vector<std::string_view>& parts);

/// The cache's text: a version line, the order, the indexes' checks, and a line with
/// the check of everything before it.
std::string index_cache_text(const IndexCache& cache);

/// Reads index_cache_text; nullopt when it is not as written (damaged, cut short, another version).
std::optional<IndexCache> parse_index_cache(std::string_view text);

}  // namespace skb::installer
