//===- MaskCodegen.h - mask and score arithmetic as IR ----------*- C++ -*-===//
//
// Emits the element-wise mask, the score pipeline and the per-query-tile key
// ranges of attn masks as index/arith IR. Shared by the CPU decomposition
// and the GPU kernel generator; operand reads go through callbacks so each
// target loads from its own kind of buffer (memrefs, raw pointers).
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_PASSES_TRANSFORMS_MASKCODEGEN_H
#define ATTNC_PASSES_TRANSFORMS_MASKCODEGEN_H

#include "attnc/Mask/MaskSemantics.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"

#include <functional>

namespace attnc {

/// What the mask and score code reads, and how.
struct MaskScoreContext {
  mask::MaskSpec spec;
  /// Index values of the (batch, query head) being computed and the lengths.
  mlir::Value batch, head, seqQ, seqK;
  /// seq_ids[b, pos] (i32), cu_seqlens[i] (i32) with its length (index),
  /// block_mask[b', h', r, c] (i8) with its batch and head sizes (index),
  /// alibi_slopes[h] (f32). Only those the mask and scores read are set.
  std::function<mlir::Value(mlir::ImplicitLocOpBuilder &, mlir::Value,
                            mlir::Value)>
      loadSeqId;
  std::function<mlir::Value(mlir::ImplicitLocOpBuilder &, mlir::Value)>
      loadCuSeqlen;
  mlir::Value numCuSeqlens;
  std::function<mlir::Value(mlir::ImplicitLocOpBuilder &, mlir::Value,
                            mlir::Value, mlir::Value, mlir::Value)>
      loadBlockMask;
  mlir::Value blockMaskB, blockMaskH;
  std::function<mlir::Value(mlir::ImplicitLocOpBuilder &, mlir::Value)>
      loadSlope;
  /// The ALiBi slope of `head`, when computed once up front (see
  /// buildAlibiSlope); otherwise buildScore looks it up per element.
  mlir::Value slope;
  /// tanh of a score being soft-capped: math.tanh when unset; the GPU
  /// kernels give the hardware's tanh.approx.f32 (one MUFU instruction,
  /// relative error about 2^-11).
  std::function<mlir::Value(mlir::ImplicitLocOpBuilder &, mlir::Value)> tanh;
  /// Score modifications: scale, soft-cap, ALiBi slopes attribute, regions.
  double scale = 1.0;
  mlir::FloatAttr softcap;
  mlir::DenseF32ArrayAttr alibi;
  mlir::Region *maskFn = nullptr;
  mlir::Region *scoreFn = nullptr;
};

/// Per query row state of the mask, computed once before the row's keys.
struct RowMask {
  mlir::Value lo, hi;           // interval masks: visible keys [lo, hi)
  mlir::Value pos, posValid;    // documents: the row's key position
  mlir::Value docId;            // seq_ids documents: the row's document id
  mlir::Value docStart, docEnd; // cu_seqlens documents: the row's document
  mlir::Value blockRow, maskB, maskH; // block-sparse: block row, batch, head
};

/// Emits the per-row mask state of query `row`.
RowMask buildRowMask(mlir::ImplicitLocOpBuilder &b, const MaskScoreContext &c,
                     mlir::Value row);

/// Emits whether key `col` is visible to `row` (i1); null when the mask
/// hides nothing.
mlir::Value buildVisible(mlir::ImplicitLocOpBuilder &b,
                         const MaskScoreContext &c, const RowMask &m,
                         mlir::Value row, mlir::Value col);

/// Emits the score pipeline after the dot product (f32): scale, soft-cap,
/// ALiBi, score region; times `outScale` (the GPU kernels' log2(e)), which
/// joins the cap's multiply when soft-capping is the last step.
mlir::Value buildScore(mlir::ImplicitLocOpBuilder &b, const MaskScoreContext &c,
                       mlir::Value dot, mlir::Value row, mlir::Value col,
                       double outScale = 1.0);

/// Emits the ALiBi slope of the context's head (attribute table or slopes
/// operand), or null without ALiBi.
mlir::Value buildAlibiSlope(mlir::ImplicitLocOpBuilder &b,
                            const MaskScoreContext &c);

/// Emits the start and end of the document around key position `pos`
/// (which must be in [0, Sk)) by scanning cu_seqlens.
std::pair<mlir::Value, mlir::Value>
buildDocumentAround(mlir::ImplicitLocOpBuilder &b, const MaskScoreContext &c,
                    mlir::Value pos);

/// Key tiles of one query tile: [lo, hi) hold a visible key, [fullLo, fullHi)
/// are entirely visible (lo <= fullLo <= fullHi <= hi).
struct KeyTileRange {
  mlir::Value lo, fullLo, fullHi, hi;
};

/// True when buildKeyTileRange can bound the key tiles of `spec`: the
/// interval masks (closed form) and cu_seqlens documents (run time).
bool canBoundKeyTiles(const mask::MaskSpec &spec);

/// Emits the key-tile range of the query rows [qFirst, qLast] (both valid)
/// for tiles of `blockK` keys, `numTiles` in all.
KeyTileRange buildKeyTileRange(mlir::ImplicitLocOpBuilder &b,
                               const MaskScoreContext &c, mlir::Value qFirst,
                               mlir::Value qLast, mlir::Value numTiles,
                               int64_t blockK);

/// How a tile is classified at run time for masks with no key-tile bounds.
enum class TileTest {
  /// A mask_fn built from linear comparisons of q and k (and, or, not):
  /// evaluating it at the tile's four corners decides full and empty tiles.
  AffineCorners,
  /// A mask_fn of any other form: evaluated on every pair of the tile.
  RegionScan,
  /// seq_ids documents: the id ranges of the tile's rows and keys.
  DocumentIds,
  /// Block-sparse masks: the block-mask entries the tile overlaps.
  BlockTable,
  /// Nothing to classify with.
  None,
};

/// The run-time tile test available for `c` (None for masks with bounds or
/// without structure).
TileTest chooseTileTest(const MaskScoreContext &c);

/// Flags of a tile: no visible pair (empty), every pair visible (full). Each
/// is set only when proven, so partial is always a safe answer.
struct TileFlags {
  mlir::Value empty, full;
};

/// Emits `test` for the rows [qFirst, qLast] and keys [kFirst, kLast] (all
/// valid indices).
TileFlags buildTileTest(mlir::ImplicitLocOpBuilder &b,
                        const MaskScoreContext &c, TileTest test,
                        mlir::Value qFirst, mlir::Value qLast,
                        mlir::Value kFirst, mlir::Value kLast);

namespace attn {
class TileStepOp;
} // namespace attn

/// What of a tile step's context does not depend on how operands are read:
/// the mask, the scale, soft-cap and ALiBi attributes, and the regions.
MaskScoreContext makeTileStepScores(attn::TileStepOp op);

/// The key sequence length Sk of a key buffer: its dim 2, or with a page
/// table ([B, max_pages]; key pages [num_pages, page_size, Hkv, D])
/// max_pages * page_size.
mlir::Value keySeqLen(mlir::ImplicitLocOpBuilder &b, mlir::Value key,
                      mlir::Value pageTable);

/// kv_lens[batch] (`kvLens` an i32 memref [B]) as an index clamped to
/// [0, seqK]: the key count of that batch entry (attn.attention's kv_lens).
mlir::Value clampedKvLen(mlir::ImplicitLocOpBuilder &b, mlir::Value kvLens,
                         mlir::Value batch, mlir::Value seqK);

/// The rows of sequence `n` of a ragged batch: offsets cu[n] and cu[n + 1]
/// (i32, read by `loadOffset`) clamped so that start in [0, total] and end in
/// [start, total]; `len` = end - start (index values).
struct SequenceSpan {
  mlir::Value start, len;
};
SequenceSpan raggedSpan(
    mlir::ImplicitLocOpBuilder &b,
    const std::function<mlir::Value(mlir::ImplicitLocOpBuilder &, mlir::Value)>
        &loadOffset,
    mlir::Value n, mlir::Value total);

/// raggedSpan of sequence `n` of an i32 memref of offsets.
SequenceSpan raggedSpan(mlir::ImplicitLocOpBuilder &b, mlir::Value cuSeqlens,
                        mlir::Value n, mlir::Value total);

/// The context of an attn.tile_step: its mask and scores, reading the
/// operands from its memrefs. In a ragged batch seqQ and seqK are the
/// step's sequence's lengths.
MaskScoreContext makeTileStepContext(mlir::ImplicitLocOpBuilder &b,
                                     attn::TileStepOp op);

} // namespace attnc

#endif // ATTNC_PASSES_TRANSFORMS_MASKCODEGEN_H
