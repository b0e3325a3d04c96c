#include "packager/format/gzip_bytes.h"

#include <libdeflate.h>

#include <fmt/format.h>
#include <algorithm>
#include <memory>

#include "common/error.h"

namespace skb::packager {
namespace {

using Compressor = std::unique_ptr<libdeflate_compressor, void (*)(libdeflate_compressor*)>;

Compressor compressor(int level) {
  Compressor c(libdeflate_alloc_compressor(level), &libdeflate_free_compressor);
  if (!c) throw common::Error(fmt::format("gzip: cannot make a compressor of level {}", level));
  return c;
}

std::uint32_t le32(std::string_view b, std::size_t at) {
  return static_cast<std::uint32_t>(static_cast<unsigned char>(b[at])) |
         static_cast<std::uint32_t>(static_cast<unsigned char>(b[at + 1])) << 8 |
         static_cast<std::uint32_t>(static_cast<unsigned char>(b[at + 2])) << 16 |
         static_cast<std::uint32_t>(static_cast<unsigned char>(b[at + 3])) << 24;
}

void put_le32(std::string& b, std::size_t at, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) b[at + i] = static_cast<char>((v >> (8 * i)) & 0xff);
}

// gzip's header (RFC 1952) with FLG.FEXTRA: no time, no name, OS unknown; then XLEN 8 and the
// subfield "SK" of 4 bytes (the block's length, filled in once known).
constexpr unsigned char kBlockHeader[kGzipBlockHeader] = {0x1f, 0x8b, 8,   4,   0, 0, 0, 0, 0, 0xff,
                                                          8,    0,    'S', 'K', 4, 0, 0, 0, 0, 0};
constexpr std::size_t kLengthAt = 16;
constexpr std::size_t kTrailer = 8;  // CRC-32 and ISIZE

}  // namespace

std::string gzip_bytes(std::string_view bytes) {
  Compressor c = compressor(kGzipLevel);
  std::string out(libdeflate_gzip_compress_bound(c.get(), bytes.size()), '\0');
  out.resize(libdeflate_gzip_compress(c.get(), bytes.data(), bytes.size(), out.data(), out.size()));
  if (out.empty()) throw common::Error("gzip: the output does not fit its bound");
  return out;
}

std::optional<std::string> gunzip_bytes(std::string_view gz, std::size_t max) {
  if (gz.size() < 18) return std::nullopt;  // gzip's smallest member
  std::uint32_t size = le32(gz, gz.size() - 4);
  if (size > max) return std::nullopt;
  std::unique_ptr<libdeflate_decompressor, void (*)(libdeflate_decompressor*)> d(libdeflate_alloc_decompressor(),
                                                                                 &libdeflate_free_decompressor);
  if (!d) return std::nullopt;
  std::string out(size, '\0');
  std::size_t in_used = 0, out_used = 0;
  if (libdeflate_gzip_decompress_ex(d.get(), gz.data(), gz.size(), out.data(), out.size(), &in_used, &out_used) !=
          LIBDEFLATE_SUCCESS ||
      in_used != gz.size() || out_used != size)
    return std::nullopt;
  return out;
}

std::string gzip_block(std::string_view bytes, int level) {
  if (bytes.size() > kMaxGzipBlockBytes)
    throw common::Error(fmt::format("gzip: a block of {} bytes, at most {}", bytes.size(), kMaxGzipBlockBytes));
  Compressor c = compressor(level);
  std::size_t bound = libdeflate_deflate_compress_bound(c.get(), bytes.size());
  std::string out(kGzipBlockHeader + bound + kTrailer, '\0');
  std::copy(std::begin(kBlockHeader), std::end(kBlockHeader), out.begin());
  std::size_t n =
      libdeflate_deflate_compress(c.get(), bytes.data(), bytes.size(), out.data() + kGzipBlockHeader, bound);
  if (n == 0) throw common::Error("gzip: the output does not fit its bound");
  out.resize(kGzipBlockHeader + n + kTrailer);
  put_le32(out, kLengthAt, static_cast<std::uint32_t>(out.size()));
  put_le32(out, out.size() - kTrailer, libdeflate_crc32(0, bytes.data(), bytes.size()));
  put_le32(out, out.size() - 4, static_cast<std::uint32_t>(bytes.size()));
  return out;
}

std::optional<std::uint32_t> gzip_block_length(std::string_view head) {
  if (head.size() < kGzipBlockHeader) return std::nullopt;
  // gzip's magic, deflate, FLG.FEXTRA alone; then (after the time, XFL and OS: any values) XLEN 8
  // and the subfield "SK" of 4 bytes.
  std::string_view want(reinterpret_cast<const char*>(kBlockHeader), kLengthAt);
  if (head.substr(0, 4) != want.substr(0, 4) || head.substr(10, kLengthAt - 10) != want.substr(10)) return std::nullopt;
  std::uint32_t length = le32(head, kLengthAt);
  if (length < kGzipBlockHeader + kTrailer + 2 || length > 2 * kMaxGzipBlockBytes)  // 2: the least deflate data
    return std::nullopt;
  return length;
}

}  // namespace skb::packager
