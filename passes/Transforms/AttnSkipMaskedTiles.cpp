//===- AttnSkipMaskedTiles.cpp - split key-tile loops by the mask ---------===//
//
// Implements attn-skip-masked-tiles: each attn.key_tiles loop is split into
// boundary, full and boundary tile ranges (empty tiles dropped) using the
// mask interface's interval formulas, run-time document ranges, or the
// block mask.
//
//===----------------------------------------------------------------------===//

#include "passes/Transforms/IndexArith.h"
#include "passes/Transforms/Passes.h"

#define DEBUG_TYPE "attn-skip-masked-tiles"

namespace attnc {
#define GEN_PASS_DEF_ATTNSKIPMASKEDTILES
#include "passes/Transforms/Passes.h.inc"
} // namespace attnc

using namespace mlir;
using namespace attnc;
using namespace attnc::attn;
using attnc::mask::DocumentSource;
using attnc::mask::MaskKind;
using attnc::mask::MaskSpec;

StringRef attnc::stringifySkipStrategy(SkipStrategy s) {
  switch (s) {
  case SkipStrategy::ClosedForm:
    return "closed-form bounds";
  case SkipStrategy::RuntimeDocument:
    return "run-time document ranges";
  case SkipStrategy::RuntimeBlockTable:
    return "run-time block table";
  case SkipStrategy::Elementwise:
    return "element-wise mask on every tile";
  }
  return "unknown";
}

/// The only attn.tile_step in a key-tile loop's body.
static TileStepOp getStep(scf::ForOp loop) {
  TileStepOp found;
  loop.getBody()->walk([&](TileStepOp step) { found = step; });
  return found;
}

/// Key bounds of a query tile: keys some row sees, keys every row sees.
struct KeyBounds {
  Value anyBegin, anyEnd, allBegin, allEnd;
};

/// Splits `loop` into [lo, fullLo) masked, [fullLo, fullHi) unmasked and
/// [fullHi, hi) masked tile ranges from key bounds.
static void splitLoop(RewriterBase &rewriter, ImplicitLocOpBuilder &b,
                      scf::ForOp loop, const KeyBounds &k, Value seqK,
                      int64_t blockK) {
  Value bk = arith::ConstantIndexOp::create(b, blockK);
  Value numTiles = loop.getUpperBound();
  auto select = [&](Value c, Value t, Value f) {
    return arith::SelectOp::create(b, c, t, f).getResult();
  };
  auto clamp = [&](Value v, Value lo, Value hi) {
    return arith::MinSIOp::create(b, arith::MaxSIOp::create(b, v, lo), hi)
        .getResult();
  };
  // Tiles that hold any visible key.
  Value anyNonEmpty = arith::CmpIOp::create(b, arith::CmpIPredicate::slt,
                                            k.anyBegin, k.anyEnd);
  Value lo = arith::DivUIOp::create(b, k.anyBegin, bk);
  Value hi = select(anyNonEmpty, arith::CeilDivUIOp::create(b, k.anyEnd, bk),
                    lo);
  hi = clamp(hi, lo, numTiles);
  // Tiles whose every key every row sees. The last, shorter tile is full
  // when the full range reaches the end of the keys.
  Value allNonEmpty = arith::CmpIOp::create(b, arith::CmpIPredicate::slt,
                                            k.allBegin, k.allEnd);
  Value reachesEnd =
      arith::CmpIOp::create(b, arith::CmpIPredicate::eq, k.allEnd, seqK);
  Value fullLo = clamp(arith::CeilDivUIOp::create(b, k.allBegin, bk), lo, hi);
  Value fullHi = select(reachesEnd, numTiles,
                        arith::DivUIOp::create(b, k.allEnd, bk));
  fullHi = select(allNonEmpty, clamp(fullHi, fullLo, hi), fullLo);

  rewriter.setInsertionPoint(loop);
  auto clone = [&](Value from, Value to, bool unmasked) {
    auto copy = cast<scf::ForOp>(rewriter.clone(*loop));
    copy.setLowerBound(from);
    copy.setUpperBound(to);
    if (unmasked)
      getStep(copy).setUnmasked(true);
  };
  clone(lo, fullLo, false);
  clone(fullLo, fullHi, true);
  clone(fullHi, hi, false);
  rewriter.eraseOp(loop);
}

/// Emits the document start and end around key position `pos` (which must
/// lie in [0, Sk)) by scanning cu_seqlens.
static std::pair<Value, Value> documentAround(ImplicitLocOpBuilder &b,
                                              Value cuSeqlens, Value pos,
                                              Value seqK) {
  Value c0 = arith::ConstantIndexOp::create(b, 0);
  Value c1 = arith::ConstantIndexOp::create(b, 1);
  Value n = memref::DimOp::create(b, cuSeqlens, 0);
  auto scan = scf::ForOp::create(
      b, c0, n, c1, ValueRange{c0, seqK},
      [&](OpBuilder &ob, Location loc, Value d, ValueRange iter) {
        ImplicitLocOpBuilder lb(loc, ob);
        Value off = arith::IndexCastOp::create(
            lb, lb.getIndexType(),
            memref::LoadOp::create(lb, cuSeqlens, ValueRange{d}));
        Value before =
            arith::CmpIOp::create(lb, arith::CmpIPredicate::sle, off, pos);
        Value start = arith::SelectOp::create(
            lb, before, arith::MaxSIOp::create(lb, iter[0], off), iter[0]);
        Value end = arith::SelectOp::create(
            lb, before, iter[1], arith::MinSIOp::create(lb, iter[1], off));
        scf::YieldOp::create(lb, ValueRange{start, end});
      });
  return {scan.getResult(0), scan.getResult(1)};
}

/// Key bounds of a query tile under a cu_seqlens document mask, computed at
/// run time from the documents of its first and last rows.
static KeyBounds documentBounds(ImplicitLocOpBuilder &b, const MaskSpec &spec,
                                Value cuSeqlens, Value qFirst, Value qLast,
                                Value seqQ, Value seqK) {
  IndexArith a{b};
  Value shift = a.sub(seqK, seqQ);
  Value c0 = a.constant(0);
  Value pFirstRaw = a.add(qFirst, shift);
  Value pLast = a.add(qLast, shift);
  Value pFirst = a.max(pFirstRaw, c0);
  Value pLastClamped = a.max(pLast, c0);
  auto [firstStart, firstEnd] = documentAround(b, cuSeqlens, pFirst, seqK);
  auto [lastStart, lastEnd] = documentAround(b, cuSeqlens, pLastClamped, seqK);
  Value lastVisible =
      arith::CmpIOp::create(b, arith::CmpIPredicate::sge, pLast, c0);
  KeyBounds k;
  k.anyBegin = firstStart;
  Value anyEnd = spec.documentCausal ? a.add(pLast, a.constant(1)) : lastEnd;
  k.anyEnd = arith::SelectOp::create(b, lastVisible, anyEnd, c0);
  // Every row sees [lastStart, firstEnd) when all rows sit in one document
  // (causal: up to the first row's position).
  Value sameDoc = arith::AndIOp::create(
      b,
      arith::CmpIOp::create(b, arith::CmpIPredicate::eq, firstStart,
                            lastStart),
      arith::CmpIOp::create(b, arith::CmpIPredicate::sge, pFirstRaw, c0));
  Value allEnd = spec.documentCausal
                     ? a.min(firstEnd, a.add(pFirstRaw, a.constant(1)))
                     : firstEnd;
  k.allBegin = lastStart;
  k.allEnd = arith::SelectOp::create(b, sameDoc, allEnd, lastStart);
  return k;
}

/// Wraps the step of `loop` in a run-time classification of its tile from
/// the block mask: skipped when no block is visible, unmasked when all are.
static void classifyFromBlockMask(RewriterBase &rewriter, scf::ForOp loop,
                                  TileStepOp step) {
  auto sparse = cast<BlockSparseMaskAttr>(step.getMaskAttr());
  ImplicitLocOpBuilder b(step.getLoc(), rewriter);
  b.setInsertionPoint(step);
  IndexArith a{b};
  Value c0 = a.constant(0), c1 = a.constant(1);
  Value seqQ = memref::DimOp::create(b, step.getQuery(), 2);
  Value seqK = memref::DimOp::create(b, step.getKey(), 2);
  Value qEnd = a.min(a.add(step.getQBegin(), a.constant(step.getBlockQ())),
                     seqQ);
  Value kEnd = a.min(a.add(step.getKBegin(), a.constant(step.getBlockK())),
                     seqK);
  Value bq = a.constant(sparse.getBlockQ()), bk = a.constant(sparse.getBlockK());
  Value rowLo = arith::DivUIOp::create(b, step.getQBegin(), bq);
  Value rowHi = arith::CeilDivUIOp::create(b, qEnd, bq);
  Value colLo = arith::DivUIOp::create(b, step.getKBegin(), bk);
  Value colHi = arith::CeilDivUIOp::create(b, kEnd, bk);
  Value blockMask = step.getBlockMask();
  auto pick = [&](unsigned dim, Value idx) -> Value {
    Value size = memref::DimOp::create(b, blockMask, dim);
    Value one = arith::CmpIOp::create(b, arith::CmpIPredicate::eq, size, c1);
    return arith::SelectOp::create(b, one, c0, idx);
  };
  Value bb = pick(0, step.getBatch()), bh = pick(1, step.getHead());
  // Count visible blocks over the tile's block rectangle.
  auto rows = scf::ForOp::create(
      b, rowLo, rowHi, c1, ValueRange{c0},
      [&](OpBuilder &ob, Location loc, Value r, ValueRange outer) {
        auto cols = scf::ForOp::create(
            ob, loc, colLo, colHi, c1, ValueRange{outer[0]},
            [&](OpBuilder &ib, Location iloc, Value c, ValueRange inner) {
              ImplicitLocOpBuilder lb(iloc, ib);
              Value v = memref::LoadOp::create(lb, blockMask,
                                               ValueRange{bb, bh, r, c});
              Value nz = arith::CmpIOp::create(
                  lb, arith::CmpIPredicate::ne, v,
                  arith::ConstantIntOp::create(lb, 0, 8));
              Value inc = arith::IndexCastUIOp::create(
                  lb, lb.getIndexType(),
                  arith::ExtUIOp::create(lb, lb.getI64Type(), nz));
              scf::YieldOp::create(lb, ValueRange{
                                           arith::AddIOp::create(lb, inner[0],
                                                                 inc)});
            });
        scf::YieldOp::create(ob, loc, cols.getResults());
      });
  Value total = a.max(a.constant(0), arith::MulIOp::create(
                                         b, a.sub(rowHi, rowLo),
                                         a.sub(colHi, colLo)));
  Value visible = rows.getResult(0);
  Value any = arith::CmpIOp::create(b, arith::CmpIPredicate::ne, visible, c0);
  Value all = arith::CmpIOp::create(b, arith::CmpIPredicate::eq, visible, total);
  auto ifAny = scf::IfOp::create(b, any, /*withElseRegion=*/false);
  b.setInsertionPointToStart(&ifAny.getThenRegion().front());
  auto ifAll = scf::IfOp::create(b, all, /*withElseRegion=*/true);
  rewriter.setInsertionPointToStart(&ifAll.getThenRegion().front());
  auto unmasked = cast<TileStepOp>(rewriter.clone(*step));
  unmasked.setUnmasked(true);
  rewriter.setInsertionPointToStart(&ifAll.getElseRegion().front());
  rewriter.clone(*step);
  rewriter.eraseOp(step);
  (void)loop;
}

FailureOr<SkipStrategy> attnc::skipMaskedTiles(RewriterBase &rewriter,
                                               scf::ForOp loop) {
  TileStepOp step = getStep(loop);
  if (!step)
    return loop.emitError("expected an attn.tile_step in the key-tile loop");
  loop->removeAttr(kKeyTilesAttrName);

  MaskSpec spec = step.hasMaskFn() ? MaskSpec{MaskKind::Custom}
                  : step.getMaskAttr() ? step.getMaskAttr().getMaskSpec()
                                       : MaskSpec::none();
  bool cuDocument = spec.kind == MaskKind::Document &&
                    spec.documentSource == DocumentSource::CuSeqlens;
  if (spec.kind == MaskKind::BlockSparse) {
    classifyFromBlockMask(rewriter, loop, step);
    return SkipStrategy::RuntimeBlockTable;
  }
  if (!mask::hasIntervalForm(spec.kind) && !cuDocument)
    return SkipStrategy::Elementwise;

  // Bounds are computed once per query tile, before the loop.
  ImplicitLocOpBuilder b(loop.getLoc(), rewriter);
  b.setInsertionPoint(loop);
  IndexArith a{b};
  Value seqQ = memref::DimOp::create(b, step.getQuery(), 2);
  Value seqK = memref::DimOp::create(b, step.getKey(), 2);
  Value qFirst = step.getQBegin();
  if (qFirst.getParentBlock() == loop.getBody())
    return loop.emitError("expected the query tile start to be defined "
                          "outside the key-tile loop");
  Value qLast = a.sub(a.min(a.add(qFirst, a.constant(step.getBlockQ())), seqQ),
                      a.constant(1));
  KeyBounds k;
  if (cuDocument) {
    k = documentBounds(b, spec, step.getCuSeqlens(), qFirst, qLast, seqQ,
                       seqK);
  } else {
    IndexIntervalFormula::tileBounds(a, spec, qFirst, qLast, seqQ, seqK,
                                     k.anyBegin, k.anyEnd, k.allBegin,
                                     k.allEnd);
  }
  splitLoop(rewriter, b, loop, k, seqK, step.getBlockK());
  return cuDocument ? SkipStrategy::RuntimeDocument : SkipStrategy::ClosedForm;
}

namespace {
struct AttnSkipMaskedTilesPass final
    : attnc::impl::AttnSkipMaskedTilesBase<AttnSkipMaskedTilesPass> {
  using AttnSkipMaskedTilesBase::AttnSkipMaskedTilesBase;

  void runOnOperation() override {
    SmallVector<scf::ForOp> loops;
    getOperation().walk([&](scf::ForOp loop) {
      if (loop->hasAttr(kKeyTilesAttrName))
        loops.push_back(loop);
    });
    IRRewriter rewriter(&getContext());
    for (scf::ForOp loop : loops) {
      Location loc = loop.getLoc();
      std::string mask = "none";
      if (TileStepOp step = getStep(loop)) {
        if (step.hasMaskFn())
          mask = "mask_fn region";
        else if (auto m = step.getMaskAttr()) {
          llvm::raw_string_ostream os(mask);
          mask.clear();
          os << Attribute(m);
        }
      }
      FailureOr<SkipStrategy> strategy = skipMaskedTiles(rewriter, loop);
      if (failed(strategy))
        return signalPassFailure();
      switch (*strategy) {
      case SkipStrategy::ClosedForm:
        ++numClosedForm;
        break;
      case SkipStrategy::RuntimeDocument:
        ++numRuntimeDocument;
        break;
      case SkipStrategy::RuntimeBlockTable:
        ++numRuntimeBlockTable;
        break;
      case SkipStrategy::Elementwise:
        ++numElementwise;
        break;
      }
      emitRemark(loc) << "attn-skip-masked-tiles: mask " << mask << ": "
                      << stringifySkipStrategy(*strategy);
    }
  }
};
} // namespace
