//===- FlashKernel.h - the flash-attention kernels ---------------*- C++ -*-===//
//
// The kernels of one tiled attention, in two families that share the masks,
// the key-tile ranges, the online softmax and the epilogue:
// - mma.sync (sm_80 and later, and the decode kernels): mma.sync m16n8k16
//   (bf16/f16 in, f32 accumulate), ldmatrix fragments, K/V tiles
//   double-buffered in shared memory with cp.async;
// - wgmma (sm_90a prefill, #attn.gpu_kernel wgmma = true): a TMA producer
//   warpgroup and consumer warpgroups on an mbarrier ring, wgmma.mma_async
//   from 128-byte swizzled tiles, the softmax overlapped with the GEMMs
//   (Wgmma.h).
// Either way the mask runs only on boundary key tiles and empty tiles are
// never loaded. Their parameters are those of the kernel ABI table
// (KernelAbi.h).
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_PASSES_CONVERSION_FLASHKERNEL_H
#define ATTNC_PASSES_CONVERSION_FLASHKERNEL_H

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

/// Dynamic shared memory bytes of the kernel of `problem` with `config`:
/// mma.sync: `stages` K and V tiles with rows padded by 8 elements (16
/// bytes, so ldmatrix rows hit distinct banks), plus the Q tile when
/// q_in_smem; wgmma: SwizzledSmemLayout (Wgmma.h).
int64_t flashKernelSharedMemoryBytes(const KernelProblem &problem,
                                     attn::GpuKernelAttr config);

/// Whether the persistent kernel of `config` under a mask of `kind` splits
/// the items of its last, part-filled wave by keys (KernelAbi.h, tail
/// splits): the persistent wgmma kernel without a mask, whose items all
/// hold ceil(seq_k / block_k) key tiles, so that the runtime's splits
/// (at most that many) each hold one at least. (Masks order their items
/// by cost, or leave items of no key tile, which the consumers' turns do
/// not take.)
bool splitsPersistentTail(mask::MaskKind kind, attn::GpuKernelAttr config);

/// How the kernel of `t` visits and masks key tiles, in words (for
/// convert-attn-to-gpu's remark).
std::string flashKernelTileStrategy(const TiledAttention &t);

/// Builds `gpu.module @attnc_kernels` holding the kernel of the tiled
/// attention `t` with its configuration (block_q = 16 * m_tiles * warps) at
/// the end of `module` (which gets
/// gpu.container_module): the query tiles become the grid and the key-tile
/// loops the kernel's key loop. The caller checks support. With
/// `gridDependencies` (sm_90 and later) a split_kv kernel starts with
/// griddepcontrol.launch_dependents and its combine kernel with
/// griddepcontrol.wait. A `minBlocks` above 0 (not with wgmma) becomes the
/// kernel's nvvm.minctasm.
mlir::FailureOr<mlir::gpu::GPUModuleOp>
buildFlashKernel(mlir::ModuleOp module, const TiledAttention &t,
                 bool gridDependencies, int64_t minBlocks = 0);

/// Builds the body of the split-KV combine kernel (KernelAbi.h
/// kCombineKernel; `func` takes the ABI table's parameters) of an attention
/// with `p`'s heads, value head dim and element type, whose split kernel
/// has tiles of `blockQ` packed rows of `pack` query heads (gqa_pack);
/// `writesLse` when the attention returns its LSE.
void buildSplitKvCombine(mlir::ImplicitLocOpBuilder &b,
                         mlir::gpu::GPUFuncOp func, const KernelProblem &p,
                         int64_t blockQ, int64_t pack, bool writesLse);

} // namespace attnc

#endif // ATTNC_PASSES_CONVERSION_FLASHKERNEL_H
