//===- FlashKernel.cpp - the flash-attention kernels ----------------------===//
//
// Builds the kernel of one attn.attention (GpuTarget's kernel builder): the
// mma.sync kernel (sm_80, decode) or, with wgmma = true, the warp-specialised
// wgmma kernel (sm_90a prefill), whose blocks with persistent = true each
// walk several work items (buildWork). buildTile (FlashKernelTile.cpp) lays
// out one work item and calls KernelBuilder's methods for the pieces that
// stand alone: the tile softmax and the epilogue (FlashKernelRows.cpp), the
// TMA box loads and the fp8 conversion (FlashKernelLoads.cpp), the wgmma
// consumers' GEMMs, key loop and tile tests (FlashKernelLoop.cpp);
// docs/gpu.md lists them. This file holds the kernel's entry, its roles and
// its work items; FlashKernelBuilder.h declares KernelBuilder.
// mma.sync fragment layouts follow the PTX ISA, "Matrix Fragments for
// mma.m16n8k16 with floating point type": with lane = 4 g + t, A (16x16,
// row) registers hold (g, 2t..2t+1), (g+8, 2t..), (g, 2t+8..), (g+8,
// 2t+8..); B (16x8, col) registers hold (k = 2t..2t+1, n = g) and
// (k = 2t+8.., n = g); C holds (g, 2t..2t+1) and (g+8, 2t..).
// The m64nN accumulator of wgmma has the same layout per warp (Wgmma.h).
//
//===----------------------------------------------------------------------===//

#include "passes/Conversion/FlashKernelBuilder.h"

#define DEBUG_TYPE "convert-attn-to-gpu"

using namespace mlir;
using namespace attnc;
using namespace attnc::attn;
using namespace attnc::flash;
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

/// The wgmma block grid's work groups: about this many blocks (two waves
/// of an H200's 132 multiprocessors) share the keys and values of a few
/// (head, batch entry) units.
static constexpr int64_t kGroupBlocks = 256;

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
    // q_buffers = 2: the second Q tile's full and empty barriers.
    if (config.getQBuffers() == 2) {
      tma::initBarrier(b, mmaE->smemAt(idx(swizzled.q2BarrierOffset)), 1);
      tma::initBarrier(b, mmaE->smemAt(idx(swizzled.q2BarrierOffset + 8)),
                       groups);
    }
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
    Value upper = windowOrder ? rounds : tailSplits ? end : count;
    Value stride = paired || windowOrder || tailSplits ? idx(1) : blocks;
    // chain_items: the consumers also carry whether the item's first S came
    // with the item before's last turn, and that S (ItemChain).
    SmallVector<Value> carried{idx(0), idx(0)};
    const bool chained = chainsItems();
    const int64_t chainedScores = config.getBlockK() / 2;
    if (chained) {
      carried.push_back(arith::ConstantIntOp::create(b, 0, 1));
      carried.append(chainedScores, f32c(0.0f));
    }
    auto loop = scf::ForOp::create(
        b, paired || windowOrder || tailSplits ? idx(0) : blockId, upper,
        stride, carried);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Value item = loop.getInductionVar();
    ringBase = loop.getRegionIterArgs()[0];
    round = loop.getRegionIterArgs()[1];
    if (chained) {
      chain.emplace();
      chain->have = loop.getRegionIterArgs()[2];
      chain->s.assign(loop.getRegionIterArgs().begin() + 3,
                      loop.getRegionIterArgs().end());
    }
    // Pairs: the item's query tile and unit (head + heads * batch entry).
    Value pairTile, pairUnit;
    scf::IfOp ifRuns;
    // Round `item` of the window order: its query tile and unit.
    auto windowItem = [&](Value item) -> std::pair<Value, Value> {
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
      return {arith::IndexCastUIOp::create(
                  b, b.getIndexType(),
                  arith::SubIOp::create(
                      b, arith::SubIOp::create(b, t32, i32c(1)), back)),
              arith::IndexCastUIOp::create(b, b.getIndexType(), unit)};
    };
    // Item `item` of the pairs: its query tile and unit, and whether it
    // runs (the middle tile's second turn does nothing).
    auto pairedItem = [&](Value item) -> std::array<Value, 3> {
      Value pair = ia.add(
          blockId, arith::MulIOp::create(
                       b, arith::DivUIOp::create(b, item, idx(2)), blocks));
      Value low = arith::RemUIOp::create(b, pair, halves);
      Value high = ia.sub(ia.sub(tiles, idx(1)), low);
      Value second = arith::CmpIOp::create(
          b, arith::CmpIPredicate::eq, arith::RemUIOp::create(b, item, idx(2)),
          idx(1));
      Value tile = arith::SelectOp::create(b, second, low, high);
      Value unit = arith::DivUIOp::create(b, pair, halves);
      Value runs = arith::OrIOp::create(
          b,
          arith::XOrIOp::create(b, second,
                                arith::ConstantIntOp::create(b, 1, 1)),
          arith::CmpIOp::create(b, arith::CmpIPredicate::ne, low, high));
      return {runs, tile, unit};
    };
    // A query tile of unit `unit` (head + heads * batch entry) as the
    // item's (query tile, head, batch entry).
    auto unitItem = [&](Value tile, Value unit) -> std::array<Value, 3> {
      return {tile, arith::RemUIOp::create(b, unit, idx(heads)),
              arith::DivUIOp::create(b, unit, idx(heads))};
    };
    // The other orders: item `item`'s (query tile, head, batch entry).
    auto plainItem = [&](Value item) -> std::array<Value, 3> {
      Value tile =
          ia.sub(ia.sub(tiles, idx(1)), arith::RemUIOp::create(b, item, tiles));
      Value head = arith::RemUIOp::create(
          b, arith::DivUIOp::create(b, item, tiles), idx(heads));
      return {tile, head, arith::DivUIOp::create(b, item, perBatch)};
    };
    if (windowOrder)
      std::tie(pairTile, pairUnit) = windowItem(item);
    if (paired) {
      auto [runs, tile, unit] = pairedItem(item);
      pairTile = tile;
      pairUnit = unit;
      SmallVector<Type> types(ValueRange(loop.getRegionIterArgs()).getTypes());
      ifRuns = scf::IfOp::create(b, types, runs, /*withElseRegion=*/true);
      b.setInsertionPointToStart(&ifRuns.getElseRegion().front());
      SmallVector<Value> unchanged(loop.getRegionIterArgs());
      // (No item chains into one that does not run: nextHasKeys.)
      if (chained)
        unchanged[2] = arith::ConstantIntOp::create(b, 0, 1);
      scf::YieldOp::create(b, unchanged);
      b.setInsertionPointToStart(&ifRuns.getThenRegion().front());
    }
    if (chained) {
      // The next item of this block, where the loop has one: whether it
      // runs and has a key tile (tiles of an item past the loop's end
      // taken as this item's, so that no bound reads past the operands).
      chain->nextHasKeys = [&, item, upper, stride]() -> Value {
        Value next = ia.add(item, stride);
        Value inLoop =
            arith::CmpIOp::create(b, arith::CmpIPredicate::ult, next, upper);
        next = arith::SelectOp::create(b, inLoop, next, item);
        Value runs = inLoop;
        std::array<Value, 3> at;
        if (paired || windowOrder) {
          Value tile, unit;
          if (windowOrder) {
            std::tie(tile, unit) = windowItem(next);
          } else {
            auto [r, t, u] = pairedItem(next);
            runs = arith::AndIOp::create(b, runs, r);
            tile = t;
            unit = u;
          }
          at = unitItem(tile, unit);
        } else {
          at = plainItem(next);
        }
        auto [lo, hi] = keyTilesOf(at[0], at[1], at[2]);
        return arith::AndIOp::create(
            b, runs,
            arith::CmpIOp::create(b, arith::CmpIPredicate::slt, lo, hi));
      };
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
        return unitItem(pairTile, pairUnit);
      if (tailRaw)
        return tail.indices;
      return plainItem(item);
    });
    SmallVector<Value> next{ia.add(ringBase, tileUses), ia.add(round, idx(1))};
    if (chained) {
      next.push_back(chain->nextHave);
      next.append(chain->nextS);
    }
    scf::YieldOp::create(b, next);
    if (ifRuns) {
      b.setInsertionPointAfter(ifRuns);
      scf::YieldOp::create(b, ifRuns.getResults());
    }
    ringBase = round = tileUses = Value();
    chain.reset();
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
