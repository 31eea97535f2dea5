//===- FlashKernelLoads.cpp - the flash kernel's loads --------------------===//
//
// KernelBuilder's producer side: the key and value tiles' TMA boxes (over a
// paged cache a box a page) and the fp8 codes' conversion by the wgmma
// kernel's producer warpgroup.
//
//===----------------------------------------------------------------------===//

#include "passes/Conversion/FlashKernelBuilder.h"

using namespace mlir;
using namespace attnc;
using namespace attnc::attn;
using namespace attnc::flash;
using attnc::mask::MaskKind;

/// The fp8 converter's 16-byte code loads issued together before their
/// conversions' stores: a thread's whole share of a D = 128 tile (with its
/// producer warpgroup at 72 registers, Wgmma.cpp; 8 spilled 56). Over
/// pages, whose entries it holds too, it issues half: 8 there were slower
/// than 4 (bench/RESULTS.md, thirty-fifth session run 2).
static constexpr int64_t kCodeLoadBatch = 8;

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
