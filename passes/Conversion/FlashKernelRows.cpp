//===- FlashKernelRows.cpp - the flash kernel's rows ----------------------===//
//
// KernelBuilder's row work: the epilogue's stores of O and the LSE, the row
// masks and the online-softmax step of a key tile, and the lanes' places
// in the swizzled tiles.
//
//===----------------------------------------------------------------------===//

#include "passes/Conversion/FlashKernelBuilder.h"

using namespace mlir;
using namespace attnc;
using namespace attnc::attn;
using namespace attnc::flash;
using attnc::mask::MaskKind;

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
      if (config.getWideStores() || config.getStagedStores()) {
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
      }
      if (config.getStagedStores())
        stageOutputRows(direct, oHead, oRowStride, positions[0], seqQ);
      if (config.getWideStores()) {
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

/// staged_stores: `out` writes the warp's 16 rows into its rows of shared
/// memory (SwizzledSmemLayout::outputOffset), then stores them from there,
/// 16 bytes (8 columns) a lane, to O from `oHead` (rows `oRowStride`
/// elements apart, i32). A store instruction covers 32 / w rows of w
/// chunks each (w = 8, 4 or 2, the widest dividing the row's Dv / 8
/// chunks): lane l holds chunk l % w of row l / w of the group, so that
/// every address is one base register a lane plus a constant (chunk
/// indices worked out per store were hoisted out of the persistent loop
/// and spilled). Row r of the warp is query position `firstPosition` - g
/// + r (the lane's first slot holds row g), stored where it is below
/// `seqQ`. A bar.warp.sync before the writes orders them after the lanes'
/// reads of the last item's rows, and one after them before this item's
/// reads. A head of an odd number of chunks keeps the 4-byte stores.
void KernelBuilder::stageOutputRows(OutputRows &out, Value oHead,
                                    Value oRowStride, Value firstPosition,
                                    Value seqQ) {
  const int64_t pitch = swizzled.outputPitch, chunks = dv / 8;
  const int64_t w = chunks % 8 == 0 ? 8 : chunks % 4 == 0 ? 4 : 2;
  if (chunks % 2 != 0)
    return;
  const int64_t rowsAtOnce = 32 / w;
  Value lane = consumer.lane;
  Value g = arith::DivUIOp::create(b, lane, idx(4));
  Value t = out.laneInQuad;
  Value warp = arith::DivUIOp::create(b, consumer.tid, idx(32));
  Value warpRows = a.add(idx(swizzled.outputOffset),
                         arith::MulIOp::create(b, warp, idx(16 * pitch)));
  Value laneWords =
      a.add(warpRows, a.add(arith::MulIOp::create(b, g, idx(pitch)),
                            arith::MulIOp::create(b, t, idx(4))));
  Value laneRow = arith::DivUIOp::create(b, lane, idx(w));
  Value laneChunk = arith::RemUIOp::create(b, lane, idx(w));
  Value laneReads =
      a.add(warpRows, a.add(arith::MulIOp::create(b, laneRow, idx(pitch)),
                            arith::MulIOp::create(b, laneChunk, idx(16))));
  auto syncWarp = [this]() {
    NVVM::SyncWarpOp::create(b, arith::ConstantIntOp::create(b, -1, 32));
  };
  out.stageWord = [=](int64_t slot, int64_t j, Value word) {
    if (slot == 0 && j == 0)
      syncWarp();
    Value at = a.add(laneWords, idx(8 * slot * pitch + 16 * j));
    LLVM::StoreOp::create(b, word, mmaE->smemAt(at), 4);
  };
  out.flushStaged = [=]() {
    syncWarp();
    auto v4 = VectorType::get({4}, i32);
    Value lanePosition = a.add(a.sub(firstPosition, g), laneRow);
    Value laneColumn = toI32(arith::MulIOp::create(b, laneChunk, idx(8)));
    for (int64_t r = 0; r < 16; r += rowsAtOnce) {
      Value position = a.add(lanePosition, idx(r));
      Value store =
          arith::CmpIOp::create(b, arith::CmpIPredicate::slt, position, seqQ);
      auto ifStore = scf::IfOp::create(b, store, /*withElseRegion=*/false);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(&ifStore.getThenRegion().front());
      Value rowStart = arith::AddIOp::create(
          b, rowOffset(position, oRowStride, idx(0)), laneColumn);
      for (int64_t c = 0; c < chunks; c += w) {
        Value from = a.add(laneReads, idx(r * pitch + 16 * c));
        Value words = LLVM::LoadOp::create(b, v4, mmaE->smemAt(from), 16);
        Value to = arith::AddIOp::create(
            b, rowStart, arith::ConstantIntOp::create(b, 8 * c, 32));
        LLVM::StoreOp::create(b, words, gep32(b, oHead, to, i16), 16);
      }
    }
  };
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
