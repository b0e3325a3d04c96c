// ConcatD: the tensors of the list x (input 0, SKB_IN0_COUNT of them) joined along concat_dim
// (negative counted from the end). The kernel takes x as the address of an array of the list's
// tensor pointers. Copies elements.
#include "skb_kernel.h"

enum { ConcatD };
typedef SKB_DT(SKB_IN0_0_DTYPE) TX;
static constexpr int kCount = SKB_IN0_COUNT;

typedef skb_geom::Concat<kCount> Params;

static constexpr Params make(const skb_k::Dims* xs, int64_t concat_dim, skb_k::Dims y) {
  return skb_geom::concat<kCount>(xs, concat_dim, y);
}

static inline int run(const Params& p, const void* const* in, void* const* out) {
  const void* const* xs = static_cast<const void* const*>(in[0]);
  TX* y = static_cast<TX*>(out[0]);
  for (int64_t o = 0; o < p.outer; ++o) {
    TX* row = y + o * p.row;
    for (int j = 0; j < kCount; ++j) {
      memcpy(row, static_cast<const TX*>(xs[j]) + o * p.part[j], (size_t)p.part[j] * sizeof(TX));
      row += p.part[j];
    }
  }
  return 0;
}

#ifndef SKB_ATTR_concat_dim
#define SKB_ATTR_concat_dim 0
#endif

#ifdef SKB_STATIC
#ifndef SKB_IN0_SHAPES
#define SKB_IN0_SHAPES 0
#endif
// Each x's rank, then its dims.
static constexpr int64_t kShapes[] = {SKB_IN0_SHAPES};

static constexpr Params make_static() {
  skb_k::Dims xs[kCount + 1] = {};
  if (!skb_geom::list_shapes(kShapes, kCount, xs)) return Params{};
  return make(xs, SKB_ATTR_concat_dim, SKB_OUT_DIMS(0));
}
SKB_ENTRY(make_static, unused, run)
#else
// x's tensors each have their own shape in the call, in order.
SKB_EXPORT int skb_kernel_dynamic(const skb_call* c, const void* const* in, void* const* out) {
  if (!skb_k::call_fits(c, kCount, 1) || kCount == 0) return SKB_KERNEL_BAD_CALL;
  skb_k::Dims xs[kCount + 1] = {};
  for (int j = 0; j < kCount; ++j) xs[j] = skb_k::dims(c->inputs[j]);
  const double dim = skb_k::attr(c, "concat_dim", 0, 0);
  if (dim < -SKB_MAX_RANK || dim >= SKB_MAX_RANK || dim != (double)(int64_t)dim) return SKB_KERNEL_BAD_CALL;
  const Params p = make(xs, (int64_t)dim, skb_k::dims(c->outputs[0]));
  if (!p.ok) return SKB_KERNEL_BAD_CALL;
  return run(p, in, out);
}
#endif
