//===- Wgmma.h - Hopper warpgroup MMA pieces of the sm_90a kernel -*- C++
//-*-===//
//
// The building blocks the kernel builder uses with `wgmma = true`:
//
//   SwizzledSmemLayout  where Q, K and V tiles sit in dynamic shared memory:
//                       64-column boxes of rows x 128 bytes, 1024-byte
//                       aligned, 128-byte swizzled (what the descriptors of
//                       wgmma and the SWIZZLE_128B mode of TMA read)
//   WgmmaEmitter        wgmma.mma_async S = Q K^T from shared memory (SS),
//                       O += P V with P from registers (RS), the fence,
//                       commit and a wait whose accumulators are tied so
//                       that no use is scheduled above it
//
// PTX ISA, "Asynchronous Warpgroup Level Matrix Multiply-Accumulate": the
// m64nNk16 accumulator of a warpgroup gives warp w rows 16 w + g and
// 16 w + g + 8 (lane = 4 g + t); register i holds row 16 w + g +
// 8 ((i / 2) % 2), column 8 (i / 4) + 2 t + i % 2, which is the C layout of
// N / 8 mma.sync m16n8 tiles side by side (MmaAccumulatorLayout with one
// m-tile), so the softmax and the epilogue of the mma.sync kernel apply
// unchanged. Descriptor bits and strides were verified on the H200
// (../shared/reference/mlir22-nvvm-recipes.md, "Verified on the H200").
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_PASSES_CONVERSION_WGMMA_H
#define ATTNC_PASSES_CONVERSION_WGMMA_H

#include "dialects/Attn/AttnDialect.h"

#include "mlir/IR/ImplicitLocOpBuilder.h"

#include <functional>

namespace attnc {

/// Bytes of one 128-byte swizzle row (64 16-bit elements).
inline constexpr int64_t kSwizzleRowBytes = 128;

/// The dynamic shared memory of the wgmma kernel: `stages` stages of a K
/// tile then a V tile, then the Q tile, then the mbarriers: a full and an
/// empty one per stage (TmaKeyLoop), then Q's. A tile of R rows and width W is
/// ceil(W / 64) boxes of R x 128 bytes; element (r, c) of box c / 64 sits at
/// byte r * 128 + (((c % 64) / 8) xor (r % 8)) * 16 + (c % 8) * 2.
/// The mma.sync kernel with tma_loads has no Q tile and one full barrier a
/// stage, after its key warps' merge buffers. Over an fp8 cache (kvFp8) its
/// stages hold codes: ceil(D / 128) boxes of K codes then ceil(Dv / 128) of
/// V codes (128 codes, one swizzle row, a row), from byte fp8Offset, after
/// the 16-bit V tile the MMAs read (PaddedSmemLayout's, at byte 0); vOffset
/// and stageBytes then describe a stage of codes. The wgmma kernel over an
/// fp8 cache keeps its 16-bit stages, which its producer warpgroup converts
/// the codes into, and puts `stages` stages of codes after the Q tile (from
/// fp8Offset), then four more barriers a stage: the K codes' full ones
/// (TMA) at + 8 (4 stages + 2 + s), the V codes' at + 8 (5 stages + 2 + s),
/// and their empty ones (the converters) at + 8 (6 stages + 2 + s) and
/// + 8 (7 stages + 2 + s).
struct SwizzledSmemLayout {
  /// Bytes of one box of a K or V tile and of the Q tile.
  int64_t keyBoxBytes = 0, queryBoxBytes = 0;
  /// Byte offsets: of V within a stage, of a stage, of the Q tile.
  int64_t vOffset = 0, stageBytes = 0, qOffset = 0;
  /// Bytes of the Q tile; byte offset of the barriers (8 bytes each, the
  /// four of stage s: keys full at + 8 s, values full at + 8 (stages + s),
  /// keys empty at + 8 (2 stages + s), values empty at + 8 (3 stages + s);
  /// Q's full at + 32 stages, its empty one 8 further).
  int64_t qBytes = 0, barrierOffset = 0;
  /// kvFp8: byte offset of the first stage of codes (1024-byte aligned),
  /// of the V codes within a stage, and of a stage of codes.
  int64_t fp8Offset = 0, codeVOffset = 0, codeStageBytes = 0;
  /// kvFp8 (the wgmma kernel): byte offset, after the barriers, of the
  /// page-table entries of each stage of codes' tile (kMaxBoxSlots i32 a
  /// stage), kept from its K codes' loads for its V codes'.
  int64_t entryOffset = 0;
  static constexpr int64_t kMaxBoxSlots = 16;
  /// The wgmma kernel: byte offset, after everything else, of one i32 a
  /// stage naming the key tile its keys hold on a compacted ring
  /// (TmaKeyLoop::produceCompacted): 2 kt + full, or -1 past the last one.
  int64_t tileSlotOffset = 0;
  /// staged_stores: byte offset (128-byte aligned, after everything else)
  /// of the consumer warps' output rows, 16 rows a warp of `outputPitch`
  /// bytes each (2 Dv + 16: a row's 4-byte words then fall in distinct
  /// banks for the 8 rows a store instruction writes).
  int64_t outputOffset = 0, outputPitch = 0;
  /// q_buffers = 2: byte offset (1024-byte aligned, after the output rows)
  /// of the second Q tile, then of its full and empty barriers.
  int64_t q2Offset = 0, q2BarrierOffset = 0;
  /// Total bytes.
  int64_t bytes = 0;

  static SwizzledSmemLayout get(int64_t headDim, int64_t valueHeadDim,
                                attn::GpuKernelAttr config, bool kvFp8 = false);
};

/// The register split of the warp-specialised wgmma kernel: thread blocks
/// resident per multiprocessor (2 when one consumer warpgroup's block fits
/// twice in shared memory, else 1) and the registers a producer and a
/// consumer thread keep after setmaxnreg, within the registers the block
/// starts with (attnc/Kernel/RegisterSplit.h; multiples of 8 in [24, 240],
/// a split beyond them hangs the block in setmaxnreg.inc); a persistent
/// producer, or one that tests key tiles at run time, keeps 40, and one
/// that tests them for a sequence of a ragged batch under one consumer
/// warpgroup 56 (and more for the cases in Wgmma.cpp: documents, paged
/// boxes, fp8 conversions, pairs of query tiles at D = 192).
struct WgmmaRegisters {
  int64_t blocksPerMultiprocessor = 1, producer = 24, consumer = 240;
};
WgmmaRegisters
wgmmaRegisters(attn::GpuKernelAttr config, int64_t sharedMemoryBytes,
               bool producerTestsTiles = false, bool ragged = false,
               bool producerScansDocuments = false,
               int64_t producerBoxSlots = 0, bool producerConverts = false,
               bool producerPairsWideRows = false);

/// Emits the warpgroup MMAs of one warpgroup (bf16/f16 in, f32 accumulate).
/// `smem` is the base of the dynamic shared memory (1024-byte aligned).
class WgmmaEmitter {
public:
  WgmmaEmitter(mlir::ImplicitLocOpBuilder &b, mlir::Type elementType,
               mlir::Value smem)
      : b(b), elementType(elementType), smem(smem) {}

  /// The 64-bit descriptor of a 128-byte swizzled operand starting at
  /// shared byte `offset` (index): (address & 0x3FFFF) >> 4, leading and
  /// stride byte offsets >> 4 in bits 16 and 32, swizzle mode 1 in bit 62.
  mlir::Value descriptor(mlir::Value offset, int64_t leadingBytes,
                         int64_t strideBytes);
  /// `desc` advanced by `bytes` (a multiple of 16).
  mlir::Value advance(mlir::Value desc, int64_t bytes);

  /// S = A B^T for the warpgroup's 64 rows and `n` columns, A and B both
  /// K-major swizzled tiles (descriptors of their first box; the next 64
  /// columns of the reduction are `aBoxBytes` / `bBoxBytes` further), over
  /// `kSteps` steps of 16. Returns the n / 2 accumulator registers of the
  /// thread; the group is fenced and committed but not waited for.
  llvm::SmallVector<mlir::Value> gemmSS(mlir::Value descA, int64_t aBoxBytes,
                                        mlir::Value descB, int64_t bBoxBytes,
                                        int64_t kSteps, int64_t n);
  /// acc += P V for the warpgroup's 64 rows and `n` columns: `aFrags` holds
  /// the four 32-bit registers of P's m64k16 A fragment per key step (the
  /// packing of MmaSyncEmitter::packPair), V is an MN-major swizzled tile
  /// (`descB` of its first box with the box size as leading byte offset;
  /// 16 keys = 2048 bytes per step). Fenced and committed, not waited for.
  llvm::SmallVector<mlir::Value>
  gemmRS(llvm::ArrayRef<llvm::SmallVector<mlir::Value, 4>> aFrags,
         mlir::Value descB, llvm::ArrayRef<mlir::Value> acc);
  /// wgmma.wait_group `pending`; `values` (accumulator registers of the
  /// awaited groups) pass through it as tied operands, so every later use
  /// of the returned values is ordered after the wait.
  llvm::SmallVector<mlir::Value> wait(int64_t pending,
                                      llvm::ArrayRef<mlir::Value> values);

private:
  mlir::ImplicitLocOpBuilder &b;
  mlir::Type elementType;
  mlir::Value smem;
};

/// mbarriers and TMA loads (PTX ISA "Parallel Synchronization and
/// Communication Instructions: mbarrier" and "cp.async.bulk.tensor"). A
/// barrier is 8 bytes of shared memory (`bar`, a !llvm.ptr<3>).
namespace tma {
/// mbarrier.init with `count` expected arrivals.
void initBarrier(mlir::ImplicitLocOpBuilder &b, mlir::Value bar, int64_t count);
/// fence.mbarrier_init: initialised barriers become visible to the async
/// proxy (before the block-wide barrier that publishes them).
void fenceBarrierInit(mlir::ImplicitLocOpBuilder &b);
/// mbarrier.arrive.expect_tx: arrives and expects `bytes` more bytes of
/// TMA transactions in the current phase.
void arriveExpectTx(mlir::ImplicitLocOpBuilder &b, mlir::Value bar,
                    int64_t bytes);
/// mbarrier.arrive (completes a phase that expects no transaction).
void arrive(mlir::ImplicitLocOpBuilder &b, mlir::Value bar);
/// Waits until the phase of parity `parity` (i32, 0 or 1) has completed.
void wait(mlir::ImplicitLocOpBuilder &b, mlir::Value bar, mlir::Value parity);
/// cp.async.bulk.tensor of the box at `coords` (i32, innermost first) of the
/// tensor map `map` (a kernel parameter) into shared memory at `dst`
/// (!llvm.ptr<3>), completing on `bar`.
void load(mlir::ImplicitLocOpBuilder &b, mlir::Value dst, mlir::Value map,
          llvm::ArrayRef<mlir::Value> coords, mlir::Value bar);
} // namespace tma

/// The key loop of the wgmma kernel, warp-specialised (FlashAttention-3's
/// producer/consumer split): one producer lane loads key tiles [lo, hi) by
/// TMA into a ring of `stages` shared-memory stages, up to `stages` tiles
/// ahead of the consumers; consumer warpgroups wait for a tile, compute it
/// and release its stage. A stage's keys and values have barriers of their
/// own, so that a schedule can release the keys of a tile once S = Q K^T
/// has completed, while its P V is still to come: the next keys then load
/// a whole tile earlier. Each half has a full barrier (one arrival: the
/// producer's arrive.expect_tx, completed by the TMA bytes) and an empty
/// barrier (one arrival per consumer warpgroup). Use n of a stage completes
/// phase n of each: consumers wait for parity n mod 2 on full, the
/// producer for parity (n + 1) mod 2 on empty (a fresh barrier passes
/// parity 1). A tile the hooks prove empty is not loaded: the producer
/// arrives on its full barriers, so that the phases stay in step.
class TmaKeyLoop {
public:
  struct Hooks {
    /// Loads the keys (issueKeys) or the values (issueValues) of tile `kt`
    /// into `stage` by TMA completing on `full` (the producer lane;
    /// includes the arrive.expect_tx); `round`: the stage's use n (the ring
    /// use over `stages`: full completes its phase n); `ahead`: the values
    /// of hooks.ahead for kt (none without it).
    std::function<void(mlir::Value kt, mlir::Value stage, mlir::Value round,
                       mlir::Value full, mlir::ValueRange ahead)>
        issueKeys, issueValues;
    /// `cond` and tile `kt` holding a visible pair (CpAsyncKeyLoop).
    std::function<mlir::Value(mlir::Value kt, mlir::Value cond)> notEmpty;
    /// Values the loads of tile `kt` need, read by the producer before it
    /// waits for the tile's stages and shared by its keys and values (a
    /// paged cache's page-table entries), or null for none. produce reads
    /// them a tile earlier still, so that their latency hides behind the
    /// previous tile's waits too (two tiles' values live at once); nothing
    /// may use them where they are read. With valuesBehind, produce reads
    /// them at the top of iteration kt, before its waits, and gives them to
    /// both its issues (the keys of kt and the values of kt - 1), none to
    /// the values after the loop.
    std::function<llvm::SmallVector<mlir::Value>(mlir::Value kt)> ahead;
    /// produceCompacted: tile `kt`'s test, once a tile: whether it holds a
    /// visible pair and whether every pair of it is (i1 each).
    std::function<std::pair<mlir::Value, mlir::Value>(mlir::Value kt)> testTile;
    /// produceCompacted: tells the consumers which tile (`kt`; null: none,
    /// the ring's end) the keys of `stage` (index) hold and whether it is
    /// `full` (i1; null at the end), once the stage's previous keys are
    /// released and before its full barrier's arrival publishes it.
    std::function<void(mlir::Value kt, mlir::Value full, mlir::Value stage)>
        announce;
  };

  /// `barrier(i)` is the i-th mbarrier (!llvm.ptr<3>): the full barriers of
  /// the stages' keys, of their values, then the empty barriers of their
  /// keys and of their values.
  TmaKeyLoop(mlir::ImplicitLocOpBuilder &b, Hooks hooks, int64_t stages,
             int64_t stageBytes, int64_t consumerGroups,
             std::function<mlir::Value(mlir::Value)> barrier)
      : hooks(std::move(hooks)), b(b), stages(stages), stageBytes(stageBytes),
        consumerGroups(consumerGroups), barrier(std::move(barrier)) {}

  /// Initialises the 4 * stages barriers (one thread, before the block-wide
  /// barrier that publishes them); a full barrier expects `fullArrivals`.
  void initBarriers();
  /// The producer's loop (emitted where only the producer lane runs).
  void produce(mlir::Value lo, mlir::Value hi);
  /// The producer's loop of a compacted ring: only the tiles holding a
  /// visible pair pass through it, so its uses count the tiles loaded, not
  /// the tiles visited (the consumers count them likewise). Each use's
  /// tile is announced (hooks.announce) with its keys, and the use after
  /// the last one announces the end, its keys' full barrier arrived on
  /// without a load: the consumers read which tile a use holds once its
  /// keys have landed, and test no tiles themselves. With a useBase (a
  /// persistent kernel, whose ring goes on into its next item) the end use
  /// passes a phase of the values' barriers too. Returns the ring uses
  /// after the end use (index).
  mlir::Value produceCompacted(mlir::Value lo, mlir::Value hi);
  /// The pieces of the consumers' loop (FlashKernel's overlapped
  /// schedule), by ring use: the use of tile kt of the loop from `lo` (a
  /// compacted ring counts its uses itself); waiting until the keys or
  /// values of a use have landed (returns its stage's byte offset);
  /// releasing them (one thread per consumer warpgroup, `releases`).
  mlir::Value useOf(mlir::Value kt, mlir::Value lo);
  mlir::Value waitKeys(mlir::Value use);
  mlir::Value waitValues(mlir::Value use);
  void releaseKeys(mlir::Value use, mlir::Value releases);
  void releaseValues(mlir::Value use, mlir::Value releases);

  Hooks hooks;
  /// The ring uses before tile `lo` (index; null for none): a persistent
  /// kernel's earlier work items passed that many tiles through the ring
  /// (on a compacted ring their visible tiles and an end use each).
  mlir::Value useBase;
  /// With several producer lanes (each waits for the stages and issues its
  /// share of a tile's loads in the hooks): true (i1) on the one that
  /// arrives on an empty tile's full barriers; null for one producer lane.
  mlir::Value leader;
  /// Arrivals a full barrier's phase expects: 1 (the producer lane's
  /// arrive.expect_tx), or every thread of a converting producer
  /// warpgroup, each arriving after its share of the tile.
  int64_t fullArrivals = 1;
  /// Arrivals a keys' empty barrier's phase expects: one a consumer
  /// warpgroup (0), or, on a compacted ring, one a consumer thread, each
  /// after its own read of the use's tile (Hooks::announce), which the
  /// producer overwrites once the stage is released: the arrival orders
  /// that read before the producer's write (compute-sanitizer's racecheck
  /// reported the reads of a warpgroup's other threads as hazards with
  /// one arrival a warpgroup, and with one a warp after bar.warp.sync).
  int64_t keyReleaseArrivals = 0;
  /// produce in the consumers' order: the keys of tile kt, then the values
  /// of kt - 1 (the last tile's values after the loop), so that no keys
  /// wait behind the release of a values stage, which comes only after a
  /// P V (a converting producer, whose issue hooks block; no hooks.ahead).
  bool valuesBehind = false;

private:
  /// Stage and use number (index) of ring use `use`.
  std::pair<mlir::Value, mlir::Value> stageOf(mlir::Value use);
  mlir::Value parity(mlir::Value use, int64_t offset);
  /// Barrier `kind` (0 keys full, 1 values full, 2 keys empty, 3 values
  /// empty) of the stage of `use`.
  mlir::Value barrierOf(int64_t kind, mlir::Value use);
  /// The producer: waits until the consumers have released half `half` (0
  /// keys, 1 values) of the stage's previous use, then loads that half of
  /// tile kt for `use` (or only arrives on its full barrier, `load` false),
  /// with hooks.ahead's values `ahead` of kt; with `announceFull` (kt's
  /// full flag), hooks.announce of kt before the issue.
  void loadHalf(int64_t half, mlir::Value kt, mlir::Value use, mlir::Value load,
                mlir::ValueRange ahead, mlir::Value announceFull = {});
  /// Arrives on full barrier `full` without a load (an empty tile, or a
  /// compacted ring's end): the leader alone with several producer lanes.
  void arriveWithoutLoad(mlir::Value full);
  /// Waits on full barrier `kind` (0 keys, 1 values) of `use`; returns
  /// its stage's offset.
  mlir::Value waitHalf(int64_t kind, mlir::Value use);
  void releaseHalf(int64_t kind, mlir::Value use, mlir::Value releases);

  mlir::ImplicitLocOpBuilder &b;
  int64_t stages, stageBytes, consumerGroups;
  std::function<mlir::Value(mlir::Value)> barrier;
};

/// The key loop of the mma.sync kernel with tma_loads: the issuing threads
/// (one, or a warp's lanes for a paged cache) load key tiles [lo, hi) by
/// TMA into a ring of `stages` stages, stages - 1 tiles ahead; a value each
/// tile's loads need (a lane's page id) may be read one iteration earlier
/// still (`ahead`), so that its latency hides behind a tile's work. Every
/// thread waits on the stage's full barrier
/// (the n-th use of a stage completes its phase n), computes the tile and
/// meets the others at a block barrier before the leader loads that stage
/// again. The loads are one thread's few instructions a tile instead of
/// every thread's copies (CpAsyncKeyLoop). A tile the hooks prove empty is
/// not loaded: the leader arrives on its barrier without bytes, so that the
/// phases stay in step.
class TmaTileRing {
public:
  struct Hooks {
    /// Loads tile `kt` into `stage` by TMA completing on `full`, including
    /// the leader's arrive.expect_tx (run by the issuing threads; `ahead` is
    /// this thread's value of hooks.ahead for kt, or null).
    std::function<void(mlir::Value kt, mlir::Value stage, mlir::Value full,
                       mlir::Value ahead)>
        issue;
    /// Optional: a value of tile `kt` that `issue` needs, computed by every
    /// thread an iteration before the tile is issued (any kt: past hi too).
    std::function<mlir::Value(mlir::Value kt)> ahead;
    /// `cond` and tile `kt` holding a visible pair (CpAsyncKeyLoop).
    std::function<mlir::Value(mlir::Value kt, mlir::Value cond)> notEmpty;
    /// The work of tile `kt` at byte `stageBase`, once it has landed.
    std::function<llvm::SmallVector<mlir::Value>(
        mlir::Value kt, mlir::Value stageBase, mlir::ValueRange state)>
        body;
  };

  /// `barrier(s)` is stage s's full barrier; `leader` (i1) is true on the
  /// one thread that initialises the barriers and arrives for an empty
  /// tile, `issuer` (i1) on the threads that run hooks.issue (the leader
  /// among them).
  TmaTileRing(mlir::ImplicitLocOpBuilder &b, Hooks hooks, int64_t stages,
              int64_t stageBytes, mlir::Value leader, mlir::Value issuer,
              std::function<mlir::Value(mlir::Value)> barrier)
      : hooks(std::move(hooks)), b(b), stages(stages), stageBytes(stageBytes),
        leader(leader), issuer(issuer), barrier(std::move(barrier)) {}

  /// Initialises the barriers and publishes them to the block (a block
  /// barrier; emitted where every thread runs), then loads tiles lo ..
  /// lo + stages - 2.
  void prologue(mlir::Value lo, mlir::Value hi);
  /// The loop over [lo, hi) from `inits`; returns the final state.
  mlir::ValueRange loop(mlir::Value lo, mlir::Value hi, mlir::ValueRange inits);

  Hooks hooks;

private:
  /// The issuers load tile kt into ring position `i` (kt - lo) when kt <
  /// hi: its boxes, or for an empty tile the leader's arrival alone.
  void load(mlir::Value kt, mlir::Value i, mlir::Value hi, mlir::Value ahead);

  mlir::ImplicitLocOpBuilder &b;
  int64_t stages, stageBytes;
  mlir::Value leader, issuer;
  /// hooks.ahead of tile lo + stages - 1, read in the prologue.
  mlir::Value firstAhead;
  std::function<mlir::Value(mlir::Value)> barrier;
};

} // namespace attnc

#endif // ATTNC_PASSES_CONVERSION_WGMMA_H
