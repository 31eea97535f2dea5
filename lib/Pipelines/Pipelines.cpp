//===- Pipelines.cpp - attnc's pass pipelines -----------------------------===//
//
// Stage builders over typed addPass calls, and the registered pipelines.
// The GPU stages lower only the kernel's gpu.module: the host side keeps the
// attn.attention op (the runtime launches the kernel), so upstream's
// buildLowerToNVVMPassPipeline, which lowers host code too, does not apply.
//
//===----------------------------------------------------------------------===//

#include "attnc/Pipelines.h"

#include "passes/Conversion/AttnToGPU.h"
#include "passes/Transforms/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVM/NVVM/Utils.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace attnc;

void attnc::buildAttnTilePipeline(OpPassManager &pm,
                                  const TilePipelineOptions &options) {
  AttnTileOptions tile;
  tile.blockQ = options.blockQ;
  tile.blockK = options.blockK;
  pm.addPass(createAttnTile(tile));
  if (options.skipMaskedTiles)
    pm.addPass(createAttnSkipMaskedTiles());
  pm.addPass(createCSEPass());
}

void attnc::buildTiledToLoopsPipeline(OpPassManager &pm) {
  pm.addPass(createAttnDecomposeOnlineSoftmax());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

void attnc::buildLoopsToLLVMPipeline(OpPassManager &pm) {
  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createConvertVectorToLLVMPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertMathToLibmPass());
  arith::ArithExpandOpsPassOptions expand;
  expand.includeBf16 = true;
  pm.addPass(arith::createArithExpandOpsPass(expand));
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

void attnc::buildChooseGpuKernelPipeline(OpPassManager &pm,
                                         const std::string &chip) {
  AttnChooseGpuKernelOptions choose;
  choose.chip = chip;
  pm.addPass(createAttnChooseGpuKernel(choose));
}

void attnc::buildKernelToNVVMPipeline(OpPassManager &pm,
                                      const std::string &chip,
                                      const std::string &features) {
  GpuNVVMAttachTargetOptions target;
  target.chip = chip;
  target.features = features;
  target.optLevel = 3;
  pm.addPass(createGpuNVVMAttachTarget(target));
  OpPassManager &kernel = pm.nest<gpu::GPUModuleOp>();
  kernel.addPass(createSCFToControlFlowPass());
  kernel.addPass(createConvertGpuOpsToNVVMOps());
  // NVVM ops defined by their PTX (wgmma.mma_async, fence.proxy) become
  // inline assembly.
  kernel.addPass(createConvertNVVMToLLVMPass());
  kernel.addPass(createAttnMarkTensorMapParams());
  kernel.addPass(createCanonicalizerPass());
  kernel.addPass(createCSEPass());
  kernel.addPass(createReconcileUnrealizedCastsPass());
}

std::string attnc::cudaToolkitPath() {
  StringRef path = NVVM::getCUDAToolkitPath();
  return path.empty() ? std::string("/usr/local/cuda") : path.str();
}

void attnc::buildNVVMToPTXPipeline(OpPassManager &pm) {
  GpuModuleToBinaryPassOptions binary;
  binary.toolkitPath = cudaToolkitPath();
  binary.compilationTarget = "isa";
  pm.addPass(createGpuModuleToBinaryPass(binary));
}

namespace {
struct AttnLowerToLLVMOptions : PassPipelineOptions<AttnLowerToLLVMOptions> {
  Option<int64_t> blockQ{*this, "block-q",
                         llvm::cl::desc("Query rows per tile"),
                         llvm::cl::init(64)};
  Option<int64_t> blockK{*this, "block-k", llvm::cl::desc("Keys per tile"),
                         llvm::cl::init(64)};
  Option<bool> skip{*this, "skip-masked-tiles",
                    llvm::cl::desc("Skip key tiles the mask hides"),
                    llvm::cl::init(true)};
};

struct AttnLowerToNVVMOptions : PassPipelineOptions<AttnLowerToNVVMOptions> {
  Option<std::string> chip{*this, "chip",
                           llvm::cl::desc("Target chip: sm_80 or sm_90a"),
                           llvm::cl::init("sm_90a")};
  Option<std::string> features{*this, "features",
                               llvm::cl::desc("PTX features"),
                               llvm::cl::init("+ptx80")};
};
} // namespace

void attnc::registerAttnPipelines() {
  PassPipelineRegistration<AttnLowerToLLVMOptions>(
      "attn-lower-to-llvm",
      "attn IR to the LLVM dialect on the host: tile, skip masked tiles, "
      "decompose the online softmax, lower with upstream passes",
      [](OpPassManager &pm, const AttnLowerToLLVMOptions &o) {
        buildAttnTilePipeline(pm, {o.blockQ, o.blockK, o.skip});
        buildTiledToLoopsPipeline(pm);
        buildLoopsToLLVMPipeline(pm);
      });
  PassPipelineRegistration<AttnLowerToNVVMOptions>(
      "attn-lower-to-nvvm",
      "attn IR to an NVVM kernel: choose the #attn.gpu_kernel configuration "
      "for the chip, tile and skip masked tiles, build the kernel from the "
      "tiled IR (convert-attn-to-gpu), lower its gpu.module to NVVM",
      [](OpPassManager &pm, const AttnLowerToNVVMOptions &o) {
        buildChooseGpuKernelPipeline(pm, o.chip);
        // The tile sizes are the kernel's (attn.tile_sizes, set with the
        // configuration).
        buildAttnTilePipeline(pm, {64, 64, /*skipMaskedTiles=*/true});
        pm.addPass(createConvertAttnToGPU());
        buildKernelToNVVMPipeline(pm, o.chip, o.features);
      });
}
