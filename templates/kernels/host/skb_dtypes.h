// Tensor element types of host kernels and their conversions to and from float, with
// round-to-nearest-even. Usable on its own (tests, runtime).
#pragma once
#include <stdint.h>
#include <string.h>

namespace skb_k {

struct f16 {
  uint16_t bits;
};
struct bf16 {
  uint16_t bits;
};
typedef float dt_float;
typedef f16 dt_float16;
typedef bf16 dt_bfloat16;
typedef int32_t dt_int32;
typedef int64_t dt_int64;

static inline uint32_t float_bits(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}
static inline float bits_float(uint32_t u) {
  float f;
  memcpy(&f, &u, 4);
  return f;
}

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
    while (!(mant & 0x400)) {
      mant <<= 1;
      --exp;
    }
    mant &= 0x3ff;
  }
  return bits_float(sign | ((uint32_t)(exp + 112) << 23) | (mant << 13));
}

template <class T>
static inline T from_float(float f);
template <>
inline float from_float<float>(float f) {
  return f;
}
template <>
inline int32_t from_float<int32_t>(float f) {
  return (int32_t)f;
}
template <>
inline int64_t from_float<int64_t>(float f) {
  return (int64_t)f;
}
template <>
inline bf16 from_float<bf16>(float f) {
  uint32_t u = float_bits(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return bf16{(uint16_t)((u >> 16) | 0x40)};  // NaN stays NaN
  u += 0x7fffu + ((u >> 16) & 1);                                                  // round to nearest even
  return bf16{(uint16_t)(u >> 16)};
}
template <>
inline f16 from_float<f16>(float f) {
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

}  // namespace skb_k
