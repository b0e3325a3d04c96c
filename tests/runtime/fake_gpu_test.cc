// The runtime's cuda launches, against a pretend GPU driver (fake_cuda_gpu.cc) that logs each
// call that sets up or launches a kernel, reading cuLaunchKernelEx's configuration with CUDA's
// own cuda.h.
// - Programmatic dependent launches: a static kernel that awaits the grids before it
//   (skb_awaits) is launched by cuLaunchKernelEx with programmatic stream serialization when
//   SKB_CUDA_DEPENDENT_LAUNCH is on, and by cuLaunchKernel otherwise; a kernel that does not say
//   it awaits never is; a kernel that says something else is refused when it loads.
// - Loading: a kernel's own launch that asks for more than 48 KiB of shared memory is given it;
//   one that reads through tensor maps is refused by a driver that cannot encode them.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "common/fs.h"
#include "skb/runtime.h"
#include "tests/support/cuda_library.h"

namespace skb::test {
namespace {
namespace fs = std::filesystem;

const char* kLaunch = R"({"device": "cuda", "grid": 4, "block": 256, "max_grid": 4096})";

class OnAFakeGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    name_ = ::testing::UnitTest::GetInstance()->current_test_info()->name();
    scratch_ =
        fs::path(SKB_TEST_SCRATCH) / "fake_gpu" / ::testing::UnitTest::GetInstance()->current_test_suite()->name();
    fs::create_directories(scratch_);
    log_ = scratch_ / (name_ + ".log");
    setenv("SKB_CUDA_DRIVER", SKB_FAKE_CUDA_GPU, 1);
    setenv("SKB_FAKE_CUDA_LOG", log_.c_str(), 1);
    unsetenv("SKB_CUDA_DEPENDENT_LAUNCH");
  }
  void TearDown() override {
    unsetenv("SKB_FAKE_CUDA_LOG");
    unsetenv("SKB_CUDA_DEPENDENT_LAUNCH");
  }

  // Launches the library's kernel, built as `cubin` says, once; returns the driver's log of it,
  // or the runtime's error.
  std::string launch(const std::string& cubin, const char* dependent) {
    fs::remove(log_);
    if (dependent) setenv("SKB_CUDA_DEPENDENT_LAUNCH", dependent, 1);
    const fs::path root = cuda_library(scratch_, name_, kLaunch, cubin);
    skb_runtime* rt = nullptr;
    if (skb_runtime_open(root.c_str(), nullptr, &rt) != SKB_OK) return std::string("open: ") + skb_last_error();
    skb_op* op = nullptr;
    std::string result;
    if (int rc = skb_runtime_find(rt, relu_record().c_str(), &op); rc != SKB_OK) {
      result = "find " + std::to_string(rc) + ": " + skb_last_error();
    } else {
      result = launch_op(op) == SKB_OK ? common::read_file(log_, 1 << 20) : std::string("launch: ") + skb_last_error();
    }
    skb_op_free(op);
    skb_runtime_close(rt);
    return result;
  }

  // Launches the Relu op once on the default stream (the pretend driver runs nothing).
  static int launch_op(skb_op* op) {
    float x[6] = {}, y[6] = {};
    const void* in[] = {x};
    void* out[] = {y};
    return skb_op_launch(op, in, out, nullptr);
  }

  std::string name_;
  fs::path scratch_, log_;
};

using DependentLaunch = OnAFakeGpu;
using KernelLoad = OnAFakeGpu;

TEST_F(DependentLaunch, AKernelThatAwaitsIsLaunchedDependentWhenItIsOn) {
  EXPECT_EQ(launch("skb_awaits=1\n", "on"), "cuLaunchKernelEx grid=4 block=256 shared=0 attrs=6:1\n");
}

TEST_F(DependentLaunch, ItIsOffByDefault) {
  EXPECT_EQ(launch("skb_awaits=1\n", nullptr), "cuLaunchKernel grid=4 block=256 shared=0\n");
}

TEST_F(DependentLaunch, OffMeansOff) {
  EXPECT_EQ(launch("skb_awaits=1\n", "off"), "cuLaunchKernel grid=4 block=256 shared=0\n");
}

TEST_F(DependentLaunch, AKernelThatDoesNotAwaitIsNeverLaunchedDependent) {
  EXPECT_EQ(launch("", "on"), "cuLaunchKernel grid=4 block=256 shared=0\n");
}

TEST_F(DependentLaunch, AKernelsOwnLaunchGoesWithIt) {
  EXPECT_EQ(launch("skb_launch=2,128,1024,0\nskb_awaits=1\n", "on"),
            "cuLaunchKernelEx grid=2 block=128 shared=1024 attrs=6:1\n");
}

TEST_F(DependentLaunch, AnythingButOneIsRefusedWhenTheKernelLoads) {
  std::string error = launch("skb_awaits=2\n", "on");
  EXPECT_EQ(error.rfind("find 4: ", 0), 0u) << error;
  EXPECT_NE(error.find("skb_awaits of"), std::string::npos) << error;
  EXPECT_NE(error.find("2, expected 1"), std::string::npos) << error;
  error = launch("skb_awaits=1,0\n", "on");
  EXPECT_NE(error.find("8 bytes, expected 4"), std::string::npos) << error;
}

// What cuda_kernel_bench.py --dependent relies on to time both launches in one process: the
// setting is read when a runtime loads the kernel, and the kernel keeps that launch.
TEST_F(DependentLaunch, ARuntimeKeepsTheLaunchItsKernelWasLoadedWith) {
  const fs::path root = cuda_library(scratch_, name_, kLaunch, "skb_awaits=1\n");
  const std::string record = relu_record();
  skb_runtime *on = nullptr, *off = nullptr;
  skb_op *a = nullptr, *b = nullptr, *c = nullptr;
  setenv("SKB_CUDA_DEPENDENT_LAUNCH", "on", 1);
  ASSERT_EQ(skb_runtime_open(root.c_str(), nullptr, &on), SKB_OK) << skb_last_error();
  ASSERT_EQ(skb_runtime_find(on, record.c_str(), &a), SKB_OK) << skb_last_error();
  setenv("SKB_CUDA_DEPENDENT_LAUNCH", "off", 1);
  ASSERT_EQ(skb_runtime_open(root.c_str(), nullptr, &off), SKB_OK) << skb_last_error();
  ASSERT_EQ(skb_runtime_find(off, record.c_str(), &b), SKB_OK) << skb_last_error();
  ASSERT_EQ(skb_runtime_find(on, record.c_str(), &c), SKB_OK) << skb_last_error();  // loaded under on
  fs::remove(log_);
  for (skb_op* op : {a, b, c}) EXPECT_EQ(launch_op(op), SKB_OK) << skb_last_error();
  EXPECT_EQ(common::read_file(log_, 1 << 20),
            "cuLaunchKernelEx grid=4 block=256 shared=0 attrs=6:1\n"
            "cuLaunchKernel grid=4 block=256 shared=0\n"
            "cuLaunchKernelEx grid=4 block=256 shared=0 attrs=6:1\n");
  for (skb_op* op : {a, b, c}) skb_op_free(op);
  skb_runtime_close(on);
  skb_runtime_close(off);
}

TEST_F(KernelLoad, MoreThan48KiBOfSharedMemoryIsAskedForWhenItLoads) {
  EXPECT_EQ(launch("skb_launch=2,128,100000,0\n", nullptr),
            "cuFuncSetAttribute attr=8 value=100000\ncuLaunchKernel grid=2 block=128 shared=100000\n");
  EXPECT_EQ(launch("skb_launch=2,128,49152,0\n", nullptr), "cuLaunchKernel grid=2 block=128 shared=49152\n");
}

TEST_F(KernelLoad, TensorMapsADriverCannotEncodeAreRefusedWhenTheKernelLoads) {
  // skb_cuda_tma_plan: count 1, then map 0 of input 0 (float16, 128-byte swizzle, rank 1).
  std::string plan = "skb_tma=1,0,0,6,3,1";
  for (int i = 0; i < 32; ++i) plan += ",0";
  const std::string error = launch(plan + "\n", nullptr);
  EXPECT_EQ(error.rfind("find 4: ", 0), 0u) << error;
  EXPECT_NE(error.find("skb_tma of"), std::string::npos) << error;
  EXPECT_NE(error.find("has no cuTensorMapEncodeTiled"), std::string::npos) << error;
}

}  // namespace
}  // namespace skb::test
