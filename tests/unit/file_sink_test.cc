#include <gtest/gtest.h>
#include <sys/stat.h>
#include <chrono>
#include <future>
#include <thread>

#include "common/error.h"
#include "common/fs.h"
#include "common/sha256.h"
#include "packager/install/file_sink.h"
#include "packager/install/payload_reader.h"
#include "test_util.h"

namespace skb::installer {
namespace {

packager::PackageFile entry(const std::string& path, const std::string& data) {
  return {path, common::sha256_hex(data), data.size()};
}

// n distinct files of about 1 KiB; file `big` is 64 KiB.
std::vector<std::string> contents(int n, int big) {
  std::vector<std::string> out;
  for (int i = 0; i < n; ++i)
    out.push_back(std::string(i == big ? 65536 : 1024, static_cast<char>('a' + i % 26)) + std::to_string(i));
  return out;
}

TEST(FileSink, WritesEveryFileThroughAQueueSmallerThanOneOfThem) {
  auto dest = test::scratch_dir() / "lib";
  std::filesystem::create_directory(dest);
  auto data = contents(120, 60);
  std::vector<packager::PackageFile> want;
  for (std::size_t i = 0; i < data.size(); ++i)
    want.push_back(entry("host/Op" + std::to_string(i / 50) + "/k" + std::to_string(i) + ".so", data[i]));
  {
    FileSink sink(dest, {}, 4096);  // about 4 small files at a time; the 64 KiB one goes alone
    for (std::size_t i = 0; i < data.size(); ++i) sink.put(want[i], data[i]);
    sink.finish();
  }
  for (std::size_t i = 0; i < data.size(); ++i)
    ASSERT_EQ(common::read_file(dest / want[i].path), data[i]) << want[i].path;
}

TEST(FileSink, CheckOnlyNamesTheFileThatDoesNotMatchItsManifestEntry) {
  auto data = contents(3, -1);
  std::vector<packager::PackageFile> want = {entry("host/A/a.so", data[0]), entry("host/A/b.so", data[1]),
                                             entry("host/A/c.so", data[2])};
  FileSink sink({}, {}, 4096);
  sink.put(want[0], data[0]);
  std::string flipped = data[1];
  flipped[100] ^= 1;  // same size: only the hash can tell
  sink.put(want[1], flipped);
  try {
    sink.put(want[2], data[2]);
    sink.finish();
    FAIL() << "a file that does not match its sha256 was accepted";
  } catch (const VerifyError& e) {
    EXPECT_EQ(std::string(e.what()), "payload entry host/A/b.so does not match its sha256 in the manifest");
  }
}

TEST(FileSink, NeverWritesOverAFileThatIsAlreadyThere) {
  auto dest = test::scratch_dir() / "lib";
  test::write_text(dest / "host/A/a.so", "installed before");
  std::string data = "new bytes";
  auto want = entry("host/A/a.so", data);
  FileSink sink(dest);
  sink.put(want, data);
  EXPECT_THROW(sink.finish(), common::Error);
  EXPECT_EQ(common::read_file(dest / "host/A/a.so"), "installed before");
}

// A file whose bytes the library already holds is a hard link to them; one whose installed copy
// no longer hashes to its sha256 (damaged since) is written anew, never linked.
TEST(FileSink, LinksAFileTheLibraryHoldsAndWritesOneWhoseCopyIsDamaged) {
  auto lib = test::scratch_dir() / "lib";
  test::write_text(lib / "static_kernel_1/host/A/a.so", "kernel a");
  test::write_text(lib / "static_kernel_1/host/A/b.so", "kernel b");
  InstalledFiles installed = {{common::sha256_hex("kernel a"), lib / "static_kernel_1/host/A/a.so"},
                              {common::sha256_hex("kernel b"), lib / "static_kernel_1/host/A/b.so"}};
  test::write_text(lib / "static_kernel_1/host/A/b.so", "kernel B");  // damaged after it was listed
  auto dest = lib / ".staging";
  std::filesystem::create_directory(dest);
  std::vector<packager::PackageFile> want = {entry("host/A/a.so", "kernel a"), entry("host/A/b.so", "kernel b"),
                                             entry("host/A/c.so", "kernel c")};
  {
    FileSink sink(dest, ready_installed_files(installed));
    sink.put(want[0], "kernel a");
    sink.put(want[1], "kernel b");
    sink.put(want[2], "kernel c");
    sink.finish();
  }
  auto inode = [](const std::filesystem::path& p) {
    struct stat st {};
    return ::stat(p.c_str(), &st) == 0 ? st.st_ino : 0;
  };
  EXPECT_EQ(inode(dest / "host/A/a.so"), inode(lib / "static_kernel_1/host/A/a.so"));
  EXPECT_EQ(std::filesystem::hard_link_count(dest / "host/A/a.so"), 2u);
  EXPECT_NE(inode(dest / "host/A/b.so"), inode(lib / "static_kernel_1/host/A/b.so"));
  EXPECT_EQ(common::read_file(dest / "host/A/b.so"), "kernel b");
  EXPECT_EQ(std::filesystem::hard_link_count(dest / "host/A/c.so"), 1u);
  std::filesystem::remove_all(lib / "static_kernel_1");  // the other package goes: this one keeps its kernel
  EXPECT_EQ(common::read_file(dest / "host/A/a.so"), "kernel a");
}

// The installed files may still be being found when the first files come: the writers wait for
// them, then link as above; a failure to find them fails the extraction.
TEST(FileSink, WaitsForTheInstalledFilesBeingFound) {
  auto lib = test::scratch_dir() / "lib";
  test::write_text(lib / "static_kernel_1/host/A/a.so", "kernel a");
  auto dest = lib / ".staging";
  std::filesystem::create_directory(dest);
  std::vector<packager::PackageFile> want = {entry("host/A/a.so", "kernel a"), entry("host/A/c.so", "kernel c")};
  std::promise<InstalledFiles> finding;
  {
    FileSink sink(dest, finding.get_future().share());
    sink.put(want[0], "kernel a");
    sink.put(want[1], "kernel c");
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    EXPECT_FALSE(std::filesystem::exists(dest / "host/A/a.so")) << "written before the library's files were known";
    finding.set_value({{common::sha256_hex("kernel a"), lib / "static_kernel_1/host/A/a.so"}});
    sink.finish();
  }
  EXPECT_EQ(std::filesystem::hard_link_count(dest / "host/A/a.so"), 2u);
  EXPECT_EQ(common::read_file(dest / "host/A/c.so"), "kernel c");

  std::filesystem::remove_all(dest);
  std::filesystem::create_directory(dest);
  std::promise<InstalledFiles> failing;
  failing.set_exception(std::make_exception_ptr(common::IoError("index: cannot read")));
  FileSink sink(dest, failing.get_future().share());
  try {
    sink.put(want[0], "kernel a");
    sink.finish();
    ADD_FAILURE() << "no error";
  } catch (const common::IoError& e) {
    EXPECT_STREQ(e.what(), "index: cannot read");
  }
}

}  // namespace
}  // namespace skb::installer
