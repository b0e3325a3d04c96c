#include "packager/install/index_cache.h"

#include <fmt/format.h>
#include <libdeflate.h>

namespace skb::installer {
namespace {

constexpr std::string_view kVersionLine = "skb index cache 1\n";

// A package's files by sha256, each at its first path there.
std::map<std::string_view, std::string_view> first_paths(const PackagePieces& p) {
  std::map<std::string_view, std::string_view> out;
  for (const auto& [sha, path] : p.files) out.emplace(sha, path);
  return out;
}

void add_line(std::string& out, std::string_view sha, std::string_view package, std::string_view path) {
  out += sha;
  out += '\t';
  if (!package.empty()) {
    out += package;
    out += '/';
  }
  out += path;
  out += '\n';
}

}  // namespace

std::string index_check(std::string_view text) {
  return fmt::format("{}:{:08x}:{:08x}", text.size(), libdeflate_crc32(0, text.data(), text.size()),
                     libdeflate_adler32(1, text.data(), text.size()));
}

std::string index_cache_text(const IndexCache& cache) {
  std::string out(kVersionLine);
  out += "order\t";
  for (std::size_t i = 0; i < cache.order.size(); ++i) out += (i ? "," : "") + cache.order[i];
  out += '\n';
  for (const auto& [soc, check] : cache.indexes) out += fmt::format("index\t{}\t{}\n", soc, check);
  out += "files\n";
  out += cache.files;
  out += fmt::format("end\t{}\n", index_check(out));
  return out;
}

std::optional<IndexCache> parse_index_cache(std::string_view text) {
  // The last line checks every byte before it.
  if (text.size() < 2 || text.back() != '\n') return std::nullopt;
  std::size_t last = text.rfind('\n', text.size() - 2) + 1;
  std::string_view body = text.substr(0, last);
  if (text.substr(last, 4) != "end\t" || text.substr(last + 4, text.size() - last - 5) != index_check(body) ||
      body.substr(0, kVersionLine.size()) != kVersionLine)
    return std::nullopt;
  IndexCache c;
  std::size_t at = kVersionLine.size();
  auto line = [&]() -> std::string_view {
    std::size_t end = body.find('\n', at);
    if (end == std::string_view::npos) return {};
    std::string_view l = body.substr(at, end - at);
    at = end + 1;
    return l;
  };
  std::string_view l = line();
  if (l.substr(0, 6) != "order\t") return std::nullopt;
  l.remove_prefix(6);
  for (std::size_t start = 0; !l.empty() && start <= l.size();) {
    std::size_t comma = std::min(l.find(',', start), l.size());
    c.order.emplace_back(l.substr(start, comma - start));
    start = comma + 1;
  }
  for (l = line(); l.substr(0, 6) == "index\t"; l = line()) {
    std::size_t tab = l.find('\t', 6);
    if (tab == std::string_view::npos) return std::nullopt;
    c.indexes.emplace(l.substr(6, tab - 6), l.substr(tab + 1));
  }
  if (l != "files") return std::nullopt;
  c.files = body.substr(at);
  // Each line a sha256 and a path, in sha256 order, each sha256 once.
  std::string_view files = c.files, previous;
  for (std::size_t start = 0, end; start < files.size(); start = end + 1) {
    end = files.find('\n', start);
    std::string_view sha = files.substr(start, 64);
    // (Its bytes are checked: a line is only looked at, not its sha256's every digit.)
    if (end == std::string_view::npos || end - start < 66 || files[start + 64] != '\t' || !(previous < sha))
      return std::nullopt;
    previous = sha;
  }
  return c;
}

std::string cached_files(const std::vector<const PackagePieces*>& oldest_first) {
  std::map<std::string_view, std::pair<std::string_view, std::string_view>> holder;  // sha: package, path
  for (const auto* p : oldest_first)
    for (const auto& [sha, path] : first_paths(*p)) holder[sha] = {p->package, path};
  std::string out;
  for (const auto& [sha, where] : holder) add_line(out, sha, where.first, where.second);
  return out;
}

std::string cached_files_with(std::string_view files, const PackagePieces& fresh) {
  std::map<std::string_view, std::string_view> mine = first_paths(fresh);
  std::string out;
  out.reserve(files.size() + mine.size() * (fresh.package.size() + 128));
  auto next = mine.begin();
  for_each_cached_file(files, [&](std::string_view sha, std::string_view path) {
    for (; next != mine.end() && next->first < sha; ++next) add_line(out, next->first, fresh.package, next->second);
    if (next != mine.end() && next->first == sha) return;  // fresh holds it now
    add_line(out, sha, {}, path);
  });
  for (; next != mine.end(); ++next) add_line(out, next->first, fresh.package, next->second);
  return out;
}

}  // namespace skb::installer
