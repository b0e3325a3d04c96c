#pragma once
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "packager/collect.h"

namespace skb::packager {

enum class Compression { kGzip, kZstd, kXz };

/// Parses gzip, zstd or xz; throws Error otherwise.
Compression parse_compression(const std::string& name);

/// Writes the payload, a compressed tar: manifest.json first, then the files in path order,
/// each owned by 0:0 with mode 0644 and the given mtime, no gzip timestamp, so the same inputs
/// give the same bytes. Returns the kernel binaries whose packed bytes do not hash to their
/// records' sha256 (the payload must then not be published). Throws Error.
std::vector<std::string> write_payload(const std::filesystem::path& out, const std::string& manifest,
                                       const std::vector<SourceFile>& files, Compression compression,
                                       std::int64_t mtime);

}  // namespace skb::packager
