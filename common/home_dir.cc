#include "common/home_dir.h"

#include <pwd.h>
#include <unistd.h>

#include "common/fs.h"

namespace skb::common {

std::filesystem::path home_dir() {
  std::string h = env_or_empty("HOME");
  if (!h.empty()) return h;
  if (const passwd* pw = ::getpwuid(::getuid()); pw && pw->pw_dir) return pw->pw_dir;
  return {};
}

}  // namespace skb::common
