#include "packager/ninja_program.h"

#include <gtest/gtest.h>

namespace skb::packager {
namespace {

TEST(NinjaProgram, QuietIsTakenFromNinja1Point11) {
  EXPECT_FALSE(ninja_takes_quiet("1.10.2\n"));
  EXPECT_FALSE(ninja_takes_quiet("1.10.1.git\n"));
  EXPECT_FALSE(ninja_takes_quiet("1.9.0"));
  EXPECT_TRUE(ninja_takes_quiet("1.11.1\n"));
  EXPECT_TRUE(ninja_takes_quiet("1.12.1.git"));
  EXPECT_TRUE(ninja_takes_quiet("2.0.0"));
  EXPECT_FALSE(ninja_takes_quiet("ninja: unknown option"));
  EXPECT_FALSE(ninja_takes_quiet(""));
  EXPECT_FALSE(ninja_takes_quiet("1"));
}

}  // namespace
}  // namespace skb::packager
