//===- FlashKernelLoop.cpp - the flash kernel's key loops -----------------===//
//
// KernelBuilder's consumer side: the wgmma GEMMs, the tiled IR's bounds and
// tile tests, the overlapped wgmma key loop, and the merges of rows split
// over key warps or over a persistent kernel's tail segments.
//
//===----------------------------------------------------------------------===//

#include "passes/Conversion/FlashKernelBuilder.h"

using namespace mlir;
using namespace attnc;
using namespace attnc::attn;
using namespace attnc::flash;
using attnc::mask::MaskKind;

/// The named barrier of the consumer warpgroups after they zero the V rows
/// past a ragged sequence's keys (the ping-pong turns use 1 to 3).
static constexpr int64_t kZeroTailBarrier = 8;

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
Value KernelBuilder::qSlab(Value tileOffset) {
  Value warpGroup = consumer.warpGroup;
  return a.add(tileOffset ? tileOffset : qTileOffset(),
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

std::pair<Value, Value> KernelBuilder::keyTilesOf(Value tile, Value head,
                                                  Value batch) {
  IRMapping map;
  ValueRange ivs = tiled.queryTiles.getInductionVars();
  map.map(ivs[0], batch);
  map.map(ivs[1], head);
  map.map(ivs[2], tile);
  Value lo = kernelValue(tiled.loops[0].getLowerBound(), map);
  Value hi = kernelValue(
      tiled.loops[tiled.keyLoop == TiledAttention::KeyLoop::Split ? 2 : 0]
          .getUpperBound(),
      map);
  return {lo, hi};
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
  // chain_items: whether the next item runs and has a key tile, worked out
  // before the key loop (after it, the next item's bounds spilled), and
  // the scores of its first S, which this item's last turn issues where
  // it has one too (ItemChain).
  const bool chained = chain && chain->nextHasKeys && !compacted;
  const int64_t chainedScores = config.getBlockK() / 2;
  Value nextHasKeys = chained ? chain->nextHasKeys() : Value();
  SmallVector<Type> anyTypes(inits.getTypes().begin(), inits.getTypes().end());
  if (ringGoesOn)
    anyTypes.push_back(b.getIndexType());
  if (chained)
    anyTypes.append(chainedScores, f32);
  auto ifAny = scf::IfOp::create(b, anyTypes, any, /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&ifAny.getElseRegion().front());
  if (ringGoesOn)
    releaseQIf(arith::ConstantIntOp::create(b, 1, 1));
  SmallVector<Value> noTile(inits);
  if (ringGoesOn)
    noTile.push_back(ringStart);
  if (chained)
    noTile.append(chainedScores, f32c(0.0f));
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
  // The first S, issued in its own turn (or, chained, carried in from the
  // item before's last turn).
  auto firstS = [&]() {
    Value stage0 = compacted ? firstStage : tmaLoop->waitKeys(use0);
    if (continuousTurns)
      takeTurn();
    SmallVector<Value> s0Pending = issueQK(slab, stage0);
    if (continuousTurns)
      passTurn();
    return wgmmaE->wait(0, s0Pending);
  };
  SmallVector<Value> s0;
  if (chained) {
    auto ifHave =
        scf::IfOp::create(b, SmallVector<Type>(chainedScores, f32), chain->have,
                          /*withElseRegion=*/true);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(&ifHave.getThenRegion().front());
    scf::YieldOp::create(b, chain->s);
    b.setInsertionPointToStart(&ifHave.getElseRegion().front());
    scf::YieldOp::create(b, firstS());
    s0.assign(ifHave.getResults().begin(), ifHave.getResults().end());
  } else {
    s0 = firstS();
  }
  if (!compacted)
    releaseQIf(isLastTile(first));
  // (A carried S's keys were released by the item before.)
  if (chained)
    tmaLoop->releaseKeys(
        use0, arith::AndIOp::create(
                  b, releases,
                  arith::XOrIOp::create(
                      b, chain->have, arith::ConstantIntOp::create(b, 1, 1))));
  else
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
  // The last P V in its own turn; chained, with the next item's first S
  // (nextS: its scores, completed).
  SmallVector<Value> nextS;
  auto lastPV = [&](bool withNext) {
    Value nextStage, nextSlab;
    if (withNext) {
      // The next item's keys (the ring's next use) and its Q: the other
      // of the two Q tiles, phase (round + 1) / 2 of its full barrier.
      nextStage = tmaLoop->waitKeys(a.add(lastUse, one));
      Value nextBase = arith::SelectOp::create(b, qSecond, idx(qTileBytes(0)),
                                               idx(qTileBytes(1)));
      Value nextFull = arith::SelectOp::create(
          b, qSecond, idx(qBarrierBytes(0, 0)), idx(qBarrierBytes(1, 0)));
      Value nextUse = arith::DivUIOp::create(b, a.add(round, one), idx(2));
      tma::wait(b, mmaE->smemAt(nextFull),
                toI32(arith::RemUIOp::create(b, nextUse, idx(2))));
      nextSlab = qSlab(nextBase);
    }
    if (continuousTurns)
      takeTurn();
    SmallVector<Value> accPending =
        issuePVAt(SmallVector<Value>(fin.take_back(pRegs)), lastStage,
                  SmallVector<Value>(
                      fin.slice(2 * slots, fin.size() - 2 * slots - pRegs)),
                  last);
    SmallVector<Value> sPending;
    if (withNext)
      sPending = issueQK(nextSlab, nextStage);
    if (continuousTurns)
      passTurn();
    SmallVector<Value> acc = wgmmaE->wait(withNext ? 1 : 0, accPending);
    if (withNext) {
      acc.append(wgmmaE->wait(0, sPending));
      // The next item's first keys, read: the producer may load the stage's
      // next keys during this item's epilogue.
      releaseKeys(a.add(lastUse, one));
    }
    return acc;
  };
  SmallVector<Value> acc;
  if (chained) {
    const int64_t accRegs = fin.size() - 2 * slots - pRegs;
    SmallVector<Type> types(accRegs + chainedScores, f32);
    auto ifNext = scf::IfOp::create(b, types, nextHasKeys,
                                    /*withElseRegion=*/true);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(&ifNext.getThenRegion().front());
    scf::YieldOp::create(b, lastPV(true));
    b.setInsertionPointToStart(&ifNext.getElseRegion().front());
    SmallVector<Value> alone = lastPV(false);
    alone.append(chainedScores, f32c(0.0f));
    scf::YieldOp::create(b, alone);
    ValueRange results = ifNext.getResults();
    acc.assign(results.begin(), results.begin() + accRegs);
    nextS.assign(results.begin() + accRegs, results.end());
  } else {
    acc = lastPV(false);
  }
  tmaLoop->releaseValues(lastUse, releases);
  SmallVector<Value> yields(fin.take_front(2 * slots));
  yields.append(acc);
  if (ringGoesOn)
    yields.push_back(loop->getResult(stateSize));
  yields.append(nextS);
  scf::YieldOp::create(b, yields);
  if (chained) {
    b.setInsertionPointAfter(ifAny);
    chain->nextHave = arith::AndIOp::create(b, any, nextHasKeys);
    ValueRange results = ifAny.getResults();
    chain->nextS.assign(results.begin() + (results.size() - chainedScores),
                        results.end());
    return results.drop_back(chainedScores);
  }
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
