// Transpose: y = x with axes permuted by perm (input 1, value-dependent: a compile-time constant
// in static kernels; dynamic ones read it from the input's device memory). One thread per element
// of y, grid-stride; copies through float, as the host template does.
#include "skb_cuda.h"

enum { Transpose };
typedef SKB_DT(SKB_IN0_DTYPE) TX;
typedef SKB_DT(SKB_OUT0_DTYPE) TY;

typedef skb_geom::Permute Params;

__device__ inline void run(const Params& p, skb_args args) {
  const TX* x = static_cast<const TX*>(args.in[0]);
  TY* y = static_cast<TY*>(args.out[0]);
  for (int64_t i = skb_cu::first_index(); i < p.n; i += skb_cu::grid_stride()) {
    int64_t rest = i, off = 0;
    for (int d = p.rank - 1; d >= 0; --d) {
      off += rest % p.out[d] * p.stride[d];
      rest /= p.out[d];
    }
    y[i] = skb_cu::from_float<TY>(skb_cu::to_float(x[off]));
  }
}

#ifdef SKB_STATIC
static constexpr int64_t kPerm[SKB_MAX_RANK + 1] = {SKB_IN1_CONST};
static SKB_HD constexpr Params make_static() {
  return skb_geom::permute(SKB_IN_DIMS(0), kPerm, SKB_IN1_CONST_LEN, SKB_OUT_DIMS(0));
}
#else
typedef SKB_DT(SKB_IN1_DTYPE) TPerm;
static __device__ Params make_dynamic(const skb_cuda_call& c, const skb_args& args) {
  const skb_cu::Dims x = skb_cu::dims(c.inputs[0]), perm_shape = skb_cu::dims(c.inputs[1]);
  // perm holds one value per axis of x: read no more than that.
  if (!skb_geom::valid(x) || perm_shape.rank != 1 || perm_shape.d[0] != x.rank || !args.in[1]) return Params{};
  const TPerm* values = static_cast<const TPerm*>(args.in[1]);
  int64_t perm[SKB_MAX_RANK] = {0};
  for (int i = 0; i < x.rank; ++i) perm[i] = (int64_t)values[i];
  return skb_geom::permute(x, perm, x.rank, skb_cu::dims(c.outputs[0]));
}
#endif
SKB_ENTRY(make_static, make_dynamic, run)
