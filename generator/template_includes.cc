#include "generator/template_includes.h"

#include <algorithm>
#include <regex>
#include <set>
#include <string_view>

#include "common/error.h"
#include "common/fs.h"
#include "common/text.h"

namespace skb::generator {
namespace fs = std::filesystem;

namespace {

bool is_under(const fs::path& file, const fs::path& root) {
  auto [r, f] = std::mismatch(root.begin(), root.end(), file.begin(), file.end());
  return r == root.end();
}

// The names of a source's `#include "name"` lines (angle-bracket includes are the compiler's).
std::vector<std::string> quoted_includes(const std::string& text) {
  static const std::regex kInclude(R"re([ \t]*#[ \t]*include[ \t]*"([^"]+)".*)re");
  std::vector<std::string> names;
  std::smatch m;
  for (std::string_view view : common::lines(text)) {
    std::string line(view);
    if (line.find("include") != std::string::npos && std::regex_match(line, m, kInclude)) names.push_back(m[1].str());
  }
  return names;
}

}  // namespace

std::vector<Include> tree_includes(const std::vector<fs::path>& sources, const std::vector<fs::path>& include_dirs,
                                   const fs::path& root) {
  std::vector<Include> found;
  std::set<fs::path> seen(sources.begin(), sources.end());
  std::vector<fs::path> todo(sources.begin(), sources.end());
  while (!todo.empty()) {
    fs::path file = todo.back();
    todo.pop_back();
    std::string text;
    try {
      text = common::read_file(file, 1 << 24);
    } catch (const common::Error&) {
      continue;
    }
    for (const std::string& name : quoted_includes(text)) {
      std::vector<fs::path> where{file.parent_path()};
      where.insert(where.end(), include_dirs.begin(), include_dirs.end());
      for (const fs::path& dir : where) {
        fs::path candidate = (dir / name).lexically_normal();
        std::error_code ec;
        if (!fs::is_regular_file(candidate, ec)) continue;
        if (is_under(candidate, root)) {
          found.push_back({file, candidate});
          if (seen.insert(candidate).second) todo.push_back(candidate);
        }
        break;  // the compiler takes the first it finds, under root or not
      }
    }
  }
  return found;
}

std::vector<fs::path> include_dirs_of(const std::vector<std::string>& words) {
  std::vector<fs::path> dirs;
  for (std::size_t i = 0; i < words.size(); ++i) {
    for (std::string_view flag : {"-iquote", "-I"}) {
      std::string_view w = words[i];
      if (w.substr(0, flag.size()) != flag) continue;
      w.remove_prefix(flag.size());
      if (w.empty() && i + 1 < words.size()) w = words[++i];
      if (!w.empty()) dirs.push_back(fs::path(w).lexically_normal());
      break;
    }
  }
  return dirs;
}

}  // namespace skb::generator
