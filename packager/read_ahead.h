#pragma once
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "packager/collect.h"

namespace skb::packager {

/// Reads the files to pack, in order, on a thread of its own and ahead of the compressor, and
/// hashes each kernel binary on the very bytes that will be packed: a binary rewritten while it
/// is packaged can never go into a payload under its record's sha256. At most `max_bytes` wait
/// in memory at a time.
class ReadAhead {
 public:
  explicit ReadAhead(const std::vector<SourceFile>& files, std::size_t max_bytes = std::size_t{64} << 20);
  ~ReadAhead();  // stops reading and joins the thread
  ReadAhead(const ReadAhead&) = delete;
  ReadAhead& operator=(const ReadAhead&) = delete;

  /// The bytes of the next file; throws what reading or hashing it raised.
  std::string next();
  /// Once every file was taken: "<kernel>: binary does not match its record (...)" for each
  /// binary whose bytes do not hash to its record's sha256.
  std::vector<std::string> mismatches() const;

 private:
  struct Item {
    std::string data;
    std::exception_ptr error;
  };
  void run();

  const std::vector<SourceFile>& files_;
  const std::size_t max_bytes_;
  mutable std::mutex mu_;
  std::condition_variable changed_;
  std::deque<Item> ready_;
  std::size_t ready_bytes_ = 0;
  bool stop_ = false;
  std::vector<std::string> mismatches_;
  std::thread thread_;
};

}  // namespace skb::packager
