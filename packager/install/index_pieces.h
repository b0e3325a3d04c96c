#pragma once
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "packager/format/manifest.h"

namespace skb::installer {

/// One kernel of an installed package as the merged index takes it: where it goes (soc, op),
/// what it is found by (skb key, opbase's keys), the op's value-depend positions it adds, and
/// its index entry, rendered once as JSON text (without simplifiedKey).
struct IndexPiece {
  std::string soc, op, key;
  std::vector<std::int64_t> value_depend;
  std::vector<std::string> simplified_keys;
  std::string entry;
};

/// What the library needs of an installed package to merge the indexes and to link a new
/// package's files to it: its kernels' pieces and its files (sha256, path in the package).
/// Rendered from the manifest when the package is installed and kept beside it, gzip-compressed
/// (<package>/index_pieces.gz: about a quarter of the text), so that an install reads each installed package's few
/// lines of text instead of parsing its manifest: an install's cost hardly grows with the library.
struct PackagePieces {
  std::string package;
  std::vector<IndexPiece> kernels;
  std::vector<std::pair<std::string, std::string>> files;  // sha256, path
};

inline constexpr const char* kIndexPiecesName = "index_pieces.gz";

/// The pieces of a manifest's package.
PackagePieces pieces_of(const packager::Manifest& m);

/// The file's text: a version line, then a line per file ("F", sha256, path) and per kernel
/// ("K", soc, op, skb key, value-depend positions, opbase keys, entry), tab-separated.
std::string pieces_text(const PackagePieces& p);

/// Parses pieces_text. Throws common::Error on any line that is not as pieces_text writes it
/// (the caller then renders the pieces from the manifest again).
PackagePieces parse_pieces(std::string_view text, const std::string& package);

/// The file's bytes: pieces_text, gzip-compressed (libarchive's raw format).
std::string pieces_file(const PackagePieces& p);

/// Reads pieces_file's bytes; throws common::Error when they are not (the caller falls back).
PackagePieces parse_pieces_file(const std::string& bytes, const std::string& package);

}  // namespace skb::installer
