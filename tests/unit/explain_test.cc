// skb explain: which fields of two records differ, and which factor of a key changed between
// two builds.
#include <gtest/gtest.h>

#include "common/error.h"
#include "common/json_diff.h"
#include "explain/build_explain.h"
#include "explain/record_explain.h"
#include "test_util.h"
#include "tests/support/records.h"

namespace skb::explain {
namespace {
namespace fs = std::filesystem;
using common::Json;
using test::attr;
using test::record;
using test::tensor;

std::vector<std::string> pointers(const std::vector<common::FieldDiff>& d) {
  std::vector<std::string> out;
  for (const auto& f : d) out.push_back(f.pointer);
  return out;
}

TEST(JsonDiff, LeavesByPointerAndAnArrayOfAnotherLengthAsOne) {
  Json a = {{"shape", {2, 3}}, {"dims", {1, 2}}, {"a/b", 1}, {"gone", true}};
  Json b = {{"shape", {2, 4}}, {"dims", {1, 2, 3}}, {"a/b", 2}, {"new", false}};
  auto d = common::diff_json(a, b);
  EXPECT_EQ(pointers(d), (std::vector<std::string>{"/a~1b", "/dims", "/gone", "/new", "/shape/1"}));
  EXPECT_FALSE(d[3].in_a);
  EXPECT_FALSE(d[2].in_b);
  EXPECT_EQ(common::show_value(d[4].a, true) + " " + common::show_value(d[4].b, true), "3 4");
  EXPECT_TRUE(common::diff_json(a, a).empty());
}

fs::path write_record(const fs::path& dir, const std::string& name, const Json& r) {
  test::write_text(dir / name, r.dump(1));
  return dir / name;
}

TEST(ExplainRecords, EachFieldThatDiffersWithBothValues) {
  fs::path dir = test::scratch_dir();
  auto add = [](std::int64_t n) {
    return record("Add", {tensor("float", {2, n}, 0), tensor("float", {2, n}, 1)}, {tensor("float", {2, n}, 0)});
  };
  RecordExplanation e = explain_records(write_record(dir, "a.json", add(2048)), write_record(dir, "b.json", add(2047)));
  EXPECT_FALSE(e.same);
  EXPECT_TRUE(e.same_dynamic);
  EXPECT_EQ(pointers(e.differences),
            (std::vector<std::string>{"/inputs/0/shape/1", "/inputs/1/shape/1", "/outputs/0/shape/1"}));
  std::string text = record_text(e);
  EXPECT_NE(text.find("different kernels: 3 fields of the signature differ:\n  /inputs/0/shape/1: 2048 vs 2047\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("they share one dynamic kernel"), std::string::npos) << text;
  Json j = record_json(e);
  EXPECT_EQ(j["differences"][0], Json({{"pointer", "/inputs/0/shape/1"}, {"a", 2048}, {"b", 2047}}));

  RecordExplanation same = explain_records(dir / "a.json", write_record(dir, "copy.json", add(2048)));
  EXPECT_TRUE(same.same);
  EXPECT_TRUE(same.differences.empty());
  EXPECT_EQ(same.key_a, same.key_b);
}

TEST(ExplainRecords, AnAttrIsNamedAndADtypeShown) {
  fs::path dir = test::scratch_dir();
  auto softmax = [](const std::string& dtype, Json axes) {
    return record("SoftmaxV2", {tensor(dtype, {3, 9}, 0)}, {tensor(dtype, {3, 9}, 0)},
                  {attr("axes", 0, "list_int", std::move(axes))});
  };
  RecordExplanation e = explain_records(write_record(dir, "a.json", softmax("float", {-1})),
                                        write_record(dir, "b.json", softmax("float16", {0})));
  EXPECT_FALSE(e.same_dynamic);
  std::string text = record_text(e);
  EXPECT_NE(text.find("  /attrs/0/value/0 (axes): -1 vs 0\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  /inputs/0/dtype: \"float\" vs \"float16\"\n"), std::string::npos) << text;
}

TEST(ExplainRecords, ARecordThatContradictsItsOpIsAnErrorNamingFileAndField) {
  fs::path dir = test::scratch_dir();
  Json bad = record("Add", {tensor("float", {2, 3}, 0), tensor("float", {2, 5}, 1)}, {tensor("float", {2, 3}, 0)});
  fs::path good = write_record(dir, "good.json", record("Relu", {tensor("float", {4}, 0)}, {tensor("float", {4}, 0)}));
  try {
    explain_records(good, write_record(dir, "bad.json", bad));
    FAIL() << "explained a record whose shapes contradict its op";
  } catch (const common::Error& e) {
    std::string what = e.what();
    EXPECT_EQ(what.rfind((dir / "bad.json").string() + ": /inputs/", 0), 0u) << what;
  }
}

generator::KeyFactors factors() {
  generator::KeyFactors f;
  f.identify = "c++ (Debian 12.2.0-14) 12.2.0\nCopyright";
  f.flags = {"-O3", "-fPIC"};
  f.command = {"{compiler}", "{flags}", "-o", "{out}", "{src}"};
  f.suffix = ".so";
  f.entry = "skb_kernel";
  f.headers = {{"skb_kernel.h", std::string(64, 'a')}, {"skb_dtypes.h", std::string(64, 'b')}};
  f.templates = {{"Add", {"binary.cc", std::string(64, 'c')}}, {"Relu", {"unary.cc", std::string(64, 'd')}}};
  return f;
}

KernelSet set_of(const generator::KeyFactors& f, std::vector<KernelSet::Kernel> kernels) {
  KernelSet s;
  s.where = "build";
  s.identity = f.identity();
  s.factors = f;
  s.kernels = std::move(kernels);
  return s;
}

TEST(ExplainBuilds, TheFactorThatChangedIsNamed) {
  generator::KeyFactors a = factors(), b = factors();
  b.flags = {"-O2", "-fPIC"};
  b.headers["skb_kernel.h"] = std::string(64, 'e');
  b.identify = "c++ (Debian 13.1.0-1) 13.1.0\nCopyright";
  EXPECT_EQ(factor_changes(a, b),
            (std::vector<std::string>{"compiler: \"c++ (Debian 12.2.0-14) 12.2.0\" → \"c++ (Debian 13.1.0-1) 13.1.0\"",
                                      "flags: -O3 removed, -O2 added", "header skb_kernel.h: its bytes changed"}));
  BuildExplanation e = explain_builds(set_of(a, {{"Add_1", "Add", "static", "sigA"}, {"Relu_1", "Relu", "static", "sigR"}}),
                                      set_of(b, {{"Add_2", "Add", "static", "sigA"}, {"Relu_9", "Relu", "static", "sigX"}}));
  ASSERT_EQ(e.kernels.size(), 4u);
  EXPECT_EQ(e.in_both, 0u);
  EXPECT_EQ(e.kernels[0].counterpart, "Add_2");
  EXPECT_EQ(e.kernels[0].cause, "toolchain");
  EXPECT_EQ(e.kernels[0].factors.size(), 3u);
  EXPECT_EQ(e.kernels[1].cause, "records");  // no call of b has Relu_1's signature
  EXPECT_EQ(e.kernels[3].cause, "records");
  std::string text = build_text(e);
  EXPECT_NE(text.find("  a Add_1 = b Add_2: compiler:"), std::string::npos) << text;
  EXPECT_EQ(build_json(e)["same"], false);
}

TEST(ExplainBuilds, ATemplateIsAFactorOfItsOwnOpOnly) {
  generator::KeyFactors a = factors(), b = factors();
  b.templates["Add"].second = std::string(64, 'f');
  BuildExplanation e = explain_builds(set_of(a, {{"Add_1", "Add", "static", "sigA"}, {"Relu_1", "Relu", "static", "sigR"}}),
                                      set_of(b, {{"Add_2", "Add", "static", "sigA"}, {"Relu_1", "Relu", "static", "sigR"}}));
  EXPECT_TRUE(e.toolchain_changes.empty());
  EXPECT_EQ(e.in_both, 1u);
  ASSERT_EQ(e.kernels.size(), 2u);
  EXPECT_EQ(e.kernels[0].factors, (std::vector<std::string>{"template binary.cc: its bytes changed"}));
  EXPECT_TRUE(explain_builds(set_of(a, {{"Add_1", "Add", "static", "sigA"}}), set_of(a, {{"Add_1", "Add", "static", "sigA"}}))
                  .kernels.empty());
}

TEST(ExplainBuilds, ABuildFolderThatIsNotOneIsNamed) {
  fs::path dir = test::scratch_dir();
  EXPECT_THROW(read_build(dir), common::Error);
  test::write_text(dir / "plan.json", R"({"toolchain_identity": "x", "kernels": [{"name": "../x"}]})");
  try {
    read_build(dir);
    FAIL();
  } catch (const common::Error& e) {
    EXPECT_NE(std::string(e.what()).find("plan.json: /kernels/0/"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace skb::explain
