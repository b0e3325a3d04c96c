// The float functions host kernels compute with, written so that a loop calling them
// vectorizes (no branch, no library call): exp, and the sum and maximum of a row in eight lanes.
// Usable on its own (tests).
#pragma once
#include <math.h>
#include <stdint.h>

#include "skb_dtypes.h"

namespace skb_k {

/// e^x within 2 ulp over the whole float range: exp(-inf) = 0, exp(+inf) = +inf, exp(NaN) = NaN,
/// results below FLT_MIN are denormal or 0, above FLT_MAX +inf.
/// x = n ln2 + r with |r| <= ln2/2 (Cody-Waite, ln2 in two parts), e^r by a degree-6
/// polynomial, and 2^n applied as two powers of two so that neither leaves the normal range.
static inline float exp_f(float x) {
  float c = x > 89.f ? 89.f : x;  // beyond: +inf, and below: 0, after the scaling
  c = c < -105.f ? -105.f : c;
  const float round = 0x1.8p23f;  // adding it rounds to an integer, kept in the low mantissa bits
  const float t = c * 1.44269504088896341f + round;
  const float n = t - round;
  const int32_t ni = (int32_t)(float_bits(t) - float_bits(round));
  float r = c - n * 0.693359375f;  // exact: 0.693359375 has 9 significant bits
  r = r - n * -2.12194440e-4f;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * r * r + r + 1.f;
  const int32_t n1 = ni >> 1, n2 = ni - n1;  // each in [-76, 64]
  const float s1 = bits_float((uint32_t)(n1 + 127) << 23), s2 = bits_float((uint32_t)(n2 + 127) << 23);
  const float e = p * s1 * s2;
  return x != x ? x : e;
}

/// The sum of n floats, in eight lanes (so that it vectorizes without reordering what the
/// compiler may not reorder), then the lanes.
static inline float sum_f(const float* v, int64_t n) {
  float lane[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  int64_t j = 0;
  for (; j + 8 <= n; j += 8)
    for (int l = 0; l < 8; ++l) lane[l] += v[j + l];
  for (int l = 0; j < n; ++j, ++l) lane[l] += v[j];
  return ((lane[0] + lane[4]) + (lane[1] + lane[5])) + ((lane[2] + lane[6]) + (lane[3] + lane[7]));
}

/// The largest of at(0) .. at(n - 1), NaNs left out (-inf when there is none), in eight lanes.
template <class At>
static inline float max_f(int64_t n, At at) {
  float lane[8] = {-INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY};
  int64_t j = 0;
  for (; j + 8 <= n; j += 8)
    for (int l = 0; l < 8; ++l) {
      const float f = at(j + l);
      lane[l] = f > lane[l] ? f : lane[l];
    }
  for (int l = 0; j < n; ++j, ++l) {
    const float f = at(j);
    lane[l] = f > lane[l] ? f : lane[l];
  }
  float m = lane[0];
  for (int l = 1; l < 8; ++l) m = lane[l] > m ? lane[l] : m;
  return m;
}

}  // namespace skb_k
