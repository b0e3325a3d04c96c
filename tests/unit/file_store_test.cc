#include <gtest/gtest.h>
#include <sys/stat.h>

#include "common/error.h"
#include "common/fs.h"
#include "common/sha256.h"
#include "packager/install/file_store.h"
#include "test_util.h"

namespace skb::installer {
namespace {
namespace fs = std::filesystem;

ino_t inode(const fs::path& p) {
  struct stat st;
  EXPECT_EQ(::lstat(p.c_str(), &st), 0) << p;
  return st.st_ino;
}

// A name links to the file it was given; the newest file of the same bytes takes it over; a name
// that only the store holds goes at the sweep, and so does what is not a name.
TEST(FileStore, NamesFilesAndSweepsThoseNoPackageHolds) {
  fs::path lib = test::scratch_dir() / "lib";
  fs::create_directories(lib / "a");
  fs::create_directories(lib / "b");
  FileStore store(lib / FileStore::kFolderName);
  EXPECT_FALSE(store.exists());
  const std::string sha = common::sha256_hex("kernel");
  EXPECT_FALSE(store.find(sha));
  common::write_atomic(lib / "a" / "k.so", "kernel");
  store.make();
  EXPECT_TRUE(store.exists());
  ASSERT_TRUE(store.add(lib / "a" / "k.so", sha));
  ASSERT_TRUE(store.find(sha));
  EXPECT_EQ(inode(*store.find(sha)), inode(lib / "a" / "k.so"));
  EXPECT_TRUE(store.add(lib / "a" / "k.so", sha));  // the same file again: nothing changes
  common::write_atomic(lib / "b" / "k.so", "kernel");
  ASSERT_TRUE(store.add(lib / "b" / "k.so", sha));
  EXPECT_EQ(inode(*store.find(sha)), inode(lib / "b" / "k.so"));
  EXPECT_EQ(common::list_dir(store.dir()), std::vector<std::string>{sha});  // no temporary name left

  EXPECT_FALSE(store.add(lib / "a" / "k.so", "../../escape"));  // a name is a hash or nothing
  EXPECT_FALSE(store.find("../a/k.so"));
  EXPECT_THROW(store.add(lib / "a" / "missing.so", common::sha256_hex("missing")), common::IoError);

  common::write_atomic(store.dir() / (sha + ".tmp.1"), "left by a killed run");
  store.sweep();  // b/k.so still holds the bytes
  EXPECT_EQ(common::list_dir(store.dir()), std::vector<std::string>{sha});
  fs::remove(lib / "b" / "k.so");
  store.sweep();
  EXPECT_FALSE(store.find(sha));
  EXPECT_TRUE(common::list_dir(store.dir()).empty());
}

}  // namespace
}  // namespace skb::installer
