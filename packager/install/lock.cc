#include "packager/install/lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <fmt/format.h>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

#include "common/error.h"

namespace skb::installer {

LibraryLock::LibraryLock(const std::filesystem::path& file, double timeout, const common::Diag& diag) {
  fd_ = ::open(file.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd_ < 0)
    throw common::Error(fmt::format("{}: cannot open the lock file: {}", file.string(), std::strerror(errno)));
  auto start = std::chrono::steady_clock::now();
  bool said = false;
  while (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    if (errno != EWOULDBLOCK && errno != EINTR) {
      int e = errno;
      ::close(fd_);
      throw common::Error(fmt::format("{}: cannot lock: {}", file.string(), std::strerror(e)));
    }
    double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (waited >= timeout) {
      ::close(fd_);
      throw common::Error(
          fmt::format("{}: still locked by another installer after {:.0f} s; nothing was changed "
                      "(raise --lock-timeout or SKB_LOCK_TIMEOUT)",
                      file.string(), timeout));
    }
    if (!said && waited > 0.5) {
      diag.note(fmt::format("waiting for {} (another installer holds it)...", file.string()));
      said = true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

LibraryLock::~LibraryLock() {
  if (fd_ >= 0) ::close(fd_);  // releases the flock
}

}  // namespace skb::installer
