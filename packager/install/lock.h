#pragma once
#include <filesystem>
#include <memory>

#include "common/diag.h"

namespace skb::installer {

/// An exclusive flock on the operator library's lock file, held for the life of the object.
/// The file is created when missing and never deleted; the kernel releases the lock when its
/// holder dies, so a killed installer never leaves a stale lock.
class LibraryLock {
 public:
  /// Blocks until the lock is free, saying once that it waits; throws Error after timeout
  /// seconds or when the lock file cannot be opened (or is a symlink).
  LibraryLock(const std::filesystem::path& file, double timeout_seconds, const common::Diag& diag);
  /// The same on a lock file that exists; nothing (and nothing created) when there is none.
  static std::unique_ptr<LibraryLock> if_exists(const std::filesystem::path& file, double timeout_seconds,
                                                const common::Diag& diag);
  /// The same on a folder (its flock, which creates nothing); nothing when the folder cannot be
  /// locked (a filesystem without flock on folders): the caller goes on without.
  static std::unique_ptr<LibraryLock> on_folder(const std::filesystem::path& folder, double timeout_seconds,
                                                const common::Diag& diag);
  ~LibraryLock();
  LibraryLock(const LibraryLock&) = delete;
  LibraryLock& operator=(const LibraryLock&) = delete;

 private:
  explicit LibraryLock(int fd) : fd_(fd) {}
  void acquire(const std::filesystem::path& file, double timeout_seconds, const common::Diag& diag);
  int fd_ = -1;
};

}  // namespace skb::installer
