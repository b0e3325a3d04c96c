#include "packager/read_ahead.h"

#include <fmt/format.h>

#include "common/fs.h"
#include "common/sha256.h"

namespace skb::packager {

ReadAhead::ReadAhead(const std::vector<SourceFile>& files, std::size_t max_bytes)
    : files_(files), max_bytes_(max_bytes), thread_([this] { run(); }) {}

ReadAhead::~ReadAhead() {
  {
    std::lock_guard<std::mutex> l(mu_);
    stop_ = true;
  }
  changed_.notify_all();
  thread_.join();
}

void ReadAhead::run() {
  for (const auto& f : files_) {
    Item item;
    std::string problem;
    // Whatever fails here reaches the packaging thread at this file's turn, never terminate().
    try {
      item.data = f.data ? *f.data : common::read_file(f.source);
      if (!f.sha256.empty()) {
        std::string have = common::sha256_hex(item.data);
        if (have != f.sha256)
          problem =
              fmt::format("{}: binary does not match its record (sha256 {}, recorded {})", f.kernel, have, f.sha256);
      }
    } catch (...) {
      item.error = std::current_exception();
    }
    std::unique_lock<std::mutex> l(mu_);
    // One file bigger than the limit still passes, alone.
    changed_.wait(l, [&] { return stop_ || ready_.empty() || ready_bytes_ + item.data.size() <= max_bytes_; });
    if (stop_) return;
    if (!problem.empty()) mismatches_.push_back(std::move(problem));
    ready_bytes_ += item.data.size();
    ready_.push_back(std::move(item));
    l.unlock();
    changed_.notify_all();
  }
}

std::string ReadAhead::next() {
  std::unique_lock<std::mutex> l(mu_);
  changed_.wait(l, [&] { return !ready_.empty(); });
  Item item = std::move(ready_.front());
  ready_.pop_front();
  ready_bytes_ -= item.data.size();
  l.unlock();
  changed_.notify_all();
  if (item.error) std::rethrow_exception(item.error);
  return std::move(item.data);
}

std::vector<std::string> ReadAhead::mismatches() const {
  std::lock_guard<std::mutex> l(mu_);
  return mismatches_;
}

}  // namespace skb::packager
