//===- TiledAttention.h - the tiled IR a GPU kernel is built from -*- C++ -*-===//
//
// convert-attn-to-gpu lowers the tiled IR of attn-tile and
// attn-skip-masked-tiles: the query-tile scf.parallel (carrying
// #attn.gpu_kernel) becomes the grid, and its key-tile loops become the
// kernel's key loop. Which key tiles are visited and which are unmasked is
// read from that IR (the loop bounds, the run-time tile test's scf.if
// conditions and the `unmasked` steps) and rematerialised in the kernel:
// the conversion decides nothing about tile emptiness itself.
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_PASSES_CONVERSION_TILEDATTENTION_H
#define ATTNC_PASSES_CONVERSION_TILEDATTENTION_H

#include "dialects/Attn/AttnDialect.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"

#include <functional>
#include <string>

namespace attnc {

/// The sizes and element type of one attention, read from attn.attention or
/// from its tile steps: what GPU targets check and configure.
struct KernelProblem {
  mlir::Operation *op = nullptr;
  mlir::Type elementType;
  int64_t headDim = 0, valueHeadDim = 0, numQueryHeads = 0, numKvHeads = 0;
  /// The query length when static, else mlir::ShapedType::kDynamic.
  int64_t seqQ = 0;
  /// The attention is marked as a decode step (attn.decode).
  bool decode = false;
  /// The mask's key tiles are tested at run time (a block mask, a
  /// mask_fn region), not bounded in closed form.
  bool tileTested = false;
  /// There is no mask (every key tile is full).
  bool noMask = false;
  /// A sliding window's keys per query row (left + right + 1), 0 for
  /// other masks.
  int64_t windowKeys = 0;
  /// A block mask's keys per block, 0 for other masks.
  int64_t maskBlockKeys = 0;
  /// A causal or prefix-LM mask without a per-score bias (ALiBi, a
  /// score_fn region): boundary tiles keep each score by two compares of
  /// its column against the row's bounds, and nothing else a score.
  bool intervalMask = false;
  /// A causal mask, and nothing else on the scores (no bias, soft-cap or
  /// score_fn region).
  bool plainCausal = false;
  /// A causal mask whose scores are soft-capped, with no bias (ALiBi, a
  /// score_fn region).
  bool cappedCausal = false;
  /// Documents given by cu_seqlens: each row sees its document's keys (up to
  /// its own under a causal mask), bounds the kernel finds at run time.
  bool documentRanges = false;
  /// documentRanges under a causal mask within each document.
  bool causalDocuments = false;
  /// The scores are soft-capped, with no bias after the cap, at a cap
  /// small enough for the softmax to take the largest score the cap allows
  /// as every row's reference (softcapBoundsWeights in TiledAttention.cpp): no
  /// row maximum.
  bool cappedReference = false;
  /// The attention has per-sequence KV lengths (kv_lens).
  bool kvLens = false;
  /// Rows of a page of a paged cache (page_table), 0 when contiguous.
  int64_t pageSize = 0;
  /// Keys and values are fp8 e4m3 (kv_scales).
  bool kvFp8 = false;
  /// A ragged batch: queries packed by cu_seqlens_q, and keys by
  /// cu_seqlens_k when raggedKeys.
  bool ragged = false, raggedKeys = false;
  /// Why the query heads of a KV group cannot share the rows of a tile
  /// (gqa_pack): a feature that differs per head, or "" when they can.
  std::string packBlocker;

  static KernelProblem of(attn::AttentionOp op);
  static KernelProblem of(attn::TileStepOp step);
  mlir::InFlightDiagnostic emitError(const llvm::Twine &message) const {
    return op->emitError(message);
  }
};

/// The tiled form of one attention, as attn-tile and attn-skip-masked-tiles
/// leave it.
struct TiledAttention {
  /// How the key tiles of a query tile are chosen.
  enum class KeyLoop {
    /// Three loops: [lo, fullLo) boundary, [fullLo, fullHi) unmasked,
    /// [fullHi, hi) boundary (closed-form or cu_seqlens bounds).
    Split,
    /// One loop over [lo, hi) whose step is guarded by a run-time tile test:
    /// `scf.if any { scf.if full { unmasked step } else { step } }`.
    TileTest,
    /// One loop, every tile with the element-wise mask.
    Elementwise,
  };

  mlir::scf::ParallelOp queryTiles;
  attn::GpuKernelAttr config;
  /// A step (all steps of the attention are alike but for `unmasked`).
  attn::TileStepOp step;
  attn::TileFinalizeOp finalize;
  KeyLoop keyLoop = KeyLoop::Elementwise;
  /// Split: the three loops in order; otherwise loops[0].
  mlir::scf::ForOp loops[3];
  /// TileTest: the guards.
  mlir::scf::IfOp anyTile, fullTile;
  /// TileTest: what the test is (`attn.tile_test` of the guard).
  std::string tileTest;

  /// The GPU kernels test key tiles at run time (a region scan is not run
  /// there: those tiles stay element-wise).
  bool testsTilesAtRunTime() const {
    return keyLoop == KeyLoop::TileTest && tileTest != "region_scan";
  }
};

/// Finds the tiled attention under `queryTiles` (an scf.parallel with
/// attn.gpu_kernel); emits an error when the IR is not of that form.
mlir::FailureOr<TiledAttention> analyzeTiledAttention(
    mlir::scf::ParallelOp queryTiles);

/// Clones the host computation of index values (loop bounds, tile-test
/// conditions) into the kernel. Values are looked up in a mapping; the
/// dimensions and elements of the attention's operand memrefs are supplied
/// by callbacks (the kernel reads them through its parameters).
class Rematerializer {
public:
  using DimFn = std::function<mlir::Value(mlir::Value memref, int64_t dim)>;
  using LoadFn = std::function<mlir::Value(
      mlir::ImplicitLocOpBuilder &, mlir::Value memref, mlir::ValueRange)>;

  Rematerializer(mlir::ImplicitLocOpBuilder &b, llvm::ArrayRef<mlir::Value>
                                                    operandMemrefs,
                 DimFn dimOf, LoadFn loadOf)
      : b(b), operands(operandMemrefs.begin(), operandMemrefs.end()),
        dimOf(std::move(dimOf)), loadOf(std::move(loadOf)) {}

  /// `v` in the kernel at the builder's insertion point, cloning what it
  /// depends on (through `map`, which also receives the clones). Fails with
  /// an error on a value the kernel cannot compute (a memref, a block
  /// argument that is not mapped).
  mlir::FailureOr<mlir::Value> get(mlir::Value v, mlir::IRMapping &map);

private:
  bool isOperand(mlir::Value v) const {
    return llvm::is_contained(operands, v);
  }
  /// Rewrites memref.dim / memref.load of operands inside `op`'s regions.
  void rewriteOperandAccesses(mlir::Operation *op);

  mlir::ImplicitLocOpBuilder &b;
  llvm::SmallVector<mlir::Value> operands;
  DimFn dimOf;
  LoadFn loadOf;
};

} // namespace attnc

#endif // ATTNC_PASSES_CONVERSION_TILEDATTENTION_H
