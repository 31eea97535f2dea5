//===- AttnCountTileSteps.cpp - count the tile steps a run executes -------===//
//
// Implements attn-count-tile-steps: instrumentation that counts executed
// attn.tile_step ops (and the unmasked ones) in a global, so tests can
// compare the tiles the code visits with the exact classification.
//
//===----------------------------------------------------------------------===//

#include "passes/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"

#define DEBUG_TYPE "attn-count-tile-steps"

namespace attnc {
#define GEN_PASS_DEF_ATTNCOUNTTILESTEPS
#include "passes/Transforms/Passes.h.inc"
} // namespace attnc

using namespace mlir;
using namespace attnc;
using namespace attnc::attn;

namespace {
struct AttnCountTileStepsPass final
    : attnc::impl::AttnCountTileStepsBase<AttnCountTileStepsPass> {
  using AttnCountTileStepsBase::AttnCountTileStepsBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (module.lookupSymbol(kTileStepCounterName)) {
      module.emitError("expected no symbol @")
          << kTileStepCounterName << " before attn-count-tile-steps";
      return signalPassFailure();
    }
    auto type = MemRefType::get({2}, IntegerType::get(&getContext(), 64));
    ImplicitLocOpBuilder b(module.getLoc(), module.getContext());
    b.setInsertionPointToStart(module.getBody());
    memref::GlobalOp::create(
        b, kTileStepCounterName, /*sym_visibility=*/StringAttr(), type,
        DenseElementsAttr::get(RankedTensorType::get({2}, type.getElementType()),
                               b.getI64IntegerAttr(0).getValue()),
        /*constant=*/false, /*alignment=*/IntegerAttr());
    module.walk([&](TileStepOp step) {
      b.setLoc(step.getLoc());
      b.setInsertionPoint(step);
      Value counts = memref::GetGlobalOp::create(b, type, kTileStepCounterName);
      Value one = arith::ConstantIntOp::create(b, 1, 64);
      auto bump = [&](int64_t entry) {
        Value at = arith::ConstantIndexOp::create(b, entry);
        memref::AtomicRMWOp::create(b, arith::AtomicRMWKind::addi, one, counts,
                                    ValueRange{at});
      };
      bump(0);
      if (step.getUnmasked())
        bump(1);
      ++numInstrumented;
    });
  }
};
} // namespace
