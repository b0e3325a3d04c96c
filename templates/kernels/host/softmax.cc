// SoftmaxV2 over a set of axes (attr axes, default [-1]; negative, unsorted, one or several, as
// CANN's list_int allows): each slice of x along the kept axes is normalized over all of its
// positions along the reduced ones. Computes in float.
#include "skb_kernel.h"

enum { SoftmaxV2 };
typedef SKB_DT(SKB_IN0_DTYPE) TX;
typedef SKB_DT(SKB_OUT0_DTYPE) TY;

typedef skb_geom::Reduction Params;
// ok also says that y has x's shape.
static constexpr Params make(skb_k::Dims x, skb_k::Dims y, const int64_t* axes, int n) {
  Params p = skb_geom::reduction(x, axes, n);
  p.ok = p.ok && skb_geom::same(x, y);
  return p;
}

// Offset of index i over dims d (row-major), strides s.
static inline int64_t offset(int64_t i, int n, const int64_t* d, const int64_t* s) {
  int64_t off = 0;
  for (int k = n; k-- > 0;) {
    off += (i % d[k]) * s[k];
    i /= d[k];
  }
  return off;
}

static inline int run(const Params& p, const void* const* in, void* const* out) {
  const TX* x = static_cast<const TX*>(in[0]);
  TY* y = static_cast<TY*>(out[0]);
  for (int64_t o = 0; o < p.rows; ++o) {
    const int64_t base = offset(o, p.nk, p.kd, p.ks);
    // One reduced dim (every contiguous set of axes): element j is at j * stride.
#define SKB_AT(j) (base + (p.nr == 1 ? (j) * p.rs[0] : offset((j), p.nr, p.rd, p.rs)))
    float mx = -INFINITY;
    for (int64_t j = 0; j < p.len; ++j) mx = fmaxf(mx, skb_k::to_float(x[SKB_AT(j)]));
    float sum = 0.f;
    for (int64_t j = 0; j < p.len; ++j) sum += expf(skb_k::to_float(x[SKB_AT(j)]) - mx);
    const float inv = 1.f / sum;
    for (int64_t j = 0; j < p.len; ++j)
      y[SKB_AT(j)] = skb_k::from_float<TY>(expf(skb_k::to_float(x[SKB_AT(j)]) - mx) * inv);
#undef SKB_AT
  }
  return 0;
}

#ifdef SKB_STATIC
#ifndef SKB_ATTR_axes
#define SKB_ATTR_axes -1
#endif
static constexpr int64_t kAxes[] = {SKB_ATTR_axes};
static constexpr Params make_static() {
  return make(SKB_IN_DIMS(0), SKB_OUT_DIMS(0), kAxes, (int)(sizeof kAxes / sizeof kAxes[0]));
}
#else
static Params make_dynamic(const skb_call* c) {
  int64_t axes[SKB_MAX_RANK] = {-1};
  int n = skb_k::attr_count(c, "axes");
  if (n == 0) n = 1;  // absent: the last axis
  if (n > SKB_MAX_RANK) return Params{};
  for (int i = 0; i < n; ++i) axes[i] = (int64_t)skb_k::attr(c, "axes", i, -1);
  return make(skb_k::dims(c->inputs[0]), skb_k::dims(c->outputs[0]), axes, n);
}
#endif
SKB_ENTRY(make_static, make_dynamic, run)
