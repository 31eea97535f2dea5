//===- FlashKernel.cpp - the flash-attention kernels ----------------------===//
//
// Builds the kernel of one attn.attention (GpuTarget's kernel builder): the
// mma.sync kernel (sm_80, decode) or, with wgmma = true, the warp-specialised
// wgmma kernel (sm_90a prefill), whose blocks with persistent = true each
// walk several work items (buildWork). buildTile lays out one work item and
// calls KernelBuilder's methods for the pieces that stand alone (the tile
// softmax, the TMA box loads, the fp8 conversion, the wgmma consumers'
// GEMMs and key loop, the tile tests, the epilogue; docs/gpu.md lists them).
// mma.sync fragment layouts follow the PTX ISA, "Matrix Fragments for
// mma.m16n8k16 with floating point type": with lane = 4 g + t, A (16x16,
// row) registers hold (g, 2t..2t+1), (g+8, 2t..), (g, 2t+8..), (g+8,
// 2t+8..); B (16x8, col) registers hold (k = 2t..2t+1, n = g) and
// (k = 2t+8.., n = g); C holds (g, 2t..2t+1) and (g+8, 2t..).
// The m64nN accumulator of wgmma has the same layout per warp (Wgmma.h).
//
//===----------------------------------------------------------------------===//

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
#include <limits>

#define DEBUG_TYPE "convert-attn-to-gpu"

using namespace mlir;
using namespace attnc;
using namespace attnc::attn;
using attnc::mask::MaskKind;

int64_t attnc::flashKernelSharedMemoryBytes(const KernelProblem &p,
                                        GpuKernelAttr config) {
  if (config.getWgmma() || config.getTmaLoads())
    return SwizzledSmemLayout::get(p.headDim, p.valueHeadDim, config, p.kvFp8)
        .bytes;
  return PaddedSmemLayout::get(p.headDim, p.valueHeadDim, config, p.kvFp8)
      .bytes;
}

bool attnc::splitsPersistentTail(mask::MaskKind kind,
                                 attn::GpuKernelAttr config) {
  return config.getWgmma() && config.getPersistent() &&
         kind == mask::MaskKind::None;
}

/// The mask of a tile step, as MaskCodegen describes it.
std::string attnc::flashKernelTileStrategy(const TiledAttention &t) {
  mask::MaskSpec spec = TileStepOp(t.step).getMaskSpec();
  switch (t.keyLoop) {
  case TiledAttention::KeyLoop::Split:
    if (spec.kind == MaskKind::None)
      return "no mask: every key tile unmasked, no mask arithmetic";
    return spec.kind == MaskKind::Document
               ? "key tiles bounded by run-time cu_seqlens document ranges "
                 "(from the tiled IR), mask arithmetic on boundary tiles only"
               : "key tiles bounded in closed form (from the tiled IR), mask "
                 "arithmetic on boundary tiles only";
  case TiledAttention::KeyLoop::TileTest:
    if (t.tileTest == "region_scan")
      return "element-wise mask on every key tile (slow path): the mask_fn "
             "is not affine in (q, k) and the region scan of the tiled IR is "
             "not run on the GPU, so no tile is proven empty or full";
    return "run-time tile test '" + t.tileTest +
           "' (from the tiled IR): empty tiles skipped, mask arithmetic on "
           "boundary tiles only";
  case TiledAttention::KeyLoop::Elementwise:
    break;
  }
  return "element-wise mask on every key tile (slow path)";
}

/// The named barrier of the consumer warpgroups after they zero the V rows
/// past a ragged sequence's keys (the ping-pong turns use 1 to 3).
static constexpr int64_t kZeroTailBarrier = 8;

/// The fp8 converter's 16-byte code loads issued together before their
/// conversions' stores: a thread's whole share of a D = 128 tile (with its
/// producer warpgroup at 72 registers, Wgmma.cpp; 8 spilled 56). Over
/// pages, whose entries it holds too, it issues half: 8 there were slower
/// than 4 (bench/RESULTS.md, thirty-fifth session run 2).
static constexpr int64_t kCodeLoadBatch = 8;

/// The wgmma block grid's work groups: about this many blocks (two waves
/// of an H200's 132 multiprocessors) share the keys and values of a few
/// (head, batch entry) units.
static constexpr int64_t kGroupBlocks = 256;

/// How far (log2 units) a tile's scores may pass a row's kept maximum
/// before a lazy_rescale kernel moves it and rescales O: the weights stay below
/// 2^8 (with the relative precision of weights below 1, in f32 and in
/// bf16/f16 P), their row sums far from overflow.
static constexpr double kStaleMaxLimit = 8.0;

/// exp2(x) on the multi-function unit with subnormal results flushed to 0
/// (`ex2.approx.ftz.f32`). Without .ftz ptxas wraps each MUFU.EX2 in a
/// range test and two predicated multiplies that keep results below 2^-126
/// subnormal: three more instructions per weight in the softmax, for
/// weights under 2^-126 of the row's largest, which no f32 sum or bf16/f16
/// output can tell from 0. The wgmma kernels' weights take it; the
/// mma.sync kernels (decode, sm_80) keep math.exp2, with which their
/// register allocation was tuned (with .ftz ptxas spilled the D = 128
/// decode kernel on 128-key tiles).
static Value exp2FlushSubnormals(ImplicitLocOpBuilder &b, Value x) {
  return LLVM::CallIntrinsicOp::create(
             b, b.getF32Type(), b.getStringAttr("llvm.nvvm.ex2.approx.ftz.f32"),
             ValueRange{x})
      .getResult(0);
}

namespace {
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
  Value qSlab();
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
  Value qBarrier(int64_t which) {
    return mmaE->smemAt(a.constant(swizzled.barrierOffset +
                                   32 * config.getStages() + 8 * which));
  }
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
  Value toI32(Value index) {
    return arith::IndexCastOp::create(b, i32, index);
  }
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
} // namespace

LogicalResult KernelBuilder::build() {
  i16 = b.getI16Type();
  i32 = b.getI32Type();
  i64 = b.getI64Type();
  f32 = b.getF32Type();
  problem = KernelProblem::of(step);
  eltType = problem.elementType;
  d = problem.headDim;
  dv = problem.valueHeadDim;
  heads = problem.numQueryHeads;
  kvHeads = problem.numKvHeads;
  smem = LLVM::AddressOfOp::create(
      b, LLVM::LLVMPointerType::get(b.getContext(), 3), kSharedMemoryName);
  layout = PaddedSmemLayout::get(d, dv, config, problem.kvFp8);
  kPitch = layout.kPitch;
  vPitch = layout.vPitch;
  vOffset = layout.vOffset;
  stageBytes = layout.stageBytes;
  qPitch = layout.qPitch;
  qOffset = layout.qOffset;
  useSharedMemory(smem);
  const bool wgmma = config.getWgmma();
  if (wgmma || config.getTmaLoads()) {
    // Q (wgmma), K and V in 128-byte swizzled boxes (Wgmma.h); the padded
    // layout's pitches are unused (tma_loads: its merge buffers stay).
    // An fp8 cache's stages hold codes (swizzled.vOffset, stageBytes); the
    // MMAs read the padded 16-bit V tile they are converted into.
    swizzled = SwizzledSmemLayout::get(d, dv, config, problem.kvFp8);
    if (!problem.kvFp8 || wgmma) {
      vOffset = swizzled.vOffset;
      stageBytes = swizzled.stageBytes;
    }
    if (wgmma)
      qOffset = swizzled.qOffset;
  }
  // A persistent wgmma kernel parts its roles first and each walks the
  // work items; otherwise the block's one item is worked out by every
  // thread, and the wgmma kernel's roles part after that (buildTile).
  if (!wgmma || !config.getPersistent()) {
    role = Role::All;
    if (failed(buildWork()))
      return failure();
    gpu::ReturnOp::create(b);
    return success();
  }
  auto [ifConsumer, ifProducer] = splitRoles();
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(ifProducer.getThenRegion().front().getTerminator());
    role = Role::Producer;
    if (failed(buildWork()))
      return failure();
    b.setInsertionPoint(ifConsumer.getThenRegion().front().getTerminator());
    role = Role::Consumer;
    if (failed(buildWork()))
      return failure();
  }
  gpu::ReturnOp::create(b);
  return success();
}

std::pair<scf::IfOp, scf::IfOp> KernelBuilder::splitRoles() {
  // Thread 0 initialises the barriers; then the roles part for good
  // (setmaxnreg holds for the rest of the kernel only if the two sides
  // never meet again before it ends). Warps [0, warps) consume in
  // warpgroups of 4; the warpgroup after them produces: its first lane
  // loads Q and every K/V tile by TMA (over a paged cache the first lanes
  // of boxIssuers() warps share the boxes), and it hands its registers to
  // the consumers (setmaxnreg; every warp of a warpgroup runs the same
  // one).
  const int64_t groups = config.getWarps() / 4;
  Value tid = gpu::ThreadIdOp::create(b, gpu::Dimension::x);
  Value first =
      arith::CmpIOp::create(b, arith::CmpIPredicate::eq, tid, idx(0));
  auto ifFirst = scf::IfOp::create(b, first, /*withElseRegion=*/false);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&ifFirst.getThenRegion().front());
    TmaKeyLoop ring(b, {}, config.getStages(), stageBytes, groups,
                    [&](Value i) { return barrierAt(i); });
    // Converted tiles are full once every producer thread has arrived; a
    // stage of codes once the TMA bytes have landed, and empty once every
    // producer thread has converted it.
    if (convertsCodes())
      ring.fullArrivals = kProducerThreads;
    if (compactsRing())
      ring.keyReleaseArrivals = 32 * config.getWarps();
    ring.initBarriers();
    for (int64_t s = 0; s < config.getStages() && convertsCodes(); ++s)
      for (int64_t kind = 0; kind < 4; ++kind)
        tma::initBarrier(b, codeBarrier(kind, idx(s)),
                         kind < 2 ? 1 : kProducerThreads);
    tma::initBarrier(b, qBarrier(0), 1);
    if (config.getPersistent())
      tma::initBarrier(b, qBarrier(1), groups);
    tma::fenceBarrierInit(b);
  }
  gpu::BarrierOp::create(b);
  WgmmaRegisters regs = wgmmaRegisters(
      config, swizzled.bytes, tiled.testsTilesAtRunTime(),
      static_cast<bool>(step.getCuSeqlensQ()), problem.documentRanges,
      boxIssuers() > 1 && pagesAheadOneTile() ? boxSlots() : 0, convertsCodes(),
      /*producerPairsWideRows=*/problem.intervalMask && problem.headDim == 192);
  Value consumer = arith::CmpIOp::create(b, arith::CmpIPredicate::ult, tid,
                                         idx(32 * config.getWarps()));
  auto ifConsumer = scf::IfOp::create(b, consumer, /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&ifConsumer.getElseRegion().front());
  NVVM::SetMaxRegisterOp::create(b, regs.producer,
                                 NVVM::SetMaxRegisterAction::decrease);
  // The producer lane (tid 32 * warps), or the first lanes of the
  // boxIssuers() warps from it, or every thread of the warpgroup when it
  // converts fp8 codes.
  Value producer;
  if (convertsCodes()) {
    producer = arith::ConstantIntOp::create(b, 1, 1);
  } else if (boxIssuers() == 1) {
    producer = arith::CmpIOp::create(b, arith::CmpIPredicate::eq, tid,
                                     idx(32 * config.getWarps()));
  } else {
    Value firstLane =
        arith::CmpIOp::create(b, arith::CmpIPredicate::eq,
                              arith::RemUIOp::create(b, tid, idx(32)), idx(0));
    Value issuerWarp =
        arith::CmpIOp::create(b, arith::CmpIPredicate::ult, tid,
                              idx(32 * (config.getWarps() + boxIssuers())));
    producer = arith::AndIOp::create(b, firstLane, issuerWarp);
  }
  auto ifProducer = scf::IfOp::create(b, producer, /*withElseRegion=*/false);
  b.setInsertionPointToStart(&ifConsumer.getThenRegion().front());
  NVVM::SetMaxRegisterOp::create(b, regs.consumer,
                                 NVVM::SetMaxRegisterAction::increase);
  return {ifConsumer, ifProducer};
}

KernelBuilder::TailGeometry KernelBuilder::tailGeometry() {
  // With num_splits >= 2 the items of the last, part-filled wave (the
  // count mod blocks past the full waves, or every item when there are
  // fewer than blocks) form the tail: their key tiles, item by item, are
  // dealt to the blocks in equal contiguous shares, block l taking tiles
  // [l W / B, (l + 1) W / B) of the tail's W, a share of one or two items
  // (segments) after its whole items l, l + B, ... In 32 bits from opaque
  // copies of the launch's values (attnrt bounds W B below 2^31): 64-bit
  // divisions by them spilled the producer's 40 registers, and values kept
  // from an item's start to its epilogue the consumers'.
  auto param = [&](unsigned p) {
    return arith::TruncIOp::create(b, i32, opaque(arg(p))).getResult();
  };
  auto ceilDiv64 = [&](unsigned p, int64_t by) {
    return arith::TruncIOp::create(
               b, i32,
               arith::CeilDivUIOp::create(
                   b, opaque(arg(p)), arith::ConstantIntOp::create(b, by, 64)))
        .getResult();
  };
  auto dim = [&](Value v) {
    return arith::IndexCastUIOp::create(b, i32, opaque(v)).getResult();
  };
  U32Arith u{b};
  TailGeometry g;
  Value gx = dim(gpu::GridDimOp::create(b, gpu::Dimension::x)),
        gy = dim(gpu::GridDimOp::create(b, gpu::Dimension::y)),
        gz = dim(gpu::GridDimOp::create(b, gpu::Dimension::z));
  g.blocks = u.mul(u.mul(gx, gy), gz);
  g.block =
      u.add(dim(gpu::BlockIdOp::create(b, gpu::Dimension::x)),
            u.mul(gx, u.add(dim(gpu::BlockIdOp::create(b, gpu::Dimension::y)),
                            u.mul(gy, dim(gpu::BlockIdOp::create(
                                          b, gpu::Dimension::z))))));
  Value count =
      u.mul(u.mul(ceilDiv64(abi::SeqQ, config.getBlockQ()), i32c(heads)),
            param(abi::Batch));
  g.keyTiles = ceilDiv64(abi::SeqK, config.getBlockK());
  Value balanced = arith::CmpIOp::create(b, arith::CmpIPredicate::sge,
                                         param(abi::NumSplits), i32c(2));
  g.tailItems = arith::SelectOp::create(
      b, balanced, arith::RemUIOp::create(b, count, g.blocks), i32c(0));
  g.start = u.sub(count, g.tailItems);
  // Items l, l + B, ... below the tail's first.
  g.wholeItems = arith::SelectOp::create(
      b, u.ugt(g.start, g.block),
      u.div(u.add(u.sub(g.start, g.block), u.sub(g.blocks, i32c(1))), g.blocks),
      i32c(0));
  g.tailTiles = u.mul(g.tailItems, g.keyTiles);
  g.first = u.div(u.mul(g.block, g.tailTiles), g.blocks);
  g.last = u.div(u.mul(u.add(g.block, i32c(1)), g.tailTiles), g.blocks);
  g.segments = arith::SelectOp::create(
      b, u.ugt(g.last, g.first),
      u.add(u.sub(u.div(u.sub(g.last, i32c(1)), g.keyTiles),
                  u.div(g.first, g.keyTiles)),
            i32c(1)),
      i32c(0));
  return g;
}

KernelBuilder::TailSplit KernelBuilder::tailOf(Value raw) {
  U32Arith u{b};
  TailSplit t;
  TailGeometry &g = t.g;
  g = tailGeometry();
  Value x = arith::IndexCastUIOp::create(b, i32, opaque(raw));
  t.isTail =
      arith::CmpIOp::create(b, arith::CmpIPredicate::uge, x, g.wholeItems);
  t.segment =
      arith::SelectOp::create(b, t.isTail, u.sub(x, g.wholeItems), i32c(0));
  t.item = arith::AddIOp::create(
      b, arith::DivUIOp::create(b, g.first, g.keyTiles), t.segment);
  Value itemStart = u.mul(t.item, g.keyTiles);
  t.lo =
      u.index(u.sub(arith::MaxUIOp::create(b, g.first, itemStart), itemStart));
  t.hi = u.index(
      u.sub(arith::MinUIOp::create(
                b, g.last, arith::AddIOp::create(b, itemStart, g.keyTiles)),
            itemStart));
  Value whole = arith::SelectOp::create(
      b, t.isTail, arith::AddIOp::create(b, g.start, t.item),
      arith::AddIOp::create(b, g.block, u.mul(x, g.blocks)));
  t.whole = u.index(whole);
  // As buildWork numbers whole items: query tiles fastest, last first.
  Value tiles = arith::TruncIOp::create(
      b, i32,
      arith::CeilDivUIOp::create(
          b, opaque(arg(abi::SeqQ)),
          arith::ConstantIntOp::create(b, config.getBlockQ(), 64)));
  Value unit = arith::DivUIOp::create(b, whole, tiles);
  t.indices = {
      u.index(arith::SubIOp::create(b, arith::SubIOp::create(b, tiles, i32c(1)),
                                    arith::RemUIOp::create(b, whole, tiles))),
      u.index(arith::RemUIOp::create(b, unit, i32c(heads))),
      u.index(arith::DivUIOp::create(b, unit, i32c(heads)))};
  return t;
}

LogicalResult KernelBuilder::buildWork() {
  if (config.getPersistent()) {
    // A persistent grid: block i (linear over the grid, so any launch shape
    // covers every item once) takes its share of the work items (query
    // tile, head, batch entry), below. Both roles walk the same items,
    // carrying the ring uses and the items before (Q's barrier phases).
    IndexArith ia{b};
    auto dim = [&](auto op, gpu::Dimension d) -> Value {
      return decltype(op)::create(b, d);
    };
    Value gx = dim(gpu::GridDimOp(), gpu::Dimension::x),
          gy = dim(gpu::GridDimOp(), gpu::Dimension::y),
          gz = dim(gpu::GridDimOp(), gpu::Dimension::z);
    Value blockId = ia.add(
        dim(gpu::BlockIdOp(), gpu::Dimension::x),
        arith::MulIOp::create(
            b, gx,
            ia.add(dim(gpu::BlockIdOp(), gpu::Dimension::y),
                   arith::MulIOp::create(
                       b, gy, dim(gpu::BlockIdOp(), gpu::Dimension::z)))));
    Value blocks =
        arith::MulIOp::create(b, arith::MulIOp::create(b, gx, gy), gz);
    auto indexOf = [&](unsigned param) {
      return arith::IndexCastOp::create(b, b.getIndexType(), arg(param))
          .getResult();
    };
    Value tiles = arith::CeilDivUIOp::create(b, indexOf(abi::SeqQ),
                                             idx(config.getBlockQ()));
    // Under a causal or prefix-LM mask a query tile's keys grow with its
    // index: block i takes pairs of tiles whose costs sum to about the same,
    // tile T - 1 - t and tile t of one (head, batch entry) unit, for the
    // pairs i, i + blocks, ...; pairs are numbered unit by unit, so that
    // the blocks at work at once share a few units' keys and values in L2.
    // (Without the pairing, block i's items i, i + blocks, ... of very
    // different costs left some blocks working long after the others.)
    // With T odd a unit's middle tile pairs with itself and runs once.
    // Otherwise every tile costs about the same: items i, i + blocks, ...
    // of the query tiles x heads x batch entries, query tiles fastest.
    mask::MaskKind kind = step.getMaskSpec().kind;
    const bool paired = kind == mask::MaskKind::Causal ||
                        kind == mask::MaskKind::PrefixLM ||
                        kind == mask::MaskKind::Document;
    // Sliding windows: the query tiles whose window the sequence's start
    // cuts (the first `shortTiles` of each unit) hold fewer key tiles than
    // the rest. Items are numbered with every unit's full tiles first (unit
    // by unit, as the keys and values they share in L2 are), then the
    // short tiles, longest first, across the units; the blocks take them in
    // rounds of `blocks` items, every other round in reverse block order
    // (a snake), so that the short items fill the blocks that took fewer.
    // Any shortTiles in [0, tiles] numbers each item once. H200
    // (bench/RESULTS.md, twenty-seventh session run 11): the 1024-key
    // window 2.1-3.0% faster at S = 4K and 16K, 1.3-2.4% at 8K, level at 2K.
    const bool windowOrder = kind == mask::MaskKind::SlidingWindow;
    const bool tailSplits = splitsPersistentTail(kind, config);
    Value halves, count, perBatch, rounds, end;
    if (paired) {
      // The block's pairs: ceil((pairs - i) / blocks), two items each.
      Value units = arith::MulIOp::create(b, idx(heads), indexOf(abi::Batch));
      halves = arith::CeilDivUIOp::create(b, tiles, idx(2));
      Value pairs = arith::MulIOp::create(b, halves, units);
      Value mine = arith::CeilDivUIOp::create(
          b, ia.sub(ia.max(pairs, blockId), blockId), blocks);
      count = arith::MulIOp::create(b, mine, idx(2));
    } else {
      perBatch = arith::MulIOp::create(b, tiles, idx(heads));
      count = arith::MulIOp::create(b, perBatch, indexOf(abi::Batch));
      if (tailSplits) {
        // The block's whole items, then its segments of the balanced tail
        // (tailGeometry); the last part of a tail item to finish merges
        // the others' partial states (buildTile). num_splits 0 or 1 runs
        // every item whole.
        TailGeometry g = tailGeometry();
        end = arith::IndexCastUIOp::create(
            b, b.getIndexType(),
            arith::AddIOp::create(b, g.wholeItems, g.segments));
      }
      if (windowOrder) {
        // The rounds holding an item of this block: every full round, and
        // the last, part-filled one where its place there (blockId, or
        // blocks - 1 - blockId in an odd round) is below the items left.
        // (An scf.if skipping the places past the items instead made ptxas
        // spill 184 bytes.)
        Value full = arith::DivUIOp::create(b, count, blocks);
        Value left = arith::RemUIOp::create(b, count, blocks);
        Value lastOdd = arith::CmpIOp::create(
            b, arith::CmpIPredicate::eq,
            arith::RemUIOp::create(b, full, idx(2)), idx(1));
        Value inLast = arith::SelectOp::create(
            b, lastOdd,
            arith::CmpIOp::create(b, arith::CmpIPredicate::uge, blockId,
                                  ia.sub(blocks, left)),
            arith::CmpIOp::create(b, arith::CmpIPredicate::ult, blockId, left));
        rounds =
            ia.add(full, arith::SelectOp::create(b, inLast, idx(1), idx(0)));
      }
    }
    auto loop = scf::ForOp::create(
        b, paired || windowOrder || tailSplits ? idx(0) : blockId,
        windowOrder  ? rounds
        : tailSplits ? end
                     : count,
        paired || windowOrder || tailSplits ? idx(1) : blocks,
        ValueRange{idx(0), idx(0)});
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Value item = loop.getInductionVar();
    ringBase = loop.getRegionIterArgs()[0];
    round = loop.getRegionIterArgs()[1];
    // Pairs: the item's query tile and unit (head + heads * batch entry).
    Value pairTile, pairUnit;
    scf::IfOp ifRuns;
    if (windowOrder) {
      // Round `item`: item index i of the order above, this block's place
      // in the round (below the items: `rounds`).
      Value odd = arith::CmpIOp::create(b, arith::CmpIPredicate::eq,
                                        arith::RemUIOp::create(b, item, idx(2)),
                                        idx(1));
      Value pos = arith::SelectOp::create(
          b, odd, ia.sub(ia.sub(blocks, idx(1)), blockId), blockId);
      Value i = ia.add(arith::MulIOp::create(b, item, blocks), pos);
      // From copies LLVM cannot hoist: the values below made loop
      // invariants stay live through every key loop (ptxas spilled 160
      // bytes).
      const mask::MaskSpec &spec = step.getMaskSpec();
      Value tilesO = opaque(tiles);
      Value offset =
          spec.alignment == mask::Alignment::BottomRight
              ? opaque(ia.sub(indexOf(abi::SeqK), indexOf(abi::SeqQ)))
              : idx(0);
      Value shortTiles =
          ia.min(ia.max(arith::CeilDivSIOp::create(
                            b, ia.sub(idx(spec.windowLeft), offset),
                            idx(config.getBlockQ())),
                        idx(0)),
                 tilesO);
      Value units =
          arith::MulIOp::create(b, idx(heads), opaque(indexOf(abi::Batch)));
      // In 32 bits: attnrt refuses a persistent launch of 2^31 work items
      // or more (a Q that fits in a GPU's memory holds far fewer: 2^38
      // bytes, 2^24 items of 128 rows of 64 bf16). 64-bit divisions by
      // these run-time values spilled 88-96 bytes.
      auto narrow = [&](Value v) {
        return arith::IndexCastUIOp::create(b, i32, v).getResult();
      };
      Value i32Item = narrow(i), t32 = narrow(tilesO),
            short32 = narrow(shortTiles), units32 = narrow(units);
      Value full32 = arith::SubIOp::create(b, t32, short32);
      Value longTiles = arith::MaxUIOp::create(b, full32, i32c(1));
      Value longCount = arith::MulIOp::create(b, full32, units32);
      Value isLong = arith::CmpIOp::create(b, arith::CmpIPredicate::ult,
                                           i32Item, longCount);
      Value j = arith::SubIOp::create(
          b, arith::SelectOp::create(b, isLong, longCount, i32Item), longCount);
      // The query tile (T - 1 - back) and the unit, straight from the
      // 32-bit values (as an index of the equal-cost order below, taken
      // apart again, the producer spilled in its 40 registers).
      Value back = arith::SelectOp::create(
          b, isLong, arith::RemUIOp::create(b, i32Item, longTiles),
          arith::AddIOp::create(b, full32,
                                arith::DivUIOp::create(b, j, units32)));
      Value unit = arith::SelectOp::create(
          b, isLong, arith::DivUIOp::create(b, i32Item, longTiles),
          arith::RemUIOp::create(b, j, units32));
      pairTile = arith::IndexCastUIOp::create(
          b, b.getIndexType(),
          arith::SubIOp::create(b, arith::SubIOp::create(b, t32, i32c(1)),
                                back));
      pairUnit = arith::IndexCastUIOp::create(b, b.getIndexType(), unit);
    }
    if (paired) {
      Value pair = ia.add(
          blockId, arith::MulIOp::create(
                       b, arith::DivUIOp::create(b, item, idx(2)), blocks));
      Value low = arith::RemUIOp::create(b, pair, halves);
      Value high = ia.sub(ia.sub(tiles, idx(1)), low);
      Value second = arith::CmpIOp::create(
          b, arith::CmpIPredicate::eq, arith::RemUIOp::create(b, item, idx(2)),
          idx(1));
      pairTile = arith::SelectOp::create(b, second, low, high);
      pairUnit = arith::DivUIOp::create(b, pair, halves);
      // The middle tile's second turn does nothing.
      Value runs = arith::OrIOp::create(
          b,
          arith::XOrIOp::create(b, second,
                                arith::ConstantIntOp::create(b, 1, 1)),
          arith::CmpIOp::create(b, arith::CmpIPredicate::ne, low, high));
      ifRuns =
          scf::IfOp::create(b, TypeRange{b.getIndexType(), b.getIndexType()},
                            runs, /*withElseRegion=*/true);
      b.setInsertionPointToStart(&ifRuns.getElseRegion().front());
      scf::YieldOp::create(b, ValueRange{ringBase, round});
      b.setInsertionPointToStart(&ifRuns.getThenRegion().front());
    }
    // Shared-memory addresses from an opaque copy of the base in each
    // item: hoisted out of this loop, the descriptors and addresses of
    // every tile would stay live through it (ptxas spilled them).
    Value base = smem;
    Type i64 = b.getI64Type();
    useSharedMemory(LLVM::IntToPtrOp::create(
        b, base.getType(), opaque(LLVM::PtrToIntOp::create(b, i64, base))));
    if (tailSplits) {
      tailRaw = item;
      tail = tailOf(item);
      item = tail.whole;
    }
    LogicalResult built = buildTile([&]() -> std::array<Value, 3> {
      if (paired || windowOrder)
        return {pairTile, arith::RemUIOp::create(b, pairUnit, idx(heads)),
                arith::DivUIOp::create(b, pairUnit, idx(heads))};
      if (tailRaw)
        return tail.indices;
      Value tile = ia.sub(ia.sub(tiles, idx(1)),
                          arith::RemUIOp::create(b, item, tiles));
      Value head = arith::RemUIOp::create(
          b, arith::DivUIOp::create(b, item, tiles), idx(heads));
      return {tile, head, arith::DivUIOp::create(b, item, perBatch)};
    });
    scf::YieldOp::create(
        b, ValueRange{ia.add(ringBase, tileUses), ia.add(round, idx(1))});
    if (ifRuns) {
      b.setInsertionPointAfter(ifRuns);
      scf::YieldOp::create(b, ifRuns.getResults());
    }
    ringBase = round = tileUses = Value();
    tailRaw = Value();
    tail = TailSplit();
    useSharedMemory(base);
    return built;
  }
  // Grid (KernelAbi.h kGrid): x = query tile (times the key split), y =
  // query head, or KV head when the group's heads are packed into the rows
  // (gqa_pack), z = batch entry.
  return buildTile([&]() -> std::array<Value, 3> {
    Value x = gpu::BlockIdOp::create(b, gpu::Dimension::x),
          y = gpu::BlockIdOp::create(b, gpu::Dimension::y),
          z = gpu::BlockIdOp::create(b, gpu::Dimension::z);
    if (!config.getWgmma())
      return {x, y, z};
    // Blocks start in linear order (x fastest), and the hardware hands
    // them to multiprocessors as these free up: longest first keeps the
    // grid's tail short. The (head, batch entry) units are taken in groups
    // of about kGroupBlocks blocks (ceil(kGroupBlocks / tiles) units), and
    // a group's blocks run the last query tiles of each of its units
    // first (under a causal mask they hold the most keys): block o of a
    // group of n units takes query tile tiles - 1 - o / n of its unit
    // o mod n. Groups keep the keys and values in flight few (one group's
    // units: 2026-12-01, all units at once ran causal 4K at 447 TFLOP/s
    // against 493 head by head, from L2 misses). Runs 4 and 5 (4th session
    // of 2026-12-01): D=256 causal S=8K 569-571 against 532-546 head by
    // head, documents 354-355 against 337-346; D=128 causal within the
    // noise of the bench.
    Value gx = gpu::GridDimOp::create(b, gpu::Dimension::x),
          gy = gpu::GridDimOp::create(b, gpu::Dimension::y),
          gz = gpu::GridDimOp::create(b, gpu::Dimension::z);
    Value units = arith::MulIOp::create(b, gy, gz);
    Value linear =
        a.add(x, arith::MulIOp::create(
                     b, gx, a.add(y, arith::MulIOp::create(b, gy, z))));
    Value perGroup =
        a.min(arith::CeilDivUIOp::create(b, idx(kGroupBlocks), gx).getResult(),
              units);
    Value groupBlocks = arith::MulIOp::create(b, gx, perGroup);
    Value group = arith::DivUIOp::create(b, linear, groupBlocks);
    Value first = arith::MulIOp::create(b, group, perGroup);
    Value size = a.min(perGroup, a.sub(units, first));
    Value o = arith::RemUIOp::create(b, linear, groupBlocks);
    Value unit = a.add(first, arith::RemUIOp::create(b, o, size));
    Value tile = a.sub(a.sub(gx, idx(1)), arith::DivUIOp::create(b, o, size));
    return {tile, arith::RemUIOp::create(b, unit, gy),
            arith::DivUIOp::create(b, unit, gy)};
  });
}

//===----------------------------------------------------------------------===//
// The key tiles' TMA boxes (the wgmma kernel's producer, and tma_loads)
//===----------------------------------------------------------------------===//

/// Bytes of a K (or with `values` V) tile's boxes: ceil(D / 64) boxes of
/// 64 16-bit elements a row, or ceil(D / 128) of 128 fp8 codes.
int64_t KernelBuilder::boxBytes(bool values) const {
  const int64_t boxCols = problem.kvFp8 ? 128 : 64;
  return ((values ? dv : d) + boxCols - 1) / boxCols * swizzled.keyBoxBytes;
}

/// Byte offset of stage `stage`'s K (or V) tile in shared memory; over an
/// fp8 cache, of its stage of codes (from swizzled.fp8Offset).
Value KernelBuilder::tileBase(Value stage, bool values) {
  if (problem.kvFp8)
    return a.add(idx(swizzled.fp8Offset + (values ? swizzled.codeVOffset : 0)),
                 arith::MulIOp::create(b, stage, idx(swizzled.codeStageBytes)));
  return a.add(arith::MulIOp::create(b, stage, idx(stageBytes)),
               idx(values ? vOffset : 0));
}

/// A page id (index) read from the table, clamped into [0, num_pages) (a
/// wrong page, never outside the buffer).
Value KernelBuilder::clampPage(Value id) {
  return a.min(a.max(id, idx(0)), keyBoxes.lastPage);
}

/// The raw entry (i32) page_table[batch, key / P]: key `key` of the
/// sequence is row key mod P of that page, at element offset page *
/// stride_b + (key mod P) * stride_s from the head's pointer (i64: pages
/// may span more than 2^31 elements).
Value KernelBuilder::pageEntry(Value key) {
  return LLVM::LoadOp::create(
      b, i32,
      gep(keyBoxes.pageRow,
          arith::DivUIOp::create(b, key, idx(problem.pageSize)), i32),
      /*align=*/4);
}

/// pageEntry of `key` clamped to the sequence's last key (a real page for
/// keys past it).
Value KernelBuilder::pageEntryUpTo(Value key) {
  return pageEntry(a.min(key, a.max(a.sub(keyBoxes.seqK, idx(1)), idx(0))));
}

/// With boxIssuers() > 1 the producer is the first lane of several warps:
/// the lane's warp counted from the producer warpgroup's first (index; 0
/// with one issuer).
Value KernelBuilder::producerWarp() {
  if (boxIssuers() == 1)
    return idx(0);
  return a.sub(arith::DivUIOp::create(
                   b, gpu::ThreadIdOp::create(b, gpu::Dimension::x), idx(32)),
               idx(config.getWarps()));
}

/// Whether the lane's producer warp is `w` (i1).
Value KernelBuilder::producerWarpIs(int64_t w) {
  return arith::CmpIOp::create(b, arith::CmpIPredicate::eq, producerWarp(),
                               idx(w));
}

/// `fn` emitted under an scf.if on producerWarpIs(w) (as is with one
/// issuer).
void KernelBuilder::onProducerWarp(int64_t w, llvm::function_ref<void()> fn) {
  if (boxIssuers() == 1) {
    fn();
    return;
  }
  auto ifWarp =
      scf::IfOp::create(b, producerWarpIs(w), /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&ifWarp.getThenRegion().front());
  fn();
}

/// The K or V boxes of rows from `row` (i32) of entry `entry` (index: the
/// batch entry, or a page) into shared memory from byte `base`, completing
/// on `bar`.
void KernelBuilder::loadBoxesAt(bool values, Value base, Value row, Value entry,
                                Value bar) {
  const int64_t boxCols = problem.kvFp8 ? 128 : 64;
  for (int64_t box = 0; box * boxCols < (values ? dv : d); ++box)
    tma::load(b, mmaE->smemAt(a.add(base, idx(box * swizzled.keyBoxBytes))),
              arg(values ? abi::VMap : abi::KMap),
              {i32c(boxCols * box), row, toI32(keyBoxes.kvHead), toI32(entry)},
              bar);
}

// The wgmma kernel over a paged cache: a key tile is bk / R boxes of R =
// min(P, bk) rows (a page, or a tile of a larger page: GpuTarget makes one
// divide the other), box j at rows j R of the stage from row (k0 + j R)
// mod P of page page_table[batch, (k0 + j R) / P], the key clamped to the
// sequence's last (a real page, whose rows there are masked and, in V,
// zeroed) and the id into [0, num_pages). Producer warp w issues boxes j =
// w + i * issuers (its slot i), so each lane holds its own boxes' entries.
// It reads them (raw: nothing uses them where they are read) a tile ahead
// of its loads (TmaKeyLoop::Hooks::ahead), once for the tile's K and V.

/// The first key of slot i's box of tile kt (index).
Value KernelBuilder::slotKey(Value kt, int64_t i) {
  const int64_t bk = config.getBlockK();
  const int64_t boxRows =
      problem.pageSize ? std::min(problem.pageSize, bk) : bk;
  Value box = a.add(producerWarp(), idx(i * boxIssuers()));
  return a.add(arith::MulIOp::create(b, kt, idx(bk)),
               arith::MulIOp::create(b, box, idx(boxRows)));
}

/// Slot i's raw page-table entry of tile kt (i32).
Value KernelBuilder::slotEntry(Value kt, int64_t i) {
  return pageEntryUpTo(slotKey(kt, i));
}

/// Every slot's raw page-table entry of tile kt.
SmallVector<Value> KernelBuilder::tilePageEntries(Value kt) {
  SmallVector<Value> entries;
  for (int64_t i = 0; i < boxSlots(); ++i)
    entries.push_back(slotEntry(kt, i));
  return entries;
}

/// Slot i's box of tile kt from page-table entry `entry` (raw).
void KernelBuilder::loadSlotBox(bool values, Value kt, Value stage, Value bar,
                                int64_t i, Value entry) {
  Value k0 = arith::MulIOp::create(b, kt, idx(config.getBlockK()));
  Value key = slotKey(kt, i);
  // Rows key - k0 of the stage, 128 bytes a row.
  Value rowBytes =
      arith::MulIOp::create(b, a.sub(key, k0), idx(kSwizzleRowBytes));
  loadBoxesAt(values, a.add(tileBase(stage, values), rowBytes),
              toI32(arith::RemUIOp::create(b, key, idx(problem.pageSize))),
              clampPage(indexOf(entry)), bar);
}

/// The K (or V) boxes of tile kt into stage `stage`; `entries`:
/// tilePageEntries of kt (a paged cache's wgmma kernel only; none: read
/// here).
void KernelBuilder::loadBoxes(bool values, Value kt, Value stage, Value bar,
                              ValueRange entries) {
  Value k0 = arith::MulIOp::create(b, kt, idx(config.getBlockK()));
  if (problem.pageSize && config.getWgmma()) {
    for (int64_t i = 0; i < boxSlots(); ++i)
      loadSlotBox(values, kt, stage, bar, i,
                  entries.empty() ? slotEntry(kt, i) : entries[i]);
    return;
  }
  // Packed keys of a ragged batch: rows from the sequence's start in batch
  // entry 0 (rows past its end are masked, their V rows zeroed).
  loadBoxesAt(values, tileBase(stage, values), toI32(a.add(place.kStart, k0)),
              place.kBatch, bar);
}

//===----------------------------------------------------------------------===//
// The fp8 codes' conversion by the wgmma kernel's producer warpgroup
//===----------------------------------------------------------------------===//

/// The K (values false) or V codes of tile kt for ring use `use`, once
/// their stage of codes has been converted from (its empty barrier's
/// previous phase); `inRange` (i1): kt is below hi.
/// `entries`: a paged cache's entries of kt's K boxes read ahead (none:
/// read here). With `keptEntries` the K codes' entries are kept in the
/// stage's slots and the V codes' read from there.
void KernelBuilder::loadCodes(bool values, Value kt, Value use, Value inRange,
                              ValueRange entries, bool keptEntries) {
  const int64_t stages = config.getStages();
  const int64_t pageSize = problem.pageSize;
  const int64_t boxSlots = this->boxSlots();
  Value producerLane0 = codes.producerLane0;
  auto ifLoad =
      scf::IfOp::create(b, arith::AndIOp::create(b, inRange, producerLane0),
                        /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&ifLoad.getThenRegion().front());
  Value stage = arith::RemUIOp::create(b, use, idx(stages));
  Value n = arith::DivUIOp::create(b, use, idx(stages));
  tma::wait(b, codeBarrier(2 + values, stage),
            toI32(arith::RemUIOp::create(b, a.add(n, idx(1)), idx(2))));
  Value bar = codeBarrier(values, stage);
  tma::arriveExpectTx(b, bar, boxBytes(values));
  if (!pageSize) {
    loadBoxes(values, kt, stage, bar, {});
    return;
  }
  // The K codes' entries, read ahead, are kept in the stage's slots for
  // its V codes, which the first lane loads an iteration later.
  auto slot = [&](int64_t i) {
    return mmaE->smemAt(
        a.add(idx(swizzled.entryOffset + 4 * i),
              arith::MulIOp::create(
                  b, stage, idx(4 * SwizzledSmemLayout::kMaxBoxSlots))));
  };
  for (int64_t i = 0; i < boxSlots; ++i) {
    Value entry;
    if (values && keptEntries) {
      entry = LLVM::LoadOp::create(b, i32, slot(i), /*align=*/4);
    } else {
      entry = entries.empty() ? slotEntry(kt, i) : entries[i];
      if (keptEntries)
        LLVM::StoreOp::create(b, entry, slot(i), /*align=*/4);
    }
    loadSlotBox(values, kt, stage, bar, i, entry);
  }
}

/// Thread p of the producer warpgroup converts 16-code chunks of a tile
/// (D = 128: 8 a row), 16 rows at a time: lanes l = p mod 16 of group p /
/// 16 take rows 2 (p / 16) + ((l mod 8) / 4 xor l / 8) + 16 i, chunk l
/// mod 8, so its rows' swizzle phase (row mod 8) is the same in every i
/// and each quarter-warp's 16-byte loads and stores meet 8 distinct bank
/// groups (half its lanes on an even row, half on an odd one, with the
/// chunks' halves apart). Code chunk c of a row (16 codes at (c xor row
/// mod 8) * 16) becomes the 16-bit chunks 2c and 2c + 1 (box 2c / 8, each
/// at its own chunk xor row mod 8): the tile the TMA would have written.
/// A thread's loads are issued a batch at a time (kCodeLoadBatch) before
/// the batch's stores, which ptxas would not move them past.
void KernelBuilder::convertCodes(bool values, Value stage, Value full) {
  const int64_t bk = config.getBlockK();
  const int64_t pageSize = problem.pageSize;
  Value tid = codes.tid;
  const int64_t width = values ? dv : d, perRow = width / 16;
  assert(perRow == 8 && "the converter takes rows of 128 codes");
  const int64_t rowStep = kProducerThreads / perRow;
  Value p = a.sub(tid, idx(32 * config.getWarps()));
  Value lane16 = arith::RemUIOp::create(b, p, idx(16));
  Value c = arith::RemUIOp::create(b, lane16, idx(8));
  Value row = a.add(
      arith::MulIOp::create(b, arith::DivUIOp::create(b, p, idx(16)), idx(2)),
      arith::XOrIOp::create(b, arith::DivUIOp::create(b, c, idx(4)),
                            arith::DivUIOp::create(b, lane16, idx(8))));
  Value phase = arith::RemUIOp::create(b, row, idx(8));
  Value rowBytes = arith::MulIOp::create(b, row, idx(kSwizzleRowBytes));
  Value src = a.add(
      a.add(tileBase(stage, values), rowBytes),
      arith::MulIOp::create(b, arith::XOrIOp::create(b, c, phase), idx(16)));
  Value dstTile = a.add(arith::MulIOp::create(b, stage, idx(stageBytes)),
                        idx(values ? vOffset : 0));
  Value c2 = arith::MulIOp::create(b, c, idx(2));
  SmallVector<Value, 2> dst;
  for (int64_t half = 0; half < 2; ++half) {
    Value chunk = a.add(c2, idx(half));
    dst.push_back(a.add(
        a.add(dstTile, rowBytes),
        a.add(arith::MulIOp::create(b, arith::DivUIOp::create(b, chunk, idx(8)),
                                    idx(swizzled.keyBoxBytes)),
              arith::MulIOp::create(
                  b,
                  arith::XOrIOp::create(
                      b, arith::RemUIOp::create(b, chunk, idx(8)), phase),
                  idx(16)))));
  }
  Type v4 = VectorType::get({4}, i32);
  const int64_t chunks = bk / rowStep;
  auto at = [&](Value base, int64_t j) {
    return mmaE->smemAt(a.add(base, idx(j * rowStep * kSwizzleRowBytes)));
  };
  const int64_t batch = pageSize ? kCodeLoadBatch / 2 : kCodeLoadBatch;
  for (int64_t first = 0; first < chunks; first += batch) {
    const int64_t last = std::min(first + batch, chunks);
    SmallVector<Value> loaded;
    for (int64_t j = first; j < last; ++j)
      loaded.push_back(LLVM::LoadOp::create(b, v4, at(src, j), /*align=*/16));
    for (int64_t j = first; j < last; ++j) {
      SmallVector<Value> words;
      for (int64_t w = 0; w < 4; ++w) {
        auto [lo, hi] = mmaV->convertFp8x4(LLVM::ExtractElementOp::create(
            b, loaded[j - first], arith::ConstantIntOp::create(b, w, 32)));
        words.push_back(lo);
        words.push_back(hi);
      }
      for (int64_t half = 0; half < 2; ++half) {
        Value out = LLVM::UndefOp::create(b, v4);
        for (int64_t w = 0; w < 4; ++w)
          out = LLVM::InsertElementOp::create(
              b, out, words[4 * half + w],
              arith::ConstantIntOp::create(b, w, 32));
        LLVM::StoreOp::create(b, out, at(dst[half], j), /*align=*/16);
      }
    }
  }
  NVVM::FenceProxyOp::create(
      b, NVVM::ProxyKind::async_shared,
      NVVM::SharedSpaceAttr::get(b.getContext(),
                                 NVVM::SharedSpace::shared_cta));
  tma::arrive(b, full);
}

/// A stage's K or V codes complete phase n of their full barrier with
/// its 16-bit use n. Once converted, the stage of codes takes tile kt +
/// stages's (whose ring use is `stages` further).
void KernelBuilder::convertHalf(bool values, Value stage, Value round,
                                Value full) {
  tma::wait(b, codeBarrier(values, stage),
            toI32(arith::RemUIOp::create(b, round, idx(2))));
  convertCodes(values, stage, full);
  tma::arrive(b, codeBarrier(2 + values, stage));
}

void KernelBuilder::refill(bool values, Value kt, Value stage, Value round,
                           Value cond, ValueRange entries) {
  const int64_t stages = config.getStages();
  const KeyTileRange &range = codes.range;
  Value next = a.add(kt, idx(stages));
  Value inRange =
      arith::CmpIOp::create(b, arith::CmpIPredicate::slt, next, range.hi);
  loadCodes(
      values, next,
      a.add(arith::MulIOp::create(b, a.add(round, idx(1)), idx(stages)), stage),
      cond ? arith::AndIOp::create(b, cond, inRange) : inRange, entries,
      /*keptEntries=*/true);
}

/// Over pages, the entries of the K codes an iteration loads (tile kt +
/// stages's), read at its top, so that their latency hides behind the
/// conversions; its V codes (tile kt - 1 + stages's) take those the
/// iteration before kept.
SmallVector<Value> KernelBuilder::codeEntries(Value kt) {
  const int64_t stages = config.getStages();
  return tilePageEntries(a.add(kt, idx(stages)));
}

/// The refill of a stage of K codes waits for every converter to be done
/// with it, and its first lane then issues the loads (over pages, a box a
/// page): after the values of kt - 1 are converted, not between them and
/// the keys of kt, where the values' full barrier waited for that lane
/// (the consumers wait for the values). The first tile's K codes refill
/// at once (no values before them in the loop).
void KernelBuilder::convertKeys(Value kt, Value stage, Value round, Value full,
                                ValueRange entries) {
  const KeyTileRange &range = codes.range;
  convertHalf(false, stage, round, full);
  refill(false, kt, stage, round,
         arith::CmpIOp::create(b, arith::CmpIPredicate::eq, kt, range.lo),
         entries);
  keyRefill = KeyRefill{kt, stage, round, llvm::to_vector(entries)};
}

void KernelBuilder::convertValues(Value kt, Value stage, Value round,
                                  Value full) {
  convertHalf(true, stage, round, full);
  // In the loop (past its first tile), the keys converted in this
  // iteration; after it, none (their values are the loop body's).
  if (keyRefill && keyRefill->kt.getParentRegion()->isAncestor(
                       b.getInsertionBlock()->getParent()))
    refill(false, keyRefill->kt, keyRefill->stage, keyRefill->round, nullptr,
           keyRefill->entries);
  refill(true, kt, stage, round, nullptr, {});
}

//===----------------------------------------------------------------------===//
// The wgmma consumers' GEMMs
//===----------------------------------------------------------------------===//

/// O (`acc`, `slotOf` its row slots) rescaled by the tile's factors: only
/// where a row of the warp moved its maximum (sm.grown).
SmallVector<Value>
KernelBuilder::rescaleO(SmallVector<Value> acc, const TileSoftmax &sm,
                        llvm::function_ref<int64_t(int64_t)> slotOf) {
  auto scaled = [&]() {
    for (int64_t i = 0; i < static_cast<int64_t>(acc.size()); ++i)
      acc[i] = arith::MulFOp::create(b, acc[i], sm.alpha[slotOf(i)]);
    return acc;
  };
  if (!sm.grown)
    return scaled();
  auto ifGrown =
      scf::IfOp::create(b, ValueRange(acc).getTypes(), sm.grown, true, true);
  {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(&ifGrown.getElseRegion().front());
    scf::YieldOp::create(b, acc);
    b.setInsertionPointToStart(&ifGrown.getThenRegion().front());
    scf::YieldOp::create(b, scaled());
  }
  return SmallVector<Value>(ifGrown.getResults());
}

/// The wgmma kernel's GEMMs on the tile at byte `stageBase`, issued and
/// committed, not waited for. S = Q K^T: the warpgroup's 64 rows of Q (its
/// slab of each box, at byte qSlab()) against the tile's bk keys, both
/// K-major. O += P V: P as pRegs = bk / 4 32-bit pairs (packP of the
/// weights), V read MN-major, its boxes (64 value columns each) the leading
/// byte offset apart.
Value KernelBuilder::qSlab() {
  Value warpGroup = consumer.warpGroup;
  return a.add(idx(qOffset),
               arith::MulIOp::create(b, warpGroup, idx(64 * kSwizzleRowBytes)));
}

SmallVector<Value> KernelBuilder::issueQK(Value slab, Value stageBase) {
  const int64_t bk = config.getBlockK();
  const int64_t kSteps = d / 16;
  return wgmmaE->gemmSS(wgmmaE->descriptor(slab, 16, 1024),
                        swizzled.queryBoxBytes,
                        wgmmaE->descriptor(stageBase, 16, 1024),
                        swizzled.keyBoxBytes, kSteps, bk);
}

SmallVector<Value> KernelBuilder::packP(ArrayRef<Value> weights) {
  const int64_t pRegs = config.getBlockK() / 16 * 4;
  SmallVector<Value> p;
  for (int64_t i = 0; i < pRegs; ++i)
    p.push_back(mmaV->packPair(weights[2 * i], weights[2 * i + 1]));
  return p;
}

/// Packed keys of a ragged batch: a TMA tile that runs past the
/// sequence's keys holds the next sequence's rows (or whatever follows the
/// last); in a cache with per-sequence lengths (kv_lens), whatever the
/// rows past the sequence's length hold. Their scores are masked, but P V
/// would still multiply the zero weights by those V rows (NaN * 0 is NaN):
/// before the P V of such a tile (only a sequence's last can be), the consumer
/// threads zero its V rows past the keys, make the writes visible to wgmma's
/// async proxy and meet at a named barrier. The 128-byte swizzle permutes the
/// 16-byte chunks within a row, so a row of a box is its 128 contiguous bytes.
/// The condition is uniform over the consumers. tma_loads over an fp8 cache
/// zeroes the V codes (rows of boxes of 128 codes from `codes`) before their
/// conversion instead.
void KernelBuilder::zeroVTail(Value kt, Value stageBase, Value codes) {
  const int64_t bk = config.getBlockK();
  const bool wgmma = config.getWgmma();
  const bool tmaLoads = config.getTmaLoads();
  const int64_t boxCols = problem.kvFp8 ? 128 : 64;
  const bool raggedK = place.raggedK;
  Value seqK = consumer.seqK;
  Value tid = consumer.tid;
  if (!((raggedK || problem.kvLens) && wgmma) && !(tmaLoads && problem.kvLens))
    return;
  Value k0 = arith::MulIOp::create(b, kt, idx(bk));
  Value keep = a.max(a.min(a.sub(seqK, k0), idx(bk)), idx(0));
  Value partial =
      arith::CmpIOp::create(b, arith::CmpIPredicate::ult, keep, idx(bk));
  auto ifPartial = scf::IfOp::create(b, partial, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&ifPartial.getThenRegion().front());
  // Boxes of 128 codes (the TMA stage of codes), or of 64 16-bit values
  // (the wgmma kernel's V tile, also where its producer converts codes).
  const int64_t zeroBoxCols = codes ? boxCols : 64;
  const int64_t boxes = (dv + zeroBoxCols - 1) / zeroBoxCols,
                perRow = boxes * 8;
  const int64_t consumers = 32 * config.getWarps();
  Value chunks = arith::MulIOp::create(b, a.sub(idx(bk), keep), idx(perRow));
  Type v4 = VectorType::get({4}, i32);
  Value zeros = LLVM::ZeroOp::create(b, v4);
  scf::ForOp::create(
      b, tid, chunks, idx(consumers), ValueRange(),
      [&](OpBuilder &lb, Location loc, Value chunk, ValueRange) {
        ImplicitLocOpBuilder ib(loc, lb);
        IndexArith ia{ib};
        Value r = ia.add(keep, arith::DivUIOp::create(ib, chunk, idx(perRow)));
        Value rest = arith::RemUIOp::create(ib, chunk, idx(perRow));
        Value box = arith::DivUIOp::create(ib, rest, idx(8));
        Value c = arith::RemUIOp::create(ib, rest, idx(8));
        Value at = ia.add(
            codes ? codes : ia.add(stageBase, idx(vOffset)),
            ia.add(arith::MulIOp::create(ib, box, idx(swizzled.keyBoxBytes)),
                   ia.add(arith::MulIOp::create(ib, r, idx(kSwizzleRowBytes)),
                          arith::MulIOp::create(ib, c, idx(16)))));
        LLVM::StoreOp::create(ib, zeros, mmaE->smemAt(at), /*align=*/16);
        scf::YieldOp::create(ib);
      });
  NVVM::FenceProxyOp::create(
      b, NVVM::ProxyKind::async_shared,
      NVVM::SharedSpaceAttr::get(b.getContext(),
                                 NVVM::SharedSpace::shared_cta));
  NVVM::BarrierOp::create(b, /*res=*/Type(), i32c(kZeroTailBarrier),
                          i32c(consumers), /*reductionOp=*/{},
                          /*reductionPredicate=*/Value());
}

/// O += P V over keys [from, to) of the tile (multiples of 16).
SmallVector<Value> KernelBuilder::keyRangePV(ArrayRef<Value> p, Value stageBase,
                                             ArrayRef<Value> acc, int64_t from,
                                             int64_t to) {
  SmallVector<SmallVector<Value, 4>> frags;
  for (int64_t kk = from / 16; kk < to / 16; ++kk)
    frags.push_back({p[4 * kk], p[4 * kk + 1], p[4 * kk + 2], p[4 * kk + 3]});
  return wgmmaE->gemmRS(
      frags,
      wgmmaE->descriptor(
          a.add(stageBase, idx(vOffset + from * kSwizzleRowBytes)),
          swizzled.keyBoxBytes, 1024),
      acc);
}

SmallVector<Value> KernelBuilder::issuePV(ArrayRef<Value> p, Value stageBase,
                                          ArrayRef<Value> acc) {
  const int64_t bk = config.getBlockK();
  return keyRangePV(p, stageBase, acc, 0, bk);
}

/// trim_keys: where the warpgroup's rows see only keys [0, trimSplit) or
/// [trimSplit, bk) of tile kt (the weights of the others are 0), P V reads
/// only their key steps. S stays whole: S GEMMs of two widths merging at a
/// branch made ptxas 13.0 serialise every wgmma of the kernel (C7511),
/// even with the branch in the first tile's S only; the same width in
/// every branch spilled 40 bytes.
SmallVector<Value> KernelBuilder::issuePVAt(ArrayRef<Value> p, Value stageBase,
                                            ArrayRef<Value> acc, Value kt) {
  const int64_t bk = config.getBlockK();
  const bool trimKeys = consumer.trimKeys;
  const int64_t trimSplit = config.getBlockK() / 32 * 16;
  Value wgKeyLo = consumer.wgKeyLo, wgKeyHi = consumer.wgKeyHi;
  if (!trimKeys)
    return issuePV(p, stageBase, acc);
  Value split = a.add(arith::MulIOp::create(b, kt, idx(bk)), idx(trimSplit));
  Value lower =
      arith::CmpIOp::create(b, arith::CmpIPredicate::sle, wgKeyHi, split);
  Value upper =
      arith::CmpIOp::create(b, arith::CmpIPredicate::sge, wgKeyLo, split);
  SmallVector<Type> types(acc.size(), f32);
  OpBuilder::InsertionGuard g(b);
  auto ifLower = scf::IfOp::create(b, types, lower, true);
  b.setInsertionPointToStart(&ifLower.getThenRegion().front());
  scf::YieldOp::create(b, keyRangePV(p, stageBase, acc, 0, trimSplit));
  b.setInsertionPointToStart(&ifLower.getElseRegion().front());
  auto ifUpper = scf::IfOp::create(b, types, upper, true);
  scf::YieldOp::create(b, ifUpper.getResults());
  b.setInsertionPointToStart(&ifUpper.getThenRegion().front());
  scf::YieldOp::create(b, keyRangePV(p, stageBase, acc, trimSplit, bk));
  b.setInsertionPointToStart(&ifUpper.getElseRegion().front());
  scf::YieldOp::create(b, issuePV(p, stageBase, acc));
  return SmallVector<Value>(ifLower.getResults());
}

//===----------------------------------------------------------------------===//
// Key tiles: the tiled IR's bounds and tile tests, and the wgmma consumers'
// loop
//===----------------------------------------------------------------------===//

/// Host value `host` of the tiled IR computed in the kernel at the
/// insertion point (through `map`); where it cannot be, rematFailed is
/// set and 0 returned.
Value KernelBuilder::kernelValue(Value host, IRMapping &map) {
  FailureOr<Value> v = remat->get(host, map);
  if (failed(v)) {
    rematFailed = true;
    return idx(0);
  }
  return *v;
}

TileFlags KernelBuilder::tileFlags(Value kt) {
  IRMapping map = hostToKernel;
  map.map(tiled.loops[0].getInductionVar(), kt);
  Value any = kernelValue(tiled.anyTile.getCondition(), map);
  TileFlags flags;
  flags.full = kernelValue(tiled.fullTile.getCondition(), map);
  flags.empty =
      arith::XOrIOp::create(b, any, arith::ConstantIntOp::create(b, 1, 1));
  return flags;
}

/// `cond` and, with a tile test, tile `kt` not empty. The test runs only
/// when `cond` holds (kt < hi), so it never reads mask operands for a tile
/// past the keys (none exist when Sk = 0).
Value KernelBuilder::notEmpty(Value kt, Value cond) {
  const bool tileTest = scores.tileTest;
  if (!tileTest)
    return cond;
  auto ifCond = scf::IfOp::create(b, TypeRange{b.getI1Type()}, cond,
                                  /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&ifCond.getThenRegion().front());
  Value empty = tileFlags(kt).empty;
  scf::YieldOp::create(b,
                       ValueRange{arith::XOrIOp::create(
                           b, empty, arith::ConstantIntOp::create(b, 1, 1))});
  b.setInsertionPointToStart(&ifCond.getElseRegion().front());
  scf::YieldOp::create(b, ValueRange{arith::ConstantIntOp::create(b, 0, 1)});
  return ifCond.getResult(0);
}

/// Tile kt's flags when kt < hi; past it (no tile, nothing to read) empty.
TileFlags KernelBuilder::guardedTileFlags(Value kt, Value hi) {
  Value inRange = arith::CmpIOp::create(b, arith::CmpIPredicate::slt, kt, hi);
  Type i1 = b.getI1Type();
  auto ifIn = scf::IfOp::create(b, TypeRange{i1, i1}, inRange,
                                /*withElseRegion=*/true);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&ifIn.getThenRegion().front());
    TileFlags f = tileFlags(kt);
    scf::YieldOp::create(b, ValueRange{f.empty, f.full});
    b.setInsertionPointToStart(&ifIn.getElseRegion().front());
    scf::YieldOp::create(b, ValueRange{arith::ConstantIntOp::create(b, 1, 1),
                                       arith::ConstantIntOp::create(b, 0, 1)});
  }
  TileFlags f;
  f.empty = ifIn.getResult(0);
  f.full = ifIn.getResult(1);
  return f;
}

/// The wgmma consumers' loop with the softmax of one tile overlapping the
/// GEMMs (FlashAttention-3, Algorithm 2): at tile kt, S = Q K(kt)^T and
/// O += P(prev) V(prev) are issued together; the softmax of S runs while
/// P V completes; O is then rescaled to the new row maxima and P(kt)
/// packed (its registers free only once the P V reading the previous P
/// has completed). The state carries P of the last tile (bf16/f16 pairs)
/// besides m, l and O. Without a tile test every tile of [lo, hi) is
/// visited (prev = kt - 1). With one (`compacted`: block masks, seq_ids
/// documents, mask_fn regions on a block grid) the ring is compacted:
/// the producer loads only the tiles holding a visible pair and writes
/// which tile each ring use holds (and its `full` flag) beside its keys'
/// stage, then marks the use after the last one as the end
/// (TmaKeyLoop::produceCompacted); the loop visits the uses in order,
/// reading each one's tile once its keys have landed, and carries the
/// ring's next use and the last tile visited (prev). The consumers test
/// no tiles.
ValueRange KernelBuilder::overlappedWgmmaLoop(Value lo, Value hi,
                                              ValueRange inits,
                                              bool compacted) {
  Value releases = consumer.releases;
  const bool earlyQ = consumer.earlyQ;
  Value warpGroup = consumer.warpGroup;
  const int64_t slots = 2 * config.getMTiles();
  const int64_t pRegs = config.getBlockK() / 16 * 4;
  const int64_t vTiles = dv / 8;
  Value slab = qSlab();
  // Q's empty barrier, arrived on where `cond` holds (earlyQ).
  auto releaseQIf = [&](Value cond) {
    if (!earlyQ)
      return;
    auto ifRelease =
        scf::IfOp::create(b, arith::AndIOp::create(b, cond, releases),
                          /*withElseRegion=*/false);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(&ifRelease.getThenRegion().front());
    tma::arrive(b, qBarrier(1));
  };
  auto isLastTile = [&](Value kt) {
    return arith::CmpIOp::create(b, arith::CmpIPredicate::eq, kt,
                                 a.sub(hi, idx(1)));
  };
  MmaAccumulatorLayout accLayout{1, vTiles};
  Value one = idx(1);
  // Ping-pong (FlashAttention-3): with several consumer warpgroups, they
  // take turns to issue their GEMMs, so that one's softmax runs while
  // another's GEMMs hold the tensor cores. Warpgroup g waits on named
  // barrier 1 + g (its 128 threads and the 128 of the warpgroup before it,
  // which arrive once they have issued); the last warpgroup lets the first
  // start. A tile test is block-uniform: every warpgroup visits the same
  // tiles.
  const int64_t groups = config.getWarps() / 4;
  // Turns (ping_pong), with more than one consumer warpgroup.
  const bool turns = groups > 1 && config.getPingPong();
  Value i32Threads = i32c(256);
  auto turnBarrier = [&](Value group) {
    return arith::AddIOp::create(b, arith::IndexCastOp::create(b, i32, group),
                                 i32c(1));
  };
  // A compacted ring's use: its keys waited for, and the tile the
  // producer announced with them (TmaKeyLoop::produceCompacted): the
  // keys' stage offset and the word, 2 kt + full or -1 past the last.
  auto ringUse = [&](Value use) -> std::pair<Value, Value> {
    Value stage = tmaLoop->waitKeys(use);
    Value word = LLVM::LoadOp::create(
        b, b.getI32Type(),
        tileSlot(arith::RemUIOp::create(b, use, idx(config.getStages()))),
        /*align=*/4);
    return {stage, word};
  };
  auto wordTile = [&](Value word) {
    return arith::IndexCastOp::create(
               b, b.getIndexType(),
               arith::ShRSIOp::create(b, word,
                                      arith::ConstantIntOp::create(b, 1, 32)))
        .getResult();
  };
  auto wordFull = [&](Value word) {
    return arith::TruncIOp::create(b, b.getI1Type(), word).getResult();
  };
  // The first tile: lo, or the compacted ring's first use's (its word -1
  // when no tile of [lo, hi) holds a visible pair), with its flags. The
  // compacted ring's uses count from the block's earlier items' (ringBase:
  // their visible tiles and an end use each) on a persistent grid.
  Value ringStart = ringBase ? ringBase : idx(0);
  Value first = lo;
  TileFlags firstFlags;
  Value any, firstStage;
  if (compacted) {
    auto [stage, word] = ringUse(ringStart);
    firstStage = stage;
    first = wordTile(word);
    firstFlags.full = wordFull(word);
    firstFlags.empty = arith::ConstantIntOp::create(b, 0, 1);
    any = arith::CmpIOp::create(b, arith::CmpIPredicate::sge, word,
                                arith::ConstantIntOp::create(b, 0, 32));
  } else {
    any = arith::CmpIOp::create(b, arith::CmpIPredicate::slt, first, hi);
  }
  // A persistent grid's compacted ring: the end use (the item's last)
  // comes out of the scf.if too, and Q is released once the item's last S
  // has completed (earlyQ).
  const bool ringGoesOn = compacted && round;
  SmallVector<Type> anyTypes(inits.getTypes().begin(), inits.getTypes().end());
  if (ringGoesOn)
    anyTypes.push_back(b.getIndexType());
  auto ifAny = scf::IfOp::create(b, anyTypes, any, /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&ifAny.getElseRegion().front());
  if (ringGoesOn)
    releaseQIf(arith::ConstantIntOp::create(b, 1, 1));
  SmallVector<Value> noTile(inits);
  if (ringGoesOn)
    noTile.push_back(ringStart);
  scf::YieldOp::create(b, noTile);
  b.setInsertionPointToStart(&ifAny.getThenRegion().front());
  // A persistent grid keeps the turns going from one item to the next:
  // each item's first S and last P V take turns too, so that one
  // warpgroup's epilogue and first softmax run while another's GEMMs
  // hold the tensor cores. The first turn is given once, before the
  // block's first item with a key tile (no ring use before it).
  const bool continuousTurns = turns && round;
  auto takeTurn = [&]() {
    NVVM::BarrierOp::create(b, /*res=*/Type(), turnBarrier(warpGroup),
                            i32Threads, /*reductionOp=*/{},
                            /*reductionPredicate=*/Value());
  };
  auto passTurn = [&]() {
    NVVM::BarrierArriveOp::create(b,
                                  turnBarrier(arith::RemUIOp::create(
                                      b, a.add(warpGroup, one), idx(groups))),
                                  i32Threads);
  };
  if (turns) {
    Value last = arith::CmpIOp::create(b, arith::CmpIPredicate::eq, warpGroup,
                                       idx(groups - 1));
    // (On a compacted ring every earlier item took an end use besides its
    // visible tiles: none of them had a key tile when the uses before
    // this item are the items before it.)
    if (continuousTurns)
      last = arith::AndIOp::create(
          b, last,
          arith::CmpIOp::create(b, arith::CmpIPredicate::eq, ringBase,
                                compacted ? round : idx(0)));
    auto ifLast = scf::IfOp::create(b, last, /*withElseRegion=*/false);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(&ifLast.getThenRegion().front());
    NVVM::BarrierArriveOp::create(b, turnBarrier(idx(0)), i32Threads);
  }
  // The first tile: S and its softmax alone (O is still zero).
  // Each tile's keys are released once its S has completed, its values
  // once its P V has: the producer loads the next keys a tile earlier
  // than a release of the whole stage after P V would let it.
  // Ring uses: the compacted ring counts its own from 0.
  // A compacted ring's keys are released by every consumer thread, each
  // after its own read of the use's tile (TmaKeyLoop::keyReleaseArrivals).
  auto releaseKeys = [&](Value use) {
    tmaLoop->releaseKeys(
        use, compacted ? arith::ConstantIntOp::create(b, 1, 1).getResult()
                       : releases);
  };
  Value use0 = compacted ? ringStart : tmaLoop->useOf(first, lo);
  Value stage0 = compacted ? firstStage : tmaLoop->waitKeys(use0);
  if (continuousTurns)
    takeTurn();
  SmallVector<Value> s0Pending = issueQK(slab, stage0);
  if (continuousTurns)
    passTurn();
  SmallVector<Value> s0 = wgmmaE->wait(0, s0Pending);
  if (!compacted)
    releaseQIf(isLastTile(first));
  releaseKeys(use0);
  TileSoftmax firstSm =
      softmaxTile(first, firstFlags, s0, inits.take_front(slots),
                  inits.slice(slots, slots), /*oIsZero=*/true);
  SmallVector<Value> loopInits(firstSm.mNew);
  loopInits.append(firstSm.lNew);
  loopInits.append(inits.begin() + 2 * slots, inits.end());
  SmallVector<Value> p0 = packP(firstSm.p);
  loopInits.append(p0);
  // Compacted: the next use and the last tile visited.
  const size_t stateSize = loopInits.size();
  if (compacted)
    loopInits.append({a.add(ringStart, one), first});
  // One overlapped step at tile kt (ring use `use`) after ring use
  // prevUse: the new m, l, O and P. `keysStage`: the offset of use's keys,
  // already waited for (null: waited for here).
  auto step = [&](Value kt, Value use, Value prevUse, Value prevKt,
                  const TileFlags &flags, ValueRange it,
                  Value keysStage = nullptr) -> SmallVector<Value> {
    ValueRange m = it.take_front(slots), l = it.slice(slots, slots);
    ValueRange acc = it.slice(2 * slots, it.size() - 2 * slots - pRegs);
    ValueRange p = it.take_back(pRegs);
    Value stage = keysStage ? keysStage : tmaLoop->waitKeys(use);
    Value prevStage = tmaLoop->waitValues(prevUse);
    if (turns)
      takeTurn();
    SmallVector<Value> sPending = issueQK(slab, stage);
    SmallVector<Value> accPending = issuePVAt(SmallVector<Value>(p), prevStage,
                                              SmallVector<Value>(acc), prevKt);
    if (turns)
      passTurn();
    SmallVector<Value> sDone = wgmmaE->wait(1, sPending);
    releaseKeys(use);
    TileSoftmax sm = softmaxTile(kt, flags, sDone, m, l);
    SmallVector<Value> accDone = wgmmaE->wait(0, accPending);
    tmaLoop->releaseValues(prevUse, releases);
    if (!compacted)
      releaseQIf(isLastTile(kt));
    SmallVector<Value> yields(sm.mNew);
    yields.append(sm.lNew);
    yields.append(
        rescaleO(accDone, sm, [&](int64_t i) { return accLayout.slot(i); }));
    yields.append(packP(sm.p));
    return yields;
  };
  // Without a tile test every tile after the first; with one (compacted)
  // the visible ones only, as the producer announced them: each use's
  // keys are waited for before the loop's test, which reads their tile.
  Operation *loop;
  if (!compacted) {
    auto forOp = scf::ForOp::create(b, a.add(first, one), hi, one, loopInits);
    OpBuilder::InsertionGuard inner(b);
    b.setInsertionPointToStart(forOp.getBody());
    Value kt = forOp.getInductionVar();
    Value use = tmaLoop->useOf(kt, lo);
    scf::YieldOp::create(b, step(kt, use, a.sub(use, one), a.sub(kt, one),
                                 TileFlags(), forOp.getRegionIterArgs()));
    loop = forOp;
  } else {
    ValueRange initRange(loopInits);
    SmallVector<Type> types(initRange.getTypes().begin(),
                            initRange.getTypes().end());
    // The after region also takes the use's keys' offset and its word.
    SmallVector<Type> afterTypes(types);
    afterTypes.append({b.getIndexType(), b.getI32Type()});
    auto whileOp = scf::WhileOp::create(b, afterTypes, loopInits);
    OpBuilder::InsertionGuard inner(b);
    SmallVector<Location> locs(afterTypes.size(), b.getLoc());
    Block *before = b.createBlock(&whileOp.getBefore(), {}, types,
                                  ArrayRef<Location>(locs).drop_back(2));
    auto [stage, word] = ringUse(before->getArgument(stateSize));
    SmallVector<Value> forwarded(before->getArguments());
    forwarded.append({stage, word});
    scf::ConditionOp::create(
        b,
        arith::CmpIOp::create(b, arith::CmpIPredicate::sge, word,
                              arith::ConstantIntOp::create(b, 0, 32)),
        forwarded);
    Block *after = b.createBlock(&whileOp.getAfter(), {}, afterTypes, locs);
    ValueRange it = after->getArguments();
    ValueRange state = it.take_front(stateSize);
    Value use = it[stateSize], kt = wordTile(it[stateSize + 3]);
    TileFlags flags;
    flags.empty = arith::ConstantIntOp::create(b, 0, 1);
    flags.full = wordFull(it[stateSize + 3]);
    SmallVector<Value> yields =
        step(kt, use, a.sub(use, one), it[stateSize + 1], flags, state,
             /*keysStage=*/it[stateSize + 2]);
    yields.append({a.add(use, one), kt});
    scf::YieldOp::create(b, yields);
    loop = whileOp;
  }
  // The last tile's P V (the only tile that can run past a sequence's
  // keys: a ragged batch's, or its kv_lens).
  ValueRange fin = loop->getResults().take_front(stateSize);
  // Every S has completed (each step waits for its own).
  if (ringGoesOn)
    releaseQIf(arith::ConstantIntOp::create(b, 1, 1));
  Value last = compacted ? loop->getResult(stateSize + 1) : a.sub(hi, one);
  Value lastUse = compacted ? a.sub(loop->getResult(stateSize), one)
                            : tmaLoop->useOf(last, lo);
  Value lastStage = tmaLoop->waitValues(lastUse);
  zeroVTail(last, lastStage);
  if (continuousTurns)
    takeTurn();
  SmallVector<Value> accPending = issuePVAt(
      SmallVector<Value>(fin.take_back(pRegs)), lastStage,
      SmallVector<Value>(fin.slice(2 * slots, fin.size() - 2 * slots - pRegs)),
      last);
  if (continuousTurns)
    passTurn();
  SmallVector<Value> acc = wgmmaE->wait(0, accPending);
  tmaLoop->releaseValues(lastUse, releases);
  SmallVector<Value> yields(fin.take_front(2 * slots));
  yields.append(acc);
  if (ringGoesOn)
    yields.push_back(loop->getResult(stateSize));
  scf::YieldOp::create(b, yields);
  if (!ringGoesOn)
    return ifAny.getResults();
  // The end use: its word read by every thread, and no values in it; both
  // halves are released, so that the producer can go on into the next
  // item (TmaKeyLoop::produceCompacted), and the ring's uses go on after
  // it.
  b.setInsertionPointAfter(ifAny);
  Value end = ifAny.getResults().back();
  releaseKeys(end);
  tmaLoop->releaseValues(end, releases);
  tileUses = a.sub(a.add(end, one), ringStart);
  return ifAny.getResults().drop_back();
}

/// The key warps' row states merged (key_warps > 1): the warps of a row
/// group saw different keys, so each writes its m, l and accumulators to
/// shared memory and the group's first warp merges them as the combine
/// kernel merges splits; the rest of the epilogue then runs in an scf.if
/// on that warp, whose region `guard` keeps open.
void KernelBuilder::mergeKeyWarps(
    SmallVector<Value> &mFinal, SmallVector<Value> &lFinal,
    SmallVector<Value> &accFinal, Value warp, Value g, Value t, Value t2,
    std::optional<OpBuilder::InsertionGuard> &mergeGuard) {
  const bool tmaLoads = config.getTmaLoads();
  const int64_t keyWarps = config.getKeyWarps(), bq = config.getBlockQ();
  const int64_t mt = config.getMTiles(), slots = 2 * mt, vTiles = dv / 8;
  Value negInf = scores.negInf, zero = scores.zero;
  // The warps of a row group saw different keys: each writes its state to
  // shared memory (over the stages, once every copy has landed and every
  // warp is done with them), and the group's first warp merges them as
  // the combine kernel merges splits, then stores. (TMA loads have all
  // landed: the key loop waited on each one's barrier.)
  if (!tmaLoads)
    copier->wait(0);
  gpu::BarrierOp::create(b);
  Value keyWarp = arith::RemUIOp::create(b, warp, idx(keyWarps));
  auto smemF32 = [&](int64_t base, Value index) {
    return mmaE->smemAt(
        a.add(idx(base), arith::MulIOp::create(b, index, idx(4))));
  };
  auto rowOf = [&](Value w, int64_t sl) {
    return a.add(arith::MulIOp::create(b, w, idx(bq)),
                 a.add(g, idx(16 * (sl / 2) + 8 * (sl % 2))));
  };
  MmaAccumulatorLayout accLayout{mt, vTiles};
  auto accIndex = [&](Value row, int64_t i) {
    return a.add(arith::MulIOp::create(b, row, idx(dv)),
                 a.add(t2, idx(accLayout.column(i))));
  };
  auto lIndex = [&](Value row) {
    return a.add(arith::MulIOp::create(b, row, idx(4)), t);
  };
  for (int64_t sl = 0; sl < slots; ++sl) {
    Value row = rowOf(keyWarp, sl);
    LLVM::StoreOp::create(b, mFinal[sl], smemF32(layout.mergeMOffset, row), 4);
    LLVM::StoreOp::create(b, lFinal[sl],
                          smemF32(layout.mergeLOffset, lIndex(row)), 4);
  }
  for (int64_t i = 0; i < static_cast<int64_t>(accFinal.size()); ++i)
    LLVM::StoreOp::create(
        b, accFinal[i],
        smemF32(layout.mergeAccOffset,
                accIndex(rowOf(keyWarp, accLayout.slot(i)), i)),
        4);
  gpu::BarrierOp::create(b);
  Value first =
      arith::CmpIOp::create(b, arith::CmpIPredicate::eq, keyWarp, idx(0));
  auto ifFirst = scf::IfOp::create(b, first, /*withElseRegion=*/false);
  mergeGuard.emplace(b);
  b.setInsertionPointToStart(&ifFirst.getThenRegion().front());
  auto load = [&](int64_t base, Value index) {
    return LLVM::LoadOp::create(b, f32, smemF32(base, index), 4).getResult();
  };
  // Per slot: the largest row maximum, and each warp's factor
  // 2^(ref(m_w) - ref(M)) (0 for a warp that saw no key of the row).
  SmallVector<SmallVector<Value>> factor(slots);
  for (int64_t sl = 0; sl < slots; ++sl) {
    SmallVector<Value> m;
    Value top = negInf;
    for (int64_t w = 0; w < keyWarps; ++w) {
      m.push_back(load(layout.mergeMOffset, rowOf(idx(w), sl)));
      top = arith::MaximumFOp::create(b, top, m.back());
    }
    Value ref = softmax::reference(b, top);
    Value l = zero;
    for (int64_t w = 0; w < keyWarps; ++w) {
      factor[sl].push_back(
          softmax::rescale(b, softmax::reference(b, m[w]), ref));
      l = arith::AddFOp::create(
          b, l,
          arith::MulFOp::create(
              b, factor[sl][w],
              load(layout.mergeLOffset, lIndex(rowOf(idx(w), sl)))));
    }
    mFinal[sl] = top;
    lFinal[sl] = l;
  }
  for (int64_t i = 0; i < static_cast<int64_t>(accFinal.size()); ++i) {
    int64_t sl = accLayout.slot(i);
    Value sum = zero;
    for (int64_t w = 0; w < keyWarps; ++w)
      sum = arith::AddFOp::create(
          b, sum,
          arith::MulFOp::create(
              b, factor[sl][w],
              load(layout.mergeAccOffset, accIndex(rowOf(idx(w), sl), i))));
    accFinal[i] = sum;
  }
}

/// A segment of a persistent kernel's tail item (tailGeometry): each warp
/// writes its lanes' state (m and l of each slot, the accumulators) to
/// the segment's record in the scratch and adds the segment's key tiles
/// to the item's counter for the warp; the warp that brings it to the
/// item's key tiles merges the other segments' records into its state
/// (as the key_warps merge above) and stores the rows, the others store
/// nothing. The scratch (KernelAbi.h tailScratchFloats): a u32 counter
/// per (tail item, warp of the block), zeroed by the runtime before each
/// launch, padded to 16 bytes, then two records per block (its segments),
/// in which value v of consumer thread c sits at v * consumers + c (a
/// warp's accesses are 128 contiguous bytes).
/// Returns whether this segment stores the rows (i1), with the merged
/// state in mFinal, lFinal and accFinal.
Value KernelBuilder::mergeTailSegments(SmallVector<Value> &mFinal,
                                       SmallVector<Value> &lFinal,
                                       SmallVector<Value> &accFinal, Value tid,
                                       Value warp, Value lane) {
  const int64_t mt = config.getMTiles(), slots = 2 * mt, vTiles = dv / 8;
  MmaAccumulatorLayout accOut{mt, vTiles};
  TailSplit ts = tailOf(tailRaw);
  TailGeometry &g = ts.g;
  const int64_t consumers = 32 * config.getWarps();
  const int64_t blockWarps = config.getThreads() / 32;
  SmallVector<Value> state(mFinal);
  state.append(lFinal);
  state.append(accFinal);
  const int64_t values = static_cast<int64_t>(state.size());
  SmallVector<Type> stateTypes(values, f32);
  SmallVector<Type> withStore{b.getI1Type()};
  withStore.append(stateTypes);
  auto ifTail = scf::IfOp::create(b, withStore, ts.isTail,
                                  /*withElseRegion=*/true);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&ifTail.getElseRegion().front());
    SmallVector<Value> stores{arith::ConstantIntOp::create(b, 1, 1)};
    stores.append(state);
    scf::YieldOp::create(b, stores);
    b.setInsertionPointToStart(&ifTail.getThenRegion().front());
    U32Arith u{b};
    Value scratch = arg(abi::Scratch);
    // In floats: the counters, padded to 4, then record r of block l's
    // segment k (r = 2 l + k) at records + r * values * consumers.
    Value records = u.mul(
        u.div(u.add(u.mul(g.tailItems, i32c(blockWarps)), i32c(3)), i32c(4)),
        i32c(4));
    auto recordOf = [&](Value r) {
      return a.add(u.index(u.add(records, u.mul(r, i32c(values * consumers)))),
                   tid);
    };
    Value mine = recordOf(u.add(u.mul(g.block, i32c(2)), ts.segment));
    for (int64_t v = 0; v < values; ++v)
      LLVM::StoreOp::create(
          b, state[v], gep(scratch, a.add(mine, idx(v * consumers)), f32), 4);
    // Every lane's stores before lane 0's count (the pattern of a
    // threadfence reduction, in a warp).
    auto ptx = [&](StringRef text) {
      inlinePtx(b, Type(), ValueRange(), text, "", /*sideEffects=*/true);
    };
    ptx("fence.acq_rel.gpu;");
    ptx("bar.warp.sync -1;");
    Value counter = gep(
        scratch, a.add(u.index(u.mul(ts.item, i32c(blockWarps))), warp), i32);
    Value tiles = arith::IndexCastUIOp::create(b, i32, a.sub(ts.hi, ts.lo));
    Value first =
        arith::CmpIOp::create(b, arith::CmpIPredicate::eq, lane, idx(0));
    auto ifFirst = scf::IfOp::create(b, TypeRange{i32}, first,
                                     /*withElseRegion=*/true);
    {
      OpBuilder::InsertionGuard g2(b);
      b.setInsertionPointToStart(&ifFirst.getThenRegion().front());
      Value before = inlinePtx(
          b, i32, ValueRange{LLVM::PtrToIntOp::create(b, i64, counter), tiles},
          "atom.acq_rel.gpu.add.u32 $0, [$1], $2;", "=r,l,r",
          /*sideEffects=*/true);
      scf::YieldOp::create(b, ValueRange{before});
      b.setInsertionPointToStart(&ifFirst.getElseRegion().front());
      scf::YieldOp::create(b, ValueRange{i32c(0)});
    }
    Value counted = gpu::ShuffleOp::create(b, ifFirst.getResult(0), 0, 32,
                                           gpu::ShuffleMode::IDX)
                        .getShuffleResult();
    Value last = arith::CmpIOp::create(b, arith::CmpIPredicate::eq,
                                       u.add(counted, tiles), g.keyTiles);
    auto ifLast = scf::IfOp::create(b, stateTypes, last,
                                    /*withElseRegion=*/true);
    {
      OpBuilder::InsertionGuard g2(b);
      b.setInsertionPointToStart(&ifLast.getElseRegion().front());
      scf::YieldOp::create(b, state);
      b.setInsertionPointToStart(&ifLast.getThenRegion().front());
      ptx("fence.acq_rel.gpu;");
      // The blocks holding a share of the item: those of its first and
      // last key tiles t, block ceil((t + 1) B / W) - 1 (the block l of
      // l W / B <= t < (l + 1) W / B).
      auto blockOf = [&](Value t) {
        Value n = u.mul(u.add(t, i32c(1)), g.blocks);
        return u.sub(u.div(u.add(n, u.sub(g.tailTiles, i32c(1))), g.tailTiles),
                     i32c(1));
      };
      Value itemStart = u.mul(ts.item, g.keyTiles);
      Value from = blockOf(itemStart);
      Value to =
          u.add(blockOf(u.sub(u.add(itemStart, g.keyTiles), i32c(1))), i32c(1));
      auto each =
          scf::ForOp::create(b, u.index(from), u.index(to), idx(1), state);
      {
        OpBuilder::InsertionGuard g3(b);
        b.setInsertionPointToStart(each.getBody());
        Value other32 =
            arith::IndexCastUIOp::create(b, i32, each.getInductionVar());
        ValueRange cur = each.getRegionIterArgs();
        // Another block's share, if not empty (with fewer tail tiles
        // than blocks, some blocks between the item's first and last
        // have none).
        Value itsFirstTile = u.div(u.mul(other32, g.tailTiles), g.blocks);
        Value itsEnd =
            u.div(u.mul(u.add(other32, i32c(1)), g.tailTiles), g.blocks);
        Value other = arith::AndIOp::create(
            b,
            arith::CmpIOp::create(b, arith::CmpIPredicate::ne, other32,
                                  g.block),
            arith::CmpIOp::create(b, arith::CmpIPredicate::ugt, itsEnd,
                                  itsFirstTile));
        auto ifOther = scf::IfOp::create(b, stateTypes, other,
                                         /*withElseRegion=*/true);
        b.setInsertionPointToStart(&ifOther.getElseRegion().front());
        scf::YieldOp::create(b, cur);
        b.setInsertionPointToStart(&ifOther.getThenRegion().front());
        // The item's place among that block's segments.
        Value itsFirst = u.div(itsFirstTile, g.keyTiles);
        Value theirs =
            recordOf(u.add(u.mul(other32, i32c(2)), u.sub(ts.item, itsFirst)));
        // The offsets in the instructions: one address a record.
        Value at = LLVM::PtrToIntOp::create(b, i64, gep(scratch, theirs, f32));
        auto load = [&](int64_t v) {
          return inlinePtx(b, f32, ValueRange{at},
                           "ld.relaxed.gpu.f32 $0, [$1+" +
                               std::to_string(4 * v * consumers) + "];",
                           "=f,l", /*sideEffects=*/true);
        };
        // Per slot: the two maxima's larger, and each side's factor
        // 2^(m - ref) (0 for a side that saw no key of the row).
        SmallVector<Value> merged(cur.begin(), cur.end());
        SmallVector<Value> mine(slots), theirsF(slots);
        for (int64_t sl = 0; sl < slots; ++sl) {
          Value m = load(sl), l = load(slots + sl);
          Value top = arith::MaximumFOp::create(b, cur[sl], m);
          Value ref = softmax::reference(b, top);
          mine[sl] = softmax::rescale(b, cur[sl], ref);
          theirsF[sl] = softmax::rescale(b, m, ref);
          merged[sl] = top;
          merged[slots + sl] = arith::AddFOp::create(
              b, arith::MulFOp::create(b, mine[sl], cur[slots + sl]),
              arith::MulFOp::create(b, theirsF[sl], l));
        }
        for (int64_t i = 0; i < values - 2 * slots; ++i) {
          int64_t sl = accOut.slot(i);
          Value x = load(2 * slots + i);
          merged[2 * slots + i] = arith::AddFOp::create(
              b, arith::MulFOp::create(b, mine[sl], cur[2 * slots + i]),
              arith::MulFOp::create(b, theirsF[sl], x));
        }
        scf::YieldOp::create(b, merged);
        b.setInsertionPointAfter(ifOther);
        scf::YieldOp::create(b, ifOther.getResults());
      }
      scf::YieldOp::create(b, each.getResults());
    }
    SmallVector<Value> yielded{last};
    yielded.append(ifLast.getResults().begin(), ifLast.getResults().end());
    scf::YieldOp::create(b, yielded);
  }
  ValueRange results = ifTail.getResults().drop_front();
  mFinal.assign(results.begin(), results.begin() + slots);
  lFinal.assign(results.begin() + slots, results.begin() + 2 * slots);
  accFinal.assign(results.begin() + 2 * slots, results.end());
  return ifTail.getResult(0);
}

/// The epilogue's stores: O = acc / l (0 for a row with no key) and the
/// LSE of each row slot the lane holds, to O (and the LSE result), or
/// with num_splits > 1 to this split's partial rows in the scratch (with
/// a work list, to its item's record).
void KernelBuilder::storeOutputs(const OutputPlace &at, ArrayRef<Value> mFinal,
                                 ArrayRef<Value> lFinal,
                                 ArrayRef<Value> accFinal) {
  const int64_t bq = config.getBlockQ(), mt = config.getMTiles();
  const int64_t pack = config.getGqaPack(), vTiles = dv / 8;
  MmaAccumulatorLayout accOut{mt, vTiles};
  Value o = arg(abi::O), lse = arg(abi::Lse);
  Value head = place.head, qBatch = place.qBatch, qStart = place.qStart;
  ArrayRef<Value> headInGroup = place.headInGroup, rows = at.rows,
                  positions = at.positions;
  Value q0 = at.q0, seqQ = at.seqQ, seqQAll = at.seqQAll, t = at.t, t2 = at.t2,
        batchSize = at.batchSize, numSplits = at.numSplits, split = at.split,
        partialSlot = at.partialSlot, planned = at.planned;
  OutputRows out;
  for (Value position : positions)
    out.valid.push_back(
        arith::CmpIOp::create(b, arith::CmpIPredicate::slt, position, seqQ));
  out.laneInQuad = t;
  // The LSE index of slot sl's row in [B, Hq, Sq].
  // In a ragged batch: [1, Hq, Tq], the sequence's rows from its offset.
  auto lseRow = [&](int64_t sl) {
    Value h = pack == 1 ? head : a.add(head, headInGroup[sl]);
    return a.add(
        arith::MulIOp::create(
            b, a.add(arith::MulIOp::create(b, qBatch, idx(heads)), h), seqQAll),
        a.add(qStart, positions[sl]));
  };
  auto storeLseAt = [&](Value base, Value index, Value value) {
    LLVM::StoreOp::create(b, value, gep(base, index, f32), 4);
  };
  auto storeToO = [&]() {
    OutputRows direct = out;
    std::array<Value, 3> oStride = stridesOf(abi::OStrideB);
    if (pack == 1) {
      Value oHead = gep(o, baseOf(oStride, head), i16);
      Value oRowStride = rowStrideOf(abi::OStrideS);
      direct.rowBase = [&, oRowStride](int64_t sl) {
        return rowOffset(positions[sl], oRowStride, t2);
      };
      direct.storePair = [&, oHead](Value rowOff, int64_t j, Value x, Value y) {
        Value at = arith::AddIOp::create(
            b, rowOff, arith::ConstantIntOp::create(b, 8 * j, 32));
        LLVM::StoreOp::create(b, mmaE->packPair(x, y), gep32(b, oHead, at, i16),
                              4);
      };
      // 16-byte stores where the head's base and the row stride are
      // multiples of 16 bytes (8 elements).
      if (config.getWideStores()) {
        Value fifteen = arith::ConstantIntOp::create(b, 15, 64);
        Value zero64 = arith::ConstantIntOp::create(b, 0, 64);
        Value headBits = arith::AndIOp::create(
            b, LLVM::PtrToIntOp::create(b, b.getI64Type(), oHead), fifteen);
        Value strideBits = arith::AndIOp::create(
            b, arith::ExtUIOp::create(b, b.getI64Type(), oRowStride),
            arith::ConstantIntOp::create(b, 7, 64));
        direct.wide = arith::CmpIOp::create(
            b, arith::CmpIPredicate::eq,
            arith::OrIOp::create(b, headBits, strideBits), zero64);
        direct.wideRowBase = [&, oRowStride](int64_t sl) {
          return rowOffset(positions[sl], oRowStride, idx(0));
        };
        direct.storeWide = [&, oHead](Value rowOff, Value column,
                                      ValueRange words) {
          Value at = arith::AddIOp::create(b, rowOff, toI32(column));
          auto v4 = VectorType::get({4}, i32);
          Value vec = LLVM::PoisonOp::create(b, v4);
          for (int64_t i = 0; i < 4; ++i)
            vec = LLVM::InsertElementOp::create(
                b, vec, words[i], arith::ConstantIntOp::create(b, i, 32));
          LLVM::StoreOp::create(b, vec, gep32(b, oHead, at, i16), 16);
        };
      }
    } else {
      direct.rowBase = [&, oStride](int64_t sl) {
        return arith::AddIOp::create(
                   b, packedRowOffset(oStride, sl, positions[sl]), toI64(t2))
            .getResult();
      };
      direct.storePair = [&](Value rowOff, int64_t j, Value x, Value y) {
        Value at = arith::AddIOp::create(
            b, rowOff, arith::ConstantIntOp::create(b, 8 * j, 64));
        Value address =
            LLVM::GEPOp::create(b, LLVM::LLVMPointerType::get(b.getContext()),
                                i16, o, ValueRange{at});
        LLVM::StoreOp::create(b, mmaE->packPair(x, y), address, 4);
      };
    }
    if (tiled.finalize.getLse())
      direct.storeLse = [&](int64_t sl, Value value) {
        storeLseAt(lse, lseRow(sl), value);
      };
    storeOutputRows(b, *mmaE, accOut, direct, mFinal, lFinal, accFinal);
  };
  if (!config.getSplitKv()) {
    storeToO();
  } else {
    Value single =
        arith::CmpIOp::create(b, arith::CmpIPredicate::eq, numSplits, idx(1));
    auto ifSingle = scf::IfOp::create(b, single, /*withElseRegion=*/true);
    b.setInsertionPointToStart(&ifSingle.getThenRegion().front());
    storeToO();
    b.setInsertionPointToStart(&ifSingle.getElseRegion().front());
    // Partial row R = (split * B + batch) * Hq * Sq + LSE row, f32; with
    // a work list, row r of the tile in record `partialSlot`
    // (abi::planRecordFloats).
    Value scratch = arg(abi::Scratch);
    Value rowsPerSplit = arith::MulIOp::create(
        b, arith::MulIOp::create(b, batchSize, idx(heads)), seqQ);
    Value splitBase = arith::MulIOp::create(b, split, rowsPerSplit);
    Value lseBase = arith::MulIOp::create(
        b, arith::MulIOp::create(b, numSplits, rowsPerSplit), idx(dv));
    Value record = arith::MulIOp::create(b, partialSlot,
                                         idx(abi::planRecordFloats(bq, dv)));
    auto tileRow = [&](int64_t sl) { return a.sub(rows[sl], q0); };
    auto partialRow = [&](int64_t sl) {
      return arith::SelectOp::create(
                 b, planned,
                 a.add(record, arith::MulIOp::create(b, tileRow(sl), idx(dv))),
                 arith::MulIOp::create(b, a.add(splitBase, lseRow(sl)),
                                       idx(dv)))
          .getResult();
    };
    auto partialLse = [&](int64_t sl) {
      return arith::SelectOp::create(
                 b, planned, a.add(record, a.add(idx(bq * dv), tileRow(sl))),
                 a.add(lseBase, a.add(splitBase, lseRow(sl))))
          .getResult();
    };
    OutputRows partial = out;
    partial.rowBase = [&](int64_t sl) { return a.add(partialRow(sl), t2); };
    partial.storePair = [&](Value rowOff, int64_t j, Value x, Value y) {
      Value at = a.add(rowOff, idx(8 * j));
      LLVM::StoreOp::create(b, x, gep(scratch, at, f32), 8);
      LLVM::StoreOp::create(b, y, gep(scratch, a.add(at, idx(1)), f32), 4);
    };
    partial.storeLse = [&](int64_t sl, Value value) {
      storeLseAt(scratch, partialLse(sl), value);
    };
    storeOutputRows(b, *mmaE, accOut, partial, mFinal, lFinal, accFinal);
    b.setInsertionPointAfter(ifSingle);
  }
}

/// The keys [lo, hi) of row mask `rm` of an interval mask or a cu_seqlens
/// document (ScoreInputs::intervals), not clamped to Sk.
std::pair<Value, Value> KernelBuilder::rowKeys(const RowMask &rm) {
  const bool documentRanges = scores.documentRanges;
  const MaskScoreContext &c = scores.c;
  if (!documentRanges)
    return {rm.lo, rm.hi};
  Value hi = rm.docEnd;
  if (c.spec.documentCausal)
    hi = a.min(hi, a.add(rm.pos, idx(1)));
  return {rm.docStart,
          arith::SelectOp::create(b, rm.posValid, hi, rm.docStart)};
}

/// The scores of tile `kt` (`s`, the C-fragment layout of `nTiles` 8-key
/// n-tiles) through the score pipeline, the mask on boundary tiles and
/// the online softmax from the row state (mOld, lOld): the weights P, the
/// new row state and each row's rescale factor for O.
/// `grown` (lazy_rescale): whether a row of the lane's warp moved its
/// maximum, i.e. whether O needs the rescale (warp-uniform); null where O
/// is always rescaled, or not at all (`oIsZero`: a loop's first tile).
KernelBuilder::TileSoftmax
KernelBuilder::softmaxTile(Value kt, const TileFlags &flags,
                           SmallVector<Value> s, ValueRange mOld,
                           ValueRange lOld, bool oIsZero) {
  const bool wgmma = config.getWgmma();
  const int64_t bk = config.getBlockK(), mt = config.getMTiles();
  const int64_t nTiles = bk / config.getKeyWarps() / 8, slots = 2 * mt;
  const MaskScoreContext &c = scores.c;
  const KeyTileRange &range = scores.range;
  ArrayRef<Value> positions = scores.positions, safeRows = scores.safeRows,
                  qUnscale = scores.qUnscale;
  const std::optional<SmallVector<RowMask>> &itemRowMasks = scores.itemRowMasks;
  Value keyOffset = scores.keyOffset, t2 = scores.t2, kScale = scores.kScale,
        seqK = scores.seqK;
  const bool tileTest = scores.tileTest, intervals = scores.intervals,
             raggedQ = scores.raggedQ;
  Value negInf = scores.negInf, zero = scores.zero;
  Value k0 = arith::MulIOp::create(b, kt, idx(bk));
  // Scores: the score pipeline, log2(e) folded in, -inf past Sk.
  // Which row slot and column each score register holds.
  MmaAccumulatorLayout sLayout{mt, nTiles};
  auto slotOf = [&](int64_t i) { return sLayout.slot(i); };
  auto rowOf = [&](int64_t i) { return positions[slotOf(i)]; };
  auto colOf = [&](int64_t i) {
    Value first = keyOffset ? a.add(k0, keyOffset) : k0;
    return a.add(first, a.add(idx(sLayout.column(i)), t2));
  };
  bool plainScores = !c.softcap && !c.alibi && !c.loadSlope && !c.scoreFn;
  Value scaleLog2e = f32c(c.scale * M_LOG2E);
  // The wgmma kernel's rows of Q scaled into f16 (fp8 keys under bf16
  // queries): the row's 2^-e joins the scores' factor, and Q carries the
  // keys' scale's sign, so that factor is |kScale| (at least the smallest
  // normal f32: a scale of 0 weighs every visible key alike, and -inf
  // times a positive factor stays -inf).
  const bool rowUnscale = wgmma && !qUnscale.empty();
  Value keyScale = kScale;
  if (rowUnscale)
    keyScale = math::AbsFOp::create(b, kScale);
  // Raw scores: plain scores under a positive scale stay unscaled through
  // the mask and the row maximum (a positive factor keeps the maximum),
  // and each weight is one FMA and one exp2, exp2(s * scale log2(e) -
  // ref) (FlashAttention-3's folding); over fp8 keys only where Q carries
  // their scale's sign (without it, a multiply a score and the max of the
  // scaled scores: on the H100, 1.86M more FMUL and 1.64M FADD for 1.64M
  // FFMA in the consumers of one B=1 Sq=1K Sk=2K launch, thirty-fifth
  // session run 4).
  const bool rawScores = plainScores && c.scale > 0 && (!kScale || rowUnscale);
  // fp8 keys: q . (code * scale) = (q . code) * scale.
  if (kScale && plainScores)
    scaleLog2e = arith::MulFOp::create(b, scaleLog2e, keyScale);
  SmallVector<Value> rowScaleLog2e;
  for (int64_t sl = 0; sl < slots && rowUnscale && plainScores; ++sl)
    rowScaleLog2e.push_back(arith::MaximumFOp::create(
        b, arith::MulFOp::create(b, scaleLog2e, qUnscale[sl]),
        f32c(std::numeric_limits<float>::min())));
  // The factor of slot sl's raw scores.
  auto rawFactor = [&](int64_t sl) {
    return rowUnscale ? rowScaleLog2e[sl] : scaleLog2e;
  };
  for (int64_t i = 0; i < static_cast<int64_t>(s.size()) && !rawScores; ++i) {
    Value x;
    if (plainScores) {
      x = arith::MulFOp::create(b, s[i], rawFactor(slotOf(i)));
    } else {
      Value dot = kScale ? arith::MulFOp::create(b, s[i], keyScale) : s[i];
      if (rowUnscale)
        dot = arith::MulFOp::create(b, dot, qUnscale[slotOf(i)]);
      x = buildScore(b, c, dot, rowOf(i), colOf(i), M_LOG2E);
    }
    s[i] = x;
  }
  // The element-wise mask and the key bound, on boundary tiles only: a
  // full tile that also lies inside the keys takes no mask arithmetic.
  {
    Value inside = arith::CmpIOp::create(b, arith::CmpIPredicate::sle,
                                         a.add(k0, idx(bk)), seqK);
    Value fromFullLo =
        arith::CmpIOp::create(b, arith::CmpIPredicate::sge, kt, range.fullLo);
    Value beforeFullHi =
        arith::CmpIOp::create(b, arith::CmpIPredicate::slt, kt, range.fullHi);
    Value full = arith::AndIOp::create(
        b, arith::AndIOp::create(b, fromFullLo, beforeFullHi), inside);
    if (tileTest)
      full = arith::OrIOp::create(b, full,
                                  arith::AndIOp::create(b, flags.full, inside));
    SmallVector<Type> types(s.size(), f32);
    auto ifPartial = scf::IfOp::create(b, types, full,
                                       /*withElseRegion=*/true);
    {
      OpBuilder::InsertionGuard g2(b);
      b.setInsertionPointToStart(&ifPartial.getThenRegion().front());
      scf::YieldOp::create(b, s);
      b.setInsertionPointToStart(&ifPartial.getElseRegion().front());
      // Rows past Sq and keys past Sk are evaluated at the last row /
      // key so that mask operands are read in bounds; their results are
      // never stored (rows) or are -inf (keys).
      SmallVector<RowMask> rowMasks;
      if (itemRowMasks)
        rowMasks = *itemRowMasks;
      else
        for (Value row : safeRows)
          rowMasks.push_back(buildRowMask(b, c, row));
      Value lastKey = a.sub(seqK, idx(1));
      // A block mask whose key blocks are a multiple of 8 keys: a
      // lane's 8-column group (8 n + 2 t + {0, 1}, k0 a multiple of 16)
      // lies in one key block, so the block table is read once a row
      // slot and group, not once a score (64 reads a thread on 128-key
      // tiles kept ptxas spilling).
      const mask::MaskSpec &spec = c.spec;
      const bool blockGroups = spec.kind == mask::MaskKind::BlockSparse &&
                               !keyOffset && spec.blockK % 8 == 0;
      DenseMap<std::pair<int64_t, int64_t>, Value> groupVisible;
      // Interval masks and cu_seqlens documents (rowKeys): row slot sl
      // sees the keys [lo, min(hi, Sk)), taken as i32 relative to the
      // lane's first key (colOf(i) is that key plus a constant), so
      // that each end costs a score one 32-bit compare of its constant
      // column (64-bit compares and a clamp a score made D = 256 spill
      // on 80-key tiles; a relative column a score, hoisted out of the
      // key loop by LLVM, spilled more).
      Value laneFirst = a.add(keyOffset ? a.add(k0, keyOffset) : k0, t2);
      // At least -1 (the columns are >= 0, so no compare changes): keys
      // are below 2^31 (attnrt's seq_k bound), the lane's first key may
      // pass it by less than block_k, so only a difference below -2^31
      // could leave the i32 range.
      auto relative = [&](Value key) -> Value {
        return arith::IndexCastOp::create(
            b, i32, a.max(a.sub(key, laneFirst), idx(-1)));
      };
      SmallVector<Value> loRel, hiRel;
      if (intervals)
        for (const RowMask &rm : rowMasks) {
          auto [lo, hi] = rowKeys(rm);
          loRel.push_back(relative(lo));
          hiRel.push_back(relative(a.min(hi, seqK)));
        }
      // Sliding windows: the scores outside [lo, hi) set to -inf one end
      // at a time, each end only where it cuts one of the thread's rows
      // within the lane's columns (columns 0 .. maxCol from its first
      // key: a row with lo <= 0 and hi > maxCol sees them all), one
      // compare and one select a score. A window's boundary tiles are
      // mostly cut by one end (its first tiles by the lower, the
      // diagonal by the upper). H200 (bench/RESULTS.md, twenty-second
      // session runs 2-5): window 1023 at S=8K 459.7 vs 451.1 TFLOP/s
      // with both ends' compares and selects on every score, and the
      // D = 64 window's three consumer warpgroups fit without spills
      // (311.2 vs 295.1 on the one warpgroup it fell back to); on the
      // D = 128 causal kernel the same form was slower (16K 584.7 vs
      // 608.9), on prefix-LM, documents and soft-capping level, so the
      // other interval masks keep both compares a score. The branches
      // are the thread's (lanes of a warp may differ): made
      // warp-uniform by a vote, or as one branch per case, they spilled
      // the soft-capped causal kernel's 192-key tiles; a ragged batch's
      // D = 64 causal kernel spilled 4 bytes on three warpgroups.
      const bool oneEnd =
          intervals && !raggedQ && c.spec.kind == mask::MaskKind::SlidingWindow;
      // Column `rel` (a constant) of row slot sl is inside the row's lower
      // end (rel >= lo) or upper end (rel < hi).
      auto insideEnd = [&](Value rel, int64_t sl, bool lower) -> Value {
        return lower ? arith::CmpIOp::create(b, arith::CmpIPredicate::sge, rel,
                                             loRel[sl])
                     : arith::CmpIOp::create(b, arith::CmpIPredicate::slt, rel,
                                             hiRel[sl]);
      };
      SmallVector<Value> masked;
      if (oneEnd) {
        int64_t maxCol = 0;
        for (int64_t i = 0; i < static_cast<int64_t>(s.size()); ++i)
          maxCol = std::max(maxCol, sLayout.column(i));
        Value cutLo, cutHi;
        for (int64_t sl = 0; sl < slots; ++sl) {
          Value lo = arith::CmpIOp::create(b, arith::CmpIPredicate::sgt,
                                           loRel[sl], i32c(0));
          Value hi = arith::CmpIOp::create(b, arith::CmpIPredicate::sle,
                                           hiRel[sl], i32c(maxCol));
          cutLo = cutLo ? arith::OrIOp::create(b, cutLo, lo).getResult() : lo;
          cutHi = cutHi ? arith::OrIOp::create(b, cutHi, hi).getResult() : hi;
        }
        SmallVector<Value> cur = s;
        auto cutAt = [&](Value cut, bool lower) {
          auto ifCut = scf::IfOp::create(b, types, cut, true);
          OpBuilder::InsertionGuard g3(b);
          b.setInsertionPointToStart(&ifCut.getThenRegion().front());
          SmallVector<Value> out;
          for (int64_t i = 0; i < static_cast<int64_t>(cur.size()); ++i)
            out.push_back(arith::SelectOp::create(
                b, insideEnd(i32c(sLayout.column(i)), slotOf(i), lower), cur[i],
                negInf));
          scf::YieldOp::create(b, out);
          b.setInsertionPointToStart(&ifCut.getElseRegion().front());
          scf::YieldOp::create(b, cur);
          cur.assign(ifCut.getResults().begin(), ifCut.getResults().end());
        };
        cutAt(cutLo, true);
        cutAt(cutHi, false);
        masked = std::move(cur);
      } else {
        for (int64_t i = 0; i < static_cast<int64_t>(s.size()); ++i) {
          if (intervals) {
            Value rel = i32c(sLayout.column(i));
            Value fromLo = insideEnd(rel, slotOf(i), true);
            Value belowHi = insideEnd(rel, slotOf(i), false);
            Value vis = arith::AndIOp::create(b, fromLo, belowHi);
            masked.push_back(arith::SelectOp::create(b, vis, s[i], negInf));
            continue;
          }
          Value vis = arith::CmpIOp::create(b, arith::CmpIPredicate::slt,
                                            colOf(i), seqK);
          Value m;
          if (blockGroups) {
            int64_t group = sLayout.column(i) / 8;
            Value &cached = groupVisible[{slotOf(i), group}];
            if (!cached)
              cached =
                  buildVisible(b, c, rowMasks[slotOf(i)], safeRows[slotOf(i)],
                               a.min(a.add(k0, idx(8 * group)), lastKey));
            m = cached;
          } else {
            m = buildVisible(b, c, rowMasks[slotOf(i)], safeRows[slotOf(i)],
                             a.min(colOf(i), lastKey));
          }
          if (m)
            vis = arith::AndIOp::create(b, vis, m);
          masked.push_back(arith::SelectOp::create(b, vis, s[i], negInf));
        }
      }
      scf::YieldOp::create(b, masked);
    }
    s.assign(ifPartial.getResults().begin(), ifPartial.getResults().end());
  }

  // Online softmax (OnlineSoftmax.h, shared with the CPU decomposition):
  // row max and row sum over the 4 lanes of a row by warp shuffles.
  // A small soft-cap (KernelProblem::cappedReference): every row's
  // reference is the largest score the cap allows, cap log2(e), so no
  // row maximum is taken (no max tree, no shuffles, O never rescaled)
  // and each weight's exp2 waits only for its own tanh, not for the
  // whole tile's.
  const bool fixedRef = wgmma && problem.cappedReference;
  const double capLog2e =
      fixedRef ? c.softcap.getValueAsDouble() * M_LOG2E : 0.0;
  // Each slot's maximum as a tree (a chain would serialise the slot's
  // scores on the max latency).
  SmallVector<SmallVector<Value>> slotScores(slots);
  for (int64_t i = 0; i < static_cast<int64_t>(s.size()) && !fixedRef; ++i)
    slotScores[slotOf(i)].push_back(s[i]);
  SmallVector<Value> rowMax, rowSum(slots, zero);
  for (SmallVector<Value> &level : slotScores) {
    while (level.size() > 1) {
      SmallVector<Value> next;
      for (size_t j = 0; j + 1 < level.size(); j += 2)
        next.push_back(arith::MaximumFOp::create(b, level[j], level[j + 1]));
      if (level.size() % 2)
        next.push_back(level.back());
      level = std::move(next);
    }
    rowMax.push_back(level.empty() ? negInf : level.front());
  }
  SmallVector<Value> mNew, ref, alpha, negRef;
  // lazy_rescale (wgmma): a row's maximum (the weights' reference) stays
  // until a tile's scores pass it by more than kStaleMaxLimit (log2 units):
  // weights up to 2^kStaleMaxLimit keep their relative precision in f32
  // and in P's bf16/f16,
  // and O is rescaled only in the (rare, after a row's first tiles) tiles
  // where a row of the warp moved its maximum, behind a warp-uniform
  // branch, instead of every O element being multiplied every tile.
  Value grown;
  for (int64_t sl = 0; sl < slots && fixedRef; ++sl) {
    mNew.push_back(f32c(capLog2e));
    ref.push_back(f32c(capLog2e));
    alpha.push_back(f32c(1.0f));
    negRef.push_back(f32c(-capLog2e));
  }
  for (int64_t sl = 0; sl < slots && !fixedRef; ++sl) {
    Value tileMax = mmaE->quadReduce(rowMax[sl], true);
    if (rawScores)
      tileMax = arith::MulFOp::create(b, tileMax, rawFactor(sl));
    Value moved = softmax::newMax(b, mOld[sl], tileMax);
    if (!config.getLazyRescale()) {
      mNew.push_back(moved);
      ref.push_back(softmax::reference(b, moved));
      alpha.push_back(softmax::rescale(b, mOld[sl], ref[sl]));
    } else {
      // mOld = -inf (no visible key yet): moves for any finite tileMax.
      Value grows = arith::CmpFOp::create(
          b, arith::CmpFPredicate::OGT, tileMax,
          arith::AddFOp::create(b, mOld[sl], f32c(kStaleMaxLimit)));
      mNew.push_back(arith::SelectOp::create(b, grows, moved, mOld[sl]));
      ref.push_back(softmax::reference(b, mNew[sl]));
      alpha.push_back(arith::SelectOp::create(
          b, grows, softmax::rescale(b, mOld[sl], ref[sl]), f32c(1.0f)));
      if (!oIsZero)
        grown =
            grown ? arith::OrIOp::create(b, grown, grows).getResult() : grows;
    }
    negRef.push_back(arith::NegFOp::create(b, ref[sl]));
  }
  if (grown)
    grown = NVVM::VoteSyncOp::create(b, b.getI1Type(), i32c(-1), grown,
                                     NVVM::VoteSyncKind::any);
  // exp2_fma = n: n of every 8 weights on the FMA pipe (the rest on the
  // multi-function unit).
  const int64_t onFma = config.getExp2Fma();
  for (int64_t i = 0; i < static_cast<int64_t>(s.size()); ++i) {
    Value x = rawScores
                  ? math::FmaOp::create(b, s[i], rawFactor(slotOf(i)),
                                        negRef[slotOf(i)])
                        .getResult()
                  : arith::SubFOp::create(b, s[i], ref[slotOf(i)]).getResult();
    s[i] = i % 8 < onFma ? softmax::exp2OnFma(b, x)
           : wgmma       ? exp2FlushSubnormals(b, x)
                         : math::Exp2Op::create(b, x).getResult();
    rowSum[slotOf(i)] = arith::AddFOp::create(b, rowSum[slotOf(i)], s[i]);
  }
  SmallVector<Value> lNew;
  for (int64_t sl = 0; sl < slots; ++sl)
    lNew.push_back(softmax::newSum(b, alpha[sl], lOld[sl], rowSum[sl]));
  return TileSoftmax{s, mNew, lNew, alpha, grown};
}

/// The lane parts of the mma.sync kernels' ldmatrix addresses (tileBody):
/// lane = 8 m + r supplies row r of matrix m. K (x4): matrices (keys 8n..,
/// d lo/hi), (keys 8n + 8.., d lo/hi). V (x4, transposed): (keys lo/hi, dv
/// 8j..), (keys lo/hi, dv 8j + 8..). With tma_loads the same lanes' rows in
/// the swizzled boxes (Wgmma.h), K's row 8 mHigh + r and V's 8 mLow + r
/// (bytes), and the swizzled 16-byte chunk of each column pair: K's k-step
/// ks reads chunk 2 (ks % 4) + mLow of box ks / 4, V's n-tiles j, j + 1
/// chunk j % 8 + mHigh of box j / 8, each xor r (every row the lane supplies
/// is r mod 8).
void KernelBuilder::setTileLanes(Value lane, Value rowWarp) {
  mmaTile.rowWarp = rowWarp;
  Value mIdx = arith::DivUIOp::create(b, lane, idx(8));
  Value rIdx = arith::RemUIOp::create(b, lane, idx(8));
  Value mLow = arith::RemUIOp::create(b, mIdx, idx(2));
  Value mHigh = arith::DivUIOp::create(b, mIdx, idx(2));
  mmaTile.rIdx = rIdx;
  mmaTile.mLow = mLow;
  mmaTile.mHigh = mHigh;
  // Row 8 rowM + r of a padded tile of `pitch` elements, column 8 colM.
  auto laneAt = [&](Value rowM, Value colM, int64_t pitch) {
    return a.add(
        arith::MulIOp::create(
            b, a.add(arith::MulIOp::create(b, rowM, idx(8)), rIdx), idx(pitch)),
        arith::MulIOp::create(b, colM, idx(8)));
  };
  mmaTile.kLane = laneAt(mHigh, mLow, kPitch);
  mmaTile.qLane = laneAt(mLow, mHigh, qPitch);
  mmaTile.vLane = laneAt(mLow, mHigh, vPitch);
  if (!config.getTmaLoads())
    return;
  auto rowBytes = [&](Value m8) {
    return arith::MulIOp::create(
        b, a.add(arith::MulIOp::create(b, m8, idx(8)), rIdx),
        idx(kSwizzleRowBytes));
  };
  mmaTile.kRowBytes = rowBytes(mHigh);
  mmaTile.vRowBytes = rowBytes(mLow);
  for (int64_t j = 0; j < 4; ++j)
    for (auto [chunk, low] :
         {std::pair{&mmaTile.kChunk, mLow}, std::pair{&mmaTile.vChunk, mHigh}})
      chunk->push_back(arith::MulIOp::create(
          b, arith::XOrIOp::create(b, a.add(idx(2 * j), low), rIdx), idx(16)));
}

/// The lane's row `laneRow` of a tile plus the key warp's first key.
Value KernelBuilder::swizzledRow(Value laneRow) {
  return scores.keyOffset
             ? a.add(laneRow, arith::MulIOp::create(b, scores.keyOffset,
                                                    idx(kSwizzleRowBytes)))
             : laneRow;
}

/// The lane's swizzled address `rows` rows below `laneRow`, at even 16-byte
/// chunk `chunk` of the row (box chunk / 8), whose lane part is
/// lanes[chunk % 8 / 2].
Value KernelBuilder::swizzledAt(Value laneRow, int64_t rows, int64_t chunk,
                                ArrayRef<Value> lanes) {
  return a.add(a.add(laneRow, idx(rows * kSwizzleRowBytes +
                                  chunk / 8 * swizzled.keyBoxBytes)),
               lanes[chunk % 8 / 2]);
}

/// The block_k rows of `width` codes at byte `src` (row pitch `width`
/// bytes) into the padded tile at byte `dst` (row pitch `pitch`
/// elements): a thread takes 16 codes at a time, one 16-byte load and two
/// 16-byte stores.
/// With `swizzledSrc` the codes are TMA boxes of 128-byte rows: chunk c of
/// row r of box c / 8 at (c mod 8 xor r mod 8) * 16.
void KernelBuilder::convertFp8Rows(MmaSyncEmitter &to, Value src, int64_t width,
                                   int64_t pitch, int64_t dst,
                                   bool swizzledSrc) {
  const int64_t bk = config.getBlockK();
  const int64_t perRow = width / 16, chunks = bk * perRow,
                threads = config.getThreads();
  Type v4 = VectorType::get({4}, i32);
  for (int64_t first = 0; first < chunks; first += threads) {
    OpBuilder::InsertionGuard guard(b);
    Value chunk = a.add(consumer.tid, idx(first));
    if (first + threads > chunks) {
      Value in = arith::CmpIOp::create(b, arith::CmpIPredicate::ult, chunk,
                                       idx(chunks));
      auto ifIn = scf::IfOp::create(b, in, /*withElseRegion=*/false);
      b.setInsertionPointToStart(&ifIn.getThenRegion().front());
    }
    Value row = arith::DivUIOp::create(b, chunk, idx(perRow));
    Value col = arith::RemUIOp::create(b, chunk, idx(perRow));
    Value from;
    if (swizzledSrc) {
      Value c8 = arith::RemUIOp::create(b, col, idx(8));
      Value box = arith::DivUIOp::create(b, col, idx(8));
      Value chunk =
          arith::XOrIOp::create(b, c8, arith::RemUIOp::create(b, row, idx(8)));
      from = a.add(
          src, a.add(arith::MulIOp::create(b, box, idx(swizzled.keyBoxBytes)),
                     a.add(arith::MulIOp::create(b, row, idx(kSwizzleRowBytes)),
                           arith::MulIOp::create(b, chunk, idx(16)))));
    } else {
      from = a.add(src, a.add(arith::MulIOp::create(b, row, idx(width)),
                              arith::MulIOp::create(b, col, idx(16))));
    }
    Value words = LLVM::LoadOp::create(b, v4, mmaE->smemAt(from),
                                       /*align=*/16);
    SmallVector<Value> out;
    for (int64_t w = 0; w < 4; ++w) {
      auto [lo, hi] =
          to.convertFp8x4(LLVM::ExtractElementOp::create(b, words, i32c(w)));
      out.push_back(lo);
      out.push_back(hi);
    }
    Value at =
        a.add(idx(dst), a.add(arith::MulIOp::create(b, row, idx(pitch * 2)),
                              arith::MulIOp::create(b, col, idx(32))));
    for (int64_t half = 0; half < 2; ++half) {
      Value vec = LLVM::PoisonOp::create(b, v4);
      for (int64_t w = 0; w < 4; ++w)
        vec = LLVM::InsertElementOp::create(b, vec, out[4 * half + w], i32c(w));
      LLVM::StoreOp::create(b, vec, mmaE->smemAt(a.add(at, idx(16 * half))),
                            /*align=*/16);
    }
  }
}

/// A key tile's work in the loops other than the overlapped wgmma loop (the
/// mma.sync kernels' ring and cp.async loops, the wgmma kernel with a tile
/// test on the tile ring): S = Q K^T, its softmax and O += P V from the
/// stage at byte `stageBase`, the row state `it` (m, l, O; with a wgmma
/// tile test the tile's carried flags last) in and out; skipped for a tile
/// proven empty (block-uniform). The loops have issued, committed and
/// waited for the tile's loads.
SmallVector<Value> KernelBuilder::tileBody(Value kt, Value stageBase,
                                           ValueRange it) {
  const bool wgmma = config.getWgmma(), tileTest = scores.tileTest;
  const bool tmaLoads = config.getTmaLoads(), fp8 = problem.kvFp8;
  const int64_t mt = config.getMTiles(), slots = 2 * mt;
  const int64_t subK = config.getBlockK() / config.getKeyWarps(),
                nTiles = subK / 8, vTiles = dv / 8, kSteps = d / 16,
                accPerTile = vTiles * 4;
  // The wgmma consumers carry the tile's flags in the loop's last two
  // values (empty, full), tested an iteration ahead (below).
  const bool carriesFlags = tileTest && wgmma;
  TileFlags carried;
  if (carriesFlags) {
    carried.empty = it[it.size() - 2];
    carried.full = it[it.size() - 1];
    it = it.drop_back(2);
  }
  SmallVector<Value> mOld(it.begin(), it.begin() + slots);
  SmallVector<Value> lOld(it.begin() + slots, it.begin() + 2 * slots);
  SmallVector<Value> acc(it.begin() + 2 * slots, it.end());

  // The tile's work, skipped for a tile proven empty (block-uniform).
  // With carried flags the next tile is tested here: its mask reads
  // (the block table, document ids) then wait behind this tile's GEMMs
  // instead of before them.
  TileFlags flags;
  Value work = arith::ConstantIntOp::create(b, 1, 1);
  std::optional<std::pair<Value, Value>> nextFlags;
  if (carriesFlags) {
    flags = carried;
    TileFlags next = guardedTileFlags(a.add(kt, idx(1)), scores.range.hi);
    nextFlags = {next.empty, next.full};
    work = arith::XOrIOp::create(b, flags.empty, work);
  } else if (tileTest) {
    flags = tileFlags(kt);
    work = arith::XOrIOp::create(b, flags.empty, work);
  }
  auto withFlags = [&](SmallVector<Value> state) {
    if (nextFlags) {
      state.push_back(nextFlags->first);
      state.push_back(nextFlags->second);
    }
    return state;
  };
  SmallVector<Type> stateTypes(it.getTypes().begin(), it.getTypes().end());
  auto ifWork = scf::IfOp::create(b, stateTypes, work,
                                  /*withElseRegion=*/true);
  b.setInsertionPointToStart(&ifWork.getElseRegion().front());
  scf::YieldOp::create(b, it);
  b.setInsertionPointToStart(&ifWork.getThenRegion().front());

  // Q fragments from shared memory (ldmatrix x4: matrices rows 0-7 /
  // 8-15 by columns 0-7 / 8-15 of the 16x16 block).
  if (config.getQInSmem() && !wgmma) {
    Value qLaneBytes =
        a.add(idx(qOffset), arith::MulIOp::create(b, mmaTile.qLane, idx(2)));
    for (int64_t m = 0; m < mt; ++m)
      for (int64_t ks = 0; ks < kSteps; ++ks)
        mmaTile.qFrag[m][ks] = mmaE->ldmatrix(
            a.add(qLaneBytes,
                  a.add(arith::MulIOp::create(b, mmaTile.rowWarp,
                                              idx(16 * mt * qPitch * 2)),
                        idx((16 * m * qPitch + 16 * ks) * 2))),
            false);
  }

  // S = Q K^T for the warp's rows and the tile's keys; s holds, per
  // m-tile, nTiles C fragments. Each K fragment serves every m-tile.
  const int64_t sPerTile = nTiles * 4;
  SmallVector<Value> s(mt * sPerTile, scores.zero);
  if (wgmma)
    s = wgmmaE->wait(0, issueQK(qSlab(), stageBase));
  // fp8 keys in registers: one ldmatrix x4 of codes gives a lane, per
  // matrix m, the codes (4t .. 4t+3) of key g of n-tile n + m / 2 in
  // k-step ks + m mod 2 (a 16-code row of a key is eight b16 elements);
  // converted, they are that B fragment in the permuted head-dim order
  // of qPairCol. Lane 8 m + r addresses row r of matrix m.
  for (int64_t n = 0; n < (mmaTile.kInRegisters ? nTiles : 0); n += 2) {
    // Codes of k-steps ks, ks + 1 (16 bytes of each key row from byte
    // 16 ks): padded rows, or (tma_loads) swizzled boxes of 128 codes,
    // chunk ks + mmaTile.mLow of the row.
    Value laneCodes;
    if (tmaLoads) {
      laneCodes = swizzledRow(a.add(mmaTile.kCodes, mmaTile.kRowBytes));
    } else {
      laneCodes =
          a.add(mmaTile.kCodes,
                a.add(arith::MulIOp::create(
                          b,
                          a.add(arith::MulIOp::create(b, mmaTile.mHigh, idx(8)),
                                mmaTile.rIdx),
                          idx(layout.fp8KPitch)),
                      arith::MulIOp::create(b, mmaTile.mLow, idx(16))));
      if (scores.keyOffset)
        laneCodes =
            a.add(laneCodes, arith::MulIOp::create(b, scores.keyOffset,
                                                   idx(layout.fp8KPitch)));
    }
    auto codesAt = [&](int64_t ks) -> Value {
      if (tmaLoads)
        return swizzledAt(laneCodes, 8 * n, ks, mmaTile.kChunk);
      return a.add(laneCodes, idx(8 * n * layout.fp8KPitch + 16 * ks));
    };
    SmallVector<SmallVector<Value, 4>> c0(
        mt, {scores.zero, scores.zero, scores.zero, scores.zero}),
        c1 = c0;
    for (int64_t ks = 0; ks < kSteps; ks += 2) {
      SmallVector<Value, 4> frag = mmaE->ldmatrix(codesAt(ks), false);
      SmallVector<std::pair<Value, Value>> bFrag;
      for (Value word : frag)
        bFrag.push_back(mmaTile.mmaK->convertFp8x4(word));
      for (int64_t m = 0; m < mt; ++m)
        for (int64_t step = 0; step < 2; ++step) {
          auto [lo0, hi0] = bFrag[step];
          auto [lo1, hi1] = bFrag[2 + step];
          c0[m] =
              mmaTile.mmaK->mma(mmaTile.qFrag[m][ks + step], {lo0, hi0}, c0[m]);
          c1[m] =
              mmaTile.mmaK->mma(mmaTile.qFrag[m][ks + step], {lo1, hi1}, c1[m]);
        }
    }
    for (int64_t m = 0; m < mt; ++m) {
      // f16 scores: C registers j of a fragment hold row slot 2 m + j / 2.
      for (int64_t j = 0; j < 4 && mmaTile.f16Scores; ++j) {
        c0[m][j] =
            arith::MulFOp::create(b, c0[m][j], scores.qUnscale[2 * m + j / 2]);
        c1[m][j] =
            arith::MulFOp::create(b, c1[m][j], scores.qUnscale[2 * m + j / 2]);
      }
      std::copy(c0[m].begin(), c0[m].end(), s.begin() + m * sPerTile + 4 * n);
      std::copy(c1[m].begin(), c1[m].end(),
                s.begin() + m * sPerTile + 4 * (n + 1));
    }
  }
  // The byte address of K's ldmatrix of n-tiles n, n + 1 and k-step ks:
  // padded rows, or (tma_loads) swizzled boxes (swizzledLane).
  std::function<Value(int64_t, int64_t)> kFragAt;
  if (tmaLoads) {
    Value row = swizzledRow(a.add(stageBase, mmaTile.kRowBytes));
    kFragAt = [&, row](int64_t n, int64_t ks) {
      return swizzledAt(row, 8 * n, 2 * ks, mmaTile.kChunk);
    };
  } else {
    Value kLaneBytes =
        a.add(stageBase, arith::MulIOp::create(b, mmaTile.kLane, idx(2)));
    if (scores.keyOffset)
      kLaneBytes = a.add(kLaneBytes, arith::MulIOp::create(b, scores.keyOffset,
                                                           idx(kPitch * 2)));
    kFragAt = [&, kLaneBytes](int64_t n, int64_t ks) {
      return a.add(kLaneBytes, idx((8 * n * kPitch + 16 * ks) * 2));
    };
  }
  for (int64_t n = 0; n < (wgmma || mmaTile.kInRegisters ? 0 : nTiles);
       n += 2) {
    SmallVector<SmallVector<Value, 4>> c0(
        mt, {scores.zero, scores.zero, scores.zero, scores.zero}),
        c1 = c0;
    for (int64_t ks = 0; ks < kSteps; ++ks) {
      SmallVector<Value, 4> frag = mmaE->ldmatrix(kFragAt(n, ks), false);
      for (int64_t m = 0; m < mt; ++m) {
        c0[m] = mmaE->mma(mmaTile.qFrag[m][ks], {frag[0], frag[1]}, c0[m]);
        c1[m] = mmaE->mma(mmaTile.qFrag[m][ks], {frag[2], frag[3]}, c1[m]);
      }
    }
    for (int64_t m = 0; m < mt; ++m) {
      std::copy(c0[m].begin(), c0[m].end(), s.begin() + m * sPerTile + 4 * n);
      std::copy(c1[m].begin(), c1[m].end(),
                s.begin() + m * sPerTile + 4 * (n + 1));
    }
  }
  TileSoftmax sm = softmaxTile(kt, flags, s, mOld, lOld);
  s = sm.p;
  SmallVector<Value> mNew = sm.mNew, lNew = sm.lNew;
  MmaAccumulatorLayout accLayout{mt, vTiles};
  acc = rescaleO(acc, sm, [&](int64_t i) { return accLayout.slot(i); });

  // O += P V: P's C fragments of key n-tiles 2kk and 2kk + 1 are the A
  // fragment of key step kk; V's B fragments come from ldmatrix.trans.
  // The byte address of V's ldmatrix.trans of key step kk and dv n-tiles
  // j, j + 1, as K's.
  std::function<Value(int64_t, int64_t)> vFragAt;
  if (tmaLoads && !fp8) {
    Value row =
        swizzledRow(a.add(stageBase, a.add(idx(vOffset), mmaTile.vRowBytes)));
    vFragAt = [&, row](int64_t kk, int64_t j) {
      return swizzledAt(row, 16 * kk, j, mmaTile.vChunk);
    };
    zeroVTail(kt, stageBase);
  } else {
    Value vLaneBytes = a.add(
        stageBase,
        a.add(idx(vOffset), arith::MulIOp::create(b, mmaTile.vLane, idx(2))));
    if (scores.keyOffset)
      vLaneBytes = a.add(vLaneBytes, arith::MulIOp::create(b, scores.keyOffset,
                                                           idx(vPitch * 2)));
    vFragAt = [&, vLaneBytes](int64_t kk, int64_t j) {
      return a.add(vLaneBytes, idx((16 * kk * vPitch + 8 * j) * 2));
    };
  }
  if (wgmma) {
    zeroVTail(kt, stageBase);
    acc = wgmmaE->wait(0, issuePV(packP(s), stageBase, acc));
  }
  for (int64_t kk = 0; kk < (wgmma ? 0 : subK / 16); ++kk) {
    SmallVector<SmallVector<Value, 4>> pFrag;
    for (int64_t m = 0; m < mt; ++m) {
      const Value *p = s.begin() + m * sPerTile + 8 * kk;
      pFrag.push_back({mmaV->packPair(p[0], p[1]), mmaV->packPair(p[2], p[3]),
                       mmaV->packPair(p[4], p[5]), mmaV->packPair(p[6], p[7])});
    }
    for (int64_t j = 0; j < vTiles; j += 2) {
      SmallVector<Value, 4> frag = mmaE->ldmatrix(vFragAt(kk, j), true);
      for (int64_t m = 0; m < mt; ++m)
        for (int64_t h = 0; h < 2; ++h) {
          auto at = acc.begin() + m * accPerTile + 4 * (j + h);
          SmallVector<Value, 4> cfrag(at, at + 4);
          cfrag = mmaV->mma(pFrag[m], {frag[2 * h], frag[2 * h + 1]}, cfrag);
          std::copy(cfrag.begin(), cfrag.end(), at);
        }
    }
  }
  SmallVector<Value> yields(mNew.begin(), mNew.end());
  yields.append(lNew.begin(), lNew.end());
  yields.append(acc.begin(), acc.end());
  scf::YieldOp::create(b, yields);
  b.setInsertionPointAfter(ifWork);
  return withFlags(SmallVector<Value>(ifWork.getResults()));
}

LogicalResult KernelBuilder::buildTile(const WorkIndices &indices) {
  const bool wgmma = config.getWgmma();
  const int64_t bq = config.getBlockQ(), bk = config.getBlockK();
  // key_warps: that many warps share each row group and split every key
  // tile into sub-tiles of subK keys (1: a warp takes the whole tile).
  const int64_t keyWarps = config.getKeyWarps(), subK = bk / keyWarps;
  const int64_t vTiles = dv / 8, kSteps = d / 16;

  Value q = arg(abi::Q), k = arg(abi::K), v = arg(abi::V);
  // seqK: the keys of this block's sequence (kv_lens, set below once the
  // batch entry is known); seqKAll: the key dimension of the operands.
  // seqQ: the query rows of this block's sequence (a ragged batch's own,
  // set below); seqQAll: the query dimension of the operands.
  Value seqQAll = indexOf(arg(abi::SeqQ)), seqKAll = indexOf(arg(abi::SeqK));
  Value seqQ = seqQAll, seqK = seqKAll;
  // O's strides and offsets are made after the key loop, where they are
  // used, so that they hold no registers during it.
  auto qStride = stridesOf(abi::QStrideB), kStride = stridesOf(abi::KStrideB),
       vStride = stridesOf(abi::VStrideB);

  Value tid = gpu::ThreadIdOp::create(b, gpu::Dimension::x);
  Value warp = arith::DivUIOp::create(b, tid, idx(32));
  Value lane = arith::RemUIOp::create(b, tid, idx(32));
  // The warp's row group, and its keys' offset in a key tile.
  Value rowWarp = warp, keyOffset;
  if (keyWarps > 1) {
    rowWarp = arith::DivUIOp::create(b, warp, idx(keyWarps));
    keyOffset = arith::MulIOp::create(
        b, arith::RemUIOp::create(b, warp, idx(keyWarps)), idx(subK));
  }
  Value warpGroup = arith::DivUIOp::create(b, warp, idx(4));
  Value g = arith::DivUIOp::create(b, lane, idx(4));
  Value t = arith::RemUIOp::create(b, lane, idx(4));
  const int64_t pack = config.getGqaPack();
  std::array<Value, 3> ids = indices();
  Value tile = ids[0], head = ids[1], batch = ids[2];
  Value numSplits, split;
  // Split KV: the block's work unit from its index, or, with a work list
  // (plan), item blockIdx.x of the list (WorkList.h); blocks past the
  // list's items (a grid sized for a bound) do nothing: the rest of the
  // kernel sits in an scf.if. `planned` is uniform.
  Value planned, partialSlot;
  std::optional<OpBuilder::InsertionGuard> workGuard;
  if (config.getSplitKv()) {
    numSplits = indexOf(arg(abi::NumSplits));
    split = arith::RemUIOp::create(b, tile, numSplits);
    tile = arith::DivUIOp::create(b, tile, numSplits);
    Value plan = arg(abi::Plan);
    Value block = gpu::BlockIdOp::create(b, gpu::Dimension::x);
    planned = hasWorkList(b, plan);
    Type index = b.getIndexType(), i1 = b.getI1Type();
    // Whether this block has an item: always without a plan.
    auto hasItem = scf::IfOp::create(b, TypeRange{i1}, planned,
                                     /*withElseRegion=*/true);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(&hasItem.getThenRegion().front());
      scf::YieldOp::create(
          b, ValueRange{arith::CmpIOp::create(b, arith::CmpIPredicate::ult,
                                              block, workListSize(b, plan))});
      b.setInsertionPointToStart(&hasItem.getElseRegion().front());
      scf::YieldOp::create(b,
                           ValueRange{arith::ConstantIntOp::create(b, 1, 1)});
    }
    auto ifItem = scf::IfOp::create(b, hasItem.getResult(0),
                                    /*withElseRegion=*/false);
    workGuard.emplace(b);
    b.setInsertionPointToStart(&ifItem.getThenRegion().front());
    auto fields = scf::IfOp::create(b, SmallVector<Type>(6, index), planned,
                                    /*withElseRegion=*/true);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(&fields.getThenRegion().front());
      WorkItem item = loadWorkItem(b, plan, block);
      // Clamped into the launch, so that a stale plan never reads or
      // writes outside q, k, v and o.
      Value lastBatch = a.sub(indexOf(arg(abi::Batch)), idx(1));
      scf::YieldOp::create(
          b, ValueRange{a.min(a.max(item.sequence, idx(0)), lastBatch),
                        a.min(a.max(item.head, idx(0)), idx(heads / pack - 1)),
                        item.qTile, item.split, item.numSplits, item.partial});
      b.setInsertionPointToStart(&fields.getElseRegion().front());
      scf::YieldOp::create(
          b, ValueRange{batch, head, tile, split, numSplits, idx(0)});
    }
    batch = fields.getResult(0);
    head = fields.getResult(1);
    tile = fields.getResult(2);
    split = fields.getResult(3);
    numSplits = fields.getResult(4);
    partialSlot = fields.getResult(5);
  }
  if (problem.kvLens) {
    Value len = indexOf(LLVM::LoadOp::create(
        b, i32, gep(arg(abi::KvLens), batch, i32), /*align=*/4));
    seqK = a.min(a.max(len, idx(0)), seqKAll);
  }
  // A ragged batch: block row `batch` is a sequence, whose query rows (and
  // with packed keys, keys) start at its offset in batch entry 0 of the
  // operands and number its own length.
  const bool raggedQ = static_cast<bool>(step.getCuSeqlensQ()),
             raggedK = static_cast<bool>(step.getCuSeqlensK());
  Value qStart = idx(0), kStart = idx(0);
  auto offsetLoader = [&](unsigned param) {
    return [&, param](ImplicitLocOpBuilder &lb, Value i) -> Value {
      return LLVM::LoadOp::create(lb, i32, gep(arg(param), i, i32), 4)
          .getResult();
    };
  };
  if (raggedQ) {
    SequenceSpan span =
        raggedSpan(b, offsetLoader(abi::CuSeqlensQ), batch, seqQAll);
    qStart = span.start;
    seqQ = span.len;
  }
  if (raggedK) {
    SequenceSpan span =
        raggedSpan(b, offsetLoader(abi::CuSeqlensK), batch, seqKAll);
    kStart = span.start;
    seqK = span.len;
  }
  Value qBatch = raggedQ ? idx(0) : batch, kBatch = raggedK ? idx(0) : batch;
  Value kvHead;
  if (pack == 1) {
    kvHead = arith::DivUIOp::create(b, head, idx(heads / kvHeads));
  } else {
    // The group's first query head; row r holds head + r mod pack.
    kvHead = head;
    head = arith::MulIOp::create(b, kvHead, idx(pack));
  }
  // An fp8 cache: this KV head's scales, folded into the scores (keys) and
  // into O after the key loop (values).
  const bool fp8 = problem.kvFp8;
  Value kScale, vScale;
  if (fp8) {
    kScale = LLVM::LoadOp::create(b, f32, gep(arg(abi::KvScales), kvHead, f32),
                                  /*align=*/4);
    vScale = LLVM::LoadOp::create(
        b, f32, gep(arg(abi::KvScales), a.add(kvHead, idx(kvHeads)), f32),
        /*align=*/4);
  }
  Value q0 = arith::MulIOp::create(b, tile, idx(bq));
  // A ragged batch's blocks past their sequence's end do nothing: the rest
  // of the kernel sits in this scf.if (a condition uniform over the block).
  std::optional<OpBuilder::InsertionGuard> raggedGuard;
  if (raggedQ) {
    Value rowsLeft =
        arith::CmpIOp::create(b, arith::CmpIPredicate::ult, q0, seqQ);
    auto ifRows = scf::IfOp::create(b, rowsLeft, /*withElseRegion=*/false);
    raggedGuard.emplace(b);
    b.setInsertionPointToStart(&ifRows.getThenRegion().front());
  }
  // A lane holds two rows of each of the warp's mt 16-row m-tiles: slot
  // 2 m + h is row warp * 16 mt + 16 m + g + 8 h.
  const int64_t mt = config.getMTiles(), slots = 2 * mt;
  Value warpRow =
      a.add(q0, a.add(arith::MulIOp::create(b, rowWarp, idx(16 * mt)), g));
  SmallVector<Value> rows;
  for (int64_t sl = 0; sl < slots; ++sl)
    rows.push_back(a.add(warpRow, idx(16 * (sl / 2) + 8 * (sl % 2))));
  Value t2 = arith::MulIOp::create(b, t, idx(2));
  // The columns of a lane's Q registers in a 16-column k-step: (2t, 2t+1)
  // and 8 further; with fp8 keys converted in registers, (4t, 4t+1) and 2
  // further, the order in which ldmatrix delivers a lane the codes of a key
  // (K's head dim permuted the same way, so Q K^T is unchanged).
  const bool kInRegisters = layout.fp8KeysInRegisters && !wgmma;
  Value qPairCol =
      kInRegisters ? arith::MulIOp::create(b, t, idx(4)).getResult() : t2;
  const int64_t qHighCol = kInRegisters ? 2 : 8;

  place.batch = batch;
  place.head = head;
  place.qBatch = qBatch;
  place.kBatch = kBatch;
  place.qStart = qStart;
  place.kStart = kStart;
  place.raggedQ = raggedQ;
  place.raggedK = raggedK;
  // Pointers to this (batch, head)'s first element of each tensor; in a
  // paged cache, to the head's first element of page 0.
  const int64_t pageSize = problem.pageSize;
  auto kvBaseOf = [&](const std::array<Value, 3> &stride) {
    return pageSize ? arith::MulIOp::create(b, kvHead, stride[1]).getResult()
                    : baseOf(stride, kvHead, /*keys=*/true);
  };
  // K and V elements: 16-bit, or one-byte fp8 codes.
  Type kvElt = fp8 ? b.getI8Type() : i16;
  Value qHead = gep(q, baseOf(qStride, head), i16),
        kHead = gep(k, kvBaseOf(kStride), kvElt),
        vHead = gep(v, kvBaseOf(vStride), kvElt);
  Value qRowStride = rowStrideOf(abi::QStrideS),
        kRowStride = rowStrideOf(abi::KStrideS),
        vRowStride = rowStrideOf(abi::VStrideS);

  // The query position and head offset in the group of each slot: packed
  // row r is position r / pack of head `head` + r mod pack.
  SmallVector<Value> positions = rows, headInGroup;
  if (pack != 1)
    for (Value &row : positions) {
      headInGroup.push_back(arith::RemUIOp::create(b, row, idx(pack)));
      row = arith::DivUIOp::create(b, row, idx(pack));
    }
  // Rows past Sq are computed at row Sq - 1 and never stored.
  Value lastRow = a.sub(seqQ, idx(1));
  SmallVector<Value> safeRows;
  for (Value row : positions)
    safeRows.push_back(a.min(row, lastRow));
  place.headInGroup = headInGroup;
  // Q fragments [m-tile][k-step]: loaded once from global memory into
  // registers, or (config.getQInSmem()) staged in shared memory and
  // read with ldmatrix in every tile to spare registers.
  SmallVector<SmallVector<SmallVector<Value, 4>>> qFrag(
      mt, SmallVector<SmallVector<Value, 4>>(kSteps));
  if (!config.getQInSmem() && pack != 1) {
    for (int64_t m = 0; m < mt; ++m) {
      Value rowLo = packedRowOffset(qStride, 2 * m, safeRows[2 * m]);
      Value rowHi = packedRowOffset(qStride, 2 * m + 1, safeRows[2 * m + 1]);
      for (int64_t ks = 0; ks < kSteps; ++ks) {
        Value col = toI64(a.add(idx(16 * ks), qPairCol));
        Value col8 = arith::AddIOp::create(
            b, col, arith::ConstantIntOp::create(b, qHighCol, 64));
        auto at = [&](Value row, Value c) {
          Value address = LLVM::GEPOp::create(
              b, LLVM::LLVMPointerType::get(b.getContext()), i16, q,
              ValueRange{arith::AddIOp::create(b, row, c)});
          return LLVM::LoadOp::create(b, i32, address, /*align=*/4)
              .getResult();
        };
        qFrag[m][ks] = {at(rowLo, col), at(rowHi, col), at(rowLo, col8),
                        at(rowHi, col8)};
      }
    }
  } else if (!config.getQInSmem()) {
    for (int64_t m = 0; m < mt; ++m) {
      Value rowLo = rowOffset(safeRows[2 * m], qRowStride, idx(0));
      Value rowHi = rowOffset(safeRows[2 * m + 1], qRowStride, idx(0));
      for (int64_t ks = 0; ks < kSteps; ++ks) {
        Value col = a.add(idx(16 * ks), qPairCol);
        Value col8 = a.add(col, idx(qHighCol));
        auto at = [&](Value row, Value c) {
          return loadPair(qHead, arith::AddIOp::create(b, row, toI32(c)));
        };
        qFrag[m][ks] = {at(rowLo, col), at(rowHi, col), at(rowLo, col8),
                        at(rowHi, col8)};
      }
    }
  }

  // fp8 keys in registers under bf16 queries: Q K^T is an f16 MMA as P V
  // is (a key code's conversion is then one instruction, not four). Each
  // query row times 2^e, e chosen so that the row's largest |q| lands in
  // [2^14, 2^15), is exact in f16 (bf16's 8-bit significand fits in f16's
  // 11) except for its values 2^28 times smaller than that largest (f16
  // subnormals, rounded: an error far below the bf16 rounding of the row's
  // large values); the row's scores are multiplied by 2^-e after the MMA
  // (qUnscale, one a slot). Inf and NaN stay so.
  // The wgmma kernel over fp8 codes scales Q's rows likewise, in shared
  // memory (below, once Q has landed).
  const bool f16Scores = kInRegisters && eltType.isBF16();
  SmallVector<Value> qUnscale;
  auto pow2 = [&](Value exponent) {
    return arith::BitcastOp::create(
        b, f32,
        arith::ShLIOp::create(b, arith::AddIOp::create(b, exponent, i32c(127)),
                              i32c(23)));
  };
  // The larger |x| (as bits) of the two bf16 of `word`, and of `widest`.
  auto widerOf = [&](Value widest, Value word) -> Value {
    Value bits = arith::AndIOp::create(b, word, i32c(0x7fff7fff));
    return arith::MaxUIOp::create(
        b, widest,
        arith::MaxUIOp::create(b, arith::AndIOp::create(b, bits, i32c(0xffff)),
                               arith::ShRUIOp::create(b, bits, i32c(16))));
  };
  // The row's largest |q| (bits) over the quad's four lanes: its 2^e
  // (e = 14 - (E - 127) for the bf16 exponent field E, at most 126, so
  // that 2^-e is a normal f32; E = 255, Inf or NaN, gives -114) and 2^-e.
  auto rowScales = [&](Value widest) -> std::pair<Value, Value> {
    for (int32_t offset : {1, 2})
      widest = arith::MaxUIOp::create(
          b, widest,
          gpu::ShuffleOp::create(b, widest, offset, 32, gpu::ShuffleMode::XOR)
              .getShuffleResult());
    Value e = arith::MinSIOp::create(
        b,
        arith::SubIOp::create(b, i32c(141),
                              arith::ShRUIOp::create(b, widest, i32c(7))),
        i32c(126));
    Value down = pow2(arith::SubIOp::create(b, i32c(0), e));
    return {pow2(e), down};
  };
  // The two bf16 of `word` times `up`, as f16x2.
  auto scaledF16 = [&](Value word, Value up) {
    return inlinePtx(b, i32, ValueRange{word, up},
                     "{\n.reg .b32 l, h;\n.reg .f32 x, y;\n"
                     "shl.b32 l, $1, 16;\n"
                     "and.b32 h, $1, 0xffff0000;\n"
                     "mov.b32 x, l;\nmov.b32 y, h;\n"
                     "mul.f32 x, x, $2;\nmul.f32 y, y, $2;\n"
                     "cvt.rn.f16x2.f32 $0, y, x;\n}",
                     "=r,r,f", /*sideEffects=*/false);
  };
  if (f16Scores) {
    for (int64_t sl = 0; sl < slots; ++sl) {
      // Row sl's registers: words h and h + 2 of each k-step's fragment of
      // m-tile sl / 2 (h = sl mod 2); the quad's four lanes hold the row.
      const int64_t m = sl / 2, h = sl % 2;
      Value widest = i32c(0);
      for (auto &frag : qFrag[m])
        for (Value word : {frag[h], frag[h + 2]})
          widest = widerOf(widest, word);
      auto [up, down] = rowScales(widest);
      qUnscale.push_back(down);
      for (auto &frag : qFrag[m])
        for (int64_t w : {h, h + 2})
          frag[w] = scaledF16(frag[w], up);
    }
  }
  MmaSyncEmitter &mmaK = f16Scores ? *mmaV : *mmaE;

  // The mask and score context, reading operands through the pointers.
  MaskScoreContext c = makeTileStepScores(step);
  c.batch = batch;
  c.head = head;
  c.seqQ = seqQ;
  c.seqK = seqK;
  c.loadSeqId = [&, ids = arg(abi::SeqIds)](ImplicitLocOpBuilder &lb, Value bi,
                                            Value pos) {
    Value i = a.add(arith::MulIOp::create(lb, bi, seqKAll), pos);
    return LLVM::LoadOp::create(lb, i32, gep(ids, i, i32), 4).getResult();
  };
  c.loadCuSeqlen = [&, cu = arg(abi::CuSeqlens)](ImplicitLocOpBuilder &lb, Value i) {
    return LLVM::LoadOp::create(lb, i32, gep(cu, i, i32), 4).getResult();
  };
  c.numCuSeqlens = indexOf(arg(abi::NumCuSeqlens));
  c.tanh = [](ImplicitLocOpBuilder &lb, Value x) -> Value {
    return inlinePtx(lb, lb.getF32Type(), ValueRange{x},
                     "tanh.approx.f32 $0, $1;", "=f,f", /*sideEffects=*/false);
  };
  c.blockMaskB = indexOf(arg(abi::BlockMaskB));
  c.blockMaskH = indexOf(arg(abi::BlockMaskH));
  if (c.spec.kind == MaskKind::BlockSparse) {
    int64_t mbq = c.spec.blockQ, mbk = c.spec.blockK;
    // A ragged batch's grid spans the packed query rows (seqQAll), not one
    // sequence's own (seqQ).
    Value nq = arith::CeilDivUIOp::create(b, seqQAll, idx(mbq));
    Value nk = arith::CeilDivUIOp::create(b, seqKAll, idx(mbk));
    c.loadBlockMask = [&, bm = arg(abi::BlockMask), nq, nk](ImplicitLocOpBuilder &lb,
                                               Value bb, Value hh, Value r,
                                               Value col) {
      Value i = a.add(
          arith::MulIOp::create(
              lb,
              a.add(arith::MulIOp::create(
                        lb,
                        a.add(arith::MulIOp::create(lb, bb, c.blockMaskH), hh),
                        nq),
                    r),
              nk),
          col);
      return LLVM::LoadOp::create(lb, b.getI8Type(), gep(bm, i, b.getI8Type()),
                                  1)
          .getResult();
    };
  }
  if (step.getAlibiSlopes())
    c.loadSlope = [&, slopes = arg(abi::AlibiSlopes)](ImplicitLocOpBuilder &lb, Value h) {
      return LLVM::LoadOp::create(lb, f32, gep(slopes, h, f32), 4).getResult();
    };
  // The head is fixed per block: look its ALiBi slope up once.
  c.slope = buildAlibiSlope(b, c);

  // Key tiles to visit, and the unmasked ones among them, as the tiled IR
  // decided: its loop bounds and tile-test conditions are computed here
  // again from the kernel's parameters (Rematerializer).
  Value batchSize = indexOf(arg(abi::Batch));
  SmallVector<Value> operandMemrefs = {step.getQuery(), step.getKey(),
                                       step.getValue()};
  for (Value m : {step.getSeqIds(), step.getCuSeqlens(), step.getBlockMask(),
                  step.getAlibiSlopes(), step.getKvLens(), step.getPageTable(),
                  step.getCuSeqlensQ(), step.getCuSeqlensK()})
    if (m)
      operandMemrefs.push_back(m);
  auto dimOf = [&](Value memref, int64_t dim) -> Value {
    auto type = cast<MemRefType>(memref.getType());
    if (dim >= 0 && dim < type.getRank() && !type.isDynamicDim(dim))
      return idx(type.getDimSize(dim));
    if (memref == step.getQuery())
      return dim == 0 ? (raggedQ ? idx(1) : batchSize) : seqQAll;
    // Ragged offsets [N + 1], N sequences in the grid's batch rows.
    if (memref == step.getCuSeqlensQ() || memref == step.getCuSeqlensK())
      return a.add(batchSize, idx(1));
    // Pages [num_pages, page_size, Hkv, D] (the page size is static).
    if (pageSize && (memref == step.getKey() || memref == step.getValue()))
      return indexOf(arg(abi::NumPages));
    if (memref == step.getKey() || memref == step.getValue() ||
        memref == step.getSeqIds())
      return dim == 0 ? (raggedK ? idx(1) : batchSize) : seqKAll;
    if (memref == step.getKvLens())
      return batchSize;
    if (memref == step.getPageTable())
      return dim == 0 ? batchSize : indexOf(arg(abi::MaxPages));
    if (memref == step.getCuSeqlens())
      return c.numCuSeqlens;
    if (memref == step.getBlockMask()) {
      if (dim == 0)
        return c.blockMaskB;
      if (dim == 1)
        return c.blockMaskH;
      int64_t block = dim == 2 ? c.spec.blockQ : c.spec.blockK;
      return arith::CeilDivUIOp::create(b, dim == 2 ? seqQAll : seqKAll,
                                        idx(block))
          .getResult();
    }
    return idx(heads); // alibi_slopes [Hq]
  };
  auto loadOf = [&](ImplicitLocOpBuilder &lb, Value memref,
                    ValueRange indices) -> Value {
    Value linear = idx(0);
    for (auto [i, index] : llvm::enumerate(indices))
      linear = a.add(arith::MulIOp::create(lb, linear, dimOf(memref, i)),
                     index);
    Type elt = cast<MemRefType>(memref.getType()).getElementType();
    unsigned param = memref == step.getSeqIds()      ? abi::SeqIds
                     : memref == step.getCuSeqlens() ? abi::CuSeqlens
                     : memref == step.getBlockMask() ? abi::BlockMask
                     : memref == step.getKvLens()    ? abi::KvLens
                     : memref == step.getPageTable() ? abi::PageTable
                     : memref == step.getCuSeqlensQ() ? abi::CuSeqlensQ
                     : memref == step.getCuSeqlensK() ? abi::CuSeqlensK
                                                     : abi::AlibiSlopes;
    unsigned align = std::max(1u, elt.getIntOrFloatBitWidth() / 8);
    return LLVM::LoadOp::create(lb, elt, gep(arg(param), linear, elt), align)
        .getResult();
  };
  remat.emplace(b, operandMemrefs, dimOf, loadOf);
  hostToKernel = IRMapping();
  ValueRange ivs = tiled.queryTiles.getInductionVars();
  hostToKernel.map(ivs[0], batch);
  hostToKernel.map(ivs[1], head);
  hostToKernel.map(ivs[2], tile);
  rematFailed = false;
  KeyTileRange range;
  if (tiled.keyLoop == TiledAttention::KeyLoop::Split) {
    range.lo = kernelValue(tiled.loops[0].getLowerBound(), hostToKernel);
    range.fullLo = kernelValue(tiled.loops[1].getLowerBound(), hostToKernel);
    range.fullHi = kernelValue(tiled.loops[1].getUpperBound(), hostToKernel);
    range.hi = kernelValue(tiled.loops[2].getUpperBound(), hostToKernel);
  } else {
    range.lo = kernelValue(tiled.loops[0].getLowerBound(), hostToKernel);
    range.hi = kernelValue(tiled.loops[0].getUpperBound(), hostToKernel);
    range.fullLo = range.fullHi = range.lo;
  }
  if (rematFailed)
    return failure();
  // Split KV: split s of n takes key tiles [lo + c s / n, lo + c (s + 1)
  // / n) of the c tiles in [lo, hi), as attnrt_plan counts them (with a
  // plan, the split of the tiles this block's mask shows, whatever the
  // plan assumed); [fullLo, fullHi) still classifies the tiles it visits.
  // A persistent kernel's split tail item likewise (buildWork).
  if (config.getSplitKv()) {
    Value count = a.max(a.sub(range.hi, range.lo), idx(0));
    auto boundary = [&](Value s) {
      Value cut = arith::DivUIOp::create(b, arith::MulIOp::create(b, count, s),
                                         a.max(numSplits, idx(1)));
      return a.add(range.lo, a.min(cut, count));
    };
    Value lo = boundary(split);
    range.hi = boundary(a.add(split, idx(1)));
    range.lo = lo;
  }
  if (tailRaw) {
    // A persistent kernel's tail segment: its share of the item's keys
    // (tailGeometry).
    range.lo = arith::SelectOp::create(b, tail.isTail, tail.lo, range.lo);
    range.hi = arith::SelectOp::create(b, tail.isTail, tail.hi, range.hi);
  }
  if (round) {
    // Persistent: bounds that do not change between work items (no mask's
    // are all 0 and the key tiles) would take everything derived from
    // them, such as the first tile's key columns, out of the items' loop.
    range.lo = opaque(range.lo);
    range.hi = opaque(range.hi);
    range.fullLo = opaque(range.fullLo);
    range.fullHi = opaque(range.fullHi);
  }
  tileUses = a.max(a.sub(range.hi, range.lo), idx(0));
  Value negInf = f32c(-INFINITY), zero = f32c(0.0);
  // Loop state: m per slot, l per slot, then the accumulators of each
  // m-tile (vTiles C fragments).
  const int64_t accPerTile = vTiles * 4;
  SmallVector<Value> inits(slots, negInf);
  inits.append(slots, zero);
  inits.append(mt * accPerTile, zero);

  const int64_t stages = config.getStages();
  // The wgmma kernel's tile loads: TMA (KernelAbi.h tensor maps) of a key
  // tile's boxes (boxBytes, loadBoxes), completing on the stage's keys or
  // values full barrier. A paged cache: key `key` of this sequence is row
  // key mod P of page page_table[batch, key / P] (pageEntry, clampPage).
  if (pageSize) {
    keyBoxes.pageRow =
        gep(arg(abi::PageTable),
            arith::MulIOp::create(b, batch, indexOf(arg(abi::MaxPages))), i32);
    keyBoxes.lastPage = a.sub(indexOf(arg(abi::NumPages)), idx(1));
  }
  keyBoxes.kvHead = kvHead;
  keyBoxes.seqK = seqK;
  const int64_t issuers = boxIssuers();
  const int64_t boxRows = pageSize ? std::min(pageSize, bk) : bk;
  const int64_t boxSlots = this->boxSlots();
  // With several issuers the first warp's lane expects the bytes: a box
  // of another warp may complete before, taking the barrier's transaction
  // count below zero for a while (the phase still waits for that arrival).
  auto issueKeys = [&](Value kt, Value stage, Value, Value bar,
                       ValueRange entries) {
    onProducerWarp(0, [&] { tma::arriveExpectTx(b, bar, boxBytes(false)); });
    loadBoxes(false, kt, stage, bar, entries);
  };
  auto issueValues = [&](Value kt, Value stage, Value, Value bar,
                         ValueRange entries) {
    onProducerWarp(0, [&] { tma::arriveExpectTx(b, bar, boxBytes(true)); });
    loadBoxes(true, kt, stage, bar, entries);
  };
  // tma_loads: a tile's keys and values on its stage's one full barrier.
  auto issueTileTma = [&](Value kt, Value stage, Value bar, Value) {
    tma::arriveExpectTx(b, bar, boxBytes(false) + boxBytes(true));
    loadBoxes(false, kt, stage, bar, {});
    loadBoxes(true, kt, stage, bar, {});
  };
  // Two-stage pipeline: tile kt + 1 streams in with cp.async while tile kt
  // is computed. One cp.async group per tile (possibly empty).
  // tma_loads over a paged cache: a key tile is `chunks` boxes of
  // `chunkRows` rows (a page, or a tile of a larger page), spread over the
  // warps: the thread of chunk j = warp + warps * lane (myChunk) < chunks loads
  // chunk j (its K and V boxes, at rows j * chunkRows of the stage; one warp's
  // lanes would issue them one after another) from the page it read an
  // iteration earlier (pageAhead): row k0 mod P of page page_table[batch,
  // (k0 + j chunkRows) / P]. Past the sequence's keys the index is clamped
  // to its last key (a real page whose rows are masked, their V rows
  // zeroed). Thread 0 (chunk 0) expects the tile's bytes.
  const int64_t chunkRows = boxRows, chunks = bk / chunkRows;
  Value myChunk;
  if (pageSize)
    myChunk =
        a.add(warp, arith::MulIOp::create(b, lane, idx(config.getWarps())));
  auto pageAhead = [&](Value kt) -> Value {
    Value j = arith::RemUIOp::create(b, myChunk, idx(chunks));
    Value key = a.add(arith::MulIOp::create(b, kt, idx(bk)),
                      arith::MulIOp::create(b, j, idx(chunkRows)));
    // The raw entry: nothing uses it before the next iteration's issue, so
    // no thread waits for the load within this one.
    return pageEntryUpTo(key);
  };
  // Run by the threads of chunks j < chunks (the ring's issuers); `entry`:
  // this thread's page-table entry of the tile (pageAhead).
  auto issuePagedTma = [&](Value kt, Value stage, Value bar, Value entry) {
    Value page = clampPage(indexOf(entry));
    auto ifLeader = scf::IfOp::create(
        b, arith::CmpIOp::create(b, arith::CmpIPredicate::eq, myChunk, idx(0)),
        /*withElseRegion=*/false);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(&ifLeader.getThenRegion().front());
      tma::arriveExpectTx(b, bar, boxBytes(false) + boxBytes(true));
    }
    Value k0 = arith::MulIOp::create(b, kt, idx(bk));
    Value row = toI32(arith::RemUIOp::create(b, k0, idx(pageSize)));
    Value chunkBytes =
        arith::MulIOp::create(b, myChunk, idx(chunkRows * kSwizzleRowBytes));
    for (bool values : {false, true})
      loadBoxesAt(values, a.add(tileBase(stage, values), chunkBytes), row,
                  page, bar);
  };
  // Row sources for the copier, whose `column` counts 16-bit units: an
  // fp8 row's byte offset is twice that.
  const int64_t columnScale = fp8 ? 2 : 1;
  // A key's page and row in it, by the copier's slot: the V copy of a tile
  // reuses the K copy's page-table reads (same rows when D = Dv).
  using PageSlots = DenseMap<int64_t, std::pair<Value, Value>>;
  auto pagedRow = [&](Value head, const std::array<Value, 3> &stride,
                      PageSlots *slots) {
    return [&, head, stride, slots](Value key, Value column,
                                    int64_t slot) -> Value {
      if (columnScale != 1)
        column = arith::MulIOp::create(b, column, idx(columnScale));
      std::pair<Value, Value> at;
      if (slots && slot >= 0)
        at = slots->lookup(slot);
      if (!at.first) {
        key = a.max(key, idx(0));
        Value id = indexOf(pageEntry(key));
        at = {clampPage(id), arith::RemUIOp::create(b, key, idx(pageSize))};
        if (slots && slot >= 0)
          (*slots)[slot] = at;
      }
      Value offset =
          a.add(a.add(arith::MulIOp::create(b, at.first, stride[0]),
                      arith::MulIOp::create(b, at.second, stride[2])),
                column);
      return gep(head, offset, kvElt);
    };
  };
  auto contiguousRow = [&](Value head, Value rowStride32) {
    return [&, head, rowStride32](Value key, Value column, int64_t) -> Value {
      return gep32(
          b, head,
          rowOffset32(b, key, rowStride32,
                      arith::MulIOp::create(b, column, idx(columnScale))),
          kvElt);
    };
  };
  auto issueTile = [&](Value kt, Value stage) {
    Value k0 = arith::MulIOp::create(b, kt, idx(bk));
    if (fp8) {
      // The codes into staging stage `stage`: K rows of D bytes, then V
      // rows of Dv bytes (the copier counts 16-bit units: D / 2 a row).
      Value base =
          a.add(idx(layout.fp8Offset),
                arith::MulIOp::create(b, stage, idx(layout.fp8StageBytes)));
      PageSlots slots;
      PageSlots *shared = d == dv ? &slots : nullptr;
      using Source = std::function<Value(Value, Value, int64_t)>;
      auto kRow = pageSize ? Source(pagedRow(kHead, kStride, shared))
                           : Source(contiguousRow(kHead, kRowStride));
      auto vRow = pageSize ? Source(pagedRow(vHead, vStride, shared))
                           : Source(contiguousRow(vHead, vRowStride));
      copier->copyRowsFrom(kRow, k0, seqK, d / 2, layout.fp8KPitch / 2, base,
                           tid, bk);
      copier->copyRowsFrom(vRow, k0, seqK, dv / 2, dv / 2,
                           a.add(base, idx(bk * layout.fp8KPitch)), tid, bk);
      return;
    }
    Value base = arith::MulIOp::create(b, stage, idx(stageBytes));
    if (pageSize) {
      PageSlots slots;
      PageSlots *shared = d == dv ? &slots : nullptr;
      copier->copyRowsFrom(pagedRow(kHead, kStride, shared), k0, seqK, d,
                           kPitch, base, tid, bk);
      copier->copyRowsFrom(pagedRow(vHead, vStride, shared), k0, seqK, dv,
                           vPitch, a.add(base, idx(vOffset)), tid, bk);
      return;
    }
    copier->copyRows(kHead, kRowStride, k0, seqK, d, kPitch, base, tid, bk);
    copier->copyRows(vHead, vRowStride, k0, seqK, dv, vPitch,
                  a.add(base, idx(vOffset)), tid, bk);
  };
  // Masks with no key-tile bounds are classified per tile at run time by the
  // test of the tiled IR (an affine mask_fn at the tile's corners, seq_ids
  // id ranges, the block table); empty tiles are neither loaded nor
  // computed. A region scan is not run on the GPU: those tiles stay
  // element-wise.
  bool tileTest = tiled.testsTilesAtRunTime();
  scores.tileTest = tileTest;
  // Tile tests on the wgmma kernel take the overlapped schedule on a
  // compacted ring (overlappedWgmmaLoop); on a persistent grid the ring
  // goes on from item to item, each item's end use passing a phase of
  // every barrier of its stage (TmaKeyLoop::produceCompacted). Every head
  // dim: with the tiles announced by the producer the
  // consumers hold no cursor, and D = 256 block masks assemble without
  // spills on 64-key tiles (with the consumers' own cursor they spilled
  // 96-120 bytes).
  const bool compactedRing = compactsRing();
  std::optional<CpAsyncKeyLoop> keyLoop;
  tmaLoop.reset();
  std::optional<TmaTileRing> tmaRing;
  const bool tmaLoads = config.getTmaLoads();
  // A wgmma kernel's consumer part sits in this scf.if (splitRoles).
  std::optional<OpBuilder::InsertionGuard> consumerGuard;
  Value releases;
  // The row mask state of the work item's rows where it is worth computing
  // once (set on the wgmma consumers below); otherwise each boundary tile
  // builds its own.
  std::optional<SmallVector<RowMask>> itemRowMasks;
  // Masks whose rows each see one interval of keys, both ends
  // nondecreasing in the row: interval masks (none, causal, windows,
  // prefix-LM) and cu_seqlens documents (the row's document, up to the
  // row's own key under a causal mask, empty for a row before the keys).
  const bool documentRanges =
      c.spec.kind == mask::MaskKind::Document &&
      c.spec.documentSource == mask::DocumentSource::CuSeqlens;
  const bool intervals = mask::hasIntervalForm(c.spec.kind) || documentRanges;
  scores.c = c;
  scores.documentRanges = documentRanges;
  // trim_keys: the keys [wgKeyLo, wgKeyHi) that some row of the consumer
  // warpgroup may see, from its first and last rows.
  const bool trimKeys = wgmma && config.getTrimKeys() && bk >= 32 &&
                        intervals && c.spec.kind != mask::MaskKind::None;
  Value wgKeyLo, wgKeyHi;
  // The wgmma kernel over an fp8 cache (convertsCodes): the producer
  // warpgroup's first lane loads tile kt + 1's K and V codes by TMA into
  // its stage of codes at the top of iteration kt (TmaKeyLoop::Hooks::
  // prefetch; the stage's previous codes converted), and all its threads
  // convert tile kt's codes into the 16-bit stage the consumers read, each
  // arriving on its full barrier once its share is written and fenced for
  // the async proxy (wgmma). Both take the ring uses TmaKeyLoop passes
  // them (its useBase included).
  const bool converts = convertsCodes();
  Value producerLane0;
  if (converts)
    producerLane0 = arith::CmpIOp::create(b, arith::CmpIPredicate::eq, tid,
                                          idx(32 * config.getWarps()));
  codes.producerLane0 = producerLane0;
  codes.tid = tid;
  codes.range = range;
  if (wgmma) {
    auto notEmptyHook = [&](Value kt, Value cond) {
      return notEmpty(kt, cond);
    };
    TmaKeyLoop::Hooks hooks{issueKeys, issueValues, notEmptyHook};
    // A compacted ring tests each tile once: its visible flag decides the
    // load, its full flag goes to the consumers with the tile.
    hooks.testTile = [&](Value kt) -> std::pair<Value, Value> {
      TileFlags f = tileFlags(kt);
      return {arith::XOrIOp::create(b, f.empty,
                                    arith::ConstantIntOp::create(b, 1, 1)),
              f.full};
    };
    // A compacted ring's tile a stage: 2 kt + full (i32), -1 at the end,
    // written by the lane that arrives on the keys' full barrier.
    hooks.announce = [&](Value kt, Value full, Value stage) {
      onProducerWarp(0, [&] {
        Value word = i32c(-1);
        if (kt)
          word = arith::OrIOp::create(
              b, arith::ShLIOp::create(b, toI32(kt), i32c(1)),
              arith::ExtUIOp::create(b, b.getI32Type(), full));
        LLVM::StoreOp::create(b, word, tileSlot(stage), /*align=*/4);
      });
    };
    if (pageSize && pagesAheadOneTile() && !converts)
      hooks.ahead = [&](Value kt) { return tilePageEntries(kt); };
    if (converts) {
      hooks.issueKeys = [&](Value kt, Value stage, Value round, Value full,
                            ValueRange entries) {
        convertKeys(kt, stage, round, full, entries);
      };
      hooks.issueValues = [&](Value kt, Value stage, Value round, Value full,
                              ValueRange) {
        convertValues(kt, stage, round, full);
      };
      // 16 entries (pages of 8 rows) read ahead spilled (ptxas -v).
      if (pageSize && boxSlots <= 8)
        hooks.ahead = [&](Value kt) { return codeEntries(kt); };
    }
    tmaLoop.emplace(b, std::move(hooks), stages, stageBytes,
                    config.getWarps() / 4,
                    [&](Value i) { return barrierAt(i); });
    if (converts) {
      tmaLoop->fullArrivals = kProducerThreads;
      tmaLoop->valuesBehind = true;
    }
    tmaLoop->useBase = ringBase;
    // Q's use: phase `round` of its full barrier (0 without a persistent
    // grid); with one, its empty barrier's phase before, once the
    // consumers are done with the previous work item's Q.
    Value qUse = round ? round : idx(0);
    auto parityOf = [&](Value use) {
      return toI32(arith::RemUIOp::create(b, use, idx(2)));
    };
    scf::IfOp consumerIf;
    if (role == Role::All) {
      // One work item: its values above are every thread's; the roles
      // part here.
      auto [ifConsumer, ifProducer] = splitRoles();
      consumerIf = ifConsumer;
      consumerGuard.emplace(b);
      b.setInsertionPoint(ifProducer.getThenRegion().front().getTerminator());
      role = Role::Producer;
    }
    if (role == Role::Producer) {
      std::optional<OpBuilder::InsertionGuard> qGuard;
      if (converts) {
        qGuard.emplace(b);
        auto ifLane0 =
            scf::IfOp::create(b, producerLane0, /*withElseRegion=*/false);
        b.setInsertionPointToStart(&ifLane0.getThenRegion().front());
      }
      onProducerWarp(0, [&] {
        if (round)
          tma::wait(b, qBarrier(1), parityOf(a.add(qUse, idx(1))));
        Value bar = qBarrier(0);
        tma::arriveExpectTx(b, bar, swizzled.qBytes);
        for (int64_t box = 0; box * 64 < d; ++box)
          tma::load(b,
                    mmaE->smemAt(idx(qOffset + box * swizzled.queryBoxBytes)),
                    arg(abi::QMap),
                    {i32c(64 * box), toI32(a.add(qStart, q0)), toI32(head),
                     toI32(qBatch)},
                    bar);
      });
      qGuard.reset();
      // An empty tile's full barriers: one arrival, by the first issuer.
      if (issuers > 1)
        tmaLoop->leader = producerWarpIs(0);
      // The codes of the ring's first `stages` tiles, keys first.
      if (converts)
        for (bool values : {false, true})
          for (int64_t s = 0; s < stages; ++s) {
            Value kt = a.add(range.lo, idx(s));
            loadCodes(values, kt, tmaLoop->useOf(kt, range.lo),
                      arith::CmpIOp::create(b, arith::CmpIPredicate::slt, kt,
                                            range.hi),
                      {}, /*keptEntries=*/false);
          }
      if (compactedRing) {
        Value end = tmaLoop->produceCompacted(range.lo, range.hi);
        if (round)
          tileUses = a.sub(end, ringBase);
      } else
        tmaLoop->produce(range.lo, range.hi);
      if (!consumerIf)
        return success();
      b.setInsertionPoint(consumerIf.getThenRegion().front().getTerminator());
      role = Role::Consumer;
    }
    // One thread of each warpgroup releases a stage.
    releases = arith::CmpIOp::create(
        b, arith::CmpIPredicate::eq, arith::RemUIOp::create(b, tid, idx(128)),
        idx(0));
    // Document masks: each row's document (a scan of cu_seqlens, or its
    // seq_ids entry) is found once a work item, its loads in flight while
    // Q arrives, not on every boundary tile in the softmax.
    if (c.spec.kind == mask::MaskKind::Document) {
      itemRowMasks.emplace();
      for (Value row : safeRows)
        itemRowMasks->push_back(buildRowMask(b, c, row));
    }
    if (trimKeys) {
      Value wgFirst = a.add(q0, arith::MulIOp::create(b, warpGroup, idx(64)));
      RowMask first = buildRowMask(b, c, a.min(wgFirst, lastRow));
      RowMask last =
          buildRowMask(b, c, a.min(a.add(wgFirst, idx(63)), lastRow));
      wgKeyLo = rowKeys(first).first;
      wgKeyHi = a.min(rowKeys(last).second, seqK);
    }
    tma::wait(b, qBarrier(0), parityOf(qUse));
    // Over fp8 codes under bf16 queries the GEMMs are f16: each consumer
    // warpgroup scales its 64 rows of Q into f16 in place (as f16Scores
    // does in registers), lane (g, t) of warp w the rows 16 w + g and
    // 16 w + g + 8 of the slab, which are its accumulator rows: of each
    // 64-column box the 16-byte chunks t and t + 4 (at chunk xor row mod 8,
    // row mod 8 = g); the row's scores are then multiplied by 2^-e
    // (qUnscale, folded into the softmax's scale). The writes are fenced
    // for wgmma's async proxy and the warpgroup meets at named barrier 9 +
    // its index before its first S.
    if (converts && eltType.isBF16()) {
      Type v4 = VectorType::get({4}, i32);
      Value slab = a.add(
          idx(qOffset),
          arith::MulIOp::create(b, warpGroup, idx(64 * kSwizzleRowBytes)));
      Value rowInGroup =
          a.add(arith::MulIOp::create(
                    b, arith::RemUIOp::create(b, warp, idx(4)), idx(16)),
                g);
      for (int64_t h = 0; h < 2; ++h) {
        Value rowBase =
            a.add(slab, arith::MulIOp::create(b, a.add(rowInGroup, idx(8 * h)),
                                              idx(kSwizzleRowBytes)));
        SmallVector<Value> addresses;
        for (int64_t box = 0; box * 64 < d; ++box)
          for (int64_t half = 0; half < 2; ++half)
            addresses.push_back(a.add(
                a.add(rowBase, idx(box * swizzled.queryBoxBytes)),
                arith::MulIOp::create(
                    b, arith::XOrIOp::create(b, a.add(t, idx(4 * half)), g),
                    idx(16))));
        SmallVector<Value> chunks;
        Value widest = i32c(0);
        for (Value at : addresses) {
          chunks.push_back(
              LLVM::LoadOp::create(b, v4, mmaE->smemAt(at), /*align=*/16));
          for (int64_t w = 0; w < 4; ++w)
            widest = widerOf(widest, LLVM::ExtractElementOp::create(
                                         b, chunks.back(), i32c(w)));
        }
        auto [up, down] = rowScales(widest);
        qUnscale.push_back(down);
        // The keys' scale's sign too (exact), so that the scores' factor
        // is positive and the softmax takes them raw (below).
        up = math::CopySignOp::create(b, up, kScale);
        for (auto [chunk, at] : llvm::zip(chunks, addresses)) {
          Value out = LLVM::UndefOp::create(b, v4);
          for (int64_t w = 0; w < 4; ++w)
            out = LLVM::InsertElementOp::create(
                b, out,
                scaledF16(LLVM::ExtractElementOp::create(b, chunk, i32c(w)),
                          up),
                i32c(w));
          LLVM::StoreOp::create(b, out, mmaE->smemAt(at), /*align=*/16);
        }
      }
      NVVM::FenceProxyOp::create(
          b, NVVM::ProxyKind::async_shared,
          NVVM::SharedSpaceAttr::get(b.getContext(),
                                     NVVM::SharedSpace::shared_cta));
      NVVM::BarrierOp::create(
          b, /*res=*/Type(),
          arith::AddIOp::create(
              b, arith::IndexCastOp::create(b, i32, warpGroup), i32c(9)),
          i32c(128), /*reductionOp=*/{}, /*reductionPredicate=*/Value());
    }
  } else if (tmaLoads) {
    Value leader =
        arith::CmpIOp::create(b, arith::CmpIPredicate::eq, tid, idx(0));
    auto notEmptyHook = [&](Value kt, Value cond) {
      return notEmpty(kt, cond);
    };
    TmaTileRing::Hooks hooks{issueTileTma, nullptr, notEmptyHook, nullptr};
    Value issuer = leader;
    if (pageSize) {
      hooks.issue = issuePagedTma;
      hooks.ahead = pageAhead;
      issuer = arith::CmpIOp::create(b, arith::CmpIPredicate::ult, myChunk,
                                     idx(chunks));
    }
    tmaRing.emplace(b, hooks, stages, fp8 ? swizzled.stageBytes : stageBytes,
                    leader, issuer, [&](Value i) { return barrierAt(i); });
    tmaRing->prologue(range.lo, range.hi);
  } else {
    CpAsyncKeyLoop::Hooks hooks;
    hooks.issue = issueTile;
    hooks.notEmpty = [&](Value kt, Value cond) { return notEmpty(kt, cond); };
    keyLoop.emplace(b, *copier, hooks, fp8 ? layout.fp8StageBytes : stageBytes,
                    config.getStages());
    keyLoop->prologue(range.lo, range.hi);
    if (config.getQInSmem())
      copier->copyRows(qHead, qRowStride, q0, seqQ, d, qPitch, idx(qOffset),
                       tid, bq);
    copier->commit();
    keyLoop->prologueRest(range.lo, range.hi);
  }

  consumer.seqK = seqK;
  consumer.tid = tid;
  consumer.lane = lane;
  consumer.releases = releases;
  consumer.warpGroup = warpGroup;
  consumer.trimKeys = trimKeys;
  consumer.wgKeyLo = wgKeyLo;
  consumer.wgKeyHi = wgKeyHi;

  setTileLanes(lane, rowWarp);

  scores.range = range;
  scores.positions = positions;
  scores.safeRows = safeRows;
  scores.qUnscale = qUnscale;
  scores.itemRowMasks = itemRowMasks;
  scores.keyOffset = keyOffset;
  scores.t2 = t2;
  scores.kScale = kScale;
  scores.seqK = seqK;
  scores.negInf = negInf;
  scores.zero = zero;
  scores.intervals = intervals;
  scores.raggedQ = raggedQ;

  // The tile's work of the loops other than the overlapped wgmma loop
  // (tileBody), from the Q fragments and lanes set here.
  mmaTile.qFrag = qFrag;
  mmaTile.kInRegisters = kInRegisters;
  mmaTile.f16Scores = f16Scores;
  mmaTile.mmaK = &mmaK;
  auto body = [&](Value kt, Value stageBase,
                  ValueRange it) -> SmallVector<Value> {
    return tileBody(kt, stageBase, it);
  };
  // A persistent grid (key tiles [lo, hi), no tile test): the consumers
  // release the item's Q once the last tile's softmax is done and the P V
  // before it has completed, so that the producer loads the next item's Q
  // while the last P V and the epilogue run, rather than after them; an
  // item of one key tile releases it once its S has completed, an item of
  // none after its (empty) key loop. (Released straight after the last S,
  // before its softmax, ptxas spilled the D = 128 no-mask kernel.) H200,
  // bench/RESULTS.md, eighteenth session run 3: D=128 no mask 1K 502-506
  // -> 518-521 TFLOP/s, 4K, 16K and the 1024-key window level or above.
  // On a compacted ring (tile tests) once the item's last S has completed,
  // or where it has no visible tile.
  const bool earlyQ = wgmma && round;
  consumer.earlyQ = earlyQ;

  ValueRange res;
  if (wgmma) {
    res = overlappedWgmmaLoop(range.lo, range.hi, inits, compactedRing);
  } else if (tmaLoads && fp8) {
    // As the fp8 branch below, from stages of swizzled codes: the V codes
    // past the sequence's keys zeroed, then converted into the V tile (a
    // barrier), the K codes read in registers by the body. The ring's
    // barrier after the body ends every read of the stage and of the V
    // tile before either is written again.
    tmaRing->hooks.body = [&](Value kt, Value stageBase,
                              ValueRange it) -> SmallVector<Value> {
      mmaTile.kCodes = a.add(idx(swizzled.fp8Offset), stageBase);
      Value vCodes = a.add(mmaTile.kCodes, idx(swizzled.vOffset));
      zeroVTail(kt, stageBase, vCodes);
      convertFp8Rows(*mmaV, vCodes, dv, vPitch, vOffset, /*swizzledSrc=*/true);
      gpu::BarrierOp::create(b);
      return body(kt, idx(0), it);
    };
    res = tmaRing->loop(range.lo, range.hi, inits);
  } else if (fp8) {
    // Each tile's codes, once every thread sees them, become the 16-bit
    // tile at byte 0 (exact: every e4m3 value is a bf16 and an f16), which
    // the body then reads as in the 16-bit kernel. The barrier after the
    // conversion ends every read of the staging stage, and the next tile's
    // conversion waits behind the next iteration's barrier, which every
    // warp reaches only after this body: no barrier after the body.
    keyLoop->hooks.barrierAfterBody = false;
    keyLoop->hooks.body = [&](Value kt, Value stageBase,
                              ValueRange it) -> SmallVector<Value> {
      Value codes = a.add(idx(layout.fp8Offset), stageBase);
      mmaTile.kCodes = codes;
      if (!kInRegisters)
        convertFp8Rows(*mmaE, codes, d, kPitch, 0);
      convertFp8Rows(*mmaV, a.add(codes, idx(bk * layout.fp8KPitch)), dv,
                     vPitch, vOffset);
      gpu::BarrierOp::create(b);
      return body(kt, idx(0), it);
    };
    res = keyLoop->loop(range.lo, range.hi, inits);
  } else if (tmaLoads) {
    tmaRing->hooks.body = body;
    res = tmaRing->loop(range.lo, range.hi, inits);
  } else {
    keyLoop->hooks.body = body;
    res = keyLoop->loop(range.lo, range.hi, inits);
  }
  // A persistent grid: every wgmma reading this work item's Q has
  // completed; the producer may load the next item's (earlyQ: released in
  // the key loop, unless the item has no key tile).
  if (wgmma && round && !compactedRing) {
    Value cond = releases;
    if (earlyQ)
      cond = arith::AndIOp::create(
          b, cond,
          arith::CmpIOp::create(b, arith::CmpIPredicate::sge, range.lo,
                                range.hi));
    auto ifRelease = scf::IfOp::create(b, cond, /*withElseRegion=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&ifRelease.getThenRegion().front());
    tma::arrive(b, qBarrier(1));
  }

  // The epilogue: O = acc / l (0 for a row with no key) and the LSE, to O
  // or (num_splits > 1) to this split's partial rows in the scratch.
  // Split KV on sm_90: the combine kernel's blocks may be scheduled once
  // every block of this one has left its key loop (they wait in
  // griddepcontrol.wait for this grid's completion and writes), so its
  // launch overlaps the epilogues. Triggered at the kernel's start instead,
  // the combine took 1-2 us longer at B=1 on the H200 (bench/RESULTS.md,
  // ninth session run 1).
  if (config.getSplitKv() && gridDependencies)
    NVVM::GriddepcontrolOp::create(b,
                                   NVVM::GridDepActionKind::launch_dependents);
  SmallVector<Value> mFinal(res.take_front(slots)),
      lFinal(res.slice(slots, slots)), accFinal(res.drop_front(2 * slots));
  // fp8 values: P . (code * scale) = (P . code) * scale.
  if (vScale)
    for (Value &x : accFinal)
      x = arith::MulFOp::create(b, x, vScale);
  std::optional<OpBuilder::InsertionGuard> mergeGuard;
  if (keyWarps > 1)
    mergeKeyWarps(mFinal, lFinal, accFinal, warp, g, t, t2, mergeGuard);
  // A segment of a persistent kernel's tail item stores its rows only
  // when it completes the item (mergeTailSegments).
  std::optional<OpBuilder::InsertionGuard> tailGuard;
  if (tailRaw) {
    Value stores = mergeTailSegments(mFinal, lFinal, accFinal, tid, warp, lane);
    auto ifStore = scf::IfOp::create(b, stores, /*withElseRegion=*/false);
    tailGuard.emplace(b);
    b.setInsertionPointToStart(&ifStore.getThenRegion().front());
  }
  OutputPlace at{rows, positions, q0,        seqQ,  seqQAll,     t,
                 t2,   batchSize, numSplits, split, partialSlot, planned};
  storeOutputs(at, mFinal, lFinal, accFinal);
  tailGuard.reset();
  mergeGuard.reset();
  consumerGuard.reset();
  raggedGuard.reset();
  workGuard.reset();
  role = Role::All;
  return failure(rematFailed);
}

FailureOr<gpu::GPUModuleOp> attnc::buildFlashKernel(ModuleOp module,
                                                    const TiledAttention &t,
                                                    bool gridDependencies,
                                                    int64_t minBlocks) {
  MLIRContext *ctx = module.getContext();
  Operation *op = t.queryTiles;
  GpuKernelAttr config = t.config;
  module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                  UnitAttr::get(ctx));
  ImplicitLocOpBuilder b(op->getLoc(), ctx);
  b.setInsertionPointToEnd(module.getBody());
  auto gpuModule = gpu::GPUModuleOp::create(b, "attnc_kernels");
  b.setInsertionPointToStart(gpuModule.getBody());

  // The dynamic shared memory, as an external array (a static one could
  // overlap other shared allocations).
  LLVM::GlobalOp::create(b, LLVM::LLVMArrayType::get(b.getI8Type(), 0),
                         /*isConstant=*/false, LLVM::Linkage::External,
                         kSharedMemoryName, Attribute(),
                         /*alignment=*/
                         config.getWgmma() || config.getTmaLoads() ? 1024 : 16,
                         /*addrSpace=*/3);
  // The parameters of the kernel ABI table (KernelAbi.h), in its order.
  Type ptr = LLVM::LLVMPointerType::get(ctx);
  SmallVector<Type> args;
  // Tensor maps are pointers here; attn-mark-tensor-map-params makes them
  // 128-byte by-value (grid constant) parameters after lowering to NVVM.
  for (const abi::ParamInfo &param : abi::kParams)
    args.push_back(param.kind == abi::ParamKind::I64
                       ? static_cast<Type>(b.getI64Type())
                       : ptr);
  auto func =
      gpu::GPUFuncOp::create(b, kKernelName, b.getFunctionType(args, {}));
  func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
  func.setKnownBlockSizeAttr(
      b.getDenseI32ArrayAttr({static_cast<int32_t>(config.getThreads()), 1, 1}));
  if (config.getWgmma())
    // setmaxnreg needs ptxas to fix the registers a thread starts with
    // (65536 / (threads * blocks per multiprocessor)).
    func->setAttr(
        "nvvm.minctasm",
        b.getI32IntegerAttr(
            wgmmaRegisters(config, flashKernelSharedMemoryBytes(
                                       KernelProblem::of(t.step), config))
                .blocksPerMultiprocessor));
  else if (minBlocks > 0)
    func->setAttr("nvvm.minctasm", b.getI32IntegerAttr(minBlocks));
  b.setInsertionPointToStart(&func.getBody().front());
  if (failed(KernelBuilder(b, t, func, gridDependencies).build()))
    return failure();
  if (config.getSplitKv()) {
    b.setInsertionPointAfter(func);
    auto combine = gpu::GPUFuncOp::create(b, abi::kCombineKernel,
                                          b.getFunctionType(args, {}));
    combine->setAttr(gpu::GPUDialect::getKernelFuncAttrName(),
                     b.getUnitAttr());
    combine.setKnownBlockSizeAttr(
        b.getDenseI32ArrayAttr({32 * abi::kCombineRowsPerBlock, 1, 1}));
    b.setInsertionPointToStart(&combine.getBody().front());
    // Launched with programmatic stream serialization, the combine may start
    // before the split kernel ends: wait for its grid and its writes.
    if (gridDependencies)
      NVVM::GriddepcontrolOp::create(b, NVVM::GridDepActionKind::wait);
    buildSplitKvCombine(b, combine, KernelProblem::of(t.step),
                        config.getBlockQ(), config.getGqaPack(),
                        static_cast<bool>(TileFinalizeOp(t.finalize).getLse()));
  }
  return gpuModule;
}
