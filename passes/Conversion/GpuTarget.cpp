//===- GpuTarget.cpp - per-chip hooks of the GPU backend ------------------===//
//
// The sm_80 and sm_90a targets. sm_80 builds the mma.sync kernel; sm_90a
// computes prefill with wgmma (warpgroup MMA) and keeps the mma.sync decode
// kernels.
//
//===----------------------------------------------------------------------===//

#include "passes/Conversion/GpuTarget.h"

#include "passes/Conversion/FlashKernel.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinTypes.h"

#include <algorithm>

using namespace mlir;
using namespace attnc;
using namespace attnc::attn;

GpuKernelAttr attnc::getGpuKernelAttr(AttentionOp op) {
  return op->getAttrOfType<GpuKernelAttr>(kGpuKernelAttrName);
}

LogicalResult GpuTarget::checkSupport(const KernelProblem &p) const {
  if (p.kvFp8 && !convertsFp8())
    return p.emitError("expected bf16 or f16 keys and values for target ")
           << chip()
           << ": an fp8 e4m3 cache (kv_scales) needs the e4m3 conversions of "
              "sm_89 and later (target sm_90a)";
  Type elt = p.elementType;
  if (!elt.isBF16() && !elt.isF16())
    return p.emitError("expected bf16 or f16 inputs for target ")
           << chip() << ", got " << elt;
  for (auto [name, d] :
       {std::pair<StringRef, int64_t>{"head dim", p.headDim},
        {"value head dim", p.valueHeadDim}})
    if (d % 16 != 0 || d > 256)
      return p.emitError("expected ")
             << name << " to be a multiple of 16 up to 256 for target "
             << chip() << ", got " << d;
  return success();
}

/// Key/value bytes in flight a multiprocessor that keep the H200's memory
/// busy in decode. Measured (eighth session runs 5-6, CUDA-graph timing,
/// bench/RESULTS.md): kernels with 64 KiB in flight a block were fastest at
/// one block a multiprocessor (D = 128 bf16: B=1 Sk=128K 125.5 us on 16
/// splits, 131.8 on 32; D = 64 on 128-key tiles in three stages: 65.9
/// against 69.2), the fp8 kernel with 32 KiB at two (76.6 against 94.4 at
/// one), the paged fp8 kernel with 16 KiB at three (its occupancy: B=64 327
/// us on 3 splits, 456 unsplit).
static constexpr int64_t kSplitLoadsInFlight = 64 * 1024;

int64_t GpuTarget::splitBlocksPerSm(const KernelProblem &p,
                                    attn::GpuKernelAttr config) const {
  if (!config.getSplitKv())
    return 0;
  int64_t elementBytes = p.kvFp8 ? 1 : 2;
  int64_t perBlock = (config.getStages() - 1) * config.getBlockK() *
                     (p.headDim + p.valueHeadDim) * elementBytes;
  if (perBlock <= 0)
    return 0;
  return std::clamp<int64_t>(
      (kSplitLoadsInFlight + perBlock - 1) / perBlock, 1, 64);
}

// Without launch bounds ptxas picked 168 registers for the paged fp8
// decode kernel on 128-key tiles and spilled 8 bytes, though its 100 KB of
// shared memory leave room for two blocks a multiprocessor (256 registers a
// thread): with nvvm.minctasm 2 it takes 225, no spills. Only that kernel
// gets launch bounds: the other decode kernels with room for at most two
// blocks (16-bit D = 128 and D = 64, contiguous fp8) change code with them
// (150-227 registers) and have not been timed that way; kernels with room
// for three blocks or more keep ptxas's choice in any case (their
// registers may be what limits the resident blocks).
int64_t GpuTarget::decodeMinBlocks(const KernelProblem &p,
                                   attn::GpuKernelAttr config) const {
  if (!config.getSplitKv() || config.getWgmma() || !p.kvFp8 || !p.pageSize)
    return 0;
  int64_t threads = config.getThreads();
  int64_t blocks = std::min(sharedMemoryPerMultiprocessor() /
                                (sharedMemoryBytes(p, config) + 1024),
                            2048 / threads);
  return blocks >= 1 && blocks <= 2 ? blocks : 0;
}

LogicalResult GpuTarget::checkConfig(const KernelProblem &p,
                                     GpuKernelAttr config) const {
  if (config.getChip() != chip())
    return p.emitError("expected #attn.gpu_kernel chip \"")
           << config.getChip() << "\" to match the target " << chip();
  int64_t bytes = sharedMemoryBytes(p, config);
  if (bytes > maxSharedMemoryBytes())
    return p.emitError("expected the kernel's shared memory (")
           << bytes << " bytes for " << config << ") to fit the "
           << maxSharedMemoryBytes() << " bytes of a block on " << chip();
  // blocks_per_sm = n: n blocks must be resident at once (each block's
  // shared memory plus the 1 KiB the driver reserves, 2048 threads).
  if (int64_t n = config.getBlocksPerSm()) {
    if (n * (bytes + 1024) > sharedMemoryPerMultiprocessor())
      return p.emitError("expected blocks_per_sm = ")
             << n << " blocks of " << bytes + 1024
             << " bytes of shared memory (with the 1024 the driver reserves) "
                "to fit the "
             << sharedMemoryPerMultiprocessor() << " bytes of a "
             << "multiprocessor on " << chip();
    if (n * config.getThreads() > 2048)
      return p.emitError("expected blocks_per_sm = ")
             << n << " blocks of " << config.getThreads()
             << " threads to fit the 2048 threads of a multiprocessor on "
             << chip();
  }
  return success();
}

/// A key tile of `blockK` rows of a paged cache of `pageSize` rows loads
/// by TMA boxes of whole 128-byte swizzle atoms (8 rows) that never cross a
/// page: a box a page (pages dividing the tile) or a tile of a page (tiles
/// dividing the page).
static bool pagesFitTile(int64_t pageSize, int64_t blockK) {
  return pageSize % 8 == 0 &&
         (pageSize <= blockK ? blockK % pageSize == 0 : pageSize % blockK == 0);
}

/// The widest key tile of at most `blockK` keys (a multiple of 16, at
/// least 32) whose TMA boxes fit the pages, or 0 when none does.
static int64_t pagedBlockK(int64_t pageSize, int64_t blockK) {
  for (int64_t k = blockK / 16 * 16; k >= 32; k -= 16)
    if (pagesFitTile(pageSize, k))
      return k;
  return 0;
}

namespace {
/// sm_80 (Ampere) and later: the mma.sync kernel.
class Sm80Target : public GpuTarget {
public:
  StringRef chip() const override { return "sm_80"; }
  int64_t maxSharedMemoryBytes() const override { return 163 * 1024; }
  int64_t sharedMemoryPerMultiprocessor() const override { return 164 * 1024; }
  StringRef kernelFamily(GpuKernelAttr config) const override {
    if (config.getWgmma())
      return "wgmma m64nNk16 from swizzled shared memory, a TMA producer "
             "warpgroup and consumer warpgroups on an mbarrier ring";
    return "mma.sync m16n8k16, cp.async double buffering";
  }

  GpuKernelAttr chooseConfig(const KernelProblem &p) const override {
    int64_t width = p.headDim + p.valueHeadDim;
    if (std::optional<GpuKernelAttr> decode = decodeConfig(p))
      return *decode;
    // Above a combined width of 256, one m-tile per warp and 32-key tiles
    // keep the accumulators in registers.
    if (width > 256)
      return make(p, /*blockK=*/32, /*warps=*/8, /*mTiles=*/1, false);
    // Two m-tiles per warp halve the shared-memory reads per mma; above
    // D = 64 Q moves to shared memory and the key tile halves, so the
    // accumulators (half the registers there) stay clear of spills.
    bool wide = p.headDim > 64;
    return make(p, wide ? 32 : 64, /*warps=*/4, /*mTiles=*/2, wide);
  }

  std::optional<GpuKernelAttr>
  fallbackConfig(const KernelProblem &p,
                 GpuKernelAttr config) const override {
    // A decode kernel keeps its key split, packed heads, key warps and
    // loads on half the key tile, down to 16 keys a key warp; then the
    // kernel that spilled. The prefill kernel would drop the split that
    // the runtime's split counts and plans ask for (H200, 2026-12-02:
    // the D = 128 window decode kernel spilled 4 bytes on 128-key tiles
    // and its forced splits failed on the prefill fallback).
    if (config.getSplitKv()) {
      if (config.getBlockK() / 2 < 16 * config.getKeyWarps())
        return std::nullopt;
      return withKeyTile(config, config.getBlockK() / 2);
    }
    // One m-tile per warp (8 warps, 128 rows): fewer registers; then
    // 32-key tiles (a ragged batch's paged block-sparse D = 64 kernel
    // spilled 20 bytes on 64-key ones).
    int64_t blockK = p.headDim + p.valueHeadDim > 256 ? 32 : 64;
    if (config.getMTiles() == 1) {
      if (config.getBlockK() <= 32)
        return std::nullopt;
      blockK = 32;
    }
    return make(p, blockK, /*warps=*/8, /*mTiles=*/1, false);
  }

  LogicalResult checkConfig(const KernelProblem &p,
                            GpuKernelAttr config) const override {
    if (config.getWgmma() && !supportsWgmma())
      return p.emitError("expected wgmma = false for target ")
             << chip() << ": warpgroup MMA needs sm_90a";
    // A TMA box has at most 256 rows: Q's is the whole query tile.
    if (config.getWgmma() && config.getBlockQ() > 256)
      return p.emitError("expected block_q <= 256 with wgmma on target ")
             << chip() << " (Q is one TMA box of block_q rows), got "
             << config.getBlockQ();
    if (config.getGqaPack() != 1) {
      int64_t group = p.numQueryHeads / p.numKvHeads;
      if (config.getGqaPack() != group)
        return p.emitError("expected gqa_pack = 1 or the query heads per KV "
                           "head (")
               << group << "), got " << config.getGqaPack();
      if (!p.packBlocker.empty())
        return p.emitError("expected gqa_pack = 1 for this attention: ")
               << p.packBlocker;
      if (config.getQInSmem())
        return p.emitError("expected q_in_smem = false with gqa_pack = ")
               << config.getGqaPack() << " on target " << chip()
               << " (packed Q rows are loaded into registers)";
    }
    if (config.getKeyWarps() != 1 &&
        (config.getMTiles() != 1 || config.getWarps() != config.getKeyWarps()))
      return p.emitError("expected m_tiles = 1 and warps = key_warps with "
                         "key_warps = ")
             << config.getKeyWarps() << " on target " << chip()
             << " (one 16-row tile shared by all warps)";
    // The wgmma kernel reads K and V by TMA boxes of a 16-bit cache (rows
    // past a sequence's length masked, and zeroed in V before its last
    // tile's P V), contiguous or in pages whose boxes fit its key tiles. Over
    // an fp8 cache its producer warpgroup converts boxes of rows of 128
    // codes, on the block grid, visiting every key tile of its range (no
    // run-time tile test: the codes' ring loads each tile).
    if (config.getWgmma() && p.kvFp8 &&
        (p.headDim % 128 != 0 || p.valueHeadDim % 128 != 0))
      return p.emitError("expected wgmma = false with an fp8 cache "
                         "(kv_scales) of head dims ")
             << p.headDim << " and " << p.valueHeadDim << " on target "
             << chip()
             << ": the wgmma kernel converts TMA boxes of rows of 128 codes "
                "(head dims a multiple of 128)";
    if (config.getWgmma() && p.kvFp8 &&
        (config.getPersistent() || p.tileTested))
      return p.emitError("expected persistent = false and no run-time tile "
                         "test (block mask, mask_fn) with wgmma over an fp8 "
                         "cache (kv_scales) on target ")
             << chip()
             << ": its producer converts every key tile of a block's range";
    if (config.getWgmma() && p.pageSize &&
        !pagesFitTile(p.pageSize, config.getBlockK()))
      return p.emitError("expected wgmma = false with pages of ")
             << p.pageSize << " rows and " << config.getBlockK()
             << "-key tiles on target " << chip()
             << ": the wgmma kernel's TMA boxes are whole pages of a multiple "
                "of 8 rows dividing the key tile, or key tiles dividing the "
                "page";
    // A ragged batch: the mma.sync prefill kernel finds each sequence's rows
    // from the offsets; TMA boxes would cross into the next sequence.
    if (p.ragged && (config.getSplitKv() || config.getGqaPack() != 1 ||
                     config.getKeyWarps() != 1))
      return p.emitError("expected split_kv = false, gqa_pack = 1 and "
                         "key_warps = 1 with a ragged batch (cu_seqlens_q) on "
                         "target ")
             << chip() << ": ragged batches run on the prefill kernels";
    // A persistent block steps through the dense grid's work items; a
    // ragged batch's blocks past their sequence's end would leave the
    // producer and the consumers' phases to agree on skipped items.
    if (config.getPersistent() && p.ragged)
      return p.emitError("expected persistent = false with a ragged batch "
                         "(cu_seqlens_q) on target ")
             << chip() << ": the persistent grid runs dense batches";
    // Per-sequence KV lengths: the persistent grid's pairs and tail
    // segments are numbered from the launch's key tiles, not a sequence's.
    if (config.getPersistent() && p.kvLens)
      return p.emitError("expected persistent = false with per-sequence KV "
                         "lengths (kv_lens) on target ")
             << chip()
             << ": the persistent grid numbers the launch's key tiles";
    // TMA loads in the mma.sync kernel: boxes of keys and values (16-bit,
    // or rows of 128 fp8 codes), of a contiguous cache or of pages of a
    // multiple of 8 rows (the kernel zeroes V rows past kv_lens).
    if (config.getTmaLoads() && !supportsWgmma())
      return p.emitError("expected tma_loads = false for target ")
             << chip() << ": TMA needs sm_90a";
    if (config.getTmaLoads() && p.raggedKeys)
      return p.emitError("expected tma_loads = false with packed keys "
                         "(cu_seqlens_k) on target ")
             << chip() << ": TMA loads boxes of the keys and values of a cache";
    if (config.getTmaLoads() && p.kvFp8 &&
        (p.headDim % 128 != 0 || p.valueHeadDim % 128 != 0))
      return p.emitError("expected tma_loads = false with an fp8 cache "
                         "(kv_scales) of head dims ")
             << p.headDim << " and " << p.valueHeadDim << " on target "
             << chip()
             << ": its TMA boxes are rows of 128 codes (head dims a multiple "
                "of 128)";
    if (config.getTmaLoads() && p.pageSize % 8 != 0)
      return p.emitError("expected tma_loads = false with pages of ")
             << p.pageSize << " rows on target " << chip()
             << ": a TMA box of a page has a multiple of 8 rows (128-byte "
                "swizzle atoms)";
    if ((config.getWgmma() || config.getTmaLoads()) &&
        (config.getStages() < 2 || config.getStages() > 4))
      return p.emitError("expected stages in [2, 4] with wgmma or tma_loads "
                         "on target ")
             << chip() << " (the TMA ring), got " << config.getStages();
    // cp.async: a ring of 2 to 4 stages in the decode kernels and for an
    // fp8 cache's codes (the targets choose two: more were slower on the
    // H200, bench/RESULTS.md); the mma.sync prefill kernels double-buffer.
    bool ring = p.kvFp8 || config.getSplitKv();
    bool cpAsync = !config.getWgmma() && !config.getTmaLoads();
    if (cpAsync && ring && (config.getStages() < 2 || config.getStages() > 4))
      return p.emitError("expected stages in [2, 4] for an fp8 cache or a "
                         "decode kernel on target ")
             << chip() << " (the cp.async ring), got " << config.getStages();
    if (cpAsync && !ring && config.getStages() != 2)
      return p.emitError("expected stages = 2 for target ")
             << chip() << " (cp.async double buffering), got "
             << config.getStages();
    // chain_items: the next work item's first S is issued from the tiled
    // IR's key-tile bounds, on the plain ring of whole items.
    if (config.getChainItems() &&
        (p.tileTested || p.noMask || p.pageSize || p.kvFp8 || p.kvLens ||
         p.ragged || p.raggedKeys || config.getTrimKeys()))
      return p.emitError("expected chain_items = false on target ")
             << chip()
             << " for this attention: chained work items need a mask with "
                "key-tile bounds (no run-time tile test, not the unmasked "
                "kernel's split tail items), a contiguous 16-bit cache, "
                "dense batches and no trim_keys";
    if (config.getMTiles() > 2)
      return p.emitError("expected m_tiles 1 or 2 for target ")
             << chip() << ", got " << config.getMTiles();
    return GpuTarget::checkConfig(p, config);
  }

  int64_t sharedMemoryBytes(const KernelProblem &p,
                            GpuKernelAttr config) const override {
    return flashKernelSharedMemoryBytes(p, config);
  }

  FailureOr<gpu::GPUModuleOp>
  buildKernel(ModuleOp module, const TiledAttention &t) const override {
    return buildFlashKernel(
        module, t, controlsGridDependencies(),
        decodeMinBlocks(KernelProblem::of(t.step), t.config));
  }

  std::string tileStrategy(const TiledAttention &t) const override {
    return flashKernelTileStrategy(t);
  }

protected:
  /// Whether the chip has warpgroup MMA (wgmma).
  virtual bool supportsWgmma() const { return false; }

  GpuKernelAttr make(const KernelProblem &p, int64_t blockK, int64_t warps,
                     int64_t mTiles, bool qInSmem, int64_t gqaPack = 1,
                     bool splitKv = false, int64_t keyWarps = 1,
                     bool wgmma = false, bool persistent = false,
                     int64_t exp2Fma = 0, bool tmaLoads = false,
                     int64_t stages = 2, bool trimKeys = false) const {
    // 16-byte O stores (wide_stores) on the persistent grid only, whose
    // epilogue holds up the block's next item: H200, 2026-12-02 (thirteenth
    // session runs 4-8 of bench/RESULTS.md), window 1024 at S=8K 408.9 vs
    // 397.1 TFLOP/s; block-grid kernels were no faster (documents 385.2 vs
    // 399.7, causal 4K and D=64 within the noise). The D = 128 no-mask
    // kernel spills with them and is rebuilt without (GpuCompiler's first
    // fallback, narrowStores).
    // O rescaled only where a row's maximum moves (lazy_rescale) for head
    // dims other than 128: H200, 2026-12-02 (sixteenth session runs 3-4),
    // D=64 16K none 475.1 -> 485.4-493.6 TFLOP/s, causal 455.8-457.1 ->
    // 457.5-467.6, D=256 8K causal 616.2-630.8 -> 630.0-651.5, none
    // 634.1-649.4 -> 636.7-675.3; at D = 128 level (none, causal) or
    // slower (soft-capped causal 468 -> 445-465).
    bool lazyRescale = wgmma && p.valueHeadDim != 128;
    return GpuKernelAttr::get(
        p.op->getContext(), chip(), 16 * mTiles * warps / keyWarps, blockK,
        warps, mTiles, stages, qInSmem, gqaPack, splitKv, keyWarps, wgmma,
        persistent, tmaLoads, exp2Fma,
        /*pingPong=*/true, /*wideStores=*/persistent, lazyRescale, trimKeys,
        /*stagedStores=*/false, /*qBuffers=*/1, /*blocksPerSm=*/0,
        /*chainItems=*/false);
  }

  /// Decode (attn.decode): the query heads of a KV group packed into the
  /// rows when nothing differs per head, and the key range split over
  /// thread blocks at run time, so that a batch of single-token queries
  /// fills the GPU. Warps share a tile's 16 rows and split each key tile
  /// (key_warps): a lone warp per block is bound by its instruction issue.
  /// Rows are counted for a query length of 1 unless it is static; above
  /// 64, the prefill kernel.
  std::optional<GpuKernelAttr> decodeConfig(const KernelProblem &p) const {
    // A ragged batch takes the prefill kernel (the remark says so).
    if (!p.decode || p.ragged)
      return std::nullopt;
    // The head dims the GPU conformance sweep has run the decode kernel at;
    // others take the prefill kernel until they have been run.
    if ((p.headDim != 64 && p.headDim != 128) || p.valueHeadDim != p.headDim)
      return std::nullopt;
    bool staticLength = p.seqQ != ShapedType::kDynamic;
    int64_t group = p.numQueryHeads / p.numKvHeads;
    int64_t pack =
        p.packBlocker.empty() && group <= 16 && 16 % group == 0 ? group : 1;
    int64_t rows = (staticLength ? p.seqQ : 1) * pack;
    if (rows > 64)
      return std::nullopt;
    // 4 key warps. More than 16 rows take more query tiles of 16 (the
    // configuration the GPU conformance sweep runs, Sq up to 129).
    return make(p, decodeKeyTile(p), /*warps=*/4, /*mTiles=*/1, false, pack,
                /*splitKv=*/true, /*keyWarps=*/4, /*wgmma=*/false,
                /*persistent=*/false, /*exp2Fma=*/0, decodeTmaLoads(p),
                decodeStages(p));
  }

  /// The decode kernel's key tile: 16 keys per key warp (64-key tiles,
  /// several blocks a multiprocessor).
  virtual int64_t decodeKeyTile(const KernelProblem &) const { return 64; }
  /// The decode kernel's ring stages.
  virtual int64_t decodeStages(const KernelProblem &) const { return 2; }
  /// Whether the decode kernel loads its tiles by TMA (tma_loads).
  virtual bool decodeTmaLoads(const KernelProblem &) const { return false; }
};

/// sm_90a (Hopper): prefill with warpgroup MMA (wgmma = true), two
/// warpgroups of 64 rows sharing each K/V tile; decode keeps the mma.sync
/// kernels (a decode tile has 16 rows, a warpgroup MMA 64). Up to 227 KiB
/// of shared memory a block. The remark of convert-attn-to-gpu names the
/// family, so the choice is never silent.
class Sm90aTarget : public Sm80Target {
  /// One consumer warpgroup on 64-key tiles, on the block grid, two stages,
  /// `blocks` blocks a multiprocessor: at three, D <= 64's kernel for narrow
  /// windows and its short-sequence kernel under causal, soft-capped causal
  /// and document masks; at two, D = 80-128's short-sequence kernel for
  /// causal documents (shortSequenceKernel).
  GpuKernelAttr oneWarpgroup(const KernelProblem &p, int64_t blocks) const {
    return withResidentBlocks(
        make(p, /*blockK=*/64, /*warps=*/4, /*mTiles=*/1, /*qInSmem=*/true,
             /*gqaPack=*/1, /*splitKv=*/false, /*keyWarps=*/1, /*wgmma=*/true,
             /*persistent=*/false),
        /*stages=*/2, blocks);
  }

public:
  StringRef chip() const override { return "sm_90a"; }
  int64_t maxSharedMemoryBytes() const override { return 227 * 1024; }
  int64_t sharedMemoryPerMultiprocessor() const override { return 228 * 1024; }
  bool convertsFp8() const override { return true; }
  bool controlsGridDependencies() const override { return true; }
  StringRef kernelFamily(GpuKernelAttr config) const override {
    if (config.getWgmma())
      return Sm80Target::kernelFamily(config);
    if (config.getTmaLoads())
      return "mma.sync m16n8k16 decode kernel on a TMA ring (one mbarrier a "
             "stage)";
    return config.getSplitKv()
               ? "mma.sync m16n8k16 decode kernel on a cp.async ring"
               : "mma.sync m16n8k16, cp.async double buffering (the "
                 "sm_80-class kernel)";
  }

  /// D = 128: 128-key tiles, 32 keys per key warp (139 KB of shared memory
  /// with cp.async copies, 131 KB with TMA loads: one block a
  /// multiprocessor, 64 KB of keys and values a stage).
  /// On the H200 (2026-12-01, sixth session runs 3-5, Hq=32, Hkv=8,
  /// decode_bench): B=64 Sk=8K 518-519 us against 533.5 on 64-key tiles,
  /// B=1 Sk=128K 147.5-147.9 against 156.2; an fp8 cache 311-319 against
  /// 352.0 at B=64, but 98.8-99.1 against 96.4 at B=1. A paged 16-bit
  /// cache keeps 64-key tiles: on 128-key tiles it took 716 against 554.5
  /// us at B=64 (not profiled; each row's copy waits for its page-table
  /// load, which three blocks a multiprocessor may hide better than one).
  /// With TMA loads a paged fp8 cache takes 128-key tiles too, with launch
  /// bounds of two blocks a multiprocessor (decodeMinBlocks): without them
  /// ptxas spilled 8 bytes at 168 registers. (H200, eighth session run 1:
  /// 64-key tiles B=64 327.4 us against 354.3 with the row copies; 128-key
  /// tiles with three stages took 471.9.)
  int64_t decodeKeyTile(const KernelProblem &p) const override {
    bool pagedCopies = p.pageSize > 0 && !p.kvFp8 && !decodeTmaLoads(p);
    if (contiguousD64Tma(p))
      return 128;
    return p.headDim == 128 && !pagedCopies ? 128 : 64;
  }

  /// D = 64 over contiguous 16-bit keys loaded by TMA: 128-key tiles in
  /// three stages (64 KiB of loads in flight, like D = 128's two). H200,
  /// eighth session run 6 (CUDA-graph timing, Hq=32, Hkv=8): B=64 Sk=8K
  /// 237.4 us against 239.0 on 64-key tiles in two stages; at B=1 with one
  /// block a multiprocessor (16 splits) Sk=16K 11.2 against the 64-key
  /// kernel's best 13.6, Sk=128K 65.9 against 69.1. Paged caches at D = 64
  /// keep 64-key tiles (not measured on 128).
  bool contiguousD64Tma(const KernelProblem &p) const {
    return p.headDim == 64 && !p.kvFp8 && p.pageSize == 0 &&
           decodeTmaLoads(p);
  }
  int64_t decodeStages(const KernelProblem &p) const override {
    return contiguousD64Tma(p) ? 3 : 2;
  }

  /// Caches, contiguous or in pages of a multiple of 8 rows, of 16-bit
  /// values or of fp8 codes with head dims a multiple of 128 (a box row of
  /// 128 codes): TMA loads (one thread, or a lane a page, issues a tile's
  /// boxes; the cp.async copies spent the warps' issue slots). H200,
  /// 2026-12-01 seventh session (bench/RESULTS.md): B=64 Sk=8K 490.6 us
  /// against 525.9, paged16 508 against 578-583, fp8 281 against 358.
  /// A paged fp8 cache takes 128-key tiles with them too (decodeKeyTile).
  bool decodeTmaLoads(const KernelProblem &p) const override {
    bool fp8Rows = p.headDim % 128 == 0 && p.valueHeadDim % 128 == 0;
    return (!p.kvFp8 || fp8Rows) && !p.raggedKeys && p.pageSize % 8 == 0;
  }

  GpuKernelAttr chooseConfig(const KernelProblem &p) const override {
    if (std::optional<GpuKernelAttr> decode = decodeConfig(p))
      return *decode;
    // fp8 caches, and pages no key tile's TMA boxes fit (fewer than 8
    // rows, or not a multiple of 8): the mma.sync prefill kernel, whose row
    // copies zero-fill past a sequence's length, follow the page table and
    // convert the codes (the remark names the family). A 16-bit cache with
    // per-sequence lengths (kv_lens), contiguous or paged, takes the wgmma
    // kernel on the block grid, as a ragged batch does (its keys' TMA boxes
    // past a sequence's length masked, V's rows there zeroed), and so do
    // ragged queries over such a cache.
    // An fp8 cache of head dims 128 without a run-time tile test: the
    // wgmma kernel on the block grid, 128-key tiles (two 16-bit stages, Q
    // and two stages of codes fill 224 KiB), its producer warpgroup
    // converting the codes. Other fp8 caches: the mma.sync kernel.
    if (p.kvFp8 && p.headDim == 128 && p.valueHeadDim == 128 && !p.tileTested &&
        (!p.pageSize || pagedBlockK(p.pageSize, 128)))
      return make(p, p.pageSize ? pagedBlockK(p.pageSize, 128) : 128,
                  /*warps=*/8, /*mTiles=*/1, /*qInSmem=*/true, /*gqaPack=*/1,
                  /*splitKv=*/false, /*keyWarps=*/1, /*wgmma=*/true,
                  /*persistent=*/false);
    if (p.kvFp8 || (p.pageSize && !pagedBlockK(p.pageSize, 128)))
      return Sm80Target::chooseConfig(p);
    // Each sequence's own key tiles (a ragged batch, kv_lens): the block
    // grid, whose blocks bound their keys by their sequence.
    const bool perSequence = p.ragged || p.kvLens;
    // From the H200 sweeps of bench/RESULTS.md (2026-11-30): D <= 64: three
    // consumer warpgroups (192 rows) on 128-key tiles; D <= 128: two on
    // 176-key tiles without a mask (FlashAttention-3's tile), 128-key tiles
    // under a causal mask, or for narrow windows one on 64-key tiles (two
    // blocks a multiprocessor), whose boundary tiles waste less; wider
    // heads: two on 64-key tiles, so that O's registers fit. Documents
    // and prefix-LM take the causal configuration (2026-12-01, S=8K
    // prefix-LM: 543.7 TFLOP/s vs 441.8 for one warpgroup on 64-key
    // tiles), block masks and mask_fn regions two warpgroups on 128-key
    // tiles (below).
    // D = 128 without a mask runs a persistent grid (2026-12-01: the
    // blocks of short sequences spent a tile's time on Q's load, the first
    // tile and the epilogue, which the next item's loads now overlap: 4K
    // 535 -> 580 TFLOP/s). Its items are handed out statically: in the
    // order of the block grid's items, causal 16K fell 557 -> 412; causal
    // and prefix-LM masks and cu_seqlens documents now take query tiles in
    // pairs of about equal cost
    // (FlashKernel.cpp, buildWork; 2026-12-04, twenty-fourth session run 2,
    // causal 1K 348 -> 420, 2K 443 -> 494, 4K 514 -> 553, 16K 591 -> 599).
    // Three warpgroups and one have too few registers left for it, and a
    // ragged batch's blocks skip items.
    // No exp2_fma: every share of the weights moved to the FMA pipe was
    // slower on the H200 (2026-12-01: D=64 S=16K 476.9 -> 433.1 TFLOP/s at
    // 2 of 8, soft-capped causal 277.0 -> 248.5 at 8 of 8).
    int64_t width = p.headDim + p.valueHeadDim;
    int64_t warps = 8, blockK = 64;
    bool persistent = false;
    // No mask, or causal / prefix-LM boundary tiles comparing i32 columns
    // (not for ragged batches): the wider key tiles below fit them.
    bool wideTiles = p.noMask || (p.intervalMask && !perSequence);
    // D <= 64 windows of fewer than 2048 keys (contiguous, not paged): one
    // consumer warpgroup on 64-key tiles, on the block grid, three blocks a
    // multiprocessor (the nested causal kernel's configuration,
    // shortSequenceKernel). Its 64-row query tiles span 64 + window keys
    // where 128-row tiles span 128 + window and 192-row ones 192 + window,
    // and three independent blocks overlap each other's first S and last
    // P V (2026-12-07, forty-ninth session runs 1 and 3, H100, each kernel
    // timed in turn in one process, S=8K B=2: window 256 203.0 vs 137.6
    // TFLOP/s on three warpgroups, 512 284.6 vs 219.0, 1024 336.4 vs 325.2
    // on two persistent ones (16K 347.4 vs 327.8, 2K 331.6 vs 303.4); 2048
    // level, 374.6 vs 375.4, and 4096 at 16K 2% slower, 401.8 vs 409.7:
    // wider windows keep the wide-window configuration below).
    if (width <= 128 && p.windowKeys > 0 && p.windowKeys < 2048 &&
        !perSequence && !p.pageSize)
      return oneWarpgroup(p, /*blocks=*/3);
    if (width <= 256 && p.windowKeys >= 1024 && !perSequence) {
      // A wide window: every query tile sees about as many key tiles, as
      // without a mask (2026-12-01, window 1024 at S=8K: 389.5 TFLOP/s
      // vs 364.4 for one warpgroup on 64-key tiles, 353.3 for two not
      // persistent); narrower ones keep the one-warpgroup kernel below.
      // D <= 64 from 2048 keys (above), rather than three warpgroups on the
      // block grid (2026-12-06, fortieth session run 3, H100, S=8K, window
      // 1024: 327.0 vs 310.9), and paged D <= 64 windows from 1024 keys.
      blockK = 128;
      persistent = true;
    } else if (width <= 128) {
      warps = 12;
      blockK = 128;
    } else if (width <= 256 && p.windowKeys > 0) {
      warps = 4;
    } else if (width <= 256 && p.tileTested) {
      // A run-time tile test (block mask, mask_fn) on 128-key tiles, once
      // its producer keeps 40 registers (with 24 it spilled; wgmmaRegisters)
      // and a block mask whose blocks are a multiple of 8 keys reads its
      // table once per 8 columns (S=8K 128 x 128 blocks: 435.2 TFLOP/s vs
      // 359.9 on 64-key tiles, 2026-12-01). Blocks of other widths read it
      // per score, which spills on 128-key tiles: 64-key tiles.
      bool perScore = p.maskBlockKeys > 0 && p.maskBlockKeys % 8 != 0;
      blockK = perScore ? 64 : 128;
    } else if (width <= 256) {
      // No mask: FlashAttention-3's 176-key tile. Masks: 128-key tiles.
      // Causal masks ran on 160 since the fourteenth session (4K 510.7 vs
      // 497.0 TFLOP/s on 176); the kernel as it now is runs causal 4K
      // faster on 128 (2026-12-04, twenty-third session run 8, neither the
      // process's first kernel: 516.6 vs 504.6, 16K level at 601.7 vs
      // 600.9; runs 5-6: +2.0% and +2.6% at 4K; 144 slower at 4K);
      // prefix-LM level (574.6 vs 574.9 at 8K).
      // Without a mask 128-key tiles (with 16-byte stores) were faster up
      // to S=2K and slower from 8K, once bench.py's first-slot bias was
      // taken out by timing them in both slots (2026-12-04, twenty-fifth
      // session runs 3, 4 and 7: 16K -2%, 8K -1.3%, 4K level).
      // 160-key tiles beat FlashAttention-3's 176 on the persistent grid
      // at every length (2026-12-06, forty-third session run 4, H100, one
      // kernel each: 2K 580.0 vs 568.1 TFLOP/s, 4K 611.3 vs 588.4, 8K
      // 628.4 vs 617.1, 16K 632.7 vs 629.2; 144 and 128 slower from 4K;
      // run 5 level: 4K 592.5 vs 592.2, 16K 627.1 vs 629.6).
      // Ragged batches keep 176 on the block grid (2026-12-06, forty-fourth
      // session run 2, H100, 16 sequences of 100-8000 tokens: 596.7 TFLOP/s
      // vs 578.1 on 160); kv_lens too (forty-fifth session run 2, 5 rounds:
      // 560.2 vs 550.2 at 1K..8K keys, 579.7 vs 580.0 at 2K..16K). Paged
      // caches take 160: with pages of 8 or 16 rows (11 or 22 TMA boxes a
      // 176-key tile) the consumers spilled 36 bytes, and the spill ladder
      // rebuilt the kernel on one warpgroup and 80-key tiles; on 160 they
      // fit, and over pages of 16 rows ran 19-24% faster than that rebuilt
      // kernel (same session run 1: 540.2 vs 454.4, 579.2 vs 466.4).
      blockK = p.noMask ? (perSequence && !p.pageSize ? 176 : 160) : 128;
      // Causal and prefix-LM masks and cu_seqlens documents too, their
      // query tiles taken in pairs (FlashKernel.cpp, buildWork), soft-capped
      // or not. Ragged batches stay on the block grid: on the persistent one
      // (items within each sequence's tiles, branch ragged-persistent) they
      // ran slower (same run: causal 531.2 vs 555.3, no mask 585.5 vs
      // 596.7). A small soft-cap (no row maximum: KernelProblem::
      // cappedReference) used to take the block grid's 192-key tiles; the
      // pairs on 128-key tiles are 5% faster (2026-12-06, thirty-ninth
      // session run 1, H100, S=8K cap 30: 523.2 vs 500.7 TFLOP/s).
      persistent =
          (p.noMask || p.intervalMask || p.documentRanges) && !perSequence;
    }
    // D = 256 without a mask: a persistent grid on 64-key tiles
    // (2026-12-03, nineteenth session run 2: S=4K 661.0 vs 620.5 TFLOP/s
    // on the block grid's 80-key tiles, 8K 670.7 vs 667.4). On 80-key
    // tiles its consumers spill 24 bytes beside the persistent producer's
    // 40 registers (ptxas -v). A ragged batch keeps the block grid's
    // 80-key tiles (two stages of K and V and Q fill 224 KiB; 2026-12-01
    // S=8K: 651.0 vs 593.9 TFLOP/s on 64). Causal and prefix-LM masks take
    // 80-key tiles too, since their boundary tiles compare i32 columns
    // (2026-12-01, session 5, S=8K causal: 590.9 and 584.1 vs 568.4 and
    // 567.0 on 64-key tiles). Documents, ALiBi, score_fn regions and
    // ragged batches under a mask spill on them.
    if (width == 512 && p.noMask && !perSequence) {
      blockK = 64;
      persistent = true;
    } else if (width == 512 && wideTiles) {
      blockK = 80;
    }
    // D = 192: 112-key tiles, on the persistent grid without a mask and on
    // the block grid under causal and prefix-LM masks (2026-12-06,
    // thirty-ninth session run 6, H100, against the block grid's 64-key
    // tiles: none 1K 563.4 vs 465.8 TFLOP/s, 4K 636.8 vs 562.8, 16K 690.4
    // vs 618.1; causal 4K 563.0 vs 530.9, 16K 654.8 vs 592.3, 1K 333.1 vs
    // 345.9; cuDNN none 545.6, 622.6, 642.9, causal 533.1, 556.9, 427.9).
    // The causal pairs on the persistent grid were level in run 5 (560.7
    // and 643.4 at 4K and 16K) and spill 8 bytes. Two stages of K and V
    // and Q fill 220 KiB.
    // Paged caches keep 64-key tiles (not measured on 112). cu_seqlens
    // documents take them too (fortieth session run 5, H100, S=8K: 480.3
    // vs 464.5 TFLOP/s on 64-key tiles, 471.6 on 80).
    if (width == 384 && (wideTiles || (p.documentRanges && !perSequence)) &&
        !p.pageSize) {
      blockK = 112;
      persistent = p.noMask;
    }
    // D = 96 (and 80, below) without a mask or under a plain causal mask: three
    // consumer warpgroups on 96-key tiles, as D = 64 takes three, and up to 1K
    // without a mask or 2K under the causal mask two (shortSequenceKernel)
    // (2026-12-06, thirty-ninth session run 6, H100, against two on 176-
    // and 128-key tiles: none 2K 519.1 vs 491.9 TFLOP/s, 4K 542.4 vs
    // 512.2, 16K 558.3 vs 527.5; causal 4K 458.7 vs 449.4, 16K 552.6 vs
    // 490.7; cuDNN 437.1, 445.6, 468.9; 401.2, 430.0). In pairs on the
    // persistent grid (64-key tiles; on 96 they spill) they were slower.
    // Soft-capped causal and prefix-LM masks take them too, on the block
    // grid (2026-12-06, fortieth session run 1, H100, S=8K against the
    // persistent pairs on 128-key tiles: soft-capped causal 453.5 vs 423.0
    // TFLOP/s, prefix-LM 530.6 vs 476.4; in pairs on 64-key tiles 455.1
    // and 476.6). D = 80 takes D = 96's (same run: none 4K 487.7 vs
    // 443.3, 16K 520.8 vs 478.5 on the persistent grid; causal 4K 408.0
    // vs 399.5, 16K 475.1 vs 431.9 on the block grid; cuDNN 400.6, 398.2,
    // 342.2, 374.9).
    // cu_seqlens documents too (fortieth session run 5, H100, S=8K against
    // the persistent pairs on 128-key tiles: D = 96 392.8 vs 352.1 TFLOP/s,
    // D = 80 341.7 vs 307.0).
    // Paged caches keep D = 128's configurations (not measured on three).
    bool d80or96 =
        (p.headDim == 80 || p.headDim == 96) && p.valueHeadDim == p.headDim;
    if (d80or96 && !perSequence && !p.pageSize &&
        (p.noMask || p.intervalMask || p.documentRanges)) {
      warps = 12;
      blockK = 96;
      persistent = p.noMask;
    }
    // Pages: the widest key tile up to the chosen one whose boxes fit them
    // (pages of 64 rows take 128-key tiles instead of 160, and 64-key ones
    // instead of 80).
    // None may fit below a narrower tile (pages of 40 rows fit 80 keys but
    // no tile of at most 64): the mma.sync kernel then.
    if (p.pageSize) {
      blockK = pagedBlockK(p.pageSize, blockK);
      if (!blockK)
        return Sm80Target::chooseConfig(p);
    }
    return make(p, blockK, warps, /*mTiles=*/1, /*qInSmem=*/true,
                /*gqaPack=*/1, /*splitKv=*/false, /*keyWarps=*/1,
                /*wgmma=*/true, persistent);
  }

  std::optional<GpuKernelAttr>
  fallbackConfig(const KernelProblem &p,
                 GpuKernelAttr config) const override {
    if (!config.getWgmma())
      return Sm80Target::fallbackConfig(p, config);
    // One consumer warpgroup: up to 232-240 registers a thread (with two or
    // three, 240 or 160); then half the key tile: half of S's registers.
    // Three spilling warpgroups (block masks, documents; D = 64 windows
    // until their boundary tiles masked one end at a time, twenty-second
    // session) go to one, two blocks a multiprocessor, not to two
    // warpgroups: on the H200 two were slower (S=8K window 276 vs 305
    // TFLOP/s, documents 269 vs 305; bench/RESULTS.md, sixteenth session
    // run 7).
    if (config.getWarps() > 4)
      return make(p, config.getBlockK(), /*warps=*/4, 1, true, 1, false, 1,
                  true, false, config.getExp2Fma());
    if (config.getBlockK() <= 32)
      return std::nullopt;
    // Half the key tile, a multiple of 16 (wgmma's K of P V); over pages the
    // widest below it whose boxes fit them.
    int64_t half = config.getBlockK() / 32 * 16;
    if (p.pageSize)
      half = pagedBlockK(p.pageSize, half);
    if (!half)
      return std::nullopt;
    return make(p, half, config.getWarps(), 1, true, 1, false, 1, true, false,
                config.getExp2Fma());
  }

  /// D <= 64 without a mask or under a plain causal mask (and D = 128
  /// without a mask, below): the main
  /// kernel's three consumer warpgroups (192 query rows) on the block grid
  /// are the fastest from S = 4K, but short sequences waste their 192-row
  /// tiles (at S = 1K causal a third of the pairs computed are masked, 11%
  /// on 128-row tiles) and spend a larger share on each block's start and
  /// epilogue. Two consumer warpgroups on the persistent grid (query tiles
  /// in pairs under the causal mask) ran faster up to S = 2K on the H200
  /// (bench/RESULTS.md, twenty-fourth session run 7: causal 1K 220.3 ->
  /// 289.1 TFLOP/s, 2K 326.5 -> 346.3, 4K level at 386.6 vs 387.3, 16K
  /// 461.5 -> 423.8; no mask 1K 351.5 -> 386.3, 16K 489.2 -> 420.3).
  std::optional<ShortSequenceKernel>
  shortSequenceKernel(const KernelProblem &p,
                      GpuKernelAttr config) const override {
    if (!config.getWgmma() || p.ragged || p.kvLens || p.decode)
      return std::nullopt;
    // D = 96: two warpgroups on 176-key tiles without a mask (D = 128's
    // until the forty-third session), 128 under a causal mask; on the three
    // warpgroups' 96-key tiles they were slower (2026-12-06, thirty-ninth
    // session run 6, H100: none 1K 424.7 vs 458.0 TFLOP/s, causal 1K 280.3
    // vs 350.2, 2K 397.4 vs 406.4).
    // D = 80 takes D = 96's; at both, soft-capped causal and prefix-LM masks
    // and non-causal cu_seqlens documents keep those pairs on 128-key tiles
    // up to 2K (causal documents: one warpgroup, below),
    // as they ran before they took three warpgroups (not measured on three
    // up to 2K).
    bool wider = p.headDim > 64;
    // D = 64 under a plain causal mask, beside that pairs kernel (so nested
    // in it, for sequences of at most 1024): one consumer warpgroup on
    // 64-key tiles on the block grid, three blocks a multiprocessor (136
    // consumer registers; a 128-key S wgmma would need more than the 80 a
    // thread starts with). Short items leave the pairs kernel's two
    // warpgroups waiting on each item's first S and last P V; three
    // independent blocks overlap them (2026-12-07, forty-eighth session runs
    // 5-6, H100, each kernel timed in turn in one process: 512 218.6 vs 210.1
    // TFLOP/s, 768 266.7 vs 252.3, 1K 300.9 and 301.9 vs 285.0 and 287.2,
    // 1280 315.1 vs 307.3, 1536 328.7 vs 325.2, 2K 345.9 vs 349.1; three
    // or four stages were slower at 1K, 292.6 and 292.1).
    if (p.headDim == 64 && p.valueHeadDim == 64 && p.plainCausal &&
        config.getWarps() == 8 && config.getBlockK() == 128 &&
        config.getPersistent())
      return ShortSequenceKernel{oneWarpgroup(p, /*blocks=*/3), 1024};
    // D = 64 cu_seqlens documents in sequences of at most 8K: the same
    // one-warpgroup kernel, three blocks a multiprocessor (as D = 64's
    // narrow windows take, chooseConfig). Its 64-row tiles waste less at
    // each document's diagonal, and short documents leave the three
    // warpgroups' 192-row tiles idle (2026-12-07, forty-ninth session runs
    // 1 and 3, H100, bench.py's documents of S/16 to S/2 tokens, each kernel
    // timed in turn in one process: S=2K 218.5 vs 172.1 TFLOP/s, 4K 259.9
    // vs 213.8, 8K 330.4 vs 324.3 and 332.5 vs 324.8 (run 4); 16K 366.6
    // vs 389.0, slower, so longer sequences keep three warpgroups; run 4,
    // non-causal documents by attnrt-run --time: 3996 tokens 212.6 vs
    // 180.0, 8192 312.9 vs 300.8).
    // D = 64 soft-capped causal masks whose softmax takes the cap as its
    // reference (bf16, cap <= 34.65, no bias), up to 4K: the same kernel
    // (2026-12-07, forty-ninth session, H100, cap 30, each kernel timed in
    // turn in one process: 1K 262.4 vs 176.7 TFLOP/s, 2K 301.2 vs 258.0, 4K
    // 323.7 vs 299.6; 8K 330.1 vs 344.4 and 16K 333.3 vs 360.1 slower).
    // Prefix-LM masks keep one kernel (2K 363.4 vs 376.5, 4K 374.7 vs
    // 397.4; 1K 358.2 vs 348.1).
    // From 2K its tiles take 96 keys (16-bit caches, not paged), nesting
    // the 64-key kernel up to 2048 (2026-12-07, fifty-first session runs 1
    // and 3, H100, same method, 96 vs 64 keys: documents 8K 343.5 vs 330.5
    // and 343.7 vs 332.3, 4K 263.8 vs 260.5, 2K 210.4 vs 217.0, slower;
    // non-causal documents 4K 318.9 vs 303.9, 8K 378.6 vs 361.8;
    // soft-capped causal 4K 325.8 vs 317.4 and 327.2 vs 322.3, 2K level,
    // 302.7 vs 303.0, 1K 257.9 vs 263.5, slower; 80-key tiles slower or
    // level, 112 and 128 do not fit 80 registers).
    bool d64Short = p.headDim == 64 && p.valueHeadDim == 64 &&
                    (p.documentRanges || (p.cappedCausal && p.cappedReference));
    bool keys96 = !p.kvFp8 && !p.pageSize;
    if (d64Short) {
      GpuKernelAttr one = oneWarpgroup(p, /*blocks=*/3);
      if (config.getWarps() == 12)
        return ShortSequenceKernel{keys96 ? withKeyTile(one, 96) : one,
                                   p.documentRanges ? 8192 : 4096};
      if (keys96 && config.getWarps() == 4 && config.getBlockK() == 96 &&
          !config.getPersistent())
        return ShortSequenceKernel{one, 2048};
    }
    // D = 80, 96 and 128 causal cu_seqlens documents (16-bit caches, not
    // paged) in sequences of at most 2048 tokens: one consumer warpgroup on
    // 64-key tiles, two blocks a multiprocessor (the most their shared
    // memory fits), whose 64-row tiles waste less at each document's
    // diagonal (2026-12-07, fiftieth session runs 1-2, H100, bench.py's
    // documents of S/16 to S/2 tokens, each kernel timed in turn in one
    // process: D = 128 1K 169.6 and 170.1 vs 159.1 and 160.4 TFLOP/s on the
    // persistent pairs, 2K 265.3 and 265.6 vs 257.6; D = 96 1K 146.2 vs
    // 126.9 and 2K 225.7 vs 204.6 on the pairs below; D = 80 1K 130.7 vs
    // 115.5, 2K 195.1 vs 182.8; at 4K all three slower: 314.0 vs 347.4,
    // 265.3 vs 291.3, 228.9 vs 247.9; three stages slower than two).
    // Non-causal documents take it at D = 96 (2048 tokens in four documents
    // by attnrt-run --time: 175.8 vs 150.3; fifty-first session run 2,
    // bench.py's document_nc: 2K 282.5 vs 257.0, 4K 307.0 vs 363.9, slower)
    // and keep their kernels at D = 128 (194.9 vs 230.5, slower;
    // document_nc 2K level, 341.0 vs 337.4) and D = 80 (level, 155.2 vs
    // 154.2).
    bool d80to128 = (p.headDim == 80 || p.headDim == 96 || p.headDim == 128) &&
                    p.valueHeadDim == p.headDim;
    bool documents = p.causalDocuments || (p.documentRanges && p.headDim == 96);
    if (d80to128 && documents && !p.kvFp8 && !p.pageSize &&
        (config.getWarps() == 12 ||
         (config.getWarps() == 8 && config.getPersistent())))
      return ShortSequenceKernel{oneWarpgroup(p, /*blocks=*/2), 2048};
    if (config.getWarps() == 12 &&
        (p.noMask || p.plainCausal ||
         (wider && (p.intervalMask || p.documentRanges))))
      return ShortSequenceKernel{
          make(p, wider ? (p.noMask ? 176 : 128) : config.getBlockK(),
               /*warps=*/8, /*mTiles=*/1,
               /*qInSmem=*/true, /*gqaPack=*/1, /*splitKv=*/false,
               /*keyWarps=*/1, /*wgmma=*/true, /*persistent=*/true),
          p.noMask ? 1024 : 2048};
    // D = 192 under a plain causal mask: the persistent grid in pairs on
    // 80-key tiles (its producer keeps 48 registers, Wgmma.cpp) up to 2K,
    // beside the main kernel's block grid on 112-key tiles (2026-12-06,
    // thirty-ninth session run 8, H100: 1K 375.8 vs 335.0 TFLOP/s, 2K
    // 487.7 vs 476.0, 4K 552.7 vs 571.5; cuDNN 430.5, 492.7, 529.4; on
    // 64-key tiles 382.2, 475.0, 525.4). O goes out through shared memory
    // (staged_stores; 2026-12-07, forty-sixth session runs 1-2, H100,
    // against its 4-byte stores: 1K 432.0 and 431.9 vs 376.3 and 376.7, 2K
    // 518.1 and 525.4 vs 483.6 and 482.9; cuDNN 432.7 and 431.3, 505.3 and
    // 503.8; on 64-key tiles with it 434.8 and 506.7).
    if (p.headDim == 192 && p.valueHeadDim == 192 && p.plainCausal &&
        config.getWarps() == 8 && config.getBlockK() == 112 &&
        !config.getPersistent())
      return ShortSequenceKernel{
          stagedStores(make(p, /*blockK=*/80, /*warps=*/8, /*mTiles=*/1,
                            /*qInSmem=*/true, /*gqaPack=*/1, /*splitKv=*/false,
                            /*keyWarps=*/1, /*wgmma=*/true,
                            /*persistent=*/true)),
          2048};
    // D = 128 without a mask: the main kernel's wider key tiles (176 then,
    // 160 since the forty-third session) are the fastest from S = 2K,
    // 128-key tiles (with 16-byte O stores) at 1K (twenty-fifth session
    // run 9, outputs preallocated: 536.0 vs 524.5 TFLOP/s at 1K, level at
    // 4K, 595.5 vs 610.9 at 16K; runs 3-4: +1.3% to +2.7% at 1K).
    if (p.headDim == 128 && p.valueHeadDim == 128 && p.noMask &&
        config.getWarps() == 8 && config.getBlockK() == 160 &&
        config.getPersistent())
      return ShortSequenceKernel{
          make(p, /*blockK=*/128, /*warps=*/8, /*mTiles=*/1,
               /*qInSmem=*/true, /*gqaPack=*/1, /*splitKv=*/false,
               /*keyWarps=*/1, /*wgmma=*/true, /*persistent=*/true),
          1024};
    return std::nullopt;
  }

protected:
  bool supportsWgmma() const override { return true; }
};
} // namespace

/// `c` on key tiles of `blockK` keys, with `wideStores` and `stagedStores`,
/// `stages` stages and built for `blocks` blocks a multiprocessor, all else
/// kept.
static GpuKernelAttr copyWith(GpuKernelAttr c, int64_t blockK, bool wideStores,
                              bool stagedStores, int64_t stages,
                              int64_t blocks) {
  return GpuKernelAttr::get(c.getContext(), c.getChip(), c.getBlockQ(), blockK,
                            c.getWarps(), c.getMTiles(), stages, c.getQInSmem(),
                            c.getGqaPack(), c.getSplitKv(), c.getKeyWarps(),
                            c.getWgmma(), c.getPersistent(), c.getTmaLoads(),
                            c.getExp2Fma(), c.getPingPong(), wideStores,
                            c.getLazyRescale(), c.getTrimKeys(), stagedStores,
                            c.getQBuffers(), blocks, c.getChainItems());
}

GpuKernelAttr GpuTarget::narrowStores(GpuKernelAttr c) {
  return copyWith(c, c.getBlockK(), /*wideStores=*/false,
                  /*stagedStores=*/false, c.getStages(), c.getBlocksPerSm());
}

GpuKernelAttr GpuTarget::stagedStores(GpuKernelAttr c) {
  return copyWith(c, c.getBlockK(), /*wideStores=*/false,
                  /*stagedStores=*/true, c.getStages(), c.getBlocksPerSm());
}

GpuKernelAttr GpuTarget::withKeyTile(GpuKernelAttr c, int64_t blockK) {
  return copyWith(c, blockK, c.getWideStores(), c.getStagedStores(),
                  c.getStages(), c.getBlocksPerSm());
}

GpuKernelAttr GpuTarget::withResidentBlocks(GpuKernelAttr c, int64_t stages,
                                            int64_t blocks) {
  return copyWith(c, c.getBlockK(), c.getWideStores(), c.getStagedStores(),
                  stages, blocks);
}

const GpuTarget *GpuTarget::lookup(StringRef chip) {
  static const Sm80Target sm80;
  static const Sm90aTarget sm90a;
  if (chip == sm80.chip())
    return &sm80;
  if (chip == sm90a.chip())
    return &sm90a;
  return nullptr;
}

StringRef GpuTarget::supportedChips() { return "sm_80, sm_90a"; }
