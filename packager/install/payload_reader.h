#pragma once
#include <cstdint>
#include <filesystem>
#include <string>

#include "common/error.h"
#include "packager/format/manifest.h"
#include "packager/format/verify_error.h"
#include "packager/install/file_sink.h"

namespace skb::installer {

/// A package that fails verification: the package format's error (format/verify_error.h).
using packager::VerifyError;

/// A delta package whose base's files the library does not hold (by content, in any package).
class BaseMissingError : public common::Error {
 public:
  using common::Error::Error;
};

/// Where a payload is: a byte range of an open .run, and what it must hash to.
struct PayloadSource {
  int fd = -1;
  std::uint64_t offset = 0;
  std::uint64_t size = 0;
  std::string sha256;
  std::string package;           // the package name the .run's (verified) header gives, when known
  const char* what = "payload";  // which part of the .run the bytes are, for errors
};

/// Fills buf[0, n) from fd at offset, across short reads and EINTR; false when the file ends first.
bool pread_full(int fd, char* buf, std::size_t n, std::uint64_t offset);

/// Checks a .run before its header's values are used: the file is `total` bytes long and its
/// first header_len bytes hash to the 64 hex digits on the line right after them; throws
/// VerifyError.
void verify_run_file(int fd, std::uint64_t header_len, std::uint64_t total);

/// Checks the SHA-256 of the payload's bytes; throws VerifyError.
void verify_payload_hash(const PayloadSource& src);

/// A payload's manifest: parsed, and the bytes it was parsed from.
struct PayloadManifest {
  packager::Manifest manifest;
  std::string text;
};

/// Reads the payload's manifest (its first entry) only.
PayloadManifest read_manifest(const PayloadSource& src);

/// verify_payload_hash and read_manifest at once, on two threads: the manifest is parsed while
/// the payload is hashed. A hash mismatch is what it throws when both fail.
PayloadManifest read_checked_manifest(const PayloadSource& src);

/// Reads every entry and checks it: a regular file (no links, devices, folders), no setuid,
/// setgid or sticky bit, at the next path the manifest lists, with its size and sha256; every
/// listed file present (but those a delta package's base holds: `carried` false, not in the
/// payload, and not written). With a non-empty dest, the files are written below dest, which must
/// not exist yet, never through a symlink. Throws VerifyError; leaves dest partial then
/// (callers extract into a staging folder). Returns the manifest.
packager::Manifest read_payload(const PayloadSource& src, const std::filesystem::path& dest);

/// read_payload for a payload whose manifest was already read: the first entry must still be
/// those very bytes (so it is not parsed again), and the files are checked against it. Files
/// whose bytes `installed` holds are linked to them (FileSink).
void read_payload(const PayloadSource& src, const std::filesystem::path& dest, const PayloadManifest& known,
                  FutureInstalledFiles installed = {});

}  // namespace skb::installer
