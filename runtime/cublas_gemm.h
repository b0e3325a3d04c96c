#pragma once
#include <cstddef>
#include <memory>
#include <mutex>
#include <string>

#include "opmodel/op_record.h"
#include "runtime/cuda_driver.h"

namespace skb::runtime {

/// What skb_op_kernel_name says of a call cuBLASLt computes.
inline constexpr const char* kCublasLt = "cublasLt";

/// MatMulV2 and BatchMatMulV2: the ops whose dynamic path on a GPU is cuBLASLt.
inline bool is_matmul(const std::string& op_type) { return op_type == "MatMulV2" || op_type == "BatchMatMulV2"; }

/// Whether cuBLASLt opens in this process; why not, when not.
bool cublas_opens(std::string& why);

/// The dynamic path of a MatMulV2 or BatchMatMulV2 call on a GPU: cuBLASLt, opened at run time
/// (dlopen of libcublasLt.so.13, .12 or .11, or of $SKB_CUBLASLT; SKB_CUBLASLT=off never opens
/// it), so that a static kernel competes with what the call would run without skb. float32
/// arithmetic throughout (CUBLAS_COMPUTE_32F: no TF32), the bias as cuBLASLt's bias epilogue,
/// batches as strided batches.
class CublasGemm {
 public:
  /// The call's plan, or nullptr with the reason in `why` when cuBLASLt does not open here or
  /// cannot compute it (dtypes other than float, float16 and bfloat16 alike for both operands
  /// and the output; batches broadcast other than wholly; no algorithm for it).
  static std::unique_ptr<CublasGemm> plan(const opmodel::OpRecord& record, std::string& why);
  ~CublasGemm();
  CublasGemm(const CublasGemm&) = delete;
  CublasGemm& operator=(const CublasGemm&) = delete;

  /// Queues the product on `stream` (device pointers); throws RuntimeError(SKB_ERR_KERNEL).
  void launch(const void* const* in, void* const* out, void* stream) const;

  struct Lt;  // cuBLASLt's functions, opened once a process

 private:
  CublasGemm() = default;
  const Lt* lt_ = nullptr;
  mutable std::mutex mu_;  // a launch sets the call's bias pointer on the plan's descriptor
  void *desc_ = nullptr, *a_ = nullptr, *b_ = nullptr, *d_ = nullptr;  // cuBLASLt descriptors
  unsigned char algo_[64] = {};                                        // cublasLtMatmulAlgo_t
  std::unique_ptr<CudaDriver::Buffer> workspace_;
  std::size_t workspace_bytes_ = 0;
  bool bias_ = false;
};

}  // namespace skb::runtime
