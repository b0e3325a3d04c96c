#pragma once
#include <string>

namespace skb::packager {

/// The ninja on PATH that runs a whole job's build, and what it takes.
struct NinjaProgram {
  std::string path;
  bool takes_quiet = false;  // --quiet is ninja 1.11's; the graphs skb-generate writes need 1.10
};

/// Throws common::Error saying how to install ninja when PATH has none.
NinjaProgram find_ninja();

/// "1.10.2" or "1.12.1.git" → whether it is 1.11 or later; false for what does not parse.
bool ninja_takes_quiet(const std::string& version);

}  // namespace skb::packager
