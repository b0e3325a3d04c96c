// The host kernels' half-precision conversions against the definition of IEEE binary16, over
// every one of the 65,536 encodings and the rounding midpoints between them.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "skb_dtypes.h"

namespace {

double half_value(uint16_t h) {
  int sign = h >> 15, e = (h >> 10) & 0x1f, m = h & 0x3ff;
  double v = e == 0 ? std::ldexp(m, -24) : e == 31 ? (m ? std::nan("") : INFINITY) : std::ldexp(1024 + m, e - 25);
  return sign ? -v : v;
}

TEST(Float16, EveryEncodingConvertsToItsExactValue) {
  for (uint32_t h = 0; h < 65536; ++h) {
    float got = skb_k::to_float(skb_k::f16{static_cast<uint16_t>(h)});
    double want = half_value(static_cast<uint16_t>(h));
    if (std::isnan(want))
      ASSERT_TRUE(std::isnan(got)) << std::hex << h;
    else
      ASSERT_EQ(static_cast<double>(got), want) << std::hex << h;
    ASSERT_EQ(std::signbit(got), (h & 0x8000) != 0) << std::hex << h;
  }
}

TEST(Float16, EveryEncodingRoundTrips) {
  for (uint32_t h = 0; h < 65536; ++h) {
    if (((h >> 10) & 0x1f) == 0x1f && (h & 0x3ff)) continue;  // NaN: checked below
    uint16_t back = skb_k::from_float<skb_k::f16>(skb_k::to_float(skb_k::f16{static_cast<uint16_t>(h)})).bits;
    ASSERT_EQ(back, h) << std::hex << h;
  }
  uint16_t nan = skb_k::from_float<skb_k::f16>(std::numeric_limits<float>::quiet_NaN()).bits;
  EXPECT_EQ(nan & 0x7c00, 0x7c00);
  EXPECT_NE(nan & 0x3ff, 0);
}

TEST(Float16, MidpointsRoundToEvenAndOverflowToInfinity) {
  for (uint32_t h = 0; h < 0x7bff; ++h) {  // every pair of neighbouring finite positive halves
    double lo = half_value(static_cast<uint16_t>(h)), hi = half_value(static_cast<uint16_t>(h + 1));
    float mid = static_cast<float>((lo + hi) / 2);  // exact in float
    uint16_t want = (h & 1) ? static_cast<uint16_t>(h + 1) : static_cast<uint16_t>(h);
    ASSERT_EQ(skb_k::from_float<skb_k::f16>(mid).bits, want) << std::hex << h;
    ASSERT_EQ(skb_k::from_float<skb_k::f16>(-mid).bits, want | 0x8000) << std::hex << h;
  }
  EXPECT_EQ(skb_k::from_float<skb_k::f16>(65520.f).bits, 0x7c00);  // halfway above the largest finite
  EXPECT_EQ(skb_k::from_float<skb_k::f16>(65519.f).bits, 0x7bff);
  EXPECT_EQ(skb_k::from_float<skb_k::f16>(1e-9f).bits, 0);
  EXPECT_EQ(skb_k::from_float<skb_k::f16>(-INFINITY).bits, 0xfc00);
}

}  // namespace
