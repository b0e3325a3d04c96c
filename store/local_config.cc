#include "store/local_config.h"

#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>

#include "common/error.h"
#include "common/fs.h"
#include "common/home_dir.h"
#include "common/text.h"

namespace skb::store {
namespace fs = std::filesystem;
using common::Error;

namespace {

using common::env_or_empty;

// A folder from an XDG variable: used only when absolute (the XDG rule).
fs::path xdg(const char* var, const char* fallback) {
  std::string v = env_or_empty(var);
  if (!v.empty() && v.front() == '/') return fs::path(v) / "skb";
  fs::path h = common::home_dir();
  return h.empty() ? fs::path() : h / fallback / "skb";
}

bool is_off(const std::string& v) { return v == "off" || v == "none" || v == "false" || v == "0"; }

// key = value lines of a skb.conf, '#' comments; unknown keys are errors (a typo must not pass).
struct Conf {
  fs::path file;
  std::optional<std::string> cache_dir, max_size;
  int max_size_line = 0;
};

Conf read_conf(const fs::path& file, bool dir_allowed) {
  Conf c;
  c.file = file;
  auto text = common::read_file_if_exists(file, 1 << 16);
  if (!text) return c;
  int line_no = 0;
  for (std::string_view view : common::lines(*text)) {
    std::string line(view);
    ++line_no;
    if (auto hash = line.find('#'); hash != std::string::npos) line.erase(hash);
    auto trim = [](std::string s) {
      s.erase(0, s.find_first_not_of(" \t\r"));
      s.erase(s.find_last_not_of(" \t\r") + 1);
      return s;
    };
    line = trim(line);
    if (line.empty()) continue;
    auto eq = line.find('=');
    if (eq == std::string::npos)
      throw Error(fmt::format("{}:{}: expected key = value (cache_dir, max_size)", file.string(), line_no));
    std::string key = trim(line.substr(0, eq)), value = trim(line.substr(eq + 1));
    if (key == "cache_dir" && dir_allowed) {
      c.cache_dir = value;
    } else if (key == "max_size") {
      if (!parse_size(value))
        throw Error(
            fmt::format("{}:{}: max_size = {}: expected a size such as 5G or 500M", file.string(), line_no, value));
      c.max_size = value;
    } else {
      throw Error(fmt::format("{}:{}: unknown key \"{}\" (expected {})", file.string(), line_no, key,
                              dir_allowed ? "cache_dir or max_size" : "max_size; cache_dir belongs in ~/.config/skb/"));
    }
  }
  return c;
}

}  // namespace

std::optional<std::uint64_t> parse_size(const std::string& text) {
  unsigned long long n = 0;  // digits only: no sign, no blank, no overflow
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc()) return std::nullopt;
  std::string unit(end, text.data() + text.size());
  if (!unit.empty() && (unit.back() == 'B' || unit.back() == 'b')) unit.pop_back();
  if (!unit.empty() && unit.back() == 'i') unit.pop_back();
  int shift = 0;
  if (unit.empty())
    shift = 0;
  else if (unit == "K" || unit == "k")
    shift = 10;
  else if (unit == "M" || unit == "m")
    shift = 20;
  else if (unit == "G" || unit == "g")
    shift = 30;
  else if (unit == "T" || unit == "t")
    shift = 40;
  else
    return std::nullopt;
  if (shift && n > (~0ull >> shift)) return std::nullopt;
  return static_cast<std::uint64_t>(n) << shift;
}

LocalConfig resolve_local(const LocalFlags& flags) {
  LocalConfig c;
  if (flags.off) {
    c.dir_from = "--no-cache";
    return c;
  }
  fs::path user_conf = xdg("XDG_CONFIG_HOME", ".config") / kConfFile;
  Conf user = user_conf.has_parent_path() ? read_conf(user_conf, true) : Conf{};
  std::string dir;
  if (flags.dir) {
    dir = *flags.dir, c.dir_from = "--cache-dir";
  } else if (std::string e = env_or_empty("SKB_CACHE_DIR"); !e.empty()) {
    dir = e, c.dir_from = "SKB_CACHE_DIR";
  } else if (user.cache_dir) {
    dir = *user.cache_dir, c.dir_from = user_conf.string();
  } else {
    dir = xdg("XDG_CACHE_HOME", ".cache").string(), c.dir_from = "default";
  }
  if (is_off(dir)) return c;
  if (dir.empty()) throw Error("no HOME: set SKB_CACHE_DIR (or SKB_CACHE_DIR=off)");
  c.dir = fs::absolute(dir).lexically_normal();
  std::error_code ec;
  Conf store_conf = fs::is_directory(c.dir, ec) ? read_conf(c.dir / kConfFile, false) : Conf{};
  if (flags.max_size) {
    c.max_size = *flags.max_size, c.max_size_from = "--cache-dir-max-size";
  } else if (std::string e = env_or_empty("SKB_CACHE_MAX_SIZE"); !e.empty()) {
    auto n = parse_size(e);
    if (!n) throw Error(fmt::format("SKB_CACHE_MAX_SIZE={}: expected a size such as 5G or 500M", e));
    c.max_size = *n, c.max_size_from = "SKB_CACHE_MAX_SIZE";
  } else if (store_conf.max_size) {
    c.max_size = *parse_size(*store_conf.max_size), c.max_size_from = store_conf.file.string();
  } else if (user.max_size) {
    c.max_size = *parse_size(*user.max_size), c.max_size_from = user_conf.string();
  } else {
    c.max_size = kDefaultLocalMaxSize, c.max_size_from = "default";
  }
  return c;
}

std::string claim_private_dir(const fs::path& dir) {
  std::error_code ec;
  if (dir.has_parent_path()) fs::create_directories(dir.parent_path(), ec);
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST)
    return fmt::format("cannot create it: {}", std::strerror(errno));
  return private_dir_problem(dir);
}

std::string private_dir_problem(const fs::path& dir) {
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0) return fmt::format("cannot read it: {}", std::strerror(errno));
  if (!S_ISDIR(st.st_mode)) return "it is not a folder";
  if (st.st_uid != ::geteuid())
    return fmt::format("it is owned by uid {}, not by this user (uid {})", st.st_uid, ::geteuid());
  if (st.st_mode & 022)
    return fmt::format("permissions {:04o} let group or others write it (chmod 700 it)", st.st_mode & 07777);
  if (::access(dir.c_str(), W_OK | X_OK) != 0) return fmt::format("cannot write it: {}", std::strerror(errno));
  return "";
}

}  // namespace skb::store
