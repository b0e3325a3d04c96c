#include "common/file_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <fmt/format.h>
#include <cerrno>
#include <cstring>

#include "common/error.h"

namespace skb::common {

FileLock::FileLock(const std::filesystem::path& file, mode_t mode, const std::function<void()>& waiting) {
  fd_ = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, mode);
  if (fd_ < 0) throw Error(fmt::format("{}: cannot open: {}", file.string(), std::strerror(errno)));
  lock(file, waiting);
}

FileLock FileLock::folder(const std::filesystem::path& dir, const std::function<void()>& waiting) {
  FileLock l;
  l.fd_ = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (l.fd_ < 0) throw Error(fmt::format("{}: cannot open: {}", dir.string(), std::strerror(errno)));
  l.lock(dir, waiting);
  return l;
}

bool FileLock::folder_held(const std::filesystem::path& dir) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return false;
  bool held = ::flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK;
  ::close(fd);
  return held;
}

void FileLock::lock(const std::filesystem::path& what, const std::function<void()>& waiting) {
  int flags = waiting ? LOCK_EX | LOCK_NB : LOCK_EX;
  while (::flock(fd_, flags) != 0) {
    if (errno == EWOULDBLOCK && (flags & LOCK_NB)) {
      waiting();
      flags = LOCK_EX;
    } else if (errno != EINTR) {
      int e = errno;
      ::close(fd_);
      fd_ = -1;
      throw Error(fmt::format("{}: cannot lock: {}", what.string(), std::strerror(e)));
    }
  }
}

FileLock::~FileLock() {
  if (fd_ >= 0) ::close(fd_);
}

}  // namespace skb::common
