#include "packager/install/block_inflater.h"

#include <fmt/format.h>

#include "packager/format/gzip_bytes.h"
#include "packager/install/payload_reader.h"

namespace skb::installer {

BlockInflater::BlockInflater(int fd, std::uint64_t offset, std::uint64_t size, unsigned ahead)
    : fd_(fd), offset_(offset), size_(size), ahead_(ahead) {}

bool BlockInflater::starts_with_block(int fd, std::uint64_t offset, std::uint64_t size) {
  char head[packager::kGzipBlockHeader];
  return size >= sizeof head && pread_full(fd, head, sizeof head, offset) &&
         packager::gzip_block_length(std::string_view(head, sizeof head)).has_value();
}

std::future<std::string> BlockInflater::start() {
  const std::uint64_t at = pos_;
  char head[packager::kGzipBlockHeader];
  std::optional<std::uint32_t> length;
  if (size_ - at >= sizeof head && pread_full(fd_, head, sizeof head, offset_ + at))
    length = packager::gzip_block_length(std::string_view(head, sizeof head));
  if (!length) throw VerifyError(fmt::format("damaged payload: no gzip block starts at its byte {}", at));
  if (*length > size_ - at)
    throw VerifyError(
        fmt::format("damaged payload: the gzip block at its byte {} is {} bytes, past its end", at, *length));
  pos_ += *length;
  auto unpack = [fd = fd_, from = offset_ + at, at, length = *length] {
    std::string block(length, '\0');
    if (!pread_full(fd, block.data(), block.size(), from))
      throw VerifyError(fmt::format("the payload is truncated at its byte {}", at));
    std::optional<std::string> bytes = packager::gunzip_bytes(block, packager::kMaxGzipBlockBytes);
    if (!bytes)
      throw VerifyError(
          fmt::format("damaged payload: the gzip block at its byte {} does not unpack to at most {} bytes", at,
                      packager::kMaxGzipBlockBytes));
    return std::move(*bytes);
  };
  return std::async(ahead_ > 0 ? std::launch::async : std::launch::deferred, std::move(unpack));
}

std::string_view BlockInflater::next() {
  do {
    while (queue_.size() <= ahead_ && pos_ < size_) queue_.push_back(start());
    if (queue_.empty()) return {};
    std::future<std::string> first = std::move(queue_.front());
    queue_.pop_front();
    current_ = first.get();
  } while (current_.empty());  // an empty block would read as the end
  return current_;
}

}  // namespace skb::installer
