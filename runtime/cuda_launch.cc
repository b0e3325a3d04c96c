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

// Bytes of each tensor, and its shape in the launch ABI's form: slots in order, a tensor list's
// tensors one after another from its slot's place on (ConcatD's x), an absent slot one entry of
// rank -1. `lists` gets, per slot, how many tensors it has when it is a list, else 0.
std::vector<std::size_t> slot_bytes(const opmodel::OpRecord& r, const std::vector<Slot>& slots, const char* side,
                                    skb_cuda_shape* shapes, std::vector<std::size_t>& lists) {
  std::vector<std::size_t> bytes;
  auto room = [&] {
    if (bytes.size() == SKB_MAX_SLOTS)
      unsupported(r, fmt::format("more than {} {} tensors (slots and list items)", SKB_MAX_SLOTS, side));
  };
  for (std::size_t i = 0; i < slots.size(); ++i) {
    lists.push_back(slots[i].kind == Slot::Kind::kList ? slots[i].tensors.size() : 0);
    if (slots[i].kind == Slot::Kind::kAbsent) {
      room();
      shapes[bytes.size()].rank = -1;
      bytes.push_back(0);
      continue;
    }
    for (const auto& t : slots[i].tensors) {
      room();
      std::size_t size = opmodel::ge_dtype_size(t.dtype);
      if (size == 0) unsupported(r, fmt::format("dtype {} ({} {})", t.dtype, side, i));
      if (t.shape.size() > SKB_CUDA_MAX_RANK) unsupported(r, fmt::format("rank {} ({} {})", t.shape.size(), side, i));
      skb_cuda_shape& shape = shapes[bytes.size()];
      shape.rank = static_cast<int32_t>(t.shape.size());
      for (std::size_t d = 0; d < t.shape.size(); ++d) {
        shape.dims[d] = t.shape[d];
        size *= static_cast<std::size_t>(t.shape[d]);  // shapes were checked against the op: bounded
      }
      bytes.push_back(size);
    }
  }
  return bytes;
}

// The tensors' pointers in the launch ABI's order from the caller's slots (a list slot holds the
// address of an array of its tensors' pointers); nullptr slots stay nullptr.
template <typename P>
std::vector<P> flatten(const P* slots, const std::vector<std::size_t>& lists, std::size_t tensors) {
  std::vector<P> flat;
  for (std::size_t i = 0; i < lists.size() && flat.size() < tensors; ++i) {
    if (!lists[i]) {
      flat.push_back(slots ? slots[i] : nullptr);
      continue;
    }
    const auto* items = slots ? static_cast<const P*>(slots[i]) : nullptr;
    for (std::size_t j = 0; j < lists[i]; ++j) flat.push_back(items ? items[j] : nullptr);
  }
  flat.resize(tensors, nullptr);
  return flat;
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

// The tensor maps of a kernel's plan over this call's inputs, encoded in order until one
// cannot be (an input not 16-byte aligned): `encoded` says how many were, and the kernel reads
// through them only when all were.
skb_cuda_tensor_maps encode_maps(const CudaDriver& cuda, const skb_cuda_tma_plan& plan, const skb_args& args) {
  skb_cuda_tensor_maps maps{};
  for (std::uint32_t i = 0; i < plan.count; ++i) {
    const skb_cuda_tma& m = plan.maps[i];
    const void* base = args.in[m.slot];
    if (!base || reinterpret_cast<std::uintptr_t>(base) % 16) break;
    const unsigned element_strides[SKB_CUDA_TMA_RANK] = {1, 1, 1};
    constexpr unsigned kInterleaveNone = 0, kL2Promotion256 = 3, kOobFillZeros = 0;
    if (cuda.cuTensorMapEncodeTiled(&maps.words[16 * i], m.data_type, m.rank, const_cast<void*>(base), m.dims,
                                    m.strides, m.box, element_strides, kInterleaveNone, m.swizzle, kL2Promotion256,
                                    kOobFillZeros) != 0)
      break;
    maps.encoded = i + 1;
  }
  return maps;
}

}  // namespace

CudaLaunch::CudaLaunch(const opmodel::OpRecord& record, const packager::Launch& launch, bool dynamic)
    : block_(launch.block) {
  auto call = std::make_unique<skb_cuda_call>();
  std::memset(call.get(), 0, sizeof *call);
  in_bytes_ = slot_bytes(record, record.inputs, "input", call->inputs, in_lists_);
  out_bytes_ = slot_bytes(record, record.outputs, "output", call->outputs, out_lists_);
  call->num_inputs = static_cast<int32_t>(in_bytes_.size());
  call->num_outputs = static_cast<int32_t>(out_bytes_.size());
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
  if (gemm_) return gemm_->launch(in, out, stream);         // matmuls have no lists
  if (m.own_launch() && m.own_launch()->grid == 0) return;  // an empty output: nothing to compute
  CudaDriver& cuda = *m.cuda();
  skb_args args{};
  const auto flat_in = flatten(in, in_lists_, in_bytes_.size());
  const auto flat_out = flatten(out, out_lists_, out_bytes_.size());
  std::copy(flat_in.begin(), flat_in.end(), args.in);
  std::copy(flat_out.begin(), flat_out.end(), args.out);
  // A dynamic kernel's second parameter is its call; a static one's, where it has one, its tensor maps.
  skb_cuda_tensor_maps maps{};
  if (m.tensor_maps()) maps = encode_maps(cuda, *m.tensor_maps(), args);
  void* params[2] = {&args, m.tensor_maps() ? static_cast<void*>(&maps) : call_.get()};
  // A kernel's own launch (a static matmul's tiles) over the build record's.
  const auto& own = m.own_launch();
  const unsigned grid = own ? own->grid : grid_, block = own ? own->block : block_;
  const unsigned shared = own ? own->shared_bytes : 0;
  CudaDriver::Scope scope(cuda);
  if (m.dependent_launch()) {  // its blocks may start while the grid before it finishes; they wait for it
    CudaDriver::LaunchAttribute dependent{};
    dependent.id = CudaDriver::kProgrammaticStreamSerialization;
    dependent.value.flag = 1;
    const CudaDriver::LaunchConfig config{grid, 1, 1, block, 1, 1, shared, stream, &dependent, 1};
    cuda.check(cuda.cuLaunchKernelEx(&config, m.symbol(), params, nullptr),
               fmt::format("cuLaunchKernelEx(grid {}, block {}, {} bytes of shared memory, dependent launch)", grid,
                           block, shared),
               SKB_ERR_KERNEL);
    return;
  }
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
  auto device = [&](std::size_t bytes) {
    buffers.push_back(std::make_unique<CudaDriver::Buffer>(cuda, bytes));
    return buffers.back()->address();
  };
  const auto host_in = flatten(in, in_lists_, in_bytes_.size());
  const auto host_out = flatten(out, out_lists_, out_bytes_.size());
  std::vector<const void*> din(host_in.size(), nullptr);
  std::vector<void*> dout(host_out.size(), nullptr);
  for (std::size_t i = 0; i < din.size(); ++i) {
    if (!in_bytes_[i] || !host_in[i]) continue;
    din[i] = device(in_bytes_[i]);
    cuda.check(cuda.cuMemcpyHtoD(reinterpret_cast<std::uintptr_t>(din[i]), host_in[i], in_bytes_[i]),
               fmt::format("copying input {}", i), SKB_ERR_KERNEL);
  }
  for (std::size_t i = 0; i < dout.size(); ++i)
    if (out_bytes_[i]) dout[i] = device(out_bytes_[i]);
  // The device pointers in the caller's layout again: a list slot as the address of its array.
  auto slots = [](auto& flat, const std::vector<std::size_t>& lists, auto& arrays) {
    using P = typename std::decay_t<decltype(flat)>::value_type;
    std::vector<P> layout;
    std::size_t at = 0;
    for (std::size_t n : lists) {
      if (!n) {
        layout.push_back(flat[at++]);
        continue;
      }
      arrays.emplace_back(flat.begin() + static_cast<std::ptrdiff_t>(at),
                          flat.begin() + static_cast<std::ptrdiff_t>(at + n));
      layout.push_back(reinterpret_cast<P>(arrays.back().data()));
      at += n;
    }
    return layout;
  };
  std::vector<std::vector<const void*>> in_arrays;
  std::vector<std::vector<void*>> out_arrays;
  in_arrays.reserve(in_lists_.size());
  out_arrays.reserve(out_lists_.size());
  const auto din_slots = slots(din, in_lists_, in_arrays);
  const auto dout_slots = slots(dout, out_lists_, out_arrays);
  run(m, din_slots.data(), dout_slots.data());
  for (std::size_t i = 0; i < dout.size(); ++i)
    if (dout[i] && host_out[i])
      cuda.check(cuda.cuMemcpyDtoH(host_out[i], reinterpret_cast<std::uintptr_t>(dout[i]), out_bytes_[i]),
                 fmt::format("copying output {}", i), SKB_ERR_KERNEL);
}

}  // namespace skb::runtime
