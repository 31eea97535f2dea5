//===- AttnDecomposeOnlineSoftmax.cpp - expand tile steps into loops ------===//
//
// Implements attn-decompose-online-softmax: attn.tile_step becomes the
// textbook online-softmax update written as scf loops over memrefs, and
// attn.tile_finalize the division by the row sum and the log-sum-exp.
//
//===----------------------------------------------------------------------===//

#include "passes/Codegen/IndexArith.h"
#include "passes/Codegen/MaskCodegen.h"
#include "passes/Codegen/OnlineSoftmax.h"
#include "passes/Transforms/Passes.h"

#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <cmath>

#define DEBUG_TYPE "attn-decompose-online-softmax"

namespace attnc {
#define GEN_PASS_DEF_ATTNDECOMPOSEONLINESOFTMAX
#include "passes/Transforms/Passes.h.inc"
} // namespace attnc

using namespace mlir;
using namespace attnc;
using namespace attnc::attn;

namespace {
using BodyFn = function_ref<void(ImplicitLocOpBuilder &, Value, ValueRange,
                                 SmallVectorImpl<Value> &)>;

/// Emits `scf.for iv = lb to ub` with iter_args; `body` fills the yields.
ValueRange forLoop(ImplicitLocOpBuilder &b, Value lb, Value ub,
                   ValueRange inits, BodyFn body) {
  Value c1 = arith::ConstantIndexOp::create(b, 1);
  auto loop = scf::ForOp::create(
      b, lb, ub, c1, inits,
      [&](OpBuilder &ob, Location loc, Value iv, ValueRange iter) {
        ImplicitLocOpBuilder lb2(loc, ob);
        SmallVector<Value> yields;
        body(lb2, iv, iter, yields);
        scf::YieldOp::create(lb2, yields);
      });
  return loop.getResults();
}

/// The f32 value of float8 e4m3fn bits `code` (i8), decoded with integer
/// arithmetic (MLIR 22 does not lower arith.extf from f8 on the CPU):
/// exponent 0 is subnormal (m * 2^-9), 0x7F/0xFF is NaN, otherwise
/// (1 + m / 8) * 2^(e - 7), whose f32 bits are sign | (e + 120) << 23 |
/// m << 20.
Value decodeFp8E4M3(ImplicitLocOpBuilder &b, Value code) {
  Type i32 = b.getI32Type(), f32 = b.getF32Type();
  auto c = [&](int64_t v) { return arith::ConstantIntOp::create(b, v, 32); };
  Value x = arith::ExtUIOp::create(b, i32, code);
  Value sign = arith::ShLIOp::create(
      b, arith::ShRUIOp::create(b, x, c(7)), c(31));
  Value e = arith::AndIOp::create(b, arith::ShRUIOp::create(b, x, c(3)), c(15));
  Value m = arith::AndIOp::create(b, x, c(7));
  Value normalBits = arith::OrIOp::create(
      b, arith::ShLIOp::create(b, arith::AddIOp::create(b, e, c(120)), c(23)),
      arith::ShLIOp::create(b, m, c(20)));
  Value normal = arith::BitcastOp::create(b, f32, normalBits);
  Value subnormal = arith::MulFOp::create(
      b, arith::UIToFPOp::create(b, f32, m),
      arith::ConstantOp::create(b, b.getF32FloatAttr(1.0f / 512)));
  Value isSub = arith::CmpIOp::create(b, arith::CmpIPredicate::eq, e, c(0));
  Value magnitude = arith::SelectOp::create(b, isSub, subnormal, normal);
  Value signed_ = arith::BitcastOp::create(
      b, f32,
      arith::OrIOp::create(b, arith::BitcastOp::create(b, i32, magnitude),
                           sign));
  Value isNan = arith::CmpIOp::create(
      b, arith::CmpIPredicate::eq, arith::AndIOp::create(b, x, c(0x7F)),
      c(0x7F));
  return arith::SelectOp::create(
      b, isNan,
      arith::ConstantOp::create(b, b.getF32FloatAttr(std::nanf(""))),
      signed_);
}

/// Loads one element and widens it to f32.
Value loadF32(ImplicitLocOpBuilder &b, Value memref, ValueRange indices) {
  Value v = memref::LoadOp::create(b, memref, indices);
  if (isa<Float8E4M3FNType>(v.getType()))
    return decodeFp8E4M3(
        b, arith::BitcastOp::create(b, b.getI8Type(), v).getResult());
  if (!v.getType().isF32())
    v = arith::ExtFOp::create(b, b.getF32Type(), v);
  return v;
}

/// Rounds an f32 to `elementType` and back (P before PV, per the numerics
/// contract); identity for f32.
Value roundTo(ImplicitLocOpBuilder &b, Value v, Type elementType) {
  if (elementType.isF32())
    return v;
  Value narrow = arith::TruncFOp::create(b, elementType, v);
  return arith::ExtFOp::create(b, b.getF32Type(), narrow);
}

Value f32Const(ImplicitLocOpBuilder &b, double v) {
  return arith::ConstantOp::create(b, b.getF32FloatAttr(static_cast<float>(v)));
}

} // namespace

LogicalResult attnc::decomposeTileStep(RewriterBase &rewriter, TileStepOp op) {
  ImplicitLocOpBuilder b(op.getLoc(), rewriter);
  b.setInsertionPoint(op);
  IndexArith a{b};
  auto qType = cast<MemRefType>(op.getQuery().getType());
  auto kType = cast<MemRefType>(op.getKey().getType());
  auto vType = cast<MemRefType>(op.getValue().getType());
  Type elementType = qType.getElementType();
  int64_t headDim = qType.getDimSize(3), valueDim = vType.getDimSize(3);
  int64_t group =
      qType.getDimSize(1) / kType.getDimSize(op.isPaged() ? 2 : 1);
  MaskScoreContext ctx = makeTileStepContext(b, op);
  bool masked = !op.getUnmasked();

  Value c0 = a.constant(0);
  Value seqQ = ctx.seqQ, seqK = ctx.seqK;
  Value rows = a.min(a.constant(op.getBlockQ()), a.sub(seqQ, op.getQBegin()));
  Value cols = a.min(a.constant(op.getBlockK()), a.sub(seqK, op.getKBegin()));
  Value batch = op.getBatch(), head = op.getHead();
  Value kvHead = arith::DivUIOp::create(b, head, a.constant(group));
  // A ragged batch: the sequence's rows start at its offset in the packed
  // query (batch entry 0), and its keys at theirs with cu_seqlens_k.
  Value queryBatch = batch, queryStart = c0, keyBatch = batch, keyStart = c0;
  if (Value cuQ = op.getCuSeqlensQ()) {
    queryBatch = c0;
    queryStart = raggedSpan(b, cuQ, batch,
                            memref::DimOp::create(b, op.getQuery(), 2))
                     .start;
  }
  if (Value cuK = op.getCuSeqlensK()) {
    keyBatch = c0;
    keyStart =
        raggedSpan(b, cuK, batch, memref::DimOp::create(b, op.getKey(), 2))
            .start;
  }
  Value dHead = a.constant(headDim), dValue = a.constant(valueDim);
  Value negInf = f32Const(b, -std::numeric_limits<double>::infinity());
  Value zero = f32Const(b, 0.0);
  Value log2e = f32Const(b, M_LOG2E);
  // Where key/value row `col` of this sequence lives: (batch, kvHead, col),
  // or in a paged cache (page_table[batch, col / P], col mod P, kvHead),
  // with the page id clamped into the pages (an id out of range reads a
  // wrong page, never outside the buffer).
  Value pageTable = op.getPageTable();
  Value pageSize, lastPage;
  if (pageTable) {
    pageSize = memref::DimOp::create(b, op.getKey(), 1);
    lastPage = a.sub(memref::DimOp::create(b, op.getKey(), 0), a.constant(1));
  }
  // fp8 keys and values: this KV head's scales (kv_scales [2, Hkv]).
  Value kScale, vScale;
  if (Value scales = op.getKvScales()) {
    kScale = memref::LoadOp::create(b, scales, ValueRange{a.constant(0), kvHead});
    vScale = memref::LoadOp::create(b, scales, ValueRange{a.constant(1), kvHead});
  }
  auto kvRow = [&](ImplicitLocOpBuilder &lb, Value col) -> SmallVector<Value> {
    if (!pageTable)
      return {keyBatch, kvHead, arith::AddIOp::create(lb, keyStart, col)};
    IndexArith la{lb};
    Value id = arith::IndexCastOp::create(
        lb, lb.getIndexType(),
        memref::LoadOp::create(
            lb, pageTable,
            ValueRange{batch, arith::DivUIOp::create(lb, col, pageSize)})
            .getResult());
    Value page = la.min(la.max(id, la.constant(0)), lastPage);
    return {page, arith::RemUIOp::create(lb, col, pageSize), kvHead};
  };
  auto at = [](ArrayRef<Value> kvRowIndices, Value d) {
    SmallVector<Value> indices(kvRowIndices.begin(), kvRowIndices.end());
    indices.push_back(d);
    return indices;
  };

  // Scores (then probabilities) of one row of the tile, base-2 units. On
  // the heap and freed after the step: a stack buffer inside the key loop
  // would outlive its step once canonicalization hoists it out of an
  // alloca_scope, growing the stack with every tile.
  Value scores = memref::AllocOp::create(
      b, MemRefType::get({op.getBlockK()}, b.getF32Type()));

  forLoop(
      b, c0, rows, {},
      [&](ImplicitLocOpBuilder &rb, Value r, ValueRange,
          SmallVectorImpl<Value> &) {
        IndexArith ra{rb};
        Value row = ra.add(op.getQBegin(), r);
        Value queryRow = ra.add(queryStart, row);
        RowMask rowMask;
        if (masked)
          rowMask = buildRowMask(rb, ctx, row);

        // S = scale * Q K^T (+ modifications), log2(e) folded in; rowmax(S).
        Value rowMax = forLoop(
            rb, c0, cols, ValueRange{negInf},
            [&](ImplicitLocOpBuilder &cb, Value c, ValueRange it,
                SmallVectorImpl<Value> &y) {
              Value col = arith::AddIOp::create(cb, op.getKBegin(), c);
              SmallVector<Value> keyRow = kvRow(cb, col);
              Value dot =
                  forLoop(cb, c0, dHead, ValueRange{zero},
                          [&](ImplicitLocOpBuilder &db, Value d, ValueRange acc,
                              SmallVectorImpl<Value> &dy) {
                            Value q = loadF32(
                                db, op.getQuery(),
                                ValueRange{queryBatch, head, queryRow, d});
                            Value k =
                                loadF32(db, op.getKey(), at(keyRow, d));
                            if (kScale)
                              k = arith::MulFOp::create(db, k, kScale);
                            dy.push_back(arith::AddFOp::create(
                                db, acc[0], arith::MulFOp::create(db, q, k)));
                          })[0];
              Value s = buildScore(cb, ctx, dot, row, col);
              s = arith::MulFOp::create(cb, s, log2e);
              if (masked)
                if (Value visible = buildVisible(cb, ctx, rowMask, row, col))
                  s = arith::SelectOp::create(cb, visible, s, negInf);
              memref::StoreOp::create(cb, s, scores, ValueRange{c});
              y.push_back(arith::MaximumFOp::create(cb, it[0], s));
            })[0];

        // m' = max(m, rowmax); a = exp2(m - m'); a row with no visible key so
        // far keeps m' = -inf and uses 0 as the reference, so nothing is NaN.
        Value mOld = memref::LoadOp::create(rb, op.getRowMax(), ValueRange{r});
        Value mNew = softmax::newMax(rb, mOld, rowMax);
        Value mRef = softmax::reference(rb, mNew);
        Value alpha = softmax::rescale(rb, mOld, mRef);

        // P = exp2(S - m'), rowsum(P) in f32; P is kept rounded for PV.
        Value rowSum = forLoop(
            rb, c0, cols, ValueRange{zero},
            [&](ImplicitLocOpBuilder &cb, Value c, ValueRange it,
                SmallVectorImpl<Value> &y) {
              Value s = memref::LoadOp::create(cb, scores, ValueRange{c});
              Value p = softmax::weight(cb, s, mRef);
              memref::StoreOp::create(cb, roundTo(cb, p, elementType), scores,
                                      ValueRange{c});
              y.push_back(arith::AddFOp::create(cb, it[0], p));
            })[0];
        Value lOld = memref::LoadOp::create(rb, op.getRowSum(), ValueRange{r});
        Value lNew = softmax::newSum(rb, alpha, lOld, rowSum);
        memref::StoreOp::create(rb, lNew, op.getRowSum(), ValueRange{r});
        memref::StoreOp::create(rb, mNew, op.getRowMax(), ValueRange{r});

        // O' = a * O + P V.
        forLoop(
            rb, c0, dValue, {},
            [&](ImplicitLocOpBuilder &vb, Value dv, ValueRange,
                SmallVectorImpl<Value> &) {
              Value pv = forLoop(
                  vb, c0, cols, ValueRange{zero},
                  [&](ImplicitLocOpBuilder &cb, Value c, ValueRange it,
                      SmallVectorImpl<Value> &y) {
                    Value col = arith::AddIOp::create(cb, op.getKBegin(), c);
                    Value p = memref::LoadOp::create(cb, scores, ValueRange{c});
                    Value v = loadF32(cb, op.getValue(), at(kvRow(cb, col), dv));
                    if (vScale)
                      v = arith::MulFOp::create(cb, v, vScale);
                    y.push_back(arith::AddFOp::create(
                        cb, it[0], arith::MulFOp::create(cb, p, v)));
                  })[0];
              Value o =
                  memref::LoadOp::create(vb, op.getAcc(), ValueRange{r, dv});
              Value oNew = arith::AddFOp::create(
                  vb, arith::MulFOp::create(vb, alpha, o), pv);
              memref::StoreOp::create(vb, oNew, op.getAcc(), ValueRange{r, dv});
            });
      });
  memref::DeallocOp::create(b, scores);
  rewriter.eraseOp(op);
  return success();
}

LogicalResult attnc::decomposeTileFinalize(RewriterBase &rewriter,
                                           TileFinalizeOp op) {
  ImplicitLocOpBuilder b(op.getLoc(), rewriter);
  b.setInsertionPoint(op);
  IndexArith a{b};
  auto outType = cast<MemRefType>(op.getOutput().getType());
  auto accType = cast<MemRefType>(op.getAcc().getType());
  Value c0 = a.constant(0);
  Value seqQ = memref::DimOp::create(b, op.getOutput(), 2);
  // A ragged batch: the sequence's rows, at its offset in batch entry 0.
  Value batch = op.getBatch(), start = c0;
  if (Value cuQ = op.getCuSeqlensQ()) {
    SequenceSpan span = raggedSpan(b, cuQ, batch, seqQ);
    batch = c0;
    start = span.start;
    seqQ = span.len;
  }
  Value rows =
      a.min(a.constant(accType.getDimSize(0)), a.sub(seqQ, op.getQBegin()));
  Value dValue = a.constant(accType.getDimSize(1));

  forLoop(
      b, c0, rows, {},
      [&](ImplicitLocOpBuilder &rb, Value r, ValueRange,
          SmallVectorImpl<Value> &) {
        Value row = arith::AddIOp::create(
            rb, start, arith::AddIOp::create(rb, op.getQBegin(), r));
        Value l = memref::LoadOp::create(rb, op.getRowSum(), ValueRange{r});
        Value inv = softmax::outputScale(rb, l);
        forLoop(rb, c0, dValue, {},
                [&](ImplicitLocOpBuilder &vb, Value dv, ValueRange,
                    SmallVectorImpl<Value> &) {
                  Value o = memref::LoadOp::create(vb, op.getAcc(),
                                                   ValueRange{r, dv});
                  Value out = arith::MulFOp::create(vb, o, inv);
                  if (!outType.getElementType().isF32())
                    out = arith::TruncFOp::create(vb, outType.getElementType(),
                                                  out);
                  memref::StoreOp::create(
                      vb, out, op.getOutput(),
                      ValueRange{batch, op.getHead(), row, dv});
                });
        if (Value lse = op.getLse()) {
          // LSE = ln(sum exp(s)) = (m + log2 l) * ln 2; -inf for an empty row.
          Value m = memref::LoadOp::create(rb, op.getRowMax(), ValueRange{r});
          Value value = softmax::logSumExp(rb, m, l);
          memref::StoreOp::create(rb, value, lse,
                                  ValueRange{batch, op.getHead(), row});
        }
      });
  rewriter.eraseOp(op);
  return success();
}

namespace {
struct AttnDecomposeOnlineSoftmaxPass final
    : attnc::impl::AttnDecomposeOnlineSoftmaxBase<
          AttnDecomposeOnlineSoftmaxPass> {
  using AttnDecomposeOnlineSoftmaxBase::AttnDecomposeOnlineSoftmaxBase;

  void runOnOperation() override {
    SmallVector<Operation *> ops;
    getOperation().walk([&](Operation *op) {
      if (isa<TileStepOp, TileFinalizeOp>(op))
        ops.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (Operation *op : ops) {
      if (auto step = dyn_cast<TileStepOp>(op)) {
        if (step.getUnmasked())
          ++numUnmaskedSteps;
        else
          ++numMaskedSteps;
        if (failed(decomposeTileStep(rewriter, step)))
          return signalPassFailure();
      } else if (failed(decomposeTileFinalize(rewriter,
                                              cast<TileFinalizeOp>(op)))) {
        return signalPassFailure();
      }
    }
  }
};
} // namespace
