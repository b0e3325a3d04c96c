// LayerNorm (x, gamma, beta → y, mean, variance) and RmsNorm (x, gamma → y, rstd) over the
// trailing axes. Computes in float.
#include "skb_kernel.h"

enum { LayerNorm, RmsNorm };
#include "skb_norm_slots.h"

typedef skb_geom::Norm Params;

// Present slots: x, gamma, y always; beta, stat1, stat2 only where SKB_HAS_* says so.
static constexpr Params make(skb_k::Dims x, skb_k::Dims gamma, skb_k::Dims beta, skb_k::Dims y, skb_k::Dims s1,
                             skb_k::Dims s2, int64_t begin_axis, double eps) {
  return skb_geom::norm(SKB_OP == LayerNorm, x, gamma, SKB_HAS_BETA, beta, y, SKB_HAS_STAT1, s1, SKB_HAS_STAT2, s2,
                        begin_axis, eps);
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
