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
