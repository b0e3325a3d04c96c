#include "generator/ninja_syntax.h"

#include <algorithm>

namespace skb::generator {

std::string ninja_path(std::string_view path) {
  std::string out;
  for (char c : path) {
    if (c == '$' || c == ' ' || c == ':') out += '$';
    if (c == '\n') {
      out += "$\n";  // never produced: paths are validated; kept total for safety
      continue;
    }
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
    if (!out.empty()) out += ' ';
    // $name, optionally followed by a plain suffix such as .rsp: a Ninja variable, kept as is
    std::size_t end = 1;
    while (end < w.size() && (std::isalnum(static_cast<unsigned char>(w[end])) || w[end] == '_')) ++end;
    bool is_var =
        w[0] == '$' && end > 1 && std::all_of(w.begin() + static_cast<std::ptrdiff_t>(end), w.end(), [](char c) {
          return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-';
        });
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
