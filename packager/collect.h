#pragma once
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "packager/manifest.h"

namespace skb::packager {

/// A file to pack: where it is now and where it goes in the payload.
struct SourceFile {
  std::filesystem::path source;
  std::string path;
  std::optional<std::string> data;  // the bytes, when already read (small files)
};

/// A kernel binary and what its build record says it hashes to.
struct BinaryCheck {
  std::string kernel;
  std::filesystem::path binary;
  std::string sha256;
  std::uintmax_t size = 0;
};

/// Everything a package of one build holds.
struct Collected {
  Manifest manifest;                  // without package name and date
  std::vector<SourceFile> files;      // sorted by path, as manifest.files
  std::vector<BinaryCheck> binaries;  // what verify_binaries must confirm
};

/// Reads OUT/plan.json and every planned kernel's record, binary size and signature. The
/// manifest lists each binary with the sha256 of its record: verify_binaries must confirm it
/// before the package is published. Throws Error listing every kernel that is not built.
Collected collect_kernels(const std::filesystem::path& build_dir);

/// Hashes every binary; throws Error listing each one that does not match its record.
void verify_binaries(const std::vector<BinaryCheck>& binaries, std::size_t planned);

}  // namespace skb::packager
