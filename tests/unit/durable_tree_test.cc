#include "packager/install/durable_tree.h"

#include <sys/stat.h>

#include <gtest/gtest.h>

#include <filesystem>

#include "common/error.h"
#include "tests/unit/test_util.h"

namespace skb::installer {
namespace {
namespace fs = std::filesystem;

TEST(DurableTree, ReadsUnsyncedBytesFromMeminfo) {
  const char* meminfo =
      "MemTotal:       24558112 kB\n"
      "Dirty:             10240 kB\n"
      "Writeback:           512 kB\n"
      "WritebackTmp:          0 kB\n";
  EXPECT_EQ(unsynced_bytes(meminfo), (10240u + 512u) * 1024u);
  EXPECT_FALSE(unsynced_bytes("MemTotal: 1 kB\nDirty: 5 kB\n"));  // no Writeback
  EXPECT_FALSE(unsynced_bytes("Dirty: kB\nWriteback: 0 kB\n"));   // no number
  EXPECT_FALSE(unsynced_bytes(""));
  EXPECT_TRUE(unsynced_bytes());  // this machine's
}

TEST(DurableTree, SyncsEachFileOnlyWhenOthersWouldHoldUpSyncfsLonger) {
  constexpr std::uint64_t MiB = 1 << 20;
  EXPECT_EQ(choose_sync_way(std::nullopt, 10 * MiB, 10), SyncWay::kFilesystem);  // cannot tell
  EXPECT_EQ(choose_sync_way(5 * MiB, 10 * MiB, 10), SyncWay::kFilesystem);       // ours, partly written back
  EXPECT_EQ(choose_sync_way(10 * MiB + kOthersUnsyncedLimit, 10 * MiB, 10), SyncWay::kFilesystem);
  EXPECT_EQ(choose_sync_way(10 * MiB + kOthersUnsyncedLimit + 1, 10 * MiB, 10), SyncWay::kEachFile);
  // A checkpoint of 1 GiB being written: a package of 900 files syncs them, one of 9,000 does not.
  EXPECT_EQ(choose_sync_way(1024 * MiB, 0, 900), SyncWay::kEachFile);
  EXPECT_EQ(choose_sync_way(1024 * MiB, 0, 9000), SyncWay::kFilesystem);
  EXPECT_EQ(choose_sync_way(8192 * MiB, 0, 9000), SyncWay::kEachFile);
}

TEST(DurableTree, SyncsEveryFileAndFolderWithoutFollowingLinks) {
  fs::path dir = test::scratch_dir();
  for (int i = 0; i < 40; ++i) test::write_text(dir / "tree" / ("d" + std::to_string(i % 5)) / std::to_string(i), "x");
  fs::create_symlink("/nonexistent/target", dir / "tree" / "dangling");
  EXPECT_EQ(sync_each_file(dir / "tree"), 1u + 5u + 40u);  // the root, its folders and files, not the link
  TreeSync done = sync_tree(dir / "tree", 0, 40);
  struct stat st;
  ASSERT_EQ(::stat(dir.c_str(), &st), 0);
  // Which way depends on what other processes have not written yet; syncfs names its filesystem.
  if (done.way == SyncWay::kFilesystem)
    EXPECT_EQ(done.filesystem, std::optional<dev_t>(st.st_dev));
  else
    EXPECT_FALSE(done.filesystem.has_value());
}

TEST(DurableTree, NamesWhatCannotBeSynced) {
  fs::path missing = test::scratch_dir() / "missing";
  for (auto sync : {+[](const fs::path& p) { sync_each_file(p); }, +[](const fs::path& p) { sync_tree(p, 0, 1); }}) {
    try {
      sync(missing);
      ADD_FAILURE() << "no error";
    } catch (const common::Error& e) {
      EXPECT_NE(std::string(e.what()).find(missing.string()), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace skb::installer
