#include <gtest/gtest.h>

#include "common/error.h"
#include "generator/sidecar.h"

namespace skb::generator {
namespace {
using common::Json;

std::string pointer_of(const char* text) {
  try {
    parse_sidecar(Json::parse(text));
  } catch (const common::FieldError& e) {
    return e.pointer();
  }
  return "(accepted)";
}

// A sidecar as CANN's compiler writes it: what the index takes from it.
TEST(Sidecar, TakesBlockDimKernelNameAndWorkspace) {
  Sidecar s = parse_sidecar(Json::parse(
      R"({"binFileName": "k", "blockDim": 24, "kernelName": "MatMul_1e04_kernel", "workspace": {"num": 1, "size": [32]},
          "platformInfo": {"cubeCoreCnt": 24, "vectorCoreCnt": 48, "deterministicLevel": 0}, "sha256": "x"})"));
  EXPECT_EQ(s.block_dim, 24u);
  EXPECT_EQ(s.kernel_name, "MatMul_1e04_kernel");
  EXPECT_EQ(s.workspace, (std::vector<std::int64_t>{32}));
  EXPECT_FALSE(s.core_type);
}

// UpdateRunInfoForStaticJson: with a runInfo, the block dim is runInfo.block_dim, whatever the
// top level says; without, blockDim.
TEST(Sidecar, BlockDimIsRunInfosBlockDimWhenThereIsARunInfo) {
  EXPECT_EQ(parse_sidecar(Json::parse(R"({"runInfo": {"block_dim": 8}, "kernelName": "k"})")).block_dim, 8u);
  EXPECT_EQ(parse_sidecar(Json::parse(R"({"blockDim": 2, "runInfo": {"block_dim": 8}, "kernelName": "k"})")).block_dim,
            8u);
  EXPECT_EQ(pointer_of(R"({"runInfo": {"blockDim": 8}, "kernelName": "k"})"), "/runInfo/block_dim");
  EXPECT_EQ(pointer_of(R"({"runInfo": {"block_dim": 1.5}, "kernelName": "k"})"), "/runInfo/block_dim");
}

// g_nnopbaseKernelTypeMap onto the individual engine's CoreType enum (indv_types.h).
TEST(Sidecar, CoreTypeIsTheIndexsIntegerOfOpbasesKernelType) {
  const std::pair<const char*, int> expected[] = {{"MIX", 0},        {"AiCore", 1},          {"VectorCore", 2},
                                                  {"MIX_AICORE", 3}, {"MIX_VECTOR_CORE", 4}, {"MIX_AIC", 0}};
  for (const auto& [name, value] : expected) {
    Json doc = {{"blockDim", 1}, {"kernelName", "k"}, {"coreType", name}};
    EXPECT_EQ(parse_sidecar(doc).core_type, value) << name;
  }
  EXPECT_EQ(pointer_of(R"({"blockDim": 1, "kernelName": "k", "coreType": "AICORE"})"), "/coreType");
  EXPECT_EQ(pointer_of(R"({"blockDim": 1, "kernelName": "k", "coreType": 1})"), "/coreType");
}

TEST(Sidecar, ABadFieldIsNamedByItsPointer) {
  EXPECT_EQ(pointer_of(R"({"blockDim": -1, "kernelName": "k"})"), "/blockDim");
  EXPECT_EQ(pointer_of(R"({"blockDim": "24", "kernelName": "k"})"), "/blockDim");
  EXPECT_EQ(pointer_of(R"({"blockDim": 1, "kernelName": "a;rm -rf"})"), "/kernelName");
  EXPECT_EQ(pointer_of(R"({"blockDim": 1})"), "/kernelName");
  EXPECT_EQ(pointer_of(R"({"blockDim": 1, "kernelName": "k", "workspace": [1, "x"]})"), "/workspace/1");
  EXPECT_EQ(pointer_of(R"([1])"), "");
}

}  // namespace
}  // namespace skb::generator
