//===- SplitKvCombine.cpp - the combine kernel of split-KV attention ------===//
//
// With split_kv, each key split of a query tile writes its rows' normalised
// partial outputs o_i and LSEs l_i to the scratch (KernelAbi.h); this kernel
// merges them: M = max_i l_i, w_i = exp(l_i - M), O = sum_i w_i o_i / sum_i
// w_i, LSE = M + log(sum_i w_i). A split with no key has l_i = -inf and
// weight 0; a row no split saw (every l_i = -inf) gets O = 0, LSE = -inf.
// Without a work list a block merges one row: its threads share the splits
// and the columns (4 columns a thread), so that every split's loads are in
// flight together, and add their sums in shared memory. With a work list
// (plan) it merges the items that the plan split, a warp a row.
//
//===----------------------------------------------------------------------===//

#include "passes/Conversion/FlashKernel.h"

#include "passes/Conversion/MmaSync.h"
#include "passes/Conversion/WorkList.h"

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

/// The combine kernel's shared sums (5 floats a thread).
static constexpr llvm::StringLiteral kCombineSums = "attnc_combine_sums";

void attnc::buildSplitKvCombine(ImplicitLocOpBuilder &b, gpu::GPUFuncOp func,
                                const KernelProblem &p, int64_t blockQ,
                                int64_t pack, bool writesLse) {
  IndexArith a{b};
  Type i64 = b.getI64Type(), f32 = b.getF32Type();
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
               b, base.getType(), elt, base,
               ValueRange{arith::IndexCastOp::create(b, i64, index)})
        .getResult();
  };
  const int64_t heads = p.numQueryHeads, dv = p.valueHeadDim;
  const int64_t pairs = dv / 2, perLane = (pairs + 31) / 32;

  Value tid = gpu::ThreadIdOp::create(b, gpu::Dimension::x);
  Value warp = arith::DivUIOp::create(b, tid, idx(32));
  Value lane = arith::RemUIOp::create(b, tid, idx(32));
  Value seqQ = indexOf(arg(abi::SeqQ));
  Value scratch = arg(abi::Scratch);
  Value negInf = f32c(-INFINITY);

  // The largest of `splits` partial LSEs (lseAt(s)), by one warp: its lanes
  // read 32 splits at a time, then a butterfly; 0 when every split is empty
  // (the weights are then exp(-inf) = 0, never NaN). Also whether all are.
  auto largestLse = [&](Value splits, function_ref<Value(Value)> lseAt) {
    Value last = a.sub(splits, idx(1));
    auto maxLoop =
        scf::ForOp::create(b, idx(0), splits, idx(32), ValueRange{negInf});
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(maxLoop.getBody());
      Value s = a.add(maxLoop.getInductionVar(), lane);
      Value l = arith::SelectOp::create(
          b, arith::CmpIOp::create(b, arith::CmpIPredicate::ult, s, splits),
          LLVM::LoadOp::create(b, f32, at(scratch, lseAt(a.min(s, last)), f32),
                               4)
              .getResult(),
          negInf);
      scf::YieldOp::create(b, ValueRange{arith::MaximumFOp::create(
                                  b, maxLoop.getRegionIterArgs()[0], l)});
    }
    Value m = maxLoop.getResult(0);
    for (int64_t offset = 16; offset >= 1; offset /= 2) {
      Value other = gpu::ShuffleOp::create(b, m, static_cast<int32_t>(offset),
                                           32, gpu::ShuffleMode::XOR)
                        .getShuffleResult();
      m = arith::MaximumFOp::create(b, m, other);
    }
    Value allEmpty =
        arith::CmpFOp::create(b, arith::CmpFPredicate::OEQ, m, negInf);
    return arith::SelectOp::create(b, allEmpty, f32c(0.0), m).getResult();
  };

  // Merges `splits` partial rows into O[batch, head, position, :] and LSE
  // row `lseRow`: partial s has its LSE at scratch[lseAt(s)] and its
  // outputs at scratch[outAt(s) + column].
  // The merged row's LSE, mRef + ln(total) (-inf for a row no split saw),
  // stored at element lseRow of the LSE output.
  auto storeLse = [&](Value mRef, Value total, Value noWeight, Value lseRow) {
    Value lse = arith::AddFOp::create(
        b, mRef,
        arith::MulFOp::create(
            b,
            math::Log2Op::create(
                b, arith::SelectOp::create(b, noWeight, f32c(1.0), total)),
            f32c(M_LN2)));
    lse = arith::SelectOp::create(b, noWeight, negInf, lse);
    LLVM::StoreOp::create(b, lse, at(arg(abi::Lse), lseRow, f32), 4);
  };
  // Split s's weight exp(lse_s - mRef), 0 past the last split (`last`),
  // and s clamped to it (its reads stay inside the scratch).
  auto splitWeight = [&](Value s, Value splits, Value last, Value mRef,
                         function_ref<Value(Value)> lseAt) {
    Value inside =
        arith::CmpIOp::create(b, arith::CmpIPredicate::ult, s, splits);
    s = a.min(s, last);
    Value l = LLVM::LoadOp::create(b, f32, at(scratch, lseAt(s), f32), 4);
    Value w = math::Exp2Op::create(
        b, arith::MulFOp::create(b, arith::SubFOp::create(b, l, mRef),
                                 f32c(M_LOG2E)));
    return std::make_pair(s,
                          arith::SelectOp::create(b, inside, w, f32c(0.0))
                              .getResult());
  };
  auto mergeRow = [&](Value splits, function_ref<Value(Value)> lseAt,
                      function_ref<Value(Value)> outAt, Value batch, Value head,
                      Value position, Value lseRow) {
    Value last = a.sub(splits, idx(1));
    // Pass 1: the largest partial LSE.
    Value mRef = largestLse(splits, lseAt);

    // Pass 2: the weighted sum of the partial outputs, kMergeUnroll splits
    // an iteration so that their loads are in flight together (every lane
    // reads each split's LSE: one broadcast load). Lane j holds column
    // pairs j + 32 i (clamped reads past Dv / 2, never stored).
    constexpr int64_t kMergeUnroll = 8;
    SmallVector<Value> pairIndex;
    for (int64_t i = 0; i < perLane; ++i)
      pairIndex.push_back(a.min(a.add(lane, idx(32 * i)), idx(pairs - 1)));
    SmallVector<Value> inits(1 + 2 * perLane, f32c(0.0));
    auto sumLoop =
        scf::ForOp::create(b, idx(0), splits, idx(kMergeUnroll), inits);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(sumLoop.getBody());
      SmallVector<Value> acc(sumLoop.getRegionIterArgs());
      SmallVector<Value> weights;
      SmallVector<SmallVector<Value>> values;
      for (int64_t u = 0; u < kMergeUnroll; ++u) {
        auto [s, w] = splitWeight(a.add(sumLoop.getInductionVar(), idx(u)),
                                  splits, last, mRef, lseAt);
        weights.push_back(w);
        Value rowBase = outAt(s);
        values.emplace_back();
        for (int64_t i = 0; i < perLane; ++i)
          for (int64_t h = 0; h < 2; ++h) {
            Value col = a.add(
                arith::MulIOp::create(b, pairIndex[i], idx(2)), idx(h));
            values.back().push_back(LLVM::LoadOp::create(
                b, f32, at(scratch, a.add(rowBase, col), f32), 4));
          }
      }
      for (int64_t u = 0; u < kMergeUnroll; ++u) {
        acc[0] = arith::AddFOp::create(b, acc[0], weights[u]);
        for (size_t c = 0; c < values[u].size(); ++c)
          acc[1 + c] = arith::AddFOp::create(
              b, acc[1 + c],
              arith::MulFOp::create(b, weights[u], values[u][c]));
      }
      scf::YieldOp::create(b, acc);
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
        LLVM::StoreOp::create(
            b, pair, at(arg(abi::O), a.add(oRow, col), b.getI16Type()), 4);
      };
      if (32 * (i + 1) <= pairs) {
        store();
        continue;
      }
      Value stored = arith::CmpIOp::create(
          b, arith::CmpIPredicate::ult, a.add(lane, idx(32 * i)), idx(pairs));
      auto ifStored = scf::IfOp::create(b, stored, /*withElseRegion=*/false);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(&ifStored.getThenRegion().front());
      store();
    }
    if (writesLse) {
      Value first =
          arith::CmpIOp::create(b, arith::CmpIPredicate::eq, lane, idx(0));
      auto ifFirst = scf::IfOp::create(b, first, /*withElseRegion=*/false);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(&ifFirst.getThenRegion().front());
      storeLse(mRef, total, noWeight, lseRow);
    }
  };

  // Merges `splits` partial rows into O[batch, head, position, :] and LSE
  // row `lseRow` with the whole block (uniform: every thread calls it).
  // Thread t takes columns 4 (t mod G) .. + 3 (G = Dv / 4 groups) of the
  // splits t / G, t / G + S, ... (S = threads / G); each adds its weights
  // and weighted columns, then the first G threads add the S sums from
  // shared memory (`sums`, 5 floats a thread) and store the row.
  const int64_t threads = 32 * abi::kCombineRowsPerBlock;
  const int64_t groups = dv / 4, splitGroups = threads / groups;
  auto mergeRowByBlock = [&](Value splits, function_ref<Value(Value)> lseAt,
                             function_ref<Value(Value)> outAt, Value batch,
                             Value head, Value position, Value lseRow,
                             Value sums) {
    Value mRef = largestLse(splits, lseAt);
    Value last = a.sub(splits, idx(1));
    Value group = arith::RemUIOp::create(b, tid, idx(groups));
    Value firstSplit = arith::DivUIOp::create(b, tid, idx(groups));
    Value column0 = arith::MulIOp::create(b, group, idx(4));
    // kMergeUnroll of a thread's splits an iteration: their loads are in
    // flight together. Threads past splitGroups * groups start past the
    // last split and add nothing.
    constexpr int64_t kMergeUnroll = 8;
    SmallVector<Value> inits(5, f32c(0.0));
    auto sumLoop = scf::ForOp::create(b, firstSplit, splits,
                                      idx(kMergeUnroll * splitGroups), inits);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(sumLoop.getBody());
      SmallVector<Value> acc(sumLoop.getRegionIterArgs());
      SmallVector<Value> weights;
      SmallVector<SmallVector<Value>> values;
      for (int64_t u = 0; u < kMergeUnroll; ++u) {
        auto [s, w] =
            splitWeight(a.add(sumLoop.getInductionVar(), idx(u * splitGroups)),
                        splits, last, mRef, lseAt);
        weights.push_back(w);
        Value rowBase = a.add(outAt(s), column0);
        values.emplace_back();
        for (int64_t k = 0; k < 4; ++k)
          values.back().push_back(LLVM::LoadOp::create(
              b, f32, at(scratch, a.add(rowBase, idx(k)), f32), 4));
      }
      for (int64_t u = 0; u < kMergeUnroll; ++u) {
        acc[0] = arith::AddFOp::create(b, acc[0], weights[u]);
        for (int64_t k = 0; k < 4; ++k)
          acc[1 + k] = arith::AddFOp::create(
              b, acc[1 + k],
              arith::MulFOp::create(b, weights[u], values[u][k]));
      }
      scf::YieldOp::create(b, acc);
    }
    // Every thread's sums to shared memory, then the first `groups`
    // threads add those of their column group.
    for (int64_t k = 0; k < 5; ++k)
      LLVM::StoreOp::create(
          b, sumLoop.getResult(k),
          at(sums, a.add(arith::MulIOp::create(b, tid, idx(5)), idx(k)), f32),
          4);
    gpu::BarrierOp::create(b);
    auto ifStores = scf::IfOp::create(
        b,
        arith::CmpIOp::create(b, arith::CmpIPredicate::ult, tid, idx(groups)),
        /*withElseRegion=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&ifStores.getThenRegion().front());
    SmallVector<Value> total(5, f32c(0.0));
    for (int64_t g = 0; g < splitGroups; ++g)
      for (int64_t k = 0; k < 5; ++k)
        total[k] = arith::AddFOp::create(
            b, total[k],
            LLVM::LoadOp::create(
                b, f32,
                at(sums,
                   a.add(arith::MulIOp::create(b, a.add(tid, idx(g * groups)),
                                               idx(5)),
                         idx(k)),
                   f32),
                4));
    Value noWeight = arith::CmpFOp::create(b, arith::CmpFPredicate::OEQ,
                                           total[0], f32c(0.0));
    Value inv = arith::SelectOp::create(
        b, noWeight, f32c(0.0), arith::DivFOp::create(b, f32c(1.0), total[0]));
    Value oRow = a.add(
        arith::MulIOp::create(b, batch, indexOf(arg(abi::OStrideB))),
        a.add(arith::MulIOp::create(b, head, indexOf(arg(abi::OStrideH))),
              arith::MulIOp::create(b, position, indexOf(arg(abi::OStrideS)))));
    MmaSyncEmitter emitter(b, p.elementType, Value());
    for (int64_t h = 0; h < 2; ++h) {
      Value pair =
          emitter.packPair(arith::MulFOp::create(b, total[1 + 2 * h], inv),
                           arith::MulFOp::create(b, total[2 + 2 * h], inv));
      LLVM::StoreOp::create(b, pair,
                            at(arg(abi::O),
                               a.add(oRow, a.add(column0, idx(2 * h))),
                               b.getI16Type()),
                            4);
    }
    if (writesLse) {
      auto ifFirst = scf::IfOp::create(
          b, arith::CmpIOp::create(b, arith::CmpIPredicate::eq, tid, idx(0)),
          /*withElseRegion=*/false);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(&ifFirst.getThenRegion().front());
      storeLse(mRef, total[0], noWeight, lseRow);
    }
  };

  Value plan = arg(abi::Plan);
  auto ifPlan = scf::IfOp::create(b, hasWorkList(b, plan),
                                  /*withElseRegion=*/true);
  // With a work list: block i merges the splits of item i when it is a
  // split 0 of several, whose partials are records partial, partial + 1,
  // ... (attnrt_plan numbers a tile's splits consecutively). Its warps take
  // the tile's rows in turn; a row is packed row r of the tile (query
  // position r / gqa_pack of head head * gqa_pack + r mod gqa_pack).
  b.setInsertionPointToStart(&ifPlan.getThenRegion().front());
  {
    Value i = gpu::BlockIdOp::create(b, gpu::Dimension::x);
    Value items = workListSize(b, plan);
    auto ifItem = scf::IfOp::create(
        b, arith::CmpIOp::create(b, arith::CmpIPredicate::ult, i, items),
        /*withElseRegion=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&ifItem.getThenRegion().front());
    WorkItem item = loadWorkItem(b, plan, i);
    Value merges = arith::AndIOp::create(
        b,
        arith::CmpIOp::create(b, arith::CmpIPredicate::eq, item.split, idx(0)),
        arith::CmpIOp::create(b, arith::CmpIPredicate::sgt, item.numSplits,
                              idx(1)));
    auto ifMerges = scf::IfOp::create(b, merges, /*withElseRegion=*/false);
    b.setInsertionPointToStart(&ifMerges.getThenRegion().front());
    Value batch = a.min(a.max(item.sequence, idx(0)),
                        a.sub(indexOf(arg(abi::Batch)), idx(1)));
    Value group = a.min(a.max(item.head, idx(0)), idx(heads / pack - 1));
    const int64_t record = abi::planRecordFloats(blockQ, dv);
    auto rowLoop = scf::ForOp::create(b, warp, idx(blockQ),
                                      idx(abi::kCombineRowsPerBlock));
    b.setInsertionPointToStart(rowLoop.getBody());
    Value r = rowLoop.getInductionVar();
    Value packed = a.add(arith::MulIOp::create(b, item.qTile, idx(blockQ)), r);
    Value position = arith::DivUIOp::create(b, packed, idx(pack));
    Value head = a.add(arith::MulIOp::create(b, group, idx(pack)),
                       arith::RemUIOp::create(b, packed, idx(pack)));
    auto ifInside = scf::IfOp::create(
        b, arith::CmpIOp::create(b, arith::CmpIPredicate::ult, position, seqQ),
        /*withElseRegion=*/false);
    b.setInsertionPointToStart(&ifInside.getThenRegion().front());
    auto recordOf = [&](Value s) {
      return arith::MulIOp::create(b, a.add(item.partial, s), idx(record))
          .getResult();
    };
    mergeRow(
        item.numSplits,
        [&](Value s) { return a.add(recordOf(s), a.add(idx(blockQ * dv), r)); },
        [&](Value s) {
          return a.add(recordOf(s), arith::MulIOp::create(b, r, idx(dv)));
        },
        batch, head, position,
        a.add(arith::MulIOp::create(
                  b, a.add(arith::MulIOp::create(b, batch, idx(heads)), head),
                  seqQ),
              position));
  }

  // Without: one block per output row, partials [num_splits, B, Hq, Sq].
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(func);
    LLVM::GlobalOp::create(b, LLVM::LLVMArrayType::get(f32, threads * 5),
                           /*isConstant=*/false, LLVM::Linkage::Internal,
                           kCombineSums, Attribute(), /*alignment=*/16,
                           /*addrSpace=*/3);
  }
  b.setInsertionPointToStart(&ifPlan.getElseRegion().front());
  Value sums = LLVM::AddressOfOp::create(
      b, LLVM::LLVMPointerType::get(b.getContext(), 3), kCombineSums);
  Value row = gpu::BlockIdOp::create(b, gpu::Dimension::x);
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
  Value lseBase = arith::MulIOp::create(
      b, arith::MulIOp::create(b, numSplits, rows), idx(dv));
  mergeRowByBlock(
      numSplits,
      [&](Value s) {
        return a.add(lseBase, a.add(arith::MulIOp::create(b, s, rows), row));
      },
      [&](Value s) {
        return arith::MulIOp::create(
                   b, a.add(arith::MulIOp::create(b, s, rows), row), idx(dv))
            .getResult();
      },
      batch, head, position, row, sums);
  b.setInsertionPointAfter(ifPlan);
  gpu::ReturnOp::create(b);
}
