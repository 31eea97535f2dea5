//===- AttnTile.cpp - tile attn.attention into tile steps -----------------===//
//
// Implements attn-tile: attn.attention on tensors becomes buffers and a loop
// nest over (batch, head, query tile) with a sequential key-tile loop of
// attn.tile_step ops and an attn.tile_finalize.
//
//===----------------------------------------------------------------------===//

#include "passes/Transforms/Passes.h"

#include "passes/Codegen/MaskCodegen.h"

#include "mlir/IR/ImplicitLocOpBuilder.h"

#define DEBUG_TYPE "attn-tile"

namespace attnc {
#define GEN_PASS_DEF_ATTNTILE
#include "passes/Transforms/Passes.h.inc"
} // namespace attnc

using namespace mlir;
using namespace attnc;
using namespace attnc::attn;

FailureOr<TileSizes> attnc::getTileSizes(AttentionOp op, TileSizes fallback) {
  for (Operation *holder = op; holder; holder = holder->getParentOp()) {
    if (holder != op.getOperation() && !isa<ModuleOp>(holder))
      continue;
    Attribute attr = holder->getAttr(kTileSizesAttrName);
    if (!attr)
      continue;
    auto sizes = dyn_cast<DenseI64ArrayAttr>(attr);
    auto valid = [](int64_t s) { return s > 0 && s <= kMaxTileSize; };
    if (!sizes || sizes.size() != 2 || !valid(sizes[0]) || !valid(sizes[1]))
      return holder->emitError("expected ")
             << kTileSizesAttrName
             << " to be array<i64: block_q, block_k> with sizes in [1, "
             << kMaxTileSize << "], got " << attr;
    return TileSizes{sizes[0], sizes[1]};
  }
  if (fallback.blockQ <= 0 || fallback.blockK <= 0 ||
      fallback.blockQ > kMaxTileSize || fallback.blockK > kMaxTileSize)
    return op.emitError("expected tile sizes in [1, ")
           << kMaxTileSize << "], got block_q = " << fallback.blockQ
           << ", block_k = " << fallback.blockK;
  return fallback;
}

/// A read-only buffer view of a tensor operand (null stays null).
static Value toBuffer(ImplicitLocOpBuilder &b, Value tensor) {
  if (!tensor)
    return {};
  auto type = cast<RankedTensorType>(tensor.getType());
  auto memrefType = MemRefType::get(type.getShape(), type.getElementType());
  return bufferization::ToBufferOp::create(b, memrefType, tensor,
                                           /*read_only=*/true);
}

/// Allocates a buffer of `type`, taking its dynamic sizes from `dimOf(i)`.
static Value allocLike(ImplicitLocOpBuilder &b, RankedTensorType type,
                       function_ref<Value(unsigned)> dimOf) {
  SmallVector<Value> dynSizes;
  for (unsigned i = 0; i < type.getRank(); ++i)
    if (type.isDynamicDim(i))
      dynSizes.push_back(dimOf(i));
  auto memrefType = MemRefType::get(type.getShape(), type.getElementType());
  return memref::AllocOp::create(b, memrefType, dynSizes);
}

/// Emits loops that store `value` into every element of a static buffer.
static void fill(ImplicitLocOpBuilder &b, Value buffer, Value value) {
  auto type = cast<MemRefType>(buffer.getType());
  Value c0 = arith::ConstantIndexOp::create(b, 0);
  Value c1 = arith::ConstantIndexOp::create(b, 1);
  SmallVector<Value> ivs;
  std::function<void(OpBuilder &, unsigned)> nest = [&](OpBuilder &ob,
                                                        unsigned dim) {
    if (dim == type.getRank()) {
      memref::StoreOp::create(ob, b.getLoc(), value, buffer, ivs);
      return;
    }
    Value ub =
        arith::ConstantIndexOp::create(ob, b.getLoc(), type.getDimSize(dim));
    scf::ForOp::create(ob, b.getLoc(), c0, ub, c1, ValueRange(),
                       [&](OpBuilder &ib, Location, Value iv, ValueRange) {
                         ivs.push_back(iv);
                         nest(ib, dim + 1);
                         ivs.pop_back();
                         scf::YieldOp::create(ib, b.getLoc());
                       });
  };
  nest(b, 0);
}

/// The writable buffer a result is materialized into when that is its only
/// use (destination-passing entry functions); null otherwise. The buffer
/// must be `restrict` (aliasing no other buffer of the function): the
/// output is written into it tile by tile while later tiles still read the
/// keys and values, so a destination that may alias them gets a new buffer
/// and the copy that materialize_in_destination makes.
static bufferization::MaterializeInDestinationOp destinationOf(Value result) {
  if (!result || !result.hasOneUse())
    return {};
  auto store = dyn_cast<bufferization::MaterializeInDestinationOp>(
      *result.getUsers().begin());
  if (!store || !isa<MemRefType>(store.getDest().getType()) ||
      !store.getWritable() || !store.getRestrict() ||
      store.getDest().getType() !=
          MemRefType::get(
              cast<RankedTensorType>(result.getType()).getShape(),
              cast<RankedTensorType>(result.getType()).getElementType()))
    return {};
  return store;
}

LogicalResult attnc::tileAttention(RewriterBase &rewriter, AttentionOp op,
                                   TileSizes sizes) {
  ImplicitLocOpBuilder b(op.getLoc(), rewriter);
  b.setInsertionPoint(op);

  Value query = toBuffer(b, op.getQuery());
  Value key = toBuffer(b, op.getKey());
  Value value = toBuffer(b, op.getValue());
  Value seqIds = toBuffer(b, op.getSeqIds());
  Value cuSeqlens = toBuffer(b, op.getCuSeqlens());
  Value blockMask = toBuffer(b, op.getBlockMask());
  Value alibiSlopes = toBuffer(b, op.getAlibiSlopes());
  Value kvLens = toBuffer(b, op.getKvLens());
  Value pageTable = toBuffer(b, op.getPageTable());
  Value kvScales = toBuffer(b, op.getKvScales());
  Value cuSeqlensQ = toBuffer(b, op.getCuSeqlensQ());
  Value cuSeqlensK = toBuffer(b, op.getCuSeqlensK());

  Value batch = memref::DimOp::create(b, query, 0);
  Value seqQ = memref::DimOp::create(b, query, 2);
  Value seqK = keySeqLen(b, key, pageTable);
  // Results go straight into their destination buffers when the IR names
  // them; otherwise into new buffers.
  auto rowDim = [&](unsigned i) { return i == 0 ? batch : seqQ; };
  auto outputStore = destinationOf(op.getOutput());
  auto lseStore = destinationOf(op.getLse());
  Value output = outputStore ? outputStore.getDest()
                             : allocLike(b, op.getOutput().getType(), rowDim);
  Value lse;
  if (Value lseResult = op.getLse())
    lse = lseStore ? lseStore.getDest()
                   : allocLike(b, cast<RankedTensorType>(lseResult.getType()),
                               rowDim);

  Value c0 = arith::ConstantIndexOp::create(b, 0);
  Value c1 = arith::ConstantIndexOp::create(b, 1);
  Value blockQ = arith::ConstantIndexOp::create(b, sizes.blockQ);
  Value blockK = arith::ConstantIndexOp::create(b, sizes.blockK);
  Value heads = arith::ConstantIndexOp::create(b, op.getNumQueryHeads());
  Value numQueryTiles = arith::CeilDivUIOp::create(b, seqQ, blockQ);
  // A ragged batch: one grid row per sequence, each with up to
  // ceil(Tq / block_q) query tiles (those past its end have no rows).
  Value numSequences = batch;
  if (cuSeqlensQ)
    numSequences = arith::SubIOp::create(
        b, memref::DimOp::create(b, cuSeqlensQ, 0), c1);
  Value numKeyTiles = arith::CeilDivUIOp::create(b, seqK, blockK);

  Type f32 = b.getF32Type();
  auto stateRowType = MemRefType::get({sizes.blockQ}, f32);
  auto accType = MemRefType::get({sizes.blockQ, op.getValueHeadDim()}, f32);
  FloatAttr scale = b.getF32FloatAttr(op.getEffectiveScale());

  auto queryTiles = scf::ParallelOp::create(
      b, ValueRange{c0, c0, c0},
      ValueRange{numSequences, heads, numQueryTiles},
      ValueRange{c1, c1, c1}, [&](OpBuilder &pb, Location loc, ValueRange ivs) {
        ImplicitLocOpBuilder ib(loc, pb);
        // The state of one query tile, on the heap and freed after the
        // finalize: block_q x Dv floats can be large, and stack buffers
        // inside the loop nest would not be released per iteration.
        Value rowMax = memref::AllocOp::create(ib, stateRowType);
        Value rowSum = memref::AllocOp::create(ib, stateRowType);
        Value acc = memref::AllocOp::create(ib, accType);
        fill(ib, rowMax,
             arith::ConstantOp::create(
                 ib,
                 ib.getF32FloatAttr(-std::numeric_limits<float>::infinity())));
        Value zero = arith::ConstantOp::create(ib, ib.getF32FloatAttr(0.0f));
        fill(ib, rowSum, zero);
        fill(ib, acc, zero);

        Value qBegin = arith::MulIOp::create(ib, ivs[2], blockQ);
        // With kv_lens, this batch entry's keys: kv_lens[b] clamped to
        // [0, Sk] (the same value the step's masks use, MaskCodegen).
        Value keyTiles = numKeyTiles;
        if (kvLens)
          keyTiles = arith::CeilDivUIOp::create(
              ib, clampedKvLen(ib, kvLens, ivs[0], seqK), blockK);
        // A ragged batch: the sequence's keys, and none for a query tile
        // past the sequence's end.
        if (cuSeqlensK)
          keyTiles = arith::CeilDivUIOp::create(
              ib, raggedSpan(ib, cuSeqlensK, ivs[0], seqK).len, blockK);
        if (cuSeqlensQ) {
          Value rowsLeft = arith::CmpIOp::create(
              ib, arith::CmpIPredicate::slt, qBegin,
              raggedSpan(ib, cuSeqlensQ, ivs[0], seqQ).len);
          keyTiles = arith::SelectOp::create(ib, rowsLeft, keyTiles, c0);
        }
        auto keyLoop = scf::ForOp::create(
            ib, c0, keyTiles, c1, ValueRange(),
            [&](OpBuilder &kb, Location kloc, Value kt, ValueRange) {
              ImplicitLocOpBuilder sb(kloc, kb);
              Value kBegin = arith::MulIOp::create(sb, kt, blockK);
              auto step = TileStepOp::create(
                  sb, query, key, value, seqIds, cuSeqlens, blockMask,
                  alibiSlopes, kvLens, pageTable, kvScales, cuSeqlensQ,
                  cuSeqlensK, rowMax, rowSum, acc,
                  ivs[0],
                  ivs[1], qBegin,
                  kBegin, op.getMaskAttr(), scale, op.getSoftcapAttr(),
                  op.getAlibiAttr(), sb.getI64IntegerAttr(sizes.blockQ),
                  sb.getI64IntegerAttr(sizes.blockK), UnitAttr());
              IRMapping map;
              op.getMaskFn().cloneInto(&step.getMaskFn(), map);
              op.getScoreFn().cloneInto(&step.getScoreFn(), map);
              scf::YieldOp::create(sb);
            });
        keyLoop->setAttr(kKeyTilesAttrName, ib.getUnitAttr());
        TileFinalizeOp::create(ib, rowMax, rowSum, acc, output, lse,
                               cuSeqlensQ, ivs[0],
                               ivs[1], qBegin);
        for (Value buffer : {rowMax, rowSum, acc})
          memref::DeallocOp::create(ib, buffer);
      });
  // A GPU kernel configuration travels with the query tiles it describes.
  if (Attribute kernel = op->getAttr(kGpuKernelAttrName))
    queryTiles->setAttr(kGpuKernelAttrName, kernel);

  if (outputStore)
    rewriter.eraseOp(outputStore);
  if (lseStore)
    rewriter.eraseOp(lseStore);
  SmallVector<Value> results;
  results.push_back(bufferization::ToTensorOp::create(
      b, op.getOutput().getType(), output, b.getUnitAttr(), b.getUnitAttr()));
  if (lse)
    results.push_back(bufferization::ToTensorOp::create(
        b, op.getLse().getType(), lse, b.getUnitAttr(), b.getUnitAttr()));
  rewriter.replaceOp(op, results);
  return success();
}

namespace {
struct AttnTilePass final : attnc::impl::AttnTileBase<AttnTilePass> {
  using AttnTileBase::AttnTileBase;

  void runOnOperation() override {
    if (blockQ <= 0 || blockK <= 0) {
      getOperation().emitError("expected positive tile sizes, got block-q = ")
          << static_cast<int64_t>(blockQ)
          << ", block-k = " << static_cast<int64_t>(blockK);
      return signalPassFailure();
    }
    SmallVector<AttentionOp> ops;
    getOperation().walk([&](AttentionOp op) { ops.push_back(op); });
    IRRewriter rewriter(&getContext());
    for (AttentionOp op : ops) {
      FailureOr<TileSizes> sizes = getTileSizes(op, TileSizes{blockQ, blockK});
      if (failed(sizes) || failed(tileAttention(rewriter, op, *sizes)))
        return signalPassFailure();
      ++numTiled;
    }
  }
};
} // namespace
