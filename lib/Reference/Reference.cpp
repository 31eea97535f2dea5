//===- Reference.cpp - float64 reference attention ------------------------===//
//
// The float64 reference, the naive reduced-precision implementation, the
// error statistics and the seeded problem generator of Reference.h. Plain
// C++; the float conversions are written out by hand (no _Float16, no
// compiler builtins) so that their rounding is exactly round-to-nearest-even
// on every host.
//
//===----------------------------------------------------------------------===//

#include "harness/Reference.h"

#include <cstdlib>
#include <cstdio>

#include <cassert>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>

using namespace attnc;
using attnc::mask::MaskKind;
using attnc::mask::MaskOperandView;

//===----------------------------------------------------------------------===//
// Rounding and bit conversions
//===----------------------------------------------------------------------===//

namespace {
/// A binary floating-point format: explicit mantissa bits and the exponent
/// range of its normal numbers.
struct FloatFormat {
  int mantissaBits;
  int minExponent;
  int maxExponent;
};
} // namespace

static FloatFormat formatOf(ElementType t) {
  switch (t) {
  case ElementType::BF16:
    return {7, -126, 127};
  case ElementType::F16:
    return {10, -14, 15};
  case ElementType::F32:
    return {23, -126, 127};
  }
  return {23, -126, 127};
}

/// Rounds the finite non-negative integer-or-half value `x` (exact in double,
/// below 2^52) to the nearest integer, ties to even.
static double roundHalfEven(double x) {
  double fl = std::floor(x);
  double frac = x - fl;
  if (frac > 0.5 || (frac == 0.5 && std::fmod(fl, 2.0) != 0.0))
    fl += 1.0;
  return fl;
}

/// Rounds `v` to the nearest value of `f` (ties to even), with gradual
/// underflow and overflow to infinity. Every step is exact in double except
/// the one rounding.
static double roundToFormat(double v, const FloatFormat &f) {
  if (std::isnan(v) || std::isinf(v) || v == 0.0)
    return v;
  double a = std::fabs(v);
  int e;
  std::frexp(a, &e); // a in [2^(e-1), 2^e)
  int exponent = std::max(e - 1, f.minExponent);
  // The spacing of `f` around a (the subnormal spacing below the normals).
  double quantum = std::ldexp(1.0, exponent - f.mantissaBits);
  double r = roundHalfEven(a / quantum) * quantum;
  double maxFinite =
      std::ldexp(2.0 - std::ldexp(1.0, -f.mantissaBits), f.maxExponent);
  if (r > maxFinite)
    r = std::numeric_limits<double>::infinity();
  return std::copysign(r, v);
}

double attnc::fp8e4m3ToDouble(uint8_t code) {
  int sign = code >> 7, exponent = (code >> 3) & 0xF, mantissa = code & 7;
  if (exponent == 0xF && mantissa == 7)
    return std::numeric_limits<double>::quiet_NaN();
  double magnitude = exponent == 0
                         ? std::ldexp(mantissa, -9) // subnormal: m / 8 * 2^-6
                         : std::ldexp(8 + mantissa, exponent - 10);
  return sign ? -magnitude : magnitude;
}

uint8_t attnc::doubleToFp8e4m3(double v) {
  if (std::isnan(v))
    return 0x7F;
  uint8_t sign = std::signbit(v) ? 0x80 : 0;
  double a = std::min(std::fabs(v), 448.0);
  // Below 2^-6 the codes are m * 2^-9 (m = 8 is the smallest normal, code
  // 0x08); above, (8 + m) * 2^(E - 3) in [2^E, 2^(E+1)). Rounding the scaled
  // value to an integer, ties to even (the default rounding mode), picks
  // the nearest code with an even mantissa on ties; the codes are ordered by
  // value, so a carry into the next binade is the next code. 448 is code
  // 0x7E, and nothing above it is reached after the clamp.
  if (a < 0.015625)
    return sign | static_cast<uint8_t>(std::nearbyint(std::ldexp(a, 9)));
  int e;
  std::frexp(a, &e); // a in [2^(e-1), 2^e)
  int exponent = e - 1;
  int mantissa =
      static_cast<int>(std::nearbyint(std::ldexp(a, 3 - exponent))) - 8;
  return sign | static_cast<uint8_t>(((exponent + 7) << 3) + mantissa);
}

double attnc::roundTo(double v, ElementType t) {
  return roundToFormat(v, formatOf(t));
}

static uint32_t floatBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof(u));
  return u;
}

static float bitsFloat(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof(f));
  return f;
}

uint16_t attnc::floatToBF16Bits(float f) {
  uint32_t u = floatBits(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) // NaN: keep sign and payload, quiet.
    return static_cast<uint16_t>((u >> 16) | 0x0040u);
  // Round to nearest even on the 16 dropped bits; a carry out of the
  // mantissa bumps the exponent, up to infinity. Subnormals need nothing
  // special: bf16 shares float's exponent range.
  uint32_t lsb = (u >> 16) & 1u;
  u += 0x7fffu + lsb;
  return static_cast<uint16_t>(u >> 16);
}

float attnc::bf16BitsToFloat(uint16_t bits) {
  return bitsFloat(static_cast<uint32_t>(bits) << 16);
}

uint16_t attnc::floatToF16Bits(float f) {
  uint32_t u = floatBits(f);
  uint16_t sign = static_cast<uint16_t>((u >> 16) & 0x8000u);
  if ((u & 0x7fffffffu) > 0x7f800000u) // NaN: quiet, keep the top payload.
    return static_cast<uint16_t>(sign | 0x7e00u | ((u >> 13) & 0x03ffu));
  // Round in value space, then encode the (exactly representable) result.
  double r = roundToFormat(static_cast<double>(f), formatOf(ElementType::F16));
  double a = std::fabs(r);
  if (std::isinf(a))
    return static_cast<uint16_t>(sign | 0x7c00u);
  if (a == 0.0)
    return sign;
  if (a < std::ldexp(1.0, -14)) // Subnormal: a = m * 2^-24.
    return static_cast<uint16_t>(sign |
                                 static_cast<uint16_t>(std::ldexp(a, 24)));
  int e;
  std::frexp(a, &e);
  int exponent = e - 1; // a = (1 + m / 1024) * 2^exponent
  uint16_t mant =
      static_cast<uint16_t>((std::ldexp(a, -exponent) - 1.0) * 1024.0);
  return static_cast<uint16_t>(sign | ((exponent + 15) << 10) | mant);
}

float attnc::f16BitsToFloat(uint16_t bits) {
  uint32_t sign = static_cast<uint32_t>(bits & 0x8000u) << 16;
  uint32_t exponent = (bits >> 10) & 0x1fu;
  uint32_t mant = bits & 0x3ffu;
  if (exponent == 0x1f) // inf / NaN
    return bitsFloat(sign | 0x7f800000u | (mant << 13));
  float mag;
  if (exponent == 0)
    mag = static_cast<float>(std::ldexp(static_cast<double>(mant), -24));
  else
    mag = static_cast<float>(std::ldexp(static_cast<double>(mant + 1024),
                                        static_cast<int>(exponent) - 25));
  return sign ? -mag : mag;
}

//===----------------------------------------------------------------------===//
// Visibility
//===----------------------------------------------------------------------===//

static int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// Length `bi` of `lens` clamped to [0, full]; `full` without lengths, 0
/// for an entry past them.
static int64_t clampedLength(const std::vector<int32_t> &lens, int64_t bi,
                             int64_t full) {
  if (lens.empty())
    return full;
  if (bi < 0 || bi >= static_cast<int64_t>(lens.size()))
    return 0;
  return std::min<int64_t>(std::max<int64_t>(lens[bi], 0), full);
}

int64_t AttentionProblem::keysOf(int64_t bi) const {
  return clampedLength(kvLens, bi, sk);
}

int64_t AttentionProblem::queriesOf(int64_t bi) const {
  return clampedLength(qLens, bi, sq);
}

std::pair<int64_t, int64_t> AttentionProblem::blockGrid() const {
  int64_t rows = sq, cols = sk;
  if (ragged()) {
    rows = 0;
    for (int64_t bi = 0; bi < b; ++bi)
      rows += queriesOf(bi);
    if (raggedKeys) {
      cols = kPackedKeyTail;
      for (int64_t bi = 0; bi < b; ++bi)
        cols += keysOf(bi);
    }
  }
  return {ceilDiv(rows, mask.blockQ), ceilDiv(cols, mask.blockK)};
}

std::vector<int32_t>
attnc::packedOffsets(int64_t b, const std::function<int64_t(int64_t)> &lengthOf) {
  std::vector<int32_t> offsets = {0};
  for (int64_t bi = 0; bi < b; ++bi)
    offsets.push_back(static_cast<int32_t>(offsets.back() + lengthOf(bi)));
  return offsets;
}

bool attnc::pageRowSources(const AttentionProblem &p,
                           std::vector<int64_t> &sources, std::string &error) {
  if (p.pageSize <= 0 || p.sk % p.pageSize != 0 ||
      p.pageTable.size() != static_cast<size_t>(p.b * (p.sk / p.pageSize))) {
    error = "expected a page table of b * sk / page_size entries";
    return false;
  }
  sources.assign(static_cast<size_t>(p.numPages * p.pageSize * p.hkv), -1);
  int64_t perSeq = p.sk / p.pageSize;
  for (int64_t bi = 0; bi < p.b; ++bi)
    for (int64_t j = 0; j < p.sk; ++j) {
      int64_t page = p.pageTable[bi * perSeq + j / p.pageSize];
      if (page < 0 || page >= p.numPages) {
        error = "expected page ids in [0, num_pages)";
        return false;
      }
      if (j >= p.keysOf(bi))
        continue;
      for (int64_t h = 0; h < p.hkv; ++h)
        sources[(page * p.pageSize + j % p.pageSize) * p.hkv + h] =
            (bi * p.hkv + h) * p.sk + j;
    }
  return true;
}

bool AttentionProblem::visible(int64_t bi, int64_t h, int64_t qi,
                               int64_t ki) const {
  // With kv_lens the sequence has keysOf(bi) keys, in a ragged batch
  // queriesOf(bi) query rows, and the mask is aligned to those lengths.
  int64_t sk = keysOf(bi), sq = queriesOf(bi);
  if (qi < 0 || qi >= sq || ki < 0 || ki >= sk)
    return false;
  if (mask.kind == MaskKind::Custom)
    return customMask ? customMask(bi, h, qi, ki) : false;

  MaskOperandView view;
  bool haveData = true;
  if (mask.kind == MaskKind::Document) {
    if (mask.documentSource == mask::DocumentSource::SegmentIds) {
      haveData = static_cast<int64_t>(seqIds.size()) >= (bi + 1) * sk;
      if (haveData)
        view.segmentIds = seqIds.data() + bi * sk;
    } else {
      haveData = cuSeqlens.size() >= 2;
      if (haveData) {
        view.cuSeqlens = cuSeqlens.data();
        view.numDocuments = static_cast<int64_t>(cuSeqlens.size()) - 1;
      }
    }
  } else if (mask.kind == MaskKind::BlockSparse) {
    // The block grid covers the key dimension (this->sk), not kv_lens.
    auto [rows, cols] = blockGrid();
    int64_t bb = mask::broadcastIndex(blockMaskB, bi);
    int64_t hb = mask::broadcastIndex(blockMaskH, h);
    haveData = mask.blockQ > 0 && mask.blockK > 0 &&
               static_cast<int64_t>(blockMask.size()) >=
                   blockMaskB * blockMaskH * rows * cols;
    if (haveData) {
      view.blockMask = blockMask.data() + (bb * blockMaskH + hb) * rows * cols;
      view.blockMaskRowStride = cols;
    }
  }
  return mask::isVisible(mask, qi, ki, sq, sk, haveData ? &view : nullptr);
}

//===----------------------------------------------------------------------===//
// Reference and naive attention
//===----------------------------------------------------------------------===//

static constexpr double kNegInf = -std::numeric_limits<double>::infinity();

void attnc::referenceAttention(const AttentionProblem &p,
                               std::vector<double> &out,
                               std::vector<double> &lse) {
  assert(p.hkv > 0 && p.hq % p.hkv == 0 && "hq must be a multiple of hkv");
  assert(static_cast<int64_t>(p.q.size()) == p.b * p.hq * p.sq * p.d);
  assert(static_cast<int64_t>(p.k.size()) == p.b * p.hkv * p.sk * p.d);
  assert(static_cast<int64_t>(p.v.size()) == p.b * p.hkv * p.sk * p.dv);
  out.assign(p.b * p.hq * p.sq * p.dv, 0.0);
  lse.assign(p.b * p.hq * p.sq, kNegInf);
  const int64_t group = p.hq / p.hkv;
  std::vector<double> s(p.sk);
  std::vector<char> vis(p.sk);
  std::vector<double> acc(p.dv);

  for (int64_t bi = 0; bi < p.b; ++bi) {
    for (int64_t h = 0; h < p.hq; ++h) {
      const int64_t hk = h / group;
      for (int64_t i = 0; i < p.sq; ++i) {
        const double *qRow = &p.q[((bi * p.hq + h) * p.sq + i) * p.d];
        double m = kNegInf;
        bool any = false;
        for (int64_t j = 0; j < p.sk; ++j) {
          vis[j] = p.visible(bi, h, i, j);
          if (!vis[j])
            continue;
          any = true;
          const double *kRow = &p.k[((bi * p.hkv + hk) * p.sk + j) * p.d];
          double dot = 0.0;
          for (int64_t c = 0; c < p.d; ++c)
            dot += qRow[c] * kRow[c];
          double x = p.scale * dot;
          if (p.softcap)
            x = *p.softcap * std::tanh(x / *p.softcap);
          if (!p.alibiSlopes.empty())
            x -= p.alibiSlopes[h] *
                 std::fabs(static_cast<double>(i + p.keysOf(bi) -
                                               p.queriesOf(bi) - j));
          if (p.customScore)
            x = p.customScore(x, bi, h, i, j);
          s[j] = x;
          if (std::isnan(x) || x > m) // A NaN score makes the row NaN.
            m = x;
        }
        // No visible key (or every score -inf): output 0, LSE -inf.
        if (!any || m == kNegInf)
          continue;
        std::fill(acc.begin(), acc.end(), 0.0);
        double sum = 0.0;
        for (int64_t j = 0; j < p.sk; ++j) {
          if (!vis[j])
            continue;
          double w = std::exp(s[j] - m);
          sum += w;
          const double *vRow = &p.v[((bi * p.hkv + hk) * p.sk + j) * p.dv];
          for (int64_t c = 0; c < p.dv; ++c)
            acc[c] += w * vRow[c];
        }
        double *oRow = &out[((bi * p.hq + h) * p.sq + i) * p.dv];
        for (int64_t c = 0; c < p.dv; ++c)
          oRow[c] = acc[c] / sum;
        lse[(bi * p.hq + h) * p.sq + i] = m + std::log(sum);
      }
    }
  }
}

void attnc::naiveAttention(const AttentionProblem &p, ElementType t,
                           std::vector<double> &out) {
  assert(p.hkv > 0 && p.hq % p.hkv == 0 && "hq must be a multiple of hkv");
  out.assign(p.b * p.hq * p.sq * p.dv, 0.0);
  auto toT = [t](double x) { return static_cast<float>(roundTo(x, t)); };
  std::vector<float> q(p.q.size()), k(p.k.size()), v(p.v.size());
  for (size_t i = 0; i < q.size(); ++i)
    q[i] = toT(p.q[i]);
  for (size_t i = 0; i < k.size(); ++i)
    k[i] = toT(p.k[i]);
  for (size_t i = 0; i < v.size(); ++i)
    v[i] = toT(p.v[i]);

  const int64_t group = p.hq / p.hkv;
  const float scale = static_cast<float>(p.scale);
  const float cap = p.softcap ? static_cast<float>(*p.softcap) : 0.0f;
  const float negInf = -std::numeric_limits<float>::infinity();
  std::vector<float> s(p.sk), prob(p.sk), acc(p.dv);
  std::vector<char> vis(p.sk);

  for (int64_t bi = 0; bi < p.b; ++bi) {
    for (int64_t h = 0; h < p.hq; ++h) {
      const int64_t hk = h / group;
      for (int64_t i = 0; i < p.sq; ++i) {
        const float *qRow = &q[((bi * p.hq + h) * p.sq + i) * p.d];
        // The materialised score row, in t.
        bool any = false;
        for (int64_t j = 0; j < p.sk; ++j) {
          vis[j] = p.visible(bi, h, i, j);
          if (!vis[j])
            continue;
          any = true;
          const float *kRow = &k[((bi * p.hkv + hk) * p.sk + j) * p.d];
          float dot = 0.0f;
          for (int64_t c = 0; c < p.d; ++c)
            dot += qRow[c] * kRow[c];
          float x = scale * dot;
          if (p.softcap)
            x = cap * std::tanh(x / cap);
          if (!p.alibiSlopes.empty())
            x = x - static_cast<float>(p.alibiSlopes[h]) *
                        static_cast<float>(std::llabs(static_cast<long long>(
                            i + p.keysOf(bi) - p.queriesOf(bi) - j)));
          if (p.customScore)
            x = static_cast<float>(p.customScore(x, bi, h, i, j));
          s[j] = toT(x);
        }
        if (!any)
          continue;
        // Softmax in f32 over the visible keys, P rounded to t.
        float m = negInf;
        for (int64_t j = 0; j < p.sk; ++j)
          if (vis[j])
            m = std::max(m, s[j]);
        if (m == negInf)
          continue;
        float sum = 0.0f;
        for (int64_t j = 0; j < p.sk; ++j) {
          if (!vis[j])
            continue;
          prob[j] = std::exp(s[j] - m);
          sum += prob[j];
        }
        for (int64_t j = 0; j < p.sk; ++j)
          if (vis[j])
            prob[j] = toT(prob[j] / sum);
        // PV accumulated in f32, output rounded to t.
        std::fill(acc.begin(), acc.end(), 0.0f);
        for (int64_t j = 0; j < p.sk; ++j) {
          if (!vis[j])
            continue;
          const float *vRow = &v[((bi * p.hkv + hk) * p.sk + j) * p.dv];
          for (int64_t c = 0; c < p.dv; ++c)
            acc[c] += prob[j] * vRow[c];
        }
        double *oRow = &out[((bi * p.hq + h) * p.sq + i) * p.dv];
        for (int64_t c = 0; c < p.dv; ++c)
          oRow[c] = roundTo(acc[c], t);
      }
    }
  }
}

//===----------------------------------------------------------------------===//
// Error statistics
//===----------------------------------------------------------------------===//

ErrorStats attnc::compare(const std::vector<double> &got,
                          const std::vector<double> &want) {
  ErrorStats stats;
  size_t n = std::min(got.size(), want.size());
  // A position that only one side has is a mismatch.
  stats.mismatchedNonFinite =
      static_cast<int64_t>(std::max(got.size(), want.size()) - n);
  double diff2 = 0.0, want2 = 0.0;
  for (size_t i = 0; i < n; ++i) {
    double g = got[i], w = want[i];
    bool gFinite = std::isfinite(g), wFinite = std::isfinite(w);
    if (!gFinite || !wFinite) {
      bool same = (std::isnan(g) && std::isnan(w)) ||
                  (std::isinf(g) && std::isinf(w) &&
                   std::signbit(g) == std::signbit(w));
      if (!same)
        ++stats.mismatchedNonFinite;
      continue; // Matching non-finite values count as difference 0.
    }
    double d = g - w;
    stats.maxAbs = std::max(stats.maxAbs, std::fabs(d));
    diff2 += d * d;
    want2 += w * w;
  }
  stats.relFrobenius =
      want2 > 0.0 ? std::sqrt(diff2) / std::sqrt(want2) : std::sqrt(diff2);
  return stats;
}

//===----------------------------------------------------------------------===//
// Seeded problems
//===----------------------------------------------------------------------===//

namespace {
/// Uniform and normal draws from mt19937_64, with the normal written out
/// (Box-Muller) so that the stream is the same under every standard library.
class Generator {
public:
  explicit Generator(uint64_t seed) : engine(seed) {}

  /// Uniform in [0, 1), 53 random bits.
  double uniform() { return static_cast<double>(engine() >> 11) * 0x1.0p-53; }

  /// Standard normal.
  double normal() {
    if (haveSpare) {
      haveSpare = false;
      return spare;
    }
    double u1 = 1.0 - uniform(); // (0, 1]
    double u2 = uniform();
    double r = std::sqrt(-2.0 * std::log(u1));
    double theta = 2.0 * 3.14159265358979323846 * u2;
    spare = r * std::sin(theta);
    haveSpare = true;
    return r * std::cos(theta);
  }

private:
  std::mt19937_64 engine;
  bool haveSpare = false;
  double spare = 0.0;
};
} // namespace

void attnc::makeProblem(const AttentionSpec &spec, uint64_t seed,
                        AttentionProblem &p) {
  p = AttentionProblem();
  p.b = spec.b;
  p.hq = spec.hq;
  p.hkv = spec.hkv;
  p.sq = spec.sq;
  p.sk = spec.sk;
  p.d = spec.d;
  p.dv = spec.dv;
  p.scale = spec.effectiveScale();
  p.mask = spec.mask;
  p.softcap = spec.softcap;
  if (spec.alibi)
    p.alibiSlopes = standardAlibiSlopes(spec.hq);

  Generator gen(seed);
  auto fill = [&](std::vector<double> &x, int64_t n) {
    x.resize(n);
    for (double &e : x)
      e = roundTo(gen.normal(), spec.dtype);
  };
  fill(p.q, p.b * p.hq * p.sq * p.d);
  fill(p.k, p.b * p.hkv * p.sk * p.d);
  fill(p.v, p.b * p.hkv * p.sk * p.dv);

  if (spec.mask.kind == MaskKind::Document) {
    std::vector<int64_t> lengths = spec.documentLengths;
    if (lengths.empty())
      lengths.push_back(spec.sk);
    p.cuSeqlens.push_back(0);
    for (int64_t len : lengths)
      p.cuSeqlens.push_back(static_cast<int32_t>(p.cuSeqlens.back() + len));
    // seqIds: the document of every position (-1 past the last document),
    // the same for every batch entry.
    std::vector<int32_t> row(p.sk, -1);
    for (size_t d = 0; d < lengths.size(); ++d)
      for (int64_t j = p.cuSeqlens[d]; j < p.cuSeqlens[d + 1] && j < p.sk; ++j)
        row[j] = static_cast<int32_t>(d);
    p.seqIds.reserve(p.b * p.sk);
    for (int64_t bi = 0; bi < p.b; ++bi)
      p.seqIds.insert(p.seqIds.end(), row.begin(), row.end());
  }
  // One block grid shared by the batch and the heads, or one per batch
  // entry and/or head (a ragged batch's grid depends on its lengths, drawn
  // below).
  auto fillBlockMask = [&] {
    auto [rows, cols] = p.blockGrid();
    p.blockMaskB = spec.blockMaskPerBatch ? p.b : 1;
    p.blockMaskH = spec.blockMaskPerHead ? p.hq : 1;
    p.blockMask.resize(p.blockMaskB * p.blockMaskH * rows * cols);
    for (uint8_t &e : p.blockMask)
      e = gen.uniform() < spec.blockDensity ? 1 : 0;
  };
  if (spec.mask.kind == MaskKind::BlockSparse && !spec.ragged)
    fillBlockMask();
  if (spec.pageSize > 0) {
    // Pages in shuffled order, one spare page no sequence uses, and (with 3
    // or more sequences) the third sharing the first one's first page:
    // its first page of keys and values is made equal to the first's.
    p.pageSize = spec.pageSize;
    int64_t perSeq = p.sk / p.pageSize;
    p.numPages = p.b * perSeq + 1;
    std::vector<int32_t> ids(p.numPages);
    for (int64_t i = 0; i < p.numPages; ++i)
      ids[i] = static_cast<int32_t>(i);
    for (int64_t i = p.numPages - 1; i > 0; --i)
      std::swap(ids[i], ids[static_cast<int64_t>(gen.uniform() * (i + 1)) % (i + 1)]);
    p.pageTable.assign(ids.begin(), ids.begin() + p.b * perSeq);
    if (p.b >= 3 && perSeq > 0) {
      p.pageTable[2 * perSeq] = p.pageTable[0];
      for (int64_t h = 0; h < p.hkv; ++h)
        for (int64_t j = 0; j < p.pageSize; ++j) {
          std::copy_n(&p.k[((0 * p.hkv + h) * p.sk + j) * p.d], p.d,
                      &p.k[((2 * p.hkv + h) * p.sk + j) * p.d]);
          std::copy_n(&p.v[((0 * p.hkv + h) * p.sk + j) * p.dv], p.dv,
                      &p.v[((2 * p.hkv + h) * p.sk + j) * p.dv]);
        }
    }
  }
  if (spec.kvFp8) {
    // Per KV head, the scale max|x| / 448 (as an f32, what the kernel
    // reads), the codes of x / scale, and x replaced by code * scale.
    p.kvScales.assign(2 * p.hkv, 1.0f);
    auto quantize = [&](std::vector<double> &x, std::vector<uint8_t> &codes,
                        int64_t dim, float *scales) {
      codes.resize(x.size());
      int64_t perHead = p.sk * dim;
      for (int64_t h = 0; h < p.hkv; ++h) {
        double top = 0;
        for (int64_t bi = 0; bi < p.b; ++bi)
          for (int64_t i = 0; i < perHead; ++i)
            top = std::max(top, std::fabs(x[(bi * p.hkv + h) * perHead + i]));
        float scale = top > 0 ? static_cast<float>(top / 448.0) : 1.0f;
        scales[h] = scale;
        for (int64_t bi = 0; bi < p.b; ++bi)
          for (int64_t i = 0; i < perHead; ++i) {
            int64_t at = (bi * p.hkv + h) * perHead + i;
            codes[at] = doubleToFp8e4m3(x[at] / scale);
            x[at] = fp8e4m3ToDouble(codes[at]) * scale;
          }
      }
    };
    quantize(p.k, p.kCodes, p.d, p.kvScales.data());
    quantize(p.v, p.vCodes, p.dv, p.kvScales.data() + p.hkv);
  }
  if (spec.kvLens || spec.ragged) {
    // The first sequence full, the second of one key, the fourth empty,
    // the others drawn from [0, sk] (or as ragged= lists them).
    for (int64_t bi = 0; bi < p.b; ++bi) {
      int64_t len = static_cast<int64_t>(gen.uniform() * (p.sk + 1));
      if (bi == 0)
        len = p.sk;
      else if (bi == 1)
        len = std::min<int64_t>(1, p.sk);
      else if (bi == 3)
        len = 0;
      if (!spec.raggedLengths.empty())
        len = spec.raggedLengths[bi].second;
      p.kvLens.push_back(static_cast<int32_t>(std::min(len, p.sk)));
    }
  }
  if (spec.ragged) {
    // Each sequence's query rows: as listed, or ceil(K * sq / sk).
    p.raggedKeys = !spec.kvLens;
    for (int64_t bi = 0; bi < p.b; ++bi) {
      int64_t len = spec.raggedLengths.empty()
                        ? (p.kvLens[bi] * p.sq + p.sk - 1) / p.sk
                        : spec.raggedLengths[bi].first;
      p.qLens.push_back(static_cast<int32_t>(std::min(len, p.sq)));
    }
    if (spec.mask.kind == MaskKind::BlockSparse)
      fillBlockMask();
  }
}

double attnc::visiblePairs(const AttentionProblem &p) {
  const mask::MaskSpec &m = p.mask;
  double heads = static_cast<double>(p.b) * p.hq;
  if (mask::hasIntervalForm(m.kind)) {
    if (p.kvLens.empty() && p.qLens.empty())
      return static_cast<double>(mask::countIntervalPairs(m, p.sq, p.sk)) *
             heads;
    double pairs = 0;
    for (int64_t bi = 0; bi < p.b; ++bi)
      pairs += static_cast<double>(
          mask::countIntervalPairs(m, p.queriesOf(bi), p.keysOf(bi)));
    return pairs * p.hq;
  }
  if (m.kind == MaskKind::BlockSparse && p.kvLens.empty()) {
    if (m.blockQ <= 0 || m.blockK <= 0 || p.blockMaskB <= 0 ||
        p.blockMaskH <= 0)
      return 0;
    double pairs = 0;
    for (int64_t bb = 0; bb < p.blockMaskB; ++bb)
      for (int64_t hb = 0; hb < p.blockMaskH; ++hb)
        for (int64_t q0 = 0; q0 < p.sq; q0 += m.blockQ)
          for (int64_t k0 = 0; k0 < p.sk; k0 += m.blockK)
            if (p.visible(bb, hb, q0, k0))
              pairs += static_cast<double>(std::min(m.blockQ, p.sq - q0)) *
                       std::min(m.blockK, p.sk - k0);
    return pairs * (static_cast<double>(p.b) / p.blockMaskB) *
           (static_cast<double>(p.hq) / p.blockMaskH);
  }
  // Element by element. Documents do not depend on the head, nor (for
  // cu_seqlens) on the batch entry; a custom mask may depend on both.
  bool custom = m.kind == MaskKind::Custom;
  bool perBatch = m.kind != MaskKind::Document || !p.kvLens.empty() ||
                  m.documentSource == mask::DocumentSource::SegmentIds;
  int64_t batches = perBatch ? p.b : 1;
  int64_t headsVisited = custom ? p.hq : 1;
  double pairs = 0;
  for (int64_t bi = 0; bi < batches; ++bi)
    for (int64_t h = 0; h < headsVisited; ++h)
      for (int64_t i = 0; i < p.sq; ++i)
        for (int64_t j = 0; j < p.sk; ++j)
          pairs += p.visible(bi, h, i, j);
  return pairs * (custom ? 1 : p.hq) * (perBatch ? 1 : p.b);
}

uint64_t attnc::problemHostBytes(const AttentionSpec &spec) {
  const uint64_t max = UINT64_MAX;
  auto mul = [&](std::initializer_list<int64_t> factors) {
    uint64_t r = 1;
    for (int64_t f : factors)
      if (f < 0 || __builtin_mul_overflow(r, static_cast<uint64_t>(f), &r))
        return max;
    return r;
  };
  auto add = [&](uint64_t x, uint64_t y) {
    uint64_t r;
    return __builtin_add_overflow(x, y, &r) ? max : r;
  };
  uint64_t elements = 0;
  elements = add(elements, mul({spec.b, spec.hq, spec.sq, spec.d}));
  elements = add(elements, mul({spec.b, spec.hkv, spec.sk, spec.d}));
  elements = add(elements, mul({spec.b, spec.hkv, spec.sk, spec.dv}));
  elements = add(elements, mul({3, spec.b, spec.hq, spec.sq, spec.dv}));
  elements = add(elements, mul({3, spec.b, spec.hq, spec.sq}));
  elements = add(elements, mul({spec.b, spec.sk})); // document ids
  if (spec.mask.kind == mask::MaskKind::BlockSparse && spec.mask.blockQ > 0 &&
      spec.mask.blockK > 0)
    elements = add(elements, mul({(spec.sq + spec.mask.blockQ - 1) / spec.mask.blockQ,
                                  (spec.sk + spec.mask.blockK - 1) /
                                      spec.mask.blockK}));
  return elements > max / 8 ? max : elements * 8;
}

uint64_t attnc::hostMemoryLimit() {
  uint64_t gib = 16;
  if (const char *env = std::getenv("ATTNC_HOST_MEMORY_GB")) {
    char *end = nullptr;
    unsigned long long v = std::strtoull(env, &end, 10);
    if (end != env && *end == '\0' && v > 0 && v < (1ull << 30))
      gib = v;
  }
  return gib << 30;
}

bool attnc::checkHostMemory(const AttentionSpec &spec, std::string &error) {
  uint64_t need = problemHostBytes(spec), limit = hostMemoryLimit();
  if (need <= limit)
    return true;
  auto gib = [](uint64_t bytes) {
    char text[32];
    std::snprintf(text, sizeof(text), "%.1f GiB",
                  static_cast<double>(bytes) / (1ull << 30));
    return std::string(text);
  };
  error = "the problem needs " +
          (need == UINT64_MAX ? std::string("more than 2^64 bytes")
                              : gib(need)) +
          " of host memory for its inputs and the float64 reference, more "
          "than the limit of " +
          gib(limit) + " (ATTNC_HOST_MEMORY_GB)";
  return false;
}
