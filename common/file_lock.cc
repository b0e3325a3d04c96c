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
  int flags = waiting ? LOCK_EX | LOCK_NB : LOCK_EX;
  while (::flock(fd_, flags) != 0) {
    if (errno == EWOULDBLOCK && (flags & LOCK_NB)) {
      waiting();
      flags = LOCK_EX;
    } else if (errno != EINTR) {
      int e = errno;
      ::close(fd_);
      throw Error(fmt::format("{}: cannot lock: {}", file.string(), std::strerror(e)));
    }
  }
}

FileLock::~FileLock() { ::close(fd_); }

}  // namespace skb::common
