#pragma once
#include <filesystem>

namespace skb::common {

/// The user's home folder: $HOME, else the password database's; empty when neither has one.
/// In skb_common only, not in the objects of the statically linked installer: a static program
/// that looks up the password database needs the target's glibc NSS modules at run time.
std::filesystem::path home_dir();

}  // namespace skb::common
