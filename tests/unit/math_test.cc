// The host kernels' float functions (skb_math.h) against the C library in double precision: exp
// over a sweep of the whole float range and its special values, the eight-lane sum and maximum.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "skb_math.h"

namespace {

float from_bits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

// Distance from the exact value, in units of the last place of the float nearest to it.
double ulps(float got, double want) {
  const float w = static_cast<float>(want);
  const double ulp = std::nextafter(w, INFINITY) - w;
  return std::fabs(got - want) / ulp;
}

TEST(KernelMath, ExpIsWithinTwoUlpsOverTheWholeFloatRange) {
  double worst = 0;
  float worst_x = 0;
  for (uint64_t u = 0; u <= 0xffffffffu; u += 4099) {  // every sign, exponent and many mantissas
    const float x = from_bits(static_cast<uint32_t>(u));
    if (std::isnan(x)) continue;
    const double want = std::exp(static_cast<double>(x));
    const float got = skb_k::exp_f(x);
    if (want > std::numeric_limits<float>::max()) {
      ASSERT_EQ(got, INFINITY) << x;
    } else if (want < std::numeric_limits<float>::min()) {  // denormal results: within one step
      ASSERT_LE(std::fabs(got - want), std::numeric_limits<float>::denorm_min()) << x;
    } else if (double e = ulps(got, want); e > worst) {
      worst = e, worst_x = x;
    }
  }
  EXPECT_LE(worst, 2.0) << "at x = " << worst_x;
}

TEST(KernelMath, ExpOfSpecialValues) {
  EXPECT_EQ(skb_k::exp_f(0.f), 1.f);
  EXPECT_EQ(skb_k::exp_f(-0.f), 1.f);
  EXPECT_EQ(skb_k::exp_f(-INFINITY), 0.f);
  EXPECT_EQ(skb_k::exp_f(INFINITY), INFINITY);
  EXPECT_EQ(skb_k::exp_f(89.f), INFINITY);
  EXPECT_EQ(skb_k::exp_f(-110.f), 0.f);
  EXPECT_TRUE(std::isnan(skb_k::exp_f(NAN)));
  EXPECT_LE(ulps(skb_k::exp_f(88.7f), std::exp(static_cast<double>(88.7f))), 2.0);  // just below FLT_MAX
}

TEST(KernelMath, SumAndMaxCoverEveryElementOfAnyLength) {
  for (int n : {0, 1, 7, 8, 9, 16, 31, 1000}) {
    std::vector<float> v(n);
    double want_sum = 0;
    float want_max = -INFINITY;
    for (int i = 0; i < n; ++i) {
      v[i] = static_cast<float>((i * 37) % 101) - 50.f;
      want_sum += v[i];
      want_max = std::max(want_max, v[i]);
    }
    EXPECT_EQ(skb_k::sum_f(v.data(), n), want_sum) << n;  // small integers: exact in any order
    EXPECT_EQ(skb_k::max_f(n, [&](int64_t j) { return v[j]; }), want_max) << n;
  }
  const float with_nan[] = {1.f, NAN, 3.f};
  EXPECT_EQ(skb_k::max_f(3, [&](int64_t j) { return with_nan[j]; }), 3.f);
}

}  // namespace
