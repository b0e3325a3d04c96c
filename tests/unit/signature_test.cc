#include <gtest/gtest.h>

#include <functional>
#include <set>

#include "opmodel/op_record.h"
#include "test_util.h"

namespace skb::opmodel {
namespace {
using common::Json;
using test::valid_record;

std::string sig(const Json& d) { return canonical_signature(parse_op_record(d)); }

TEST(Signature, IgnoresWhatDoesNotMakeADifferentKernel) {
  Json base = valid_record();
  Json d = base;
  d["bin_type"] = 1;
  d["bin_info"] = "dynamic";
  d["tune_mode"] = "static_kernel";
  d["inputs"][0]["name"] = "other";
  d["inputs"][0]["origin_shape"] = {6};
  d["inputs"][0]["origin_format"] = "NCHW";
  EXPECT_EQ(sig(base), sig(d));
}

TEST(Signature, KeyOrderAndWhitespaceDoNotMatter) {
  std::string a = valid_record().dump();
  std::string b = valid_record().dump(7);
  EXPECT_EQ(sig(common::parse_json(a)), sig(common::parse_json(b)));
}

TEST(Signature, FloatSpellingDoesNotMatter) {
  Json a = valid_record(), b = valid_record();
  a["attrs"] = {{{"name", "epsilon"}, {"dtype", "float"}, {"index", 0}, {"value", 0.00001}}};
  b["attrs"] = {{{"name", "epsilon"}, {"dtype", "float32"}, {"index", 0}, {"value", 1e-5}}};
  EXPECT_EQ(sig(a), sig(b));
}

TEST(Signature, EveryFieldThatMakesADifferentKernelChangesIt) {
  const std::string base = sig(valid_record());
  std::vector<std::pair<const char*, std::function<void(Json&)>>> changes = {
      {"op_type", [](Json& d) { d["op_type"] = "Sub"; }},
      {"dtype", [](Json& d) { d["inputs"][0]["dtype"] = "float16"; }},
      {"format", [](Json& d) { d["inputs"][0]["format"] = "NCHW"; }},
      {"shape",
       [](Json& d) {
         d["inputs"][1]["shape"] = {3, 2};
       }},
      {"output shape",
       [](Json& d) {
         d["outputs"][0]["shape"] = {2, 4};
       }},
      {"view",
       [](Json& d) {
         d["inputs"][0]["is_view"] = true;
         d["inputs"][0]["stride"] = {3, 1};
         d["inputs"][0]["offset"] = 0;
       }},
      {"view offset",
       [](Json& d) {
         d["inputs"][0]["is_view"] = true;
         d["inputs"][0]["stride"] = {3, 1};
         d["inputs"][0]["offset"] = 5;
       }},
      {"value depend",
       [](Json& d) {
         d["inputs"][1]["value_depend"] = true;
         d["inputs"][1]["const_data"] = {1, 2};
       }},
      {"null slot", [](Json& d) { d["inputs"].push_back(nullptr); }},
      {"attr",
       [](Json& d) {
         d["attrs"] = {{{"name", "alpha"}, {"dtype", "float"}, {"index", 0}, {"value", 1.5}}};
       }},
      {"deterministic", [](Json& d) { d["deterministic"] = "true"; }},
      {"deterministic level", [](Json& d) { d["deterministic_level"] = 1; }},
      {"impl mode", [](Json& d) { d["impl_mode"] = "high_precision"; }},
      {"core counts", [](Json& d) { d["platform_info"]["vector_core_cnt"] = 40; }},
      {"extra params",
       [](Json& d) {
         d["extra_params"] = {{"group", "hccl_world"}};
       }},
      {"sub format", [](Json& d) { d["inputs"][0]["sub_format"] = 1; }},
  };
  std::set<std::string> seen = {base};
  for (auto& [what, change] : changes) {
    Json d = valid_record();
    change(d);
    std::string s = sig(d);
    EXPECT_NE(s, base) << what;
    EXPECT_TRUE(seen.insert(s).second) << what << " collides with another change";
  }
}

TEST(Signature, ConstDataValuesMatter) {
  Json a = valid_record(), b = valid_record();
  for (Json* d : {&a, &b}) (*d)["inputs"][1]["value_depend"] = true;
  a["inputs"][1]["const_data"] = {0, 2, 1};
  b["inputs"][1]["const_data"] = {0, 1, 2};
  EXPECT_NE(sig(a), sig(b));
}

}  // namespace
}  // namespace skb::opmodel
