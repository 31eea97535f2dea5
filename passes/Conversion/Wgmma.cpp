//===- Wgmma.cpp - Hopper warpgroup MMA pieces of the sm_90a kernel -------===//

#include "passes/Conversion/Wgmma.h"

#include "attnc/Kernel/RegisterSplit.h"

#include "passes/Conversion/MmaSync.h"

#include "passes/Codegen/IndexArith.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include <algorithm>
#include <string>

using namespace mlir;
using namespace attnc;

SwizzledSmemLayout SwizzledSmemLayout::get(int64_t headDim,
                                           int64_t valueHeadDim,
                                           attn::GpuKernelAttr config,
                                           bool kvFp8) {
  auto boxes = [](int64_t width) { return (width + 63) / 64; };
  SwizzledSmemLayout l;
  // Box sizes are multiples of 1024 bytes (block_k % 16 == 0, block_q % 64
  // == 0), so every box starts 1024-byte aligned.
  l.keyBoxBytes = config.getBlockK() * kSwizzleRowBytes;
  l.queryBoxBytes = config.getBlockQ() * kSwizzleRowBytes;
  l.vOffset = boxes(headDim) * l.keyBoxBytes;
  l.stageBytes = l.vOffset + boxes(valueHeadDim) * l.keyBoxBytes;
  l.qOffset = config.getStages() * l.stageBytes;
  if (!config.getWgmma()) {
    // tma_loads (the mma.sync kernel): Q in registers, one full barrier a
    // stage, after the key warps' merge buffers (PaddedSmemLayout), which
    // overwrite the stages after the key loop.
    PaddedSmemLayout padded =
        PaddedSmemLayout::get(headDim, valueHeadDim, config, false);
    int64_t end = l.qOffset;
    if (kvFp8) {
      auto codeBoxes = [](int64_t width) { return (width + 127) / 128; };
      // The padded 16-bit V tile the codes are converted into.
      int64_t vTile = config.getBlockK() * padded.vPitch * 2;
      l.fp8Offset = (vTile + 1023) / 1024 * 1024;
      l.vOffset = codeBoxes(headDim) * l.keyBoxBytes;
      l.stageBytes = l.vOffset + codeBoxes(valueHeadDim) * l.keyBoxBytes;
      l.codeVOffset = l.vOffset;
      l.codeStageBytes = l.stageBytes;
      end = l.fp8Offset + config.getStages() * l.stageBytes;
    }
    l.barrierOffset = (std::max(end, padded.mergeEnd) + 7) / 8 * 8;
    l.bytes = l.barrierOffset + 8 * config.getStages();
    return l;
  }
  l.qBytes = boxes(headDim) * l.queryBoxBytes;
  l.barrierOffset = l.qOffset + l.qBytes;
  int64_t barriers = 4 * config.getStages() + 2;
  if (kvFp8) {
    // Stages of codes after Q (its boxes keep the 1024-byte alignment):
    // ceil(D / 128) boxes of K codes, then ceil(Dv / 128) of V codes.
    auto codeBoxes = [](int64_t width) { return (width + 127) / 128; };
    l.fp8Offset = l.barrierOffset;
    l.codeVOffset = codeBoxes(headDim) * l.keyBoxBytes;
    l.codeStageBytes = l.codeVOffset + codeBoxes(valueHeadDim) * l.keyBoxBytes;
    l.barrierOffset = l.fp8Offset + config.getStages() * l.codeStageBytes;
    barriers += 4 * config.getStages();
  }
  l.bytes = l.barrierOffset + 8 * barriers;
  if (kvFp8) {
    l.entryOffset = l.bytes;
    l.bytes += config.getStages() * kMaxBoxSlots * 4;
  }
  l.tileSlotOffset = l.bytes;
  l.bytes += (4 * config.getStages() + 7) / 8 * 8;
  if (config.getStagedStores()) {
    l.outputOffset = (l.bytes + 127) / 128 * 128;
    l.outputPitch = 2 * valueHeadDim + 16;
    l.bytes = l.outputOffset + config.getWarps() * 16 * l.outputPitch;
  }
  if (config.getQBuffers() == 2) {
    l.q2Offset = (l.bytes + 1023) / 1024 * 1024;
    l.q2BarrierOffset = l.q2Offset + l.qBytes;
    l.bytes = l.q2BarrierOffset + 16;
  }
  return l;
}

WgmmaRegisters
attnc::wgmmaRegisters(attn::GpuKernelAttr config, int64_t sharedMemoryBytes,
                      bool producerTestsTiles, bool ragged,
                      bool producerScansDocuments, int64_t producerBoxSlots,
                      bool producerConverts, bool producerPairsWideRows) {
  WgmmaRegisters r;
  int64_t groups = config.getWarps() / 4;
  // sm_90: 227 KiB of shared memory per block, 228 KiB per multiprocessor.
  if (groups == 1 && 2 * (sharedMemoryBytes + 1024) <= 228 * 1024)
    r.blocksPerMultiprocessor = 2;
  // Set in the configuration (the target checked that they fit).
  if (config.getBlocksPerSm())
    r.blocksPerMultiprocessor = config.getBlocksPerSm();
  // A persistent producer works out each item's indices and key range in
  // a loop: with 24 or 32 registers it spilled (ptxas -v, D = 128).
  // So does a producer testing each key tile against a block table of
  // small blocks (16-key blocks, D = 64: 64 bytes with 24 registers, even
  // under one consumer warpgroup on 32-key tiles).
  if (config.getPersistent() || producerTestsTiles)
    r.producer = 40;
  // With a ragged batch's offsets besides, 40 spilled under one consumer
  // warpgroup (block masks of 32 x 16 and 128 x 256 blocks at D = 128,
  // ptxas -v: 12-40 bytes); its consumers keep 200.
  if (producerTestsTiles && ragged && groups == 1)
    r.producer = 56;
  // A persistent producer testing tiles (the compacted ring across work
  // items) spilled 20-36 bytes with 56 and 28 with 64 (ptxas -v, block
  // masks at D = 64-192); with 72 neither role spills there (216 for two
  // consumer warpgroups; D = 256's spill at that).
  if (config.getPersistent() && producerTestsTiles)
    r.producer = 72;
  // A persistent producer scanning cu_seqlens for each item's documents
  // spilled 32 bytes with 40 (D = 128, two consumer warpgroups, which
  // then keep 224).
  if (config.getPersistent() && producerScansDocuments)
    r.producer = 56;
  // Producer lanes of several warps sharing a paged tile's boxes, each
  // holding its `producerBoxSlots` boxes' page-table entries for this tile
  // and the next: with 24 registers 2 slots spilled 16-28 bytes (pages of
  // 16, D = 128), with 40 4 slots spilled (pages of 8; ptxas -v).
  if (producerBoxSlots > 0)
    r.producer = std::max<int64_t>(r.producer, producerBoxSlots > 2 ? 56 : 40);
  // A producer warpgroup converting an fp8 cache's codes holds a batch of
  // 16-code chunks (8 over a contiguous cache, 4 over pages: FlashKernel.cpp
  // kCodeLoadBatch) and their converted words besides its addresses: with
  // 56 registers 8 chunks spilled; with 72 (216 for the consumers) neither
  // spills, and the loads' latency hides behind more conversions
  // (bench/RESULTS.md, thirty-fifth session runs 1-2).
  if (producerConverts)
    r.producer = std::max<int64_t>(r.producer, 72);
  // A persistent producer handing out query tiles in pairs over rows of
  // three 64-column boxes (D = 192 under a causal mask) spilled 8 bytes
  // with 40 (ptxas -v, 64- to 112-key tiles); with 48 neither role spills
  // on 64- and 80-key tiles (224 for the consumers).
  if (config.getPersistent() && producerPairsWideRows)
    r.producer = std::max<int64_t>(r.producer, 48);
  // Within the pool the block starts with (RegisterSplit.h): with two
  // consumer warpgroups 168 x 384 = 64512 registers, so 232 beside a
  // producer of 40 (a producer of 48 beside 232 hung the H200: fifteenth
  // session, bench/RESULTS.md).
  r.consumer = consumerRegisters(groups, r.blocksPerMultiprocessor, r.producer);
  return r;
}

Value WgmmaEmitter::descriptor(Value offset, int64_t leadingBytes,
                               int64_t strideBytes) {
  Type i64 = b.getI64Type();
  auto c64 = [&](int64_t v) { return arith::ConstantIntOp::create(b, v, 64); };
  Value base = LLVM::PtrToIntOp::create(b, i64, smem);
  Value address = arith::AddIOp::create(
      b, base, arith::IndexCastOp::create(b, i64, offset));
  Value field = arith::ShRUIOp::create(
      b, arith::AndIOp::create(b, address, c64(0x3FFFF)), c64(4));
  uint64_t high = (uint64_t(1) << 62) | (uint64_t(strideBytes >> 4) << 32) |
                  (uint64_t(leadingBytes >> 4) << 16);
  return arith::OrIOp::create(b, field, c64(static_cast<int64_t>(high)));
}

Value WgmmaEmitter::advance(Value desc, int64_t bytes) {
  if (bytes == 0)
    return desc;
  return arith::AddIOp::create(b, desc,
                               arith::ConstantIntOp::create(b, bytes >> 4, 64));
}

/// The accumulator struct of an m64nN f32 wgmma: N / 2 f32.
static Type accumulatorType(MLIRContext *ctx, int64_t n) {
  return LLVM::LLVMStructType::getLiteral(
      ctx, SmallVector<Type>(n / 2, Float32Type::get(ctx)));
}

/// The f32 registers of an accumulator struct.
static SmallVector<Value> unpack(ImplicitLocOpBuilder &b, Value acc,
                                 int64_t count) {
  SmallVector<Value> out;
  for (int64_t i = 0; i < count; ++i)
    out.push_back(LLVM::ExtractValueOp::create(b, acc, i));
  return out;
}

SmallVector<Value> WgmmaEmitter::gemmSS(Value descA, int64_t aBoxBytes,
                                        Value descB, int64_t bBoxBytes,
                                        int64_t kSteps, int64_t n) {
  MLIRContext *ctx = b.getContext();
  Type accType = accumulatorType(ctx, n);
  auto type =
      elementType.isBF16() ? NVVM::WGMMATypes::bf16 : NVVM::WGMMATypes::f16;
  NVVM::WgmmaFenceAlignedOp::create(b);
  // An undefined accumulator with scale-d = 0 on the first step: a zeroed
  // one would put register moves between the fence and the MMAs, and
  // ptxas then serialises the wgmmas.
  Value acc = LLVM::UndefOp::create(b, accType);
  for (int64_t k = 0; k < kSteps; ++k) {
    // 16 columns = 32 bytes within a 128-byte row; every 4 steps the next
    // box.
    int64_t step = (k % 4) * 32;
    Value a = advance(descA, (k / 4) * aBoxBytes + step);
    Value bDesc = advance(descB, (k / 4) * bBoxBytes + step);
    acc = NVVM::WgmmaMmaAsyncOp::create(
        b, accType, acc, a, bDesc, NVVM::MMAShapeAttr::get(ctx, 64, n, 16),
        type, type, NVVM::WGMMATypes::f32,
        k == 0 ? NVVM::WGMMAScaleOut::zero : NVVM::WGMMAScaleOut::one,
        NVVM::WGMMAScaleIn::one, NVVM::WGMMAScaleIn::one, NVVM::MMALayout::row,
        NVVM::MMALayout::col,
        /*satfinite=*/NVVM::MMAIntOverflowAttr());
  }
  NVVM::WgmmaGroupSyncAlignedOp::create(b);
  return unpack(b, acc, n / 2);
}

SmallVector<Value> WgmmaEmitter::gemmRS(ArrayRef<SmallVector<Value, 4>> aFrags,
                                        Value descB, ArrayRef<Value> acc) {
  MLIRContext *ctx = b.getContext();
  int64_t regs = acc.size(), n = 2 * regs;
  Type accType = accumulatorType(ctx, n);
  const char *eltName = elementType.isBF16() ? "bf16" : "f16";
  // No NVVM op takes A from registers (llvm/llvm-project#133733): inline
  // PTX with the accumulators tied to the outputs. Operands: $0..$regs-1
  // the accumulators (out), then A's four registers, the descriptor of B,
  // then the tied inputs.
  std::string outs;
  for (int64_t i = 0; i < regs; ++i)
    outs += (i ? ", $" : "$") + std::to_string(i);
  std::string asmText =
      "{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n" +
      std::to_string(n) + "k16.f32." + eltName + "." + eltName + " {" + outs +
      "}, {$" + std::to_string(regs) + ", $" + std::to_string(regs + 1) +
      ", $" + std::to_string(regs + 2) + ", $" + std::to_string(regs + 3) +
      "}, $" + std::to_string(regs + 4) + ", p, 1, 1, 1;\n}";
  std::string constraints;
  for (int64_t i = 0; i < regs; ++i)
    constraints += "=f,";
  constraints += "r,r,r,r,l";
  for (int64_t i = 0; i < regs; ++i)
    constraints += "," + std::to_string(i);
  NVVM::WgmmaFenceAlignedOp::create(b);
  SmallVector<Value> values(acc.begin(), acc.end());
  for (auto [k, frag] : llvm::enumerate(aFrags)) {
    SmallVector<Value> operands(frag.begin(), frag.end());
    // 16 keys of the MN-major V tile: 16 rows of 128 bytes.
    operands.push_back(advance(descB, static_cast<int64_t>(k) * 2048));
    operands.append(values);
    values = unpack(b,
                    inlinePtx(b, accType, operands, asmText, constraints,
                              /*sideEffects=*/true),
                    regs);
  }
  NVVM::WgmmaGroupSyncAlignedOp::create(b);
  return values;
}

SmallVector<Value> WgmmaEmitter::wait(int64_t pending, ArrayRef<Value> values) {
  MLIRContext *ctx = b.getContext();
  int64_t count = values.size();
  std::string constraints;
  for (int64_t i = 0; i < count; ++i)
    constraints += "=f,";
  for (int64_t i = 0; i < count; ++i)
    constraints += (i ? "," : "") + std::to_string(i);
  Value waited = inlinePtx(
      b,
      LLVM::LLVMStructType::getLiteral(
          ctx, SmallVector<Type>(count, Float32Type::get(ctx))),
      values, "wgmma.wait_group.sync.aligned " + std::to_string(pending) + ";",
      constraints, /*sideEffects=*/true);
  return unpack(b, waited, count);
}

void tma::initBarrier(ImplicitLocOpBuilder &b, Value bar, int64_t count) {
  NVVM::MBarrierInitOp::create(b, bar,
                               arith::ConstantIntOp::create(b, count, 32),
                               /*predicate=*/Value());
}

void tma::fenceBarrierInit(ImplicitLocOpBuilder &b) {
  NVVM::FenceMbarrierInitOp::create(b);
}

void tma::arriveExpectTx(ImplicitLocOpBuilder &b, Value bar, int64_t bytes) {
  NVVM::MBarrierArriveExpectTxOp::create(
      b, /*res=*/Type(), bar, arith::ConstantIntOp::create(b, bytes, 32),
      NVVM::MemScopeKind::CTA, /*relaxed=*/false, /*predicate=*/Value());
}

void tma::arrive(ImplicitLocOpBuilder &b, Value bar) {
  NVVM::MBarrierArriveOp::create(b, /*res=*/Type(), bar, /*count=*/Value());
}

void tma::wait(ImplicitLocOpBuilder &b, Value bar, Value parity) {
  // The suspend-time hint of CUTLASS's ClusterBarrier::wait.
  NVVM::MBarrierTryWaitParityOp::create(
      b, bar, parity, arith::ConstantIntOp::create(b, 0x989680, 32));
}

void tma::load(ImplicitLocOpBuilder &b, Value dst, Value map,
               ArrayRef<Value> coords, Value bar) {
  // The destination is a shared::cluster address (of this CTA).
  Value dst7 = LLVM::AddrSpaceCastOp::create(
      b, LLVM::LLVMPointerType::get(b.getContext(), 7), dst);
  NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(
      b, dst7, map, coords, bar, /*im2colOffsets=*/ValueRange(),
      /*multicastMask=*/Value(), /*l2CacheHint=*/Value(),
      NVVM::TMALoadMode::TILE, /*isCTAOnly=*/false,
      /*group=*/NVVM::CTAGroupKindAttr(), /*predicate=*/Value());
}

void TmaKeyLoop::initBarriers() {
  IndexArith a{b};
  for (int64_t s = 0; s < 2 * stages; ++s) {
    tma::initBarrier(b, barrier(a.constant(s)), fullArrivals);
    tma::initBarrier(b, barrier(a.constant(2 * stages + s)),
                     s < stages && keyReleaseArrivals ? keyReleaseArrivals
                                                      : consumerGroups);
  }
}

Value TmaKeyLoop::useOf(Value kt, Value lo) {
  IndexArith a{b};
  Value use = a.sub(kt, lo);
  return useBase ? a.add(use, useBase) : use;
}

std::pair<Value, Value> TmaKeyLoop::stageOf(Value use) {
  IndexArith a{b};
  return {arith::RemUIOp::create(b, use, a.constant(stages)),
          arith::DivUIOp::create(b, use, a.constant(stages))};
}

Value TmaKeyLoop::parity(Value use, int64_t offset) {
  IndexArith a{b};
  return arith::IndexCastOp::create(
      b, b.getI32Type(),
      arith::RemUIOp::create(b, a.add(use, a.constant(offset)), a.constant(2)));
}

Value TmaKeyLoop::barrierOf(int64_t kind, Value use) {
  IndexArith a{b};
  return barrier(a.add(stageOf(use).first, a.constant(kind * stages)));
}

void TmaKeyLoop::loadHalf(int64_t half, Value kt, Value use, Value load,
                          ValueRange ahead, Value announceFull) {
  auto [stage, n] = stageOf(use);
  tma::wait(b, barrierOf(2 + half, use), parity(n, 1));
  if (announceFull)
    hooks.announce(kt, announceFull, stage);
  Value full = barrierOf(half, use);
  auto issue = [&]() {
    (half == 0 ? hooks.issueKeys : hooks.issueValues)(kt, stage, n, full,
                                                      ahead);
  };
  if (!load) {
    issue();
    return;
  }
  auto ifLoad = scf::IfOp::create(b, load, /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&ifLoad.getThenRegion().front());
  issue();
  b.setInsertionPointToStart(&ifLoad.getElseRegion().front());
  arriveWithoutLoad(full);
}

void TmaKeyLoop::arriveWithoutLoad(Value full) {
  if (!leader) {
    tma::arrive(b, full);
    return;
  }
  auto ifLeader = scf::IfOp::create(b, leader, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&ifLeader.getThenRegion().front());
  tma::arrive(b, full);
}

void TmaKeyLoop::produce(Value lo, Value hi) {
  IndexArith a{b};
  // hooks.ahead's values of tile kt come in as the loop's state, read in
  // the iteration before (the first before the loop).
  // With valuesBehind they are read at the top of iteration kt instead and
  // given to both its issues.
  const bool carried = hooks.ahead && !valuesBehind;
  SmallVector<Value> first;
  if (carried)
    first = hooks.ahead(lo);
  auto loop = scf::ForOp::create(b, lo, hi, a.constant(1), first);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  Value kt = loop.getInductionVar();
  SmallVector<Value> next;
  if (carried)
    next = hooks.ahead(a.add(kt, a.constant(1)));
  else if (hooks.ahead)
    next = hooks.ahead(kt);
  Value use = useOf(kt, lo);
  Value load = hooks.notEmpty(kt, arith::ConstantIntOp::create(b, 1, 1));
  // Keys, then values, each once the consumers have released the stage's
  // previous use of them.
  if (!valuesBehind) {
    for (int64_t half = 0; half < 2; ++half)
      loadHalf(half, kt, use, load, loop.getRegionIterArgs());
  } else {
    // The consumers' order: the keys of kt, then the values of kt - 1.
    loadHalf(0, kt, use, load, next);
    Value after = arith::CmpIOp::create(b, arith::CmpIPredicate::ugt, kt, lo);
    auto ifAfter = scf::IfOp::create(b, after, /*withElseRegion=*/false);
    OpBuilder::InsertionGuard inner(b);
    b.setInsertionPointToStart(&ifAfter.getThenRegion().front());
    Value prev = a.sub(kt, a.constant(1));
    loadHalf(1, prev, useOf(prev, lo),
             hooks.notEmpty(prev, arith::ConstantIntOp::create(b, 1, 1)), next);
  }
  if (carried)
    scf::YieldOp::create(b, next);
  if (!valuesBehind)
    return;
  b.setInsertionPointAfter(loop);
  auto ifAny = scf::IfOp::create(
      b, arith::CmpIOp::create(b, arith::CmpIPredicate::slt, lo, hi),
      /*withElseRegion=*/false);
  b.setInsertionPointToStart(&ifAny.getThenRegion().front());
  Value last = a.sub(hi, a.constant(1));
  loadHalf(1, last, useOf(last, lo),
           hooks.notEmpty(last, arith::ConstantIntOp::create(b, 1, 1)), {});
}

Value TmaKeyLoop::produceCompacted(Value lo, Value hi) {
  IndexArith a{b};
  // The ring's uses from useBase (a persistent kernel's earlier items: the
  // tiles they loaded and an end use each), or from 0. The loads go in the
  // order the consumers' overlapped loop uses them: the keys of a visible
  // tile with the values of the visible tile before it (S of one tile and
  // P V of the last are issued together), the last tile's values after
  // the loop. Keys are then never held behind the release of a values
  // stage, which comes only after a P V, and the tile tests that find the
  // next visible tile run while those values are still in use.
  // hooks.ahead's values of a visible tile are read before its keys' wait
  // and kept for its values (the loop's state after the use and the
  // previous tile; those of tile lo stand in before the first).
  Value base = useBase ? useBase : a.constant(0);
  Value none = a.constant(-1);
  SmallVector<Value> inits{base, none};
  if (hooks.ahead)
    llvm::append_range(inits, hooks.ahead(lo));
  auto loop = scf::ForOp::create(b, lo, hi, a.constant(1), inits);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Value kt = loop.getInductionVar();
    Value use = loop.getRegionIterArgs()[0];
    Value prev = loop.getRegionIterArgs()[1];
    ValueRange prevAhead = loop.getRegionIterArgs().drop_front(2);
    auto [load, full] = hooks.testTile(kt);
    auto ifLoad = scf::IfOp::create(b, loop.getResultTypes(), load,
                                    /*withElseRegion=*/true);
    OpBuilder::InsertionGuard inner(b);
    b.setInsertionPointToStart(&ifLoad.getThenRegion().front());
    SmallVector<Value> ahead;
    if (hooks.ahead)
      ahead = hooks.ahead(kt);
    loadHalf(0, kt, use, /*load=*/Value(), ahead, /*announceFull=*/full);
    Value afterFirst =
        arith::CmpIOp::create(b, arith::CmpIPredicate::sgt, use, base);
    {
      auto ifValues = scf::IfOp::create(b, afterFirst, /*withElseRegion=*/false);
      OpBuilder::InsertionGuard values(b);
      b.setInsertionPointToStart(&ifValues.getThenRegion().front());
      loadHalf(1, prev, a.sub(use, a.constant(1)), /*load=*/Value(), prevAhead);
    }
    SmallVector<Value> loaded{a.add(use, a.constant(1)), kt};
    llvm::append_range(loaded, ahead);
    scf::YieldOp::create(b, loaded);
    b.setInsertionPointToStart(&ifLoad.getElseRegion().front());
    scf::YieldOp::create(b, loop.getRegionIterArgs());
    b.setInsertionPointAfter(ifLoad);
    scf::YieldOp::create(b, ifLoad.getResults());
  }
  Value loaded = loop.getResult(0);
  {
    auto ifAny = scf::IfOp::create(
        b, arith::CmpIOp::create(b, arith::CmpIPredicate::sgt, loaded, base),
        /*withElseRegion=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&ifAny.getThenRegion().front());
    loadHalf(1, loop.getResult(1), a.sub(loaded, a.constant(1)),
             /*load=*/Value(), loop.getResults().drop_front(2));
  }
  // The end: use `loaded` holds no tile. Its keys' full barrier completes
  // its phase on the arrival alone (no bytes expected). A persistent
  // kernel's ring goes on into the next item, so the end use passes a
  // phase of the values' barriers too (the consumers release both halves
  // of it), keeping every stage's four barriers one phase a use.
  auto [stage, n] = stageOf(loaded);
  tma::wait(b, barrierOf(2, loaded), parity(n, 1));
  hooks.announce(Value(), Value(), stage);
  arriveWithoutLoad(barrierOf(0, loaded));
  if (useBase) {
    tma::wait(b, barrierOf(3, loaded), parity(n, 1));
    arriveWithoutLoad(barrierOf(1, loaded));
  }
  return a.add(loaded, a.constant(1));
}

Value TmaKeyLoop::waitHalf(int64_t kind, Value use) {
  IndexArith a{b};
  auto [stage, n] = stageOf(use);
  tma::wait(b, barrierOf(kind, use), parity(n, 0));
  return arith::MulIOp::create(b, stage, a.constant(stageBytes));
}

Value TmaKeyLoop::waitKeys(Value use) { return waitHalf(0, use); }

Value TmaKeyLoop::waitValues(Value use) { return waitHalf(1, use); }

void TmaKeyLoop::releaseHalf(int64_t kind, Value use, Value releases) {
  // The warpgroup's wgmmas reading this half of the stage have completed.
  auto ifRelease = scf::IfOp::create(b, releases, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&ifRelease.getThenRegion().front());
  tma::arrive(b, barrierOf(kind, use));
}

void TmaKeyLoop::releaseKeys(Value use, Value releases) {
  releaseHalf(2, use, releases);
}

void TmaKeyLoop::releaseValues(Value use, Value releases) {
  releaseHalf(3, use, releases);
}

void TmaTileRing::load(Value kt, Value i, Value hi, Value ahead) {
  IndexArith a{b};
  Value inRange = arith::AndIOp::create(
      b, issuer, arith::CmpIOp::create(b, arith::CmpIPredicate::slt, kt, hi));
  auto ifLoad = scf::IfOp::create(b, inRange, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&ifLoad.getThenRegion().front());
  Value stage = arith::RemUIOp::create(b, i, a.constant(stages));
  Value full = barrier(stage);
  Value visible = hooks.notEmpty(kt, arith::ConstantIntOp::create(b, 1, 1));
  auto ifVisible = scf::IfOp::create(b, visible, /*withElseRegion=*/true);
  b.setInsertionPointToStart(&ifVisible.getThenRegion().front());
  hooks.issue(kt, stage, full, ahead);
  b.setInsertionPointToStart(&ifVisible.getElseRegion().front());
  auto ifLeader = scf::IfOp::create(b, leader, /*withElseRegion=*/false);
  b.setInsertionPointToStart(&ifLeader.getThenRegion().front());
  tma::arrive(b, full);
}

void TmaTileRing::prologue(Value lo, Value hi) {
  IndexArith a{b};
  {
    auto ifLeader = scf::IfOp::create(b, leader, /*withElseRegion=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&ifLeader.getThenRegion().front());
    for (int64_t s = 0; s < stages; ++s)
      tma::initBarrier(b, barrier(a.constant(s)), 1);
    tma::fenceBarrierInit(b);
  }
  gpu::BarrierOp::create(b);
  for (int64_t i = 0; i + 1 < stages; ++i) {
    Value kt = a.add(lo, a.constant(i));
    load(kt, a.constant(i), hi, hooks.ahead ? hooks.ahead(kt) : Value());
  }
  if (hooks.ahead)
    firstAhead = hooks.ahead(a.add(lo, a.constant(stages - 1)));
}

ValueRange TmaTileRing::loop(Value lo, Value hi, ValueRange inits) {
  IndexArith a{b};
  SmallVector<Value> loopInits(inits.begin(), inits.end());
  if (firstAhead)
    loopInits.push_back(firstAhead);
  auto loop = scf::ForOp::create(b, lo, hi, a.constant(1), loopInits);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  Value kt = loop.getInductionVar();
  Value i = a.sub(kt, lo);
  ValueRange state = loop.getRegionIterArgs();
  Value ahead;
  if (firstAhead) {
    ahead = state.back();
    state = state.drop_back();
  }
  // Tile kt + stages - 1 into the stage tile kt - 1 used (every warp is
  // past it: the barrier closing the last iteration), then (with `ahead`)
  // the value of the tile after it, then wait for this one: use i / stages
  // of its stage.
  load(a.add(kt, a.constant(stages - 1)), a.add(i, a.constant(stages - 1)), hi,
       ahead);
  Value nextAhead =
      firstAhead ? hooks.ahead(a.add(kt, a.constant(stages))) : Value();
  Value stage = arith::RemUIOp::create(b, i, a.constant(stages));
  Value parity = arith::IndexCastOp::create(
      b, b.getI32Type(),
      arith::RemUIOp::create(
          b, arith::DivUIOp::create(b, i, a.constant(stages)), a.constant(2)));
  tma::wait(b, barrier(stage), parity);
  SmallVector<Value> next = hooks.body(
      kt, arith::MulIOp::create(b, stage, a.constant(stageBytes)), state);
  gpu::BarrierOp::create(b);
  if (nextAhead)
    next.push_back(nextAhead);
  scf::YieldOp::create(b, next);
  ValueRange results = loop.getResults();
  return firstAhead ? results.drop_back() : results;
}
