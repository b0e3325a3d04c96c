// SoftmaxV2 along one axis (attr axes, default -1). One thread per row; computes in float.
#include "skb_cuda.h"

typedef SKB_DT(SKB_IN0_DTYPE) TX;
typedef SKB_DT(SKB_OUT0_DTYPE) TY;
#ifndef SKB_ATTR_axes
#define SKB_ATTR_axes -1
#endif
static constexpr int64_t kAxes[] = {SKB_ATTR_axes};
static constexpr skb_cu::Dims kX = SKB_IN_DIMS(0);
SKB_REQUIRE(kX.rank >= 1 && kAxes[0] >= -kX.rank && kAxes[0] < kX.rank && skb_geom::same(kX, SKB_OUT_DIMS(0)));
static constexpr int kAxis = kX.axis(kAxes[0]);

struct Params {
  int64_t outer, len, inner;
};
static constexpr Params make() {
  Params p{1, kX.rank ? kX.d[kAxis] : 1, 1};
  for (int i = 0; i < kAxis; ++i) p.outer *= kX.d[i];
  for (int i = kAxis + 1; i < kX.rank; ++i) p.inner *= kX.d[i];
  return p;
}
static __device__ constexpr Params kP = make();

SKB_ENTRY {
  const TX* x = static_cast<const TX*>(args.in[0]);
  TY* y = static_cast<TY*>(args.out[0]);
  for (int64_t r = skb_cu::first_index(); r < kP.outer * kP.inner; r += skb_cu::grid_stride()) {
    const int64_t base = (r / kP.inner) * kP.len * kP.inner + r % kP.inner;
    float mx = -INFINITY, sum = 0.f;
    for (int64_t t = 0; t < kP.len; ++t) mx = fmaxf(mx, skb_cu::to_float(x[base + t * kP.inner]));
    for (int64_t t = 0; t < kP.len; ++t) sum += __expf(skb_cu::to_float(x[base + t * kP.inner]) - mx);
    for (int64_t t = 0; t < kP.len; ++t)
      y[base + t * kP.inner] = skb_cu::from_float<TY>(__expf(skb_cu::to_float(x[base + t * kP.inner]) - mx) / sum);
  }
}
