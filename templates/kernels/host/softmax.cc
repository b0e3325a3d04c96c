// SoftmaxV2 over a set of axes (attr axes, default [-1]; negative, unsorted, one or several, as
// CANN's list_int allows): each slice of x along the kept axes is normalized over all of its
// positions along the reduced ones. Computes in float, each e^x once.
#include "skb_kernel.h"
#include "skb_math.h"

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

// Softmax of one slice of len values, read by at(j) and written by put(j, v): its maximum, then
// e^(x - max) once per value into e, their sum, then each e over the sum.
template <class At, class Put>
static inline void slice(int64_t len, float* e, At at, Put put) {
  const float mx = skb_k::max_f(len, at);
  for (int64_t j = 0; j < len; ++j) e[j] = skb_k::exp_f(at(j) - mx);
  const float inv = 1.f / skb_k::sum_f(e, len);
  for (int64_t j = 0; j < len; ++j) put(j, e[j] * inv);
}

static inline int run(const Params& p, const void* const* in, void* const* out) {
  const TX* x = static_cast<const TX*>(in[0]);
  TY* y = static_cast<TY*>(out[0]);
  enum { kStack = 2048 };  // a slice this long or shorter keeps its e on the stack
  float stack[kStack];
  float* e = p.len <= kStack ? stack : static_cast<float*>(skb_k::alloc_floats(p.len));
  if (!e) return 1;
  for (int64_t o = 0; o < p.rows; ++o) {
    const int64_t base = offset(o, p.nk, p.kd, p.ks);
    if (p.nr == 1 && p.rs[0] == 1) {  // the reduced axes are one contiguous run (the last axes)
      const TX* xr = x + base;
      TY* yr = y + base;
      slice(
          p.len, e, [&](int64_t j) { return skb_k::to_float(xr[j]); },
          [&](int64_t j, float v) { yr[j] = skb_k::from_float<TY>(v); });
    } else {  // element j: j * stride over one reduced dim (any contiguous set of axes)
      auto at = [&](int64_t j) { return base + (p.nr == 1 ? j * p.rs[0] : offset(j, p.nr, p.rd, p.rs)); };
      slice(
          p.len, e, [&](int64_t j) { return skb_k::to_float(x[at(j)]); },
          [&](int64_t j, float v) { y[at(j)] = skb_k::from_float<TY>(v); });
    }
  }
  if (e != stack) free(e);
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
