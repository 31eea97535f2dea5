//===- AttnSkipMaskedTiles.cpp - split key-tile loops by the mask ---------===//
//
// Implements attn-skip-masked-tiles: each attn.key_tiles loop is split into
// boundary, full and boundary tile ranges (empty tiles dropped) using the
// mask interface's interval formulas, run-time document ranges, or the
// block mask.
//
//===----------------------------------------------------------------------===//

#include "passes/Codegen/IndexArith.h"
#include "passes/Codegen/MaskCodegen.h"
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

/// Wraps the step of a run-time classified tile: skipped unless `any`,
/// unmasked when `all`.
static void guardStep(RewriterBase &rewriter, ImplicitLocOpBuilder &b,
                      TileStepOp step, Value any, Value all, StringRef test) {
  auto ifAny = scf::IfOp::create(b, any, /*withElseRegion=*/false);
  ifAny->setAttr(kTileTestAttrName, b.getStringAttr(test));
  b.setInsertionPointToStart(&ifAny.getThenRegion().front());
  auto ifAll = scf::IfOp::create(b, all, /*withElseRegion=*/true);
  rewriter.setInsertionPointToStart(&ifAll.getThenRegion().front());
  auto unmasked = cast<TileStepOp>(rewriter.clone(*step));
  unmasked.setUnmasked(true);
  rewriter.setInsertionPointToStart(&ifAll.getElseRegion().front());
  rewriter.clone(*step);
  rewriter.eraseOp(step);
}

/// The name of `test` in the attn.tile_test attribute.
static StringRef tileTestName(TileTest test) {
  switch (test) {
  case TileTest::AffineCorners:
    return "affine_corners";
  case TileTest::RegionScan:
    return "region_scan";
  case TileTest::DocumentIds:
    return "document_ids";
  case TileTest::BlockTable:
    return "block_table";
  case TileTest::None:
    break;
  }
  return "none";
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
  guardStep(rewriter, b, step, any, flags.full, tileTestName(test));
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
    case TileTest::BlockTable:
      classifyWithTest(rewriter, step, TileTest::BlockTable);
      return SkipStrategy::RuntimeBlockTable;
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
  KeyTileRange range = buildKeyTileRange(
      b, ctx, qFirst, qLast, loop.getUpperBound(), step.getBlockK());
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
