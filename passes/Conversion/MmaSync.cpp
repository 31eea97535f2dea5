//===- MmaSync.cpp - the pieces of the sm_80-class kernel -----------------===//

#include "passes/Conversion/MmaSync.h"

#include <algorithm>
#include <array>

#include "passes/Codegen/IndexArith.h"
#include "passes/Codegen/OnlineSoftmax.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace attnc;

PaddedSmemLayout PaddedSmemLayout::get(int64_t headDim, int64_t valueHeadDim,
                                       attn::GpuKernelAttr config, bool kvFp8) {
  PaddedSmemLayout l;
  l.kPitch = headDim + 8;
  l.vPitch = valueHeadDim + 8;
  l.qPitch = headDim + 8;
  l.vOffset = config.getBlockK() * l.kPitch * 2;
  l.stageBytes = l.vOffset + config.getBlockK() * l.vPitch * 2;
  l.qOffset = config.getStages() * l.stageBytes;
  if (kvFp8) {
    // Two k-steps of 16 codes a ldmatrix: D a multiple of 32.
    l.fp8KeysInRegisters = !config.getQInSmem() && headDim % 32 == 0;
    l.fp8KPitch = headDim;
    if (l.fp8KeysInRegisters) {
      l.fp8KPitch = headDim + 16;
      l.vOffset = 0;
      l.stageBytes = config.getBlockK() * l.vPitch * 2;
    }
    l.fp8Offset = l.stageBytes;
    l.fp8StageBytes = config.getBlockK() * (l.fp8KPitch + valueHeadDim);
    l.qOffset = l.fp8Offset + config.getStages() * l.fp8StageBytes;
  }
  l.bytes = l.qOffset +
            (config.getQInSmem() ? config.getBlockQ() * l.qPitch * 2 : 0);
  // key_warps > 1: after the key loop, each warp's rows (m, l and the
  // accumulators, f32) meet in shared memory, over the stages.
  int64_t w = config.getKeyWarps();
  if (w > 1) {
    l.mergeAccOffset = 0;
    l.mergeMOffset = w * config.getBlockQ() * valueHeadDim * 4;
    l.mergeLOffset = l.mergeMOffset + w * config.getBlockQ() * 4;
    l.mergeEnd = l.mergeLOffset + w * config.getBlockQ() * 4 * 4;
    l.bytes = std::max(l.bytes, l.mergeEnd);
  }
  return l;
}

Value MmaSyncEmitter::smemAt(Value offset) {
  return LLVM::GEPOp::create(
      b, LLVM::LLVMPointerType::get(b.getContext(), 3), b.getI8Type(), smem,
      ValueRange{arith::IndexCastOp::create(b, b.getI32Type(), offset)});
}

SmallVector<Value, 4> MmaSyncEmitter::ldmatrix(Value offset, bool transpose) {
  Type i32 = b.getI32Type();
  auto type =
      LLVM::LLVMStructType::getLiteral(b.getContext(), {i32, i32, i32, i32});
  Value m = NVVM::LdMatrixOp::create(
      b, type, smemAt(offset), 4,
      transpose ? NVVM::MMALayout::col : NVVM::MMALayout::row,
      NVVM::LdStMatrixShapeAttr::get(b.getContext(), 8, 8),
      NVVM::LdStMatrixEltType::B16);
  SmallVector<Value, 4> out;
  for (int64_t i = 0; i < 4; ++i)
    out.push_back(LLVM::ExtractValueOp::create(b, m, i));
  return out;
}

SmallVector<Value, 4> MmaSyncEmitter::mma(ArrayRef<Value> aFrag,
                                          ArrayRef<Value> bFrag,
                                          ArrayRef<Value> c) {
  Type f32 = b.getF32Type();
  auto resultType =
      LLVM::LLVMStructType::getLiteral(b.getContext(), {f32, f32, f32, f32});
  NVVM::MMATypes t =
      elementType.isBF16() ? NVVM::MMATypes::bf16 : NVVM::MMATypes::f16;
  // bf16 operands travel as i32 pairs, f16 ones as vector<2xf16>.
  auto operands = [&](ArrayRef<Value> words) {
    SmallVector<Value, 4> out(words.begin(), words.end());
    if (elementType.isF16())
      for (Value &w : out)
        w = LLVM::BitcastOp::create(b, VectorType::get({2}, elementType), w);
    return out;
  };
  auto mmaOp = NVVM::MmaOp::create(
      b, resultType, operands(aFrag), operands(bFrag), c,
      ArrayRef<int64_t>{16, 8, 16}, std::nullopt, std::nullopt,
      std::array<NVVM::MMATypes, 2>{t, t},
      std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                     NVVM::MMALayout::col});
  SmallVector<Value, 4> out;
  for (int64_t i = 0; i < 4; ++i)
    out.push_back(LLVM::ExtractValueOp::create(b, mmaOp, i));
  return out;
}

Value MmaSyncEmitter::packPair(Value lo, Value hi) {
  // One vector truncation: a single cvt.rn.{bf16,f16}x2.f32 on sm_80 and
  // later, where element-wise truncation, shift and or took six.
  auto wide = VectorType::get({2}, b.getF32Type());
  Value pair = LLVM::PoisonOp::create(b, wide);
  std::array<Value, 2> halves = {lo, hi};
  for (int64_t i = 0; i < 2; ++i)
    pair = LLVM::InsertElementOp::create(
        b, pair, halves[i], arith::ConstantIntOp::create(b, i, 32));
  Value narrow =
      LLVM::FPTruncOp::create(b, VectorType::get({2}, elementType), pair);
  return LLVM::BitcastOp::create(b, b.getI32Type(), narrow);
}

std::pair<Value, Value> MmaSyncEmitter::convertFp8x4(Value word) {
  MLIRContext *ctx = b.getContext();
  Type i32 = b.getI32Type();
  std::string asmText = "{\n.reg .b16 l, h;\nmov.b32 {l, h}, $2;\n";
  if (elementType.isF16()) {
    asmText += "cvt.rn.f16x2.e4m3x2 $0, l;\ncvt.rn.f16x2.e4m3x2 $1, h;\n}";
  } else {
    asmText += ".reg .b32 x, y;\n.reg .f16 x0, x1, y0, y1;\n"
               ".reg .f32 a0, a1, b0, b1;\n"
               "cvt.rn.f16x2.e4m3x2 x, l;\ncvt.rn.f16x2.e4m3x2 y, h;\n"
               "mov.b32 {x0, x1}, x;\nmov.b32 {y0, y1}, y;\n"
               "cvt.f32.f16 a0, x0;\ncvt.f32.f16 a1, x1;\n"
               "cvt.f32.f16 b0, y0;\ncvt.f32.f16 b1, y1;\n"
               "cvt.rn.bf16x2.f32 $0, a1, a0;\n"
               "cvt.rn.bf16x2.f32 $1, b1, b0;\n}";
  }
  auto pair = LLVM::LLVMStructType::getLiteral(ctx, {i32, i32});
  Value both = inlinePtx(b, pair, ValueRange{word}, asmText, "=r,=r,r",
                         /*sideEffects=*/false);
  return {LLVM::ExtractValueOp::create(b, both, 0),
          LLVM::ExtractValueOp::create(b, both, 1)};
}

Value MmaSyncEmitter::quadReduce(Value v, bool isMax) {
  for (int32_t offset : {1, 2}) {
    Value other =
        gpu::ShuffleOp::create(b, v, offset, 32, gpu::ShuffleMode::XOR)
            .getShuffleResult();
    v = isMax ? arith::MaximumFOp::create(b, v, other).getResult()
              : arith::AddFOp::create(b, v, other).getResult();
  }
  return v;
}

Value attnc::rowOffset32(ImplicitLocOpBuilder &b, Value row, Value stride32,
                         Value col) {
  Type i32 = b.getI32Type();
  Value row32 = arith::IndexCastOp::create(b, i32, row);
  Value col32 = arith::IndexCastOp::create(b, i32, col);
  return arith::AddIOp::create(b, arith::MulIOp::create(b, row32, stride32),
                               col32);
}

Value attnc::gep32(ImplicitLocOpBuilder &b, Value base, Value index32,
                   Type elementType) {
  return LLVM::GEPOp::create(b, LLVM::LLVMPointerType::get(b.getContext()),
                             elementType, base, ValueRange{index32});
}

void CpAsyncTileCopier::copyRows(Value head, Value rowStride32, Value first,
                                 Value count, int64_t width, int64_t pitch,
                                 Value dst, Value tid, int64_t rows) {
  copyRowsFrom(
      [&](Value key, Value column, int64_t) {
        return gep32(b, head, rowOffset32(b, key, rowStride32, column),
                     b.getI16Type());
      },
      first, count, width, pitch, dst, tid, rows);
}

void CpAsyncTileCopier::copyRowsFrom(
    llvm::function_ref<Value(Value key, Value column, int64_t slot)> source,
    Value first, Value count, int64_t width, int64_t pitch, Value dst,
    Value tid, int64_t rows) {
  IndexArith a{b};
  auto idx = [&](int64_t v) { return a.constant(v); };
  auto i32c = [&](int64_t v) { return arith::ConstantIntOp::create(b, v, 32); };
  // 16-byte chunks: `rows` rows of width / 8 chunks.
  int64_t chunksPerRow = width / 8;
  int64_t chunks = rows * chunksPerRow;
  Type globalPtr = LLVM::LLVMPointerType::get(b.getContext(), 1);
  // Many chunks per thread (small blocks): a loop, not straight-line code,
  // so that the chunks' addresses are not all kept live in registers.
  std::optional<OpBuilder::InsertionGuard> loopGuard;
  Value loopChunk;
  int64_t perThread = chunks / threads;
  if (chunks % threads == 0 && perThread > kMaxUnrolledChunks) {
    auto loop = scf::ForOp::create(b, idx(0), idx(chunks), idx(threads));
    loopGuard.emplace(b);
    b.setInsertionPointToStart(loop.getBody());
    loopChunk = loop.getInductionVar();
    chunks = threads;
  }
  for (int64_t firstChunk = 0; firstChunk < chunks; firstChunk += threads) {
    Value chunk = a.add(tid, loopChunk ? loopChunk : idx(firstChunk));
    std::optional<OpBuilder::InsertionGuard> guard;
    if (firstChunk + threads > chunks) {
      Value inRange = arith::CmpIOp::create(b, arith::CmpIPredicate::slt, chunk,
                                            idx(chunks));
      auto ifIn = scf::IfOp::create(b, inRange, /*withElseRegion=*/false);
      guard.emplace(b);
      b.setInsertionPointToStart(&ifIn.getThenRegion().front());
    }
    Value row = arith::DivUIOp::create(b, chunk, idx(chunksPerRow));
    Value col = arith::RemUIOp::create(b, chunk, idx(chunksPerRow));
    Value key = a.add(first, row);
    Value valid =
        arith::CmpIOp::create(b, arith::CmpIPredicate::slt, key, count);
    // Past the rows: read a valid row with a source size of 0 (zero fill).
    Value src = LLVM::AddrSpaceCastOp::create(
        b, globalPtr,
        source(a.min(key, a.sub(count, idx(1))),
               arith::MulIOp::create(b, col, idx(8)),
               loopChunk || guard ? -1 : firstChunk / threads));
    Value at = a.add(dst, arith::MulIOp::create(
                              b,
                              a.add(arith::MulIOp::create(b, row, idx(pitch)),
                                    arith::MulIOp::create(b, col, idx(8))),
                              idx(2)));
    Value size = arith::SelectOp::create(b, valid, i32c(16), i32c(0));
    NVVM::CpAsyncOp::create(b, emitter.smemAt(at), src, 16,
                            NVVM::LoadCacheModifierKind::CG, size);
  }
}

void CpAsyncTileCopier::commit() { NVVM::CpAsyncCommitGroupOp::create(b); }

void CpAsyncTileCopier::wait(int32_t pending) {
  NVVM::CpAsyncWaitGroupOp::create(b, pending);
}

void CpAsyncKeyLoop::prologue(Value lo, Value hi) {
  IndexArith a{b};
  Value any = arith::CmpIOp::create(b, arith::CmpIPredicate::slt, lo, hi);
  any = hooks.notEmpty(lo, any);
  auto ifAny = scf::IfOp::create(b, any, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&ifAny.getThenRegion().front());
  hooks.issue(lo, a.constant(0));
}

void CpAsyncKeyLoop::prologueRest(Value lo, Value hi) {
  IndexArith a{b};
  for (int64_t i = 1; i + 1 < stages; ++i) {
    Value kt = a.add(lo, a.constant(i));
    Value any = arith::CmpIOp::create(b, arith::CmpIPredicate::slt, kt, hi);
    any = hooks.notEmpty(kt, any);
    auto ifAny = scf::IfOp::create(b, any, /*withElseRegion=*/false);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(&ifAny.getThenRegion().front());
      hooks.issue(kt, a.constant(i));
    }
    copier.commit();
  }
}

ValueRange CpAsyncKeyLoop::loop(Value lo, Value hi, ValueRange inits) {
  IndexArith a{b};
  auto loop = scf::ForOp::create(b, lo, hi, a.constant(1), inits);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  Value kt = loop.getInductionVar();
  Value stage = arith::RemUIOp::create(b, a.sub(kt, lo), a.constant(stages));
  Value stageBase = arith::MulIOp::create(b, stage, a.constant(stageBytes));

  // Prefetch tile kt + stages - 1 into the stage tile kt - 1 used, then
  // wait for this one.
  Value next = a.add(kt, a.constant(stages - 1));
  {
    Value more = arith::CmpIOp::create(b, arith::CmpIPredicate::slt, next, hi);
    more = hooks.notEmpty(next, more);
    auto ifMore = scf::IfOp::create(b, more, /*withElseRegion=*/false);
    OpBuilder::InsertionGuard inner(b);
    b.setInsertionPointToStart(&ifMore.getThenRegion().front());
    Value nextStage =
        stages == 2
            ? a.sub(a.constant(1), stage)
            : arith::RemUIOp::create(b, a.add(stage, a.constant(stages - 1)),
                                     a.constant(stages))
                  .getResult();
    hooks.issue(next, nextStage);
  }
  copier.commit();
  copier.wait(static_cast<int32_t>(stages - 1));
  gpu::BarrierOp::create(b);
  SmallVector<Value> state =
      hooks.body(kt, stageBase, loop.getRegionIterArgs());
  // Every warp is done with this stage before the next prefetch reuses it.
  if (hooks.barrierAfterBody)
    gpu::BarrierOp::create(b);
  scf::YieldOp::create(b, state);
  return loop.getResults();
}

/// A 4 x 4 transpose of 32-bit words over the lanes t = 0..3 of each quad:
/// lane t holds w[j] = M[t][j] and gets M[0..3][t]. Two butterfly steps
/// (lane bits 1, then 0), each trading two words with the partner lane.
static SmallVector<Value, 4> transposeQuad(ImplicitLocOpBuilder &b,
                                           ArrayRef<Value> w, Value lane) {
  SmallVector<Value, 4> v(w.begin(), w.end());
  Value lane32 = arith::IndexCastOp::create(b, b.getI32Type(), lane);
  for (int32_t bit : {2, 1}) {
    Value high = arith::CmpIOp::create(
        b, arith::CmpIPredicate::ne,
        arith::AndIOp::create(b, lane32,
                              arith::ConstantIntOp::create(b, bit, 32)),
        arith::ConstantIntOp::create(b, 0, 32));
    for (int64_t lo = 0; lo < 4; ++lo) {
      if (lo & bit)
        continue;
      int64_t hi = lo | bit;
      // The lane with the bit set sends its low word and takes the
      // partner's high word there; the other the converse.
      Value send = arith::SelectOp::create(b, high, v[lo], v[hi]);
      Value got =
          gpu::ShuffleOp::create(b, send, bit, 32, gpu::ShuffleMode::XOR)
              .getShuffleResult();
      Value newLo = arith::SelectOp::create(b, high, got, v[lo]);
      Value newHi = arith::SelectOp::create(b, high, v[hi], got);
      v[lo] = newLo;
      v[hi] = newHi;
    }
  }
  return v;
}

void attnc::storeOutputRows(ImplicitLocOpBuilder &b, MmaSyncEmitter &emitter,
                            const MmaAccumulatorLayout &layout,
                            const OutputRows &out, ValueRange m,
                            ValueRange lPartial, ValueRange acc) {
  IndexArith a{b};
  int64_t slots = 2 * layout.mTiles;
  // A slot's row sum and scale, made where its stores start (both live
  // through every slot's stores cost the persistent D = 128 kernel a
  // spill).
  SmallVector<Value> l(slots), inv(slots);
  auto scaleSlot = [&](int64_t sl) {
    l[sl] = emitter.quadReduce(lPartial[sl], false);
    inv[sl] = softmax::outputScale(b, l[sl]);
  };
  // The slot's registers: m-tile sl / 2, C rows g (h = 0) or g + 8.
  auto firstOf = [&](int64_t sl) {
    return (sl / 2) * layout.registersPerMTile() + 2 * (sl % 2);
  };
  auto scaled = [&](int64_t sl, int64_t j, int64_t e) {
    return arith::MulFOp::create(b, acc[firstOf(sl) + 4 * j + e], inv[sl])
        .getResult();
  };
  auto storeLse = [&](int64_t sl) {
    if (!out.storeLse)
      return;
    Value first4 = arith::CmpIOp::create(b, arith::CmpIPredicate::eq,
                                         out.laneInQuad, a.constant(0));
    auto ifLane = scf::IfOp::create(b, first4, /*withElseRegion=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&ifLane.getThenRegion().front());
    out.storeLse(sl, softmax::logSumExp(b, m[sl], l[sl]));
  };
  auto storePairs = [&]() {
    for (int64_t sl = 0; sl < slots; ++sl) {
      scaleSlot(sl);
      auto ifValid =
          scf::IfOp::create(b, out.valid[sl], /*withElseRegion=*/false);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(&ifValid.getThenRegion().front());
      Value base = out.rowBase(sl);
      for (int64_t j = 0; j < layout.nTiles; ++j) {
        Value x = scaled(sl, j, 0);
        out.storePair(base, j, x, scaled(sl, j, 1));
      }
      storeLse(sl);
    }
  };
  if (out.stageWord) {
    auto ifStaged = scf::IfOp::create(b, out.wide, /*withElseRegion=*/true);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&ifStaged.getElseRegion().front());
    storePairs();
    b.setInsertionPointToStart(&ifStaged.getThenRegion().front());
    for (int64_t sl = 0; sl < slots; ++sl) {
      scaleSlot(sl);
      for (int64_t j = 0; j < layout.nTiles; ++j) {
        Value x = scaled(sl, j, 0);
        out.stageWord(sl, j, emitter.packPair(x, scaled(sl, j, 1)));
      }
      auto ifValid =
          scf::IfOp::create(b, out.valid[sl], /*withElseRegion=*/false);
      OpBuilder::InsertionGuard rowGuard(b);
      b.setInsertionPointToStart(&ifValid.getThenRegion().front());
      storeLse(sl);
    }
    out.flushStaged();
    return;
  }
  if (!out.storeWide || layout.nTiles < 4) {
    storePairs();
    return;
  }
  // 16-byte stores: n-tiles 4 G .. 4 G + 3 of a row, one word (two
  // columns) a lane each, become lane t's columns 32 G + 8 t .. + 7. A head
  // that is not a whole number of 32-column groups (D = 80: 64 + 16) stores
  // the columns past its last group a word (two columns) a lane at a time.
  auto ifWide = scf::IfOp::create(b, out.wide, /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&ifWide.getElseRegion().front());
  storePairs();
  b.setInsertionPointToStart(&ifWide.getThenRegion().front());
  Value column = arith::MulIOp::create(b, out.laneInQuad, a.constant(8));
  for (int64_t sl = 0; sl < slots; ++sl) {
    scaleSlot(sl);
    // A group at a time: its four words, traded, then stored (the
    // persistent D = 128 kernel spilled with a row's words live at once).
    for (int64_t g = 0; g < layout.nTiles / 4; ++g) {
      SmallVector<Value, 4> words;
      for (int64_t j = 4 * g; j < 4 * g + 4; ++j) {
        Value x = scaled(sl, j, 0);
        words.push_back(emitter.packPair(x, scaled(sl, j, 1)));
      }
      SmallVector<Value, 4> mine = transposeQuad(b, words, out.laneInQuad);
      auto ifValid =
          scf::IfOp::create(b, out.valid[sl], /*withElseRegion=*/false);
      OpBuilder::InsertionGuard rowGuard(b);
      b.setInsertionPointToStart(&ifValid.getThenRegion().front());
      out.storeWide(out.wideRowBase(sl), a.add(column, a.constant(32 * g)),
                    mine);
    }
    // The columns past the last whole group, then the row's LSE, under one
    // test of the row.
    auto ifValid =
        scf::IfOp::create(b, out.valid[sl], /*withElseRegion=*/false);
    OpBuilder::InsertionGuard rowGuard(b);
    b.setInsertionPointToStart(&ifValid.getThenRegion().front());
    if (int64_t rest = layout.nTiles % 4) {
      Value base = out.rowBase(sl);
      for (int64_t j = layout.nTiles - rest; j < layout.nTiles; ++j)
        out.storePair(base, j, scaled(sl, j, 0), scaled(sl, j, 1));
    }
    storeLse(sl);
  }
}

Value attnc::inlinePtx(ImplicitLocOpBuilder &b, Type resultType,
                       ValueRange operands, StringRef text,
                       StringRef constraints, bool sideEffects) {
  auto op = LLVM::InlineAsmOp::create(
      b, resultType, operands, text, constraints, sideEffects,
      /*is_align_stack=*/false, LLVM::tailcallkind::TailCallKind::None,
      LLVM::AsmDialectAttr::get(b.getContext(), LLVM::AsmDialect::AD_ATT),
      /*operand_attrs=*/ArrayAttr());
  return resultType ? op.getResult(0) : Value();
}
