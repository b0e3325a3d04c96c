// Transpose: y = x with axes permuted by perm (input 1, value-dependent: a compile-time
// constant in static kernels, read from the input's data in dynamic ones).
#include "skb_kernel.h"

enum { Transpose };
typedef SKB_DT(SKB_IN0_DTYPE) TX;
typedef SKB_DT(SKB_OUT0_DTYPE) TY;

typedef skb_geom::Permute Params;

static constexpr Params make(skb_k::Dims x, const int64_t* perm, int perm_len, skb_k::Dims y) {
  return skb_geom::permute(x, perm, perm_len, y);
}

static inline int run(const Params& p, const void* const* in, void* const* out) {
  const TX* x = static_cast<const TX*>(in[0]);
  TY* y = static_cast<TY*>(out[0]);
  if (p.rank == 0) {
    y[0] = skb_k::from_float<TY>(skb_k::to_float(x[0]));
    return 0;
  }
  const int last = p.rank - 1;
  const int64_t inner = p.out[last], is = p.stride[last];
  const int64_t outer = inner ? p.n / inner : 0;
  int64_t idx[SKB_MAX_RANK] = {0};
  int64_t off = 0;
  for (int64_t o = 0; o < outer; ++o) {
    TY* row = y + o * inner;
    for (int64_t j = 0; j < inner; ++j) row[j] = skb_k::from_float<TY>(skb_k::to_float(x[off + j * is]));
    for (int d = last - 1; d >= 0; --d) {
      if (++idx[d] < p.out[d]) {
        off += p.stride[d];
        break;
      }
      off -= p.stride[d] * (p.out[d] - 1);
      idx[d] = 0;
    }
  }
  return 0;
}

#ifdef SKB_STATIC
static constexpr int64_t kPerm[SKB_MAX_RANK + 1] = {SKB_IN1_CONST};
static constexpr Params make_static() { return make(SKB_IN_DIMS(0), kPerm, SKB_IN1_CONST_LEN, SKB_OUT_DIMS(0)); }
SKB_ENTRY(make_static, unused, run)
#else
typedef SKB_DT(SKB_IN1_DTYPE) TPerm;
SKB_EXPORT int skb_kernel_dynamic(const skb_call* c, const void* const* in, void* const* out) {
  if (!skb_k::call_fits(c, 2, 1)) return SKB_KERNEL_BAD_CALL;
  const skb_k::Dims x = skb_k::dims(c->inputs[0]), perm_shape = skb_k::dims(c->inputs[1]);
  // perm holds one value per axis of x: read no more than that.
  if (!skb_geom::valid(x) || !skb_geom::valid(perm_shape) || perm_shape.rank != 1 || perm_shape.d[0] != x.rank)
    return SKB_KERNEL_BAD_CALL;
  const TPerm* perm_in = static_cast<const TPerm*>(in[1]);
  int64_t perm[SKB_MAX_RANK] = {0};
  for (int i = 0; i < x.rank; ++i) perm[i] = (int64_t)perm_in[i];
  const Params p = make(x, perm, x.rank, skb_k::dims(c->outputs[0]));
  if (!p.ok) return SKB_KERNEL_BAD_CALL;
  return run(p, in, out);
}
#endif
