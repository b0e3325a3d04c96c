#include "packager/install/index_cache.h"

#include <fmt/format.h>
#include <libdeflate.h>

namespace skb::installer {
namespace {

// Version 1 also listed the installed files by hash (an install finds them through the index now).
constexpr std::string_view kVersionLine = "skb index cache 2\n";

}  // namespace

std::string index_check(std::string_view text) { return index_check(std::vector<std::string_view>{text}); }

std::string index_check(const std::vector<std::string_view>& parts) {
  std::size_t size = 0;
  std::uint32_t crc = 0, adler = 1;
  for (std::string_view p : parts) {
    size += p.size();
    crc = libdeflate_crc32(crc, p.data(), p.size());
    adler = libdeflate_adler32(adler, p.data(), p.size());
  }
  return fmt::format("{}:{:08x}:{:08x}", size, crc, adler);
}

std::string index_cache_text(const IndexCache& cache) {
  std::string out(kVersionLine);
  out += "order\t";
  for (std::size_t i = 0; i < cache.order.size(); ++i) out += (i ? "," : "") + cache.order[i];
  out += '\n';
  for (const auto& [soc, check] : cache.indexes) out += fmt::format("index\t{}\t{}\n", soc, check);
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
  if (at != body.size() || !l.empty()) return std::nullopt;
  return c;
}

}  // namespace skb::installer
