//===- Sm80Kernel.h - the mma.sync flash-attention kernel -------*- C++ -*-===//
//
// The sm_80-class kernel: mma.sync m16n8k16 (bf16/f16 in, f32 accumulate),
// ldmatrix fragments, K/V tiles double-buffered in shared memory with
// cp.async, the mask only on boundary key tiles, empty tiles never loaded.
// Its parameters are those of the kernel ABI table (KernelAbi.h).
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_PASSES_CONVERSION_SM80KERNEL_H
#define ATTNC_PASSES_CONVERSION_SM80KERNEL_H

#include "dialects/Attn/AttnDialect.h"
#include "passes/Conversion/TiledAttention.h"

#include "mlir/IR/BuiltinOps.h"

#include <string>

namespace mlir {
class ImplicitLocOpBuilder;
namespace gpu {
class GPUFuncOp;
class GPUModuleOp;
} // namespace gpu
} // namespace mlir

namespace attnc {

/// The kernel's symbol.
inline constexpr llvm::StringLiteral kKernelName = "attnc_attention";
/// The symbol of the kernel's dynamic shared memory.
inline constexpr llvm::StringLiteral kSharedMemoryName = "attnc_smem";

/// Dynamic shared memory bytes of the mma.sync kernel of `op` with `config`:
/// `stages` K and V tiles with rows padded by 8 elements (16 bytes, so
/// ldmatrix rows hit distinct banks), plus the Q tile when q_in_smem.
int64_t mmaSyncSharedMemoryBytes(const KernelProblem &problem,
                                 attn::GpuKernelAttr config);

/// How the mma.sync kernel of `t` visits and masks key tiles, in words (for
/// convert-attn-to-gpu's remark).
std::string mmaSyncTileStrategy(const TiledAttention &t);

/// Builds `gpu.module @attnc_kernels` holding the mma.sync kernel of the
/// tiled attention `t` with its configuration (block_q = 16 * m_tiles *
/// warps, stages = 2) at the end of `module` (which gets
/// gpu.container_module): the query tiles become the grid and the key-tile
/// loops the kernel's key loop. The caller checks support.
mlir::FailureOr<mlir::gpu::GPUModuleOp>
buildMmaSyncKernel(mlir::ModuleOp module, const TiledAttention &t);

/// Builds the body of the split-KV combine kernel (KernelAbi.h
/// kCombineKernel; `func` takes the ABI table's parameters) of an attention
/// with `p`'s heads, value head dim and element type; `writesLse` when the
/// attention returns its LSE.
void buildSplitKvCombine(mlir::ImplicitLocOpBuilder &b,
                         mlir::gpu::GPUFuncOp func, const KernelProblem &p,
                         bool writesLse);

} // namespace attnc

#endif // ATTNC_PASSES_CONVERSION_SM80KERNEL_H
