#include "common/fs.h"

#include <gtest/gtest.h>

#include <string>

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

}  // namespace
}  // namespace skb::common
