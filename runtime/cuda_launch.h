#pragma once
#include <memory>
#include <vector>

#include "opmodel/op_record.h"
#include "packager/format/launch.h"
#include "runtime/cublas_gemm.h"
#include "runtime/kernel_module.h"
#include "skb_cuda_abi.h"

namespace skb::runtime {

/// One call of a cuda kernel, worked out when the call is found: its grid (the build's for a
/// static kernel, from the call's first output for a dynamic one), the bytes of every slot (for
/// copies from host buffers), and a dynamic kernel's shapes and attributes (skb_cuda_call).
class CudaLaunch {
 public:
  /// A tensor list's tensors take one pointer each from its slot's place on (skb_cuda_abi.h).
  /// Throws RuntimeError(SKB_ERR_UNSUPPORTED) for what the launch ABI cannot carry: more than
  /// SKB_MAX_SLOTS tensors a side, a dtype without a byte width, more attributes or values than
  /// skb_cuda_call holds.
  CudaLaunch(const opmodel::OpRecord& record, const packager::Launch& launch, bool dynamic);

  /// Computes the call with cuBLASLt instead of the kernel (a matmul's dynamic path).
  void use(std::unique_ptr<CublasGemm> gemm) { gemm_ = std::move(gemm); }

  /// Queues the kernel on `stream` (device buffers); throws RuntimeError(SKB_ERR_KERNEL).
  void launch(const KernelModule& m, const void* const* in, void* const* out, void* stream) const;
  /// Runs it on the default stream and waits.
  void run(const KernelModule& m, const void* const* in, void* const* out) const;
  /// Copies host inputs to device memory, runs, copies the outputs back.
  void run_host(const KernelModule& m, const void* const* in, void* const* out) const;

 private:
  std::vector<std::size_t> in_bytes_, out_bytes_;  // per tensor, lists' items in turn; 0 for an absent input
  std::vector<std::size_t> in_lists_, out_lists_;  // per slot: its tensors when it is a list, else 0
  unsigned grid_ = 1, block_ = 1;
  std::unique_ptr<skb_cuda_call> call_;  // dynamic kernels only
  std::unique_ptr<CublasGemm> gemm_;     // when cuBLASLt computes it
};

}  // namespace skb::runtime
