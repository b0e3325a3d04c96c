// LayerNorm (x, gamma, beta → y, mean, variance) and RmsNorm (x, gamma → y, rstd) over the
// trailing axes. Computes in float.
#include "skb_kernel.h"

enum { LayerNorm, RmsNorm };
typedef SKB_DT(SKB_IN0_DTYPE) TX;
typedef SKB_DT(SKB_IN1_DTYPE) TG;
typedef SKB_DT(SKB_OUT0_DTYPE) TY;
#if SKB_NUM_INPUTS > 2 && !defined(SKB_IN2_NULL)
#define SKB_HAS_BETA 1
typedef SKB_DT(SKB_IN2_DTYPE) TBeta;
#else
#define SKB_HAS_BETA 0
typedef float TBeta;
#endif
#if SKB_NUM_OUTPUTS > 1 && !defined(SKB_OUT1_NULL)
#define SKB_HAS_STAT1 1
typedef SKB_DT(SKB_OUT1_DTYPE) TS1;
#else
#define SKB_HAS_STAT1 0
typedef float TS1;
#endif
#if SKB_NUM_OUTPUTS > 2 && !defined(SKB_OUT2_NULL)
#define SKB_HAS_STAT2 1
typedef SKB_DT(SKB_OUT2_DTYPE) TS2;
#else
#define SKB_HAS_STAT2 0
typedef float TS2;
#endif

struct Params {
  int64_t outer, len, gamma_len;
  float eps;
  bool ok;  // y has x's shape; gamma, beta and the statistics hold what is read and written
};

// Present slots: x, gamma, y always; beta, stat1, stat2 only where SKB_HAS_* says so.
static constexpr Params make(skb_k::Dims x, skb_k::Dims gamma, skb_k::Dims beta, skb_k::Dims y, skb_k::Dims s1,
                             skb_k::Dims s2, int64_t begin_axis, double eps) {
  Params p{1, 1, gamma.numel(), (float)eps, false};
  if (!skb_geom::valid(x) || x.rank < 1 || !skb_geom::valid(gamma) || !skb_geom::same(x, y)) return p;
  if (SKB_OP == LayerNorm ? (begin_axis < -x.rank || begin_axis >= x.rank) : (gamma.rank < 1 || gamma.rank > x.rank))
    return p;
  int axis = SKB_OP == LayerNorm ? x.axis(begin_axis) : x.rank - gamma.rank;
  for (int i = 0; i < x.rank; ++i) (i < axis ? p.outer : p.len) *= x.d[i];
  // gamma (and beta) hold the trailing axes of x: from begin_params_axis, or the normalized ones.
  if (gamma.rank < 1 || gamma.rank > x.rank) return p;
  for (int i = 0; i < gamma.rank; ++i)
    if (gamma.d[i] != x.d[x.rank - gamma.rank + i]) return p;
  if (p.gamma_len <= 0) return p;
  if (SKB_HAS_BETA && (!skb_geom::valid(beta) || beta.numel() != p.gamma_len)) return p;
  if (SKB_HAS_STAT1 && (!skb_geom::valid(s1) || s1.numel() != p.outer)) return p;
  if (SKB_HAS_STAT2 && (!skb_geom::valid(s2) || s2.numel() != p.outer)) return p;
  p.ok = true;
  return p;
}

static inline int run(const Params& p, const void* const* in, void* const* out) {
  const TX* x = static_cast<const TX*>(in[0]);
  const TG* g = static_cast<const TG*>(in[1]);
  const TBeta* beta = SKB_HAS_BETA ? static_cast<const TBeta*>(in[2]) : nullptr;
  TY* y = static_cast<TY*>(out[0]);
  TS1* s1 = SKB_HAS_STAT1 ? static_cast<TS1*>(out[1]) : nullptr;
  TS2* s2 = SKB_HAS_STAT2 ? static_cast<TS2*>(out[2]) : nullptr;
  for (int64_t o = 0; o < p.outer; ++o) {
    const TX* xr = x + o * p.len;
    TY* yr = y + o * p.len;
    float mean = 0.f, acc = 0.f;
    if (SKB_OP == LayerNorm) {
      for (int64_t j = 0; j < p.len; ++j) mean += skb_k::to_float(xr[j]);
      mean /= (float)p.len;
    }
    for (int64_t j = 0; j < p.len; ++j) {
      float d = skb_k::to_float(xr[j]) - mean;
      acc += d * d;
    }
    const float var = acc / (float)p.len;
    const float rstd = 1.f / sqrtf(var + p.eps);
    // gamma holds x's trailing axes from begin_params_axis: of a part of a row (the normalized
    // axes end with them) or of several rows (they begin before the normalized axes).
    const int64_t gbase = p.gamma_len > p.len ? (o * p.len) % p.gamma_len : 0;
    for (int64_t j = 0; j < p.len; ++j) {
      const int64_t gi = p.gamma_len > p.len ? gbase + j : j % p.gamma_len;
      float v = (skb_k::to_float(xr[j]) - mean) * rstd * skb_k::to_float(g[gi]);
      if (SKB_HAS_BETA) v += skb_k::to_float(beta[gi]);
      yr[j] = skb_k::from_float<TY>(v);
    }
    if (SKB_OP == LayerNorm) {
      if (SKB_HAS_STAT1) s1[o] = skb_k::from_float<TS1>(mean);
      if (SKB_HAS_STAT2) s2[o] = skb_k::from_float<TS2>(var);
    } else if (SKB_HAS_STAT1) {
      s1[o] = skb_k::from_float<TS1>(rstd);
    }
  }
  return 0;
}

#ifdef SKB_STATIC
#ifndef SKB_ATTR_begin_norm_axis
#define SKB_ATTR_begin_norm_axis 0
#endif
#ifndef SKB_ATTR_epsilon
#define SKB_ATTR_epsilon (SKB_OP == LayerNorm ? 1e-7 : 1e-6)
#endif
#if SKB_HAS_BETA
#define SKB_BETA_DIMS SKB_IN_DIMS(2)
#else
#define SKB_BETA_DIMS skb_k::dims()
#endif
#if SKB_HAS_STAT1
#define SKB_STAT1_DIMS SKB_OUT_DIMS(1)
#else
#define SKB_STAT1_DIMS skb_k::dims()
#endif
#if SKB_HAS_STAT2
#define SKB_STAT2_DIMS SKB_OUT_DIMS(2)
#else
#define SKB_STAT2_DIMS skb_k::dims()
#endif
static constexpr Params make_static() {
  return make(SKB_IN_DIMS(0), SKB_IN_DIMS(1), SKB_BETA_DIMS, SKB_OUT_DIMS(0), SKB_STAT1_DIMS, SKB_STAT2_DIMS,
              SKB_ATTR_begin_norm_axis, SKB_ATTR_epsilon);
}
#else
static Params make_dynamic(const skb_call* c) {
  using skb_k::dims;
  return make(dims(c->inputs[0]), dims(c->inputs[1]), SKB_HAS_BETA ? dims(c->inputs[2]) : dims(), dims(c->outputs[0]),
              SKB_HAS_STAT1 ? dims(c->outputs[1]) : dims(), SKB_HAS_STAT2 ? dims(c->outputs[2]) : dims(),
              (int64_t)skb_k::attr(c, "begin_norm_axis", 0, 0),
              skb_k::attr(c, "epsilon", 0, SKB_OP == LayerNorm ? 1e-7 : 1e-6));
}
#endif
SKB_ENTRY(make_static, make_dynamic, run)
