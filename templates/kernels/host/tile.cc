// Tile: y = x repeated multiples[i] times along each axis i (input 1, value-dependent: a
// compile-time constant in static kernels, read from the input's data in dynamic ones); x's shape
// is padded with leading ones to the length of multiples, as numpy.tile does. Copies elements.
#include "skb_kernel.h"

enum { Tile };
typedef SKB_DT(SKB_IN0_DTYPE) TX;

typedef skb_geom::Tiling Params;

static constexpr Params make(skb_k::Dims x, const int64_t* multiples, int len, skb_k::Dims y) {
  return skb_geom::tiling(x, multiples, len, y);
}

static inline int run(const Params& p, const void* const* in, void* const* out) {
  const TX* x = static_cast<const TX*>(in[0]);
  TX* y = static_cast<TX*>(out[0]);
  if (p.n == 0) return 0;
  if (p.rank == 0) {
    y[0] = x[0];
    return 0;
  }
  // Each row of y (its last axis) is x's row repeated; the row of x is found by the index of y's
  // row on every other axis, modulo x's extent there.
  const int last = p.rank - 1;
  const int64_t inner = p.out[last], xl = p.in[last];
  const int64_t outer = p.n / inner;
  int64_t idx[SKB_MAX_RANK] = {0};
  for (int64_t o = 0; o < outer; ++o) {
    int64_t off = 0;
    for (int d = 0; d < last; ++d) off += (idx[d] % p.in[d]) * p.stride[d];
    TX* row = y + o * inner;
    for (int64_t j = 0; j < inner; j += xl) memcpy(row + j, x + off, (size_t)xl * sizeof(TX));
    for (int d = last - 1; d >= 0; --d) {
      if (++idx[d] < p.out[d]) break;
      idx[d] = 0;
    }
  }
  return 0;
}

#ifdef SKB_STATIC
static constexpr int64_t kMultiples[SKB_MAX_RANK + 1] = {SKB_IN1_CONST};
static constexpr Params make_static() { return make(SKB_IN_DIMS(0), kMultiples, SKB_IN1_CONST_LEN, SKB_OUT_DIMS(0)); }
SKB_ENTRY(make_static, unused, run)
#else
typedef SKB_DT(SKB_IN1_DTYPE) TMultiple;
SKB_EXPORT int skb_kernel_dynamic(const skb_call* c, const void* const* in, void* const* out) {
  if (!skb_k::call_fits(c, 2, 1)) return SKB_KERNEL_BAD_CALL;
  const skb_k::Dims x = skb_k::dims(c->inputs[0]), m = skb_k::dims(c->inputs[1]), y = skb_k::dims(c->outputs[0]);
  // multiples holds one value per axis of y: read no more than that.
  if (!skb_geom::valid(x) || !skb_geom::valid(m) || !skb_geom::valid(y) || m.rank != 1 || m.d[0] != y.rank)
    return SKB_KERNEL_BAD_CALL;
  const TMultiple* values = static_cast<const TMultiple*>(in[1]);
  int64_t multiples[SKB_MAX_RANK] = {0};
  for (int i = 0; i < y.rank; ++i) multiples[i] = (int64_t)values[i];
  const Params p = make(x, multiples, y.rank, y);
  if (!p.ok) return SKB_KERNEL_BAD_CALL;
  return run(p, in, out);
}
#endif
