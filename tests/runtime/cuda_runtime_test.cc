// A library of cuda kernels on a machine without a GPU: the runtime opens the NVIDIA driver only
// for such a library, and without a driver, or with one but no GPU, it refuses to open it with
// SKB_ERR_UNSUPPORTED naming what is missing. A host library needs no driver.
#include <gtest/gtest.h>

#include <fmt/format.h>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "common/fs.h"
#include "common/sha256.h"
#include "skb/runtime.h"

namespace skb::test {
namespace {
namespace fs = std::filesystem;

// An installed library of one kernel, its index written as the installer writes it; `launch`
// is the index entry's launch field ("" for a host kernel).
fs::path library(const std::string& name, const std::string& launch) {
  fs::path root = fs::path(SKB_TEST_SCRATCH) / "cuda_runtime" / name;
  fs::remove_all(root);
  fs::path lib = root / "opp" / "static_kernel" / "ai_core";  // as the installer lays it out
  std::string bytes = "not a cubin: never loaded here";
  fs::create_directories(lib / "static_kernel_1" / "sm_90" / "Relu");
  common::write_atomic(lib / "static_kernel_1/sm_90/Relu/Relu_1.cubin", bytes);
  std::string entry = fmt::format(
      R"({{"binPath": "static_kernel_1/sm_90/Relu/Relu_1.cubin", "binDesc": {{"kernelName": "skb_kernel"}},
          "skbKey": "{}", "kernelName": "Relu_1", "package": "static_kernel_1", "sha256": "{}",
          "variant": "static"{}}})",
      std::string(64, 'a'), common::sha256_hex(bytes), launch.empty() ? "" : ", \"launch\": " + launch);
  fs::create_directories(lib / "config" / "sm_90");
  common::write_atomic(lib / "config/sm_90/binary_info_config.json",
                       fmt::format(R"({{"Relu": {{"staticList": [{}]}}}})", entry));
  return root;
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
