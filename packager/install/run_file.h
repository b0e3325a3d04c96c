#pragma once
#include <cstdint>
#include <filesystem>
#include <string>

#include "packager/install/payload_reader.h"

namespace skb::installer {

/// A .run opened for reading by another program than its own installer (skb verify, skb-package
/// --base): its header's values read, and the file checked to be the length the header says and
/// to hash, header first, to what the header's hash line says (verify_run_file). Throws
/// VerifyError for a file that is not a whole skb package, common::Error when it cannot be read.
class RunFile {
 public:
  explicit RunFile(const std::filesystem::path& path);
  ~RunFile();
  RunFile(const RunFile&) = delete;
  RunFile& operator=(const RunFile&) = delete;

  int fd() const { return fd_; }
  std::uint64_t header_len = 0, signature_size = 0;
  std::string package;
  PayloadSource installer, payload;
  /// The SHA-256 of the installer once unpacked (that of the library's copy the package runs when
  /// it carries none: installer.size 0); empty for packages made before the header had it.
  std::string installer_unpacked_sha256;
  /// Its BLAKE2b-512, what the stub checks the library's copy by where coreutils has b2sum;
  /// empty for packages made before the header had it.
  std::string installer_unpacked_b2;

 private:
  int fd_ = -1;
};

}  // namespace skb::installer
