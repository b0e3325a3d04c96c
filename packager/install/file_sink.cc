#include "packager/install/file_sink.h"

#include <fcntl.h>
#include <unistd.h>

#include <fmt/format.h>
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <iterator>

#include "common/error.h"
#include "common/fs.h"
#include "common/sha256.h"
#include "packager/install/durable_tree.h"
#include "packager/install/payload_reader.h"

namespace skb::installer {
namespace fs = std::filesystem;

namespace {
// Bytes written between two starts of writeback.
constexpr std::size_t kFlushEvery = std::size_t{4} << 20;

// Threads that write: copying the bytes into the page cache is most of an install's work.
unsigned writers() { return std::clamp(std::thread::hardware_concurrency(), 1u, 4u); }
}  // namespace

FutureInstalledFiles ready_installed_files(InstalledFiles files) {
  std::promise<InstalledFiles> made;
  made.set_value(std::move(files));
  return made.get_future().share();
}

FileSink::FileSink(fs::path dest, FutureInstalledFiles installed, std::size_t max_queued)
    : dest_(std::move(dest)), installed_(std::move(installed)), max_queued_(max_queued) {
  if (!dest_.empty()) dest_fd_ = ::open(dest_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  for (unsigned i = 0; i < writers(); ++i) workers_.emplace_back([this] { run(); });
  if (dest_fd_ >= 0) flusher_ = std::thread([this] { flush_ahead(); });
}

FileSink::~FileSink() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    closing_ = true;
  }
  changed_.notify_all();
  for (auto& w : workers_) w.join();
  if (flusher_.joinable()) flusher_.join();
  if (dest_fd_ >= 0) ::close(dest_fd_);
}

void FileSink::rethrow_failure() {
  if (failure_) std::rethrow_exception(failure_);
}

void FileSink::put(const packager::PackageFile& want, std::string data) {
  std::unique_lock<std::mutex> lock(mu_);
  changed_.wait(lock, [&] { return failure_ || queued_bytes_ == 0 || queued_bytes_ + data.size() <= max_queued_; });
  rethrow_failure();
  queued_bytes_ += data.size();
  jobs_.push_back(Job{&want, std::move(data)});
  changed_.notify_all();
}

void FileSink::finish() {
  std::unique_lock<std::mutex> lock(mu_);
  changed_.wait(lock, [&] { return failure_ || (jobs_.empty() && busy_ == 0); });
  rethrow_failure();
}

void FileSink::run() {
  std::string made;  // the last folder this thread made below dest_ (files come sorted; most share it)
  const FutureInstalledFiles installed = installed_;
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    changed_.wait(lock, [&] { return closing_ || !jobs_.empty(); });
    if (closing_) return;  // after finish(), or unwinding from an error: what is left is dropped
    if (failure_) {
      jobs_.clear();
      continue;
    }
    // A share of what is queued, taken at once: one wake-up for many small files, and every
    // writer busy.
    std::size_t share = (jobs_.size() + workers_.size() - 1) / workers_.size();
    std::deque<Job> batch(std::make_move_iterator(jobs_.begin()), std::make_move_iterator(jobs_.begin() + share));
    jobs_.erase(jobs_.begin(), jobs_.begin() + share);
    ++busy_;
    lock.unlock();
    std::exception_ptr failed;
    for (const Job& job : batch) {
      try {
        write_one(job, made, installed);
      } catch (...) {
        failed = std::current_exception();
        break;
      }
    }
    std::size_t batch_bytes = 0, batch_files = batch.size();
    for (const Job& job : batch) batch_bytes += job.data.size();
    batch.clear();  // the memory goes back before put() may queue more
    lock.lock();
    --busy_;
    queued_bytes_ -= batch_bytes;
    if (failed && !failure_) failure_ = failed;
    unflushed_ += batch_bytes;
    written_ += batch_bytes;
    files_written_ += batch_files;
    if (unflushed_ >= kFlushEvery) {
      unflushed_ = 0;
      flush_wanted_ = true;
    }
    changed_.notify_all();
  }
}

void FileSink::flush_ahead() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    changed_.wait(lock, [&] { return closing_ || flush_wanted_; });
    if (closing_) return;
    flush_wanted_ = false;
    std::uint64_t written = written_;
    std::size_t files = files_written_;
    lock.unlock();
    // Only starts it early: the caller's own sync is what makes the files durable. Not while
    // others' unsynced bytes would make syncfs wait for them (the caller syncs file by file then).
    if (choose_sync_way(unsynced_bytes(), written, files) == SyncWay::kFilesystem) ::syncfs(dest_fd_);
    lock.lock();
  }
}

void FileSink::write_one(const Job& job, std::string& made, const FutureInstalledFiles& installed) {
  const packager::PackageFile& want = *job.want;
  if (job.data.size() != want.size || common::sha256_hex(job.data) != want.sha256)
    throw VerifyError(fmt::format("payload entry {} does not match its sha256 in the manifest", want.path));
  if (dest_.empty()) return;
  std::string folder = want.path.substr(0, want.path.rfind('/') + 1);
  if (folder != made) {
    fs::path cur = dest_;
    for (const auto& part : fs::path(want.path).parent_path()) common::ensure_real_dir(cur /= part);
    made = folder;
  }
  fs::path out = dest_ / want.path;
  if (link_installed(want, out, installed)) return;
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
  if (::close(fd) != 0) throw common::Error(fmt::format("{}: write failed: {}", out.string(), std::strerror(errno)));
}

bool holds_bytes(const fs::path& file, const packager::PackageFile& want) {
  std::error_code ec;
  if (!fs::is_regular_file(fs::symlink_status(file, ec)) || fs::file_size(file, ec) != want.size || ec) return false;
  return common::sha256_file(file) == want.sha256;
}

bool FileSink::link_installed(const packager::PackageFile& want, const fs::path& out,
                              const FutureInstalledFiles& installed) {
  if (!installed.valid()) return false;
  const InstalledFiles& files = installed.get();
  auto it = files.find(want.sha256);
  try {
    return it != files.end() && holds_bytes(it->second, want) && ::link(it->second.c_str(), out.c_str()) == 0;
  } catch (const common::IoError&) {  // unreadable: written from the payload instead
    return false;
  }
}

}  // namespace skb::installer
