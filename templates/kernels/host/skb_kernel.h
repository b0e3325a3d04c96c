// Shared by every host kernel template: dtypes, shapes, and the two entry points.
// A template is compiled with -DSKB_STATIC (shapes from -D macros) or -DSKB_DYNAMIC.
#pragma once
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "skb_kernel_abi.h"

#define SKB_EXPORT extern "C" __attribute__((visibility("default")))

namespace skb_k {

struct f16 { uint16_t bits; };
struct bf16 { uint16_t bits; };
typedef float dt_float;
typedef f16 dt_float16;
typedef bf16 dt_bfloat16;
typedef int32_t dt_int32;
typedef int64_t dt_int64;

static inline uint32_t float_bits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static inline float bits_float(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }

static inline float to_float(float x) { return x; }
static inline float to_float(int32_t x) { return (float)x; }
static inline float to_float(int64_t x) { return (float)x; }
static inline float to_float(bf16 x) { return bits_float((uint32_t)x.bits << 16); }
static inline float to_float(f16 h) {
  uint32_t sign = (uint32_t)(h.bits & 0x8000) << 16;
  int32_t exp = (h.bits >> 10) & 0x1f;
  uint32_t mant = h.bits & 0x3ff;
  if (exp == 0x1f) return bits_float(sign | 0x7f800000u | (mant << 13));
  if (exp == 0) {
    if (mant == 0) return bits_float(sign);
    exp = 1;
    while (!(mant & 0x400)) { mant <<= 1; --exp; }
    mant &= 0x3ff;
  }
  return bits_float(sign | ((uint32_t)(exp + 112) << 23) | (mant << 13));
}

template <class T> static inline T from_float(float f);
template <> inline float from_float<float>(float f) { return f; }
template <> inline int32_t from_float<int32_t>(float f) { return (int32_t)f; }
template <> inline int64_t from_float<int64_t>(float f) { return (int64_t)f; }
template <> inline bf16 from_float<bf16>(float f) {
  uint32_t u = float_bits(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return bf16{(uint16_t)((u >> 16) | 0x40)};  // NaN stays NaN
  u += 0x7fffu + ((u >> 16) & 1);  // round to nearest even
  return bf16{(uint16_t)(u >> 16)};
}
template <> inline f16 from_float<f16>(float f) {
  uint32_t x = float_bits(f);
  uint32_t sign = (x >> 16) & 0x8000;
  uint32_t mant = x & 0x7fffff;
  int32_t exp = (int32_t)((x >> 23) & 0xff);
  if (exp == 0xff) return f16{(uint16_t)(sign | 0x7c00 | (mant ? 0x200 : 0))};
  int32_t e = exp - 127 + 15;
  if (e >= 0x1f) return f16{(uint16_t)(sign | 0x7c00)};
  if (e <= 0) {
    if (e < -10) return f16{(uint16_t)sign};
    mant |= 0x800000;
    uint32_t shift = (uint32_t)(14 - e);
    uint32_t half = mant >> shift, rem = mant & ((1u << shift) - 1), mid = 1u << (shift - 1);
    if (rem > mid || (rem == mid && (half & 1))) ++half;
    return f16{(uint16_t)(sign | half)};
  }
  uint32_t half = sign | ((uint32_t)e << 10) | (mant >> 13);
  uint32_t rem = mant & 0x1fff;
  if (rem > 0x1000 || (rem == 0x1000 && (half & 1))) ++half;
  return f16{(uint16_t)half};
}

/// A shape; in static kernels every one is a constant expression.
struct Dims {
  int rank;
  int64_t d[SKB_MAX_RANK];
  constexpr int64_t numel() const {
    int64_t n = 1;
    for (int i = 0; i < rank; ++i) n *= d[i];
    return n;
  }
  /// Index i counted from the end when negative.
  constexpr int axis(int64_t i) const { return (int)(i < 0 ? i + rank : i); }
};

template <class... A> constexpr Dims dims(A... a) { return Dims{(int)sizeof...(A), {(int64_t)a...}}; }

static inline Dims dims(const skb_shape& s) {
  Dims r{s.rank < 0 ? 0 : s.rank, {}};
  for (int i = 0; i < r.rank && i < SKB_MAX_RANK; ++i) r.d[i] = s.dims[i];
  return r;
}

/// An attribute of a dynamic call, or def when absent.
static inline double attr(const skb_call* c, const char* name, int index, double def) {
  for (int i = 0; i < c->num_attrs; ++i)
    if (strcmp(c->attrs[i].name, name) == 0) return index < c->attrs[i].count ? c->attrs[i].values[index] : def;
  return def;
}

static inline void* alloc_floats(int64_t n) { return malloc((size_t)(n > 0 ? n : 1) * sizeof(float)); }

}  // namespace skb_k

#define SKB_DT_(x) skb_k::dt_##x
#define SKB_DT(x) SKB_DT_(x)
#define SKB_CAT_(a, b) a##b
#define SKB_CAT(a, b) SKB_CAT_(a, b)

#if defined(SKB_STATIC) == defined(SKB_DYNAMIC)
#error "compile with exactly one of -DSKB_STATIC and -DSKB_DYNAMIC"
#endif

#ifdef SKB_STATIC
/// Shape of input/output i as a constant expression.
#define SKB_IN_DIMS(i) skb_k::dims(SKB_IN##i##_SHAPE)
#define SKB_OUT_DIMS(i) skb_k::dims(SKB_OUT##i##_SHAPE)
/// Defines the entry point: the parameters are a constant the compiler folds into `run`.
#define SKB_ENTRY(make_static, make_dynamic, run)                                    \
  SKB_EXPORT int skb_kernel(const void* const* in, void* const* out) {             \
    static constexpr auto params = make_static();                                   \
    return run(params, in, out);                                                    \
  }
#else
#define SKB_ENTRY(make_static, make_dynamic, run)                                               \
  SKB_EXPORT int skb_kernel_dynamic(const skb_call* call, const void* const* in, void* const* out) { \
    const auto params = make_dynamic(call);                                                    \
    return run(params, in, out);                                                               \
  }
#endif
