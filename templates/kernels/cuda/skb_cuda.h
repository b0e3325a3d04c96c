// Shared by every CUDA kernel template: dtypes, constant shapes, and the entry point.
// Static kernels only: every shape and attribute is a -D macro (templates/toolchains/README.md).
// The entry is `extern "C" __global__ void skb_kernel(skb_args args)`: one pointer per input and
// output slot, in device memory. Every kernel loops grid-stride, so any launch shape computes the
// whole result; 256 threads per block and enough blocks to fill the device is a good choice.
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdint.h>

#include "skb_geometry.h"

#ifndef SKB_STATIC
#error "the cuda toolchain builds static kernels only (compile with -DSKB_STATIC)"
#endif

#define SKB_MAX_RANK 8
#define SKB_MAX_SLOTS 8

/** What every kernel is launched with. */
struct skb_args {
  const void* in[SKB_MAX_SLOTS];
  void* out[SKB_MAX_SLOTS];
};

namespace skb_cu {

typedef float dt_float;
typedef __half dt_float16;
typedef __nv_bfloat16 dt_bfloat16;

__device__ inline float to_float(float x) { return x; }
__device__ inline float to_float(__half x) { return __half2float(x); }
__device__ inline float to_float(__nv_bfloat16 x) { return __bfloat162float(x); }

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

using skb_geom::Dims;
using skb_geom::dims;

__device__ inline int64_t first_index() { return (int64_t)blockIdx.x * blockDim.x + threadIdx.x; }
__device__ inline int64_t grid_stride() { return (int64_t)gridDim.x * blockDim.x; }

}  // namespace skb_cu

#define SKB_DT_(x) skb_cu::dt_##x
#define SKB_DT(x) SKB_DT_(x)
#define SKB_IN_DIMS(i) skb_cu::dims(SKB_IN##i##_SHAPE)
#define SKB_OUT_DIMS(i) skb_cu::dims(SKB_OUT##i##_SHAPE)
#define SKB_ENTRY extern "C" __global__ void skb_kernel(skb_args args)
/// A kernel whose constant shapes and attributes contradict each other does not compile.
#define SKB_REQUIRE(ok) \
  static_assert(ok, "skb: the shapes and attributes of this kernel contradict each other (see its .info)")
