#include "packager/install/rope.h"

#include <gtest/gtest.h>

#include <string>

namespace skb::installer {
namespace {

// Runs of the base join into one part, and so does a literal between two runs when the base has
// those bytes there; anything else stays a part of its own, and the text is always the same.
TEST(Rope, RunsOfItsBaseAndTheLiteralsBetweenThemJoin) {
  Rope r("{\n  a,\n  b,\n  c\n}\n");
  std::string_view base = r.base();
  std::string_view a = base.substr(4, 1), b = base.substr(9, 1), c = base.substr(14, 1);
  r.add("{\n  ");
  r.add(a);
  r.add(",\n  ");  // base has ",\n  " before b: a, the literal and b are one run
  r.add(b);
  r.add(",\n  ");
  r.add(c);
  r.add("\n}\n");
  EXPECT_EQ(r.str(), base);
  EXPECT_TRUE(r.equals(base));
  ASSERT_EQ(r.parts().size(), 2u);  // "{\n  a,\n  b,\n  c" and the literal after the run
  EXPECT_EQ(r.parts()[0], "{\n  a,\n  b,\n  c");

  Rope skip("{\n  a,\n  b,\n  c\n}\n");
  std::string_view sb = skip.base();
  skip.add(sb.substr(4, 1));
  skip.add(",\n  ");
  skip.add(sb.substr(14, 1));  // c after a: the base has ",\n  " before c, but not right after a
  skip.add(skip.keep(std::string(",\n  new")));
  EXPECT_EQ(skip.str(), "a,\n  c,\n  new");
  EXPECT_EQ(skip.size(), skip.str().size());
  EXPECT_EQ(skip.parts().size(), 3u);
  EXPECT_FALSE(skip.equals("a,\n  c,\n  nex"));
  EXPECT_FALSE(skip.equals("a,\n  c"));

  Rope empty;
  empty.add("");
  EXPECT_TRUE(empty.parts().empty());
  EXPECT_TRUE(empty.equals(""));
}

}  // namespace
}  // namespace skb::installer
