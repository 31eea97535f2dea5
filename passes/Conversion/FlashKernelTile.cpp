//===- FlashKernelTile.cpp - the flash kernel's work item -----------------===//
//
// KernelBuilder::tileBody (a key tile's work in the loops other than the
// overlapped wgmma loop) and buildTile, the layout of one work item: its
// indices, pointers, bounds, loops and epilogue.
//
//===----------------------------------------------------------------------===//

#include "passes/Conversion/FlashKernelBuilder.h"

using namespace mlir;
using namespace attnc;
using namespace attnc::attn;
using namespace attnc::flash;
using attnc::mask::MaskKind;

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
          return LLVM::LoadOp::create(b, i32, address, /*align=*/4).getResult();
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
  c.loadCuSeqlen = [&, cu = arg(abi::CuSeqlens)](ImplicitLocOpBuilder &lb,
                                                 Value i) {
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
    c.loadBlockMask = [&, bm = arg(abi::BlockMask), nq,
                       nk](ImplicitLocOpBuilder &lb, Value bb, Value hh,
                           Value r, Value col) {
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
    c.loadSlope = [&, slopes = arg(abi::AlibiSlopes)](ImplicitLocOpBuilder &lb,
                                                      Value h) {
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
      linear =
          a.add(arith::MulIOp::create(lb, linear, dimOf(memref, i)), index);
    Type elt = cast<MemRefType>(memref.getType()).getElementType();
    unsigned param = memref == step.getSeqIds()       ? abi::SeqIds
                     : memref == step.getCuSeqlens()  ? abi::CuSeqlens
                     : memref == step.getBlockMask()  ? abi::BlockMask
                     : memref == step.getKvLens()     ? abi::KvLens
                     : memref == step.getPageTable()  ? abi::PageTable
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
      loadBoxesAt(values, a.add(tileBase(stage, values), chunkBytes), row, page,
                  bar);
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
    // q_buffers = 2: the items take the two Q tiles in turn, each tile's
    // barriers a phase a use of it.
    qSecond = qBase = Value();
    if (config.getQBuffers() == 2 && round) {
      qSecond = arith::CmpIOp::create(b, arith::CmpIPredicate::eq,
                                      arith::RemUIOp::create(b, round, idx(2)),
                                      idx(1));
      qBase = arith::SelectOp::create(b, qSecond, idx(qTileBytes(1)),
                                      idx(qTileBytes(0)));
      qUse = arith::DivUIOp::create(b, round, idx(2));
    }
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
                    mmaE->smemAt(a.add(qTileOffset(),
                                       idx(box * swizzled.queryBoxBytes))),
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
    releases =
        arith::CmpIOp::create(b, arith::CmpIPredicate::eq,
                              arith::RemUIOp::create(b, tid, idx(128)), idx(0));
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
          qTileOffset(),
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
