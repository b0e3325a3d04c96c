#pragma once
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "packager/format/manifest.h"

namespace skb::packager {

/// A file to pack: where it is now and where it goes in the payload.
struct SourceFile {
  std::filesystem::path source;
  std::string path;
  std::optional<std::string> data;  // the bytes, when already read (small files)
  std::string kernel;               // for a kernel binary: its kernel's name
  std::string sha256;               // for a kernel binary: what its build record says it hashes to
};

/// Everything a package of one build holds.
struct Collected {
  Manifest manifest;              // without package name and date
  std::vector<SourceFile> files;  // sorted by path, as manifest.files
};

/// Reads OUT/plan.json and every planned kernel's record, binary size and signature. The
/// manifest lists each binary with the sha256 of its record: the bytes packed must be confirmed
/// to hash to it (ReadAhead) before the package is published. Throws Error listing every kernel
/// that is not built, or whose files do not match its record: the record of each of those is
/// removed, so that the next ninja builds it again.
Collected collect_kernels(const std::filesystem::path& build_dir);

/// Throws Error listing the binaries whose packed bytes did not match their records, if any, and
/// removes those records (as collect_kernels does).
void refuse_mismatches(const std::filesystem::path& build_dir, const std::vector<std::string>& mismatches,
                       std::size_t planned);

}  // namespace skb::packager
