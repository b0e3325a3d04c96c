#include "packager/ninja_program.h"

#include <charconv>

#include "common/error.h"
#include "common/process.h"

namespace skb::packager {

bool ninja_takes_quiet(const std::string& version) {
  int major = 0, minor = 0;
  const char* end = version.data() + version.size();
  auto [dot, ec] = std::from_chars(version.data(), end, major);
  if (ec != std::errc() || dot == end || *dot != '.') return false;
  if (std::from_chars(dot + 1, end, minor).ec != std::errc()) return false;
  return major > 1 || (major == 1 && minor >= 11);
}

NinjaProgram find_ninja() {
  NinjaProgram n;
  n.path = common::find_program("ninja");
  if (n.path.empty()) throw common::Error("ninja is not on PATH (Debian: apt-get install ninja-build)");
  common::ProcessResult v = common::run_process({n.path, "--version"}, common::Output::kCapture);
  n.takes_quiet = v.exit_code == 0 && ninja_takes_quiet(v.output);
  return n;
}

}  // namespace skb::packager
