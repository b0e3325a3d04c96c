#include "common/fs.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "common/error.h"
#include "test_util.h"

namespace skb::common {
namespace {

TEST(ReadFile, AMissingFileIsNothingForIfExistsAndAnErrorNamingItForReadFile) {
  auto dir = test::scratch_dir();
  EXPECT_FALSE(read_file_if_exists(dir / "absent").has_value());
  try {
    read_file(dir / "absent");
    FAIL() << "read a missing file";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), (dir / "absent").string() + ": cannot open: No such file or directory");
  }
}

TEST(ReadFile, IfExistsReadsAFileAndStillRefusesWhatCannotBeRead) {
  auto dir = test::scratch_dir();
  test::write_text(dir / "present", "bytes\n");
  EXPECT_EQ(read_file_if_exists(dir / "present"), std::optional<std::string>("bytes\n"));
  EXPECT_EQ(read_file_if_exists(dir / "empty.d" / ".." / "present", 6), std::nullopt)
      << "a path through a missing folder does not exist either";
  EXPECT_THROW(read_file_if_exists(dir / "present", 5), Error) << "larger than the limit";
  EXPECT_THROW(read_file_if_exists(dir), Error) << "a folder is not a missing file";
  test::write_text(dir / "file", "x");
  EXPECT_THROW(read_file_if_exists(dir / "file" / "below"), Error) << "ENOTDIR is not a missing file";
}

TEST(ReadFile, WhatIsThereButCannotBeReadIsAnIoErrorNeverNothing) {
  auto dir = test::scratch_dir();
  test::write_text(dir / "file", "x");
  EXPECT_THROW(read_file_if_exists(dir), IoError) << "a folder";
  EXPECT_THROW(read_file_if_exists(dir / "file" / "below"), IoError) << "ENOTDIR";
  EXPECT_THROW(read_file(dir / std::string(300, 'n')), IoError) << "ENAMETOOLONG";
  EXPECT_THROW(read_file_if_exists(dir / "file", 0), Error);
  try {
    read_file_if_exists(dir / "file", 0);
  } catch (const IoError&) {
    FAIL() << "a file larger than the limit is damaged, not unreadable";
  } catch (const Error&) {
  }
}

// A text in parts, more of them than one writev takes (IOV_MAX), empty ones among them, is
// written whole and in order.
TEST(WriteAtomic, WritesATextInPartsWhole) {
  auto dir = test::scratch_dir();
  std::vector<std::string> texts;
  for (int i = 0; i < 3000; ++i) texts.push_back(i % 7 == 0 ? std::string() : std::to_string(i) + ",");
  std::vector<std::string_view> parts(texts.begin(), texts.end());
  std::string whole;
  for (const auto& t : texts) whole += t;
  write_atomic(dir / "parts", parts);
  EXPECT_EQ(read_file(dir / "parts"), whole);
  write_atomic(dir / "none", std::vector<std::string_view>{});
  EXPECT_EQ(read_file(dir / "none"), "");
}

// A prepared write leaves the old file as it is until its commit, beside it only its temp file;
// one that is dropped leaves nothing.
TEST(PreparedWrite, ReplacesTheFileOnlyAtItsCommitAndLeavesNothingWhenDropped) {
  auto dir = test::scratch_dir();
  test::write_text(dir / "file", "old\n");
  auto names = [&] {
    std::vector<std::string> n = list_dir(dir);
    std::sort(n.begin(), n.end());
    return n;
  };
  {
    PreparedWrite w(dir / "file", "new\n");
    EXPECT_EQ(read_file(dir / "file"), "old\n");
    ASSERT_EQ(names().size(), 2u) << "the file and its temp";
    w.commit();
    EXPECT_EQ(read_file(dir / "file"), "new\n");
    EXPECT_THROW(w.commit(), Error) << "a second commit";
  }
  EXPECT_EQ(names(), std::vector<std::string>{"file"});
  {
    PreparedWrite dropped(dir / "file", "never\n");
    PreparedWrite moved = std::move(dropped);  // the temp goes with the move, once
  }
  EXPECT_EQ(names(), std::vector<std::string>{"file"});
  EXPECT_EQ(read_file(dir / "file"), "new\n");
  sync_folder(dir);
  EXPECT_THROW(sync_folder(dir / "absent"), IoError);
}

// A write left to its caller to sync: synced on its own, or not when its filesystem was synced
// whole; never once committed or when its temp file went.
TEST(PreparedWrite, SyncedLaterByItsCaller) {
  auto dir = test::scratch_dir();
  struct stat st;
  ASSERT_EQ(::stat(dir.c_str(), &st), 0);
  PreparedWrite w(dir / "file", "later\n", 0644, Sync::kAtomic);
  w.sync();
  w.sync(st.st_dev);
  w.sync(st.st_dev + 1);
  w.commit();
  EXPECT_EQ(read_file(dir / "file"), "later\n");
  EXPECT_THROW(w.sync(), Error) << "after its commit";
  PreparedWrite gone(dir / "gone", "x", 0644, Sync::kAtomic);
  for (const std::string& n : list_dir(dir))
    if (n.rfind("gone.", 0) == 0) std::filesystem::remove(dir / n);
  try {
    gone.sync(st.st_dev);
    ADD_FAILURE() << "no error";
  } catch (const IoError& e) {
    EXPECT_NE(std::string(e.what()).find((dir / "gone.").string()), std::string::npos) << e.what();
  }
}

TEST(PreparedWrite, NothingToPrepareWhenTheFileHoldsTheSameBytes) {
  auto dir = test::scratch_dir();
  test::write_text(dir / "same", "bytes\n");
  EXPECT_FALSE(prepare_if_changed(dir / "same", "bytes\n").has_value());
  std::optional<PreparedWrite> longer = prepare_if_changed(dir / "same", "bytes\n\n");
  ASSERT_TRUE(longer.has_value());
  std::optional<PreparedWrite> absent = prepare_if_changed(dir / "absent", "");
  ASSERT_TRUE(absent.has_value()) << "an empty file where there is none is a change";
  longer->commit();
  absent->commit();
  EXPECT_EQ(read_file(dir / "same"), "bytes\n\n");
  EXPECT_EQ(read_file(dir / "absent"), "");
}

TEST(PathExists, FalseOnlyWhenNothingIsThere) {
  auto dir = test::scratch_dir();
  test::write_text(dir / "file", "x");
  EXPECT_TRUE(path_exists(dir / "file"));
  EXPECT_TRUE(is_file(dir / "file"));
  EXPECT_TRUE(path_exists(dir));
  EXPECT_FALSE(is_file(dir));
  EXPECT_FALSE(path_exists(dir / "absent"));
  EXPECT_FALSE(is_file(dir / "absent"));
  EXPECT_THROW(path_exists(dir / "file" / "below"), IoError);
  EXPECT_THROW(is_file(dir / std::string(300, 'n')), IoError);
}

TEST(ListDir, NamesEveryEntryNoneForAMissingFolderAndAnIoErrorForAFile) {
  auto dir = test::scratch_dir();
  test::write_text(dir / "a", "x");
  std::filesystem::create_directory(dir / "b");
  std::vector<std::string> names = list_dir(dir);
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"a", "b"}));
  EXPECT_TRUE(list_dir(dir / "absent").empty());
  EXPECT_THROW(list_dir(dir / "a"), IoError) << "a file is no empty folder";
}

TEST(ListFolders, NamesTheFoldersNotFilesOrSymlinksToFolders) {
  auto dir = test::scratch_dir();
  test::write_text(dir / "a", "x");
  std::filesystem::create_directory(dir / "b");
  std::filesystem::create_directory(dir / "c");
  std::filesystem::create_directory_symlink(dir / "b", dir / "d");
  std::vector<std::string> names = list_folders(dir);
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"b", "c"}));
  EXPECT_TRUE(list_folders(dir / "absent").empty());
  EXPECT_THROW(list_folders(dir / "a"), IoError);
}

TEST(RemoveTree, RemovesWhatIsThereAndSaysWhatCannotBeRemoved) {
  auto dir = test::scratch_dir();
  std::filesystem::create_directories(dir / "t" / "u");
  test::write_text(dir / "t" / "u" / "f", "x");
  remove_tree(dir / "t");
  EXPECT_FALSE(path_exists(dir / "t"));
  remove_tree(dir / "t");  // nothing to do
  test::write_text(dir / "f", "x");
  EXPECT_TRUE(remove_file(dir / "f"));
  EXPECT_FALSE(remove_file(dir / "f"));
  std::filesystem::create_directory(dir / "d");
  EXPECT_THROW(remove_file(dir / "d"), IoError) << "a folder is not removed as a file, nor ignored";
  EXPECT_THROW(remove_tree(dir / std::string(300, 'n')), IoError);
}

// An --output the user named: a regular file is replaced whole, a symlink's target written (the
// link kept), and anything else (a FIFO, a device) written through, never replaced by a file.
TEST(WriteOutput, ReplacesARegularFileAndWritesThroughAnythingElse) {
  auto dir = test::scratch_dir();
  write_output(dir / "new.json", "one\n");
  EXPECT_EQ(read_file(dir / "new.json"), "one\n");
  write_output(dir / "new.json", "two\n");
  EXPECT_EQ(read_file(dir / "new.json"), "two\n");
  std::filesystem::create_symlink(dir / "new.json", dir / "link.json");
  write_output(dir / "link.json", "three\n");
  EXPECT_TRUE(std::filesystem::is_symlink(dir / "link.json"));
  EXPECT_EQ(read_file(dir / "new.json"), "three\n");
  ASSERT_EQ(::mkfifo((dir / "fifo").c_str(), 0644), 0);
  std::string got;
  std::thread reader([&] { got = read_file(dir / "fifo"); });
  write_output(dir / "fifo", "four\n");
  reader.join();
  EXPECT_EQ(got, "four\n");
  EXPECT_EQ(std::filesystem::status(dir / "fifo").type(), std::filesystem::file_type::fifo);
}

// A temp file is another build's work while its process runs, a leftover once it has ended, or
// when the process of its number started after the file was written (a number reused).
TEST(Fs, ATempFileIsLiveWhileItsProcessRuns) {
  const std::filesystem::path dir = test::scratch_dir();
  auto temp = [&](const std::string& name) {
    test::write_text(dir / name, "x");
    return dir / name;
  };
  EXPECT_TRUE(is_live_temp(temp(fmt::format("Add_x.so.tmp.{}", ::getpid()))));
  EXPECT_TRUE(is_live_temp(temp(fmt::format("Add_x.tmp.{}.link-input.o", ::getpid()))));
  EXPECT_FALSE(is_live_temp(dir / fmt::format("Add_x.o.tmp.{}", ::getpid())));  // no such file
  pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) ::_exit(0);
  ASSERT_EQ(::waitpid(child, nullptr, 0), child);
  EXPECT_FALSE(is_live_temp(temp(fmt::format("Add_x.so.tmp.{}", child))));
  // A file last written before this process started: a process of the same number made it.
  std::filesystem::path before = temp(fmt::format("Add_y.so.tmp.{}", ::getpid()));
  timespec old[2] = {{1'000'000'000, 0}, {1'000'000'000, 0}};
  ASSERT_EQ(::utimensat(AT_FDCWD, before.c_str(), old, 0), 0);
  EXPECT_FALSE(is_live_temp(before));
  for (const char* name : {"Add_x.so", "Add_x.so.tmp.", "Add_x.so.tmp.abc", "Add_x.so.tmp.0", "Add_x.so.tmp.-1"})
    EXPECT_FALSE(is_live_temp(temp(name))) << name;
}

}  // namespace
}  // namespace skb::common
