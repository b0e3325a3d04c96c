#pragma once
#include <cstdio>
#include <deque>
#include <filesystem>
#include <future>
#include <string>
#include <string_view>

namespace skb::packager {

/// Writes a stream to a file as gzip blocks (format/gzip_bytes.h) of kGzipBlockBytes each:
/// up to `threads` blocks are compressed at once, on threads of their own, and written in the
/// stream's order. Throws common::Error naming the file.
class BlockDeflater {
 public:
  BlockDeflater(std::FILE* out, std::filesystem::path path, int level, unsigned threads);
  BlockDeflater(const BlockDeflater&) = delete;
  BlockDeflater& operator=(const BlockDeflater&) = delete;

  void write(std::string_view bytes);
  /// Ends the block being filled here (when it has bytes): what follows starts a new one, so that
  /// a reader that wants only what came before unpacks only that.
  void end_block();
  /// Compresses and writes what is left; the file holds the whole stream after it.
  void finish();

 private:
  void start_block();              // starts compressing pending_
  void write_done(std::size_t n);  // writes the first blocks until n are still being compressed

  std::FILE* out_;
  std::filesystem::path path_;
  int level_;
  unsigned threads_;
  std::string pending_;                         // the next block's bytes so far
  std::deque<std::future<std::string>> queue_;  // blocks being compressed, in order
};

}  // namespace skb::packager
