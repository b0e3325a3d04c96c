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
// Branch-free, so that loops over half-precision tensors vectorize. The multiply by 2^112
// rebiases the exponent and turns half denormals into float normals exactly.
static inline float to_float(f16 h) {
  uint32_t u = (uint32_t)(h.bits & 0x7fff) << 13;
  float f = bits_float(u) * 0x1p112f;
  uint32_t r = (h.bits & 0x7c00) == 0x7c00 ? (u | 0x7f800000u) : float_bits(f);  // Inf, NaN keep their payload
  return bits_float(r | ((uint32_t)(h.bits & 0x8000) << 16));
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
// Round to nearest even, branch-free: denormals by adding a magic float whose ulp is the half
// denormal step, normals by adding the rounding bias to the bits.
template <>
inline f16 from_float<f16>(float f) {
  const uint32_t denorm_magic_bits = (uint32_t)((127 - 15) + (23 - 10) + 1) << 23;
  uint32_t x = float_bits(f);
  uint32_t sign = (x >> 16) & 0x8000;
  x &= 0x7fffffffu;
  uint32_t special = x > 0x7f800000u ? 0x7e00u : 0x7c00u;  // NaN → quiet NaN; too large → Inf
  float d = bits_float(x) + bits_float(denorm_magic_bits);
  uint32_t denormal = float_bits(d) - denorm_magic_bits;
  uint32_t normal = (x + ((uint32_t)(15 - 127) << 23) + 0xfffu + ((x >> 13) & 1)) >> 13;
  uint32_t o = x >= (uint32_t)(127 + 16) << 23 ? special : x < (uint32_t)113 << 23 ? denormal : normal;
  return f16{(uint16_t)(o | sign)};
}

}  // namespace skb_k
