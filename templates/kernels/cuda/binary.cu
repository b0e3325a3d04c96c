// Binary elementwise with NumPy broadcasting: Add, Sub, Mul, RealDiv. Computes in float, but
// integer Add, Sub and Mul exactly.
#include "skb_cuda.h"

enum { Add, Sub, Mul, RealDiv };
typedef SKB_DT(SKB_IN0_DTYPE) TA;
typedef SKB_DT(SKB_IN1_DTYPE) TB;
typedef SKB_DT(SKB_OUT0_DTYPE) TY;

typedef skb_geom::Broadcast Params;

__device__ inline float apply(float a, float b) {
  if constexpr (SKB_OP == Add) return a + b;
  if constexpr (SKB_OP == Sub) return a - b;
  if constexpr (SKB_OP == Mul) return a * b;
  return a / b;  // RealDiv
}

// Add, Sub and Mul of integer tensors compute exactly, in int64, wrapping around as numpy's do.
constexpr bool kExact =
    skb_cu::IsInt<TA>::value && skb_cu::IsInt<TB>::value && skb_cu::IsInt<TY>::value && SKB_OP != RealDiv;

__device__ inline TY combine(TA a, TB b) {
  if constexpr (kExact) {
    const uint64_t u = (uint64_t)(int64_t)a, v = (uint64_t)(int64_t)b;
    if constexpr (SKB_OP == Add) return (TY)(int64_t)(u + v);
    if constexpr (SKB_OP == Sub) return (TY)(int64_t)(u - v);
    return (TY)(int64_t)(u * v);  // Mul
  } else {
    return skb_cu::from_float<TY>(apply(skb_cu::to_float(a), skb_cu::to_float(b)));
  }
}

__device__ inline void run(const Params& p, skb_args args) {
  const TA* a = static_cast<const TA*>(args.in[0]);
  const TB* b = static_cast<const TB*>(args.in[1]);
  TY* y = static_cast<TY*>(args.out[0]);
  for (int64_t i = skb_cu::first_index(); i < p.n; i += skb_cu::grid_stride()) {
    int64_t rest = i, oa = 0, ob = 0;
#pragma unroll
    for (int d = p.rank - 1; d >= 0; --d) {
      int64_t c = rest % p.out[d];
      rest /= p.out[d];
      oa += c * p.sa[d];
      ob += c * p.sb[d];
    }
    y[i] = combine(a[oa], b[ob]);
  }
}

#ifdef SKB_STATIC
static SKB_HD constexpr Params make_static() {
  return skb_geom::broadcast(SKB_IN_DIMS(0), SKB_IN_DIMS(1), SKB_OUT_DIMS(0));
}
#else
static __device__ Params make_dynamic(const skb_cuda_call& c, const skb_args&) {
  return skb_geom::broadcast(skb_cu::dims(c.inputs[0]), skb_cu::dims(c.inputs[1]), skb_cu::dims(c.outputs[0]));
}
#endif
SKB_ENTRY(make_static, make_dynamic, run)
