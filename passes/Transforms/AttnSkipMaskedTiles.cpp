//===- AttnSkipMaskedTiles.cpp - split key-tile loops by the mask ---------===//
//
// Implements attn-skip-masked-tiles: each attn.key_tiles loop is split into
// boundary, full and boundary tile ranges (empty tiles dropped) using the
// mask interface's interval formulas, run-time document ranges, or the
// block mask.
//
//===----------------------------------------------------------------------===//

#include "passes/Transforms/IndexArith.h"
#include "passes/Transforms/MaskCodegen.h"
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
  case SkipStrategy::AffineCorners:
    return "affine mask_fn, tiles classified at their corners";
  case SkipStrategy::RegionScan:
    return "mask_fn evaluated over each tile at run time";
  case SkipStrategy::RuntimeDocumentIds:
    return "run-time document id ranges";
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

/// Splits `loop` into [lo, fullLo) masked, [fullLo, fullHi) unmasked and
/// [fullHi, hi) masked tile ranges.
static void splitLoop(RewriterBase &rewriter, scf::ForOp loop,
                      const KeyTileRange &r) {
  rewriter.setInsertionPoint(loop);
  auto clone = [&](Value from, Value to, bool unmasked) {
    auto copy = cast<scf::ForOp>(rewriter.clone(*loop));
    copy.setLowerBound(from);
    copy.setUpperBound(to);
    if (unmasked)
      getStep(copy).setUnmasked(true);
  };
  clone(r.lo, r.fullLo, false);
  clone(r.fullLo, r.fullHi, true);
  clone(r.fullHi, r.hi, false);
  rewriter.eraseOp(loop);
}

static void guardStep(RewriterBase &rewriter, ImplicitLocOpBuilder &b,
                      TileStepOp step, Value any, Value all);

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
  guardStep(rewriter, b, step, any, all);
  (void)loop;
}

/// Wraps the step of a run-time classified tile: skipped unless `any`,
/// unmasked when `all`.
static void guardStep(RewriterBase &rewriter, ImplicitLocOpBuilder &b,
                      TileStepOp step, Value any, Value all) {
  auto ifAny = scf::IfOp::create(b, any, /*withElseRegion=*/false);
  b.setInsertionPointToStart(&ifAny.getThenRegion().front());
  auto ifAll = scf::IfOp::create(b, all, /*withElseRegion=*/true);
  rewriter.setInsertionPointToStart(&ifAll.getThenRegion().front());
  auto unmasked = cast<TileStepOp>(rewriter.clone(*step));
  unmasked.setUnmasked(true);
  rewriter.setInsertionPointToStart(&ifAll.getElseRegion().front());
  rewriter.clone(*step);
  rewriter.eraseOp(step);
}

/// Classifies each tile of `loop` at run time with `test`.
static void classifyWithTest(RewriterBase &rewriter, TileStepOp step,
                             TileTest test) {
  ImplicitLocOpBuilder b(step.getLoc(), rewriter);
  b.setInsertionPoint(step);
  IndexArith a{b};
  MaskScoreContext ctx = makeTileStepContext(b, step);
  Value c1 = a.constant(1);
  Value qLast = a.sub(
      a.min(a.add(step.getQBegin(), a.constant(step.getBlockQ())), ctx.seqQ),
      c1);
  Value kLast = a.sub(
      a.min(a.add(step.getKBegin(), a.constant(step.getBlockK())), ctx.seqK),
      c1);
  TileFlags flags = buildTileTest(b, ctx, test, step.getQBegin(), qLast,
                                  step.getKBegin(), kLast);
  Value any = arith::XOrIOp::create(b, flags.empty,
                                    arith::ConstantIntOp::create(b, 1, 1));
  guardStep(rewriter, b, step, any, flags.full);
}

FailureOr<SkipStrategy> attnc::skipMaskedTiles(RewriterBase &rewriter,
                                               scf::ForOp loop) {
  TileStepOp step = getStep(loop);
  if (!step)
    return loop.emitError("expected an attn.tile_step in the key-tile loop");
  loop->removeAttr(kKeyTilesAttrName);

  // Bounds are computed once per query tile, before the loop.
  ImplicitLocOpBuilder b(loop.getLoc(), rewriter);
  b.setInsertionPoint(loop);
  MaskScoreContext ctx = makeTileStepContext(b, step);
  if (ctx.spec.kind == MaskKind::BlockSparse) {
    classifyFromBlockMask(rewriter, loop, step);
    return SkipStrategy::RuntimeBlockTable;
  }
  if (!canBoundKeyTiles(ctx.spec)) {
    switch (chooseTileTest(ctx)) {
    case TileTest::AffineCorners:
      classifyWithTest(rewriter, step, TileTest::AffineCorners);
      return SkipStrategy::AffineCorners;
    case TileTest::RegionScan:
      classifyWithTest(rewriter, step, TileTest::RegionScan);
      return SkipStrategy::RegionScan;
    case TileTest::DocumentIds:
      classifyWithTest(rewriter, step, TileTest::DocumentIds);
      return SkipStrategy::RuntimeDocumentIds;
    case TileTest::None:
      return SkipStrategy::Elementwise;
    }
  }
  Value qFirst = step.getQBegin();
  if (qFirst.getParentBlock() == loop.getBody())
    return loop.emitError("expected the query tile start to be defined "
                          "outside the key-tile loop");
  IndexArith a{b};
  Value qLast =
      a.sub(a.min(a.add(qFirst, a.constant(step.getBlockQ())), ctx.seqQ),
            a.constant(1));
  KeyTileRange range = buildKeyTileRange(b, ctx, qFirst, qLast,
                                         loop.getUpperBound(),
                                         step.getBlockK());
  splitLoop(rewriter, loop, range);
  return mask::hasIntervalForm(ctx.spec.kind) ? SkipStrategy::ClosedForm
                                              : SkipStrategy::RuntimeDocument;
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
      case SkipStrategy::AffineCorners:
      case SkipStrategy::RegionScan:
        ++numRegionTests;
        break;
      case SkipStrategy::RuntimeDocumentIds:
        ++numRuntimeDocument;
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
