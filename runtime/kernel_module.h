#pragma once
#include <memory>
#include <optional>
#include <string>

#include "runtime/index_reader.h"
#include "skb_cuda_abi.h"

namespace skb::runtime {

class CudaDriver;

/// A kernel binary checked against the index's sha256, then loaded: a host kernel with dlopen,
/// a cuda kernel's cubin into the device's primary context (from the very bytes that were
/// hashed). Unloaded when the last holder lets go.
class KernelModule {
 public:
  /// Throws RuntimeError: SKB_ERR_LOAD when the file cannot be read or loaded or lacks its entry
  /// symbol or a launch of its own that no GPU takes (or tensor maps the driver cannot encode, or
  /// an skb_awaits other than 1), SKB_ERR_INTEGRITY when
  /// its bytes do not hash to the index's sha256, SKB_ERR_UNSUPPORTED when a cuda kernel finds no driver or GPU.
  static std::shared_ptr<KernelModule> load(const IndexEntry& entry);
  ~KernelModule();
  KernelModule(const KernelModule&) = delete;
  KernelModule& operator=(const KernelModule&) = delete;

  /// The entry: a host function, or a cuda kernel's CUfunction.
  void* symbol() const { return symbol_; }
  /// The driver a cuda kernel was loaded with; nullptr for a host kernel.
  CudaDriver* cuda() const { return cuda_; }
  /// A cuda kernel's own launch (its skb_launch), when it defines one.
  const std::optional<skb_cuda_launch>& own_launch() const { return own_launch_; }
  /// Whether a cuda kernel is launched as a programmatic dependent launch: it awaits the grids
  /// before it (its skb_awaits), the driver has cuLaunchKernelEx, and SKB_CUDA_DEPENDENT_LAUNCH
  /// was on when it was loaded.
  bool dependent_launch() const { return dependent_launch_; }
  /// The tensor maps a cuda kernel reads its inputs through (its skb_tma), when it defines them:
  /// it then takes them as its second parameter.
  const std::optional<skb_cuda_tma_plan>& tensor_maps() const { return tensor_maps_; }

 private:
  KernelModule() = default;
  void* handle_ = nullptr;  // dlopen handle, or CUmodule
  void* symbol_ = nullptr;
  CudaDriver* cuda_ = nullptr;
  std::optional<skb_cuda_launch> own_launch_;
  std::optional<skb_cuda_tma_plan> tensor_maps_;
  bool dependent_launch_ = false;
};

/// Errors of the runtime, each with its C status code.
struct RuntimeError : std::runtime_error {
  RuntimeError(int status, const std::string& what) : std::runtime_error(what), code(status) {}
  int code;
};

}  // namespace skb::runtime
