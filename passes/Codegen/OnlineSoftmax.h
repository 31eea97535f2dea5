//===- OnlineSoftmax.h - the online-softmax update, once --------*- C++ -*-===//
//
// The online-softmax formulas of one query row, written once and used by the
// CPU decomposition (attn-decompose-online-softmax) and the GPU kernels.
// Scores are f32 with log2(e) folded in:
//
//   m' = max(m, rowmax(S));  ref = (m' == -inf) ? 0 : m';  a = exp2(m - ref)
//   P  = exp2(S - ref);      l' = a * l + rowsum(P);       O' = a * O + P V
//   O  = O' * (l == 0 ? 0 : 1 / l);  LSE = l == 0 ? -inf : (m + log2 l) ln 2
//
// A row with no visible key keeps m = -inf and l = 0, and nothing is NaN.
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_PASSES_CODEGEN_ONLINESOFTMAX_H
#define ATTNC_PASSES_CODEGEN_ONLINESOFTMAX_H

#include "mlir/IR/ImplicitLocOpBuilder.h"

namespace attnc::softmax {

/// m' = max(m, rowmax).
mlir::Value newMax(mlir::ImplicitLocOpBuilder &b, mlir::Value mOld,
                   mlir::Value rowMax);
/// The reference the exponents are taken against: m', or 0 while the row
/// has seen no key (m' = -inf).
mlir::Value reference(mlir::ImplicitLocOpBuilder &b, mlir::Value mNew);
/// a = exp2(m - ref): the factor the old sum and accumulators are scaled by.
mlir::Value rescale(mlir::ImplicitLocOpBuilder &b, mlir::Value mOld,
                    mlir::Value ref);
/// P = exp2(s - ref) for one score.
mlir::Value weight(mlir::ImplicitLocOpBuilder &b, mlir::Value s,
                   mlir::Value ref);
/// exp2(x) for x <= 0 on the FMA pipe, not the multi-function unit
/// (attnc/Numerics/Exp2Poly.h: relative error below 1e-4, 0 for -inf).
mlir::Value exp2OnFma(mlir::ImplicitLocOpBuilder &b, mlir::Value x);
/// l' = a * l + rowsum(P).
mlir::Value newSum(mlir::ImplicitLocOpBuilder &b, mlir::Value alpha,
                   mlir::Value lOld, mlir::Value rowSum);
/// The output scale 1 / l, 0 for a row with no visible key (l = 0).
mlir::Value outputScale(mlir::ImplicitLocOpBuilder &b, mlir::Value l);
/// LSE = (m + log2 l) ln 2, -inf for a row with no visible key.
mlir::Value logSumExp(mlir::ImplicitLocOpBuilder &b, mlir::Value m,
                      mlir::Value l);

} // namespace attnc::softmax

#endif // ATTNC_PASSES_CODEGEN_ONLINESOFTMAX_H
