// Unary elementwise: Square, Relu, Gelu (tanh form), FastGelu, Cast. Computes in float.
#include "skb_cuda.h"

enum { Square, Relu, Gelu, FastGelu, Cast };
typedef SKB_DT(SKB_IN0_DTYPE) TX;
typedef SKB_DT(SKB_OUT0_DTYPE) TY;

struct Params {
  int64_t n;
  bool ok;  // y has x's shape
};

static SKB_HD constexpr Params make(skb_cu::Dims x, skb_cu::Dims y) {
  return Params{x.numel(), skb_geom::valid(x) && skb_geom::same(x, y)};
}

__device__ inline float apply(float x) {
  if constexpr (SKB_OP == Square) return x * x;
  if constexpr (SKB_OP == Relu) return x > 0.f ? x : 0.f;
  if constexpr (SKB_OP == Gelu) return 0.5f * x * (1.f + tanhf(0.7978845608f * (x + 0.044715f * x * x * x)));
  if constexpr (SKB_OP == FastGelu) return x / (1.f + __expf(-1.702f * x));
  return x;  // Cast
}

__device__ inline void run(const Params& p, skb_args args) {
  const TX* x = static_cast<const TX*>(args.in[0]);
  TY* y = static_cast<TY*>(args.out[0]);
  for (int64_t i = skb_cu::first_index(); i < p.n; i += skb_cu::grid_stride())
    y[i] = skb_cu::from_float<TY>(apply(skb_cu::to_float(x[i])));
}

#ifdef SKB_STATIC
static SKB_HD constexpr Params make_static() { return make(SKB_IN_DIMS(0), SKB_OUT_DIMS(0)); }
#else
static __device__ Params make_dynamic(const skb_cuda_call& c, const skb_args&) {
  return make(skb_cu::dims(c.inputs[0]), skb_cu::dims(c.outputs[0]));
}
#endif
SKB_ENTRY(make_static, make_dynamic, run)
