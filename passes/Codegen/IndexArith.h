//===- IndexArith.h - mask formulas as index arithmetic ---------*- C++ -*-===//
//
// The IR policy for attnc::mask::RowIntervalFormula: the same formulas that
// MaskSemantics.cpp evaluates on integers, emitted as arith ops on index.
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_PASSES_TRANSFORMS_INDEXARITH_H
#define ATTNC_PASSES_TRANSFORMS_INDEXARITH_H

#include "attnc/Mask/MaskSemantics.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"

namespace attnc {

/// Builds signed index arithmetic at the builder's insertion point.
struct IndexArith {
  using Value = mlir::Value;
  mlir::ImplicitLocOpBuilder &b;

  Value constant(int64_t v) {
    return mlir::arith::ConstantIndexOp::create(b, v);
  }
  Value add(Value x, Value y) { return mlir::arith::AddIOp::create(b, x, y); }
  Value sub(Value x, Value y) { return mlir::arith::SubIOp::create(b, x, y); }
  Value max(Value x, Value y) { return mlir::arith::MaxSIOp::create(b, x, y); }
  Value min(Value x, Value y) { return mlir::arith::MinSIOp::create(b, x, y); }
};

using IndexIntervalFormula = mask::RowIntervalFormula<IndexArith>;

} // namespace attnc

#endif // ATTNC_PASSES_TRANSFORMS_INDEXARITH_H
