#include "packager/install/lock.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/time.h>
#include <unistd.h>

#include <fmt/format.h>
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <string_view>
#include <vector>

#include "common/error.h"
#include "common/fs.h"

namespace skb::installer {

namespace {

// The fields of a line, as separated by spaces and tabs.
std::vector<std::string_view> words(std::string_view line) {
  std::vector<std::string_view> out;
  for (std::size_t at = 0;;) {
    at = line.find_first_not_of(" \t", at);
    if (at == std::string_view::npos) return out;
    std::size_t end = std::min(line.find_first_of(" \t", at), line.size());
    out.push_back(line.substr(at, end - at));
    at = end;
  }
}

// Who holds the flock on fd, from /proc/locks: "process 1234 (sh, stopped)", or "another
// installer" when Linux does not say.
std::string holder_of(int fd) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return "another installer";
  std::string want = fmt::format("{:02x}:{:02x}:{}", major(st.st_dev), minor(st.st_dev), st.st_ino);
  std::string locks, stat_line;
  try {
    locks = common::read_file_if_exists("/proc/locks").value_or("");
  } catch (const common::Error&) {
    return "another installer";
  }
  std::string self = std::to_string(::getpid());
  std::string_view rest = locks;
  while (!rest.empty()) {
    std::string_view line = rest.substr(0, rest.find('\n'));
    rest.remove_prefix(std::min(rest.size(), line.size() + 1));
    // "1: FLOCK  ADVISORY  WRITE 1234 08:01:5678 0 EOF"; a waiter's line has "->" second.
    std::vector<std::string_view> w = words(line);
    if (w.size() < 6 || w[1] != "FLOCK" || w[5] != want || w[4] == self) continue;
    std::string pid(w[4]);
    try {
      stat_line = common::read_file_if_exists("/proc/" + pid + "/stat", 4096).value_or("");
    } catch (const common::Error&) {
      stat_line.clear();
    }
    std::size_t open = stat_line.find('('), close = stat_line.rfind(')');
    if (open == std::string::npos || close == std::string::npos || close + 2 >= stat_line.size())
      return fmt::format("process {}", pid);
    std::string comm = stat_line.substr(open + 1, close - open - 1);
    char state = stat_line[close + 2];
    const char* what = state == 'T' || state == 't' ? ", stopped" : state == 'Z' ? ", a zombie" : "";
    return fmt::format("process {} ({}{})", pid, comm, what);
  }
  return "another installer";
}

constexpr double kSayAfter = 0.5;  // seconds of waiting before "waiting for ..." is printed
constexpr double kRetick = 0.25;   // should an alarm land just before flock(), the next one comes after this

void on_alarm(int) {}

// A SIGALRM that interrupts a blocking call (no SA_RESTART) when the waiter has something to
// do: say that it waits, or give up. The waiters of a node sleep in between, rather than waking
// at a fixed period, which would take the CPU from the installer they wait for. The previous
// handler and timer come back afterwards.
class Alarm {
 public:
  Alarm() {
    struct sigaction sa {};
    sa.sa_handler = on_alarm;
    sigemptyset(&sa.sa_mask);
    ::sigaction(SIGALRM, &sa, &old_action_);
    struct itimerval none {};
    ::setitimer(ITIMER_REAL, &none, &old_timer_);
  }
  ~Alarm() {
    ::setitimer(ITIMER_REAL, &old_timer_, nullptr);
    ::sigaction(SIGALRM, &old_action_, nullptr);
  }
  Alarm(const Alarm&) = delete;
  Alarm& operator=(const Alarm&) = delete;

  // The next SIGALRM in `seconds`, then every kRetick.
  void in(double seconds) {
    struct itimerval tv {};
    tv.it_value = to_timeval(std::max(seconds, 0.001));
    tv.it_interval = to_timeval(kRetick);
    ::setitimer(ITIMER_REAL, &tv, nullptr);
  }

 private:
  static timeval to_timeval(double seconds) {
    auto us = static_cast<long long>(seconds * 1e6);
    return timeval{static_cast<time_t>(us / 1000000), static_cast<suseconds_t>(us % 1000000)};
  }
  struct sigaction old_action_ {};
  struct itimerval old_timer_ {};
};

}  // namespace

LibraryLock::LibraryLock(const std::filesystem::path& file, double timeout, const common::Diag& diag) {
  fd_ = ::open(file.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd_ < 0)
    throw common::Error(fmt::format("{}: cannot open the lock file: {}", file.string(), std::strerror(errno)));
  acquire(file, timeout, diag);
}

std::unique_ptr<LibraryLock> LibraryLock::if_exists(const std::filesystem::path& file, double timeout,
                                                    const common::Diag& diag) {
  int fd = ::open(file.c_str(), O_RDWR | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0 && errno == ENOENT) return nullptr;
  if (fd < 0)
    throw common::Error(fmt::format("{}: cannot open the lock file: {}", file.string(), std::strerror(errno)));
  std::unique_ptr<LibraryLock> lock(new LibraryLock(fd));
  lock->acquire(file, timeout, diag);
  return lock;
}

std::unique_ptr<LibraryLock> LibraryLock::on_folder(const std::filesystem::path& folder, double timeout,
                                                    const common::Diag& diag) {
  int fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return nullptr;
  std::unique_ptr<LibraryLock> lock(new LibraryLock(fd));
  if (::flock(fd, LOCK_EX | LOCK_NB) == 0) return lock;
  if (errno != EWOULDBLOCK) return nullptr;  // no flock here
  lock->acquire(folder, timeout, diag);
  return lock;
}

void LibraryLock::acquire(const std::filesystem::path& file, double timeout, const common::Diag& diag) {
  if (::flock(fd_, LOCK_EX | LOCK_NB) == 0) return;
  // Held: wait in a blocking flock, which returns the moment the holder lets go (several
  // waiters polling at a fixed period would queue up one period each). An alarm interrupts it
  // to say once that we wait, and to give up at the timeout.
  Alarm alarm;
  auto start = std::chrono::steady_clock::now();
  bool said = false;
  double next_event = std::min(kSayAfter, timeout);  // seconds after start: say that we wait, or give up
  alarm.in(next_event);
  while (::flock(fd_, LOCK_EX) != 0) {
    if (errno != EINTR) {
      int e = errno;
      ::close(fd_);
      fd_ = -1;
      throw common::Error(fmt::format("{}: cannot lock: {}", file.string(), std::strerror(e)));
    }
    double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (waited >= timeout) {
      std::string holder = holder_of(fd_);
      ::close(fd_);
      fd_ = -1;
      throw common::Error(
          fmt::format("{}: still locked by {} after {:.0f} s; nothing was changed "
                      "(raise --lock-timeout or SKB_LOCK_TIMEOUT)",
                      file.string(), holder, timeout));
    }
    if (!said && waited >= kSayAfter) {
      diag.note(fmt::format("waiting for {} (held by {})...", file.string(), holder_of(fd_)));
      said = true;
      next_event = timeout;
    }
    alarm.in(next_event - waited);
  }
}

LibraryLock::~LibraryLock() {
  if (fd_ >= 0) ::close(fd_);  // releases the flock
}

}  // namespace skb::installer
