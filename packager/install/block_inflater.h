#pragma once
#include <cstdint>
#include <deque>
#include <future>
#include <string>
#include <string_view>

namespace skb::installer {

/// The bytes that a run of gzip blocks (format/gzip_bytes.h) holds, unpacked in order: while one block
/// is handed out, the next `ahead` ones are unpacked on threads of their own (none: each is
/// unpacked when asked for). Reads bytes [offset, offset + size) of fd, with pread.
class BlockInflater {
 public:
  BlockInflater(int fd, std::uint64_t offset, std::uint64_t size, unsigned ahead);
  BlockInflater(const BlockInflater&) = delete;
  BlockInflater& operator=(const BlockInflater&) = delete;

  /// Whether bytes [offset, offset + size) of fd start with a gzip block.
  static bool starts_with_block(int fd, std::uint64_t offset, std::uint64_t size);

  /// The next block's bytes, valid until the next call; empty at the end. Throws VerifyError
  /// naming the byte of the range where the damage is.
  std::string_view next();

 private:
  std::future<std::string> start();  // unpacks the block at pos_, which moves past it

  int fd_;
  std::uint64_t offset_, size_;
  std::uint64_t pos_ = 0;  // where the next block to start begins, from offset_
  unsigned ahead_;
  std::deque<std::future<std::string>> queue_;  // blocks started, in order
  std::string current_;
};

}  // namespace skb::installer
