//===- AttnToGPU.h - attn.attention to GPU kernels --------------*- C++ -*-===//
//
// The passes that take attn.attention to a GPU kernel: attn-choose-gpu-kernel
// attaches the target's #attn.gpu_kernel configuration; after attn-tile and
// attn-skip-masked-tiles, convert-attn-to-gpu lowers the tiled IR to the
// kernel the configuration describes, through the target's hooks
// (GpuTarget.h).
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_PASSES_CONVERSION_ATTNTOGPU_H
#define ATTNC_PASSES_CONVERSION_ATTNTOGPU_H

#include "passes/Conversion/GpuTarget.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace attnc {

#define GEN_PASS_DECL
#include "passes/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "passes/Conversion/Passes.h.inc"

/// Attaches `target`'s preferred #attn.gpu_kernel to `op` unless it has one;
/// checks support and the configuration (errors name the chip).
mlir::LogicalResult chooseGpuKernel(attn::AttentionOp op,
                                    const GpuTarget &target);

/// Builds the kernel of the tiled attention under `queryTiles` (the
/// scf.parallel of attn-tile carrying #attn.gpu_kernel, after
/// attn-skip-masked-tiles) into `module` through its chip's target, with a
/// remark naming the kernel family, the configuration and the key-tile
/// strategy.
mlir::FailureOr<mlir::gpu::GPUModuleOp>
convertTiledAttentionToGpu(mlir::ModuleOp module,
                           mlir::scf::ParallelOp queryTiles);

} // namespace attnc

#endif // ATTNC_PASSES_CONVERSION_ATTNTOGPU_H
