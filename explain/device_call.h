#pragma once
// A call of a cuda kernel as `skb bench` times it: its inputs copied once to device memory, its
// outputs there, and samples of repeated launches on the default stream timed by CUDA events (the
// time the GPU took, launch gaps included, the same for both sides of a pair).
#include <memory>
#include <vector>

#include "runtime/cuda_driver.h"
#include "runtime/reference/tensors.h"
#include "skb/runtime.h"

namespace skb::explain {

class DeviceCall {
 public:
  /// Copies `in` to the device and allocates `out` there (a tensor list as skb_op_launch takes
  /// it: the address of an array of its tensors' device pointers). Throws runtime::RuntimeError
  /// (SKB_ERR_KERNEL) for a CUDA error.
  DeviceCall(const std::vector<reference::Buffer>& in, const std::vector<reference::Buffer>& out);
  ~DeviceCall();
  DeviceCall(const DeviceCall&) = delete;
  DeviceCall& operator=(const DeviceCall&) = delete;

  /// One launch of op, waited for: skb_op_launch's status (skb_last_error says why).
  int run(const skb_op* op);
  /// Seconds the GPU took for `calls` launches of op; throws runtime::RuntimeError.
  double sample(const skb_op* op, long calls);

 private:
  runtime::CudaDriver& cuda_;
  std::vector<std::unique_ptr<runtime::CudaDriver::Buffer>> buffers_;
  std::vector<const void*> in_;
  std::vector<void*> out_;
  std::vector<std::vector<void*>> lists_;  // tensor lists' arrays of device pointers
  void* start_ = nullptr;
  void* end_ = nullptr;
};

}  // namespace skb::explain
