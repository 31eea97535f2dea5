//===- MaskCodegen.cpp - mask and score arithmetic as IR ------------------===//

#include "passes/Transforms/MaskCodegen.h"
#include "passes/Transforms/IndexArith.h"

#include "dialects/Attn/AttnDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;
using namespace attnc;
using attnc::mask::DocumentSource;
using attnc::mask::MaskKind;

/// Inlines a single-block region with `args` for its block arguments and
/// returns the value it yields.
static Value inlineRegion(ImplicitLocOpBuilder &b, Region &region,
                          ValueRange args) {
  Block &block = region.front();
  IRMapping map;
  map.map(block.getArguments(), args);
  for (Operation &op : block.without_terminator())
    b.clone(op, map);
  return map.lookupOrDefault(block.getTerminator()->getOperand(0));
}

static Value cmp(ImplicitLocOpBuilder &b, arith::CmpIPredicate p, Value x,
                 Value y) {
  return arith::CmpIOp::create(b, p, x, y);
}

std::pair<Value, Value> attnc::buildDocumentAround(ImplicitLocOpBuilder &b,
                                                   const MaskScoreContext &c,
                                                   Value pos) {
  Value c0 = arith::ConstantIndexOp::create(b, 0);
  Value c1 = arith::ConstantIndexOp::create(b, 1);
  // start = max{cu[d] : cu[d] <= pos}, end = min{cu[d] : cu[d] > pos}.
  auto scan = scf::ForOp::create(
      b, c0, c.numCuSeqlens, c1, ValueRange{c0, c.seqK},
      [&](OpBuilder &ob, Location loc, Value d, ValueRange it) {
        ImplicitLocOpBuilder lb(loc, ob);
        Value off = arith::IndexCastOp::create(lb, lb.getIndexType(),
                                               c.loadCuSeqlen(lb, d));
        Value before = cmp(lb, arith::CmpIPredicate::sle, off, pos);
        Value start = arith::SelectOp::create(
            lb, before, arith::MaxSIOp::create(lb, it[0], off), it[0]);
        Value end = arith::SelectOp::create(
            lb, before, it[1], arith::MinSIOp::create(lb, it[1], off));
        scf::YieldOp::create(lb, ValueRange{start, end});
      });
  return {scan.getResult(0), scan.getResult(1)};
}

RowMask attnc::buildRowMask(ImplicitLocOpBuilder &b, const MaskScoreContext &c,
                            Value row) {
  RowMask m;
  IndexArith a{b};
  const mask::MaskSpec &spec = c.spec;
  if (mask::hasIntervalForm(spec.kind)) {
    IndexIntervalFormula::clipped(a, spec, row, c.seqQ, c.seqK, m.lo, m.hi);
    return m;
  }
  if (spec.kind == MaskKind::Document) {
    m.pos = a.add(row, a.sub(c.seqK, c.seqQ));
    Value zero = a.constant(0);
    m.posValid = cmp(b, arith::CmpIPredicate::sge, m.pos, zero);
    Value safePos = a.max(m.pos, zero);
    if (spec.documentSource == DocumentSource::SegmentIds)
      m.docId = c.loadSeqId(b, c.batch, safePos);
    else
      std::tie(m.docStart, m.docEnd) = buildDocumentAround(b, c, safePos);
    return m;
  }
  if (spec.kind == MaskKind::BlockSparse) {
    auto pick = [&](Value size, Value idx) -> Value {
      Value one = cmp(b, arith::CmpIPredicate::eq, size, a.constant(1));
      return arith::SelectOp::create(b, one, a.constant(0), idx);
    };
    m.maskB = pick(c.blockMaskB, c.batch);
    m.maskH = pick(c.blockMaskH, c.head);
    m.blockRow = arith::DivUIOp::create(b, row, a.constant(spec.blockQ));
  }
  return m;
}

Value attnc::buildVisible(ImplicitLocOpBuilder &b, const MaskScoreContext &c,
                          const RowMask &m, Value row, Value col) {
  auto andI = [&](Value x, Value y) {
    return arith::AndIOp::create(b, x, y).getResult();
  };
  const mask::MaskSpec &spec = c.spec;
  switch (spec.kind) {
  case MaskKind::None:
    return {};
  case MaskKind::Causal:
  case MaskKind::SlidingWindow:
  case MaskKind::PrefixLM:
    return andI(cmp(b, arith::CmpIPredicate::sge, col, m.lo),
                cmp(b, arith::CmpIPredicate::slt, col, m.hi));
  case MaskKind::Document: {
    Value v = m.posValid;
    if (spec.documentCausal)
      v = andI(v, cmp(b, arith::CmpIPredicate::sle, col, m.pos));
    if (spec.documentSource == DocumentSource::SegmentIds)
      return andI(v, cmp(b, arith::CmpIPredicate::eq,
                         c.loadSeqId(b, c.batch, col), m.docId));
    v = andI(v, cmp(b, arith::CmpIPredicate::sge, col, m.docStart));
    return andI(v, cmp(b, arith::CmpIPredicate::slt, col, m.docEnd));
  }
  case MaskKind::BlockSparse: {
    Value blockCol = arith::DivUIOp::create(
        b, col, arith::ConstantIndexOp::create(b, spec.blockK));
    Value v = c.loadBlockMask(b, m.maskB, m.maskH, m.blockRow, blockCol);
    return cmp(b, arith::CmpIPredicate::ne, v,
               arith::ConstantIntOp::create(b, 0, 8));
  }
  case MaskKind::Custom:
    return inlineRegion(b, *c.maskFn, ValueRange{c.batch, c.head, row, col});
  }
  return {};
}

Value attnc::buildScore(ImplicitLocOpBuilder &b, const MaskScoreContext &c,
                        Value dot, Value row, Value col) {
  auto f32 = [&](double v) {
    return arith::ConstantOp::create(b, b.getF32FloatAttr(v)).getResult();
  };
  Value s = arith::MulFOp::create(b, dot, f32(c.scale));
  if (c.softcap) {
    Value cap = f32(c.softcap.getValueAsDouble());
    Value t = math::TanhOp::create(b, arith::DivFOp::create(b, s, cap));
    s = arith::MulFOp::create(b, cap, t);
  }
  Value slope;
  if (c.alibi) {
    auto vecType = VectorType::get({c.alibi.size()}, b.getF32Type());
    Value table = arith::ConstantOp::create(
        b, DenseElementsAttr::get(vecType, c.alibi.asArrayRef()));
    slope = vector::ExtractOp::create(b, table, ArrayRef<OpFoldResult>{c.head});
  } else if (c.loadSlope) {
    slope = c.loadSlope(b, c.head);
  }
  if (slope) {
    // |i + Sk - Sq - j|, in f32.
    IndexArith a{b};
    Value dist = a.sub(a.add(row, a.sub(c.seqK, c.seqQ)), col);
    Value neg = cmp(b, arith::CmpIPredicate::slt, dist, a.constant(0));
    Value absDist =
        arith::SelectOp::create(b, neg, a.sub(a.constant(0), dist), dist);
    Value distF = arith::SIToFPOp::create(
        b, b.getF32Type(),
        arith::IndexCastOp::create(b, b.getI64Type(), absDist));
    s = arith::SubFOp::create(b, s, arith::MulFOp::create(b, slope, distF));
  }
  if (c.scoreFn)
    s = inlineRegion(b, *c.scoreFn, ValueRange{s, c.batch, c.head, row, col});
  return s;
}

bool attnc::canBoundKeyTiles(const mask::MaskSpec &spec) {
  return mask::hasIntervalForm(spec.kind) ||
         (spec.kind == MaskKind::Document &&
          spec.documentSource == DocumentSource::CuSeqlens);
}

KeyTileRange attnc::buildKeyTileRange(ImplicitLocOpBuilder &b,
                                      const MaskScoreContext &c, Value qFirst,
                                      Value qLast, Value numTiles,
                                      int64_t blockK) {
  IndexArith a{b};
  const mask::MaskSpec &spec = c.spec;
  // Keys some row sees, [anyBegin, anyEnd), and keys every row sees,
  // [allBegin, allEnd).
  Value anyBegin, anyEnd, allBegin, allEnd;
  if (mask::hasIntervalForm(spec.kind)) {
    IndexIntervalFormula::tileBounds(a, spec, qFirst, qLast, c.seqQ, c.seqK,
                                     anyBegin, anyEnd, allBegin, allEnd);
  } else {
    // cu_seqlens documents: the documents of the first and last rows. The
    // rows in between cover the documents in between, contiguously.
    Value shift = a.sub(c.seqK, c.seqQ), zero = a.constant(0);
    Value pFirstRaw = a.add(qFirst, shift);
    Value pLast = a.add(qLast, shift);
    auto [firstStart, firstEnd] =
        buildDocumentAround(b, c, a.max(pFirstRaw, zero));
    auto [lastStart, lastEnd] = buildDocumentAround(b, c, a.max(pLast, zero));
    Value lastVisible = cmp(b, arith::CmpIPredicate::sge, pLast, zero);
    anyBegin = firstStart;
    Value end = spec.documentCausal ? a.add(pLast, a.constant(1)) : lastEnd;
    anyEnd = arith::SelectOp::create(b, lastVisible, end, zero);
    // Every row sees [lastStart, firstEnd) only when all rows sit in one
    // document (causal: up to the first row's position).
    Value sameDoc = arith::AndIOp::create(
        b, cmp(b, arith::CmpIPredicate::eq, firstStart, lastStart),
        cmp(b, arith::CmpIPredicate::sge, pFirstRaw, zero));
    Value fullEnd = spec.documentCausal
                        ? a.min(firstEnd, a.add(pFirstRaw, a.constant(1)))
                        : firstEnd;
    allBegin = lastStart;
    allEnd = arith::SelectOp::create(b, sameDoc, fullEnd, lastStart);
  }

  Value bk = a.constant(blockK);
  auto select = [&](Value cond, Value t, Value f) {
    return arith::SelectOp::create(b, cond, t, f).getResult();
  };
  auto clamp = [&](Value v, Value lo, Value hi) { return a.min(a.max(v, lo), hi); };
  KeyTileRange r;
  // Tiles holding any visible key.
  Value anyNonEmpty = cmp(b, arith::CmpIPredicate::slt, anyBegin, anyEnd);
  r.lo = arith::DivUIOp::create(b, anyBegin, bk);
  r.hi = clamp(select(anyNonEmpty, arith::CeilDivUIOp::create(b, anyEnd, bk),
                      r.lo),
               r.lo, numTiles);
  // Tiles whose every key every row sees; the last, shorter tile is full
  // when the full range reaches the end of the keys.
  Value allNonEmpty = cmp(b, arith::CmpIPredicate::slt, allBegin, allEnd);
  Value reachesEnd = cmp(b, arith::CmpIPredicate::eq, allEnd, c.seqK);
  r.fullLo = clamp(arith::CeilDivUIOp::create(b, allBegin, bk), r.lo, r.hi);
  Value fullHi =
      select(reachesEnd, numTiles, arith::DivUIOp::create(b, allEnd, bk));
  r.fullHi = select(allNonEmpty, clamp(fullHi, r.fullLo, r.hi), r.fullLo);
  return r;
}

MaskScoreContext attnc::makeTileStepContext(ImplicitLocOpBuilder &b,
                                            attn::TileStepOp op) {
  MaskScoreContext c;
  c.spec = op.hasMaskFn() ? mask::MaskSpec{MaskKind::Custom}
           : op.getMaskAttr() ? op.getMaskAttr().getMaskSpec()
                              : mask::MaskSpec::none();
  c.batch = op.getBatch();
  c.head = op.getHead();
  c.seqQ = memref::DimOp::create(b, op.getQuery(), 2);
  c.seqK = memref::DimOp::create(b, op.getKey(), 2);
  if (Value ids = op.getSeqIds())
    c.loadSeqId = [ids](ImplicitLocOpBuilder &lb, Value bi, Value pos) {
      return memref::LoadOp::create(lb, ids, ValueRange{bi, pos}).getResult();
    };
  if (Value cu = op.getCuSeqlens()) {
    c.loadCuSeqlen = [cu](ImplicitLocOpBuilder &lb, Value i) {
      return memref::LoadOp::create(lb, cu, ValueRange{i}).getResult();
    };
    c.numCuSeqlens = memref::DimOp::create(b, cu, 0);
  }
  if (Value bm = op.getBlockMask()) {
    c.loadBlockMask = [bm](ImplicitLocOpBuilder &lb, Value bb, Value hh,
                           Value r, Value col) {
      return memref::LoadOp::create(lb, bm, ValueRange{bb, hh, r, col})
          .getResult();
    };
    c.blockMaskB = memref::DimOp::create(b, bm, 0);
    c.blockMaskH = memref::DimOp::create(b, bm, 1);
  }
  if (Value slopes = op.getAlibiSlopes())
    c.loadSlope = [slopes](ImplicitLocOpBuilder &lb, Value h) {
      return memref::LoadOp::create(lb, slopes, ValueRange{h}).getResult();
    };
  c.scale = op.getScale().convertToDouble();
  c.softcap = op.getSoftcapAttr();
  c.alibi = op.getAlibiAttr();
  if (op.hasMaskFn())
    c.maskFn = &op.getMaskFn();
  if (op.hasScoreFn())
    c.scoreFn = &op.getScoreFn();
  return c;
}
