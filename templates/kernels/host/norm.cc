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
};

static constexpr Params make(skb_k::Dims x, skb_k::Dims gamma, int64_t begin_axis, double eps) {
  Params p{1, 1, gamma.numel(), (float)eps};
  int axis = SKB_OP == LayerNorm ? x.axis(begin_axis) : x.rank - gamma.rank;
  for (int i = 0; i < x.rank; ++i) (i < axis ? p.outer : p.len) *= x.d[i];
  if (p.gamma_len <= 0) p.gamma_len = 1;
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
    for (int64_t j = 0; j < p.len; ++j) {
      const int64_t gi = j % p.gamma_len;
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
static constexpr Params make_static() {
  return make(SKB_IN_DIMS(0), SKB_IN_DIMS(1), SKB_ATTR_begin_norm_axis, SKB_ATTR_epsilon);
}
#else
static Params make_dynamic(const skb_call* c) {
  return make(skb_k::dims(c->inputs[0]), skb_k::dims(c->inputs[1]), (int64_t)skb_k::attr(c, "begin_norm_axis", 0, 0),
              skb_k::attr(c, "epsilon", 0, SKB_OP == LayerNorm ? 1e-7 : 1e-6));
}
#endif
SKB_ENTRY(make_static, make_dynamic, run)
