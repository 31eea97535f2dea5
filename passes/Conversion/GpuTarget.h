//===- GpuTarget.h - per-chip hooks of the GPU backend ----------*- C++ -*-===//
//
// What differs between GPU targets, behind one interface (in the manner of
// Triton's TargetInfo): which attentions a chip supports, the kernel
// configuration it picks (#attn.gpu_kernel), the checks on a configuration,
// shared-memory size, the kernel ABI and the kernel builder. sm_80 builds
// the mma.sync kernel; sm_90a builds the wgmma kernel for prefill and the
// mma.sync decode kernels, and the remark names the family, so every target
// choice is visible.
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_PASSES_CONVERSION_GPUTARGET_H
#define ATTNC_PASSES_CONVERSION_GPUTARGET_H

#include "dialects/Attn/AttnDialect.h"
#include "passes/Conversion/TiledAttention.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"

#include <optional>

namespace mlir::gpu {
class GPUModuleOp;
} // namespace mlir::gpu

namespace attnc {
namespace attn {
class AttentionOp;
} // namespace attn

using attn::kGpuKernelAttrName;

/// The hooks of one GPU target.
class GpuTarget {
public:
  virtual ~GpuTarget() = default;

  /// The target for `chip` ("sm_80", "sm_90a"), or null.
  static const GpuTarget *lookup(llvm::StringRef chip);
  /// The chips with a target, for messages.
  static llvm::StringRef supportedChips();

  /// The chip name, as in #attn.gpu_kernel and the manifest.
  virtual llvm::StringRef chip() const = 0;
  /// The PTX features the NVPTX backend needs for this target's kernels.
  virtual llvm::StringRef ptxFeatures() const { return "+ptx80"; }
  /// Largest dynamic shared memory of one block, in bytes.
  virtual int64_t maxSharedMemoryBytes() const = 0;
  /// Shared memory of one multiprocessor, in bytes (1 KiB of it reserved
  /// a resident block).
  virtual int64_t sharedMemoryPerMultiprocessor() const = 0;
  /// Whether the chip converts float8 e4m3 pairs in one instruction
  /// (cvt.rn.f16x2.e4m3x2, sm_89 and later): what an fp8 cache needs.
  virtual bool convertsFp8() const { return false; }
  /// Whether the chip has griddepcontrol (sm_90 and later): a split_kv
  /// kernel then lets its combine kernel launch while it runs
  /// (launch_dependents), and the combine waits for it (wait), so that the
  /// runtime may launch the combine with programmatic stream serialization
  /// (manifest key combine_waits).
  virtual bool controlsGridDependencies() const { return false; }
  /// The kind of kernel `config` builds on this target, for remarks.
  virtual llvm::StringRef kernelFamily(attn::GpuKernelAttr config) const = 0;

  /// Checks that `p` can run on this target; emits an error naming the
  /// chip and the unsupported feature otherwise.
  virtual mlir::LogicalResult checkSupport(const KernelProblem &p) const;
  /// The preferred configuration for `p`.
  virtual attn::GpuKernelAttr chooseConfig(const KernelProblem &p) const = 0;
  /// A configuration needing fewer registers than `config` (tried when
  /// ptxas reports spills), or std::nullopt when there is none. The
  /// compiler tries narrowStores(config) before it when `config` has
  /// wide_stores.
  virtual std::optional<attn::GpuKernelAttr>
  fallbackConfig(const KernelProblem &p,
                 attn::GpuKernelAttr config) const = 0;
  /// A second kernel of the artifact for short sequences (manifest key
  /// `short_kernel_max_seq`): the runtime launches it instead of the main
  /// one when seq_q and seq_k are both at most `maxSeq`.
  struct ShortSequenceKernel {
    attn::GpuKernelAttr config;
    int64_t maxSeq = 0;
  };
  /// The short-sequence kernel beside `config` (the main kernel's chosen
  /// configuration) for `p`, or std::nullopt (the default: one kernel).
  virtual std::optional<ShortSequenceKernel>
  shortSequenceKernel(const KernelProblem &p,
                      attn::GpuKernelAttr config) const {
    return std::nullopt;
  }
  /// `config` with 4-byte O stores (wide_stores and staged_stores false):
  /// every target's first fallback.
  static attn::GpuKernelAttr narrowStores(attn::GpuKernelAttr config);
  /// `config` with O stored through shared memory (staged_stores).
  static attn::GpuKernelAttr stagedStores(attn::GpuKernelAttr config);
  /// `config` on key tiles of `blockK` keys, all else kept.
  static attn::GpuKernelAttr withKeyTile(attn::GpuKernelAttr config,
                                         int64_t blockK);
  /// `config` with `stages` stages, built for `blocks` blocks a
  /// multiprocessor (blocks_per_sm), all else kept.
  static attn::GpuKernelAttr withResidentBlocks(attn::GpuKernelAttr config,
                                                int64_t stages, int64_t blocks);
  /// Checks `config` for `p` on this target (chip, stages, shared memory);
  /// emits an error naming the chip and the parameter otherwise.
  virtual mlir::LogicalResult checkConfig(const KernelProblem &p,
                                          attn::GpuKernelAttr config) const;
  /// Dynamic shared memory bytes of the kernel of `p` with `config`.
  virtual int64_t sharedMemoryBytes(const KernelProblem &p,
                                    attn::GpuKernelAttr config) const = 0;
  /// For a split_kv kernel, the resident blocks a multiprocessor that the
  /// runtime's split count aims at (manifest key split_blocks_per_sm; 0 for
  /// other kernels): enough for kSplitLoadsInFlight bytes of key/value
  /// loads in flight a multiprocessor, (stages - 1) tiles a block. More
  /// blocks than that add splits (partials, the combine, each block's
  /// prologue) without more bandwidth.
  virtual int64_t splitBlocksPerSm(const KernelProblem &p,
                                   attn::GpuKernelAttr config) const;
  /// For a split_kv kernel over a paged fp8 cache whose shared memory
  /// leaves room for at most two blocks a multiprocessor, that count (the
  /// kernel's nvvm.minctasm, so that ptxas may use the registers those
  /// blocks leave, up to 255); otherwise 0 (ptxas picks the registers).
  int64_t decodeMinBlocks(const KernelProblem &p,
                          attn::GpuKernelAttr config) const;
  /// Builds `gpu.module @attnc_kernels` with the kernel of the tiled
  /// attention `t` at the end of `module`. The kernel's parameters are
  /// those of KernelAbi.h.
  virtual mlir::FailureOr<mlir::gpu::GPUModuleOp>
  buildKernel(mlir::ModuleOp module, const TiledAttention &t) const = 0;
  /// How the kernel of `t` visits and masks key tiles, in words.
  virtual std::string tileStrategy(const TiledAttention &t) const = 0;
};

/// The #attn.gpu_kernel of `op`, or null when it has none.
attn::GpuKernelAttr getGpuKernelAttr(attn::AttentionOp op);

} // namespace attnc

#endif // ATTNC_PASSES_CONVERSION_GPUTARGET_H
