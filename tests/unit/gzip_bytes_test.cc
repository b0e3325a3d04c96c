#include "packager/format/gzip_bytes.h"

#include <gtest/gtest.h>

#include <string>

#include "common/error.h"

namespace skb::packager {
namespace {

TEST(GzipBytes, RoundTripsAndIsTheSameEachTime) {
  std::string text;
  for (int i = 0; i < 10000; ++i) text += "line " + std::to_string(i) + "\n";
  std::string gz = gzip_bytes(text);
  EXPECT_LT(gz.size(), text.size() / 3);
  EXPECT_EQ(gz, gzip_bytes(text));  // no time in the header
  EXPECT_EQ(gunzip_bytes(gz, text.size()), text);
}

TEST(GzipBytes, RefusesWhatIsNotGzipIsDamagedOrTooLarge) {
  std::string text(100000, 'x');
  std::string gz = gzip_bytes(text);
  EXPECT_FALSE(gunzip_bytes(text, 1 << 20));                         // not gzip
  EXPECT_FALSE(gunzip_bytes(gz.substr(0, gz.size() / 2), 1 << 20));  // cut short
  EXPECT_FALSE(gunzip_bytes(gz, text.size() - 1));                   // more than max
  EXPECT_FALSE(gunzip_bytes(gz + gz, 2 * text.size()));              // two members
  EXPECT_EQ(gunzip_bytes(gzip_bytes(""), 1 << 20), "");
}

TEST(GzipBlock, IsOneGzipMemberThatNamesItsLength) {
  std::string text;
  for (int i = 0; i < 20000; ++i) text += std::to_string(i * 7919) + ",";
  std::string block = gzip_block(text, 6);
  EXPECT_EQ(gzip_block_length(block), block.size());
  EXPECT_EQ(gunzip_bytes(block, text.size()), text);  // any gzip reader reads it
  EXPECT_EQ(block, gzip_block(text, 6));
  EXPECT_NE(gzip_block(text, 9), gzip_block(text, 1));  // the level is used
  EXPECT_EQ(gunzip_bytes(gzip_block("", 6), 1), "");
}

TEST(GzipBlock, LengthIsReadOnlyFromABlockHeader) {
  std::string block = gzip_block(std::string(5000, 'y'), 6);
  EXPECT_FALSE(gzip_block_length(gzip_bytes("a plain member, no extra field")));
  EXPECT_FALSE(gzip_block_length(block.substr(0, kGzipBlockHeader - 1)));  // too short to tell
  std::string other = block;
  other[12] = 'X';  // another subfield
  EXPECT_FALSE(gzip_block_length(other));
  other = block;
  other[3] |= 8;  // a name follows: not our header
  EXPECT_FALSE(gzip_block_length(other));
  other = block;
  other[16] = 3, other[17] = other[18] = other[19] = 0;  // shorter than any block
  EXPECT_FALSE(gzip_block_length(other));
  std::uint32_t huge = 2 * kMaxGzipBlockBytes + 1;  // longer than any block: nothing is allocated for it
  for (int i = 0; i < 4; ++i) other[16 + i] = static_cast<char>((huge >> (8 * i)) & 0xff);
  EXPECT_FALSE(gzip_block_length(other));
  std::string incompressible;  // the longest a block of kMaxGzipBlockBytes can be
  for (std::uint32_t x = 1; incompressible.size() < kMaxGzipBlockBytes; x = x * 1664525 + 1013904223)
    incompressible += static_cast<char>(x >> 24);
  block = gzip_block(incompressible, 1);
  EXPECT_EQ(gzip_block_length(block), block.size());
}

TEST(GzipBlock, RefusesMoreThanABlockHolds) {
  EXPECT_THROW(gzip_block(std::string(kMaxGzipBlockBytes + 1, 'z'), 1), common::Error);
}

}  // namespace
}  // namespace skb::packager
