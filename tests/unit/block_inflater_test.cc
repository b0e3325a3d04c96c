#include "packager/install/block_inflater.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <fmt/format.h>
#include <string>

#include "packager/format/gzip_bytes.h"
#include "packager/install/payload_reader.h"
#include "test_util.h"

namespace skb::installer {
namespace {

using packager::gunzip_bytes;
using packager::gzip_block;
using packager::gzip_block_length;
using packager::gzip_bytes;
using packager::kGzipBlockHeader;
using packager::kMaxGzipBlockBytes;

// A file of `prefix` then `blocks`, open for reading.
struct BlockFile {
  int fd = -1;
  std::uint64_t offset = 0, size = 0;
  BlockFile(const std::string& prefix, const std::string& blocks) {
    std::filesystem::path path = test::scratch_dir() / "blocks.bin";
    test::write_text(path, prefix + blocks);
    fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    offset = prefix.size();
    size = blocks.size();
  }
  ~BlockFile() { ::close(fd); }
};

std::string read_all(BlockInflater& in) {
  std::string out;
  for (std::string_view b; !(b = in.next()).empty();) out += b;
  return out;
}

std::string numbers(int from, int to) {
  std::string s;
  for (int i = from; i < to; ++i) s += std::to_string(i) + "\n";
  return s;
}

TEST(BlockInflater, GivesTheBlocksBytesInOrderWithOrWithoutThreads) {
  std::string a = numbers(0, 100000), b = numbers(100000, 150000), c = "the end";
  BlockFile f("#!/bin/sh\nheader\n", gzip_block(a, 6) + gzip_block(b, 1) + gzip_block(c, 9));
  EXPECT_TRUE(BlockInflater::starts_with_block(f.fd, f.offset, f.size));
  EXPECT_FALSE(BlockInflater::starts_with_block(f.fd, 0, f.size));
  for (unsigned ahead : {0u, 1u, 2u, 8u}) {
    BlockInflater in(f.fd, f.offset, f.size, ahead);
    EXPECT_EQ(in.next(), a);
    EXPECT_EQ(in.next(), b);
    EXPECT_EQ(in.next(), c);
    EXPECT_TRUE(in.next().empty());
    EXPECT_TRUE(in.next().empty());
  }
}

TEST(BlockInflater, SkipsEmptyBlocksWhichWouldReadAsTheEnd) {
  BlockFile f("", gzip_block("one", 6) + gzip_block("", 6) + gzip_block("two", 6));
  BlockInflater in(f.fd, f.offset, f.size, 2);
  EXPECT_EQ(read_all(in), "onetwo");
}

// The message of the VerifyError that reading all of the range throws.
std::string failure(const std::string& blocks, unsigned ahead = 2) {
  BlockFile f("prefix", blocks);
  BlockInflater in(f.fd, f.offset, f.size, ahead);
  try {
    read_all(in);
  } catch (const VerifyError& e) {
    return e.what();
  }
  return "no error";
}

TEST(BlockInflater, NamesTheByteWhereTheDamageIs) {
  std::string first = gzip_block(numbers(0, 1000), 6), second = gzip_block(numbers(1000, 2000), 6);
  std::string damaged = second;
  damaged[damaged.size() / 2] ^= 0x55;
  EXPECT_NE(failure(first + damaged).find(fmt::format("gzip block at its byte {} does not unpack", first.size())),
            std::string::npos)
      << failure(first + damaged);
  EXPECT_NE(failure(first + "garbage that is no block at all", 0)
                .find(fmt::format("no gzip block starts at its byte {}", first.size())),
            std::string::npos);
  EXPECT_NE(failure(first + second.substr(0, second.size() - 1)).find("past its end"), std::string::npos);
  std::string longer = second;  // a block whose length takes in the next one's bytes
  longer[16] = static_cast<char>(longer[16] + 1);
  EXPECT_NE(failure(first + longer + "x").find("does not unpack"), std::string::npos);
}

TEST(BlockInflater, RefusesABlockThatUnpacksToMoreThanABlockMayHold) {
  std::string big(kMaxGzipBlockBytes + 1, 'q');  // more than gzip_block writes: made by hand
  std::string plain = gzip_bytes(big);           // gzip's 10-byte header, then deflate's bytes
  std::string block = gzip_block("", 6).substr(0, kGzipBlockHeader) + plain.substr(10);
  for (int i = 0; i < 4; ++i) block[16 + i] = static_cast<char>((block.size() >> (8 * i)) & 0xff);
  ASSERT_EQ(gzip_block_length(block), block.size());
  EXPECT_EQ(gunzip_bytes(block, big.size()), big);
  EXPECT_NE(failure(block).find("does not unpack to at most"), std::string::npos);
}

}  // namespace
}  // namespace skb::installer
