// What a cuda kernel's launch carries, worked out on the CPU (runtime/cuda_launch.h): a tensor
// list's tensors take one pointer each, in order, and a call with more tensors than the launch
// ABI's slots is refused, naming why, before anything runs.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "opmodel/op_record.h"
#include "packager/format/launch.h"
#include "runtime/cuda_launch.h"
#include "skb/runtime.h"
#include "tests/support/records.h"

namespace skb {
namespace {
using common::Json;

opmodel::OpRecord concat_of(int tensors) {
  Json xs = Json::array();
  for (int i = 0; i < tensors; ++i) xs.push_back(test::tensor("float16", {2, 3}, i));
  return opmodel::parse_op_record(test::record("ConcatD", {xs}, {test::tensor("float16", {2, 3 * tensors})},
                                               {test::attr("concat_dim", 0, "int", 1)}));
}

packager::Launch cuda_launch() {
  packager::Launch l;
  l.device = "cuda";
  l.block = 256;
  l.max_grid = 4096;
  return l;
}

TEST(CudaLaunch, AListOfUpToEightTensorsIsCarried) {
  for (int n : {1, 3, 8}) {
    EXPECT_NO_THROW(runtime::CudaLaunch(concat_of(n), cuda_launch(), true)) << n;
    EXPECT_NO_THROW(runtime::CudaLaunch(concat_of(n), cuda_launch(), false)) << n;
  }
}

TEST(CudaLaunch, MoreTensorsThanTheLaunchHasSlotsAreRefusedSayingSo) {
  try {
    runtime::CudaLaunch(concat_of(9), cuda_launch(), false);
    FAIL() << "nine tensors accepted";
  } catch (const runtime::RuntimeError& e) {
    EXPECT_EQ(e.code, SKB_ERR_UNSUPPORTED);
    EXPECT_NE(std::string(e.what()).find("more than 8 input tensors"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace skb
