// runtime::answer: the one account of what skb_runtime_find answers for a call, which
// skb_runtime_explain and skb coverage both give.
#include "runtime/answer.h"

#include <gtest/gtest.h>

#include "common/sha256.h"
#include "opmodel/defines.h"
#include "tests/support/records.h"

namespace skb::runtime {
namespace {
using common::Json;
using test::attr;
using test::record;
using test::tensor;

opmodel::OpRecord add(std::int64_t n, const std::string& format = "ND") {
  return opmodel::parse_op_record(record("Add",
                                         {tensor("float", {n, 16}, 0, format), tensor("float", {n, 16}, 1, format)},
                                         {tensor("float", {n, 16}, 0, format)}));
}

IndexEntry entry(const std::string& key, const std::string& name, const std::string& variant) {
  IndexEntry e;
  e.op_type = "Add";
  e.key = key;
  e.kernel_name = name;
  e.package = "p1";
  e.variant = variant;
  e.bin = "/nonexistent/" + name + ".so";  // its .info cannot be read: no nearest kernel
  e.launch.device = "host";
  return e;
}

class Answers : public ::testing::Test {
 protected:
  void SetUp() override {
    index_.soc = "host";
    static_key_ = common::sha256_hex(opmodel::canonical_signature(add(4)));
    index_.by_key[static_key_] = entry(static_key_, "Add_static", "static");
    std::string dynamic_key = common::sha256_hex(opmodel::dynamic_signature(add(4)));
    index_.by_key[dynamic_key] = entry(dynamic_key, "Add_dynamic", "dynamic");
  }
  Answer of(const opmodel::OpRecord& call) { return answer(index_, call, signatures_); }

  Index index_;
  std::string static_key_;
  InstalledSignatures signatures_;
};

TEST_F(Answers, AStaticKernelIsNamedWithItsPackage) {
  Answer a = of(add(4));
  EXPECT_EQ(a.kind, Answer::Kind::kStatic);
  EXPECT_EQ(a.why, "Add: static kernel Add_static (package p1)");
}

TEST_F(Answers, AWithheldStaticKernelLeavesTheCallToTheDynamicKernelAndSaysWhy) {
  index_.withheld[static_key_] = "measured 2.0x the time of the dynamic kernel";
  Answer a = of(add(4));
  EXPECT_EQ(a.kind, Answer::Kind::kDynamic);
  EXPECT_EQ(a.why,
            "Add: measured 2.0x the time of the dynamic kernel; the dynamic kernel of its op and dtypes serves it");
}

TEST_F(Answers, AnotherShapeIsServedByTheDynamicKernel) {
  Answer a = of(add(5));
  EXPECT_EQ(a.kind, Answer::Kind::kDynamic);
  EXPECT_EQ(a.why.rfind("Add: no static kernel of this op is installed for SoC host", 0), 0u) << a.why;
  EXPECT_NE(a.why.find("; the dynamic kernel of its op and dtypes serves it"), std::string::npos) << a.why;
}

TEST_F(Answers, ALayoutTheDynamicKernelCannotComputeHasNoKernelAndSaysWhy) {
  Answer a = of(add(1, "FRACTAL_NZ"));
  EXPECT_EQ(a.kind, Answer::Kind::kNone);
  EXPECT_NE(a.why.find("; the dynamic kernel of its op and dtypes cannot serve it: format FRACTAL_NZ"),
            std::string::npos)
      << a.why;
}

TEST_F(Answers, AnAttributeTheTemplatesDoNotComputeIsRefusedEvenWithItsStaticKernel) {
  Json r = record("Add", {tensor("float", {4, 16}, 0), tensor("float", {4, 16}, 1)}, {tensor("float", {4, 16}, 0)},
                  {attr("alpha", 0, "float", 0.5)});
  Answer a = of(opmodel::parse_op_record(r));
  EXPECT_EQ(a.kind, Answer::Kind::kNone);
  EXPECT_EQ(a.why.rfind("Add: refused as unsupported: attr alpha", 0), 0u) << a.why;
}

TEST_F(Answers, WithoutADynamicKernelTheMissAloneIsTold) {
  index_.by_key.erase(common::sha256_hex(opmodel::dynamic_signature(add(4))));
  Answer a = of(add(5));
  EXPECT_EQ(a.kind, Answer::Kind::kNone);
  EXPECT_EQ(a.why, "Add: no static kernel of this op is installed for SoC host");
}

// ConcatD of n float16 tensors, and an index of its static kernel for n tensors and its dynamic
// kernel, both cuda kernels: their launch carries 8 tensors a side at most; where
// skb_runtime_find refuses the call, so does the answer.
opmodel::OpRecord concat_of(int n) {
  Json xs = Json::array();
  for (int i = 0; i < n; ++i) xs.push_back(tensor("float16", {2, 3}, i));
  return opmodel::parse_op_record(
      record("ConcatD", {xs}, {tensor("float16", {2, 3 * n})}, {attr("concat_dim", 0, "int", 1)}));
}

Index cuda_concat_index(int n = 9) {
  Index index;
  index.soc = "sm_90";
  for (bool dynamic : {false, true}) {
    std::string key = common::sha256_hex(dynamic ? opmodel::dynamic_signature(concat_of(n))
                                                 : opmodel::canonical_signature(concat_of(n)));
    IndexEntry e = entry(key, dynamic ? "ConcatD_dynamic" : "ConcatD_static", dynamic ? "dynamic" : "static");
    e.op_type = "ConcatD";
    e.launch.device = "cuda";
    e.launch.block = 256;
    e.launch.max_grid = 4096;
    index.by_key[key] = e;
  }
  return index;
}

TEST(CudaAnswers, AStaticKernelWhoseLaunchCannotCarryTheCallServesNothing) {
  Index index = cuda_concat_index();
  InstalledSignatures signatures;
  Answer a = answer(index, concat_of(9), signatures);
  EXPECT_EQ(a.kind, Answer::Kind::kNone);
  EXPECT_EQ(a.why.rfind("ConcatD: static kernel ConcatD_static (package p1), which cannot run it: a cuda kernel "
                        "cannot be given more than 8 input tensors",
                        0),
            0u)
      << a.why;
}

TEST(CudaAnswers, ADynamicKernelWhoseLaunchCannotCarryTheCallServesNothing) {
  Index index = cuda_concat_index();
  index.by_key.erase(common::sha256_hex(opmodel::canonical_signature(concat_of(9))));
  InstalledSignatures signatures;
  Answer a = answer(index, concat_of(9), signatures);
  EXPECT_EQ(a.kind, Answer::Kind::kNone);
  EXPECT_NE(a.why.find("; the dynamic kernel of its op and dtypes cannot serve it: a cuda kernel cannot be given "
                       "more than 8 input tensors"),
            std::string::npos)
      << a.why;
  // Eight tensors they carry.
  Index eight = cuda_concat_index(8);
  EXPECT_EQ(answer(eight, concat_of(8), signatures).kind, Answer::Kind::kStatic);
  eight.by_key.erase(common::sha256_hex(opmodel::canonical_signature(concat_of(8))));
  EXPECT_EQ(answer(eight, concat_of(8), signatures).kind, Answer::Kind::kDynamic);
}

}  // namespace
}  // namespace skb::runtime
