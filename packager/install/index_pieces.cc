#include "packager/install/index_pieces.h"

#include <fmt/format.h>

#include <charconv>
#include <memory>
#include <optional>
#include <unordered_map>

#include "common/error.h"
#include "common/json_input.h"
#include "common/sha256.h"
#include "packager/format/gzip_bytes.h"

namespace skb::installer {
namespace {

using common::Json;
constexpr std::string_view kVersionLine = "skb index pieces 1";

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  for (std::size_t at; (at = s.find(sep, start)) != std::string_view::npos; start = at + 1)
    out.push_back(s.substr(start, at - start));
  out.push_back(s.substr(start));
  return out;
}

constexpr std::size_t kMaxText = std::size_t{64} << 20;

}  // namespace

PackagePieces pieces_of(const packager::Manifest& m) {
  PackagePieces p;
  p.package = m.package;
  std::unordered_map<std::string_view, std::string_view> sha_of;
  for (const auto& f : m.files) {
    sha_of.emplace(f.path, f.sha256);
    p.files.emplace_back(f.sha256, f.path);
  }
  for (const auto& k : m.kernels) {
    auto found = sha_of.find(k.bin);
    Json e = {{"binPath", m.package + "/" + k.bin},
              {"coreType", k.core_type},
              {"binDesc", {{"blockDim", k.block_dim}, {"kernelName", k.entry}, {"workspace", k.workspace}}},
              {"skbKey", k.key},
              {"kernelName", k.name},
              {"package", m.package},
              {"sha256", found == sha_of.end() ? std::string() : std::string(found->second)},
              {"variant", k.variant}};
    if (k.launch.on_device()) e["launch"] = launch_json(k.launch);
    p.kernels.push_back({m.soc, k.op_type, k.key, k.value_depend_index, k.simplified_keys, e.dump()});
  }
  return p;
}

std::string pieces_text(const PackagePieces& p) {
  std::string out(kVersionLine);
  out += '\n';
  for (const auto& [sha, path] : p.files) out += fmt::format("F\t{}\t{}\n", sha, path);
  for (const auto& k : p.kernels)
    out += fmt::format("K\t{}\t{}\t{}\t{}\t{}\t{}\n", k.soc, k.op, k.key, fmt::join(k.value_depend, ","),
                       fmt::join(k.simplified_keys, " "), k.entry);
  return out;
}

PackagePieces parse_pieces(std::string_view text, const std::string& package) {
  PackagePieces p;
  p.package = package;
  auto bad = [&](std::size_t line) {
    return common::Error(fmt::format("{}/{}: line {} is not as skb writes it", package, kIndexPiecesName, line));
  };
  auto lines = split(text, '\n');
  if (lines.size() < 2 || lines[0] != kVersionLine || !lines.back().empty()) throw bad(1);
  for (std::size_t n = 1; n + 1 < lines.size(); ++n) {
    auto f = split(lines[n], '\t');
    if (f[0] == "F" && f.size() == 3 && common::is_sha256_hex(f[1]) && packager::is_safe_relative_path(f[2])) {
      p.files.emplace_back(f[1], f[2]);
    } else if (f[0] == "K" && f.size() == 7 && common::is_sha256_hex(f[3]) && f[6].size() >= 2 && f[6].front() == '{' &&
               f[6].back() == '}') {
      IndexPiece k{std::string(f[1]), std::string(f[2]), std::string(f[3]), {}, {}, std::string(f[6])};
      if (!f[4].empty())
        for (auto v : split(f[4], ',')) {
          std::int64_t x = 0;
          auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
          if (ec != std::errc() || end != v.data() + v.size()) throw bad(n + 1);
          k.value_depend.push_back(x);
        }
      if (!f[5].empty())
        for (auto sk : split(f[5], ' ')) k.simplified_keys.emplace_back(sk);
      p.kernels.push_back(std::move(k));
    } else {
      throw bad(n + 1);
    }
  }
  return p;
}

std::string pieces_file(const PackagePieces& p) { return packager::gzip_bytes(pieces_text(p)); }

PackagePieces parse_pieces_file(const std::string& bytes, const std::string& package) {
  std::optional<std::string> text = packager::gunzip_bytes(bytes, kMaxText);
  if (!text)
    throw common::Error(fmt::format("{}/{}: not as skb writes it, damaged or too large", package, kIndexPiecesName));
  return parse_pieces(*text, package);
}

}  // namespace skb::installer
