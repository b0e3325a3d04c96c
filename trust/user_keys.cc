#include "trust/user_keys.h"

#include <fcntl.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "common/error.h"
#include "common/fs.h"
#include "common/home_dir.h"

namespace skb::trust {
namespace fs = std::filesystem;
using common::Error;

namespace {

using common::env_or_empty;

fs::path home() {
  fs::path h = common::home_dir();
  if (!h.empty()) return h;
  throw Error("no HOME: set XDG_CONFIG_HOME, or give --sign-key and --trusted-keys");
}

std::string default_key_name() {
  std::string user = env_or_empty("USER");
  if (user.empty())
    if (const passwd* pw = ::getpwuid(::getuid()); pw && pw->pw_name) user = pw->pw_name;
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) != 0) std::strcpy(host, "localhost");
  std::string name = (user.empty() ? "user" : user) + "@" + host;
  for (char& c : name)
    if (!valid_key_name_char(c)) c = '-';
  return name.substr(0, 64);
}

}  // namespace

fs::path config_dir() {
  std::string xdg = env_or_empty("XDG_CONFIG_HOME");
  return (xdg.empty() || xdg.front() != '/' ? fs::path(home()) / ".config" : fs::path(xdg)) / "skb";
}

fs::path own_key_file() { return config_dir() / "signing-key"; }
fs::path own_trust_file() { return config_dir() / "trusted-keys"; }

SigningKey own_signing_key() {
  fs::path file = own_key_file();
  std::error_code ec;
  const bool there = fs::exists(file, ec);
  if (ec) throw Error(fmt::format("{}: cannot read: {}", file.string(), ec.message()));  // not "make one"
  if (!there) {
    fs::path dir = file.parent_path();
    fs::create_directories(dir.parent_path(), ec);
    if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST)
      throw Error(fmt::format("{}: cannot create: {}", dir.string(), std::strerror(errno)));
    // Written under a name of its own, then linked into place: of builders that make it at
    // once, the first link wins and every one reads the winner.
    fs::path tmp = dir / fmt::format(".signing-key.{}", ::getpid());
    ::unlink(tmp.c_str());
    try {
      write_signing_key(tmp, generate_signing_key(default_key_name()));
    } catch (const Error& e) {  // said of the key the user knows of, not of its temporary name
      std::string_view why = e.what();
      if (why.rfind(tmp.string() + ": ", 0) == 0) why.remove_prefix(tmp.string().size() + 2);
      throw Error(fmt::format("{}: {}", file.string(), why));
    }
    int rc = ::link(tmp.c_str(), file.c_str());
    int err = errno;
    ::unlink(tmp.c_str());
    if (rc != 0 && err != EEXIST) throw Error(fmt::format("{}: cannot create: {}", file.string(), std::strerror(err)));
  }
  return read_signing_key(file);
}

TrustedKeys own_trusted_keys(bool with_own_key) {
  fs::path extra = own_trust_file();
  std::error_code ec;
  bool has_extra = fs::exists(extra, ec);
  if (ec) throw Error(fmt::format("{}: cannot read: {}", extra.string(), ec.message()));  // never "no keys"
  TrustedKeys set = has_extra ? read_trusted_keys(extra) : TrustedKeys{};
  if (!with_own_key) return set;
  set.add(own_signing_key().public_key());
  set.source = has_extra ? fmt::format("{} and {}", own_key_file().string(), extra.string()) : own_key_file().string();
  return set;
}

}  // namespace skb::trust
