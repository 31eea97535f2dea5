//===- ReferenceTest.cpp - reference attention and float conversions ------===//
//
// The float64 reference against hand-computed cases, masks and GQA; the
// naive implementation's error bar; compare(); seeded problems; and the
// bf16/f16 conversions, exhaustively against their bit definitions.
//
//===----------------------------------------------------------------------===//

#include "harness/Reference.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

using namespace attnc;
using attnc::mask::Alignment;
using attnc::mask::DocumentSource;
using attnc::mask::MaskKind;
using attnc::mask::MaskSpec;

namespace {

const double kInf = std::numeric_limits<double>::infinity();

float floatFromBits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof(f));
  return f;
}

/// A problem with the given sizes and zeroed inputs.
AttentionProblem emptyProblem(int64_t b, int64_t hq, int64_t hkv, int64_t sq,
                              int64_t sk, int64_t d, int64_t dv) {
  AttentionProblem p;
  p.b = b;
  p.hq = hq;
  p.hkv = hkv;
  p.sq = sq;
  p.sk = sk;
  p.d = d;
  p.dv = dv;
  p.scale = 1.0;
  p.q.assign(b * hq * sq * d, 0.0);
  p.k.assign(b * hkv * sk * d, 0.0);
  p.v.assign(b * hkv * sk * dv, 0.0);
  return p;
}

//===----------------------------------------------------------------------===//
// Rounding
//===----------------------------------------------------------------------===//

TEST(RoundingTest, KnownBF16Values) {
  EXPECT_EQ(floatToBF16Bits(1.0f), 0x3f80);
  EXPECT_EQ(floatToBF16Bits(-2.0f), 0xc000);
  EXPECT_EQ(floatToBF16Bits(0.0f), 0x0000);
  EXPECT_EQ(floatToBF16Bits(-0.0f), 0x8000);
  // 1/3 = 0x3eaaaaab: the dropped 0xaaab is above half, so it rounds up.
  EXPECT_EQ(floatToBF16Bits(1.0f / 3.0f), 0x3eab);
  EXPECT_EQ(bf16BitsToFloat(0x3eab), 0.333984375f);
  EXPECT_EQ(roundTo(1.0 / 3.0, ElementType::BF16), 0.333984375);
  // Ties to even: 1 + 2^-8 is halfway between 1 and 1 + 2^-7.
  EXPECT_EQ(floatToBF16Bits(1.0f + 0x1p-8f), 0x3f80);
  EXPECT_EQ(floatToBF16Bits(1.0f + 3 * 0x1p-8f), 0x3f82);
  EXPECT_EQ(roundTo(1.0 + 0x1p-8, ElementType::BF16), 1.0);
  EXPECT_EQ(roundTo(1.0 + 3 * 0x1p-8, ElementType::BF16), 1.0 + 0x1p-6);
  // Just above the tie rounds up, also when float could not hold the excess
  // (no double rounding through float).
  EXPECT_EQ(floatToBF16Bits(1.0f + 0x1p-8f + 0x1p-20f), 0x3f81);
  EXPECT_EQ(roundTo(1.0 + 0x1p-8 + 0x1p-30, ElementType::BF16), 1.0 + 0x1p-7);
  // Largest finite bf16 and overflow.
  EXPECT_EQ(bf16BitsToFloat(0x7f7f), 0x1.fep127f);
  EXPECT_EQ(floatToBF16Bits(0x1.fep127f), 0x7f7f);
  EXPECT_EQ(floatToBF16Bits(std::numeric_limits<float>::max()), 0x7f80);
  EXPECT_EQ(floatToBF16Bits(-std::numeric_limits<float>::max()), 0xff80);
  EXPECT_EQ(roundTo(0x1.ffp127, ElementType::BF16), kInf); // the tie
  EXPECT_EQ(roundTo(0x1.fefffp127, ElementType::BF16), 0x1.fep127);
  EXPECT_EQ(roundTo(1e300, ElementType::BF16), kInf);
  EXPECT_EQ(floatToBF16Bits(std::numeric_limits<float>::infinity()), 0x7f80);
  // Subnormals: the smallest bf16 subnormal is 2^-133.
  EXPECT_EQ(floatToBF16Bits(0x1p-133f), 0x0001);
  EXPECT_EQ(floatToBF16Bits(0x1p-134f), 0x0000);     // tie to even (0)
  EXPECT_EQ(floatToBF16Bits(3 * 0x1p-134f), 0x0002); // tie to even (2)
  EXPECT_EQ(floatToBF16Bits(0x1p-149f), 0x0000);
  EXPECT_EQ(roundTo(0x1p-134, ElementType::BF16), 0.0);
  EXPECT_EQ(roundTo(0x1.000001p-134, ElementType::BF16), 0x1p-133);
  EXPECT_EQ(roundTo(-3 * 0x1p-134, ElementType::BF16), -0x1p-132);
  // NaN stays NaN.
  EXPECT_TRUE(std::isnan(bf16BitsToFloat(
      floatToBF16Bits(std::numeric_limits<float>::quiet_NaN()))));
  EXPECT_TRUE(std::isnan(bf16BitsToFloat(floatToBF16Bits(
      floatFromBits(0x7f800001u))))); // signalling NaN, payload in low bits
  EXPECT_TRUE(std::isnan(roundTo(std::nan(""), ElementType::BF16)));
}

TEST(RoundingTest, KnownF16Values) {
  EXPECT_EQ(floatToF16Bits(1.0f), 0x3c00);
  EXPECT_EQ(floatToF16Bits(-2.0f), 0xc000);
  EXPECT_EQ(floatToF16Bits(0.0f), 0x0000);
  EXPECT_EQ(floatToF16Bits(-0.0f), 0x8000);
  EXPECT_EQ(floatToF16Bits(1.0f / 3.0f), 0x3555);
  EXPECT_EQ(f16BitsToFloat(0x3555), 0.333251953125f);
  EXPECT_EQ(roundTo(1.0 / 3.0, ElementType::F16), 0.333251953125);
  EXPECT_EQ(floatToF16Bits(0.1f), 0x2e66);
  // Largest finite and overflow: 65520 is halfway between 65504 and 65536.
  EXPECT_EQ(floatToF16Bits(65504.0f), 0x7bff);
  EXPECT_EQ(f16BitsToFloat(0x7bff), 65504.0f);
  EXPECT_EQ(floatToF16Bits(65519.0f), 0x7bff);
  EXPECT_EQ(floatToF16Bits(65520.0f), 0x7c00);
  EXPECT_EQ(floatToF16Bits(-65520.0f), 0xfc00);
  EXPECT_EQ(roundTo(65519.99, ElementType::F16), 65504.0);
  EXPECT_EQ(roundTo(65520.0, ElementType::F16), kInf);
  EXPECT_EQ(roundTo(-1e10, ElementType::F16), -kInf);
  EXPECT_EQ(floatToF16Bits(std::numeric_limits<float>::infinity()), 0x7c00);
  EXPECT_EQ(f16BitsToFloat(0x7c00), std::numeric_limits<float>::infinity());
  EXPECT_EQ(f16BitsToFloat(0xfc00), -std::numeric_limits<float>::infinity());
  // Ties to even around 1.
  EXPECT_EQ(floatToF16Bits(1.0f + 0x1p-11f), 0x3c00);
  EXPECT_EQ(floatToF16Bits(1.0f + 3 * 0x1p-11f), 0x3c02);
  EXPECT_EQ(floatToF16Bits(1.0f + 0x1p-11f + 0x1p-20f), 0x3c01);
  // Subnormals: 2^-24 is the smallest, 2^-14 the smallest normal.
  EXPECT_EQ(floatToF16Bits(0x1p-24f), 0x0001);
  EXPECT_EQ(f16BitsToFloat(0x0001), 0x1p-24f);
  EXPECT_EQ(floatToF16Bits(0x1p-25f), 0x0000);  // tie to even (0)
  EXPECT_EQ(floatToF16Bits(-0x1p-25f), 0x8000); // keeps its sign
  EXPECT_EQ(floatToF16Bits(0x1.000002p-25f), 0x0001);
  EXPECT_EQ(floatToF16Bits(3 * 0x1p-25f), 0x0002); // tie to even (2)
  EXPECT_EQ(floatToF16Bits(1023 * 0x1p-24f), 0x03ff);
  EXPECT_EQ(f16BitsToFloat(0x03ff), 1023 * 0x1p-24f);
  EXPECT_EQ(floatToF16Bits(0x1p-14f), 0x0400);
  EXPECT_EQ(floatToF16Bits(0x1.ffcp-15f), 0x0400); // rounds up into normals
  EXPECT_EQ(floatToF16Bits(1e-30f), 0x0000);
  EXPECT_EQ(roundTo(0x1p-25, ElementType::F16), 0.0);
  EXPECT_EQ(roundTo(5 * 0x1p-26, ElementType::F16), 0x1p-24);
  // NaN stays NaN.
  EXPECT_TRUE(std::isnan(
      f16BitsToFloat(floatToF16Bits(std::numeric_limits<float>::quiet_NaN()))));
  EXPECT_TRUE(
      std::isnan(f16BitsToFloat(floatToF16Bits(floatFromBits(0x7f800001u)))));
  EXPECT_TRUE(std::isnan(f16BitsToFloat(0x7e00)));
  EXPECT_TRUE(std::isnan(roundTo(std::nan(""), ElementType::F16)));
}

TEST(RoundingTest, InfinityAndZeroPassThrough) {
  for (ElementType t :
       {ElementType::BF16, ElementType::F16, ElementType::F32}) {
    EXPECT_EQ(roundTo(kInf, t), kInf);
    EXPECT_EQ(roundTo(-kInf, t), -kInf);
    EXPECT_EQ(roundTo(0.0, t), 0.0);
    EXPECT_TRUE(std::signbit(roundTo(-0.0, t)));
    EXPECT_TRUE(std::signbit(roundTo(-1e-300, t)));
  }
}

/// Every non-NaN bit pattern decodes and encodes back to itself, and every
/// midpoint between neighbours rounds to the even one (its neighbours in
/// float to the nearer one).
TEST(RoundingTest, F16ExhaustiveAndMidpoints) {
  for (uint32_t bits = 0; bits < 0x10000; ++bits) {
    float f = f16BitsToFloat(static_cast<uint16_t>(bits));
    if (std::isnan(f))
      continue;
    ASSERT_EQ(floatToF16Bits(f), bits) << std::hex << bits;
    ASSERT_EQ(roundTo(f, ElementType::F16), static_cast<double>(f)) << bits;
  }
  for (uint32_t sign : {0u, 0x8000u}) {
    for (uint32_t n = 0; n < 0x7c00; ++n) {
      float a = f16BitsToFloat(static_cast<uint16_t>(sign | n));
      float b = f16BitsToFloat(static_cast<uint16_t>(sign | (n + 1)));
      float mid = a + (b - a) / 2; // exact: needs one more bit than f16
      if (n + 1 == 0x7c00)         // 65520: past the largest finite
        mid = sign ? -65520.0f : 65520.0f;
      uint32_t even = (n % 2 == 0) ? n : n + 1;
      ASSERT_EQ(floatToF16Bits(mid), sign | even) << std::hex << n;
      ASSERT_EQ(floatToF16Bits(std::nextafter(mid, 0.0f)), sign | n) << n;
      ASSERT_EQ(floatToF16Bits(std::nextafter(mid, b * 2)), sign | (n + 1))
          << n;
      double r = roundTo(mid, ElementType::F16);
      ASSERT_EQ(r, static_cast<double>(
                       f16BitsToFloat(static_cast<uint16_t>(sign | even))));
    }
  }
}

TEST(RoundingTest, BF16ExhaustiveAndMidpoints) {
  for (uint32_t bits = 0; bits < 0x10000; ++bits) {
    float f = bf16BitsToFloat(static_cast<uint16_t>(bits));
    if (std::isnan(f))
      continue;
    ASSERT_EQ(floatToBF16Bits(f), bits) << std::hex << bits;
    ASSERT_EQ(roundTo(f, ElementType::BF16), static_cast<double>(f)) << bits;
  }
  for (uint32_t sign : {0u, 0x8000u}) {
    for (uint32_t n = 0; n < 0x7f80; ++n) {
      double a = bf16BitsToFloat(static_cast<uint16_t>(sign | n));
      double b = n + 1 == 0x7f80
                     ? (sign ? -0x1p128 : 0x1p128)
                     : bf16BitsToFloat(static_cast<uint16_t>(sign | (n + 1)));
      double mid = a + (b - a) / 2;
      uint32_t even = (n % 2 == 0) ? n : n + 1;
      double wantEven = bf16BitsToFloat(static_cast<uint16_t>(sign | even));
      ASSERT_EQ(roundTo(mid, ElementType::BF16), wantEven) << std::hex << n;
      ASSERT_EQ(roundTo(std::nextafter(mid, 0.0), ElementType::BF16), a) << n;
      if (n + 1 < 0x7f80) {
        ASSERT_EQ(floatToBF16Bits(static_cast<float>(mid)), sign | even) << n;
        ASSERT_EQ(roundTo(std::nextafter(mid, 2 * b), ElementType::BF16), b);
      }
    }
  }
}

/// roundTo(., F32) against the hardware's double-to-float conversion, and the
/// bf16 bit conversion against roundTo, on random bit patterns.
TEST(RoundingTest, RandomAgainstHardwareAndEachOther) {
  std::mt19937_64 rng(7);
  for (int i = 0; i < 200000; ++i) {
    uint64_t bits = rng();
    // Bias the exponent towards float's range half of the time.
    if (i % 2)
      bits = (bits & 0x800fffffffffffffull) |
             (static_cast<uint64_t>(1023 - 160 + (rng() % 300)) << 52);
    double x;
    std::memcpy(&x, &bits, sizeof(x));
    if (std::isnan(x))
      continue;
    double want = static_cast<double>(static_cast<float>(x));
    double got = roundTo(x, ElementType::F32);
    ASSERT_EQ(std::memcmp(&got, &want, sizeof(got)), 0) << x;

    float f = static_cast<float>(x);
    ASSERT_EQ(static_cast<double>(bf16BitsToFloat(floatToBF16Bits(f))),
              roundTo(f, ElementType::BF16))
        << f;
    ASSERT_EQ(static_cast<double>(f16BitsToFloat(floatToF16Bits(f))),
              roundTo(f, ElementType::F16))
        << f;
  }
}

//===----------------------------------------------------------------------===//
// Reference attention
//===----------------------------------------------------------------------===//

TEST(ReferenceTest, TwoKeysByHand) {
  AttentionProblem p = emptyProblem(1, 1, 1, 1, 2, 2, 2);
  p.q = {1, 0};
  p.k = {1, 0, 0, 1}; // scores 1 and 0
  p.v = {1, 2, 3, 4};
  std::vector<double> out, lse;
  referenceAttention(p, out, lse);
  double e = std::exp(1.0);
  double p0 = e / (e + 1), p1 = 1 / (e + 1);
  ASSERT_EQ(out.size(), 2u);
  ASSERT_EQ(lse.size(), 1u);
  EXPECT_NEAR(out[0], p0 * 1 + p1 * 3, 1e-15);
  EXPECT_NEAR(out[1], p0 * 2 + p1 * 4, 1e-15);
  EXPECT_NEAR(lse[0], std::log(e + 1), 1e-15);

  // The scale multiplies the scores.
  p.scale = 2.0;
  referenceAttention(p, out, lse);
  double e2 = std::exp(2.0);
  EXPECT_NEAR(out[0], (e2 * 1 + 3) / (e2 + 1), 1e-15);
  EXPECT_NEAR(lse[0], std::log(e2 + 1), 1e-15);
}

TEST(ReferenceTest, LargeScoresDoNotOverflow) {
  AttentionProblem p = emptyProblem(1, 1, 1, 1, 2, 1, 1);
  p.q = {1000};
  p.k = {1, 0.999};
  p.v = {1, 0};
  std::vector<double> out, lse;
  referenceAttention(p, out, lse); // scores 1000 and 999
  EXPECT_NEAR(out[0], 1 / (1 + std::exp(-1.0)), 1e-12);
  EXPECT_NEAR(lse[0], 1000 + std::log1p(std::exp(-1.0)), 1e-9);
  EXPECT_TRUE(std::isfinite(lse[0]));
}

TEST(ReferenceTest, FullyMaskedRowGivesZeroAndMinusInf) {
  // Bottom-right causal with Sq = 3 > Sk = 2: row 0 is aligned to key -1.
  AttentionProblem p = emptyProblem(1, 1, 1, 3, 2, 1, 2);
  p.mask = MaskSpec::causal(Alignment::BottomRight);
  p.q = {1, 2, 3};
  p.k = {0.5, -1};
  p.v = {10, 20, 30, 40};
  std::vector<double> out, lse;
  referenceAttention(p, out, lse);
  EXPECT_EQ(out[0], 0.0);
  EXPECT_EQ(out[1], 0.0);
  EXPECT_EQ(lse[0], -kInf);
  // Row 1 sees only key 0.
  EXPECT_DOUBLE_EQ(out[2], 10);
  EXPECT_DOUBLE_EQ(out[3], 20);
  EXPECT_DOUBLE_EQ(lse[1], 2 * 0.5);
  // Row 2 sees both.
  double s0 = 3 * 0.5, s1 = -3;
  EXPECT_NEAR(lse[2], std::log(std::exp(s0) + std::exp(s1)), 1e-14);

  std::vector<double> naive;
  for (ElementType t : {ElementType::BF16, ElementType::F32}) {
    naiveAttention(p, t, naive);
    EXPECT_EQ(naive[0], 0.0);
    EXPECT_EQ(naive[1], 0.0);
    EXPECT_FALSE(std::isnan(naive[0]));
    EXPECT_EQ(naive[2], 10.0);
  }
}

TEST(ReferenceTest, GQAReadsKVHeadHOverGroup) {
  // Sk = 1: the output of query head h is exactly V of its KV head.
  AttentionProblem p = emptyProblem(2, 6, 2, 1, 1, 1, 1);
  for (size_t i = 0; i < p.q.size(); ++i)
    p.q[i] = 0.1 * i;
  p.v = {1, 2, 3, 4}; // [b][hkv]
  std::vector<double> out, lse;
  referenceAttention(p, out, lse);
  for (int b = 0; b < 2; ++b)
    for (int h = 0; h < 6; ++h)
      EXPECT_EQ(out[b * 6 + h], p.v[b * 2 + h / 3]) << b << " " << h;
}

TEST(ReferenceTest, GQAEqualsMHAWithRepeatedKV) {
  AttentionSpec spec;
  std::string error;
  ASSERT_TRUE(parseSpec("b=2 hq=4 hkv=2 sq=5 sk=7 d=3 dv=2 dtype=f32 "
                        "mask=causal alibi softcap=2",
                        spec, error))
      << error;
  AttentionProblem gqa;
  makeProblem(spec, 3, gqa);
  AttentionProblem mha = gqa;
  mha.hkv = 4;
  mha.k.clear();
  mha.v.clear();
  for (int b = 0; b < 2; ++b) {
    for (int h = 0; h < 4; ++h) {
      int hk = h / 2;
      auto kBegin = gqa.k.begin() + (b * 2 + hk) * 7 * 3;
      mha.k.insert(mha.k.end(), kBegin, kBegin + 7 * 3);
      auto vBegin = gqa.v.begin() + (b * 2 + hk) * 7 * 2;
      mha.v.insert(mha.v.end(), vBegin, vBegin + 7 * 2);
    }
  }
  std::vector<double> o1, l1, o2, l2;
  referenceAttention(gqa, o1, l1);
  referenceAttention(mha, o2, l2);
  EXPECT_EQ(o1, o2);
  EXPECT_EQ(l1, l2);
  naiveAttention(gqa, ElementType::BF16, o1);
  naiveAttention(mha, ElementType::BF16, o2);
  EXPECT_EQ(o1, o2);
}

/// Softcap, ALiBi and the score function, against the formulas written out.
TEST(ReferenceTest, ScoreModificationsMatchFormula) {
  const int64_t sq = 2, sk = 3, hq = 2;
  AttentionProblem p = emptyProblem(1, hq, 1, sq, sk, 1, 1);
  p.q = {2.0, -1.0, 0.5, 3.0}; // [h][i]
  p.k = {1.5, -0.5, 2.0};      // [j]
  p.v = {1.0, 10.0, 100.0};    // [j]
  p.scale = 0.75;
  p.softcap = 1.5;
  p.alibiSlopes = {0.5, 0.25};
  std::vector<double> out, lse;
  referenceAttention(p, out, lse);

  auto expected = [&](bool capped, bool alibi, int64_t h, int64_t i, double &o,
                      double &l) {
    double w[sk], sum = 0, acc = 0;
    for (int64_t j = 0; j < sk; ++j) {
      double s = 0.75 * p.q[h * sq + i] * p.k[j];
      if (capped)
        s = 1.5 * std::tanh(s / 1.5);
      if (alibi)
        s -= p.alibiSlopes[h] * std::abs(static_cast<double>(i + sk - sq - j));
      w[j] = std::exp(s);
      sum += w[j];
      acc += w[j] * p.v[j];
    }
    o = acc / sum;
    l = std::log(sum);
  };
  for (int64_t h = 0; h < hq; ++h) {
    for (int64_t i = 0; i < sq; ++i) {
      double o, l;
      expected(true, true, h, i, o, l);
      EXPECT_NEAR(out[h * sq + i], o, 1e-12) << h << " " << i;
      EXPECT_NEAR(lse[h * sq + i], l, 1e-12) << h << " " << i;
      // The modifications matter: without them the answer differs.
      double o0, l0;
      expected(false, false, h, i, o0, l0);
      EXPECT_GT(std::abs(out[h * sq + i] - o0), 1e-3) << h << " " << i;
      double o1, l1;
      expected(true, false, h, i, o1, l1);
      EXPECT_GT(std::abs(lse[h * sq + i] - l1), 1e-3) << h << " " << i;
    }
  }

  // The score function sees the capped, ALiBi-shifted score and the indices.
  int calls = 0;
  p.customScore = [&](double s, int64_t b, int64_t h, int64_t i, int64_t j) {
    double want = 1.5 * std::tanh(0.75 * p.q[h * sq + i] * p.k[j] / 1.5) -
                  p.alibiSlopes[h] * std::abs(double(i + sk - sq - j));
    EXPECT_NEAR(s, want, 1e-14);
    EXPECT_EQ(b, 0);
    ++calls;
    return j == 2 ? s : -kInf; // only key 2 survives
  };
  referenceAttention(p, out, lse);
  EXPECT_EQ(calls, hq * sq * sk);
  for (int64_t r = 0; r < hq * sq; ++r)
    EXPECT_DOUBLE_EQ(out[r], 100.0);

  // A score function returning -inf everywhere acts like a fully masked row.
  p.customScore = [](double, int64_t, int64_t, int64_t, int64_t) {
    return -std::numeric_limits<double>::infinity();
  };
  referenceAttention(p, out, lse);
  EXPECT_EQ(out[0], 0.0);
  EXPECT_EQ(lse[0], -kInf);
}

TEST(ReferenceTest, NaiveScoreModificationsAgreeInF32) {
  AttentionSpec spec;
  std::string error;
  ASSERT_TRUE(parseSpec("hq=4 sq=9 sk=11 d=8 dtype=f32 softcap=1.5 alibi "
                        "scale=1.3 mask=window:3,2:top_left",
                        spec, error))
      << error;
  AttentionProblem p;
  makeProblem(spec, 11, p);
  std::vector<double> ref, lse, naive;
  referenceAttention(p, ref, lse);
  naiveAttention(p, ElementType::F32, naive);
  ErrorStats e = compare(naive, ref);
  EXPECT_LT(e.maxAbs, 1e-5);
  EXPECT_EQ(e.mismatchedNonFinite, 0);
}

TEST(ReferenceTest, CustomMask) {
  AttentionProblem p = emptyProblem(1, 1, 1, 2, 2, 1, 1);
  p.mask.kind = MaskKind::Custom;
  p.q = {1, 1};
  p.k = {1, 1};
  p.v = {5, 7};
  std::vector<double> out, lse;
  // Without a function a custom mask sees nothing.
  EXPECT_FALSE(p.visible(0, 0, 0, 0));
  p.customMask = [](int64_t, int64_t, int64_t i, int64_t j) { return i != j; };
  EXPECT_FALSE(p.visible(0, 0, 0, 0));
  EXPECT_TRUE(p.visible(0, 0, 0, 1));
  EXPECT_FALSE(p.visible(0, 0, 0, 2)); // out of range
  referenceAttention(p, out, lse);
  EXPECT_EQ(out[0], 7.0);
  EXPECT_EQ(out[1], 5.0);
  EXPECT_DOUBLE_EQ(lse[0], 1.0);
}

TEST(ReferenceTest, BlockMaskSlices) {
  // blockMask [b=2, h=2, 2, 2] with 1x1 blocks: every (b, h) its own slice.
  AttentionProblem p = emptyProblem(2, 2, 1, 2, 2, 1, 1);
  p.mask = MaskSpec::blockSparse(1, 1);
  p.blockMaskB = 2;
  p.blockMaskH = 2;
  p.blockMask = {1, 0, 0, 1, 0, 1, 1, 0, 1, 1, 0, 0, 0, 0, 1, 1};
  for (int b = 0; b < 2; ++b)
    for (int h = 0; h < 2; ++h)
      for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j)
          EXPECT_EQ(p.visible(b, h, i, j),
                    p.blockMask[((b * 2 + h) * 2 + i) * 2 + j] != 0)
              << b << h << i << j;
  // Broadcast over batch: only the first 8 entries are read.
  p.blockMaskB = 1;
  for (int b = 0; b < 2; ++b)
    for (int h = 0; h < 2; ++h)
      for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j)
          EXPECT_EQ(p.visible(b, h, i, j),
                    p.blockMask[(h * 2 + i) * 2 + j] != 0);
  // Broadcast over heads too.
  p.blockMaskH = 1;
  for (int h = 0; h < 2; ++h)
    EXPECT_FALSE(p.visible(1, h, 0, 1));
  // Blocks larger than one element, with a partial last block:
  // Sq = 5, Sk = 3, BQ = 2, BK = 2 -> 3 x 2 blocks.
  AttentionProblem q = emptyProblem(1, 1, 1, 5, 3, 1, 1);
  q.mask = MaskSpec::blockSparse(2, 2);
  q.blockMask = {1, 0, 0, 1, 1, 1};
  for (int i = 0; i < 5; ++i)
    for (int j = 0; j < 3; ++j)
      EXPECT_EQ(q.visible(0, 0, i, j), q.blockMask[(i / 2) * 2 + j / 2] != 0);
  // A missing block mask sees nothing.
  q.blockMask.clear();
  EXPECT_FALSE(q.visible(0, 0, 0, 0));
}

TEST(ReferenceTest, DocumentMaskFromSpec) {
  AttentionSpec spec;
  std::string error;
  ASSERT_TRUE(parseSpec("b=2 hq=2 mask=document:2,0,3 d=4", spec, error))
      << error;
  AttentionProblem p;
  makeProblem(spec, 1, p);
  EXPECT_EQ(p.cuSeqlens, (std::vector<int32_t>{0, 2, 2, 5}));
  EXPECT_EQ(p.seqIds, (std::vector<int32_t>{0, 0, 2, 2, 2, 0, 0, 2, 2, 2}));
  for (int b = 0; b < 2; ++b) {
    for (int i = 0; i < 5; ++i) {
      for (int j = 0; j < 5; ++j) {
        bool same = (i < 2) == (j < 2);
        EXPECT_EQ(p.visible(b, 1, i, j), same) << i << " " << j;
      }
    }
  }
  // The seqIds operand says the same thing.
  AttentionProblem s = p;
  s.mask.documentSource = DocumentSource::SegmentIds;
  s.cuSeqlens.clear();
  for (int i = 0; i < 5; ++i)
    for (int j = 0; j < 5; ++j)
      EXPECT_EQ(s.visible(1, 0, i, j), p.visible(1, 0, i, j));
  // Causal within documents.
  ASSERT_TRUE(parseSpec("mask=document:2,3:causal", spec, error)) << error;
  makeProblem(spec, 1, p);
  EXPECT_TRUE(p.visible(0, 0, 3, 2));
  EXPECT_FALSE(p.visible(0, 0, 3, 4));
  EXPECT_FALSE(p.visible(0, 0, 3, 1));
  // Each document attends only to itself: output of document 0 does not
  // change when document 1's values do.
  std::vector<double> out1, out2, lse;
  referenceAttention(p, out1, lse);
  for (int64_t j = 2; j < 5; ++j)
    for (int64_t c = 0; c < p.dv; ++c)
      p.v[j * p.dv + c] += 1.0;
  referenceAttention(p, out2, lse);
  for (int64_t i = 0; i < 2 * p.dv; ++i)
    EXPECT_EQ(out1[i], out2[i]);
  EXPECT_NE(out1[2 * p.dv], out2[2 * p.dv]);
}

TEST(ReferenceTest, BlockSparseFromSpec) {
  AttentionSpec spec;
  std::string error;
  ASSERT_TRUE(
      parseSpec("sq=200 sk=150 d=4 mask=blocksparse:4,3,0.5", spec, error))
      << error;
  AttentionProblem p;
  makeProblem(spec, 5, p);
  EXPECT_EQ(p.blockMaskB, 1);
  EXPECT_EQ(p.blockMaskH, 1);
  ASSERT_EQ(p.blockMask.size(), 50u * 50u);
  int64_t ones = 0;
  for (uint8_t m : p.blockMask) {
    EXPECT_TRUE(m == 0 || m == 1);
    ones += m;
  }
  EXPECT_GT(ones, 2500 * 0.45);
  EXPECT_LT(ones, 2500 * 0.55);

  // Density 0: every row fully masked. Density 1: the same as no mask.
  ASSERT_TRUE(parseSpec("sq=9 sk=7 d=4 mask=blocksparse:4,3,0", spec, error));
  makeProblem(spec, 5, p);
  std::vector<double> out, lse;
  referenceAttention(p, out, lse);
  for (double o : out)
    EXPECT_EQ(o, 0.0);
  for (double l : lse)
    EXPECT_EQ(l, -kInf);
  ASSERT_TRUE(parseSpec("sq=9 sk=7 d=4 mask=blocksparse:4,3,1", spec, error));
  makeProblem(spec, 5, p);
  std::vector<double> out2, lse2;
  referenceAttention(p, out, lse);
  p.mask = MaskSpec::none();
  referenceAttention(p, out2, lse2);
  EXPECT_EQ(out, out2);
  EXPECT_EQ(lse, lse2);
}

//===----------------------------------------------------------------------===//
// Naive attention and compare
//===----------------------------------------------------------------------===//

TEST(NaiveTest, LowerPrecisionHasLargerError) {
  AttentionSpec spec;
  std::string error;
  ASSERT_TRUE(parseSpec("b=2 hq=4 hkv=2 sq=64 sk=80 d=32 dtype=f32 "
                        "mask=causal",
                        spec, error))
      << error;
  AttentionProblem p;
  makeProblem(spec, 42, p);
  std::vector<double> ref, lse, f32, f16, bf16;
  referenceAttention(p, ref, lse);
  naiveAttention(p, ElementType::F32, f32);
  naiveAttention(p, ElementType::F16, f16);
  naiveAttention(p, ElementType::BF16, bf16);
  ErrorStats e32 = compare(f32, ref);
  ErrorStats e16 = compare(f16, ref);
  ErrorStats eb16 = compare(bf16, ref);
  EXPECT_LT(e32.relFrobenius, 1e-6);
  EXPECT_GT(e16.relFrobenius, 10 * e32.relFrobenius);
  EXPECT_GT(eb16.relFrobenius, 4 * e16.relFrobenius);
  EXPECT_LT(eb16.relFrobenius, 3e-2);
  EXPECT_LT(e16.relFrobenius, 5e-3);
  EXPECT_EQ(eb16.mismatchedNonFinite, 0);
  // The naive bf16 output is made of bf16 values.
  for (double o : bf16)
    ASSERT_EQ(o, roundTo(o, ElementType::BF16));
}

TEST(NaiveTest, HandComputedBF16) {
  // One row, two keys with scores 1 and 0 and P rounded to bf16:
  // P = e/(e+1) = 0.7310585... -> 0.73046875, 1/(e+1) = 0.2689414...
  // -> 0.26953125 (both bf16).
  AttentionProblem p = emptyProblem(1, 1, 1, 1, 2, 1, 1);
  p.q = {1};
  p.k = {1, 0};
  p.v = {1, 3};
  std::vector<double> out;
  naiveAttention(p, ElementType::BF16, out);
  double want = roundTo(0.73046875 * 1 + 0.26953125 * 3, ElementType::BF16);
  EXPECT_EQ(out[0], want);
  naiveAttention(p, ElementType::F32, out);
  double e = std::exp(1.0);
  EXPECT_NEAR(out[0], (e + 3) / (e + 1), 1e-6);
}

/// The naive steps written out for one row of three keys: S rounded to bf16,
/// softmax in f32, P rounded to bf16, PV in f32, output rounded to bf16. The
/// variants without the S or the P rounding give other answers, so this test
/// notices when either rounding goes missing.
TEST(NaiveTest, RoundsScoresAndProbabilities) {
  AttentionProblem p = emptyProblem(1, 1, 1, 1, 3, 1, 1);
  p.q = {1.0};
  p.k = {1.0, 0.5, -0.75};
  p.v = {1.0, -2.0, 3.0};
  p.scale = 2.9;
  auto bf = [](float x) { return bf16BitsToFloat(floatToBF16Bits(x)); };
  auto id = [](float x) { return x; };
  auto steps = [&](auto roundS, auto roundP) {
    float s[3], e[3], sum = 0, o = 0;
    for (int j = 0; j < 3; ++j)
      s[j] = roundS(2.9f * (1.0f * static_cast<float>(p.k[j])));
    float m = std::max(s[0], std::max(s[1], s[2]));
    for (int j = 0; j < 3; ++j) {
      e[j] = std::exp(s[j] - m);
      sum += e[j];
    }
    for (int j = 0; j < 3; ++j)
      o += roundP(e[j] / sum) * static_cast<float>(p.v[j]);
    return static_cast<double>(bf(o));
  };
  double want = steps(bf, bf);
  ASSERT_NE(want, steps(id, bf)) << "pick inputs where S rounding matters";
  ASSERT_NE(want, steps(bf, id)) << "pick inputs where P rounding matters";
  std::vector<double> out;
  naiveAttention(p, ElementType::BF16, out);
  EXPECT_EQ(out[0], want);
}

TEST(CompareTest, Statistics) {
  ErrorStats e = compare({1, 2, 3}, {1, 2, 3});
  EXPECT_EQ(e.maxAbs, 0);
  EXPECT_EQ(e.relFrobenius, 0);
  EXPECT_EQ(e.mismatchedNonFinite, 0);

  e = compare({1, 2}, {1, 4});
  EXPECT_EQ(e.maxAbs, 2);
  EXPECT_DOUBLE_EQ(e.relFrobenius, 2 / std::sqrt(17.0));

  // ||want|| = 0: the absolute Frobenius norm.
  e = compare({3, 4}, {0, 0});
  EXPECT_DOUBLE_EQ(e.relFrobenius, 5);
  EXPECT_EQ(e.maxAbs, 4);

  // -inf matching -inf is equal.
  e = compare({-kInf, 1}, {-kInf, 1});
  EXPECT_EQ(e.mismatchedNonFinite, 0);
  EXPECT_EQ(e.maxAbs, 0);
  EXPECT_EQ(e.relFrobenius, 0);

  double nan = std::nan("");
  EXPECT_EQ(compare({-kInf}, {0}).mismatchedNonFinite, 1);
  EXPECT_EQ(compare({0}, {-kInf}).mismatchedNonFinite, 1);
  EXPECT_EQ(compare({kInf}, {-kInf}).mismatchedNonFinite, 1);
  EXPECT_EQ(compare({nan}, {1}).mismatchedNonFinite, 1);
  EXPECT_EQ(compare({nan}, {-kInf}).mismatchedNonFinite, 1);
  EXPECT_EQ(compare({nan, kInf, 2}, {1, 1, 2}).mismatchedNonFinite, 2);
  // Mismatched positions do not pollute the finite statistics.
  e = compare({nan, 1}, {5, 2});
  EXPECT_EQ(e.maxAbs, 1);
  EXPECT_DOUBLE_EQ(e.relFrobenius, 1 / std::sqrt(4.0));
  // Extra positions on either side are mismatches.
  EXPECT_EQ(compare({1, 2, 3}, {1}).mismatchedNonFinite, 2);
  EXPECT_EQ(compare({}, {1}).mismatchedNonFinite, 1);
}

//===----------------------------------------------------------------------===//
// makeProblem
//===----------------------------------------------------------------------===//

TEST(MakeProblemTest, SizesDeterminismAndRounding) {
  AttentionSpec spec;
  std::string error;
  ASSERT_TRUE(parseSpec("b=2 hq=4 hkv=2 sq=5 sk=6 d=8 dv=3 dtype=f16 "
                        "softcap=20 alibi",
                        spec, error))
      << error;
  AttentionProblem p1, p2, p3;
  makeProblem(spec, 123, p1);
  makeProblem(spec, 123, p2);
  makeProblem(spec, 124, p3);
  EXPECT_EQ(p1.q.size(), 2u * 4 * 5 * 8);
  EXPECT_EQ(p1.k.size(), 2u * 2 * 6 * 8);
  EXPECT_EQ(p1.v.size(), 2u * 2 * 6 * 3);
  EXPECT_EQ(p1.q, p2.q);
  EXPECT_EQ(p1.k, p2.k);
  EXPECT_EQ(p1.v, p2.v);
  EXPECT_NE(p1.q, p3.q);
  EXPECT_EQ(p1.scale, 1 / std::sqrt(8.0));
  ASSERT_TRUE(p1.softcap.has_value());
  EXPECT_EQ(*p1.softcap, 20.0);
  EXPECT_EQ(p1.alibiSlopes, standardAlibiSlopes(4));
  EXPECT_TRUE(p1.seqIds.empty());
  EXPECT_TRUE(p1.blockMask.empty());
  for (double x : p1.q)
    ASSERT_EQ(x, roundTo(x, ElementType::F16));
  for (double x : p1.v)
    ASSERT_EQ(x, roundTo(x, ElementType::F16));
}

TEST(MakeProblemTest, NormalInputs) {
  AttentionSpec spec;
  std::string error;
  ASSERT_TRUE(parseSpec("sq=1000 d=64 dtype=f32", spec, error)) << error;
  AttentionProblem p;
  makeProblem(spec, 9, p);
  double sum = 0, sum2 = 0;
  int64_t beyond3 = 0;
  for (double x : p.q) {
    sum += x;
    sum2 += x * x;
    beyond3 += std::abs(x) > 3;
  }
  double n = static_cast<double>(p.q.size());
  EXPECT_NEAR(sum / n, 0.0, 0.02);
  EXPECT_NEAR(sum2 / n, 1.0, 0.03);
  // P(|x| > 3) = 0.0027 for a standard normal.
  EXPECT_GT(beyond3, n * 0.0015);
  EXPECT_LT(beyond3, n * 0.004);
}

/// The stream is fixed: mt19937_64 and Box-Muller, not the standard library's
/// normal distribution, so these values hold everywhere.
TEST(MakeProblemTest, GoldenValues) {
  AttentionSpec spec;
  std::string error;
  ASSERT_TRUE(parseSpec("sq=2 d=2 dtype=bf16", spec, error)) << error;
  AttentionProblem p;
  makeProblem(spec, 0, p);
  std::mt19937_64 rng(0);
  double u1 = 1.0 - static_cast<double>(rng() >> 11) * 0x1.0p-53;
  double u2 = static_cast<double>(rng() >> 11) * 0x1.0p-53;
  double r = std::sqrt(-2 * std::log(u1));
  double pi = 3.14159265358979323846;
  EXPECT_EQ(p.q[0], roundTo(r * std::cos(2 * pi * u2), ElementType::BF16));
  EXPECT_EQ(p.q[1], roundTo(r * std::sin(2 * pi * u2), ElementType::BF16));
}

} // namespace

TEST(ReferenceTest, HostBytesSaturateAndAreChecked) {
  AttentionSpec spec;
  spec.b = 2;
  spec.hq = 4;
  spec.hkv = 2;
  spec.sq = 10;
  spec.sk = 12;
  spec.d = 8;
  spec.dv = 8;
  // q 640, k 384, v 384, three outputs 1920, three LSEs 240, ids 24.
  EXPECT_EQ(problemHostBytes(spec), (640u + 384 + 384 + 1920 + 240 + 24) * 8);
  std::string error;
  EXPECT_TRUE(checkHostMemory(spec, error)) << error;
  // Products past 2^64 saturate instead of wrapping to a small size.
  spec.b = 65535;
  spec.hq = spec.hkv = 65535;
  spec.sq = spec.sk = INT32_MAX;
  spec.d = spec.dv = 65536;
  EXPECT_EQ(problemHostBytes(spec), UINT64_MAX);
  EXPECT_FALSE(checkHostMemory(spec, error));
  EXPECT_NE(error.find("more than 2^64 bytes"), std::string::npos) << error;
}

TEST(ReferenceTest, KvLensShortenEachSequenceAndRealignTheMask) {
  // Causal (bottom-right) with Sq = 2, Sk = 10 and per-sequence lengths 10,
  // 4, 0 and 12 (clamped to 10): row i of sequence b sees keys
  // j <= i + len_b - 2.
  AttentionProblem p;
  p.b = 4;
  p.sq = 2;
  p.sk = 10;
  p.mask = MaskSpec::causal(Alignment::BottomRight);
  p.kvLens = {10, 4, 0, 12};
  EXPECT_EQ(p.keysOf(0), 10);
  EXPECT_EQ(p.keysOf(1), 4);
  EXPECT_EQ(p.keysOf(2), 0);
  EXPECT_EQ(p.keysOf(3), 10);
  EXPECT_TRUE(p.visible(0, 0, 1, 9));
  EXPECT_FALSE(p.visible(0, 0, 0, 9));
  EXPECT_TRUE(p.visible(1, 0, 1, 3));
  EXPECT_TRUE(p.visible(1, 0, 0, 2));
  EXPECT_FALSE(p.visible(1, 0, 0, 3));
  EXPECT_FALSE(p.visible(1, 0, 1, 4)); // past the sequence's keys
  for (int64_t j = 0; j < p.sk; ++j)
    EXPECT_FALSE(p.visible(2, 0, 1, j));
  // Without lengths, every sequence has Sk keys.
  p.kvLens.clear();
  EXPECT_EQ(p.keysOf(1), 10);
  EXPECT_TRUE(p.visible(1, 0, 1, 9));
}

TEST(ReferenceTest, KvLensEmptySequenceGivesZeroAndMinusInfinity) {
  AttentionProblem p;
  p.b = 2;
  p.hq = p.hkv = 1;
  p.sq = 1;
  p.sk = 3;
  p.d = p.dv = 2;
  p.q = {1, 0, 1, 0};
  p.k = std::vector<double>(2 * 3 * 2, 1.0);
  p.v = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
  p.kvLens = {0, 1};
  std::vector<double> out, lse;
  referenceAttention(p, out, lse);
  EXPECT_EQ(out[0], 0.0);
  EXPECT_EQ(out[1], 0.0);
  EXPECT_EQ(lse[0], -std::numeric_limits<double>::infinity());
  // The second sequence has one key: its value row, exactly.
  EXPECT_EQ(out[2], 7.0);
  EXPECT_EQ(out[3], 8.0);
}

TEST(Fp8Test, DecodesKnownCodes) {
  EXPECT_EQ(fp8e4m3ToDouble(0x00), 0.0);
  EXPECT_EQ(fp8e4m3ToDouble(0x38), 1.0);        // exponent 7, mantissa 0
  EXPECT_EQ(fp8e4m3ToDouble(0x7E), 448.0);      // the largest finite
  EXPECT_EQ(fp8e4m3ToDouble(0x01), 0.001953125); // 2^-9, the smallest subnormal
  EXPECT_EQ(fp8e4m3ToDouble(0x08), 0.015625);    // 2^-6, the smallest normal
  EXPECT_EQ(fp8e4m3ToDouble(0xB8), -1.0);
  EXPECT_TRUE(std::isnan(fp8e4m3ToDouble(0x7F)));
  EXPECT_TRUE(std::isnan(fp8e4m3ToDouble(0xFF)));
}

TEST(Fp8Test, EncodesToTheNearestCodeTiesToEvenAndSaturates) {
  // Every finite code encodes back to itself (-0 included).
  for (int code = 0; code < 256; ++code) {
    double v = fp8e4m3ToDouble(static_cast<uint8_t>(code));
    if (!std::isnan(v))
      EXPECT_EQ(doubleToFp8e4m3(v), code) << code;
  }
  // Between neighbours: below the midpoint the lower code, above it the
  // upper, at it the even one.
  for (int code = 0; code < 0x7E; ++code) {
    double lo = fp8e4m3ToDouble(static_cast<uint8_t>(code));
    double hi = fp8e4m3ToDouble(static_cast<uint8_t>(code + 1));
    double mid = (lo + hi) / 2;
    EXPECT_EQ(doubleToFp8e4m3(std::nextafter(mid, lo)), code);
    EXPECT_EQ(doubleToFp8e4m3(std::nextafter(mid, hi)), code + 1);
    EXPECT_EQ(doubleToFp8e4m3(mid), code % 2 == 0 ? code : code + 1);
  }
  EXPECT_EQ(doubleToFp8e4m3(1e9), 0x7E);
  EXPECT_EQ(doubleToFp8e4m3(-1e9), 0xFE);
  EXPECT_EQ(doubleToFp8e4m3(std::nan("")), 0x7F);
}

// Where each page row of a paged cache comes from: the logical row a
// sequence maps there, -1 for rows no sequence reads (past a length, a page
// no sequence uses), the last sequence winning on a shared page.
TEST(PageRowSourcesTest, MapsRowsAndLeavesUnreadOnes) {
  AttentionProblem p;
  p.b = 3;
  p.hkv = 1;
  p.sk = 4;
  p.pageSize = 2;
  p.numPages = 5;
  // Sequence 0: pages 3, 1; sequence 1: pages 0, 4; sequence 2 shares page
  // 3 (its first) with sequence 0 and has one key; page 2 is unused.
  p.pageTable = {3, 1, 0, 4, 3, 2};
  p.kvLens = {4, 3, 1};
  std::vector<int64_t> sources;
  std::string error;
  ASSERT_TRUE(pageRowSources(p, sources, error)) << error;
  // Row (page, r) of head 0 is index page * 2 + r.
  std::vector<int64_t> want = {
      1 * 4 + 0,
      1 * 4 + 1, // page 0: sequence 1, keys 0 and 1
      0 * 4 + 2,
      0 * 4 + 3, // page 1: sequence 0, keys 2 and 3
      -1,
      -1, // page 2: sequence 2's key 2 and 3 are past its length
      2 * 4 + 0,
      0 * 4 + 1, // page 3: sequence 2's key 0 last, then sequence 0's key 1
      1 * 4 + 2,
      -1, // page 4: sequence 1's key 2; key 3 is past its length
  };
  EXPECT_EQ(sources, want);

  p.pageTable[5] = 5;
  EXPECT_FALSE(pageRowSources(p, sources, error));
  EXPECT_EQ(error, "expected page ids in [0, num_pages)");
  p.pageTable.pop_back();
  EXPECT_FALSE(pageRowSources(p, sources, error));
  EXPECT_EQ(error, "expected a page table of b * sk / page_size entries");
}
