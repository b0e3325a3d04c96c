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
  EXPECT_EQ(
      parse_sidecar(Json::parse(R"({"runInfo": {"blockDim": 8}, "kernelName": "k", "workspace": [1, 2]})")).block_dim,
      8u);
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
