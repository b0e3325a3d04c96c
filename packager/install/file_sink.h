#pragma once
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <exception>
#include <filesystem>
#include <future>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "packager/format/manifest.h"

namespace skb::installer {

/// Files the library already holds, by sha256: a payload file with the same bytes is linked to
/// one of them (a hard link) instead of written again, so that the library stores each kernel
/// once however many packages hold it.
using InstalledFiles = std::unordered_map<std::string, std::filesystem::path>;
/// The same, found while the payload is read (or none: not valid()).
using FutureInstalledFiles = std::shared_future<InstalledFiles>;

/// A FutureInstalledFiles that holds `files` already.
FutureInstalledFiles ready_installed_files(InstalledFiles files);

/// True when `file` is a regular file that still holds `want`'s bytes (its size, then its
/// sha256): only such a copy is linked, so a copy damaged since it was installed is never spread.
/// Throws common::IoError when it is there but cannot be read.
bool holds_bytes(const std::filesystem::path& file, const packager::PackageFile& want);

/// Checks and writes the files of a payload on threads of their own (one per core, at most 4)
/// while the caller decompresses the next ones, as `tar -xz` overlaps gzip with writing. Each
/// file is hashed against the manifest and, with a destination, created below it (never through
/// a symlink, never over an existing file). The first failure is rethrown by the next call of
/// put() or finish().
/// Every few MiB written, one more thread starts the filesystem's writeback (syncfs), so that
/// the caller's final sync, before anything points at the files, finds little left to write (not
/// while other processes' unsynced bytes would hold it up: see choose_sync_way).
/// A file whose bytes the library already holds (`installed`) is linked to them, once the
/// installed file is checked to hash to the same sha256; it is written when the link cannot be
/// made (another filesystem, too many links). The writers wait for `installed` when it is still
/// being found, at the first file they write.
/// At most `max_queued` bytes wait for the writers, or one file when it alone is larger. Writing
/// is what limits an install, so a longer queue only fills: 4 MiB keeps the writers busy, and
/// every MiB more is 256 page faults and cache misses the decompressor pays for nothing.
class FileSink {
 public:
  /// dest empty: check only.
  explicit FileSink(std::filesystem::path dest, FutureInstalledFiles installed = {},
                    std::size_t max_queued = std::size_t{4} << 20);
  ~FileSink();
  FileSink(const FileSink&) = delete;
  FileSink& operator=(const FileSink&) = delete;

  /// Queues one whole file's bytes; blocks while too many bytes wait.
  void put(const packager::PackageFile& want, std::string data);
  /// Waits until every queued file is written; rethrows the first failure.
  void finish();

 private:
  struct Job {
    const packager::PackageFile* want;
    std::string data;
  };
  void run();
  void flush_ahead();
  // `installed`: the writer's own copy of installed_ (a shared_future is read by one thread).
  void write_one(const Job& job, std::string& made, const FutureInstalledFiles& installed);
  static bool link_installed(const packager::PackageFile& want, const std::filesystem::path& out,
                             const FutureInstalledFiles& installed);
  void rethrow_failure();

  std::filesystem::path dest_;
  const FutureInstalledFiles installed_;
  const std::size_t max_queued_;
  std::mutex mu_;
  std::condition_variable changed_;
  std::deque<Job> jobs_;
  std::size_t queued_bytes_ = 0;
  unsigned busy_ = 0;  // writers writing
  bool closing_ = false;
  std::exception_ptr failure_;
  std::size_t unflushed_ = 0;  // bytes written since the last writeback was started
  std::uint64_t written_ = 0;  // bytes written in all
  std::size_t files_written_ = 0;
  bool flush_wanted_ = false;
  int dest_fd_ = -1;  // dest_, for syncfs
  std::vector<std::thread> workers_;
  std::thread flusher_;
};

}  // namespace skb::installer
