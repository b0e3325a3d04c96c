#include "generator/ninja_syntax.h"

#include <fmt/format.h>

#include <algorithm>

#include "common/error.h"

namespace skb::generator {
namespace {

// A line break ends a Ninja statement wherever it stands (`$` before one continues the line and
// drops it): a word holding one cannot be written, only refused.
void refuse_line_breaks(std::string_view word) {
  if (word.find_first_of("\n\r") != std::string_view::npos)
    throw common::Error(
        fmt::format("{:?}: a line break in a path or argument cannot be written into build.ninja; "
                    "rename it",
                    word));
}

}  // namespace

std::string ninja_path(std::string_view path) {
  refuse_line_breaks(path);
  // Ninja ends a path at '|' (implicit and order-only inputs follow) and has no escape for it.
  if (path.find('|') != std::string_view::npos)
    throw common::Error(
        fmt::format("{:?}: a '|' in a path cannot be written into build.ninja (ninja reads it as a "
                    "separator); rename it",
                    path));
  std::string out;
  for (char c : path) {
    if (c == '$' || c == ' ' || c == ':') out += '$';
    out += c;
  }
  return out;
}

std::string shell_quote(std::string_view word) {
  bool safe = !word.empty() && std::all_of(word.begin(), word.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           std::string_view("_-+=/.,:@%").find(c) != std::string_view::npos;
  });
  if (safe) return std::string(word);
  std::string out = "'";
  for (char c : word) {
    if (c == '\'')
      out += "'\\''";
    else
      out += c;
  }
  return out + "'";
}

std::string ninja_command(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) {
    if (w.empty()) continue;
    refuse_line_breaks(w);
    if (!out.empty()) out += ' ';
    // $name, optionally followed by plain text and more variables ($out.rsp, $k/$n.info): Ninja
    // variables, kept as they are
    auto plain = [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-' || c == '/';
    };
    bool is_var = w.size() > 1 && w[0] == '$';
    for (std::size_t i = 0; is_var && i < w.size(); ++i)
      if (w[i] == '$')
        is_var = i + 1 < w.size() && (std::isalnum(static_cast<unsigned char>(w[i + 1])) || w[i + 1] == '_');
      else
        is_var = plain(w[i]);
    if (is_var) {
      out += w;
      continue;
    }
    for (char c : shell_quote(w)) {
      if (c == '$') out += '$';
      out += c;
    }
  }
  return out;
}

}  // namespace skb::generator
