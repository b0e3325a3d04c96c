#include "runtime/cuda_launch.h"

#include <fmt/format.h>

#include <cstring>

#include "opmodel/ge_types.h"
#include "runtime/cuda_driver.h"
#include "skb/runtime.h"

namespace skb::runtime {
namespace {

using opmodel::Slot;

[[noreturn]] void unsupported(const opmodel::OpRecord& r, const std::string& why) {
  throw RuntimeError(SKB_ERR_UNSUPPORTED, fmt::format("{}: a cuda kernel cannot be given {}", r.op_type, why));
}

// Bytes of each slot, and its shape in the launch ABI's form.
std::vector<std::size_t> slot_bytes(const opmodel::OpRecord& r, const std::vector<Slot>& slots, const char* side,
                                    skb_cuda_shape* shapes) {
  if (slots.size() > SKB_MAX_SLOTS)
    unsupported(r, fmt::format("{} {}s (at most {})", slots.size(), side, SKB_MAX_SLOTS));
  std::vector<std::size_t> bytes;
  for (std::size_t i = 0; i < slots.size(); ++i) {
    shapes[i].rank = -1;
    if (slots[i].kind == Slot::Kind::kList) unsupported(r, fmt::format("a tensor list ({} {})", side, i));
    if (slots[i].kind == Slot::Kind::kAbsent) {
      bytes.push_back(0);
      continue;
    }
    const auto& t = slots[i].tensors[0];
    std::size_t size = opmodel::ge_dtype_size(t.dtype);
    if (size == 0) unsupported(r, fmt::format("dtype {} ({} {})", t.dtype, side, i));
    if (t.shape.size() > SKB_CUDA_MAX_RANK) unsupported(r, fmt::format("rank {} ({} {})", t.shape.size(), side, i));
    shapes[i].rank = static_cast<int32_t>(t.shape.size());
    for (std::size_t d = 0; d < t.shape.size(); ++d) {
      shapes[i].dims[d] = t.shape[d];
      size *= static_cast<std::size_t>(t.shape[d]);  // shapes were checked against the op: bounded
    }
    bytes.push_back(size);
  }
  return bytes;
}

void fill_attrs(const opmodel::OpRecord& r, skb_cuda_call& c) {
  if (r.attrs.size() > SKB_CUDA_MAX_ATTRS) unsupported(r, fmt::format("{} attributes", r.attrs.size()));
  for (const auto& a : r.attrs) {
    skb_cuda_attr& out = c.attrs[c.num_attrs++];
    if (a.name.size() >= SKB_CUDA_ATTR_NAME) unsupported(r, fmt::format("attribute name {}", a.name));
    std::memcpy(out.name, a.name.c_str(), a.name.size() + 1);
    auto put = [&](const common::Json& v) {
      if (out.count == SKB_CUDA_MAX_ATTR_VALUES) unsupported(r, fmt::format("attribute {}: too many values", a.name));
      out.values[out.count++] = v.is_boolean() ? (v.get<bool>() ? 1.0 : 0.0) : v.get<double>();
    };
    if (a.value.is_array()) {
      for (const auto& e : a.value)
        if (e.is_number() || e.is_boolean()) put(e);
    } else if (a.value.is_number() || a.value.is_boolean()) {
      put(a.value);
    }
  }
}

std::int64_t elements(std::size_t bytes, const opmodel::OpRecord& r) {
  for (const auto& slot : r.outputs)
    if (slot.kind == Slot::Kind::kTensor)
      return static_cast<std::int64_t>(bytes / opmodel::ge_dtype_size(slot.tensors[0].dtype));
  return 0;
}

}  // namespace

CudaLaunch::CudaLaunch(const opmodel::OpRecord& record, const packager::Launch& launch, bool dynamic)
    : block_(launch.block) {
  auto call = std::make_unique<skb_cuda_call>();
  std::memset(call.get(), 0, sizeof *call);
  in_bytes_ = slot_bytes(record, record.inputs, "input", call->inputs);
  out_bytes_ = slot_bytes(record, record.outputs, "output", call->outputs);
  call->num_inputs = static_cast<int32_t>(record.inputs.size());
  call->num_outputs = static_cast<int32_t>(record.outputs.size());
  std::size_t first = 0;  // bytes of the first output
  for (std::size_t i = 0; i < out_bytes_.size() && !first; ++i) first = out_bytes_[i];
  // A static kernel's grid is its build's; a dynamic one's (0) this call's.
  grid_ = launch.grid ? launch.grid : packager::launch_grid(elements(first, record), launch.block, launch.max_grid);
  if (dynamic) {
    fill_attrs(record, *call);
    call_ = std::move(call);
  }
}

void CudaLaunch::launch(const KernelModule& m, const void* const* in, void* const* out, void* stream) const {
  if (gemm_) return gemm_->launch(in, out, stream);
  CudaDriver& cuda = *m.cuda();
  skb_args args{};
  for (std::size_t i = 0; i < in_bytes_.size(); ++i) args.in[i] = in ? in[i] : nullptr;
  for (std::size_t i = 0; i < out_bytes_.size(); ++i) args.out[i] = out ? out[i] : nullptr;
  void* params[2] = {&args, call_.get()};
  // A kernel's own launch (a static matmul's tiles) over the build record's.
  const auto& own = m.own_launch();
  const unsigned grid = own ? own->grid : grid_, block = own ? own->block : block_;
  const unsigned shared = own ? own->shared_bytes : 0;
  CudaDriver::Scope scope(cuda);
  cuda.check(cuda.cuLaunchKernel(m.symbol(), grid, 1, 1, block, 1, 1, shared, stream, params, nullptr),
             fmt::format("cuLaunchKernel(grid {}, block {}, {} bytes of shared memory)", grid, block, shared),
             SKB_ERR_KERNEL);
}

void CudaLaunch::run(const KernelModule& m, const void* const* in, void* const* out) const {
  launch(m, in, out, nullptr);
  CudaDriver::Scope scope(*m.cuda());
  m.cuda()->check(m.cuda()->cuStreamSynchronize(nullptr), "it failed on the GPU", SKB_ERR_KERNEL);
}

void CudaLaunch::run_host(const KernelModule& m, const void* const* in, void* const* out) const {
  CudaDriver& cuda = *m.cuda();
  CudaDriver::Scope scope(cuda);
  std::vector<std::unique_ptr<CudaDriver::Buffer>> buffers;
  std::vector<const void*> din(in_bytes_.size(), nullptr);
  std::vector<void*> dout(out_bytes_.size(), nullptr);
  for (std::size_t i = 0; i < in_bytes_.size(); ++i) {
    if (!in_bytes_[i] || !in[i]) continue;
    buffers.push_back(std::make_unique<CudaDriver::Buffer>(cuda, in_bytes_[i]));
    cuda.check(cuda.cuMemcpyHtoD(buffers.back()->ptr(), in[i], in_bytes_[i]), fmt::format("copying input {}", i),
               SKB_ERR_KERNEL);
    din[i] = reinterpret_cast<const void*>(static_cast<std::uintptr_t>(buffers.back()->ptr()));
  }
  for (std::size_t i = 0; i < out_bytes_.size(); ++i) {
    if (!out_bytes_[i]) continue;
    buffers.push_back(std::make_unique<CudaDriver::Buffer>(cuda, out_bytes_[i]));
    dout[i] = reinterpret_cast<void*>(static_cast<std::uintptr_t>(buffers.back()->ptr()));
  }
  run(m, din.data(), dout.data());
  for (std::size_t i = 0; i < out_bytes_.size(); ++i)
    if (dout[i] && out[i])
      cuda.check(cuda.cuMemcpyDtoH(out[i], reinterpret_cast<std::uintptr_t>(dout[i]), out_bytes_[i]),
                 fmt::format("copying output {}", i), SKB_ERR_KERNEL);
}

}  // namespace skb::runtime
