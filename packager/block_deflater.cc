#include "packager/block_deflater.h"

#include <fmt/format.h>
#include <algorithm>
#include <cerrno>
#include <cstring>

#include "common/error.h"
#include "packager/format/gzip_bytes.h"

namespace skb::packager {

BlockDeflater::BlockDeflater(std::FILE* out, std::filesystem::path path, int level, unsigned threads)
    : out_(out), path_(std::move(path)), level_(level), threads_(std::max(threads, 1u)) {
  pending_.reserve(kGzipBlockBytes);
}

void BlockDeflater::write(std::string_view bytes) {
  while (!bytes.empty()) {
    std::size_t n = std::min(bytes.size(), kGzipBlockBytes - pending_.size());
    pending_.append(bytes.substr(0, n));
    bytes.remove_prefix(n);
    if (pending_.size() == kGzipBlockBytes) start_block();
  }
}

void BlockDeflater::end_block() {
  if (!pending_.empty()) start_block();
}

void BlockDeflater::finish() {
  end_block();
  write_done(0);
  if (std::fflush(out_) != 0)
    throw common::Error(fmt::format("{}: write failed: {}", path_.string(), std::strerror(errno)));
}

void BlockDeflater::start_block() {
  write_done(threads_ - 1);
  queue_.push_back(std::async(std::launch::async, gzip_block, std::move(pending_), level_));
  pending_.clear();
  pending_.reserve(kGzipBlockBytes);
}

void BlockDeflater::write_done(std::size_t n) {
  while (queue_.size() > n) {
    std::string block = queue_.front().get();
    queue_.pop_front();
    if (std::fwrite(block.data(), 1, block.size(), out_) != block.size())
      throw common::Error(fmt::format("{}: write failed: {}", path_.string(), std::strerror(errno)));
  }
}

}  // namespace skb::packager
