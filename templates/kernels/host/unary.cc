// Unary elementwise: Square, Relu, Gelu (tanh form), FastGelu, Cast. Computes in float, with
// skb_math.h's exp, so that the loop vectorizes.
#include "skb_kernel.h"
#include "skb_math.h"

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
  // 0.5 x (1 + tanh z) = x σ(2z), z = sqrt(2/π) (x + 0.044715 x³)
  if constexpr (SKB_OP == Gelu) return x / (1.f + skb_k::exp_f(-1.5957691216f * (x + 0.044715f * x * x * x)));
  if constexpr (SKB_OP == FastGelu) return x / (1.f + skb_k::exp_f(-1.702f * x));
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
