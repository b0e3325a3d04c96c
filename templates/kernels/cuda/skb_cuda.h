// Shared by every CUDA kernel template: dtypes, shapes, and the two entry points (skb_cuda_abi.h).
// A template is compiled with -DSKB_STATIC (every shape and attribute a -D macro,
// templates/toolchains/README.md) or -DSKB_DYNAMIC (they come with each launch, in skb_cuda_call).
// Every kernel loops grid-stride, so any launch shape computes the whole result; 256 threads per
// block and enough blocks to fill the device is a good choice.
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdint.h>

#include "skb_cuda_abi.h"
#define SKB_MAX_RANK SKB_CUDA_MAX_RANK
#include "skb_dtype_traits.h"
#include "skb_geometry.h"

#if defined(SKB_STATIC) == defined(SKB_DYNAMIC)
#error "compile with exactly one of -DSKB_STATIC and -DSKB_DYNAMIC"
#endif

namespace skb_cu {

typedef float dt_float;
typedef __half dt_float16;
typedef __nv_bfloat16 dt_bfloat16;
typedef int32_t dt_int32;
typedef int64_t dt_int64;

using skb_geom::IsInt;

__device__ inline float to_float(float x) { return x; }
__device__ inline float to_float(__half x) { return __half2float(x); }
__device__ inline float to_float(__nv_bfloat16 x) { return __bfloat162float(x); }
__device__ inline float to_float(int32_t x) { return (float)x; }
__device__ inline float to_float(int64_t x) { return (float)x; }

template <class T>
__device__ inline T from_float(float f);
template <>
__device__ inline float from_float<float>(float f) {
  return f;
}
template <>
__device__ inline __half from_float<__half>(float f) {
  return __float2half_rn(f);
}
template <>
__device__ inline __nv_bfloat16 from_float<__nv_bfloat16>(float f) {
  return __float2bfloat16_rn(f);
}
template <>
__device__ inline int32_t from_float<int32_t>(float f) {
  return (int32_t)f;
}
template <>
__device__ inline int64_t from_float<int64_t>(float f) {
  return (int64_t)f;
}

using skb_geom::Dims;
using skb_geom::dims;

__device__ inline float warp_max(float v) {
  for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}

__device__ inline float warp_sum(float v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

/// A programmatic dependent launch's two sides (sm_90 and later): wait until the grids before
/// this one in its stream have finished and their writes are visible, then let the grid after
/// it start its blocks (which wait in turn). For a kernel not launched that way both are no-ops.
/// A static kernel calls it before it reads or writes global memory (skb_cuda_abi.h's skb_awaits).
__device__ inline void await_prior_grids() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;\n" ::: "memory");
  asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");
#endif
}

__device__ inline int64_t first_index() { return (int64_t)blockIdx.x * blockDim.x + threadIdx.x; }
__device__ inline int64_t grid_stride() { return (int64_t)gridDim.x * blockDim.x; }

/// A dynamic call's shape, checked as the host's are (skb_geom::checked).
__device__ inline Dims dims(const skb_cuda_shape& s) { return skb_geom::checked(s); }

/// A dynamic call with exactly the slots the kernel was built for.
__device__ inline bool call_fits(const skb_cuda_call& c, int inputs, int outputs) {
  return c.num_inputs == inputs && c.num_outputs == outputs && c.num_attrs >= 0 && c.num_attrs <= SKB_CUDA_MAX_ATTRS;
}

/// The attribute of a dynamic call named name, or null.
__device__ inline const skb_cuda_attr* find_attr(const skb_cuda_call& c, const char* name) {
  for (int i = 0; i < c.num_attrs && i < SKB_CUDA_MAX_ATTRS; ++i) {
    const char* a = c.attrs[i].name;
    int j = 0;
    while (j < SKB_CUDA_ATTR_NAME && a[j] == name[j] && name[j]) ++j;
    if (j < SKB_CUDA_ATTR_NAME && a[j] == name[j]) return &c.attrs[i];
  }
  return nullptr;
}

/// Value index of an attribute of a dynamic call, or def when absent.
__device__ inline double attr(const skb_cuda_call& c, const char* name, int index, double def) {
  const skb_cuda_attr* a = find_attr(c, name);
  return a && index >= 0 && index < a->count && index < SKB_CUDA_MAX_ATTR_VALUES ? a->values[index] : def;
}

/// How many values an attribute of a dynamic call has (0 when absent).
__device__ inline int attr_count(const skb_cuda_call& c, const char* name) {
  const skb_cuda_attr* a = find_attr(c, name);
  return a ? a->count : 0;
}

}  // namespace skb_cu

#define SKB_DT_(x) skb_cu::dt_##x
#define SKB_DT(x) SKB_DT_(x)

// A template defines its Params (trivially constructible, with `ok`: its shapes and attributes
// agree with each other), make_static() (constexpr, under SKB_STATIC) or make_dynamic(call, args)
// (__device__, under SKB_DYNAMIC; args for a value-dependent input, read from device memory),
// and `__device__ void run(const Params&, skb_args)`, the grid-stride loop; SKB_ENTRY defines the
// entry point from them. A static kernel whose constants contradict each other does not compile.
// A dynamic kernel's thread 0 computes its parameters once per block, into shared memory
// (reading the call in place: __grid_constant__); a call that does not fit returns, writing
// nothing. That code is a function of its own (__noinline__), so
// that its registers and spills stay out of the loop, and __launch_bounds__(1024) keeps the kernel
// within the registers a block of any size may have.
// The tensors a dynamic call has: one a slot, unless a template's slot is a list (it says).
#ifndef SKB_CALL_INPUTS
#define SKB_CALL_INPUTS SKB_NUM_INPUTS
#endif
#ifdef SKB_STATIC
/// Shape of input/output i as a constant expression.
#define SKB_IN_DIMS(i) skb_cu::dims(SKB_IN##i##_SHAPE)
#define SKB_OUT_DIMS(i) skb_cu::dims(SKB_OUT##i##_SHAPE)
// A template may define SKB_KERNEL_BOUNDS (__launch_bounds__ of its static entry) and give its
// static kernel a launch of its own with SKB_LAUNCH(grid, block, shared bytes).
#ifndef SKB_KERNEL_BOUNDS
#define SKB_KERNEL_BOUNDS
#endif
#define SKB_LAUNCH(grid, block, shared) \
  extern "C" __constant__ skb_cuda_launch skb_launch = {(grid), (block), (shared), 0};
// A static kernel built for sm_90 or later awaits the grids before it (skb_cu::await_prior_grids)
// and says so (skb_awaits): the runtime may launch it while they finish.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define SKB_AWAITS extern "C" __constant__ uint32_t skb_awaits = 1;
#else
#define SKB_AWAITS
#endif
// The static kernel's parameters, a constant checked at compile time.
#define SKB_STATIC_PARAMS(make_static)                                                                  \
  static_assert(make_static().ok,                                                                       \
                "skb: the shapes and attributes of this kernel contradict each other (see its .info)"); \
  static __device__ constexpr Params skb_params = make_static();
#define SKB_ENTRY(make_static, make_dynamic, run)                          \
  SKB_STATIC_PARAMS(make_static)                                           \
  SKB_AWAITS                                                               \
  extern "C" __global__ void SKB_KERNEL_BOUNDS skb_kernel(skb_args args) { \
    skb_cu::await_prior_grids();                                           \
    run(skb_params, args);                                                 \
  }
// SKB_TMA(plan) gives it tensor maps (skb_cuda_abi.h); its entry, SKB_ENTRY_MAPS, then calls
// run(params, args, maps), which awaits the prior grids itself (after its shared memory is set up).
#define SKB_TMA(...) extern "C" __constant__ skb_cuda_tma_plan skb_tma = __VA_ARGS__;
#define SKB_ENTRY_MAPS(make_static, run)                                                                       \
  SKB_STATIC_PARAMS(make_static)                                                                               \
  SKB_AWAITS                                                                                                   \
  extern "C" __global__ void SKB_KERNEL_BOUNDS skb_kernel(skb_args args,                                       \
                                                          const __grid_constant__ skb_cuda_tensor_maps maps) { \
    run(skb_params, args, maps);                                                                               \
  }
#else
#define SKB_ENTRY(make_static, make_dynamic, run)                                                                   \
  static __device__ __noinline__ void skb_make_params(const skb_cuda_call& call, const skb_args& args, Params* p) { \
    p->ok = false;                                                                                                  \
    if (skb_cu::call_fits(call, SKB_CALL_INPUTS, SKB_NUM_OUTPUTS)) *p = make_dynamic(call, args);                   \
  }                                                                                                                 \
  extern "C" __global__ void __launch_bounds__(1024)                                                                \
      skb_kernel_dynamic(skb_args args, const __grid_constant__ skb_cuda_call call) {                               \
    __shared__ Params params;                                                                                       \
    if (threadIdx.x == 0) skb_make_params(call, args, &params);                                                     \
    __syncthreads();                                                                                                \
    if (params.ok) run(params, args);                                                                               \
  }
#endif
