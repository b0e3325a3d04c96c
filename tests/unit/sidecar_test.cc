#include <gtest/gtest.h>

#include "common/error.h"
#include "generator/sidecar.h"

namespace skb::generator {
namespace {
using common::Json;

std::string pointer_of(const std::string& text) {
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
// top level says; without, blockDim. It reads every field of a runInfo and drops the whole of it
// (block dim and tiling data with it) when one is missing or mistyped: such a JSON is refused.
TEST(Sidecar, BlockDimIsRunInfosBlockDimWhenThereIsARunInfo) {
  auto with_run_info = [](Json run) {
    Json full = {{"aicpu_block_dim", 0}, {"block_dim", 8},  {"local_memory_size", 0}, {"schedule_mode", 0},
                 {"tiling_cond", 0},     {"tiling_key", 1}, {"clear_atomic", 0},      {"tiling_data", "0a0b"}};
    full.update(run);
    return Json{{"blockDim", 2}, {"runInfo", full}, {"kernelName", "k"}};
  };
  EXPECT_EQ(parse_sidecar(with_run_info(Json::object())).block_dim, 8u);
  EXPECT_EQ(parse_sidecar(Json::parse(R"({"blockDim": 2, "kernelName": "k"})")).block_dim, 2u);
  Json no_block_dim = with_run_info(Json::object());
  no_block_dim["runInfo"].erase("block_dim");
  no_block_dim["runInfo"]["blockDim"] = 8;
  EXPECT_EQ(pointer_of(no_block_dim.dump()), "/runInfo/block_dim");
  EXPECT_EQ(pointer_of(with_run_info({{"block_dim", 1.5}}).dump()), "/runInfo/block_dim");
  for (const char* field : {"aicpu_block_dim", "local_memory_size", "schedule_mode", "tiling_cond", "clear_atomic",
                            "tiling_key", "tiling_data"}) {
    Json missing = with_run_info(Json::object());
    missing["runInfo"].erase(field);
    EXPECT_EQ(pointer_of(missing.dump()), std::string("/runInfo/") + field);
  }
  EXPECT_EQ(pointer_of(with_run_info({{"tiling_key", -1}}).dump()), "/runInfo/tiling_key");
  EXPECT_EQ(pointer_of(with_run_info({{"schedule_mode", "0"}}).dump()), "/runInfo/schedule_mode");
  EXPECT_EQ(pointer_of(with_run_info({{"tiling_data", "abc"}}).dump()), "/runInfo/tiling_data");
  EXPECT_EQ(pointer_of(with_run_info({{"tiling_data", "0x"}}).dump()), "/runInfo/tiling_data");
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
