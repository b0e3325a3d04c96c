// SoftmaxV2 over a set of axes (attr axes, default [-1]; negative, unsorted, one or several): each
// slice of x along the kept axes is normalized over all of its positions along the reduced ones.
// One thread per slice; computes in float.
#include "skb_cuda.h"

typedef SKB_DT(SKB_IN0_DTYPE) TX;
typedef SKB_DT(SKB_OUT0_DTYPE) TY;
#ifndef SKB_ATTR_axes
#define SKB_ATTR_axes -1
#endif
static constexpr int64_t kAxes[] = {SKB_ATTR_axes};
static constexpr int kNumAxes = (int)(sizeof kAxes / sizeof kAxes[0]);
static constexpr skb_cu::Dims kX = SKB_IN_DIMS(0);

typedef skb_geom::Reduction Params;
static constexpr Params make() { return skb_geom::reduction(kX, kAxes, kNumAxes); }
SKB_REQUIRE(make().ok && skb_geom::same(kX, SKB_OUT_DIMS(0)));
static __device__ constexpr Params kP = make();

__device__ inline int64_t offset(int64_t i, int n, const int64_t* d, const int64_t* s) {
  int64_t off = 0;
  for (int k = n; k-- > 0;) {
    off += (i % d[k]) * s[k];
    i /= d[k];
  }
  return off;
}

SKB_ENTRY {
  const TX* x = static_cast<const TX*>(args.in[0]);
  TY* y = static_cast<TY*>(args.out[0]);
  for (int64_t r = skb_cu::first_index(); r < kP.rows; r += skb_cu::grid_stride()) {
    const int64_t base = offset(r, kP.nk, kP.kd, kP.ks);
#define SKB_AT(t) (base + (kP.nr == 1 ? (t) * kP.rs[0] : offset((t), kP.nr, kP.rd, kP.rs)))
    float mx = -INFINITY, sum = 0.f;
    for (int64_t t = 0; t < kP.len; ++t) mx = fmaxf(mx, skb_cu::to_float(x[SKB_AT(t)]));
    for (int64_t t = 0; t < kP.len; ++t) sum += __expf(skb_cu::to_float(x[SKB_AT(t)]) - mx);
    for (int64_t t = 0; t < kP.len; ++t) y[SKB_AT(t)] = skb_cu::from_float<TY>(__expf(skb_cu::to_float(x[SKB_AT(t)]) - mx) / sum);
#undef SKB_AT
  }
}
