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
// Round to nearest even, branch-free, by the float unit itself: |f| scaled by 2^112 and back by
// 2^-110 (overflowing to inf beyond the half range, rounding in the float multiply), then added
// to a power of two that leaves exactly the half's bits of precision, so the add rounds to the
// nearest half, denormals included; NaN becomes the quiet NaN. Two selects and no branch, so that
// it vectorizes well.
template <>
inline f16 from_float<f16>(float f) {
  const uint32_t w = float_bits(f);
  const uint32_t shl1_w = w + w;  // without the sign
  float base = bits_float(w & 0x7fffffffu) * 0x1p112f * 0x1p-110f;
  uint32_t bias = shl1_w & 0xff000000u;
  bias = bias < 0x71000000u ? 0x71000000u : bias;
  base = bits_float((bias >> 1) + 0x07800000u) + base;
  const uint32_t bits = float_bits(base);
  const uint32_t nonsign = ((bits >> 13) & 0x7c00u) + (bits & 0x0fffu);
  return f16{(uint16_t)(((w >> 16) & 0x8000u) | (shl1_w > 0xff000000u ? 0x7e00u : nonsign))};
}

}  // namespace skb_k
