//===- MaskCodegen.cpp - mask and score arithmetic as IR ------------------===//

#include "passes/Codegen/MaskCodegen.h"
#include "passes/Codegen/IndexArith.h"

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
    if (spec.documentSource == DocumentSource::SegmentIds) {
      // Negative ids mark positions outside every document.
      Value inDoc = cmp(b, arith::CmpIPredicate::sge, m.docId,
                        arith::ConstantIntOp::create(b, 0, 32));
      return andI(andI(v, inDoc), cmp(b, arith::CmpIPredicate::eq,
                                      c.loadSeqId(b, c.batch, col), m.docId));
    }
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
                        Value dot, Value row, Value col, double outScale) {
  auto f32 = [&](double v) {
    return arith::ConstantOp::create(b, b.getF32FloatAttr(v)).getResult();
  };
  Value s;
  if (c.softcap) {
    // cap * tanh(scale * dot / cap), the division folded into the scale:
    // a division by the cap is IEEE div.rn on the GPU (a check and a
    // slow-path call a score: 2.2x the instructions of causal attention
    // at D = 128, ncu 2026-12-01).
    double cap = c.softcap.getValueAsDouble();
    Value x = arith::MulFOp::create(b, dot, f32(c.scale / cap));
    Value t = c.tanh ? c.tanh(b, x) : math::TanhOp::create(b, x).getResult();
    // The last step: the output scale joins the cap's multiply.
    bool last = !c.slope && !c.alibi && !c.loadSlope && !c.scoreFn;
    if (last)
      return arith::MulFOp::create(b, f32(cap * outScale), t);
    s = arith::MulFOp::create(b, f32(cap), t);
  } else {
    s = arith::MulFOp::create(b, dot, f32(c.scale));
  }
  Value slope = c.slope ? c.slope : buildAlibiSlope(b, c);
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
  if (outScale != 1.0)
    s = arith::MulFOp::create(b, s, f32(outScale));
  return s;
}

Value attnc::buildAlibiSlope(ImplicitLocOpBuilder &b,
                             const MaskScoreContext &c) {
  if (c.alibi) {
    auto vecType = VectorType::get({c.alibi.size()}, b.getF32Type());
    Value table = arith::ConstantOp::create(
        b, DenseElementsAttr::get(vecType, c.alibi.asArrayRef()));
    return vector::ExtractOp::create(b, table, ArrayRef<OpFoldResult>{c.head});
  }
  if (c.loadSlope)
    return c.loadSlope(b, c.head);
  return {};
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
  auto clamp = [&](Value v, Value lo, Value hi) {
    return a.min(a.max(v, lo), hi);
  };
  KeyTileRange r;
  // Tiles holding any visible key.
  Value anyNonEmpty = cmp(b, arith::CmpIPredicate::slt, anyBegin, anyEnd);
  r.lo = arith::DivUIOp::create(b, anyBegin, bk);
  r.hi = clamp(
      select(anyNonEmpty, arith::CeilDivUIOp::create(b, anyEnd, bk), r.lo),
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

MaskScoreContext attnc::makeTileStepScores(attn::TileStepOp op) {
  MaskScoreContext c;
  c.spec = op.getMaskSpec();
  c.scale = op.getScale().convertToDouble();
  c.softcap = op.getSoftcapAttr();
  c.alibi = op.getAlibiAttr();
  if (op.hasMaskFn())
    c.maskFn = &op.getMaskFn();
  if (op.hasScoreFn())
    c.scoreFn = &op.getScoreFn();
  return c;
}

Value attnc::keySeqLen(ImplicitLocOpBuilder &b, Value key, Value pageTable) {
  if (!pageTable)
    return memref::DimOp::create(b, key, 2);
  return arith::MulIOp::create(b, memref::DimOp::create(b, pageTable, 1),
                               memref::DimOp::create(b, key, 1));
}

Value attnc::clampedKvLen(ImplicitLocOpBuilder &b, Value kvLens, Value batch,
                         Value seqK) {
  IndexArith a{b};
  Value len = arith::IndexCastOp::create(
      b, b.getIndexType(),
      memref::LoadOp::create(b, kvLens, ValueRange{batch}).getResult());
  return a.min(a.max(len, a.constant(0)), seqK);
}

SequenceSpan attnc::raggedSpan(
    ImplicitLocOpBuilder &b,
    const std::function<Value(ImplicitLocOpBuilder &, Value)> &loadOffset,
    Value n, Value total) {
  IndexArith a{b};
  auto offset = [&](Value i) {
    return arith::IndexCastOp::create(b, b.getIndexType(), loadOffset(b, i))
        .getResult();
  };
  Value start = a.min(a.max(offset(n), a.constant(0)), total);
  Value end = a.min(a.max(offset(a.add(n, a.constant(1))), start), total);
  return {start, a.sub(end, start)};
}

SequenceSpan attnc::raggedSpan(ImplicitLocOpBuilder &b, Value cuSeqlens,
                               Value n, Value total) {
  return raggedSpan(
      b,
      [cuSeqlens](ImplicitLocOpBuilder &lb, Value i) {
        return memref::LoadOp::create(lb, cuSeqlens, ValueRange{i})
            .getResult();
      },
      n, total);
}

MaskScoreContext attnc::makeTileStepContext(ImplicitLocOpBuilder &b,
                                            attn::TileStepOp op) {
  MaskScoreContext c = makeTileStepScores(op);
  c.batch = op.getBatch();
  c.head = op.getHead();
  c.seqQ = memref::DimOp::create(b, op.getQuery(), 2);
  c.seqK = keySeqLen(b, op.getKey(), op.getPageTable());
  if (Value lens = op.getKvLens())
    c.seqK = clampedKvLen(b, lens, c.batch, c.seqK);
  // A ragged batch: this sequence's own lengths.
  if (Value cuQ = op.getCuSeqlensQ())
    c.seqQ = raggedSpan(b, cuQ, c.batch, c.seqQ).len;
  if (Value cuK = op.getCuSeqlensK())
    c.seqK = raggedSpan(b, cuK, c.batch, c.seqK).len;
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
  return c;
}

//===----------------------------------------------------------------------===//
// Run-time tile tests
//===----------------------------------------------------------------------===//

namespace {
/// A mask_fn as a boolean formula over comparisons that are linear in (q, k).
struct Formula {
  enum Kind { Leaf, And, Or, Not, Const } kind = Const;
  Operation *leaf = nullptr;
  bool value = false;
  std::unique_ptr<Formula> lhs, rhs;
};

/// True when `v` is affine in the region's q and k arguments and
/// `nonNegative` holds when it is also a sum of non-negative terms.
bool isAffine(Value v, Block &block, bool &nonNegative) {
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    nonNegative = true;
    return arg.getOwner() == &block &&
           (arg.getArgNumber() == 2 || arg.getArgNumber() == 3);
  }
  Operation *op = v.getDefiningOp();
  if (auto cst = dyn_cast_or_null<arith::ConstantOp>(op)) {
    auto attr = dyn_cast<IntegerAttr>(cst.getValue());
    nonNegative = attr && !attr.getValue().isNegative();
    return static_cast<bool>(attr);
  }
  bool l = false, r = false;
  if (isa_and_nonnull<arith::AddIOp>(op)) {
    bool ok = isAffine(op->getOperand(0), block, l) &&
              isAffine(op->getOperand(1), block, r);
    nonNegative = l && r;
    return ok;
  }
  if (isa_and_nonnull<arith::SubIOp>(op)) {
    nonNegative = false;
    return isAffine(op->getOperand(0), block, l) &&
           isAffine(op->getOperand(1), block, r);
  }
  if (isa_and_nonnull<arith::MulIOp>(op)) {
    // Linear only when one side is a constant.
    nonNegative = false;
    for (int i = 0; i < 2; ++i)
      if (isa_and_nonnull<arith::ConstantOp>(op->getOperand(i).getDefiningOp()))
        return isAffine(op->getOperand(1 - i), block, l);
    return false;
  }
  return false;
}

/// Parses the formula that computes `v`; null when it is not one.
std::unique_ptr<Formula> parseFormula(Value v, Block &block) {
  auto f = std::make_unique<Formula>();
  Operation *op = v.getDefiningOp();
  if (!op || op->getBlock() != &block)
    return nullptr;
  if (auto cst = dyn_cast<arith::ConstantOp>(op)) {
    auto attr = dyn_cast<IntegerAttr>(cst.getValue());
    if (!attr)
      return nullptr;
    f->kind = Formula::Const;
    f->value = !attr.getValue().isZero();
    return f;
  }
  if (isa<arith::AndIOp, arith::OrIOp>(op)) {
    f->kind = isa<arith::AndIOp>(op) ? Formula::And : Formula::Or;
    f->lhs = parseFormula(op->getOperand(0), block);
    f->rhs = parseFormula(op->getOperand(1), block);
    return f->lhs && f->rhs ? std::move(f) : nullptr;
  }
  if (isa<arith::XOrIOp>(op)) {
    // x ^ true is not x.
    for (int i = 0; i < 2; ++i) {
      std::unique_ptr<Formula> c = parseFormula(op->getOperand(i), block);
      if (c && c->kind == Formula::Const && c->value) {
        f->kind = Formula::Not;
        f->lhs = parseFormula(op->getOperand(1 - i), block);
        return f->lhs ? std::move(f) : nullptr;
      }
    }
    return nullptr;
  }
  if (auto cmp = dyn_cast<arith::CmpIOp>(op)) {
    using P = arith::CmpIPredicate;
    P p = cmp.getPredicate();
    if (p == P::eq || p == P::ne)
      return nullptr; // a line, not a half-plane
    bool lhsNonNeg = false, rhsNonNeg = false;
    if (!isAffine(cmp.getLhs(), block, lhsNonNeg) ||
        !isAffine(cmp.getRhs(), block, rhsNonNeg))
      return nullptr;
    bool isUnsigned = p == P::ult || p == P::ule || p == P::ugt || p == P::uge;
    if (isUnsigned && !(lhsNonNeg && rhsNonNeg))
      return nullptr; // wraps for negative values
    f->kind = Formula::Leaf;
    f->leaf = op;
    return f;
  }
  return nullptr;
}

/// The formula of a mask_fn region, or null.
std::unique_ptr<Formula> parseMaskFn(Region &region) {
  Block &block = region.front();
  return parseFormula(block.getTerminator()->getOperand(0), block);
}

/// (all true, all false) of `f` over the corners, from the leaves' corner
/// values.
std::pair<Value, Value> combine(ImplicitLocOpBuilder &b, const Formula &f,
                                const SmallVector<IRMapping, 4> &corners) {
  auto andI = [&](Value x, Value y) {
    return arith::AndIOp::create(b, x, y).getResult();
  };
  auto orI = [&](Value x, Value y) {
    return arith::OrIOp::create(b, x, y).getResult();
  };
  auto notI = [&](Value x) {
    return arith::XOrIOp::create(b, x, arith::ConstantIntOp::create(b, 1, 1))
        .getResult();
  };
  switch (f.kind) {
  case Formula::Const: {
    Value t = arith::ConstantIntOp::create(b, f.value, 1);
    Value n = arith::ConstantIntOp::create(b, !f.value, 1);
    return {t, n};
  }
  case Formula::Leaf: {
    Value allTrue, allFalse;
    for (const IRMapping &map : corners) {
      Value v = map.lookup(f.leaf->getResult(0));
      allTrue = allTrue ? andI(allTrue, v) : v;
      allFalse = allFalse ? andI(allFalse, notI(v)) : notI(v);
    }
    return {allTrue, allFalse};
  }
  case Formula::Not: {
    auto [t, n] = combine(b, *f.lhs, corners);
    return {n, t};
  }
  case Formula::And:
  case Formula::Or: {
    auto [lt, ln] = combine(b, *f.lhs, corners);
    auto [rt, rn] = combine(b, *f.rhs, corners);
    if (f.kind == Formula::And)
      return {andI(lt, rt), orI(ln, rn)};
    return {orI(lt, rt), andI(ln, rn)};
  }
  }
  return {};
}
} // namespace

/// Flags of the cells [rowLo, rowHi) x [colLo, colHi) from how many of them
/// `visible` (an i1 per cell) holds for: none is empty, all is full.
static TileFlags countVisibleCells(
    ImplicitLocOpBuilder &b, Value rowLo, Value rowHi, Value colLo,
    Value colHi,
    llvm::function_ref<Value(ImplicitLocOpBuilder &, Value, Value)> visible) {
  IndexArith a{b};
  Value c0 = a.constant(0), c1 = a.constant(1);
  auto rows = scf::ForOp::create(
      b, rowLo, rowHi, c1, ValueRange{c0},
      [&](OpBuilder &ob, Location loc, Value r, ValueRange outer) {
        auto cols = scf::ForOp::create(
            ob, loc, colLo, colHi, c1, ValueRange{outer[0]},
            [&](OpBuilder &ib, Location iloc, Value col, ValueRange inner) {
              ImplicitLocOpBuilder lb(iloc, ib);
              Value inc = arith::IndexCastUIOp::create(
                  lb, lb.getIndexType(),
                  arith::ExtUIOp::create(lb, lb.getI64Type(),
                                         visible(lb, r, col)));
              scf::YieldOp::create(
                  lb, ValueRange{arith::AddIOp::create(lb, inner[0], inc)});
            });
        scf::YieldOp::create(ob, loc, cols.getResults());
      });
  Value count = rows.getResult(0);
  Value total =
      arith::MulIOp::create(b, a.sub(rowHi, rowLo), a.sub(colHi, colLo));
  return {cmp(b, arith::CmpIPredicate::eq, count, c0),
          cmp(b, arith::CmpIPredicate::eq, count, total)};
}

TileTest attnc::chooseTileTest(const MaskScoreContext &c) {
  if (c.spec.kind == MaskKind::Custom && c.maskFn)
    return parseMaskFn(*c.maskFn) ? TileTest::AffineCorners
                                  : TileTest::RegionScan;
  if (c.spec.kind == MaskKind::Document &&
      c.spec.documentSource == DocumentSource::SegmentIds)
    return TileTest::DocumentIds;
  if (c.spec.kind == MaskKind::BlockSparse)
    return TileTest::BlockTable;
  return TileTest::None;
}

TileFlags attnc::buildTileTest(ImplicitLocOpBuilder &b,
                               const MaskScoreContext &c, TileTest test,
                               Value qFirst, Value qLast, Value kFirst,
                               Value kLast) {
  IndexArith a{b};
  TileFlags flags;
  if (test == TileTest::AffineCorners) {
    // Evaluate the region at the four corners; the formula decides.
    std::unique_ptr<Formula> formula = parseMaskFn(*c.maskFn);
    Block &block = c.maskFn->front();
    SmallVector<IRMapping, 4> corners(4);
    int i = 0;
    for (Value q : {qFirst, qLast})
      for (Value k : {kFirst, kLast}) {
        IRMapping &map = corners[i++];
        map.map(block.getArguments(), ValueRange{c.batch, c.head, q, k});
        for (Operation &op : block.without_terminator())
          b.clone(op, map);
      }
    std::tie(flags.full, flags.empty) = combine(b, *formula, corners);
    return flags;
  }
  if (test == TileTest::RegionScan) {
    // Count the visible pairs of the tile.
    Value c1 = a.constant(1);
    return countVisibleCells(
        b, qFirst, a.add(qLast, c1), kFirst, a.add(kLast, c1),
        [&](ImplicitLocOpBuilder &lb, Value q, Value k) {
          return inlineRegion(lb, *c.maskFn, ValueRange{c.batch, c.head, q, k});
        });
  }
  if (test == TileTest::DocumentIds) {
    // Rows stand at key positions p = i + Sk - Sq. Min and max ids of the
    // rows' positions and of the keys: disjoint ranges mean no visible pair;
    // one shared id (and, if causal, every key before every row) means all.
    Value shift = a.sub(c.seqK, c.seqQ), c1 = a.constant(1);
    Value pFirst = a.add(qFirst, shift), pLast = a.add(qLast, shift);
    Value zero = a.constant(0);
    Value anyRow = cmp(b, arith::CmpIPredicate::sge, pLast, zero);
    Value from = a.max(pFirst, zero), to = a.max(pLast, zero);
    auto range = [&](Value lo, Value hi) {
      Value first = c.loadSeqId(b, c.batch, lo);
      auto loop = scf::ForOp::create(
          b, lo, a.add(hi, c1), c1, ValueRange{first, first},
          [&](OpBuilder &ob, Location loc, Value i, ValueRange it) {
            ImplicitLocOpBuilder lb(loc, ob);
            Value id = c.loadSeqId(lb, c.batch, i);
            scf::YieldOp::create(
                lb, ValueRange{arith::MinSIOp::create(lb, it[0], id),
                               arith::MaxSIOp::create(lb, it[1], id)});
          });
      return std::make_pair(loop.getResult(0), loop.getResult(1));
    };
    auto [rowMin, rowMax] = range(from, to);
    auto [keyMin, keyMax] = range(kFirst, kLast);
    Value disjoint = arith::OrIOp::create(
        b, cmp(b, arith::CmpIPredicate::slt, rowMax, keyMin),
        cmp(b, arith::CmpIPredicate::slt, keyMax, rowMin));
    Value empty = arith::OrIOp::create(
        b, disjoint,
        arith::XOrIOp::create(b, anyRow,
                              arith::ConstantIntOp::create(b, 1, 1)));
    if (c.spec.documentCausal)
      empty = arith::OrIOp::create(
          b, empty, cmp(b, arith::CmpIPredicate::sgt, kFirst, pLast));
    Value oneId = arith::AndIOp::create(
        b,
        arith::AndIOp::create(b,
                              cmp(b, arith::CmpIPredicate::eq, rowMin, rowMax),
                              cmp(b, arith::CmpIPredicate::eq, keyMin, keyMax)),
        cmp(b, arith::CmpIPredicate::eq, rowMin, keyMin));
    Value full = arith::AndIOp::create(
        b,
        arith::AndIOp::create(b, oneId,
                              cmp(b, arith::CmpIPredicate::sge, rowMin,
                                  arith::ConstantIntOp::create(b, 0, 32))),
        cmp(b, arith::CmpIPredicate::sge, pFirst, zero));
    if (c.spec.documentCausal)
      full = arith::AndIOp::create(
          b, full, cmp(b, arith::CmpIPredicate::sle, kLast, pFirst));
    flags.empty = empty;
    flags.full = full;
    return flags;
  }
  if (test == TileTest::BlockTable) {
    // Count the visible entries of the block rectangle the tile overlaps: a
    // visible block makes all its pairs visible.
    Value c0 = a.constant(0), c1 = a.constant(1);
    Value bq = a.constant(c.spec.blockQ), bk = a.constant(c.spec.blockK);
    Value rowLo = arith::DivUIOp::create(b, qFirst, bq);
    Value rowHi = a.add(arith::DivUIOp::create(b, qLast, bq), c1);
    Value colLo = arith::DivUIOp::create(b, kFirst, bk);
    Value colHi = a.add(arith::DivUIOp::create(b, kLast, bk), c1);
    auto pick = [&](Value size, Value idx) -> Value {
      Value one = cmp(b, arith::CmpIPredicate::eq, size, c1);
      return arith::SelectOp::create(b, one, c0, idx);
    };
    Value bb = pick(c.blockMaskB, c.batch), bh = pick(c.blockMaskH, c.head);
    return countVisibleCells(
        b, rowLo, rowHi, colLo, colHi,
        [&](ImplicitLocOpBuilder &lb, Value r, Value col) {
          Value v = c.loadBlockMask(lb, bb, bh, r, col);
          return cmp(lb, arith::CmpIPredicate::ne, v,
                     arith::ConstantIntOp::create(lb, 0, 8));
        });
  }
  flags.empty = arith::ConstantIntOp::create(b, 0, 1);
  flags.full = arith::ConstantIntOp::create(b, 0, 1);
  return flags;
}
