// Binary elementwise with NumPy broadcasting: Add, Sub, Mul, RealDiv. Computes in float, except
// Add, Sub and Mul of integer tensors only: exactly, in int64, wrapping around as numpy's do.
#include "skb_dtype_traits.h"
#include "skb_kernel.h"

enum { Add, Sub, Mul, RealDiv };
typedef SKB_DT(SKB_IN0_DTYPE) TA;
typedef SKB_DT(SKB_IN1_DTYPE) TB;
typedef SKB_DT(SKB_OUT0_DTYPE) TY;

using skb_geom::IsInt;
static constexpr bool kExact = SKB_OP != RealDiv && IsInt<TA>::value && IsInt<TB>::value && IsInt<TY>::value;

// The broadcast, and whether there is none at all.
struct Params : skb_geom::Broadcast {
  bool flat;
};

static constexpr Params make(skb_k::Dims a, skb_k::Dims b, skb_k::Dims o) {
  return Params{skb_geom::broadcast(a, b, o), a.numel() == o.numel() && b.numel() == o.numel()};
}

static inline float apply(float a, float b) {
  if constexpr (SKB_OP == Add) return a + b;
  if constexpr (SKB_OP == Sub) return a - b;
  if constexpr (SKB_OP == Mul) return a * b;
  return a / b;  // RealDiv
}

// In unsigned arithmetic, whose overflow wraps around (a signed one's is undefined).
static inline int64_t apply_exact(uint64_t a, uint64_t b) {
  if constexpr (SKB_OP == Add) return (int64_t)(a + b);
  if constexpr (SKB_OP == Sub) return (int64_t)(a - b);
  return (int64_t)(a * b);  // Mul
}

template <class A, class B>
static inline TY compute(A a, B b) {
  if constexpr (kExact)
    return (TY)apply_exact((uint64_t)(int64_t)a, (uint64_t)(int64_t)b);
  else
    return skb_k::from_float<TY>(apply(skb_k::to_float(a), skb_k::to_float(b)));
}

static inline int run(const Params& p, const void* const* in, void* const* out) {
  const TA* a = static_cast<const TA*>(in[0]);
  const TB* b = static_cast<const TB*>(in[1]);
  TY* y = static_cast<TY*>(out[0]);
  if (p.flat || p.rank == 0) {
    for (int64_t i = 0; i < p.n; ++i) y[i] = compute(a[i], b[i]);
    return 0;
  }
  const int last = p.rank - 1;
  const int64_t inner = p.out[last], ia = p.sa[last], ib = p.sb[last];
  const int64_t outer = inner ? p.n / inner : 0;
  int64_t idx[SKB_MAX_RANK] = {0};
  int64_t oa = 0, ob = 0;
  for (int64_t o = 0; o < outer; ++o) {
    TY* row = y + o * inner;
    for (int64_t j = 0; j < inner; ++j) row[j] = compute(a[oa + j * ia], b[ob + j * ib]);
    for (int d = last - 1; d >= 0; --d) {
      if (++idx[d] < p.out[d]) {
        oa += p.sa[d];
        ob += p.sb[d];
        break;
      }
      oa -= p.sa[d] * (p.out[d] - 1);
      ob -= p.sb[d] * (p.out[d] - 1);
      idx[d] = 0;
    }
  }
  return 0;
}

#ifdef SKB_STATIC
static constexpr Params make_static() { return make(SKB_IN_DIMS(0), SKB_IN_DIMS(1), SKB_OUT_DIMS(0)); }
#else
static Params make_dynamic(const skb_call* c) {
  return make(skb_k::dims(c->inputs[0]), skb_k::dims(c->inputs[1]), skb_k::dims(c->outputs[0]));
}
#endif
SKB_ENTRY(make_static, make_dynamic, run)
