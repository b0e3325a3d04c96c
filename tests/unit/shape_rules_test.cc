#include <gtest/gtest.h>

#include <filesystem>

#include "common/error.h"
#include "common/fs.h"
#include "opmodel/shape_rules.h"
#include "tests/support/records.h"

namespace skb::opmodel {
namespace {
using common::Json;
using test::attr;
using test::record;
using test::tensor;
using test::value_tensor;

// "" when the record's shapes agree with its op, else `<pointer>: <message>`.
std::string contradiction(const Json& doc) {
  try {
    check_shapes(parse_op_record(doc));
    return "";
  } catch (const common::FieldError& e) {
    return e.describe();
  }
}

Json matmul(std::vector<std::int64_t> a, std::vector<std::int64_t> b, std::vector<std::int64_t> y, bool ta, bool tb,
            Json bias = nullptr) {
  return record(
      "MatMulV2", {tensor("float16", a, 0), tensor("float16", b, 1), bias, nullptr}, {tensor("float16", y, 0)},
      {attr("transpose_x1", 0, "bool", ta), attr("transpose_x2", 1, "bool", tb), attr("offset_x", 2, "int", 0)});
}

Json batch_matmul(std::vector<std::int64_t> a, std::vector<std::int64_t> b, std::vector<std::int64_t> y, bool ta,
                  bool tb) {
  return record("BatchMatMulV2", {tensor("float16", a, 0), tensor("float16", b, 1), nullptr, nullptr},
                {tensor("float16", y, 0)}, {attr("adj_x1", 0, "bool", ta), attr("adj_x2", 1, "bool", tb)});
}

TEST(ShapeRules, EveryRecordOfTheExampleDumpAgreesWithItsOp) {
  std::size_t checked = 0, unchecked = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(SKB_EXAMPLES)) {
    if (e.path().extension() != ".json") continue;
    OpRecord r = parse_op_record(common::parse_json(common::read_file(e.path(), 1 << 20)));
    EXPECT_NO_THROW((check_shapes(r) ? ++checked : ++unchecked)) << e.path();
  }
  EXPECT_EQ(checked, 99u);  // 24 records in each of 4 folders (2 ranks), plus 3 unseen
  EXPECT_EQ(unchecked, 0u);
}

TEST(ShapeRules, MatMulV2WithTransposeX2AndX2LaidOutAsIfItWereFalseIsRefused) {
  EXPECT_EQ(contradiction(matmul({16, 32}, {128, 32}, {16, 128}, false, true)), "");
  EXPECT_EQ(contradiction(matmul({16, 32}, {32, 96}, {16, 96}, false, true)),
            "/inputs/1/shape: expected [96,32] for MatMulV2 with transpose_x1=false, transpose_x2=true, found [32,96]");
  EXPECT_EQ(contradiction(matmul({32, 16}, {32, 96}, {16, 96}, true, false)), "");
  EXPECT_EQ(
      contradiction(matmul({32, 16}, {32, 96}, {16, 96}, false, false)),
      "/inputs/1/shape: expected [16,96] for MatMulV2 with transpose_x1=false, transpose_x2=false, found [32,96]");
}

TEST(ShapeRules, BatchMatMulV2WithAdjX2AndX2LaidOutAsIfItWereFalseIsRefused) {
  EXPECT_EQ(contradiction(batch_matmul({1, 2, 16, 32}, {1, 2, 48, 32}, {1, 2, 16, 48}, false, true)), "");
  EXPECT_EQ(contradiction(batch_matmul({1, 2, 16, 32}, {1, 2, 32, 48}, {1, 2, 16, 48}, false, true)),
            "/inputs/1/shape: expected [1,2,48,32] for BatchMatMulV2 with adj_x1=false, adj_x2=true, found "
            "[1,2,32,48]");
}

TEST(ShapeRules, MatmulOutputsBatchesAndBiasFollowTheInputs) {
  EXPECT_EQ(contradiction(matmul({16, 32}, {32, 96}, {16, 97}, false, false)),
            "/outputs/0/shape: expected [16,96] for MatMulV2 with transpose_x1=false, transpose_x2=false, found "
            "[16,97]");
  EXPECT_EQ(contradiction(matmul({16, 32}, {32, 96}, {16, 96}, false, false, tensor("float16", {96}, 2))), "");
  EXPECT_EQ(contradiction(matmul({16, 32}, {32, 96}, {16, 96}, false, false, tensor("float16", {32}, 2))),
            "/inputs/2/shape: expected [96] for MatMulV2 with transpose_x1=false, transpose_x2=false, found [32]");
  EXPECT_EQ(contradiction(matmul({2, 16, 32}, {32, 96}, {2, 16, 96}, false, false)),
            "/inputs/0/shape: expected a shape of rank 2 for MatMulV2 with transpose_x1=false, transpose_x2=false, "
            "found [2,16,32]");
  // batch axes broadcast: [4,1] with [3] is [4,3]
  EXPECT_EQ(contradiction(batch_matmul({4, 1, 8, 16}, {3, 16, 8}, {4, 3, 8, 8}, false, false)), "");
  EXPECT_EQ(contradiction(batch_matmul({4, 2, 8, 16}, {3, 16, 8}, {4, 3, 8, 8}, false, false)),
            "/inputs/1/shape: expected batch axes that broadcast with [4,2] for BatchMatMulV2 with adj_x1=false, "
            "adj_x2=false, found [3]");
  EXPECT_EQ(contradiction(batch_matmul({4, 1, 8, 16}, {3, 16, 8}, {4, 1, 8, 8}, false, false)),
            "/outputs/0/shape: expected [4,3,8,8] for BatchMatMulV2 with adj_x1=false, adj_x2=false, found "
            "[4,1,8,8]");
}

TEST(ShapeRules, ElementwiseOutputsAreTheirInputsBroadcast) {
  auto add = [](std::vector<std::int64_t> a, std::vector<std::int64_t> b, std::vector<std::int64_t> y,
                const char* ydt = "float") {
    return record("Add", {tensor("float", a, 0), tensor("float", b, 1)}, {tensor(ydt, y, 0)});
  };
  EXPECT_EQ(contradiction(add({2, 1, 8}, {3, 1}, {2, 3, 8})), "");
  EXPECT_EQ(contradiction(add({2, 4, 8}, {3, 1}, {2, 3, 8})),
            "/inputs/1/shape: expected a shape that broadcasts with [2,4,8] for Add, found [3,1]");
  EXPECT_EQ(contradiction(add({2, 1, 8}, {3, 1}, {2, 3, 9})),
            "/outputs/0/shape: expected [2,3,8] for Add, found [2,3,9]");
  EXPECT_EQ(contradiction(add({8}, {8}, {8}, "float16")), "/outputs/0/dtype: expected float for Add, found float16");
  EXPECT_EQ(contradiction(record("Relu", {tensor("float", {4, 4}, 0)}, {tensor("float", {16}, 0)})),
            "/outputs/0/shape: expected [4,4] for Relu, found [16]");
  EXPECT_EQ(contradiction(record("Add", {tensor("float", {4}, 0)}, {tensor("float", {4}, 0)})),
            "/inputs: expected 2 inputs for Add, found 1");
  EXPECT_EQ(contradiction(record("Add", {tensor("float", {4}, 0), nullptr}, {tensor("float", {4}, 0)})),
            "/inputs/1: expected a tensor for inputs 1 of Add, found none");
  EXPECT_EQ(contradiction(record("Relu", {Json::array({tensor("float", {4}, 0)})}, {tensor("float", {4}, 0)})),
            "/inputs/0: expected one tensor for inputs 0 of Relu, found a list");
}

TEST(ShapeRules, CastOutputsTheDtypeOfDstType) {
  auto cast = [](const char* ydt, int dst) {
    return record("Cast", {tensor("float16", {4, 4}, 0)}, {tensor(ydt, {4, 4}, 0)}, {attr("dst_type", 0, "int", dst)});
  };
  EXPECT_EQ(contradiction(cast("float", 0)), "");
  EXPECT_EQ(contradiction(cast("bfloat16", 27)), "");
  EXPECT_EQ(contradiction(cast("float", 1)),
            "/outputs/0/dtype: expected float16 for Cast with dst_type=1, found float");
}

TEST(ShapeRules, CastWhoseDstTypeNamesNoDtypeIsRefused) {
  Json r = record("Cast", {tensor("float16", {4}, 0)}, {tensor("float", {4}, 0)}, {attr("dst_type", 0, "int", 999)});
  EXPECT_EQ(contradiction(r),
            "/attrs/0/value: expected a GE DataType number that names y's dtype for Cast with dst_type=999, found 999");
}

TEST(ShapeRules, SoftmaxHalfToFloatGivesAFloatOutput) {
  auto softmax = [](const char* y, bool half_to_float) {
    return record("SoftmaxV2", {tensor("float16", {2, 3}, 0)}, {tensor(y, {2, 3}, 0)},
                  {attr("axes", 0, "list_int", {-1}), attr("half_to_float", 1, "bool", half_to_float)});
  };
  EXPECT_EQ(contradiction(softmax("float", true)), "");
  EXPECT_EQ(contradiction(softmax("float16", false)), "");
  EXPECT_NE(contradiction(softmax("float", false)), "");
  EXPECT_NE(contradiction(softmax("float16", true)), "");
}

TEST(ShapeRules, SoftmaxAxesAreAxesOfX) {
  auto softmax = [](Json axes) {
    return record("SoftmaxV2", {tensor("float", {2, 3, 4}, 0)}, {tensor("float", {2, 3, 4}, 0)},
                  {attr("axes", 0, "list_int", axes)});
  };
  EXPECT_EQ(contradiction(softmax({-1})), "");
  EXPECT_EQ(contradiction(softmax({-3, 1})), "");
  EXPECT_EQ(contradiction(softmax({3})),
            "/attrs/0/value/0: expected an axis in [-3, 3) for SoftmaxV2 of rank 3 with "
            "axes=[3], found 3");
  EXPECT_EQ(contradiction(softmax({1, -2})),
            "/attrs/0/value/1: expected axes that differ for SoftmaxV2 with axes=[1,-2], found [1,-2]");
  EXPECT_EQ(contradiction(softmax(Json::array())),
            "/attrs/0/value: expected at least one axis for SoftmaxV2 with axes=[], found []");
}

TEST(ShapeRules, LayerNormParamsAndStatisticsFollowItsAxes) {
  auto ln = [](std::vector<std::int64_t> gamma, std::vector<std::int64_t> mean, int norm_axis, int params_axis) {
    return record("LayerNorm", {tensor("float", {4, 6, 8}, 0), tensor("float", gamma, 1), tensor("float", gamma, 2)},
                  {tensor("float", {4, 6, 8}, 0), tensor("float", mean, 1), tensor("float", mean, 2)},
                  {attr("begin_norm_axis", 0, "int", norm_axis), attr("begin_params_axis", 1, "int", params_axis),
                   attr("epsilon", 2, "float", 1e-5)});
  };
  EXPECT_EQ(contradiction(ln({8}, {4, 6, 1}, -1, -1)), "");
  EXPECT_EQ(contradiction(ln({6, 8}, {4, 1, 1}, 1, 1)), "");
  EXPECT_EQ(contradiction(ln({8}, {4, 1, 1}, 1, -1)), "");
  EXPECT_EQ(contradiction(ln({6, 8}, {4, 6, 1}, -1, -1)),
            "/inputs/1/shape: expected [8] for LayerNorm with begin_norm_axis=-1, begin_params_axis=-1, found [6,8]");
  EXPECT_EQ(contradiction(ln({8}, {4, 6}, -1, -1)),
            "/outputs/1/shape: expected [4,6,1] for LayerNorm with begin_norm_axis=-1, begin_params_axis=-1, found "
            "[4,6]");
  EXPECT_EQ(contradiction(ln({8}, {4, 6, 1}, 3, -1)),
            "/attrs/0/value: expected begin_norm_axis in [-3, 3) for LayerNorm of rank 3 with begin_norm_axis=3, "
            "found 3");
}

TEST(ShapeRules, RmsNormGammaIsTheTrailingAxesOfX) {
  auto rms = [](std::vector<std::int64_t> gamma, std::vector<std::int64_t> rstd) {
    return record("RmsNorm", {tensor("float16", {4, 6, 8}, 0), tensor("float16", gamma, 1)},
                  {tensor("float16", {4, 6, 8}, 0), tensor("float", rstd, 1)}, {attr("epsilon", 0, "float", 1e-6)});
  };
  EXPECT_EQ(contradiction(rms({8}, {4, 6, 1})), "");
  EXPECT_EQ(contradiction(rms({6, 8}, {4, 1, 1})), "");
  EXPECT_EQ(contradiction(rms({6}, {4, 6, 1})), "/inputs/1/shape: expected [8] for RmsNorm, found [6]");
  EXPECT_EQ(contradiction(rms({8}, {4, 6, 8})), "/outputs/1/shape: expected [4,6,1] for RmsNorm, found [4,6,8]");
}

TEST(ShapeRules, TransposePermIsAPermutationAndYFollowsIt) {
  auto tr = [](std::vector<std::int64_t> perm, std::vector<std::int64_t> y) {
    return record("Transpose", {tensor("float", {2, 3, 4}, 0), value_tensor("int64", perm, 1)},
                  {tensor("float", y, 0)});
  };
  EXPECT_EQ(contradiction(tr({2, 0, 1}, {4, 2, 3})), "");
  EXPECT_EQ(contradiction(tr({2, 0, 1}, {2, 3, 4})), "/outputs/0/shape: expected [4,2,3] for Transpose, found [2,3,4]");
  EXPECT_EQ(contradiction(tr({0, 0, 1}, {2, 2, 3})),
            "/inputs/1/const_data/1: expected a permutation of 3 axes for Transpose of [2,3,4], found [0,0,1]");
  EXPECT_EQ(contradiction(tr({0, 1}, {2, 3, 4})), "/inputs/1/shape: expected [3] for Transpose, found [2]");
  // A value above 2^63 - 1 is refused as it stands in the file, not quoted wrapped to a negative one.
  Json r = tr({0, 1, 2}, {2, 3, 4});
  r["inputs"][1]["const_data"][1] = std::uint64_t{1} << 63;
  EXPECT_EQ(contradiction(r),
            "/inputs/1/const_data/1: expected an integer axis for the perm of Transpose (a signed 64-bit one)");
}

TEST(ShapeRules, PrivateFormatsAreCheckedOnTheirOriginShape) {
  Json r = matmul({16, 32}, {32, 96}, {16, 96}, false, false);
  r["inputs"][0]["format"] = "FRACTAL_NZ";
  r["inputs"][0]["shape"] = {2, 1, 16, 16};  // storage: (k/16, m/16, 16, 16)
  EXPECT_EQ(contradiction(r), "");
  r["inputs"][0]["origin_shape"] = {16, 33};
  EXPECT_EQ(
      contradiction(r),
      "/inputs/1/shape: expected [33,96] for MatMulV2 with transpose_x1=false, transpose_x2=false, found [32,96]");
}

TEST(ShapeRules, TileMultipliesEachAxisOfXPaddedWithLeadingOnes) {
  auto tile = [](std::vector<std::int64_t> x, Json multiples, std::vector<std::int64_t> y) {
    return record("Tile", {tensor("float", x, 0), multiples}, {tensor("float", y, 0)});
  };
  EXPECT_EQ(contradiction(tile({1, 32}, value_tensor("int64", {16, 1}, 1), {16, 32})), "");
  EXPECT_EQ(contradiction(tile({3, 2}, value_tensor("int32", {2, 1, 2}, 1), {2, 3, 4})), "");
  EXPECT_EQ(contradiction(tile({1, 32}, value_tensor("int64", {16, 1}, 1), {16, 7})),
            "/outputs/0/shape: expected [16,32] for Tile, found [16,7]");
  EXPECT_EQ(contradiction(tile({2, 3, 4}, value_tensor("int64", {2, 2}, 1), {4, 6, 4})),
            "/inputs/1/shape: expected a shape [k] with k from 3 (the rank of x) to 8 for Tile, found [2]");
  EXPECT_EQ(contradiction(tile({2, 3}, value_tensor("int64", {2, -1}, 1), {4, 3})),
            "/inputs/1/const_data/1: expected multiples from 0 to 2^31-1 for Tile, found [2,-1]");
  EXPECT_EQ(contradiction(tile({2, 3}, value_tensor("float", {2, 1}, 1), {4, 3})),
            "/inputs/1/dtype: expected int32 or int64 for Tile, found float");
  // multiples known only at run time: y must still be x times whole numbers
  Json unknown = value_tensor("int64", {2, 2}, 1);
  unknown["const_data"] = "NULL";
  EXPECT_EQ(contradiction(tile({2, 3}, unknown, {4, 9})), "");
  EXPECT_EQ(contradiction(tile({2, 3}, unknown, {4, 8})),
            "/outputs/0/shape: expected a multiple of [2,3] on every axis for Tile, found [4,8]");
}

TEST(ShapeRules, ConcatDJoinsItsListAlongConcatDim) {
  auto concat = [](std::vector<std::vector<std::int64_t>> xs, int dim, std::vector<std::int64_t> y, int n = -1) {
    Json list = Json::array();
    for (std::size_t j = 0; j < xs.size(); ++j) list.push_back(tensor("float16", xs[j], static_cast<int>(j)));
    return record("ConcatD", {list}, {tensor("float16", y, 0)},
                  {attr("concat_dim", 0, "int", dim), attr("N", 1, "int", n < 0 ? static_cast<int>(xs.size()) : n)});
  };
  EXPECT_EQ(contradiction(concat({{1, 16, 32}, {1, 16, 32}}, 1, {1, 32, 32})), "");
  EXPECT_EQ(contradiction(concat({{2, 3}, {2, 5}, {2, 1}}, -1, {2, 9})), "");
  EXPECT_EQ(contradiction(concat({{1, 16, 32}, {1, 16, 32}}, 1, {1, 16, 64})),
            "/outputs/0/shape: expected [1,32,32] for ConcatD with concat_dim=1, N=2, found [1,16,64]");
  EXPECT_EQ(contradiction(concat({{2, 3}, {3, 3}}, 1, {2, 6})),
            "/inputs/0/1/shape: expected [2,3] for ConcatD with concat_dim=1, N=2, found [3,3]");
  EXPECT_EQ(contradiction(concat({{2, 3}, {2, 3, 1}}, 0, {4, 3})),
            "/inputs/0/1/shape: expected [2,3] for ConcatD with concat_dim=0, N=2, found [2,3,1]");
  EXPECT_EQ(contradiction(concat({{2, 3}, {2, 3}}, 2, {2, 6})),
            "/attrs/0/value: expected concat_dim in [-2, 2) for ConcatD of rank 2 with concat_dim=2, N=2, found 2");
  EXPECT_EQ(contradiction(concat({{2, 3}, {2, 3}}, 0, {4, 3}, 3)),
            "/attrs/1/value: expected 2 (the tensors of x) for ConcatD with concat_dim=0, N=3, found 3");
  Json mixed = concat({{2, 3}, {2, 3}}, 0, {4, 3});
  mixed["inputs"][0][1]["dtype"] = "float";
  EXPECT_EQ(contradiction(mixed),
            "/inputs/0/1/dtype: expected float16 for ConcatD with concat_dim=0, N=2, found float");
  EXPECT_EQ(contradiction(record("ConcatD", {tensor("float16", {2, 3}, 0)}, {tensor("float16", {2, 3}, 0)})),
            "/inputs/0: expected a list of tensors for inputs 0 of ConcatD");
}

TEST(ShapeRules, AnOpWithoutRulesIsNotChecked) {
  OpRecord r = parse_op_record(
      record("GatherV2", {tensor("float", {8, 32}, 0), tensor("int64", {4}, 1), value_tensor("int64", {0}, 2)},
             {tensor("float", {4, 7}, 0)}));
  EXPECT_FALSE(has_shape_rules("GatherV2"));
  EXPECT_FALSE(check_shapes(r));
  EXPECT_TRUE(has_shape_rules("BatchMatMulV2"));
  EXPECT_TRUE(has_shape_rules("ConcatD"));
}

}  // namespace
}  // namespace skb::opmodel
