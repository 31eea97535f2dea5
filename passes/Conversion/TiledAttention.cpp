//===- TiledAttention.cpp - the tiled IR a GPU kernel is built from -------===//
//
// The analysis of the tiled form and the rematerialisation of its index
// computations into a kernel.
//
//===----------------------------------------------------------------------===//

#include "passes/Conversion/TiledAttention.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Transforms/RegionUtils.h"

#include <cmath>

using namespace mlir;
using namespace attnc;
using namespace attnc::attn;

/// What keeps the heads of a KV group out of one tile: the mask and score
/// code of a packed tile assume one head for all its rows.
static std::string packBlockerOf(bool alibi, bool blockMask, bool regions) {
  if (alibi)
    return "ALiBi slopes differ per query head";
  if (blockMask)
    return "a block mask may differ per query head";
  if (regions)
    return "a mask_fn or score_fn region may read the query head";
  return "";
}

/// What the target's choice reads of the mask: none, a window's width, or
/// key tiles tested at run time.
static void setMaskKind(KernelProblem &p, const mask::MaskSpec &spec) {
  p.noMask = spec.kind == mask::MaskKind::None;
  p.tileTested = spec.kind == mask::MaskKind::BlockSparse ||
                 spec.kind == mask::MaskKind::Custom;
  if (spec.kind == mask::MaskKind::SlidingWindow)
    p.windowKeys = spec.windowLeft + spec.windowRight + 1;
  if (spec.kind == mask::MaskKind::BlockSparse)
    p.maskBlockKeys = spec.blockK;
  p.intervalMask = spec.kind == mask::MaskKind::Causal ||
                   spec.kind == mask::MaskKind::PrefixLM;
  p.documentRanges = spec.kind == mask::MaskKind::Document &&
                     spec.documentSource == mask::DocumentSource::CuSeqlens;
  p.causalDocuments = p.documentRanges && spec.documentCausal;
}

/// Whether soft-capped scores s = cap tanh(.) (in log2 units within
/// +-cap log2(e)) can take cap log2(e) as the softmax's reference: every
/// weight 2^(s - cap log2(e)) then lies in [2^-100, 1], where bf16 keeps its
/// relative precision and a weight times a value flushes to 0 only below
/// 2^-126 (a value below 2^-26). True for 2 cap log2(e) <= 100, i.e. caps
/// up to 34.65.
static bool softcapBoundsWeights(double cap) {
  return cap > 0 && 2 * cap * M_LOG2E <= 100;
}

/// KernelProblem::cappedReference: a soft-cap with nothing after it, and
/// bf16 weights (an fp8 cache under bf16 queries takes f16 ones, whose
/// range is too narrow).
static bool cappedReferenceOf(FloatAttr softcap, bool laterBias,
                              Type elementType, bool kvFp8) {
  return softcap && !laterBias && elementType.isBF16() && !kvFp8 &&
         softcapBoundsWeights(softcap.getValueAsDouble());
}

/// What the target's choice reads of the scores (after setMaskKind and
/// kvFp8): a bias (ALiBi, a score_fn region) takes the interval form away;
/// then a causal mask is plain or soft-capped, and a soft-cap may take the
/// capped reference.
static void setScoreKind(KernelProblem &p, const mask::MaskSpec &spec,
                         FloatAttr softcap, bool biased) {
  if (biased)
    p.intervalMask = false;
  bool causal = p.intervalMask && spec.kind == mask::MaskKind::Causal;
  p.plainCausal = causal && !softcap;
  p.cappedCausal = causal && softcap;
  p.cappedReference =
      cappedReferenceOf(softcap, biased, p.elementType, p.kvFp8);
}

KernelProblem KernelProblem::of(AttentionOp op) {
  KernelProblem p;
  p.op = op;
  p.elementType = op.getQuery().getType().getElementType();
  p.headDim = op.getHeadDim();
  p.valueHeadDim = op.getValueHeadDim();
  p.numQueryHeads = op.getNumQueryHeads();
  p.numKvHeads = op.getNumKeyValueHeads();
  p.seqQ = op.getQuery().getType().getDimSize(2);
  p.decode = op->hasAttr(kDecodeAttrName);
  setMaskKind(p, op.getMaskSpec());
  p.kvLens = static_cast<bool>(op.getKvLens());
  p.pageSize = op.getPageTable() ? op.getPageSize() : 0;
  p.kvFp8 = static_cast<bool>(op.getKvScales());
  p.ragged = static_cast<bool>(op.getCuSeqlensQ());
  p.raggedKeys = static_cast<bool>(op.getCuSeqlensK());
  setScoreKind(p, op.getMaskSpec(), op.getSoftcapAttr(),
               op.getAlibiSlopes() || op.getAlibi() || op.hasScoreFn());
  p.packBlocker = packBlockerOf(op.getAlibiSlopes() || op.getAlibi(),
                                static_cast<bool>(op.getBlockMask()),
                                op.hasMaskFn() || op.hasScoreFn());
  return p;
}

KernelProblem KernelProblem::of(TileStepOp step) {
  auto q = cast<MemRefType>(step.getQuery().getType());
  auto k = cast<MemRefType>(step.getKey().getType());
  auto v = cast<MemRefType>(step.getValue().getType());
  KernelProblem p;
  p.op = step;
  p.elementType = q.getElementType();
  p.headDim = q.getDimSize(3);
  p.valueHeadDim = v.getDimSize(3);
  p.numQueryHeads = q.getDimSize(1);
  // Pages [num_pages, page_size, Hkv, D], or [B, Hkv, Sk, D].
  p.pageSize = step.getPageTable() ? k.getDimSize(1) : 0;
  p.numKvHeads = k.getDimSize(p.pageSize ? 2 : 1);
  p.seqQ = q.getDimSize(2);
  setMaskKind(p, step.getMaskSpec());
  p.kvLens = static_cast<bool>(step.getKvLens());
  p.kvFp8 = static_cast<bool>(step.getKvScales());
  p.ragged = static_cast<bool>(step.getCuSeqlensQ());
  p.raggedKeys = static_cast<bool>(step.getCuSeqlensK());
  setScoreKind(p, step.getMaskSpec(), step.getSoftcapAttr(),
               step.getAlibiSlopes() || step.getAlibi() || step.hasScoreFn());
  p.packBlocker = packBlockerOf(step.getAlibiSlopes() || step.getAlibi(),
                                static_cast<bool>(step.getBlockMask()),
                                step.hasMaskFn() || step.hasScoreFn());
  return p;
}

/// The nearest scf.for around `op` below `limit`.
static scf::ForOp keyLoopOf(Operation *op, Operation *limit) {
  for (Operation *p = op->getParentOp(); p && p != limit; p = p->getParentOp())
    if (auto loop = dyn_cast<scf::ForOp>(p))
      return loop;
  return {};
}

FailureOr<TiledAttention> attnc::analyzeTiledAttention(
    scf::ParallelOp queryTiles) {
  TiledAttention t;
  t.queryTiles = queryTiles;
  t.config = queryTiles->getAttrOfType<GpuKernelAttr>(kGpuKernelAttrName);
  if (!t.config)
    return queryTiles.emitError("expected ")
           << kGpuKernelAttrName << " on the query-tile loop";
  if (queryTiles.getNumLoops() != 3)
    return queryTiles.emitError(
               "expected the query-tile loop over (batch, head, query tile), "
               "got ")
           << queryTiles.getNumLoops() << " dimensions";
  SmallVector<TileStepOp> steps;
  SmallVector<TileFinalizeOp> finalizes;
  queryTiles.walk([&](TileStepOp s) { steps.push_back(s); });
  queryTiles.walk([&](TileFinalizeOp f) { finalizes.push_back(f); });
  if (steps.empty() || finalizes.size() != 1)
    return queryTiles.emitError("expected attn.tile_step ops and one "
                                "attn.tile_finalize in the query-tile loop");
  t.step = steps.front();
  t.finalize = finalizes.front();
  // A packed tile (gqa_pack = g) holds block_q / g query positions.
  if (static_cast<int64_t>(t.step.getBlockQ()) !=
          t.config.getBlockQ() / t.config.getGqaPack() ||
      static_cast<int64_t>(t.step.getBlockK()) != t.config.getBlockK())
    return t.step.emitError("expected the tiles (block_q = ")
           << t.step.getBlockQ() << ", block_k = " << t.step.getBlockK()
           << ") to match the kernel's " << t.config;

  // The key-tile loops, in program order.
  SmallVector<scf::ForOp> loops;
  for (TileStepOp s : steps) {
    scf::ForOp loop = keyLoopOf(s, queryTiles);
    if (!loop)
      return s.emitError("expected the tile step inside a key-tile loop");
    if (!llvm::is_contained(loops, loop))
      loops.push_back(loop);
  }
  if (loops.size() == 3) {
    llvm::sort(loops, [](scf::ForOp x, scf::ForOp y) {
      return x->isBeforeInBlock(y);
    });
    bool unmasked[3];
    for (int i = 0; i < 3; ++i) {
      t.loops[i] = loops[i];
      TileStepOp s;
      loops[i].walk([&](TileStepOp found) { s = found; });
      unmasked[i] = s.getUnmasked();
    }
    if (unmasked[0] || !unmasked[1] || unmasked[2])
      return queryTiles.emitError(
          "expected split key loops: boundary, unmasked, boundary");
    t.keyLoop = TiledAttention::KeyLoop::Split;
    return t;
  }
  if (loops.size() != 1)
    return queryTiles.emitError("expected one or three key-tile loops, got ")
           << loops.size();
  t.loops[0] = loops.front();
  auto full = dyn_cast<scf::IfOp>(t.step->getParentOp());
  auto any = full ? dyn_cast<scf::IfOp>(full->getParentOp()) : scf::IfOp();
  if (full && any && steps.size() == 2) {
    t.anyTile = any;
    t.fullTile = full;
    if (auto kind = any->getAttrOfType<StringAttr>(kTileTestAttrName))
      t.tileTest = kind.str();
    t.keyLoop = TiledAttention::KeyLoop::TileTest;
    return t;
  }
  if (steps.size() != 1)
    return queryTiles.emitError("expected one tile step in an unsplit "
                                "key-tile loop");
  t.keyLoop = TiledAttention::KeyLoop::Elementwise;
  return t;
}

void Rematerializer::rewriteOperandAccesses(Operation *op) {
  SmallVector<Operation *> accesses;
  op->walk([&](Operation *inner) {
    if (auto dim = dyn_cast<memref::DimOp>(inner); dim && isOperand(dim.getSource()))
      accesses.push_back(inner);
    if (auto load = dyn_cast<memref::LoadOp>(inner);
        load && isOperand(load.getMemRef()))
      accesses.push_back(inner);
  });
  for (Operation *access : accesses) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(access);
    Value replacement;
    if (auto dim = dyn_cast<memref::DimOp>(access)) {
      std::optional<int64_t> index = dim.getConstantIndex();
      replacement = dimOf(dim.getSource(), index ? *index : -1);
    } else {
      auto load = cast<memref::LoadOp>(access);
      replacement = loadOf(b, load.getMemRef(), load.getIndices());
    }
    access->getResult(0).replaceAllUsesWith(replacement);
    access->erase();
  }
}

FailureOr<Value> Rematerializer::get(Value v, IRMapping &map) {
  if (Value mapped = map.lookupOrNull(v))
    return mapped;
  if (isa<MemRefType>(v.getType()))
    return emitError(v.getLoc(), "expected an index computation, got a "
                                 "memref use the kernel cannot make");
  Operation *def = v.getDefiningOp();
  if (!def)
    return emitError(v.getLoc(), "expected a value the kernel can compute, "
                                 "got an unmapped block argument");
  if (auto dim = dyn_cast<memref::DimOp>(def); dim && isOperand(dim.getSource())) {
    std::optional<int64_t> index = dim.getConstantIndex();
    if (!index)
      return def->emitError("expected a constant dimension index");
    Value r = dimOf(dim.getSource(), *index);
    map.map(v, r);
    return r;
  }
  if (auto load = dyn_cast<memref::LoadOp>(def);
      load && isOperand(load.getMemRef())) {
    SmallVector<Value> indices;
    for (Value i : load.getIndices()) {
      FailureOr<Value> r = get(i, map);
      if (failed(r))
        return failure();
      indices.push_back(*r);
    }
    Value r = loadOf(b, load.getMemRef(), indices);
    map.map(v, r);
    return r;
  }
  // Operands, and for region ops the values their regions use.
  SetVector<Value> needed(def->operand_begin(), def->operand_end());
  if (def->getNumRegions())
    getUsedValuesDefinedAbove(def->getRegions(), needed);
  for (Value n : needed) {
    if (isOperand(n))
      continue;
    if (failed(get(n, map)))
      return failure();
  }
  Operation *clone = b.clone(*def, map);
  if (clone->getNumRegions())
    rewriteOperandAccesses(clone);
  return map.lookup(v);
}
