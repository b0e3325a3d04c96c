#include "explain/device_call.h"

#include <fmt/format.h>

#include "runtime/kernel_module.h"

namespace skb::explain {
using runtime::CudaDriver;
using runtime::RuntimeError;

DeviceCall::DeviceCall(const std::vector<reference::Buffer>& in, const std::vector<reference::Buffer>& out)
    : cuda_(CudaDriver::get()) {
  CudaDriver::Scope scope(cuda_);
  auto place = [&](const reference::Buffer& b, const char* side, std::size_t i, bool copy) -> void* {
    if (b.bytes.empty()) return nullptr;  // an absent input
    buffers_.push_back(std::make_unique<CudaDriver::Buffer>(cuda_, b.bytes.size()));
    if (copy)
      cuda_.check(cuda_.cuMemcpyHtoD(buffers_.back()->ptr(), b.bytes.data(), b.bytes.size()),
                  fmt::format("copying {} {}", side, i), SKB_ERR_KERNEL);
    return buffers_.back()->address();
  };
  // A tensor list (ConcatD's x) is the address of an array of its tensors' device pointers.
  auto slot = [&](const reference::Buffer& b, const char* side, std::size_t i, bool copy) -> void* {
    if (!b.list) return place(b, side, i, copy);
    lists_.emplace_back();
    for (const auto& item : b.items) lists_.back().push_back(place(item, side, i, copy));
    return lists_.back().data();
  };
  lists_.reserve(in.size() + out.size());
  for (std::size_t i = 0; i < in.size(); ++i) in_.push_back(slot(in[i], "input", i, true));
  for (std::size_t i = 0; i < out.size(); ++i) out_.push_back(slot(out[i], "output", i, false));
  cuda_.check(cuda_.cuEventCreate(&start_, 0), "cuEventCreate", SKB_ERR_KERNEL);
  cuda_.check(cuda_.cuEventCreate(&end_, 0), "cuEventCreate", SKB_ERR_KERNEL);
}

DeviceCall::~DeviceCall() {
  try {
    CudaDriver::Scope scope(cuda_);
    if (start_) cuda_.cuEventDestroy(start_);
    if (end_) cuda_.cuEventDestroy(end_);
    buffers_.clear();
  } catch (const RuntimeError&) {
  }
}

int DeviceCall::run(const skb_op* op) {
  int rc = skb_op_launch(op, in_.data(), out_.data(), nullptr);
  if (rc != SKB_OK) return rc;
  CudaDriver::Scope scope(cuda_);
  cuda_.check(cuda_.cuEventRecord(end_, nullptr), "cuEventRecord", SKB_ERR_KERNEL);
  cuda_.check(cuda_.cuEventSynchronize(end_), "it failed on the GPU", SKB_ERR_KERNEL);
  return SKB_OK;
}

double DeviceCall::sample(const skb_op* op, long calls) {
  CudaDriver::Scope scope(cuda_);
  cuda_.check(cuda_.cuEventRecord(start_, nullptr), "cuEventRecord", SKB_ERR_KERNEL);
  for (long i = 0; i < calls; ++i)
    if (skb_op_launch(op, in_.data(), out_.data(), nullptr) != SKB_OK)
      throw RuntimeError(SKB_ERR_KERNEL, skb_last_error());
  cuda_.check(cuda_.cuEventRecord(end_, nullptr), "cuEventRecord", SKB_ERR_KERNEL);
  cuda_.check(cuda_.cuEventSynchronize(end_), "it failed on the GPU", SKB_ERR_KERNEL);
  float ms = 0;
  cuda_.check(cuda_.cuEventElapsedTime(&ms, start_, end_), "cuEventElapsedTime", SKB_ERR_KERNEL);
  return ms / 1e3;
}

}  // namespace skb::explain
