//===- SplitKvCombine.cpp - the combine kernel of split-KV attention ------===//
//
// With split_kv, each key split of a query tile writes its rows' normalised
// partial outputs o_i and LSEs l_i to the scratch (KernelAbi.h); this kernel
// merges them: M = max_i l_i, w_i = exp(l_i - M), O = sum_i w_i o_i / sum_i
// w_i, LSE = M + log(sum_i w_i). A split with no key has l_i = -inf and
// weight 0; a row no split saw (every l_i = -inf) gets O = 0, LSE = -inf.
//
//===----------------------------------------------------------------------===//

#include "passes/Conversion/FlashKernel.h"

#include "passes/Conversion/MmaSync.h"

#include "attnc/Artifact/KernelAbi.h"
#include "passes/Codegen/IndexArith.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include <cmath>

using namespace mlir;
using namespace attnc;

void attnc::buildSplitKvCombine(ImplicitLocOpBuilder &b, gpu::GPUFuncOp func,
                                const KernelProblem &p, bool writesLse) {
  IndexArith a{b};
  Type i64 = b.getI64Type(), f32 = b.getF32Type();
  Type ptr = LLVM::LLVMPointerType::get(b.getContext());
  auto arg = [&](unsigned i) { return func.getArgument(i); };
  auto indexOf = [&](Value x) {
    return arith::IndexCastOp::create(b, b.getIndexType(), x).getResult();
  };
  auto idx = [&](int64_t v) { return a.constant(v); };
  auto f32c = [&](double v) {
    return arith::ConstantOp::create(b, b.getF32FloatAttr(v)).getResult();
  };
  auto at = [&](Value base, Value index, Type elt) {
    return LLVM::GEPOp::create(
               b, ptr, elt, base,
               ValueRange{arith::IndexCastOp::create(b, i64, index)})
        .getResult();
  };
  const int64_t heads = p.numQueryHeads, dv = p.valueHeadDim;
  const int64_t pairs = dv / 2, perLane = (pairs + 31) / 32;

  Value tid = gpu::ThreadIdOp::create(b, gpu::Dimension::x);
  Value warp = arith::DivUIOp::create(b, tid, idx(32));
  Value lane = arith::RemUIOp::create(b, tid, idx(32));
  Value row = a.add(arith::MulIOp::create(
                        b, gpu::BlockIdOp::create(b, gpu::Dimension::x),
                        idx(abi::kCombineRowsPerBlock)),
                    warp);
  Value seqQ = indexOf(arg(abi::SeqQ));
  Value numSplits = indexOf(arg(abi::NumSplits));
  Value rows = arith::MulIOp::create(
      b, arith::MulIOp::create(b, indexOf(arg(abi::Batch)), idx(heads)), seqQ);
  Value inside = arith::CmpIOp::create(b, arith::CmpIPredicate::ult, row, rows);
  auto ifRow = scf::IfOp::create(b, inside, /*withElseRegion=*/false);
  b.setInsertionPointToStart(&ifRow.getThenRegion().front());

  // Row = (batch * Hq + head) * Sq + position, as in the LSE.
  Value position = arith::RemUIOp::create(b, row, seqQ);
  Value bh = arith::DivUIOp::create(b, row, seqQ);
  Value head = arith::RemUIOp::create(b, bh, idx(heads));
  Value batch = arith::DivUIOp::create(b, bh, idx(heads));
  Value scratch = arg(abi::Scratch);
  Value lseBase = arith::MulIOp::create(
      b, arith::MulIOp::create(b, numSplits, rows), idx(dv));
  auto partialLse = [&](Value s) {
    Value i = a.add(lseBase, a.add(arith::MulIOp::create(b, s, rows), row));
    return LLVM::LoadOp::create(b, f32, at(scratch, i, f32), 4).getResult();
  };

  // Pass 1: the largest partial LSE (0 when every split is empty, so that
  // the weights below are exp(-inf) = 0 and never NaN).
  Value negInf = f32c(-INFINITY);
  auto maxLoop = scf::ForOp::create(b, idx(0), numSplits, idx(1),
                                    ValueRange{negInf});
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(maxLoop.getBody());
    Value l = partialLse(maxLoop.getInductionVar());
    scf::YieldOp::create(b, ValueRange{arith::MaximumFOp::create(
                                b, maxLoop.getRegionIterArgs()[0], l)});
  }
  Value m = maxLoop.getResult(0);
  Value allEmpty =
      arith::CmpFOp::create(b, arith::CmpFPredicate::OEQ, m, negInf);
  Value mRef = arith::SelectOp::create(b, allEmpty, f32c(0.0), m);

  // Pass 2: the weighted sum of the partial outputs. Lane j holds column
  // pairs j + 32 i (clamped reads past Dv / 2, never stored).
  SmallVector<Value> pairIndex;
  for (int64_t i = 0; i < perLane; ++i)
    pairIndex.push_back(a.min(a.add(lane, idx(32 * i)), idx(pairs - 1)));
  SmallVector<Value> inits(1 + 2 * perLane, f32c(0.0));
  auto sumLoop = scf::ForOp::create(b, idx(0), numSplits, idx(1), inits);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(sumLoop.getBody());
    Value s = sumLoop.getInductionVar();
    ValueRange it = sumLoop.getRegionIterArgs();
    Value w = math::Exp2Op::create(
        b, arith::MulFOp::create(
               b, arith::SubFOp::create(b, partialLse(s), mRef),
               f32c(M_LOG2E)));
    SmallVector<Value> next{arith::AddFOp::create(b, it[0], w)};
    Value rowBase = arith::MulIOp::create(
        b, a.add(arith::MulIOp::create(b, s, rows), row), idx(dv));
    for (int64_t i = 0; i < perLane; ++i)
      for (int64_t h = 0; h < 2; ++h) {
        Value col = a.add(arith::MulIOp::create(b, pairIndex[i], idx(2)),
                          idx(h));
        Value x = LLVM::LoadOp::create(
            b, f32, at(scratch, a.add(rowBase, col), f32), 4);
        next.push_back(arith::AddFOp::create(
            b, it[1 + 2 * i + h], arith::MulFOp::create(b, w, x)));
      }
    scf::YieldOp::create(b, next);
  }
  Value total = sumLoop.getResult(0);
  Value noWeight =
      arith::CmpFOp::create(b, arith::CmpFPredicate::OEQ, total, f32c(0.0));
  Value inv = arith::SelectOp::create(
      b, noWeight, f32c(0.0), arith::DivFOp::create(b, f32c(1.0), total));

  // O[batch, head, position, :] in the element type, through its strides.
  Value oRow = a.add(
      arith::MulIOp::create(b, batch, indexOf(arg(abi::OStrideB))),
      a.add(arith::MulIOp::create(b, head, indexOf(arg(abi::OStrideH))),
            arith::MulIOp::create(b, position, indexOf(arg(abi::OStrideS)))));
  MmaSyncEmitter emitter(b, p.elementType, Value());
  for (int64_t i = 0; i < perLane; ++i) {
    Value x = arith::MulFOp::create(b, sumLoop.getResult(1 + 2 * i), inv);
    Value y = arith::MulFOp::create(b, sumLoop.getResult(2 + 2 * i), inv);
    Value pair = emitter.packPair(x, y);
    auto store = [&] {
      Value col = arith::MulIOp::create(b, pairIndex[i], idx(2));
      LLVM::StoreOp::create(b, pair, at(arg(abi::O), a.add(oRow, col),
                                        b.getI16Type()),
                            4);
    };
    if (32 * (i + 1) <= pairs) {
      store();
      continue;
    }
    Value stored = arith::CmpIOp::create(b, arith::CmpIPredicate::ult,
                                         a.add(lane, idx(32 * i)), idx(pairs));
    auto ifStored = scf::IfOp::create(b, stored, /*withElseRegion=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&ifStored.getThenRegion().front());
    store();
  }
  if (writesLse) {
    Value first = arith::CmpIOp::create(b, arith::CmpIPredicate::eq, lane,
                                        idx(0));
    auto ifFirst = scf::IfOp::create(b, first, /*withElseRegion=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&ifFirst.getThenRegion().front());
    Value lse = arith::AddFOp::create(
        b, mRef,
        arith::MulFOp::create(
            b, math::Log2Op::create(b, arith::SelectOp::create(
                                           b, noWeight, f32c(1.0), total)),
            f32c(M_LN2)));
    lse = arith::SelectOp::create(b, noWeight, negInf, lse);
    LLVM::StoreOp::create(b, lse, at(arg(abi::Lse), row, f32), 4);
  }
  b.setInsertionPointAfter(ifRow);
  gpu::ReturnOp::create(b);
}
