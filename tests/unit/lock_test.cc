#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>

#include "common/error.h"
#include "packager/install/lock.h"
#include "test_util.h"

namespace skb::installer {
namespace {

void mark(int) {}

// A child process that holds the flock on `file` until its stdin pipe is closed.
struct Holder {
  pid_t pid = -1;
  int release = -1;
  explicit Holder(const std::string& file) {
    int ready[2], go[2];
    EXPECT_EQ(::pipe(ready), 0);
    EXPECT_EQ(::pipe(go), 0);
    pid = ::fork();
    if (pid == 0) {
      int fd = ::open(file.c_str(), O_RDWR | O_CREAT, 0644);
      if (fd < 0 || ::flock(fd, LOCK_EX) != 0) ::_exit(1);
      char c = 1;
      if (::write(ready[1], &c, 1) != 1) ::_exit(1);
      ::close(go[1]);
      while (::read(go[0], &c, 1) > 0) {
      }
      ::_exit(0);
    }
    ::close(ready[1]);
    ::close(go[0]);
    char c;
    EXPECT_EQ(::read(ready[0], &c, 1), 1);
    ::close(ready[0]);
    release = go[1];
  }
  void let_go() {
    if (release < 0) return;
    ::close(release);
    release = -1;
    int status = 0;
    ::waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  ~Holder() { let_go(); }
};

TEST(Lock, AHeldLockTimesOutAndLeavesNoTimerOrHandlerBehind) {
  std::string file = (test::scratch_dir() / "static_kernel.lock").string();
  struct sigaction mine {};
  mine.sa_handler = mark;
  sigemptyset(&mine.sa_mask);
  struct sigaction before {};
  ASSERT_EQ(::sigaction(SIGALRM, &mine, &before), 0);
  Holder holder(file);
  common::Diag diag("test", true);
  try {
    LibraryLock lock(file, 0.2, diag);
    FAIL() << "took a held lock";
  } catch (const common::Error& e) {
    EXPECT_NE(std::string(e.what()).find("still locked by process " + std::to_string(holder.pid)), std::string::npos)
        << e.what();
  }
  // A periodic SIGALRM left running would kill the installer later (its default action).
  struct itimerval timer {};
  ASSERT_EQ(::getitimer(ITIMER_REAL, &timer), 0);
  EXPECT_EQ(timer.it_value.tv_sec + timer.it_value.tv_usec + timer.it_interval.tv_sec + timer.it_interval.tv_usec, 0);
  struct sigaction now {};
  ASSERT_EQ(::sigaction(SIGALRM, &before, &now), 0);
  EXPECT_EQ(now.sa_handler, &mark);
}

TEST(Lock, AWaiterSaysOnceThatItWaitsAndTimesOutAfterSaying) {
  std::string file = (test::scratch_dir() / "static_kernel.lock").string();
  Holder holder(file);
  common::Diag diag("test");
  testing::internal::CaptureStderr();
  EXPECT_THROW(LibraryLock(file, 1.2, diag), common::Error);
  std::string said = testing::internal::GetCapturedStderr();
  std::string want = "test: waiting for " + file + " (held by process " + std::to_string(holder.pid);
  ASSERT_NE(said.find(want), std::string::npos) << said;
  EXPECT_EQ(said.find("waiting for", said.find(want) + want.size()), std::string::npos)
      << "said more than once: " << said;
}

TEST(Lock, AWaiterGetsTheLockOnceItsHolderLetsGo) {
  std::string file = (test::scratch_dir() / "static_kernel.lock").string();
  Holder holder(file);
  pid_t waiter = ::fork();
  if (waiter == 0) {
    ::close(holder.release);  // only the test holds the holder's pipe open
    try {
      common::Diag diag("test", true);
      LibraryLock lock(file, 30, diag);
      ::_exit(0);
    } catch (...) {
      ::_exit(1);
    }
  }
  int status = 0;
  ::usleep(200 * 1000);
  EXPECT_EQ(::waitpid(waiter, &status, WNOHANG), 0) << "the waiter did not wait for the holder";
  holder.let_go();
  ASSERT_EQ(::waitpid(waiter, &status, 0), waiter);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

TEST(Lock, AFolderIsLockedWithoutCreatingAnything) {
  std::filesystem::path folder = test::scratch_dir() / "lib";
  std::filesystem::create_directories(folder);
  common::Diag diag("test");
  {
    auto held = LibraryLock::on_folder(folder, 1, diag);
    ASSERT_TRUE(held);
    EXPECT_THROW(LibraryLock::on_folder(folder, 0.2, diag), common::Error);  // another open file: waits, times out
  }
  EXPECT_TRUE(LibraryLock::on_folder(folder, 0.2, diag));  // released with its holder
  EXPECT_TRUE(std::filesystem::is_empty(folder));
  EXPECT_FALSE(LibraryLock::on_folder(folder / "missing", 0.2, diag));  // nothing to lock: the caller goes on
}

}  // namespace
}  // namespace skb::installer
