#include "common/text.h"

#include <gtest/gtest.h>

namespace skb::common {
namespace {
using Lines = std::vector<std::string_view>;

TEST(Lines, ALastLineWithoutItsNewlineCountsAndAFinalNewlineAddsNoEmptyLine) {
  EXPECT_EQ(lines("a\nb"), (Lines{"a", "b"}));
  EXPECT_EQ(lines("a\nb\n"), (Lines{"a", "b"}));
  EXPECT_EQ(lines("a\n\nb\n"), (Lines{"a", "", "b"}));
  EXPECT_EQ(lines("\n"), (Lines{""}));
  EXPECT_TRUE(lines("").empty());
  EXPECT_EQ(lines("a\r\n"), (Lines{"a\r"})) << "a carriage return is the caller's to trim";
}

}  // namespace
}  // namespace skb::common
