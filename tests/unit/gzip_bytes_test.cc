#include "packager/install/gzip_bytes.h"

#include <gtest/gtest.h>

#include <string>

namespace skb::installer {
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
  EXPECT_FALSE(gunzip_bytes(gzip_bytes(""), 1 << 20));               // empty: no entry
}

}  // namespace
}  // namespace skb::installer
