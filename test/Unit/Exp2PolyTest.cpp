//===- Exp2PolyTest.cpp - exp2 from FMAs, on floats -----------------------===//
//
// The steps the kernels emit for exp2_fma (attnc/Numerics/Exp2Poly.h), run
// on host floats: relative error against exp2 over the softmax's range, and
// exact zeros where ex2.approx.ftz gives them.
//
//===----------------------------------------------------------------------===//

#include "attnc/Numerics/Exp2Poly.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

namespace {
struct FloatArith {
  using F = float;
  using I = uint32_t;
  float constant(float v) { return v; }
  float maxNum(float x, float y) { return std::fmax(x, y); }
  float add(float x, float y) { return x + y; }
  float sub(float x, float y) { return x - y; }
  float fma(float x, float y, float z) { return std::fma(x, y, z); }
  float mul(float x, float y) { return x * y; }
  uint32_t bits(float x) {
    uint32_t u;
    std::memcpy(&u, &x, 4);
    return u;
  }
  float fromBits(uint32_t u) {
    float x;
    std::memcpy(&x, &u, 4);
    return x;
  }
  uint32_t shl(uint32_t x, int n) { return x << n; }
  uint32_t addBits(uint32_t x, uint32_t c) { return x + c; }
};

float exp2Poly(float x) {
  FloatArith a;
  return attnc::numerics::exp2Poly(a, x);
}
} // namespace

TEST(Exp2Poly, RelativeErrorOverTheWeightsRange) {
  // Every 1/1024 over [-126, 1/4] (a softmax's x is <= 0 up to rounding),
  // including the half-integers where the rounding split turns.
  double worst = 0;
  for (int i = -126 * 1024; i <= 256; ++i) {
    float x = static_cast<float>(i) / 1024;
    double exact = std::exp2(static_cast<double>(x));
    double rel = std::fabs(exp2Poly(x) - exact) / exact;
    worst = std::max(worst, rel);
    ASSERT_LE(rel, 1e-4) << "x = " << x;
  }
  // The fit's own bound: a far looser check would pass a worse polynomial.
  EXPECT_GT(worst, 1e-5);
}

TEST(Exp2Poly, ExactPowersOfTwo) {
  // f = 0: the polynomial's c0 times 2^j.
  for (int j = -126; j <= 0; ++j)
    EXPECT_NEAR(exp2Poly(static_cast<float>(j)), std::ldexp(1.0, j),
                1e-4 * std::ldexp(1.0, j))
        << "j = " << j;
}

TEST(Exp2Poly, MaskedScoresGiveZero) {
  // -inf (a masked score minus a finite max) and anything that rounds to
  // j = -127 give exactly 0, as a masked pair's weight must.
  EXPECT_EQ(exp2Poly(-std::numeric_limits<float>::infinity()), 0.0f);
  EXPECT_EQ(exp2Poly(-127.0f), 0.0f);
  EXPECT_EQ(exp2Poly(-1000.0f), 0.0f);
  EXPECT_EQ(exp2Poly(-126.75f), 0.0f);
  // Below -126.5 nothing but 0; just above, the smallest normal's range.
  EXPECT_GT(exp2Poly(-126.25f), 0.0f);
  EXPECT_LT(exp2Poly(-126.25f), 2 * std::ldexp(1.0f, -126));
}
