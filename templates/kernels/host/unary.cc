// Unary elementwise: Square, Relu, Gelu (tanh form), FastGelu, Cast. Computes in float.
#include "skb_kernel.h"

enum { Square, Relu, Gelu, FastGelu, Cast };
typedef SKB_DT(SKB_IN0_DTYPE) TX;
typedef SKB_DT(SKB_OUT0_DTYPE) TY;

struct Params {
  int64_t n;
  bool ok;  // y has x's shape
};

static constexpr Params make(skb_k::Dims x, skb_k::Dims y) {
  return Params{x.numel(), skb_geom::valid(x) && skb_geom::same(x, y)};
}

static inline float apply(float x) {
  if constexpr (SKB_OP == Square) return x * x;
  if constexpr (SKB_OP == Relu) return x > 0.f ? x : 0.f;
  if constexpr (SKB_OP == Gelu) return 0.5f * x * (1.f + tanhf(0.7978845608f * (x + 0.044715f * x * x * x)));
  if constexpr (SKB_OP == FastGelu) return x / (1.f + expf(-1.702f * x));
  return x;  // Cast
}

static inline int run(const Params& p, const void* const* in, void* const* out) {
  const TX* x = static_cast<const TX*>(in[0]);
  TY* y = static_cast<TY*>(out[0]);
  for (int64_t i = 0; i < p.n; ++i) y[i] = skb_k::from_float<TY>(apply(skb_k::to_float(x[i])));
  return 0;
}

#ifdef SKB_STATIC
static constexpr Params make_static() { return make(SKB_IN_DIMS(0), SKB_OUT_DIMS(0)); }
#else
static Params make_dynamic(const skb_call* c) { return make(skb_k::dims(c->inputs[0]), skb_k::dims(c->outputs[0])); }
#endif
SKB_ENTRY(make_static, make_dynamic, run)
