// ConcatD: the tensors of the list x (input 0, SKB_IN0_COUNT of them, at most SKB_MAX_SLOTS: the
// launch gives each its own pointer, in[0] to in[n - 1]) joined along concat_dim (negative
// counted from the end). One thread per element of y, grid-stride; copies elements.
#define SKB_CALL_INPUTS SKB_IN0_COUNT
#include "skb_cuda.h"

enum { ConcatD };
typedef SKB_DT(SKB_IN0_0_DTYPE) TX;
static constexpr int kCount = SKB_IN0_COUNT;
static_assert(kCount >= 1 && kCount <= SKB_MAX_SLOTS, "skb: a cuda ConcatD joins 1 to SKB_MAX_SLOTS tensors");

typedef skb_geom::Concat<kCount> Params;

__device__ inline void run(const Params& p, skb_args args) {
  TX* y = static_cast<TX*>(args.out[0]);
  const int64_t n = p.outer * p.row;
  for (int64_t i = skb_cu::first_index(); i < n; i += skb_cu::grid_stride()) {
    const int64_t o = i / p.row;
    int64_t r = i % p.row;
    int j = 0;
    while (j < kCount - 1 && r >= p.part[j]) r -= p.part[j++];
    y[i] = static_cast<const TX*>(args.in[j])[o * p.part[j] + r];
  }
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

static SKB_HD constexpr Params make_static() {
  skb_cu::Dims xs[kCount + 1] = {};
  if (!skb_geom::list_shapes(kShapes, kCount, xs)) return Params{};
  return skb_geom::concat<kCount>(xs, SKB_ATTR_concat_dim, SKB_OUT_DIMS(0));
}
#else
// x's tensors each have their own shape in the call, in order.
static __device__ Params make_dynamic(const skb_cuda_call& c, const skb_args&) {
  skb_cu::Dims xs[kCount + 1] = {};
  for (int j = 0; j < kCount; ++j) xs[j] = skb_cu::dims(c.inputs[j]);
  const double dim = skb_cu::attr(c, "concat_dim", 0, 0);
  if (dim < -SKB_MAX_RANK || dim >= SKB_MAX_RANK || dim != (double)(int64_t)dim) return Params{};
  return skb_geom::concat<kCount>(xs, (int64_t)dim, skb_cu::dims(c.outputs[0]));
}
#endif
SKB_ENTRY(make_static, make_dynamic, run)
