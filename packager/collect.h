#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include "packager/manifest.h"

namespace skb::packager {

/// A file to pack: where it is now and where it goes in the payload.
struct SourceFile {
  std::filesystem::path source;
  std::string path;
};

/// Everything a package of one build holds.
struct Collected {
  Manifest manifest;  // without package name and date
  std::vector<SourceFile> files;  // sorted by path, as manifest.files
};

/// Reads OUT/plan.json and every planned kernel's record, binary and signature, and verifies
/// each binary against its record's size and sha256. Throws Error listing every kernel that is
/// missing or does not match; nothing is packed then.
Collected collect_kernels(const std::filesystem::path& build_dir);

}  // namespace skb::packager
