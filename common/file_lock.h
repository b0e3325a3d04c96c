#pragma once
// An exclusive flock held for as long as an object lives: the one way skb's programs take turns
// on a file (a generation's output folder, a store's shards and statistics).
#include <sys/types.h>

#include <filesystem>
#include <functional>

namespace skb::common {

class FileLock {
 public:
  /// Opens `file` (created with `mode` when missing, never through a symlink) and locks it,
  /// waiting for as long as another process holds it. `waiting`, when given, is called once
  /// before a wait, so that a caller can say why it stands still. Throws common::Error naming
  /// the file when it cannot be opened or locked.
  explicit FileLock(const std::filesystem::path& file, mode_t mode, const std::function<void()>& waiting = {});
  /// Locks a folder itself (through its own descriptor): nothing is created in it, so that
  /// removing what it holds never removes the lock. Waits and throws as the constructor does.
  static FileLock folder(const std::filesystem::path& dir, const std::function<void()>& waiting = {});
  /// Whether another open description holds the folder's lock now (a live process's FileLock::folder).
  static bool folder_held(const std::filesystem::path& dir);
  ~FileLock();
  FileLock(FileLock&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

 private:
  FileLock() = default;
  void lock(const std::filesystem::path& what, const std::function<void()>& waiting);
  int fd_ = -1;
};

}  // namespace skb::common
