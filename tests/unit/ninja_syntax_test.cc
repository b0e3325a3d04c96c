#include <gtest/gtest.h>

#include "common/error.h"
#include "generator/ninja_syntax.h"

namespace skb::generator {
namespace {

TEST(NinjaSyntax, PathEscapesDollarSpaceAndColon) {
  EXPECT_EQ(ninja_path("/a b/c:d/$e"), "/a$ b/c$:d/$$e");
  EXPECT_EQ(ninja_path("kernel_meta/Add_1.so"), "kernel_meta/Add_1.so");
}

TEST(NinjaSyntax, ShellQuoteLeavesSafeWordsAlone) {
  EXPECT_EQ(shell_quote("-DSKB_IN0_SHAPE=2,3"), "-DSKB_IN0_SHAPE=2,3");
  EXPECT_EQ(shell_quote("a b"), "'a b'");
  EXPECT_EQ(shell_quote("it's"), "'it'\\''s'");
  EXPECT_EQ(shell_quote(""), "''");
}

TEST(NinjaSyntax, CommandQuotesThenEscapesDollars) {
  EXPECT_EQ(ninja_command({"/usr/bin/c++", "-I/my dir", "$in", "$$x", "-o", "@OUT@", "$out.rsp", "$a;b"}),
            "/usr/bin/c++ '-I/my dir' $in '$$$$x' -o @OUT@ $out.rsp '$$a;b'");
  // Words of Ninja variables joined by plain text stay as they are; anything else is quoted.
  EXPECT_EQ(ninja_command({"$k/$n.info", "$k/$n.info;x", "$k/$", "-L$k/lib", "$1x"}),
            "$k/$n.info '$$k/$$n.info;x' '$$k/$$' '-L$$k/lib' $1x");
}

TEST(NinjaSyntax, ALineBreakIsRefusedNotWritten) {
  // "x\nrule pwn" would end the statement and start a rule of the path's own.
  EXPECT_THROW(ninja_path("/dumps/x\nrule pwn\n  command = touch PWNED"), common::Error);
  EXPECT_THROW(ninja_path("/dumps/x\r"), common::Error);
  EXPECT_THROW(ninja_command({"skb-generate", "-p", "/dumps/x\nbuild pwn: phony"}), common::Error);
  try {
    ninja_path("/a\nb");
  } catch (const common::Error& e) {
    EXPECT_NE(std::string(e.what()).find("\"/a\\nb\""), std::string::npos) << e.what();
  }
  EXPECT_EQ(ninja_path("/a\tb"), "/a\tb");
}

TEST(NinjaSyntax, APipeInAPathIsRefusedAndQuotedInACommand) {
  // "a|b" would end the path at '|' and read "b" as an implicit input; ninja has no escape for it.
  EXPECT_THROW(ninja_path("/dumps/pipe|dir/Add_1.json"), common::Error);
  EXPECT_EQ(ninja_command({"skb-generate", "-p", "/dumps/pipe|dir"}), "skb-generate -p '/dumps/pipe|dir'");
}

}  // namespace
}  // namespace skb::generator
