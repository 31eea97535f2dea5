//===- AttnToGPU.h - attn.attention to GPU kernels --------------*- C++ -*-===//
//
// The passes that take attn.attention to a GPU kernel: attn-choose-gpu-kernel
// attaches the target's #attn.gpu_kernel configuration, convert-attn-to-gpu
// builds the kernel it describes through the target's hooks (GpuTarget.h).
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

/// Builds the kernel of `op` (which must carry #attn.gpu_kernel) into
/// `module` through its chip's target, with a remark naming the kernel
/// family, the configuration and the key-tile strategy.
mlir::FailureOr<mlir::gpu::GPUModuleOp>
convertAttentionToGpu(mlir::ModuleOp module, attn::AttentionOp op);

} // namespace attnc

#endif // ATTNC_PASSES_CONVERSION_ATTNTOGPU_H
