#include <gtest/gtest.h>

#include <algorithm>

#include "common/error.h"
#include "opmodel/discovery.h"
#include "test_util.h"

namespace skb::opmodel {
namespace {
namespace fs = std::filesystem;
using test::write_text;

std::vector<std::string> names(const Discovery& d, const fs::path& root) {
  std::vector<std::string> out;
  for (const auto& f : d.files) out.push_back(fs::relative(f, root).string());
  return out;
}

TEST(Discovery, DumpRootReadsOpcompileFoldersOfEveryProcess) {
  fs::path root = test::scratch_dir();
  write_text(root / "ts1_pid7_outputs/7_opcompile/Add_1.json", "{}");
  write_text(root / "ts1_pid7_outputs/7_debug/Add_1.json", "{}");
  write_text(root / "ts1_pid7_outputs/7/Add_1.json", "{}");
  write_text(root / "ts2_pid9_outputs/9_opcompile_gathered/Mul_2.json", "{}");
  write_text(root / "ts2_pid9_outputs/9_opcompile/notes.txt", "");
  Discovery d = discover({root});
  EXPECT_EQ(names(d, root), (std::vector<std::string>{"ts1_pid7_outputs/7_opcompile/Add_1.json",
                                                      "ts2_pid9_outputs/9_opcompile_gathered/Mul_2.json"}));
}

// torchair copies a record the user blacklisted into <pid>_opcompile_blacklist/ and leaves it in
// <pid>_opcompile/: it is never read, and said.
TEST(Discovery, RecordsNamedInTheBlacklistFolderAreLeftOut) {
  fs::path root = test::scratch_dir();
  write_text(root / "ts1_pid7_outputs/7_opcompile/Add_1.json", "{}");
  write_text(root / "ts1_pid7_outputs/7_opcompile/MatMulV2_2.json", "{}");
  write_text(root / "ts1_pid7_outputs/7_opcompile_blacklist/MatMulV2_2.json", "{}");
  Discovery d = discover({root});
  EXPECT_EQ(names(d, root), (std::vector<std::string>{"ts1_pid7_outputs/7_opcompile/Add_1.json"}));
  ASSERT_EQ(d.left_out.size(), 1u);
  EXPECT_EQ(fs::relative(d.left_out[0], root), "ts1_pid7_outputs/7_opcompile/MatMulV2_2.json");
  EXPECT_TRUE(std::count(d.folders.begin(), d.folders.end(), root / "ts1_pid7_outputs/7_opcompile_blacklist"))
      << "a change to the blacklist regenerates";
}

TEST(Discovery, FallsBackToDebugWithoutOpcompile) {
  fs::path root = test::scratch_dir();
  write_text(root / "20260101_42_outputs/42_debug/Relu_1.json", "{}");
  write_text(root / "20260101_42_outputs/42/Relu_1.json", "{}");
  Discovery d = discover({root / "20260101_42_outputs"});
  EXPECT_EQ(names(d, root), (std::vector<std::string>{"20260101_42_outputs/42_debug/Relu_1.json"}));
}

TEST(Discovery, PlainFolderReadsItsOwnJsonFilesOnly) {
  fs::path root = test::scratch_dir();
  write_text(root / "a.json", "{}");
  write_text(root / "b.txt", "");
  write_text(root / "sub/c.json", "{}");
  Discovery d = discover({root});
  EXPECT_EQ(names(d, root), (std::vector<std::string>{"a.json"}));
  EXPECT_EQ(d.folders, (std::vector<fs::path>{root}));
}

TEST(Discovery, FoldersListEveryListingThatDecidedTheFiles) {
  fs::path root = test::scratch_dir();
  write_text(root / "ts1_pid7_outputs/7_opcompile/Add_1.json", "{}");
  Discovery d = discover({root});
  EXPECT_EQ(d.folders, (std::vector<fs::path>{root, root / "ts1_pid7_outputs", root / "ts1_pid7_outputs/7_opcompile"}));
}

TEST(Discovery, MissingFolderIsAnError) {
  fs::path root = test::scratch_dir();
  EXPECT_THROW(discover({root / "nope"}), common::Error);
}

TEST(Discovery, SameFolderTwiceCountsOnce) {
  fs::path root = test::scratch_dir();
  write_text(root / "a.json", "{}");
  EXPECT_EQ(discover({root, root / "."}).files.size(), 1u);
}

}  // namespace
}  // namespace skb::opmodel
