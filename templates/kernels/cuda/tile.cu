// Tile: y = x repeated multiples[i] times along each axis i (input 1, value-dependent: a
// compile-time constant in static kernels; dynamic ones read it from the input's device memory);
// x's shape is padded with leading ones to the length of multiples, as numpy.tile does. One
// thread per element of y, grid-stride; copies elements.
#include "skb_cuda.h"

enum { Tile };
typedef SKB_DT(SKB_IN0_DTYPE) TX;

typedef skb_geom::Tiling Params;

__device__ inline void run(const Params& p, skb_args args) {
  const TX* x = static_cast<const TX*>(args.in[0]);
  TX* y = static_cast<TX*>(args.out[0]);
  for (int64_t i = skb_cu::first_index(); i < p.n; i += skb_cu::grid_stride()) {
    int64_t rest = i, off = 0;
    for (int d = p.rank - 1; d >= 0; --d) {
      off += rest % p.out[d] % p.in[d] * p.stride[d];
      rest /= p.out[d];
    }
    y[i] = x[off];
  }
}

#ifdef SKB_STATIC
static constexpr int64_t kMultiples[SKB_MAX_RANK + 1] = {SKB_IN1_CONST};
static SKB_HD constexpr Params make_static() {
  return skb_geom::tiling(SKB_IN_DIMS(0), kMultiples, SKB_IN1_CONST_LEN, SKB_OUT_DIMS(0));
}
#else
typedef SKB_DT(SKB_IN1_DTYPE) TMultiple;
static __device__ Params make_dynamic(const skb_cuda_call& c, const skb_args& args) {
  const skb_cu::Dims x = skb_cu::dims(c.inputs[0]), m = skb_cu::dims(c.inputs[1]), y = skb_cu::dims(c.outputs[0]);
  // multiples holds one value per axis of y: read no more than that.
  if (!skb_geom::valid(y) || m.rank != 1 || m.d[0] != y.rank || !args.in[1]) return Params{};
  const TMultiple* values = static_cast<const TMultiple*>(args.in[1]);
  int64_t multiples[SKB_MAX_RANK] = {0};
  for (int i = 0; i < y.rank; ++i) multiples[i] = (int64_t)values[i];
  return skb_geom::tiling(x, multiples, y.rank, y);
}
#endif
SKB_ENTRY(make_static, make_dynamic, run)
