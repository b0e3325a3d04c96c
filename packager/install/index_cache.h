#pragma once
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "packager/install/index_pieces.h"

namespace skb::installer {

/// What the library keeps beside its merged indexes (ai_core/index_cache.txt) so that an install
/// reads neither every installed package's index pieces nor merges them: the merged indexes
/// themselves are what the new package's entries are spliced into (splice_index), and this file
/// says which install order they merge and which bytes they had when it was written, and which
/// installed file holds each file's bytes (what a new package's files link to). Written after the
/// indexes on every change, under the lock; an install uses it only when the order is today's
/// and each index still has the bytes it names, else it merges every package's pieces as before
/// (and writes it anew): a missing, damaged or outdated cache costs time, never a wrong index.
struct IndexCache {
  std::vector<std::string> order;              // newest first, as config.ini lists them
  std::map<std::string, std::string> indexes;  // soc: index_check of its merged index
  // A line ("<sha256>\t<path>\n") per distinct file of the installed packages, in sha256 order:
  // the file of the newest package that holds those bytes (its first path there), relative to
  // ai_core/.
  std::string files;
};

inline constexpr const char* kIndexCacheName = "index_cache.txt";

/// A check of an index's bytes: its size, CRC-32 and Adler-32 ("<size>:<crc32>:<adler32>").
std::string index_check(std::string_view text);

/// The cache's text: a version line, the order, the indexes' checks, the files, and a line with
/// the check of everything before it.
std::string index_cache_text(const IndexCache& cache);

/// Reads index_cache_text; nullopt when it is not as written (damaged, cut short, another version).
std::optional<IndexCache> parse_index_cache(std::string_view text);

/// IndexCache::files of packages (oldest first).
std::string cached_files(const std::vector<const PackagePieces*>& oldest_first);

/// The same with `fresh` installed after them (its files then held by it).
std::string cached_files_with(std::string_view files, const PackagePieces& fresh);

/// Calls f(sha256, path) for each line of IndexCache::files.
template <typename F>
void for_each_cached_file(std::string_view files, F&& f) {
  for (std::size_t start = 0, at; (at = files.find('\n', start)) != std::string_view::npos; start = at + 1)
    f(files.substr(start, 64), files.substr(start + 65, at - start - 65));
}

}  // namespace skb::installer
