#include "packager/block_deflater.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

#include "common/fs.h"
#include "packager/format/gzip_bytes.h"
#include "packager/install/block_inflater.h"
#include "test_util.h"

namespace skb::packager {
namespace {

// What BlockDeflater writes for `pieces` (written one after the other), with `threads`.
std::string deflate(const std::vector<std::string>& pieces, unsigned threads) {
  std::filesystem::path path = test::scratch_dir() / "out.gz";
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> out(std::fopen(path.c_str(), "wb"), &std::fclose);
  BlockDeflater d(out.get(), path, 6, threads);
  for (const auto& p : pieces) d.write(p);
  d.finish();
  out.reset();
  return common::read_file(path);
}

TEST(BlockDeflater, WritesTheStreamAsBlocksInItsOrder) {
  std::string stream;
  for (int i = 0; stream.size() < 3 * kGzipBlockBytes + 12345; ++i) stream += std::to_string(i) + " ";
  // Pieces of every size: across block boundaries, and one larger than a block.
  std::vector<std::string> pieces = {stream.substr(0, 10), stream.substr(10, kGzipBlockBytes + 7),
                                     stream.substr(10 + kGzipBlockBytes + 7)};
  std::string one = deflate(pieces, 1);
  EXPECT_EQ(one, deflate(pieces, 4));  // the same bytes, however many threads
  EXPECT_EQ(one, deflate({stream}, 2));

  std::filesystem::path path = test::scratch_dir() / "read.gz";
  test::write_text(path, one);
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  installer::BlockInflater in(fd, 0, one.size(), 2);
  std::vector<std::size_t> sizes;
  std::string back;
  for (std::string_view b; !(b = in.next()).empty();) sizes.push_back(b.size()), back += b;
  ::close(fd);
  EXPECT_EQ(back, stream);
  ASSERT_EQ(sizes.size(), 4u);
  EXPECT_EQ(sizes[0], kGzipBlockBytes);
  EXPECT_EQ(sizes[3], stream.size() - 3 * kGzipBlockBytes);
}

TEST(BlockDeflater, WritesNothingForNothing) { EXPECT_EQ(deflate({}, 2), ""); }

// end_block ends the block being filled where it is called: the next bytes start the next one.
// Called with nothing pending, it makes no empty block.
TEST(BlockDeflater, EndBlockEndsTheBlockThere) {
  std::filesystem::path path = test::scratch_dir() / "ended.gz";
  std::string head(1000, 'm'), rest(kGzipBlockBytes + 5, 'r');
  {
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> out(std::fopen(path.c_str(), "wb"), &std::fclose);
    BlockDeflater d(out.get(), path, 6, 2);
    d.end_block();
    d.write(head);
    d.end_block();
    d.end_block();
    d.write(rest);
    d.finish();
  }
  std::string gz = common::read_file(path);
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  installer::BlockInflater in(fd, 0, gz.size(), 2);
  std::vector<std::string> blocks;
  for (std::string_view b; !(b = in.next()).empty();) blocks.emplace_back(b);
  ::close(fd);
  ASSERT_EQ(blocks.size(), 3u);
  EXPECT_EQ(blocks[0], head);
  EXPECT_EQ(blocks[1], rest.substr(0, kGzipBlockBytes));
  EXPECT_EQ(blocks[2], rest.substr(kGzipBlockBytes));
}

}  // namespace
}  // namespace skb::packager
