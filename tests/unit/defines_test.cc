#include <gtest/gtest.h>

#include <algorithm>

#include <filesystem>

#include "common/error.h"
#include "common/fs.h"
#include "opmodel/defines.h"
#include "test_util.h"
#include "tests/support/records.h"

namespace skb::opmodel {
namespace {
using common::Json;

bool has(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

TEST(Defines, StaticKernelGetsShapesAttrsAndConstData) {
  Json d = test::valid_record();
  d["inputs"].push_back(nullptr);
  d["inputs"][1]["value_depend"] = true;
  d["inputs"][1]["const_data"] = {1, 0};
  d["attrs"] = {{{"name", "axes"}, {"dtype", "list_int"}, {"index", 0}, {"value", {-1, 2}}},
                {{"name", "eps"}, {"dtype", "float"}, {"index", 1}, {"value", 1}},
                {{"name", "mode"}, {"dtype", "str"}, {"index", 2}, {"value", "tanh"}},
                {{"name", "note"}, {"dtype", "str"}, {"index", 3}, {"value", "a b->c"}},
                {{"name", "flag"}, {"dtype", "bool"}, {"index", 4}, {"value", true}}};
  auto defs = kernel_defines(parse_op_record(d), Variant::kStatic);
  EXPECT_TRUE(std::is_sorted(defs.begin(), defs.end()));
  for (const char* want :
       {"-DSKB_STATIC=1", "-DSKB_OP=Add", "-DSKB_NUM_INPUTS=3", "-DSKB_IN0_SHAPE=2,3", "-DSKB_IN0_DTYPE=float",
        "-DSKB_IN2_NULL=1", "-DSKB_IN1_CONST=1,0", "-DSKB_ATTR_axes=-1,2", "-DSKB_ATTR_axes_LEN=2",
        "-DSKB_ATTR_eps=1.0", "-DSKB_ATTR_mode_IS_tanh=1", "-DSKB_ATTR_flag=1"})
    EXPECT_TRUE(has(defs, want)) << want;
  for (const auto& def : defs) {
    EXPECT_EQ(def.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.,+-="),
              std::string::npos)
        << def;
  }
}

TEST(Defines, DynamicKernelGetsNoShapes) {
  auto defs = kernel_defines(parse_op_record(test::valid_record()), Variant::kDynamic);
  EXPECT_TRUE(has(defs, "-DSKB_DYNAMIC=1"));
  EXPECT_TRUE(has(defs, "-DSKB_IN1_DTYPE=float"));
  for (const auto& def : defs) EXPECT_EQ(def.find("SHAPE"), std::string::npos) << def;
}

TEST(Defines, ATensorListGetsItsCountEachTensorAndAllItsShapesInOne) {
  Json r = test::record(
      "ConcatD", {Json::array({test::tensor("float16", {2, 3}, 0), test::tensor("float16", {2, 5}, 1)})},
      {test::tensor("float16", {2, 8}, 0)}, {test::attr("concat_dim", 0, "int", 1), test::attr("N", 1, "int", 2)});
  auto defs = kernel_defines(parse_op_record(r), Variant::kStatic);
  for (const char* want : {"-DSKB_IN0_COUNT=2", "-DSKB_IN0_0_SHAPE=2,3", "-DSKB_IN0_1_SHAPE=2,5",
                           "-DSKB_IN0_1_DTYPE=float16", "-DSKB_IN0_SHAPES=2,2,3,2,2,5", "-DSKB_ATTR_concat_dim=1"})
    EXPECT_TRUE(has(defs, want)) << want;
  auto dynamic = kernel_defines(parse_op_record(r), Variant::kDynamic);
  EXPECT_TRUE(has(dynamic, "-DSKB_IN0_COUNT=2"));
  for (const auto& def : dynamic) EXPECT_EQ(def.find("SHAPE"), std::string::npos) << def;
  r["inputs"][0] = Json::array();
  for (const auto& def : kernel_defines(parse_op_record(r), Variant::kStatic))
    EXPECT_EQ(def.find("SKB_IN0_SHAPE"), std::string::npos) << def;
}

TEST(Defines, DynamicSignatureIgnoresShapes) {
  Json a = test::valid_record(), b = test::valid_record();
  b["inputs"][0]["shape"] = {7, 7};
  EXPECT_EQ(dynamic_signature(parse_op_record(a)), dynamic_signature(parse_op_record(b)));
  b["inputs"][0]["dtype"] = "float16";
  EXPECT_NE(dynamic_signature(parse_op_record(a)), dynamic_signature(parse_op_record(b)));
}

}  // namespace
}  // namespace skb::opmodel

namespace skb::opmodel {
namespace {

// The compile step makes a static kernel's -D macros from its .info: for every record of the
// example dump and of the fuzz corpus, they are exactly the macros made from the record, and the
// signature read back is the same signature.
TEST(Defines, TheMacrosMadeFromASignatureAreThoseOfItsRecord) {
  std::size_t n = 0;
  for (const auto& [path, r] : test::valid_records({SKB_EXAMPLES, SKB_FUZZ_CORPUS "/op_record"})) {
    std::string sig = canonical_signature(r);
    OpRecord back = record_from_signature(common::parse_json(sig));
    EXPECT_EQ(canonical_signature(back), sig) << path;
    EXPECT_EQ(kernel_defines(back, Variant::kStatic), kernel_defines(r, Variant::kStatic)) << path;
    EXPECT_EQ(separate_lists(kernel_defines(back, Variant::kStatic), "\\,"),
              separate_lists(kernel_defines(r, Variant::kStatic), "\\,"));
    ++n;
  }
  EXPECT_GT(n, 100u);
}

TEST(Defines, AnInfoThatIsNotASignatureIsAFieldError) {
  EXPECT_THROW(record_from_signature(Json::parse(R"({"op_type": "Add"})")), common::FieldError);
  EXPECT_THROW(record_from_signature(Json::parse(R"([1, 2])")), common::FieldError);
}

}  // namespace
}  // namespace skb::opmodel
