// Unary elementwise: Square, Relu, Gelu (tanh form), FastGelu, Cast. Computes in float.
#include "skb_cuda.h"

enum { Square, Relu, Gelu, FastGelu, Cast };
typedef SKB_DT(SKB_IN0_DTYPE) TX;
typedef SKB_DT(SKB_OUT0_DTYPE) TY;
static constexpr int64_t kN = SKB_IN_DIMS(0).numel();
SKB_REQUIRE(skb_geom::valid(SKB_IN_DIMS(0)) && skb_geom::same(SKB_IN_DIMS(0), SKB_OUT_DIMS(0)));

__device__ inline float apply(float x) {
  if constexpr (SKB_OP == Square) return x * x;
  if constexpr (SKB_OP == Relu) return x > 0.f ? x : 0.f;
  if constexpr (SKB_OP == Gelu) return 0.5f * x * (1.f + tanhf(0.7978845608f * (x + 0.044715f * x * x * x)));
  if constexpr (SKB_OP == FastGelu) return x / (1.f + __expf(-1.702f * x));
  return x;  // Cast
}

SKB_ENTRY {
  const TX* x = static_cast<const TX*>(args.in[0]);
  TY* y = static_cast<TY*>(args.out[0]);
  for (int64_t i = skb_cu::first_index(); i < kN; i += skb_cu::grid_stride())
    y[i] = skb_cu::from_float<TY>(apply(skb_cu::to_float(x[i])));
}
