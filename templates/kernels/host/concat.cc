// ConcatD: the tensors of the list x (input 0, SKB_IN0_COUNT of them) joined along concat_dim
// (negative counted from the end). The kernel takes x as the address of an array of the list's
// tensor pointers. Copies elements.
#include "skb_kernel.h"

enum { ConcatD };
typedef SKB_DT(SKB_IN0_0_DTYPE) TX;
static constexpr int kCount = SKB_IN0_COUNT;

struct Params {
  int64_t outer;             // the product of the axes before concat_dim
  int64_t row;               // y's elements from concat_dim on: the parts of all x side by side
  int64_t part[kCount + 1];  // each x's elements from concat_dim on
  bool ok;                   // every x has y's rank and y's extents but on concat_dim, where theirs add up to y's
};

static constexpr Params make(const skb_k::Dims* xs, int64_t concat_dim, skb_k::Dims y) {
  Params p{};
  if (!skb_geom::valid(y) || y.rank < 1 || concat_dim < -y.rank || concat_dim >= y.rank) return p;
  const int axis = y.axis(concat_dim);
  int64_t inner = 1, along = 0;
  p.outer = 1;
  for (int i = 0; i < y.rank; ++i)
    if (i < axis)
      p.outer *= y.d[i];
    else if (i > axis)
      inner *= y.d[i];
  for (int j = 0; j < kCount; ++j) {
    const skb_k::Dims& x = xs[j];
    if (!skb_geom::valid(x) || x.rank != y.rank) return p;
    for (int i = 0; i < y.rank; ++i)
      if (i != axis && x.d[i] != y.d[i]) return p;
    along += x.d[axis];
    p.part[j] = x.d[axis] * inner;
  }
  p.ok = kCount > 0 && along == y.d[axis];
  p.row = along * inner;
  return p;
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
  int pos = 0;
  for (int j = 0; j < kCount; ++j) {
    const int64_t rank = kShapes[pos++];
    if (rank < 0 || rank > SKB_MAX_RANK) return Params{};
    xs[j].rank = (int)rank;
    for (int d = 0; d < xs[j].rank; ++d) xs[j].d[d] = kShapes[pos++];
  }
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
