// LayerNorm (x, gamma, beta → y, mean, variance) and RmsNorm (x, gamma → y, rstd) over the
// trailing axes (skb_geometry.h's norm, as the host template). One warp per row: its lanes
// stride over the row (reads coalesce) and reduce with shuffles; computes in float. A block that
// is not whole warps (the runtime never launches one) takes one thread per row.
#include "skb_cuda.h"

enum { LayerNorm, RmsNorm };
#include "skb_norm_slots.h"

typedef skb_geom::Norm Params;

// Present slots: x, gamma, y always; beta, stat1, stat2 only where SKB_HAS_* says so.
static SKB_HD constexpr Params make(skb_cu::Dims x, skb_cu::Dims gamma, skb_cu::Dims beta, skb_cu::Dims y,
                                    skb_cu::Dims s1, skb_cu::Dims s2, int64_t begin_axis, double eps) {
  return skb_geom::norm(SKB_OP == LayerNorm, x, gamma, SKB_HAS_BETA, beta, y, SKB_HAS_STAT1, s1, SKB_HAS_STAT2, s2,
                        begin_axis, eps);
}

// Rows r = first, first + step, ... each by `width` lanes (32: a warp, 1: a thread).
template <int width>
__device__ inline void rows(const Params& p, skb_args args, int64_t first, int64_t step, int lane) {
  const TX* x = static_cast<const TX*>(args.in[0]);
  const TG* g = static_cast<const TG*>(args.in[1]);
  const TBeta* beta = SKB_HAS_BETA ? static_cast<const TBeta*>(args.in[2]) : nullptr;
  TY* y = static_cast<TY*>(args.out[0]);
  TS1* s1 = SKB_HAS_STAT1 ? static_cast<TS1*>(args.out[1]) : nullptr;
  TS2* s2 = SKB_HAS_STAT2 ? static_cast<TS2*>(args.out[2]) : nullptr;
  for (int64_t o = first; o < p.outer; o += step) {
    const TX* xr = x + o * p.len;
    TY* yr = y + o * p.len;
    float mean = 0.f, acc = 0.f;
    if (SKB_OP == LayerNorm) {
      for (int64_t j = lane; j < p.len; j += width) mean += skb_cu::to_float(xr[j]);
      if (width == 32) mean = skb_cu::warp_sum(mean);
      mean /= (float)p.len;
    }
    for (int64_t j = lane; j < p.len; j += width) {
      const float d = skb_cu::to_float(xr[j]) - mean;
      acc += d * d;
    }
    if (width == 32) acc = skb_cu::warp_sum(acc);
    const float var = acc / (float)p.len;
    const float rstd = 1.f / sqrtf(var + p.eps);
    // gamma holds x's trailing axes from begin_params_axis: of a part of a row (the normalized
    // axes end with them) or of several rows (they begin before the normalized axes).
    const int64_t gbase = p.gamma_len > p.len ? (o * p.len) % p.gamma_len : 0;
    for (int64_t j = lane; j < p.len; j += width) {
      const int64_t gi = p.gamma_len > p.len ? gbase + j : j % p.gamma_len;
      float v = (skb_cu::to_float(xr[j]) - mean) * rstd * skb_cu::to_float(g[gi]);
      if (SKB_HAS_BETA) v += skb_cu::to_float(beta[gi]);
      yr[j] = skb_cu::from_float<TY>(v);
    }
    if (lane == 0) {
      if (SKB_OP == LayerNorm) {
        if (SKB_HAS_STAT1) s1[o] = skb_cu::from_float<TS1>(mean);
        if (SKB_HAS_STAT2) s2[o] = skb_cu::from_float<TS2>(var);
      } else if (SKB_HAS_STAT1) {
        s1[o] = skb_cu::from_float<TS1>(rstd);
      }
    }
  }
}

__device__ inline void run(const Params& p, skb_args args) {
  // Every lane of a warp takes the same rows, so each shuffle has all 32.
  if (blockDim.x % 32 == 0)
    rows<32>(p, args, skb_cu::first_index() / 32, skb_cu::grid_stride() / 32, threadIdx.x & 31);
  else
    rows<1>(p, args, skb_cu::first_index(), skb_cu::grid_stride(), 0);
}

#ifdef SKB_STATIC
static SKB_HD constexpr Params make_static() {
  return make(SKB_IN_DIMS(0), SKB_IN_DIMS(1), SKB_BETA_DIMS, SKB_OUT_DIMS(0), SKB_STAT1_DIMS, SKB_STAT2_DIMS,
              SKB_ATTR_begin_norm_axis, SKB_ATTR_epsilon);
}
#else
static __device__ Params make_dynamic(const skb_cuda_call& c, const skb_args&) {
  using skb_cu::dims;
  return make(dims(c.inputs[0]), dims(c.inputs[1]), SKB_HAS_BETA ? dims(c.inputs[2]) : skb_cu::dims(),
              dims(c.outputs[0]), SKB_HAS_STAT1 ? dims(c.outputs[1]) : skb_cu::dims(),
              SKB_HAS_STAT2 ? dims(c.outputs[2]) : skb_cu::dims(), (int64_t)skb_cu::attr(c, "begin_norm_axis", 0, 0),
              skb_cu::attr(c, "epsilon", 0, SKB_OP == LayerNorm ? 1e-7 : 1e-6));
}
#endif
SKB_ENTRY(make_static, make_dynamic, run)
