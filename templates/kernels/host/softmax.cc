// SoftmaxV2 along one axis (attr axes, default -1). Computes in float.
#include "skb_kernel.h"

enum { SoftmaxV2 };
typedef SKB_DT(SKB_IN0_DTYPE) TX;
typedef SKB_DT(SKB_OUT0_DTYPE) TY;

struct Params {
  int64_t outer, len, inner;
  bool ok;  // the axis is one of x's, y has x's shape
};

static constexpr Params make(skb_k::Dims x, skb_k::Dims y, int64_t axis_attr) {
  Params p{1, 1, 1, false};
  if (!skb_geom::valid(x) || x.rank < 1 || axis_attr < -x.rank || axis_attr >= x.rank || !skb_geom::same(x, y))
    return p;
  p.ok = true;
  int axis = x.axis(axis_attr);
  for (int i = 0; i < x.rank; ++i) {
    if (i < axis)
      p.outer *= x.d[i];
    else if (i == axis)
      p.len = x.d[i];
    else
      p.inner *= x.d[i];
  }
  return p;
}

static inline int run(const Params& p, const void* const* in, void* const* out) {
  const TX* x = static_cast<const TX*>(in[0]);
  TY* y = static_cast<TY*>(out[0]);
  for (int64_t o = 0; o < p.outer; ++o) {
    for (int64_t i = 0; i < p.inner; ++i) {
      const int64_t base = o * p.len * p.inner + i;
      float mx = -INFINITY;
      for (int64_t j = 0; j < p.len; ++j) mx = fmaxf(mx, skb_k::to_float(x[base + j * p.inner]));
      float sum = 0.f;
      for (int64_t j = 0; j < p.len; ++j) sum += expf(skb_k::to_float(x[base + j * p.inner]) - mx);
      const float inv = 1.f / sum;
      for (int64_t j = 0; j < p.len; ++j)
        y[base + j * p.inner] = skb_k::from_float<TY>(expf(skb_k::to_float(x[base + j * p.inner]) - mx) * inv);
    }
  }
  return 0;
}

#ifdef SKB_STATIC
#ifndef SKB_ATTR_axes
#define SKB_ATTR_axes -1
#endif
static constexpr int64_t kAxes[] = {SKB_ATTR_axes};
static constexpr Params make_static() { return make(SKB_IN_DIMS(0), SKB_OUT_DIMS(0), kAxes[0]); }
#else
static Params make_dynamic(const skb_call* c) {
  return make(skb_k::dims(c->inputs[0]), skb_k::dims(c->outputs[0]), (int64_t)skb_k::attr(c, "axes", 0, -1));
}
#endif
SKB_ENTRY(make_static, make_dynamic, run)
