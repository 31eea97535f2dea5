//===- FlashKernelBuilder.h - the flash kernel builder -*- C++ -*- --------===//
//
// KernelBuilder, the class that builds a flash-attention kernel body for
// FlashKernel.cpp (buildFlashKernel), and its helpers. Its methods are
// defined in FlashKernel.cpp (the roles, the work items), FlashKernelLoads.cpp
// (the producer's TMA boxes and fp8 conversion), FlashKernelLoop.cpp (the
// wgmma GEMMs, tile tests and key loops, the merges of split rows),
// FlashKernelRows.cpp (the tile softmax, row masks and epilogue stores) and
// FlashKernelTile.cpp (the per-tile body and the layout of one work item).
// Private to passes/Conversion.
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_PASSES_CONVERSION_FLASHKERNELBUILDER_H
#define ATTNC_PASSES_CONVERSION_FLASHKERNELBUILDER_H

#include "passes/Conversion/FlashKernel.h"

#include "passes/Conversion/MmaSync.h"
#include "passes/Conversion/Wgmma.h"
#include "passes/Conversion/WorkList.h"

#include "attnc/Artifact/KernelAbi.h"
#include "dialects/Attn/AttnDialect.h"
#include "passes/Codegen/IndexArith.h"
#include "passes/Codegen/MaskCodegen.h"
#include "passes/Codegen/OnlineSoftmax.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"

#include <cmath>

namespace attnc::flash {

using namespace mlir;
using namespace attnc::attn;
using attnc::mask::MaskKind;

/// Unsigned arithmetic on i32 values (the persistent grid's numbering).
struct U32Arith {
  ImplicitLocOpBuilder &b;
  Value add(Value x, Value y) { return arith::AddIOp::create(b, x, y); }
  Value sub(Value x, Value y) { return arith::SubIOp::create(b, x, y); }
  Value mul(Value x, Value y) { return arith::MulIOp::create(b, x, y); }
  Value div(Value x, Value y) { return arith::DivUIOp::create(b, x, y); }
  Value ugt(Value x, Value y) {
    return arith::CmpIOp::create(b, arith::CmpIPredicate::ugt, x, y);
  }
  /// `v` as an index.
  Value index(Value v) {
    return arith::IndexCastUIOp::create(b, b.getIndexType(), v);
  }
};

/// Builds the kernel body. A lane holds 2 * m_tiles query rows ("slots"):
/// rows g and g + 8 of each of its warp's 16-row m-tiles.
class KernelBuilder {
public:
  /// With `gridDependencies` a split_kv kernel lets its combine kernel be
  /// scheduled once each block has left its key loop.
  KernelBuilder(ImplicitLocOpBuilder &b, const TiledAttention &t,
                gpu::GPUFuncOp func, bool gridDependencies)
      : b(b), a{b}, tiled(t), step(t.step), config(t.config), func(func),
        gridDependencies(gridDependencies) {}

  LogicalResult build();

private:
  /// Which threads the code being built runs on: every thread (the
  /// mma.sync kernels), or one side of the wgmma kernel's split: the
  /// producer lane or the consumer warpgroups.
  enum class Role { All, Producer, Consumer };
  /// The work of one (query tile, head, batch entry) for `role`; `indices`
  /// emits the three where the kernel first needs them.
  using WorkIndices = std::function<std::array<Value, 3>()>;
  LogicalResult buildTile(const WorkIndices &indices);
  /// The tiled IR's key-tile bounds and tile tests rematerialised in the
  /// kernel (kernelValue), as buildTile sets them up: its query tile's
  /// indices mapped to the work item's.
  std::optional<Rematerializer> remat;
  IRMapping hostToKernel;
  bool rematFailed = false;
  /// The wgmma kernel's key/value ring (buildTile).
  std::optional<TmaKeyLoop> tmaLoop;
  Value kernelValue(Value host, IRMapping &map);
  TileFlags tileFlags(Value kt);
  Value notEmpty(Value kt, Value cond);
  TileFlags guardedTileFlags(Value kt, Value hi);
  ValueRange overlappedWgmmaLoop(Value lo, Value hi, ValueRange inits,
                                 bool compacted);
  /// The wgmma consumers' GEMMs and their helpers, from `consumer`, which
  /// buildTile sets: the sequence's keys, the thread and its warpgroup,
  /// and with trim_keys the keys [wgKeyLo, wgKeyHi) the warpgroup's rows
  /// may see.
  struct ConsumerInputs {
    Value seqK, tid, lane, warpGroup, wgKeyLo, wgKeyHi;
    /// One thread of each warpgroup (i1), which releases a ring stage.
    Value releases;
    bool trimKeys = false;
    /// A persistent grid's Q released in the key loop (overlappedWgmmaLoop).
    bool earlyQ = false;
  } consumer;
  /// The mma.sync kernels' key tile (tileBody; buildTile sets it): Q's
  /// fragments [m-tile][k-step] (loaded once, or read from shared memory in
  /// each tile with q_in_smem), the lane parts of the ldmatrix addresses
  /// (setTileLanes), the warp's row group (key_warps; its keys' offset is
  /// scores.keyOffset), and fp8 keys in registers: the stage of the tile's
  /// codes (set before each body), whether Q K^T is an f16 MMA, and the emitter
  /// of Q K^T.
  struct MmaSyncTile {
    SmallVector<SmallVector<SmallVector<Value, 4>>> qFrag;
    Value qLane, kLane, vLane, mLow, mHigh, rIdx, rowWarp;
    Value kRowBytes, vRowBytes;
    SmallVector<Value, 4> kChunk, vChunk;
    Value kCodes;
    bool kInRegisters = false, f16Scores = false;
    MmaSyncEmitter *mmaK = nullptr;
  } mmaTile;
  void setTileLanes(Value lane, Value rowWarp);
  Value swizzledRow(Value laneRow);
  Value swizzledAt(Value laneRow, int64_t rows, int64_t chunk,
                   ArrayRef<Value> lanes);
  SmallVector<Value> tileBody(Value kt, Value stageBase, ValueRange it);
  void convertFp8Rows(MmaSyncEmitter &to, Value src, int64_t width,
                      int64_t pitch, int64_t dst, bool swizzledSrc = false);
  Value qSlab(Value tileOffset = nullptr);
  SmallVector<Value> issueQK(Value slab, Value stageBase);
  SmallVector<Value> packP(ArrayRef<Value> weights);
  void zeroVTail(Value kt, Value stageBase, Value codes = Value());
  SmallVector<Value> keyRangePV(ArrayRef<Value> p, Value stageBase,
                                ArrayRef<Value> acc, int64_t from, int64_t to);
  SmallVector<Value> issuePV(ArrayRef<Value> p, Value stageBase,
                             ArrayRef<Value> acc);
  SmallVector<Value> issuePVAt(ArrayRef<Value> p, Value stageBase,
                               ArrayRef<Value> acc, Value kt);
  /// The fp8 codes' conversion (convertsCodes), from `codes`, which
  /// buildTile sets: the producer warpgroup's first lane (i1) and the key
  /// tiles; keyRefill, the K codes converted in the current iteration,
  /// whose refill waits for its values (convertValues).
  struct CodeConversion {
    Value producerLane0, tid;
    KeyTileRange range;
  } codes;
  struct KeyRefill {
    Value kt, stage, round;
    SmallVector<Value> entries;
  };
  std::optional<KeyRefill> keyRefill;
  void loadCodes(bool values, Value kt, Value use, Value inRange,
                 ValueRange entries, bool keptEntries);
  void convertCodes(bool values, Value stage, Value full);
  void convertHalf(bool values, Value stage, Value round, Value full);
  void refill(bool values, Value kt, Value stage, Value round, Value cond,
              ValueRange entries);
  SmallVector<Value> codeEntries(Value kt);
  void convertKeys(Value kt, Value stage, Value round, Value full,
                   ValueRange entries);
  void convertValues(Value kt, Value stage, Value round, Value full);
  /// The key tiles' TMA boxes (defined below buildTile's helpers' banner),
  /// from keyBoxes, which buildTile sets: the KV head, the sequence's keys
  /// and over a paged cache the batch entry's page-table row and the last
  /// page id.
  struct KeyBoxes {
    Value kvHead, seqK, pageRow, lastPage;
  } keyBoxes;
  int64_t boxBytes(bool values) const;
  Value tileBase(Value stage, bool values);
  Value clampPage(Value id);
  Value pageEntry(Value key);
  Value pageEntryUpTo(Value key);
  Value producerWarp();
  Value producerWarpIs(int64_t w);
  void onProducerWarp(int64_t w, llvm::function_ref<void()> fn);
  void loadBoxesAt(bool values, Value base, Value row, Value entry, Value bar);
  Value slotKey(Value kt, int64_t i);
  Value slotEntry(Value kt, int64_t i);
  SmallVector<Value> tilePageEntries(Value kt);
  void loadSlotBox(bool values, Value kt, Value stage, Value bar, int64_t i,
                   Value entry);
  void loadBoxes(bool values, Value kt, Value stage, Value bar,
                 ValueRange entries);
  /// What the softmax of a key tile reads, as buildTile finds it: the
  /// mask and score context, the key tiles (boundary tiles outside
  /// [fullLo, fullHi)), each row slot's query position (and, clamped
  /// into Sq, row), the rows' 2^-e of Q's f16 scaling (fp8 keys under
  /// bf16 queries), the row masks found once a work item, the key warp's
  /// first key in a tile, 2 t, the keys' fp8 scale and the sequence's keys.
  struct ScoreInputs {
    MaskScoreContext c;
    KeyTileRange range;
    SmallVector<Value> positions, safeRows, qUnscale;
    std::optional<SmallVector<RowMask>> itemRowMasks;
    Value keyOffset, t2, kScale, seqK;
    /// The f32 constants -inf and 0 of the kernel's loop state.
    Value negInf, zero;
    /// Tiles tested at run time; rows that each see one interval of keys
    /// (interval masks and cu_seqlens documents: rowKeys); documents of
    /// cu_seqlens; a ragged batch's query rows.
    bool tileTest = false, intervals = false, documentRanges = false,
         raggedQ = false;
  } scores;
  std::pair<Value, Value> rowKeys(const RowMask &rm);
  /// A key tile's softmax (softmaxTile): the weights P, the new row state
  /// (m, l) and each row's rescale factor for O; `grown` (lazy_rescale)
  /// whether a row of the lane's warp moved its maximum, i.e. whether O
  /// needs the rescale (warp-uniform); null where O is always rescaled, or
  /// not at all (a loop's first tile).
  struct TileSoftmax {
    SmallVector<Value> p, mNew, lNew, alpha;
    Value grown;
  };
  TileSoftmax softmaxTile(Value kt, const TileFlags &flags,
                          SmallVector<Value> s, ValueRange mOld,
                          ValueRange lOld, bool oIsZero = false);
  /// O (`acc`, `slotOf` its row slots) rescaled by the tile's factors: only
  /// where a row of the warp moved its maximum (sm.grown).
  SmallVector<Value> rescaleO(SmallVector<Value> acc, const TileSoftmax &sm,
                              llvm::function_ref<int64_t(int64_t)> slotOf);
  /// The work item's query rows as the epilogue stores them: each row
  /// slot's tile row and query position, the tile's first row, the
  /// sequence's rows and the operands' (Sq), the lane's place in its quad
  /// (t, 2 t), the batch size, and with split_kv the splits, this block's
  /// split, its work-list record and whether a work list is read.
  struct OutputPlace {
    SmallVector<Value> rows, positions;
    Value q0, seqQ, seqQAll, t, t2, batchSize, numSplits, split, partialSlot,
        planned;
  };
  void stageOutputRows(OutputRows &out, Value oHead, Value oRowStride,
                       Value firstPosition, Value seqQ);
  void storeOutputs(const OutputPlace &at, ArrayRef<Value> mFinal,
                    ArrayRef<Value> lFinal, ArrayRef<Value> accFinal);
  /// The epilogue's merges of partial row states (m, l, accumulators of
  /// each row slot), defined below.
  void mergeKeyWarps(SmallVector<Value> &mFinal, SmallVector<Value> &lFinal,
                     SmallVector<Value> &accFinal, Value warp, Value g, Value t,
                     Value t2,
                     std::optional<OpBuilder::InsertionGuard> &mergeGuard);
  Value mergeTailSegments(SmallVector<Value> &mFinal,
                          SmallVector<Value> &lFinal,
                          SmallVector<Value> &accFinal, Value tid, Value warp,
                          Value lane);
  /// The block's work items: the one of its block indices, or with a
  /// persistent grid every gridDim.x-th of them from blockIdx.x.
  LogicalResult buildWork();
  /// The wgmma kernel's barriers initialised and its roles parted: the
  /// scf.if whose then region the consumer warpgroups run and the one
  /// (in its else region) the producer lane runs.
  std::pair<scf::IfOp, scf::IfOp> splitRoles();
  /// The producer warps whose first lanes issue a key tile's TMA boxes:
  /// over a paged cache the wgmma kernel's tile is bk / min(P, bk) boxes
  /// of a page each (times the boxes of D), which one lane would issue one
  /// after another; the warps are the most of 4, 3 and 2 that divide the
  /// boxes evenly (box j to warp j mod boxIssuers()). 1 otherwise, and
  /// beside three consumer warpgroups (see pagesAheadOneTile).
  int64_t boxIssuers() const {
    if (!config.getWgmma() || !problem.pageSize || !pagesAheadOneTile() ||
        convertsCodes())
      return 1;
    const int64_t bk = config.getBlockK();
    const int64_t boxes = bk / std::min(problem.pageSize, bk);
    for (int64_t n : {4, 3, 2})
      if (boxes % n == 0)
        return n;
    return 1;
  }
  /// Whether the producer lanes read their boxes' page-table entries a
  /// whole tile ahead (TmaKeyLoop::Hooks::ahead), for which they take more
  /// registers (wgmmaRegisters). Not beside three consumer warpgroups,
  /// whose registers are tightest (D = 64): there the kernel spilled with
  /// the entries read ahead and with the boxes shared (ptxas -v), so one
  /// lane reads each entry as it issues the box.
  bool pagesAheadOneTile() const { return config.getWarps() <= 8; }
  /// The boxes of a key tile each of the boxIssuers() lanes issues.
  int64_t boxSlots() const {
    const int64_t bk = config.getBlockK();
    return bk / std::min(problem.pageSize ? problem.pageSize : bk, bk) /
           boxIssuers();
  }
  /// The wgmma kernel over an fp8 cache: its producer warpgroup converts
  /// the codes, which its first lane loads by TMA a tile ahead into stages
  /// of their own, into the 16-bit stages the consumers read (buildTile).
  bool convertsCodes() const { return config.getWgmma() && problem.kvFp8; }
  /// Threads of the producer warpgroup.
  static constexpr int64_t kProducerThreads = 128;
  /// The wgmma kernel's tile tests: the overlapped schedule's compacted
  /// ring (overlappedWgmmaLoop), on a block grid or a persistent one.
  bool compactsRing() const {
    return config.getWgmma() && tiled.testsTilesAtRunTime();
  }
  /// The wgmma kernel's mbarriers (SwizzledSmemLayout): the i-th of the
  /// key/value ring's, and Q's full and empty ones.
  Value barrierAt(Value i) {
    IndexArith ia{b};
    return mmaE->smemAt(ia.add(ia.constant(swizzled.barrierOffset),
                               arith::MulIOp::create(b, i, ia.constant(8))));
  }
  /// The compacted ring's word of `stage` (index; TmaKeyLoop::Hooks::
  /// announce).
  Value tileSlot(Value stage) {
    IndexArith ia{b};
    return mmaE->smemAt(
        ia.add(ia.constant(swizzled.tileSlotOffset),
               arith::MulIOp::create(b, stage, ia.constant(4))));
  }
  /// Q's full (`which` 0) or empty (1) barrier: of the work item's Q tile
  /// with q_buffers = 2 (the second's where qSecond holds).
  Value qBarrier(int64_t which) {
    Value first = a.constant(qBarrierBytes(0, which));
    if (qSecond)
      first = arith::SelectOp::create(
          b, qSecond, a.constant(qBarrierBytes(1, which)), first);
    return mmaE->smemAt(first);
  }
  /// The byte offsets of Q tile `tile` (0, or 1 with q_buffers = 2) and of
  /// its full (`which` 0) or empty (1) barrier.
  int64_t qTileBytes(int64_t tile) const {
    return tile ? swizzled.q2Offset : qOffset;
  }
  int64_t qBarrierBytes(int64_t tile, int64_t which) const {
    return (tile ? swizzled.q2BarrierOffset
                 : swizzled.barrierOffset + 32 * config.getStages()) +
           8 * which;
  }
  /// q_buffers = 2: whether the work item's Q is the second tile (i1; null
  /// with one Q tile), and the byte offset of its Q tile (index; buildTile
  /// sets both).
  Value qSecond, qBase;
  /// The byte offset of the work item's Q tile (index).
  Value qTileOffset() { return qBase ? qBase : idx(qTileBytes(0)); }
  /// convertsCodes(): the K codes' full (kind 0), the V codes' full (1),
  /// the K codes' empty (2) or the V codes' empty (3) barrier of `stage`
  /// (index).
  Value codeBarrier(int64_t kind, Value stage) {
    IndexArith ia{b};
    return barrierAt(
        ia.add(stage, ia.constant((4 + kind) * config.getStages() + 2)));
  }

  /// A copy of `v` (i64 or index) that LLVM cannot see through, so that
  /// nothing computed from it leaves the loop it is made in.
  Value opaque(Value v) {
    Type i64 = b.getI64Type();
    bool isIndex = v.getType().isIndex();
    if (isIndex)
      v = arith::IndexCastOp::create(b, i64, v);
    Value copy = inlinePtx(b, i64, ValueRange{v}, "mov.b64 $0, $1;", "=l,l",
                           /*sideEffects=*/true);
    return isIndex ? arith::IndexCastOp::create(b, b.getIndexType(), copy)
                         .getResult()
                   : copy;
  }
  /// The emitters, reading shared memory from `base`.
  void useSharedMemory(Value base) {
    smem = base;
    mmaE.emplace(b, eltType, smem);
    mmaV.emplace(
        b, problem.kvFp8 && eltType.isBF16() ? Type(b.getF16Type()) : eltType,
        smem);
    copier.emplace(b, *mmaE, config.getThreads());
    // Over fp8 codes the wgmma kernel's GEMMs are f16 (Q's rows scaled
    // into f16 for bf16 queries; buildTile).
    if (config.getWgmma())
      wgmmaE.emplace(b, problem.kvFp8 ? Type(b.getF16Type()) : eltType, smem);
  }

  Role role = Role::All;
  /// A persistent grid (buildWork): the ring uses of the work items before
  /// this one, and how many came before it (for Q's barrier phases).
  Value ringBase, round;
  /// Set by buildTile: the ring uses of its work item (its key tiles, or on
  /// a compacted ring its visible tiles and its end use).
  Value tileUses;
  /// chain_items (the consumers' side of a persistent grid; buildWork sets
  /// it up): whether this item's first S came with the last P V's turn of
  /// the item before (`have`, i1) and that S, completed (`s`: the
  /// thread's block_k / 2 scores); `nextHasKeys` emits whether the next
  /// item runs and has a key tile (i1). overlappedWgmmaLoop sets what goes
  /// on to the next item (`nextHave`, `nextS`).
  struct ItemChain {
    Value have;
    SmallVector<Value> s;
    std::function<Value()> nextHasKeys;
    Value nextHave;
    SmallVector<Value> nextS;
  };
  std::optional<ItemChain> chain;
  /// Whether this kernel's consumers chain their work items (chain_items).
  bool chainsItems() const {
    return config.getChainItems() && role == Role::Consumer;
  }
  /// The key tiles [lo, hi) of the work item (tile, head, batch), from the
  /// tiled IR's bounds (after buildTile's rematerialiser is set up).
  std::pair<Value, Value> keyTilesOf(Value tile, Value head, Value batch);
  /// A persistent kernel that splits its last wave's items by keys
  /// (splitsPersistentTail): item `raw` of buildWork's numbering as the
  /// whole item it is a part of, its key split and splits (1: a whole
  /// item), and for a split item its index among the split items and
  /// their count. From opaque copies of the launch's values: made again
  /// after the key loop, nothing of it stays live through the loop.
  struct TailGeometry {
    /// i32: the blocks, this block's linear index, the key tiles of an
    /// item, the tail items (0 without a balanced tail), the first of them,
    /// the tail's key tiles, this block's share of them [first, last), its
    /// whole items and tail segments (items it takes part of).
    Value blocks, block, keyTiles, tailItems, start, tailTiles, first, last,
        wholeItems, segments;
  };
  TailGeometry tailGeometry();
  struct TailSplit {
    TailGeometry g;
    /// Whether the iteration is a tail segment (i1), its whole item (index)
    /// and the key tiles [lo, hi) of it (index) it takes, and (i32) its
    /// tail item and its place among the block's segments.
    Value isTail, whole, lo, hi, item, segment;
    /// The whole item's query tile, head and batch entry.
    std::array<Value, 3> indices;
  };
  TailSplit tailOf(Value raw);
  /// The persistent loop's item index of a tail-splitting kernel (null
  /// otherwise), and its split as tailOf gave it where the item starts.
  Value tailRaw;
  TailSplit tail;
  ImplicitLocOpBuilder &b;
  IndexArith a;
  TiledAttention tiled;
  TileStepOp step;
  GpuKernelAttr config;
  gpu::GPUFuncOp func;
  bool gridDependencies;

  KernelProblem problem;
  Type i16, i32, i64, f32, eltType;
  int64_t d = 0, dv = 0, heads = 0, kvHeads = 0;
  /// The dynamic shared memory and its layout.
  Value smem;
  PaddedSmemLayout layout;
  int64_t kPitch = 0, vPitch = 0, stageBytes = 0, vOffset = 0;
  int64_t qPitch = 0, qOffset = 0;
  /// The mma.sync instructions and the tile copies. mmaV does O += P V (and
  /// packs the wgmma kernel's P): the same as mmaE, except that with fp8
  /// values and bf16 queries it is f16
  /// (every e4m3 value is an f16, converted in one instruction, and P is
  /// rounded to f16, finer than bf16 over [0, 1]).
  std::optional<MmaSyncEmitter> mmaE, mmaV;
  std::optional<CpAsyncTileCopier> copier;
  /// With wgmma: the warpgroup MMAs and the swizzled layout.
  std::optional<WgmmaEmitter> wgmmaE;
  SwizzledSmemLayout swizzled;

  Value arg(unsigned i) { return func.getArgument(i); }
  Value idx(int64_t v) { return a.constant(v); }
  Value toI64(Value index) { return arith::IndexCastOp::create(b, i64, index); }
  Value f32c(double v) {
    return arith::ConstantOp::create(b, b.getF32FloatAttr(v));
  }
  Value i32c(int64_t v) { return arith::ConstantIntOp::create(b, v, 32); }

  /// Address of element `index` (in elements of `elementType`) of `base`.
  Value gep(Value base, Value index, Type elementType) {
    return LLVM::GEPOp::create(b, LLVM::LLVMPointerType::get(b.getContext()),
                               elementType, base, ValueRange{toI64(index)});
  }
  /// Loads the 32-bit word holding the 16-bit elements `index32`,
  /// `index32 + 1` (an i32 offset).
  Value loadPair(Value base, Value index32) {
    return LLVM::LoadOp::create(b, i32, gep32(b, base, index32, i16),
                                /*align=*/4);
  }
  Value rowOffset(Value row, Value stride32, Value col) {
    return rowOffset32(b, row, stride32, col);
  }
  Value toI32(Value index) { return arith::IndexCastOp::create(b, i32, index); }
  /// `x` (an integer) as an index.
  Value indexOf(Value x) {
    return arith::IndexCastOp::create(b, b.getIndexType(), x).getResult();
  }
  /// Element strides of the [B, H, S] dimensions of q, k, v or o, from
  /// kernel parameter `first` on.
  std::array<Value, 3> stridesOf(unsigned first) {
    return std::array<Value, 3>{indexOf(arg(first)), indexOf(arg(first + 1)),
                                indexOf(arg(first + 2))};
  }
  /// A sequence stride as i32, for the row offsets (rowOffset).
  Value rowStrideOf(unsigned param) {
    return arith::TruncIOp::create(b, i32, arg(param)).getResult();
  }

  /// Where the work item's rows sit, as buildTile finds it: its batch
  /// entry and (first) query head, the batch entries of the query and key
  /// tensors (0 in a ragged batch) and the sequence's first row in them,
  /// and with gqa_pack each row slot's head in the group.
  struct ItemPlace {
    Value batch, head, qBatch, kBatch, qStart, kStart;
    bool raggedQ = false, raggedK = false;
    SmallVector<Value> headInGroup;
  } place;
  /// Element offset of this (batch, head `h`) in a tensor of `stride`: of
  /// the query side (q, o), or with `keys` of k and v; in a ragged batch,
  /// of the sequence's first row in batch entry 0.
  Value baseOf(const std::array<Value, 3> &stride, Value h, bool keys = false) {
    Value batchOffset =
        arith::MulIOp::create(b, keys ? place.kBatch : place.qBatch, stride[0]);
    Value headOffset = arith::MulIOp::create(b, h, stride[1]);
    Value base = a.add(batchOffset, headOffset);
    if (keys ? place.raggedK : place.raggedQ)
      base = a.add(base, arith::MulIOp::create(
                             b, keys ? place.kStart : place.qStart, stride[2]));
    return base;
  }
  /// Element offset (i64) of (batch, head of slot sl, position) in a
  /// packed tile's tensor of `strides`.
  Value packedRowOffset(const std::array<Value, 3> &strides, int64_t sl,
                        Value position) {
    Value h = a.add(place.head, place.headInGroup[sl]);
    return toI64(a.add(arith::MulIOp::create(b, place.batch, strides[0]),
                       a.add(arith::MulIOp::create(b, h, strides[1]),
                             arith::MulIOp::create(b, position, strides[2]))));
  }
};

} // namespace attnc::flash

#endif // ATTNC_PASSES_CONVERSION_FLASHKERNELBUILDER_H
