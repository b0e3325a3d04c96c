// A library of cuda kernels on a machine without a GPU: the runtime opens the NVIDIA driver only
// for such a library, and without a driver, or with one but no GPU, it refuses to open it with
// SKB_ERR_UNSUPPORTED naming what is missing. A host library needs no driver.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "skb/runtime.h"
#include "tests/support/cuda_library.h"

namespace skb::test {
namespace {
namespace fs = std::filesystem;

fs::path library(const std::string& name, const std::string& launch) {
  return cuda_library(fs::path(SKB_TEST_SCRATCH) / "cuda_runtime", name, launch, "not a cubin: never loaded here");
}

const char* kCudaLaunch = R"({"device": "cuda", "grid": 4, "block": 256, "max_grid": 4096})";

struct Env {
  explicit Env(const char* driver) { setenv("SKB_CUDA_DRIVER", driver, 1); }
  ~Env() { unsetenv("SKB_CUDA_DRIVER"); }
};

int open_library(const fs::path& root, std::string& error) {
  skb_runtime* rt = nullptr;
  int rc = skb_runtime_open(root.c_str(), nullptr, &rt);
  error = skb_last_error();
  skb_runtime_close(rt);
  return rc;
}

TEST(CudaRuntime, WithoutTheDriverACudaLibraryIsUnsupportedAndSaysWhatIsMissing) {
  Env env("/nonexistent/libcuda.so.1");
  std::string error;
  EXPECT_EQ(open_library(library("no_driver", kCudaLaunch), error), SKB_ERR_UNSUPPORTED);
  EXPECT_NE(error.find("need the NVIDIA driver"), std::string::npos) << error;
  EXPECT_NE(error.find("/nonexistent/libcuda.so.1"), std::string::npos) << error;
}

TEST(CudaRuntime, WithADriverButNoGpuTheDriversOwnMessageIsGiven) {
  Env env(SKB_FAKE_CUDA_DRIVER);
  std::string error;
  EXPECT_EQ(open_library(library("no_gpu", kCudaLaunch), error), SKB_ERR_UNSUPPORTED);
  EXPECT_NE(error.find("CUDA_ERROR_NO_DEVICE (100): no CUDA-capable device is detected"), std::string::npos) << error;
}

TEST(CudaRuntime, AHostLibraryNeverOpensTheDriver) {
  Env env("/nonexistent/libcuda.so.1");
  std::string error;
  EXPECT_EQ(open_library(library("host", ""), error), SKB_OK) << error;
}

TEST(CudaRuntime, ALaunchTheRuntimeCannotDoIsAnErrorNamingTheField) {
  std::string error;
  EXPECT_EQ(open_library(library("bad_device", R"({"device": "tpu", "grid": 1, "block": 1, "max_grid": 1})"), error),
            SKB_ERR_LOAD);
  EXPECT_NE(error.find("/Relu/staticList/0/launch/device"), std::string::npos) << error;
  EXPECT_EQ(open_library(library("bad_block", R"({"device": "cuda", "grid": 1, "block": 4096, "max_grid": 1})"), error),
            SKB_ERR_LOAD);
  EXPECT_NE(error.find("/launch/block"), std::string::npos) << error;
}

}  // namespace
}  // namespace skb::test
