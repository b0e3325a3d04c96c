#include <fmt/format.h>
#include <gtest/gtest.h>

#include "common/error.h"
#include "opmodel/op_record.h"
#include "test_util.h"

namespace skb::opmodel {
namespace {
using common::FieldError;
using common::Json;
using test::valid_record;

// The pointer and message of the error that parsing doc raises, or "" when it parses.
std::string error_of(const Json& doc) {
  try {
    parse_op_record(doc);
    return "";
  } catch (const FieldError& e) {
    return e.describe();
  }
}

std::string error_of_text(const std::string& text) {
  try {
    parse_op_record(common::parse_json(text));
    return "";
  } catch (const FieldError& e) {
    return e.describe();
  }
}

TEST(OpRecord, ValidRecordParses) {
  OpRecord r = parse_op_record(valid_record());
  EXPECT_EQ(r.op_type, "Add");
  ASSERT_EQ(r.inputs.size(), 2u);
  EXPECT_EQ(r.inputs[1].tensors[0].shape, (std::vector<std::int64_t>{2, 3}));
  EXPECT_EQ(r.deterministic, "false");
}

TEST(OpRecord, NegativeDimensionIsRejected) {
  Json d = valid_record();
  d["inputs"][1]["shape"][1] = -1;
  EXPECT_EQ(error_of(d), "/inputs/1/shape/1: expected an integer in [0, 2147483647], found -1");
}

TEST(OpRecord, MissingFieldIsNamed) {
  Json d = valid_record();
  d["outputs"][0].erase("dtype");
  EXPECT_EQ(error_of(d), "/outputs/0/dtype: expected this field, it is missing");
}

TEST(OpRecord, WrongTypeIsNamed) {
  Json d = valid_record();
  d["inputs"][0]["is_view"] = "no";
  EXPECT_EQ(error_of(d), "/inputs/0/is_view: expected true or false, found a string");
}

TEST(OpRecord, OpTypeWithPathOrNinjaCharactersIsRejected) {
  for (const char* bad : {"../Add", "Add/x", "Add x", "Add$x", "Add:x", "..", "", "1Add", "Add\n"}) {
    Json d = valid_record();
    d["op_type"] = bad;
    EXPECT_NE(error_of(d).find("/op_type: expected an op type"), std::string::npos) << bad;
  }
}

TEST(OpRecord, TensorNameWithTraversalIsRejected) {
  Json d = valid_record();
  d["inputs"][0]["name"] = "../x";
  EXPECT_NE(error_of(d).find("/inputs/0/name"), std::string::npos);
}

TEST(OpRecord, DtypeAndFormatMustBeTokens) {
  Json d = valid_record();
  d["inputs"][0]["dtype"] = "float; rm -rf";
  EXPECT_NE(error_of(d).find("/inputs/0/dtype: expected a dtype"), std::string::npos);
  d = valid_record();
  d["inputs"][0]["format"] = "nd";
  EXPECT_NE(error_of(d).find("/inputs/0/format: expected a format"), std::string::npos);
}

TEST(OpRecord, TooManyElementsIsRejected) {
  Json d = valid_record();
  d["inputs"][0]["shape"] = {2147483647, 2147483647, 4};
  EXPECT_EQ(error_of(d), "/inputs/0/shape: expected a shape of at most 2^40 elements");
}

TEST(OpRecord, RankAboveEightIsRejected) {
  Json d = valid_record();
  d["inputs"][0]["shape"] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
  EXPECT_EQ(error_of(d), "/inputs/0/shape: expected at most 8 elements, found 9");
}

TEST(OpRecord, ViewNeedsStrideOfSameRank) {
  Json d = valid_record();
  d["inputs"][0]["is_view"] = true;
  EXPECT_EQ(error_of(d), "/inputs/0/stride: expected this field, it is missing");
  d["inputs"][0]["stride"] = {3};
  d["inputs"][0]["offset"] = 0;
  EXPECT_EQ(error_of(d), "/inputs/0/stride: expected 2 strides, one per dimension of shape");
}

TEST(OpRecord, ValueDependNeedsConstData) {
  Json d = valid_record();
  d["inputs"][1]["value_depend"] = true;
  EXPECT_EQ(error_of(d), "/inputs/1/const_data: expected this field, it is missing");
  d["inputs"][1]["const_data"] = "nothing";
  EXPECT_EQ(error_of(d), "/inputs/1/const_data: expected an array of numbers or \"NULL\", found a string");
  d["inputs"][1]["const_data"] = "NULL";
  EXPECT_EQ(error_of(d), "");
}

TEST(OpRecord, AttrDtypeAndValueAreChecked) {
  Json d = valid_record();
  d["attrs"] = {{{"name", "axes"}, {"dtype", "listInt"}, {"index", 0}, {"value", {1, "2"}}}};
  EXPECT_EQ(error_of(d),
            "/attrs/0/value/1: expected an integer in [-9223372036854775808, 9223372036854775807], found a string");
  d["attrs"][0]["dtype"] = "tensor";
  EXPECT_NE(error_of(d).find("/attrs/0/dtype: expected an attr dtype"), std::string::npos);
}

TEST(OpRecord, StringAttrWithShellOrNinjaMetacharactersIsRejected) {
  Json d = valid_record();
  d["attrs"] = {{{"name", "equation"}, {"dtype", "str"}, {"index", 0}, {"value", "bij,bjk->bik"}}};
  EXPECT_EQ(error_of(d), "");
  for (const char* bad : {"$(id)", "a`b`", "a;b", "a|b", "a&b", "a<b", "a\\b", "a\"b", "a'b"}) {
    d["attrs"][0]["value"] = bad;
    EXPECT_EQ(error_of(d),
              "/attrs/0/value: expected a string without shell or Ninja metacharacters ($ ` \\ \" ' ; | & <)")
        << bad;
  }
}

TEST(OpRecord, AKeyGivenTwiceIsRejected) {
  EXPECT_EQ(error_of_text(R"({"op_type":"Add","op_type":"Mul"})"),
            "/: expected each key once per object, \"op_type\" is given twice");
  EXPECT_EQ(error_of_text(R"([{"a":1},{"a":2}])"), "/: expected an object, found an array");
  // the same key at other levels is no duplicate; a nested duplicate is
  EXPECT_NO_THROW(common::parse_json(R"({"x":{"a":1,"b":{"a":2}},"a":3})"));
  EXPECT_EQ(error_of_text(R"({"x":{"a":1,"a":2}})"), "/: expected each key once per object, \"a\" is given twice");
  // objects with many keys (searched through a hash set past 16 keys)
  std::string many = "{";
  for (int i = 0; i < 40; ++i) many += fmt::format("\"k{}\":{},", i, i);
  EXPECT_NO_THROW(common::parse_json(many + "\"last\":0}"));
  EXPECT_EQ(error_of_text(many + "\"k33\":0}"), "/: expected each key once per object, \"k33\" is given twice");
}

// A NUL byte ends nlohmann's input: a record followed by one, and anything after it, is refused
// as trailing text is.
TEST(OpRecord, ANulByteIsRefused) {
  std::string text = valid_record().dump();
  EXPECT_EQ(error_of_text(text + std::string(1, '\0')),
            fmt::format("/: expected valid JSON (a NUL byte at byte {})", text.size() + 1));
  EXPECT_EQ(error_of_text(text + std::string(1, '\0') + "xyz"),
            fmt::format("/: expected valid JSON (a NUL byte at byte {})", text.size() + 1));
  EXPECT_NE(error_of_text(text + "xyz"), "");
}

TEST(OpRecord, DeterministicIsAStringNotABool) {
  Json d = valid_record();
  d["deterministic"] = true;
  EXPECT_EQ(error_of(d), "/deterministic: expected a string, found a boolean");
}

TEST(OpRecord, NullSlotIsAllowedOtherScalarsAreNot) {
  Json d = valid_record();
  d["inputs"].push_back(nullptr);
  EXPECT_EQ(error_of(d), "");
  d["inputs"].push_back(3);
  EXPECT_EQ(error_of(d), "/inputs/3: expected a tensor object, an array of tensors, or null, found an integer");
}

TEST(OpRecord, BrokenTextNeverThrowsAnythingElse) {
  EXPECT_EQ(error_of_text(""), "/: expected a JSON document, found an empty file");
  EXPECT_EQ(error_of_text("{\"op_type\": \"Add\""), "/: expected valid JSON (syntax error at byte 18)");
  EXPECT_EQ(error_of_text(std::string(100000, '[') + std::string(100000, ']')),
            "/: expected JSON nested at most 32 levels deep");
  EXPECT_EQ(error_of_text("{\"x\": 1e999}"), "/: expected numbers within the range of a double");
  EXPECT_EQ(error_of_text(std::string("\xff\xfe\x00\x01", 4)), "/: expected valid JSON (syntax error at byte 1)");
  EXPECT_EQ(error_of_text("[]"), "/: expected an object, found an array");
}

TEST(OpRecord, HugeIntegerIsRejectedNotWrapped) {
  EXPECT_EQ(error_of_text(R"({"op_type":"Add","inputs":[{"shape":[18446744073709551615]}]})").substr(0, 16),
            "/inputs/0/name: ");
  Json d = valid_record();
  d["inputs"][0]["shape"] = {18446744073709551615ull};
  EXPECT_EQ(error_of(d), "/inputs/0/shape/0: expected an integer in [0, 2147483647], found 18446744073709551615");
}

}  // namespace
}  // namespace skb::opmodel
