#pragma once
#include <cstdint>
#include <string>

#include "packager/format/run_header.h"

namespace skb::packager {

/// What the sh stub at the head of a .run must know: where the installer and the payload are
/// (exact byte offsets) and what they hash to.
struct StubInput {
  std::string package;
  std::string soc;
  std::uint64_t installer_size = 0;  // the installer as the .run holds it: gzip-compressed
  std::string installer_sha256;      // of those bytes
  std::uint64_t payload_size = 0;
  std::string payload_sha256;
  std::uint64_t kernels = 0;
  std::uint64_t signature_size = 0;           // bytes of the signature line after the header's hash line; 0: unsigned
  std::uint64_t installer_unpacked_size = 0;  // the installer's bytes once gzip has unpacked it
  std::string installer_unpacked_sha256;      // of those bytes: the library's copy runs when it matches
  std::string base;                           // a delta's base package; empty for a whole package
};

/// The stub: a POSIX sh script that runs the operator library's copy of the installer when it is
/// this package's (by its unpacked SHA-256), else copies the installer to the first folder with
/// room that lets it run (TMPDIR, /tmp, /var/tmp, /dev/shm, HOME), verifies it, unpacks it with
/// gzip and runs it on the payload; the installer then checks the stub
/// (installer::verify_run_file) and the payload. A package without an installer (installer_size
/// 0: a delta that leaves it to its base's) stops with exit status 5 when no library has it. The
/// stub ends with a line holding the SHA-256 of the bytes before it; then the signature line
/// (signature_size bytes, none when unsigned); the installer follows right after. Its header's
/// fields, hash line and signed message are the package format's (format/run_header.h).
std::string make_stub(const StubInput& in);

}  // namespace skb::packager
