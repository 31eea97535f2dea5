//===- Exp2Poly.h - exp2 from FMAs and exponent bits ------------*- C++ -*-===//
//
// exp2(x) for the softmax weights (x <= 0) without the GPU's multi-function
// unit, whose ex2.approx runs at a sixteenth of the FMA rate: x, clamped to
// -127, splits as j + f by the 1.5 * 2^23 rounding trick (f in [-1/2,
// 1/2]); 2^f is a degree-3 polynomial and 2^j the float whose exponent bits
// are j + 127 (0, the float 0, for j = -127, so -inf gives 0 as ex2 does).
//
// Plain C++ over an arithmetic `A`, so that the kernel builder emits it as
// IR (softmax::exp2OnFma) and the unit tests run the same steps on floats.
// `A` provides F (a float) and I (its 32 bits) with constant(float),
// maxNum, add, sub, fma(a, b, c) = a * b + c, mul, bits(F) -> I,
// fromBits(I) -> F, shl(I, int) and addBits(I, uint32_t), integer ops
// wrapping modulo 2^32.
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_NUMERICS_EXP2POLY_H
#define ATTNC_NUMERICS_EXP2POLY_H

#include <cstdint>

namespace attnc::numerics {

/// c0 + f (c1 + f (c2 + f c3)) ~ 2^f over [-1/2, 1/2]: a least-squares fit
/// of the relative error, at most 7.5e-5 (a bf16 weight rounds at 2e-3).
inline constexpr float kExp2C0 = 0.999928117f, kExp2C1 = 0.693260968f,
                       kExp2C2 = 0.242610812f, kExp2C3 = 0.0551714376f;
/// 1.5 * 2^23: x + kExp2Round holds round(x) in its low mantissa bits, and
/// its bits shifted left by 23 wrap to 0.
inline constexpr float kExp2Round = 12582912.0f;

template <class A>
typename A::F exp2Poly(A &a, typename A::F x) {
  auto xc = a.maxNum(x, a.constant(-127.0f));
  auto t = a.add(xc, a.constant(kExp2Round));
  auto f = a.sub(xc, a.sub(t, a.constant(kExp2Round)));
  auto p = a.fma(a.constant(kExp2C3), f, a.constant(kExp2C2));
  p = a.fma(p, f, a.constant(kExp2C1));
  p = a.fma(p, f, a.constant(kExp2C0));
  // bits(t) = bits(kExp2Round) + j: shifted by 23 and offset by 127 << 23,
  // the bits of the float 2^j.
  auto scale =
      a.fromBits(a.addBits(a.shl(a.bits(t), 23), uint32_t{127} << 23));
  return a.mul(p, scale);
}

} // namespace attnc::numerics

#endif // ATTNC_NUMERICS_EXP2POLY_H
