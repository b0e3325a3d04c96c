#include "packager/install/file_sink.h"

#include <fcntl.h>
#include <unistd.h>

#include <fmt/format.h>
#include <cerrno>
#include <cstring>

#include "common/error.h"
#include "common/fs.h"
#include "common/sha256.h"
#include "packager/install/payload_reader.h"

namespace skb::installer {
namespace fs = std::filesystem;

namespace {
// Bytes that may wait for the writer: enough to keep it busy, little memory.
constexpr std::size_t kMaxQueued = std::size_t{32} << 20;
}  // namespace

FileSink::FileSink(fs::path dest) : dest_(std::move(dest)), worker_([this] { run(); }) {}

FileSink::~FileSink() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    closing_ = true;
  }
  changed_.notify_all();
  worker_.join();
}

void FileSink::rethrow_failure() {
  if (failure_) std::rethrow_exception(failure_);
}

void FileSink::put(const packager::PackageFile& want, std::string data) {
  std::unique_lock<std::mutex> lock(mu_);
  changed_.wait(lock, [&] { return failure_ || queued_bytes_ == 0 || queued_bytes_ + data.size() <= kMaxQueued; });
  rethrow_failure();
  queued_bytes_ += data.size();
  jobs_.push_back(Job{&want, std::move(data)});
  changed_.notify_all();
}

void FileSink::finish() {
  std::unique_lock<std::mutex> lock(mu_);
  changed_.wait(lock, [&] { return failure_ || (jobs_.empty() && !busy_); });
  rethrow_failure();
}

void FileSink::run() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    changed_.wait(lock, [&] { return closing_ || !jobs_.empty(); });
    if (closing_) return;  // after finish(), or unwinding from an error: what is left is dropped
    if (failure_) {
      jobs_.clear();
      continue;
    }
    Job job = std::move(jobs_.front());
    jobs_.pop_front();
    busy_ = true;
    lock.unlock();
    std::exception_ptr failed;
    try {
      write_one(job);
    } catch (...) {
      failed = std::current_exception();
    }
    lock.lock();
    busy_ = false;
    queued_bytes_ -= job.data.size();
    if (failed && !failure_) failure_ = failed;
    changed_.notify_all();
  }
}

void FileSink::write_one(const Job& job) {
  const packager::PackageFile& want = *job.want;
  if (job.data.size() != want.size || common::sha256_hex(job.data) != want.sha256)
    throw VerifyError(fmt::format("payload entry {} does not match its sha256 in the manifest", want.path));
  if (dest_.empty()) return;
  std::string folder = want.path.substr(0, want.path.rfind('/') + 1);
  if (folder != made_) {
    fs::path cur = dest_;
    for (const auto& part : fs::path(want.path).parent_path()) common::ensure_real_dir(cur /= part);
    made_ = folder;
  }
  fs::path out = dest_ / want.path;
  int fd = ::open(out.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) throw common::Error(fmt::format("{}: cannot create: {}", out.string(), std::strerror(errno)));
  for (std::size_t done = 0; done < job.data.size();) {
    ssize_t w = ::write(fd, job.data.data() + done, job.data.size() - done);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) {
      int e = errno;
      ::close(fd);
      throw common::Error(fmt::format("{}: write failed: {}", out.string(), std::strerror(e)));
    }
    done += static_cast<std::size_t>(w);
  }
  if (::close(fd) != 0)
    throw common::Error(fmt::format("{}: write failed: {}", out.string(), std::strerror(errno)));
}

}  // namespace skb::installer
