//===- MmaSync.h - the pieces of the sm_80-class kernel ---------*- C++ -*-===//
//
// The building blocks of the mma.sync kernel, each usable by other
// schedules of the same instructions (a split-KV decode kernel, say):
//
//   PaddedSmemLayout      where K, V and Q tiles sit in dynamic shared memory
//   MmaSyncEmitter        mma.sync m16n8k16, ldmatrix, fragment packing and
//                         the reductions over the lanes of a fragment row
//   MmaAccumulatorLayout  which row slot and column each C-fragment register
//                         of a warp holds
//   CpAsyncTileCopier     rows of a strided global tensor into a shared tile
//                         with cp.async (16-byte chunks, zero fill)
//   CpAsyncKeyLoop       the key-loop schedule: tile kt + 1 in flight while
//                         tile kt is computed, empty tiles skipped
//   storeOutputRows       the epilogue: O = acc / l and the LSE of a warp's
//                         rows
//
// Fragment layouts follow the PTX ISA, "Matrix Fragments for mma.m16n8k16
// with floating point type": with lane = 4 g + t, A (16x16, row) registers
// hold (g, 2t..2t+1), (g+8, 2t..), (g, 2t+8..), (g+8, 2t+8..); B (16x8, col)
// registers hold (k = 2t..2t+1, n = g) and (k = 2t+8.., n = g); C holds
// (g, 2t..2t+1) and (g+8, 2t..).
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_PASSES_CONVERSION_MMASYNC_H
#define ATTNC_PASSES_CONVERSION_MMASYNC_H

#include "dialects/Attn/AttnDialect.h"

#include "mlir/IR/ImplicitLocOpBuilder.h"

#include <functional>

namespace attnc {

/// The dynamic shared memory of the mma.sync kernel: `stages` stages of a K
/// tile then a V tile, rows padded by 8 elements (16 bytes) so the 8 rows an
/// ldmatrix reads hit distinct banks; then, with q_in_smem, the Q tile.
struct PaddedSmemLayout {
  /// Row pitches in elements.
  int64_t kPitch = 0, vPitch = 0, qPitch = 0;
  /// Byte offsets: of V within a stage, of a stage, of the Q tile.
  int64_t vOffset = 0, stageBytes = 0, qOffset = 0;
  /// key_warps > 1: byte offsets of the merge buffers (f32): accumulators
  /// [key_warps, block_q, Dv], row maxima [key_warps, block_q] and each
  /// lane's partial row sums [key_warps, block_q, 4].
  int64_t mergeAccOffset = 0, mergeMOffset = 0, mergeLOffset = 0;
  /// The end of the merge buffers (0 with one key warp).
  int64_t mergeEnd = 0;
  /// An fp8 cache (kvFp8): the K/V tile of 16-bit elements is one buffer
  /// at byte 0 (stageBytes long), and the fp8 codes stream into `stages`
  /// staging stages of fp8StageBytes (K rows of fp8KPitch bytes, then V
  /// rows of Dv bytes) from byte fp8Offset, converted into the buffer tile
  /// by tile. With Q in registers (fp8KeysInRegisters) only V is converted
  /// there (the buffer holds V alone, vOffset 0; D a multiple of 32): the
  /// MMAs read the K codes
  /// with ldmatrix and convert them in registers, from rows padded by 16
  /// bytes (no bank conflicts).
  int64_t fp8Offset = 0, fp8StageBytes = 0, fp8KPitch = 0;
  bool fp8KeysInRegisters = false;
  /// Total bytes.
  int64_t bytes = 0;

  static PaddedSmemLayout get(int64_t headDim, int64_t valueHeadDim,
                              attn::GpuKernelAttr config, bool kvFp8 = false);
};

/// Emits mma.sync m16n8k16 (bf16/f16 in, f32 accumulate) and the fragment
/// traffic around it; `smem` is the base of the dynamic shared memory.
class MmaSyncEmitter {
public:
  MmaSyncEmitter(mlir::ImplicitLocOpBuilder &b, mlir::Type elementType,
                 mlir::Value smem)
      : b(b), elementType(elementType), smem(smem) {}

  /// The shared-memory address of byte `offset` (index).
  mlir::Value smemAt(mlir::Value offset);
  /// ldmatrix.x4 (b16, 8x8) at byte `offset`: four 32-bit registers, lane
  /// 8 m + r giving the address of row r of matrix m; `transpose` for
  /// B fragments of a row-major V tile.
  llvm::SmallVector<mlir::Value, 4> ldmatrix(mlir::Value offset,
                                             bool transpose);
  /// One mma.sync m16n8k16: C' = A B + C with A four and B two 32-bit
  /// registers of 16-bit pairs, C four f32.
  llvm::SmallVector<mlir::Value, 4> mma(llvm::ArrayRef<mlir::Value> aFrag,
                                        llvm::ArrayRef<mlir::Value> bFrag,
                                        llvm::ArrayRef<mlir::Value> c);
  /// Two f32 rounded to the element type and packed into one 32-bit
  /// register (low half first): a C fragment becomes an A fragment.
  mlir::Value packPair(mlir::Value lo, mlir::Value hi);
  /// Four float8 e4m3 codes (a 32-bit word, the lowest byte first) as two
  /// 32-bit registers of two elements each, exactly: codes 0, 1, then 2, 3
  /// (cvt.rn.f16x2.e4m3x2, sm_89 and later; through f32 for bf16).
  std::pair<mlir::Value, mlir::Value> convertFp8x4(mlir::Value word);
  /// Max or sum over the 4 lanes (t = 0..3) that hold one C-fragment row,
  /// by xor shuffles.
  mlir::Value quadReduce(mlir::Value v, bool isMax);

private:
  mlir::ImplicitLocOpBuilder &b;
  mlir::Type elementType;
  mlir::Value smem;
};

/// The C fragments of one warp: `mTiles` 16-row m-tiles, each with `nTiles`
/// 8-column n-tiles of 4 registers, flattened m-tile major. A lane holds two
/// rows of each m-tile, its "slots": slot 2 m + h is row 16 m + g + 8 h of
/// the warp's rows.
struct MmaAccumulatorLayout {
  int64_t mTiles = 1, nTiles = 1;

  int64_t registersPerMTile() const { return 4 * nTiles; }
  int64_t size() const { return mTiles * registersPerMTile(); }
  /// The row slot of register `i`.
  int64_t slot(int64_t i) const {
    return 2 * (i / registersPerMTile()) + ((i % registersPerMTile()) % 4) / 2;
  }
  /// The column of register `i` relative to the lane's 2 t: 8 n + (i % 2).
  int64_t column(int64_t i) const {
    int64_t w = i % registersPerMTile();
    return 8 * (w / 4) + (w % 2);
  }
};

/// Copies tiles with cp.async.cg: `rows` rows of `width` elements (16-bit)
/// as 16-byte chunks spread over `threads` threads.
class CpAsyncTileCopier {
public:
  /// Above this many 16-byte chunks per thread, a copy is a loop.
  static constexpr int64_t kMaxUnrolledChunks = 16;

  CpAsyncTileCopier(mlir::ImplicitLocOpBuilder &b, MmaSyncEmitter &emitter,
                    int64_t threads)
      : b(b), emitter(emitter), threads(threads) {}

  /// Rows [first, first + rows) of one head (row r at element r *
  /// `rowStride32` of the pointer `head`) into the shared tile at byte `dst`
  /// with a row pitch of `pitch` elements; rows at or past `count` are
  /// zero-filled (read from a valid row with a source size of 0). `tid` is
  /// the thread index.
  void copyRows(mlir::Value head, mlir::Value rowStride32, mlir::Value first,
                mlir::Value count, int64_t width, int64_t pitch,
                mlir::Value dst, mlir::Value tid, int64_t rows);
  /// The same copy with each row's address computed by `source(key,
  /// column, slot)` (a generic pointer to element `column` of row `key`,
  /// both index values, key in [0, count)): rows that are not evenly
  /// spaced, such as a paged cache's. `slot` is the chunk's round
  /// (chunk / threads) in straight-line code outside any guard, else -1:
  /// two copies of the same rows and width (K, then V) give a thread's
  /// key the same slot, so a source may reuse what it computed for it.
  void
  copyRowsFrom(llvm::function_ref<mlir::Value(mlir::Value key,
                                              mlir::Value column, int64_t slot)>
                   source,
               mlir::Value first, mlir::Value count, int64_t width,
               int64_t pitch, mlir::Value dst, mlir::Value tid, int64_t rows);
  /// cp.async.commit_group.
  void commit();
  /// cp.async.wait_group `pending`.
  void wait(int32_t pending);

private:
  mlir::ImplicitLocOpBuilder &b;
  MmaSyncEmitter &emitter;
  int64_t threads;
};

/// The key-loop schedule of the sm_80-class kernel: key tiles [lo, hi) in
/// order through a ring of `stages` shared-memory stages (two for 16-bit
/// tiles; up to four for the fp8 codes). Tiles kt + 1 .. kt + stages - 1
/// stream in with cp.async (one commit group per tile, possibly empty)
/// while tile kt is computed; a tile the hooks prove empty is neither
/// loaded nor computed.
class CpAsyncKeyLoop {
public:
  struct Hooks {
    /// Issues the copies of tile `kt` into stage `stage` (0 or 1).
    std::function<void(mlir::Value kt, mlir::Value stage)> issue;
    /// `cond` and tile `kt` holding a visible pair (`cond` itself when no
    /// tile in [lo, hi) is empty); evaluated only where `cond` says kt < hi.
    std::function<mlir::Value(mlir::Value kt, mlir::Value cond)> notEmpty;
    /// The work of tile `kt`, whose K and V sit at byte `stageBase`, once
    /// every thread sees them: the loop state in, the next state out.
    std::function<llvm::SmallVector<mlir::Value>(
        mlir::Value kt, mlir::Value stageBase, mlir::ValueRange state)>
        body;
    /// Whether every warp must be done with a tile's body before the next
    /// prefetch reuses its stage (false when the body itself ends its reads
    /// of the stage with a barrier, as the fp8 conversion does).
    bool barrierAfterBody = true;
  };

  CpAsyncKeyLoop(mlir::ImplicitLocOpBuilder &b, CpAsyncTileCopier &copier,
                 Hooks hooks, int64_t stageBytes, int64_t stages = 2)
      : hooks(std::move(hooks)), b(b), copier(copier), stageBytes(stageBytes),
        stages(stages) {}

  /// Issues tile `lo` into stage 0 when [lo, hi) has a tile to visit. The
  /// group is not committed: the caller may add copies, then commit.
  void prologue(mlir::Value lo, mlir::Value hi);
  /// After the caller's commit, with more than two stages: tiles lo + 1 ..
  /// lo + stages - 2 into stages 1.., one committed group each.
  void prologueRest(mlir::Value lo, mlir::Value hi);
  /// The loop over [lo, hi) from `inits`; returns the final state.
  mlir::ValueRange loop(mlir::Value lo, mlir::Value hi, mlir::ValueRange inits);

  /// The hooks (the body may be set after the prologue).
  Hooks hooks;

private:
  mlir::ImplicitLocOpBuilder &b;
  CpAsyncTileCopier &copier;
  int64_t stageBytes, stages;
};

/// Where and how the epilogue writes a warp's rows.
struct OutputRows {
  /// Per slot (MmaAccumulatorLayout): whether its row is stored (i1).
  llvm::SmallVector<mlir::Value> valid;
  /// Inside the row's store: the row's address state (e.g. the element
  /// offset of the lane's first column), built once per slot.
  std::function<mlir::Value(int64_t slot)> rowBase;
  /// Stores the f32 pair (x, y) of n-tile `j` (columns 2 t + 8 j, + 1).
  std::function<void(mlir::Value rowBase, int64_t j, mlir::Value x,
                     mlir::Value y)>
      storePair;
  /// Stores the slot's LSE (from lane t = 0); null without an LSE.
  std::function<void(int64_t slot, mlir::Value lse)> storeLse;
  /// Lane t (index) within its row's quad.
  mlir::Value laneInQuad;
  /// Optional 16-byte stores, taken where `wide` (i1, uniform over the
  /// block) holds at run time and a row has a multiple of 32 columns: the
  /// lanes of a quad trade their pairs (shuffles, outside the row's branch)
  /// so that each holds 8 adjacent columns. `wideRowBase`: the row's
  /// address state for column 0, once per slot; `storeWide`: the four
  /// packed words of columns `column` .. `column` + 7 (an index value).
  mlir::Value wide;
  std::function<mlir::Value(int64_t slot)> wideRowBase;
  std::function<void(mlir::Value rowBase, mlir::Value column,
                     mlir::ValueRange words)>
      storeWide;
  /// Optional stores through shared memory (staged_stores), taken where
  /// `wide` holds: `stageWord` writes the packed pair of n-tile `j` of the
  /// slot's row (every row, stored or not), then `flushStaged` stores the
  /// valid rows (its own tests) from there.
  std::function<void(int64_t slot, int64_t j, mlir::Value word)> stageWord;
  std::function<void()> flushStaged;
};

/// The epilogue of the sm_80-class kernel: for each valid row slot,
/// O = acc * outputScale(l) through `storePair` (or `storeWide`), and
/// (lane t = 0) the LSE (OnlineSoftmax.h). `m` and `lPartial` hold a value per
/// slot (`l` still summed over the lane's columns only); `acc` the C fragments.
void storeOutputRows(mlir::ImplicitLocOpBuilder &b, MmaSyncEmitter &emitter,
                     const MmaAccumulatorLayout &layout,
                     const OutputRows &out, mlir::ValueRange m,
                     mlir::ValueRange lPartial, mlir::ValueRange acc);

/// The i32 element offset row * stride32 + col (row and col index values).
mlir::Value rowOffset32(mlir::ImplicitLocOpBuilder &b, mlir::Value row,
                        mlir::Value stride32, mlir::Value col);
/// Element `index32` (i32) of the pointer `base`.
mlir::Value gep32(mlir::ImplicitLocOpBuilder &b, mlir::Value base,
                  mlir::Value index32, mlir::Type elementType);
/// Inline PTX `text` with LLVM `constraints`, of type `resultType` (none
/// and a null result for a null type); `sideEffects` keeps it where it is
/// (neither moved nor removed).
mlir::Value inlinePtx(mlir::ImplicitLocOpBuilder &b, mlir::Type resultType,
                      mlir::ValueRange operands, llvm::StringRef text,
                      llvm::StringRef constraints, bool sideEffects);

} // namespace attnc

#endif // ATTNC_PASSES_CONVERSION_MMASYNC_H
