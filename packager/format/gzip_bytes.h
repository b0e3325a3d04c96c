#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace skb::packager {

/// gzip's default level, in libdeflate's scale (1 to 12): smaller than zlib's level 6, in less
/// time.
inline constexpr int kGzipLevel = 6;

/// `bytes` as one gzip member at kGzipLevel, with no name or time in the header: the same bytes
/// give the same file. Throws common::Error when out of memory.
std::string gzip_bytes(std::string_view bytes);

/// The bytes one gzip member holds, unpacked in memory; nothing when `gz` is not exactly one
/// member (trailing bytes included), is damaged, or unpacks to more than `max` bytes.
std::optional<std::string> gunzip_bytes(std::string_view gz, std::size_t max);

/// A gzip block: a gzip member that names its own length in its header's extra field (subfield
/// "SK", 4 bytes little-endian), as BGZF's blocks do. A payload is a run of blocks: the first
/// holds the tar stream's first entry, the manifest, alone (an installer reads it before the
/// rest); the others kGzipBlockBytes of the stream each (the last fewer): any gzip reader reads it as one stream
/// (`tar -xzf` does), and skb's finds every block without unpacking the ones before, so that it
/// unpacks them on all cores.
constexpr std::size_t kGzipBlockBytes = std::size_t{1} << 20;
/// A block header's bytes: gzip's 10, the extra field's length (2) and the subfield (8).
constexpr std::size_t kGzipBlockHeader = 20;
/// Blocks that unpack to more are refused: what a reader may allocate for one.
constexpr std::size_t kMaxGzipBlockBytes = std::size_t{4} << 20;

/// `bytes` (at most kMaxGzipBlockBytes) as one gzip block, compressed at `level` (1 to 12,
/// libdeflate's levels). Throws common::Error.
std::string gzip_block(std::string_view bytes, int level);

/// The length of the block that starts with `head`'s first kGzipBlockHeader bytes; nothing when
/// they are not a block's header, or name a length no block has (more than twice
/// kMaxGzipBlockBytes: deflate adds 5 bytes for every 64 KiB it cannot compress), so that a
/// reader never allocates more for a block's bytes.
std::optional<std::uint32_t> gzip_block_length(std::string_view head);

}  // namespace skb::packager
