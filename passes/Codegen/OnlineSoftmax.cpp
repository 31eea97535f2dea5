//===- OnlineSoftmax.cpp - the online-softmax update, once ----------------===//

#include "passes/Codegen/OnlineSoftmax.h"
#include "attnc/Numerics/Exp2Poly.h"

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

namespace {
/// Exp2Poly.h's arithmetic as f32 / i32 IR.
struct IrArith {
  using F = Value;
  using I = Value;
  ImplicitLocOpBuilder &b;
  Value constant(float v) { return f32(b, v); }
  Value maxNum(Value x, Value y) { return arith::MaxNumFOp::create(b, x, y); }
  Value add(Value x, Value y) { return arith::AddFOp::create(b, x, y); }
  Value sub(Value x, Value y) { return arith::SubFOp::create(b, x, y); }
  Value fma(Value x, Value y, Value z) {
    return math::FmaOp::create(b, x, y, z);
  }
  Value mul(Value x, Value y) { return arith::MulFOp::create(b, x, y); }
  Value bits(Value x) {
    return arith::BitcastOp::create(b, b.getI32Type(), x);
  }
  Value fromBits(Value x) {
    return arith::BitcastOp::create(b, b.getF32Type(), x);
  }
  Value shl(Value x, int n) {
    return arith::ShLIOp::create(b, x, arith::ConstantIntOp::create(b, n, 32));
  }
  Value addBits(Value x, uint32_t c) {
    return arith::AddIOp::create(
        b, x,
        arith::ConstantIntOp::create(b, static_cast<int32_t>(c), 32));
  }
};
} // namespace

Value attnc::softmax::exp2OnFma(ImplicitLocOpBuilder &b, Value x) {
  IrArith a{b};
  return numerics::exp2Poly(a, x);
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
