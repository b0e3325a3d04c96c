#pragma once
#include <cstdint>
#include <string>

#include "packager/format/run_header.h"

namespace skb::packager {

/// What the sh stub at the head of a .run must know: the header's fields (where the installer and
/// the payload are and what they hash to; make_stub computes the header's length and the
/// offsets) and what it says of the package.
struct StubInput : RunHeaderFields {
  std::string soc;
  std::uint64_t kernels = 0;
};

/// The stub: a POSIX sh script that runs the operator library's copy of the installer when it is
/// this package's (by its unpacked BLAKE2b-512 where coreutils has b2sum, else SHA-256), else copies the installer to
/// the first folder with room that lets it run (TMPDIR, /tmp, /var/tmp, /dev/shm, HOME), verifies it, unpacks it with
/// gzip and runs it on the payload; the installer then checks the stub
/// (installer::verify_run_file) and the payload. A package without an installer (installer_size
/// 0: a delta that leaves it to its base's) stops with exit status 5 when no library has it. The
/// stub ends with a line holding the SHA-256 of the bytes before it; then the signature line
/// (signature_size bytes, none when unsigned); the installer follows right after. Its header's
/// fields, hash line and signed message are the package format's (format/run_header.h).
std::string make_stub(const StubInput& in);

}  // namespace skb::packager
