#include "common/file_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <thread>

#include "common/error.h"
#include "test_util.h"

namespace skb::common {
namespace {

// Whether another open file description of path can take the lock now.
bool free_to_take(const std::filesystem::path& path) {
  int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0) return false;
  bool taken = ::flock(fd, LOCK_EX | LOCK_NB) == 0;
  ::close(fd);
  return taken;
}

TEST(FileLock, CreatesTheFileAndHoldsTheLockForItsLifetime) {
  auto file = test::scratch_dir() / "x.lock";
  {
    FileLock lock(file, 0600);
    EXPECT_TRUE(std::filesystem::is_regular_file(file));
    EXPECT_EQ(std::filesystem::status(file).permissions() & std::filesystem::perms::all,
              std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
    EXPECT_FALSE(free_to_take(file));
  }
  EXPECT_TRUE(free_to_take(file));
}

TEST(FileLock, WaitsForTheHolderAndSaysSoOnce) {
  auto file = test::scratch_dir() / "x.lock";
  std::optional<FileLock> holder(std::in_place, file, 0644);
  std::atomic<int> said{0};
  std::atomic<bool> locked{false};
  std::thread waiter([&] {
    FileLock lock(file, 0644, [&] { ++said; });
    locked = true;
  });
  auto until = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (said == 0 && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_EQ(said, 1) << "the waiter says it waits before it takes the lock";
  EXPECT_FALSE(locked) << "nobody takes a held lock";
  holder.reset();
  waiter.join();
  EXPECT_TRUE(locked);
  EXPECT_EQ(said, 1);
}

TEST(FileLock, AFreeLockIsTakenWithoutAWord) {
  auto file = test::scratch_dir() / "x.lock";
  int said = 0;
  FileLock lock(file, 0644, [&] { ++said; });
  EXPECT_EQ(said, 0);
}

TEST(FileLock, RefusesASymlinkAndNamesTheFile) {
  auto dir = test::scratch_dir();
  test::write_text(dir / "target", "");
  std::filesystem::create_symlink(dir / "target", dir / "x.lock");
  try {
    FileLock lock(dir / "x.lock", 0644);
    FAIL() << "locked through a symlink";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()).rfind((dir / "x.lock").string() + ": cannot open: ", 0), 0u) << e.what();
  }
}

TEST(FileLock, AFolderIsLockedThroughItselfAndCreatesNothingInIt) {
  auto dir = test::scratch_dir() / "held";
  std::filesystem::create_directory(dir);
  EXPECT_FALSE(FileLock::folder_held(dir));
  {
    FileLock lock = FileLock::folder(dir);
    EXPECT_TRUE(FileLock::folder_held(dir));
    EXPECT_TRUE(std::filesystem::is_empty(dir));
    FileLock moved(std::move(lock));  // held by whichever object has it
    EXPECT_TRUE(FileLock::folder_held(dir));
  }
  EXPECT_FALSE(FileLock::folder_held(dir));
  EXPECT_FALSE(FileLock::folder_held(dir / "missing"));
}

}  // namespace
}  // namespace skb::common
