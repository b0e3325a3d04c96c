#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "common/diag.h"

namespace skb::installer {

/// What a .run was asked to do: the stub's arguments (where the package's parts are) and the user's.
struct Args {
  // From the stub, before `--`.
  std::string run_file, package_name, payload_sha256, work_file, node_lock;
  std::uint64_t header_len = 0, payload_offset = 0, payload_size = 0, signature_size = 0;
  // The installer's bytes as the .run carries them (size 0: a delta that carries none); the stub
  // gives them with the payload's, so that the library's copy, run in the carried one's place,
  // checks them on the file it has open.
  std::uint64_t installer_offset = 0, installer_size = 0;
  std::string installer_sha256;
  std::string package, library;  // uninstall.sh: the package to remove and the ai_core folder it is in
  // From the user, after `--`.
  std::string trusted_keys, extract, install_path;
  bool info = false, list = false, check = false, install = false, uninstall = false, uninstall_all = false;
  bool upgrade = false, force = false, quiet = false;
  double lock_timeout = 300;
};

/// The name the installer goes by in messages: `<package>.run`, or skb-install run bare.
std::string program_name(const Args& a);

/// Reads the stub's options: those before a `--` argument (all arguments are the user's when
/// there is none). Returns the index of the user's first argument, or nothing when an argument is
/// not one of the stub's (the installer was not started by a package's stub).
std::optional<int> parse_stub_options(int argc, char** argv, Args& a);

/// Reads the user's options, argv[first..argc). Returns nothing when the installer should go on,
/// else the exit status: 0 after --help or --version, kExitUsage after an error said through diag.
/// Options are POSIX getopt_long's: `--name VALUE` or `--name=VALUE`, written in full.
std::optional<int> parse_user_options(int argc, char** argv, int first, Args& a, const common::Diag& diag);

}  // namespace skb::installer
