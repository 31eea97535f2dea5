//===- AttnToGPU.cpp - attn.attention to GPU kernels ----------------------===//
//
// Implements attn-choose-gpu-kernel and convert-attn-to-gpu: thin passes over
// the target hooks of GpuTarget.h.
//
//===----------------------------------------------------------------------===//

#include "passes/Conversion/AttnToGPU.h"

#include "passes/Conversion/FlashKernel.h"

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
  KernelProblem problem = KernelProblem::of(op);
  if (failed(target.checkSupport(problem)))
    return failure();
  GpuKernelAttr config = getGpuKernelAttr(op);
  if (!config) {
    if (Attribute other = op->getAttr(kGpuKernelAttrName))
      return op.emitError("expected ")
             << kGpuKernelAttrName << " to be an #attn.gpu_kernel, got "
             << other;
    config = target.chooseConfig(problem);
    // A target's choice obeys the attribute's own rules (a broken one is a
    // compiler bug, reported rather than compiled).
    if (failed(GpuKernelAttr::verify(
            [&] {
              return op.emitError("internal error: target ")
                     << target.chip() << " chose an invalid #attn.gpu_kernel: ";
            },
            config.getChip(), config.getBlockQ(), config.getBlockK(),
            config.getWarps(), config.getMTiles(), config.getStages(),
            config.getQInSmem(), config.getGqaPack(), config.getSplitKv(),
            config.getKeyWarps(), config.getWgmma(), config.getPersistent(),
            config.getTmaLoads(), config.getExp2Fma(), config.getPingPong(),
            config.getWideStores(), config.getLazyRescale(),
            config.getTrimKeys(), config.getStagedStores(),
            config.getQBuffers(), config.getBlocksPerSm(),
            config.getChainItems())))
      return failure();
    op->setAttr(kGpuKernelAttrName, config);
  }
  if (failed(target.checkConfig(problem, config)))
    return failure();
  // Tiling for this target uses the kernel's tile sizes.
  op->setAttr(attn::kTileSizesAttrName,
              DenseI64ArrayAttr::get(op.getContext(),
                                     {config.getBlockQ() / config.getGqaPack(),
                                      config.getBlockK()}));
  return success();
}

/// What the remark says of the decode parameters.
static std::string decodeRemark(const KernelProblem &p, GpuKernelAttr config) {
  std::string s;
  if (config.getGqaPack() != 1)
    s += "; the " + std::to_string(config.getGqaPack()) +
         " query heads of a KV head share each tile's rows (gqa_pack), so K "
         "and V are read once per group";
  else if (config.getSplitKv() && p.numQueryHeads != p.numKvHeads)
    s += "; query heads not packed (" +
         (p.packBlocker.empty() ? std::string("gqa_pack = 1")
                                : p.packBlocker) +
         "): each query head reads its group's K and V";
  if (config.getKeyWarps() != 1)
    s += "; " + std::to_string(config.getKeyWarps()) +
         " warps share the rows and each takes " +
         std::to_string(config.getBlockK() / config.getKeyWarps()) + " of the " +
         std::to_string(config.getBlockK()) +
         " keys of a tile (key_warps), merged in shared memory";
  if (config.getSplitKv())
    s += "; key range split over thread blocks at run time (split_kv), "
         "partial results merged by the combine kernel";
  if (p.kvLens || p.kvFp8) {
    std::string parts;
    auto add = [&](const std::string &part) {
      parts += (parts.empty() ? "" : ", ") + part;
    };
    if (p.kvLens)
      add("per-sequence lengths (kv_lens)");
    if (p.pageSize)
      add("pages of " + std::to_string(p.pageSize) +
          " rows read through the page table");
    if (p.kvFp8)
      add(std::string("fp8 e4m3 codes converted in shared memory") +
          (config.getWgmma() ? " into f16 tiles by the producer warpgroup"
                             : "") +
          ", their scales folded into the scores and the output");
    const std::string pageBoxes =
        p.pageSize ? " (a box a page, or a key tile of a larger page)" : "";
    s += "; KV cache: " + parts +
         (config.getWgmma()
              ? ", by the wgmma kernel's TMA boxes" + pageBoxes +
                    ", scores past a sequence's length masked and V rows "
                    "there zeroed in its last key tile"
          : config.getTmaLoads()
              ? ", by the mma.sync kernel's TMA boxes" + pageBoxes +
                    ", V rows past a sequence's length zeroed"
              : std::string(", by the mma.sync kernel's row copies")) +
         (!config.getWgmma() && !config.getSplitKv() && (p.pageSize || p.kvFp8)
              ? " (the wgmma kernel reads 16-bit caches, and fp8 caches of "
                "head dims 128 without a block mask or mask_fn, contiguous or "
                "in pages of a multiple of 8 rows)"
              : "");
  }
  if (p.ragged)
    s += std::string("; ragged batch: each sequence's query rows") +
         (p.raggedKeys ? " and keys" : "") +
         " found from its offsets (cu_seqlens_q" +
         (p.raggedKeys ? ", cu_seqlens_k" : "") + ")" +
         (config.getWgmma()
              ? ", TMA boxes at the sequence's rows, V rows past its keys "
                "zeroed in its last key tile"
              : " by the prefill kernel's row copies") +
         " (the decode kernel does not take ragged batches)";
  return s;
}

FailureOr<gpu::GPUModuleOp>
attnc::convertTiledAttentionToGpu(ModuleOp module,
                                  scf::ParallelOp queryTiles) {
  FailureOr<TiledAttention> tiled = analyzeTiledAttention(queryTiles);
  if (failed(tiled))
    return failure();
  GpuKernelAttr config = tiled->config;
  const GpuTarget *target = GpuTarget::lookup(config.getChip());
  if (!target)
    return queryTiles.emitError("expected a supported chip (")
           << GpuTarget::supportedChips() << "), got \"" << config.getChip()
           << "\"";
  KernelProblem problem = KernelProblem::of(tiled->step);
  if (failed(target->checkSupport(problem)) ||
      failed(target->checkConfig(problem, config)))
    return failure();
  queryTiles.emitRemark("convert-attn-to-gpu: ")
      << target->chip() << " kernel (" << target->kernelFamily(config)
      << "), block_q = " << config.getBlockQ()
      << ", block_k = " << config.getBlockK() << ", " << config.getWarps()
      << " warps x " << config.getMTiles() << " m-tiles; "
      << target->tileStrategy(*tiled) << decodeRemark(problem, config);
  return target->buildKernel(module, *tiled);
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
    ModuleOp module = getOperation();
    SmallVector<AttentionOp> untiled;
    module.walk([&](AttentionOp op) { untiled.push_back(op); });
    for (AttentionOp op : untiled) {
      op.emitError("expected tiled attention IR: run attn-choose-gpu-kernel, "
                   "attn-tile and attn-skip-masked-tiles first (or the "
                   "attn-lower-to-nvvm pipeline)");
      return signalPassFailure();
    }
    SmallVector<scf::ParallelOp> queryTiles;
    module.walk([&](scf::ParallelOp loop) {
      bool hasStep = false;
      loop.walk([&](TileStepOp) { hasStep = true; });
      if (hasStep && !loop->getParentOfType<scf::ParallelOp>())
        queryTiles.push_back(loop);
    });
    if (queryTiles.size() != 1) {
      module.emitError("expected exactly one tiled attention, found ")
          << queryTiles.size();
      return signalPassFailure();
    }
    if (!queryTiles.front()->hasAttr(kGpuKernelAttrName)) {
      queryTiles.front().emitError("expected an ")
          << kGpuKernelAttrName
          << " attribute on the query tiles (run attn-choose-gpu-kernel "
             "before attn-tile, or set it by hand)";
      return signalPassFailure();
    }
    FailureOr<gpu::GPUModuleOp> kernel =
        convertTiledAttentionToGpu(module, queryTiles.front());
    if (failed(kernel))
      return signalPassFailure();
    ++numKernels;
    bool bounded = false;
    queryTiles.front().walk([&](TileStepOp step) {
      bounded |= step.getUnmasked();
    });
    if (bounded)
      ++numBoundedKeyLoops;
  }
};
} // namespace
