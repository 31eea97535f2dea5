//===- AttnToGPU.cpp - attn.attention to GPU kernels ----------------------===//
//
// Implements attn-choose-gpu-kernel and convert-attn-to-gpu: thin passes over
// the target hooks of GpuTarget.h.
//
//===----------------------------------------------------------------------===//

#include "passes/Conversion/AttnToGPU.h"

#include "passes/Conversion/Sm80Kernel.h"
#include "passes/Codegen/MaskCodegen.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#define DEBUG_TYPE "convert-attn-to-gpu"

namespace attnc {
#define GEN_PASS_DEF_ATTNCHOOSEGPUKERNEL
#define GEN_PASS_DEF_CONVERTATTNTOGPU
#include "passes/Conversion/Passes.h.inc"
} // namespace attnc

using namespace mlir;
using namespace attnc;
using namespace attnc::attn;

LogicalResult attnc::chooseGpuKernel(AttentionOp op, const GpuTarget &target) {
  if (failed(target.checkSupport(op)))
    return failure();
  GpuKernelAttr config = getGpuKernelAttr(op);
  if (!config) {
    if (Attribute other = op->getAttr(kGpuKernelAttrName))
      return op.emitError("expected ")
             << kGpuKernelAttrName << " to be an #attn.gpu_kernel, got "
             << other;
    config = target.chooseConfig(op);
    op->setAttr(kGpuKernelAttrName, config);
  }
  if (failed(target.checkConfig(op, config)))
    return failure();
  // Tiling for this target uses the kernel's tile sizes.
  op->setAttr(attn::kTileSizesAttrName,
              DenseI64ArrayAttr::get(op.getContext(),
                                     {config.getBlockQ(), config.getBlockK()}));
  return success();
}

FailureOr<gpu::GPUModuleOp> attnc::convertAttentionToGpu(ModuleOp module,
                                                         AttentionOp op) {
  GpuKernelAttr config = getGpuKernelAttr(op);
  if (!config)
    return op.emitError("expected an ")
           << kGpuKernelAttrName
           << " attribute (run attn-choose-gpu-kernel, or set it by hand)";
  const GpuTarget *target = GpuTarget::lookup(config.getChip());
  if (!target)
    return op.emitError("expected a supported chip (")
           << GpuTarget::supportedChips() << "), got \"" << config.getChip()
           << "\"";
  if (failed(target->checkSupport(op)) ||
      failed(target->checkConfig(op, config)))
    return failure();
  op.emitRemark("convert-attn-to-gpu: ")
      << target->chip() << " kernel (" << target->kernelFamily()
      << "), block_q = " << config.getBlockQ()
      << ", block_k = " << config.getBlockK() << ", " << config.getWarps()
      << " warps x " << config.getMTiles() << " m-tiles; "
      << mmaSyncTileStrategy(op);
  return target->buildKernel(module, op, config);
}

namespace {
struct AttnChooseGpuKernelPass final
    : attnc::impl::AttnChooseGpuKernelBase<AttnChooseGpuKernelPass> {
  using AttnChooseGpuKernelBase::AttnChooseGpuKernelBase;

  void runOnOperation() override {
    const GpuTarget *target = GpuTarget::lookup(chip);
    if (!target) {
      getOperation().emitError("expected chip to be one of ")
          << GpuTarget::supportedChips() << ", got \"" << chip << "\"";
      return signalPassFailure();
    }
    WalkResult result = getOperation().walk([&](AttentionOp op) {
      bool had = static_cast<bool>(getGpuKernelAttr(op));
      if (failed(chooseGpuKernel(op, *target)))
        return WalkResult::interrupt();
      if (!had)
        ++numChosen;
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};

struct ConvertAttnToGPUPass final
    : attnc::impl::ConvertAttnToGPUBase<ConvertAttnToGPUPass> {
  using ConvertAttnToGPUBase::ConvertAttnToGPUBase;

  void runOnOperation() override {
    SmallVector<AttentionOp> ops;
    getOperation().walk([&](AttentionOp op) { ops.push_back(op); });
    if (ops.size() != 1) {
      getOperation().emitError("expected exactly one attn.attention, found ")
          << ops.size();
      return signalPassFailure();
    }
    AttentionOp op = ops.front();
    if (failed(convertAttentionToGpu(getOperation(), op)))
      return signalPassFailure();
    ++numKernels;
    if (canBoundKeyTiles(op.getMaskSpec()))
      ++numBoundedKeyLoops;
  }
};
} // namespace
