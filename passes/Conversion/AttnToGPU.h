//===- AttnToGPU.h - attn.attention to a tensor-core kernel -----*- C++ -*-===//
//
// Generates the sm_80-class flash-attention kernel of one attn.attention:
// a gpu.func using mma.sync m16n8k16 (bf16/f16 in, f32 accumulate), with
// the mask computed only on boundary key tiles and empty tiles never
// loaded. Its ABI is the runtime's (docs/runtime.md).
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_PASSES_CONVERSION_ATTNTOGPU_H
#define ATTNC_PASSES_CONVERSION_ATTNTOGPU_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::gpu {
class GPUModuleOp;
} // namespace mlir::gpu

namespace attnc {
namespace attn {
class AttentionOp;
} // namespace attn

#define GEN_PASS_DECL
#include "passes/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "passes/Conversion/Passes.h.inc"

/// Launch shape of a generated kernel.
struct GpuKernelConfig {
  /// Query rows per thread block (16 per warp) and keys per tile.
  int64_t blockQ = 128;
  int64_t blockK = 64;
  int64_t warps = 8;
  /// 16-row m-tiles per warp (blockQ = 16 * mTiles * warps); with 2, each
  /// K and V fragment loaded from shared memory serves two mma.
  int64_t mTiles = 1;
  /// Stage the Q tile in shared memory and read its fragments in every key
  /// tile instead of holding them in registers.
  bool qInSharedMemory = false;
  std::string kernelName = "attnc_attention";

  int64_t threads() const { return warps * 32; }
};

/// The configuration with one m-tile per warp (8 warps, 128 rows): fewer
/// registers, for when the preferred one spills.
GpuKernelConfig singleTileGpuKernelConfig(attn::AttentionOp op);

/// The symbol of the kernel's dynamic shared memory.
inline constexpr llvm::StringLiteral kSharedMemoryName = "attnc_smem";

/// Dynamic shared memory bytes a kernel for `op` with `config` needs: two
/// stages of a K and a V tile with rows padded by 8 elements.
int64_t gpuSharedMemoryBytes(attn::AttentionOp op,
                             const GpuKernelConfig &config);

/// Picks the configuration for `op`: 8 warps (128 query rows) per block,
/// key tile 32 when D + Dv > 256.
GpuKernelConfig chooseGpuKernelConfig(attn::AttentionOp op);

/// Checks that `op` can become a GPU kernel (bf16/f16, head dims multiples
/// of 16 up to 256); emits an error naming what is unsupported otherwise.
mlir::LogicalResult checkGpuSupport(attn::AttentionOp op);

/// Builds `gpu.module @attnc_kernels` holding the kernel of `op` at the end
/// of `module` (which gets gpu.container_module).
mlir::FailureOr<mlir::gpu::GPUModuleOp>
buildAttentionKernel(mlir::ModuleOp module, attn::AttentionOp op,
                     const GpuKernelConfig &config);

} // namespace attnc

#endif // ATTNC_PASSES_CONVERSION_ATTNTOGPU_H
