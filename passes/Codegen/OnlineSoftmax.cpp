//===- OnlineSoftmax.cpp - the online-softmax update, once ----------------===//

#include "passes/Codegen/OnlineSoftmax.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

#include <cmath>

using namespace mlir;

static Value f32(ImplicitLocOpBuilder &b, double v) {
  return arith::ConstantOp::create(b, b.getF32FloatAttr(v));
}

Value attnc::softmax::newMax(ImplicitLocOpBuilder &b, Value mOld,
                             Value rowMax) {
  return arith::MaximumFOp::create(b, mOld, rowMax);
}

Value attnc::softmax::reference(ImplicitLocOpBuilder &b, Value mNew) {
  Value noKey = arith::CmpFOp::create(b, arith::CmpFPredicate::OEQ, mNew,
                                      f32(b, -INFINITY));
  return arith::SelectOp::create(b, noKey, f32(b, 0.0), mNew);
}

Value attnc::softmax::rescale(ImplicitLocOpBuilder &b, Value mOld, Value ref) {
  return math::Exp2Op::create(b, arith::SubFOp::create(b, mOld, ref));
}

Value attnc::softmax::weight(ImplicitLocOpBuilder &b, Value s, Value ref) {
  return math::Exp2Op::create(b, arith::SubFOp::create(b, s, ref));
}

Value attnc::softmax::scaledWeight(ImplicitLocOpBuilder &b, Value s, Value c,
                                   Value negRef) {
  return math::Exp2Op::create(b, math::FmaOp::create(b, s, c, negRef));
}

Value attnc::softmax::newSum(ImplicitLocOpBuilder &b, Value alpha, Value lOld,
                             Value rowSum) {
  return arith::AddFOp::create(b, arith::MulFOp::create(b, alpha, lOld),
                               rowSum);
}

Value attnc::softmax::outputScale(ImplicitLocOpBuilder &b, Value l) {
  Value zero = f32(b, 0.0);
  Value empty = arith::CmpFOp::create(b, arith::CmpFPredicate::OEQ, l, zero);
  return arith::SelectOp::create(b, empty, zero,
                                 arith::DivFOp::create(b, f32(b, 1.0), l));
}

Value attnc::softmax::logSumExp(ImplicitLocOpBuilder &b, Value m, Value l) {
  Value one = f32(b, 1.0);
  Value empty =
      arith::CmpFOp::create(b, arith::CmpFPredicate::OEQ, l, f32(b, 0.0));
  Value safeL = arith::SelectOp::create(b, empty, one, l);
  Value value = arith::MulFOp::create(
      b, arith::AddFOp::create(b, m, math::Log2Op::create(b, safeL)),
      f32(b, M_LN2));
  return arith::SelectOp::create(b, empty, f32(b, -INFINITY), value);
}
