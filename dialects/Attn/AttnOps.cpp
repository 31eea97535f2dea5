//===- AttnOps.cpp - attn dialect operations ------------------------------===//
//
// Verification and helpers of attn.attention.
//
//===----------------------------------------------------------------------===//

#include "dialects/Attn/AttnDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/STLExtras.h"

#include <cmath>

using namespace mlir;
using namespace attnc::attn;
using attnc::mask::MaskKind;
using attnc::mask::MaskSpec;

#define GET_OP_CLASSES
#include "dialects/Attn/AttnOps.cpp.inc"

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

static int64_t dimOf(Value v, unsigned i) {
  return cast<RankedTensorType>(v.getType()).getDimSize(i);
}

int64_t AttentionOp::getBatchSize() { return dimOf(getQuery(), 0); }
int64_t AttentionOp::getNumQueryHeads() { return dimOf(getQuery(), 1); }
int64_t AttentionOp::getNumKeyValueHeads() {
  return dimOf(getKey(), isPaged() ? 2 : 1);
}
int64_t AttentionOp::getPageSize() {
  return isPaged() ? dimOf(getKey(), 1) : 0;
}
int64_t AttentionOp::getNumSequences() {
  if (!isRagged())
    return getBatchSize();
  int64_t n = dimOf(getCuSeqlensQ(), 0);
  return ShapedType::isDynamic(n) ? n : n - 1;
}
int64_t AttentionOp::getQuerySeqLen() { return dimOf(getQuery(), 2); }
int64_t AttentionOp::getKeySeqLen() {
  if (!isPaged())
    return dimOf(getKey(), 2);
  int64_t pages = dimOf(getPageTable(), 1), size = getPageSize();
  return ShapedType::isDynamic(pages) || ShapedType::isDynamic(size)
             ? ShapedType::kDynamic
             : pages * size;
}
int64_t AttentionOp::getHeadDim() { return dimOf(getQuery(), 3); }
int64_t AttentionOp::getValueHeadDim() { return dimOf(getValue(), 3); }

/// The mask of an op with an optional mask attribute and a mask_fn region.
template <typename OpT> static MaskSpec maskSpecOf(OpT op) {
  if (op.hasMaskFn()) {
    MaskSpec spec;
    spec.kind = MaskKind::Custom;
    return spec;
  }
  if (auto mask = op.getMaskAttr())
    return mask.getMaskSpec();
  return MaskSpec::none();
}

MaskSpec AttentionOp::getMaskSpec() { return maskSpecOf(*this); }

MaskSpec TileStepOp::getMaskSpec() { return maskSpecOf(*this); }

double AttentionOp::getEffectiveScale() {
  if (auto scale = getScaleAttr())
    return scale.getValueAsDouble();
  return 1.0 / std::sqrt(static_cast<double>(getHeadDim()));
}

/// Prints a dimension as the IR spells it.
static std::string dimStr(int64_t d) {
  return ShapedType::isDynamic(d) ? "?" : std::to_string(d);
}

/// True when both sizes are static and differ.
static bool staticMismatch(int64_t a, int64_t b) {
  return !ShapedType::isDynamic(a) && !ShapedType::isDynamic(b) && a != b;
}

template <typename T> static std::string typeStr(T t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << t;
  return s;
}
static std::string attrStr(Attribute a) { return typeStr(a); }

//===----------------------------------------------------------------------===//
// Verifier
//===----------------------------------------------------------------------===//

/// Checks that an input has rank 4 and a supported element type.
/// Checks the rank and element type of query, key or value; `cache` for key
/// and value, which may be fp8 e4m3 with kv_scales (their type against the
/// query's is checked by the caller).
static LogicalResult verifyInput(AttentionOp op, StringRef name, Value v,
                                 StringRef layout, bool cache = true) {
  auto type = cast<RankedTensorType>(v.getType());
  if (type.getRank() != 4)
    return op.emitOpError("expected ") << name << " to have rank 4 (" << layout
                                       << "), got rank " << type.getRank();
  Type elt = type.getElementType();
  if (isa<Float8E4M3FNType>(elt)) {
    if (!cache)
      return op.emitOpError("expected ")
             << name << " element type bf16, f16 or f32: fp8 e4m3 (" << elt
             << ") is not yet supported";
    if (!op.getKvScales())
      return op.emitOpError("expected ")
             << name << " element type bf16, f16 or f32, or fp8 e4m3 (" << elt
             << ") with a kv_scales operand";
    return success();
  }
  if (!isa<BFloat16Type, Float16Type, Float32Type>(elt))
    return op.emitOpError("expected ")
           << name << " element type bf16, f16 or f32, got " << elt;
  return success();
}

/// Checks one dimension against the value it must have.
static LogicalResult verifyDim(AttentionOp op, StringRef what, int64_t got,
                               StringRef refWhat, int64_t expected) {
  if (staticMismatch(got, expected))
    return op.emitOpError("expected ")
           << what << " " << got << " to match " << refWhat << " " << expected;
  return success();
}

/// Checks that a dimension that picks the kernel (head count, head dim) is
/// static and positive.
static LogicalResult verifyKernelDim(AttentionOp op, StringRef what, Value v,
                                     unsigned dim) {
  int64_t size = dimOf(v, dim);
  if (ShapedType::isDynamic(size))
    return op.emitOpError("expected ")
           << what << " (dim " << dim << ") to be static";
  if (size <= 0)
    return op.emitOpError("expected ")
           << what << " (dim " << dim << ") to be positive, got " << size;
  return success();
}

/// Checks an optional 1-D / 2-D side operand: rank and element type.
static LogicalResult verifySideOperand(AttentionOp op, StringRef name, Value v,
                                       int64_t rank, Type eltType,
                                       StringRef layout) {
  auto type = cast<RankedTensorType>(v.getType());
  if (type.getRank() != rank)
    return op.emitOpError("expected ")
           << name << " to have rank " << rank << " (" << layout
           << "), got rank " << type.getRank();
  if (type.getElementType() != eltType)
    return op.emitOpError("expected ") << name << " element type " << eltType
                                       << ", got " << type.getElementType();
  return success();
}

/// Checks an offsets operand (cu_seqlens, cu_seqlens_q): i32 [N + 1] with
/// at least 2 offsets when static (one `part`: a document, a sequence).
static LogicalResult verifyOffsets(AttentionOp op, StringRef name, Value v,
                                   StringRef part) {
  Type i32 = IntegerType::get(op.getContext(), 32);
  if (failed(verifySideOperand(op, name, v, 1, i32, "[N + 1]")))
    return failure();
  int64_t n = dimOf(v, 0);
  if (!ShapedType::isDynamic(n) && n < 2)
    return op.emitOpError("expected ")
           << name << " to hold at least 2 offsets (one " << part << "), got "
           << n;
  return success();
}

/// Checks that the mask operands are exactly those the mask reads.
static LogicalResult verifyMaskOperands(AttentionOp op) {
  StringRef needed;
  std::string maskStr = "none";
  if (auto mask = op.getMaskAttr()) {
    needed = mask.getOperandName();
    maskStr = attrStr(mask);
  } else if (op.hasMaskFn()) {
    maskStr = "mask_fn";
  }
  struct Slot {
    StringRef name;
    Value value;
  } slots[] = {{"seq_ids", op.getSeqIds()},
               {"cu_seqlens", op.getCuSeqlens()},
               {"block_mask", op.getBlockMask()}};
  for (const Slot &slot : slots) {
    if (slot.name == needed && !slot.value)
      return op.emitOpError("expected a ")
             << slot.name << " operand for mask " << maskStr;
    if (slot.name != needed && slot.value)
      return op.emitOpError("expected no ") << slot.name << " operand: mask "
                                            << maskStr << " does not read it";
  }

  MLIRContext *ctx = op.getContext();
  Type i32 = IntegerType::get(ctx, 32);
  if (Value ids = op.getSeqIds()) {
    if (failed(verifySideOperand(op, "seq_ids", ids, 2, i32, "[B, Sk]")) ||
        failed(verifyDim(op, "seq_ids batch", dimOf(ids, 0), "query batch",
                         op.getBatchSize())) ||
        failed(verifyDim(op, "seq_ids length", dimOf(ids, 1),
                         "key sequence length", op.getKeySeqLen())))
      return failure();
  }
  if (Value cu = op.getCuSeqlens())
    if (failed(verifyOffsets(op, "cu_seqlens", cu, "document")))
      return failure();
  if (Value bm = op.getBlockMask()) {
    if (failed(verifySideOperand(op, "block_mask", bm, 4,
                                 IntegerType::get(ctx, 8),
                                 "[B or 1, Hq or 1, Sq blocks, Sk blocks]")))
      return failure();
    auto sparse = cast<BlockSparseMaskAttr>(op.getMaskAttr());
    int64_t b = dimOf(bm, 0), h = dimOf(bm, 1);
    // A grid per batch entry, or in a ragged batch per sequence (read at
    // its own positions, over the packed lengths).
    if (b != 1 && staticMismatch(b, op.getNumSequences()))
      return op.emitOpError("expected block_mask batch ")
             << b << " to be 1 or match "
             << (op.isRagged() ? "the sequence count " : "query batch ")
             << op.getNumSequences();
    if (b != 1 && staticMismatch(h, op.getNumQueryHeads()) && h != 1)
      return op.emitOpError("expected block_mask head count ")
             << h << " to be 1 or match query head count "
             << op.getNumQueryHeads();
    if (b == 1 && h != 1 && staticMismatch(h, op.getNumQueryHeads()))
      return op.emitOpError("expected block_mask head count ")
             << h << " to be 1 or match query head count "
             << op.getNumQueryHeads();
    auto ceilDiv = [](int64_t a, int64_t d) {
      return ShapedType::isDynamic(a) ? a : (a + d - 1) / d;
    };
    if (failed(verifyDim(op, "block_mask query blocks", dimOf(bm, 2),
                         "ceil(Sq / block_q) =",
                         ceilDiv(op.getQuerySeqLen(), sparse.getBlockQ()))) ||
        failed(verifyDim(op, "block_mask key blocks", dimOf(bm, 3),
                         "ceil(Sk / block_k) =",
                         ceilDiv(op.getKeySeqLen(), sparse.getBlockK()))))
      return failure();
  }
  return success();
}

/// Checks the operands of a ragged batch (cu_seqlens_q, cu_seqlens_k).
static LogicalResult verifyRaggedOperands(AttentionOp op) {
  Value cuQ = op.getCuSeqlensQ(), cuK = op.getCuSeqlensK();
  if (cuK && !cuQ)
    return op.emitOpError("expected cu_seqlens_q with cu_seqlens_k (a ragged "
                          "batch packs its queries too)");
  if (!cuQ)
    return success();
  if (failed(verifyOffsets(op, "cu_seqlens_q", cuQ, "sequence")))
    return failure();
  Type i32 = IntegerType::get(op.getContext(), 32);
  int64_t n = dimOf(cuQ, 0);
  if (staticMismatch(op.getBatchSize(), 1))
    return op.emitOpError("expected query batch 1 with cu_seqlens_q (the "
                          "sequences are packed along Sq), got ")
           << op.getBatchSize();
  if (cuK && op.getKvLens())
    return op.emitOpError("expected either cu_seqlens_k (packed keys) or "
                          "kv_lens (a cache), not both");
  if (!cuK && !op.getKvLens())
    return op.emitOpError("expected cu_seqlens_k (packed keys) or kv_lens (a "
                          "cache) with cu_seqlens_q: where each sequence's "
                          "keys are");
  if (cuK && (failed(verifySideOperand(op, "cu_seqlens_k", cuK, 1, i32,
                                       "[N + 1]")) ||
              failed(verifyDim(op, "cu_seqlens_k length", dimOf(cuK, 0),
                               "cu_seqlens_q length", n))))
    return failure();
  MaskKind kind = op.getMaskSpec().kind;
  if (kind == MaskKind::Document)
    return op.emitOpError("expected no document mask with cu_seqlens_q (the "
                          "sequences of a ragged batch are already apart)");
  return success();
}

LogicalResult AttentionOp::verify() {
  bool paged = isPaged();
  if (failed(verifyInput(*this, "query", getQuery(), "[B, Hq, Sq, D]",
                         /*cache=*/false)) ||
      failed(verifyInput(*this, "key", getKey(),
                         paged ? "[num_pages, page_size, Hkv, D]"
                               : "[B, Hkv, Sk, D]")) ||
      failed(verifyInput(*this, "value", getValue(),
                         paged ? "[num_pages, page_size, Hkv, Dv]"
                               : "[B, Hkv, Sk, Dv]")))
    return failure();
  if (failed(verifyRaggedOperands(*this)))
    return failure();

  Type qElt = getQuery().getType().getElementType();
  // fp8 keys and values (with kv_scales), or the query's element type.
  Type kvElt = qElt;
  if (Value scales = getKvScales()) {
    kvElt = Float8E4M3FNType::get(getContext());
    if (failed(verifySideOperand(*this, "kv_scales", scales, 2,
                                 Float32Type::get(getContext()),
                                 "[2, Hkv]")) ||
        failed(verifyDim(*this, "kv_scales rows", dimOf(scales, 0),
                         "the key and value rows", 2)))
      return failure();
  }
  for (auto [name, v] : {std::pair<StringRef, Value>{"key", getKey()},
                         std::pair<StringRef, Value>{"value", getValue()}}) {
    Type elt = cast<RankedTensorType>(v.getType()).getElementType();
    if (elt != kvElt && !getKvScales())
      return emitOpError("expected ")
             << name << " element type " << elt
             << " to match query element type " << qElt;
    if (elt != kvElt)
      return emitOpError("expected ")
             << name << " element type " << elt << " to be " << kvElt
             << " (kv_scales makes the cache fp8 e4m3)";
  }

  // Head counts and head dims are static and positive: they pick the kernel.
  // Pages are [num_pages, page_size, Hkv, D] with a static page size.
  unsigned headDim = paged ? 2 : 1;
  if (failed(verifyKernelDim(*this, "query head count", getQuery(), 1)) ||
      failed(verifyKernelDim(*this, "key head count", getKey(), headDim)) ||
      failed(verifyKernelDim(*this, "query head dim", getQuery(), 3)) ||
      failed(verifyKernelDim(*this, "key head dim", getKey(), 3)) ||
      failed(verifyKernelDim(*this, "value head count", getValue(), headDim)) ||
      failed(verifyKernelDim(*this, "value head dim", getValue(), 3)))
    return failure();

  int64_t hq = getNumQueryHeads(), hkv = getNumKeyValueHeads();
  if (Value scales = getKvScales())
    if (failed(verifyDim(*this, "kv_scales head count", dimOf(scales, 1),
                         "key head count", hkv)))
      return failure();
  if (failed(verifyDim(*this, "key head dim", dimOf(getKey(), 3),
                       "query head dim", getHeadDim())) ||
      failed(verifyDim(*this, "value head count", dimOf(getValue(), headDim),
                       "key head count", hkv)))
    return failure();
  // Keys of a ragged batch: packed like the queries (cu_seqlens_k, batch
  // 1) or a cache of one entry per sequence; otherwise one per batch entry.
  int64_t keyBatch = getCuSeqlensK() ? 1 : getNumSequences();
  StringRef keyBatchWhat = !isRagged()       ? "query batch"
                           : getCuSeqlensK() ? "the packed keys' batch"
                                             : "sequence count";
  if (!paged &&
      (failed(verifyDim(*this, "key batch", dimOf(getKey(), 0), keyBatchWhat,
                        keyBatch)) ||
       failed(verifyDim(*this, "value batch", dimOf(getValue(), 0),
                        keyBatchWhat, keyBatch)) ||
       failed(verifyDim(*this, "value sequence length", dimOf(getValue(), 2),
                        "key sequence length", getKeySeqLen()))))
    return failure();
  if (paged) {
    if (failed(verifyKernelDim(*this, "key page size", getKey(), 1)) ||
        failed(verifyDim(*this, "value page size", dimOf(getValue(), 1),
                         "key page size", getPageSize())) ||
        failed(verifyDim(*this, "value page count", dimOf(getValue(), 0),
                         "key page count", dimOf(getKey(), 0))) ||
        failed(verifySideOperand(*this, "page_table", getPageTable(), 2,
                                 IntegerType::get(getContext(), 32),
                                 "[B, max_pages]")) ||
        failed(verifyDim(*this, "page_table batch",
                         dimOf(getPageTable(), 0),
                         isRagged() ? "sequence count" : "query batch",
                         getNumSequences())))
      return failure();
    if (!getKvLens())
      return emitOpError("expected a kv_lens operand with page_table (the "
                         "key count of every sequence)");
  }
  if (hq % hkv != 0)
    return emitOpError("expected query head count ")
           << hq << " to be a multiple of key head count " << hkv;

  // Output [B, Hq, Sq, Dv] in the input element type.
  auto outType = getOutput().getType();
  if (outType.getRank() != 4)
    return emitOpError("expected output to have rank 4 ([B, Hq, Sq, Dv]), "
                       "got rank ")
           << outType.getRank();
  if (outType.getElementType() != qElt)
    return emitOpError("expected output element type ")
           << outType.getElementType() << " to match query element type "
           << qElt;
  if (failed(verifyKernelDim(*this, "output head count", getOutput(), 1)) ||
      failed(verifyKernelDim(*this, "output head dim", getOutput(), 3)))
    return failure();
  if (failed(verifyDim(*this, "output batch", outType.getDimSize(0),
                       "query batch", getBatchSize())) ||
      failed(verifyDim(*this, "output head count", outType.getDimSize(1),
                       "query head count", hq)) ||
      failed(verifyDim(*this, "output sequence length", outType.getDimSize(2),
                       "query sequence length", getQuerySeqLen())) ||
      failed(verifyDim(*this, "output head dim", outType.getDimSize(3),
                       "value head dim", getValueHeadDim())))
    return failure();

  // LSE [B, Hq, Sq] f32.
  if (Value lse = getLse()) {
    auto lseType = cast<RankedTensorType>(lse.getType());
    if (lseType.getRank() != 3)
      return emitOpError("expected lse to have rank 3 ([B, Hq, Sq]), got rank ")
             << lseType.getRank();
    if (!lseType.getElementType().isF32())
      return emitOpError("expected lse element type f32, got ")
             << lseType.getElementType();
    if (failed(verifyKernelDim(*this, "lse head count", lse, 1)))
      return failure();
    if (failed(verifyDim(*this, "lse batch", lseType.getDimSize(0),
                         "query batch", getBatchSize())) ||
        failed(verifyDim(*this, "lse head count", lseType.getDimSize(1),
                         "query head count", hq)) ||
        failed(verifyDim(*this, "lse sequence length", lseType.getDimSize(2),
                         "query sequence length", getQuerySeqLen())))
      return failure();
  }

  // Scale and score modifications.
  if (auto scale = getScaleAttr()) {
    double s = scale.getValueAsDouble();
    if (!std::isfinite(s) || s <= 0)
      return emitOpError("expected scale to be finite and positive, got ") << s;
  }
  if (auto cap = getSoftcapAttr()) {
    double c = cap.getValueAsDouble();
    if (!std::isfinite(c) || c <= 0)
      return emitOpError("expected softcap to be finite and positive, got ")
             << c;
  }
  if (getAlibi() && getAlibiSlopes())
    return emitOpError("expected at most one of the alibi attribute and the "
                       "alibi_slopes operand");
  if (auto slopes = getAlibiAttr()) {
    if (slopes.size() != hq)
      return emitOpError("expected alibi to hold one slope per query head (")
             << hq << "), got " << slopes.size();
  }
  if (Value slopes = getAlibiSlopes()) {
    if (failed(verifySideOperand(*this, "alibi_slopes", slopes, 1,
                                 Float32Type::get(getContext()), "[Hq]")) ||
        failed(verifyDim(*this, "alibi_slopes length", dimOf(slopes, 0),
                         "query head count", hq)))
      return failure();
  }

  if (Value lens = getKvLens()) {
    if (failed(verifySideOperand(*this, "kv_lens", lens, 1,
                                 IntegerType::get(getContext(), 32), "[B]")) ||
        failed(verifyDim(*this, "kv_lens length", dimOf(lens, 0),
                         isRagged() ? "sequence count" : "query batch",
                         getNumSequences())))
      return failure();
    if (getMaskSpec().kind == mask::MaskKind::Document)
      return emitOpError("expected no kv_lens with a document mask (its "
                         "sequences come from seq_ids or cu_seqlens)");
  }

  if (getMaskAttr() && hasMaskFn())
    return emitOpError("expected either a mask attribute or a mask_fn "
                       "region, not both");
  return verifyMaskOperands(*this);
}

/// Checks that `region` is one block with the given argument types whose
/// terminator yields exactly one value of type `result`.
static LogicalResult verifyFnRegion(OpState op, StringRef name,
                                    Region &region, TypeRange argTypes,
                                    StringRef argNames, Type result) {
  if (region.empty())
    return success();
  if (!region.hasOneBlock())
    return op.emitOpError("expected ") << name << " to have one block";
  Block &block = region.front();
  if (block.getArgumentTypes() != argTypes) {
    std::string got;
    llvm::raw_string_ostream os(got);
    llvm::interleaveComma(block.getArgumentTypes(), os);
    return op.emitOpError("expected ")
           << name << " arguments " << argNames << ", got (" << got << ")";
  }
  auto yield = dyn_cast<YieldOp>(block.getTerminator());
  if (!yield)
    return op.emitOpError("expected ") << name << " to end with attn.yield";
  if (yield.getValues().size() != 1 ||
      yield.getValues().front().getType() != result)
    return op.emitOpError("expected ")
           << name << " to yield one " << result << ", got "
           << yield.getValues().size() << " value(s)"
           << (yield.getValues().empty()
                   ? std::string()
                   : " of type " +
                         typeStr(yield.getValues().front().getType()));
  return success();
}

/// The mask_fn and score_fn regions of `op` (attn.attention or
/// attn.tile_step): one block each, index (and f32) arguments, one yielded
/// i1 (f32).
static LogicalResult verifyFnRegions(OpState op, Region &maskFn,
                                     Region &scoreFn) {
  Builder b(op->getContext());
  Type index = b.getIndexType();
  SmallVector<Type> maskArgs(4, index);
  SmallVector<Type> scoreArgs = {b.getF32Type(), index, index, index, index};
  if (failed(verifyFnRegion(op, "mask_fn", maskFn, maskArgs,
                            "(b: index, h: index, q: index, k: index)",
                            b.getI1Type())) ||
      failed(verifyFnRegion(op, "score_fn", scoreFn, scoreArgs,
                            "(s: f32, b: index, h: index, q: index, k: index)",
                            b.getF32Type())))
    return failure();
  return success();
}

LogicalResult TileStepOp::verifyRegions() {
  return verifyFnRegions(*this, getMaskFn(), getScoreFn());
}

LogicalResult AttentionOp::verifyRegions() {
  Builder b(getContext());
  Type index = b.getIndexType();
  SmallVector<Type> maskArgs(4, index);
  SmallVector<Type> scoreArgs = {b.getF32Type(), index, index, index, index};
  if (failed(verifyFnRegion(*this, "mask_fn", getMaskFn(), maskArgs,
                            "(b: index, h: index, q: index, k: index)",
                            b.getI1Type())) ||
      failed(verifyFnRegion(*this, "score_fn", getScoreFn(), scoreArgs,
                            "(s: f32, b: index, h: index, q: index, k: index)",
                            b.getF32Type())))
    return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// Tiled level
//===----------------------------------------------------------------------===//

/// Checks the online-softmax state of a tile of `blockQ` rows: row max and
/// row sum memref<blockQ x f32>, accumulator memref<blockQ x valueDim x f32>.
static LogicalResult verifyTileState(Operation *op, Value rowMax, Value acc,
                                     int64_t blockQ, int64_t valueDim) {
  auto rowType = cast<MemRefType>(rowMax.getType());
  auto accType = cast<MemRefType>(acc.getType());
  Type f32 = Float32Type::get(op->getContext());
  if (rowType.getRank() != 1 || rowType.getDimSize(0) != blockQ ||
      rowType.getElementType() != f32)
    return op->emitOpError("expected row_max and row_sum of type memref<")
           << blockQ << "xf32>, got " << rowType;
  if (accType.getRank() != 2 || accType.getDimSize(0) != blockQ ||
      accType.getDimSize(1) != valueDim || accType.getElementType() != f32)
    return op->emitOpError("expected acc of type memref<")
           << blockQ << "x" << valueDim << "xf32>, got " << accType;
  return success();
}

LogicalResult TileStepOp::verify() {
  auto q = cast<MemRefType>(getQuery().getType());
  auto k = cast<MemRefType>(getKey().getType());
  auto v = cast<MemRefType>(getValue().getType());
  // Paged key/value: [num_pages, page_size, Hkv, D], page size static.
  unsigned kvHeadDim = isPaged() ? 2 : 1;
  for (auto [name, type, headsAt] :
       {std::tuple<StringRef, MemRefType, unsigned>{"query", q, 1},
        {"key", k, kvHeadDim},
        {"value", v, kvHeadDim}})
    if (type.getRank() != 4 || type.isDynamicDim(headsAt) ||
        type.isDynamicDim(3) || (headsAt == 2 && type.isDynamicDim(1)))
      return emitOpError("expected ")
             << name << " of rank 4 with static head count and head dim, got "
             << type;
  if (isPaged() && !getKvLens())
    return emitOpError("expected kv_lens with page_table");
  if (getCuSeqlensK() && !getCuSeqlensQ())
    return emitOpError("expected cu_seqlens_q with cu_seqlens_k");
  if (getCuSeqlensQ() && !getCuSeqlensK() == !getKvLens())
    return emitOpError("expected one of cu_seqlens_k and kv_lens with "
                       "cu_seqlens_q");
  // Keys and values: the query's element type, or fp8 e4m3 with kv_scales.
  Type kvElt = getKvScales() ? Type(Float8E4M3FNType::get(getContext()))
                             : q.getElementType();
  if (k.getElementType() != kvElt || v.getElementType() != kvElt)
    return emitOpError("expected query, key and value of one element type "
                       "(keys and values fp8 e4m3 with kv_scales)");
  Type elt = q.getElementType();
  if (!elt.isBF16() && !elt.isF16() && !elt.isF32())
    return emitOpError("expected query element type bf16, f16 or f32, got ")
           << elt;
  int64_t kvHeads = k.getDimSize(kvHeadDim);
  if (k.getDimSize(3) != q.getDimSize(3) || kvHeads <= 0 ||
      q.getDimSize(1) % kvHeads != 0 || v.getDimSize(kvHeadDim) != kvHeads)
    return emitOpError("expected key head dim ")
           << k.getDimSize(3) << " to match query head dim "
           << q.getDimSize(3) << " and query heads " << q.getDimSize(1)
           << " to be a multiple of key/value heads " << kvHeads;
  // The attributes are signless: read them signed, so that a negative size
  // is not taken for a huge one.
  int64_t blockQ = getBlockQAttr().getInt(), blockK = getBlockKAttr().getInt();
  if (blockQ <= 0 || blockK <= 0 || blockQ > kMaxTileSize ||
      blockK > kMaxTileSize)
    return emitOpError("expected block sizes in [1, ")
           << kMaxTileSize << "], got block_q = " << blockQ
           << ", block_k = " << blockK;
  if (getMaskAttr() && hasMaskFn())
    return emitOpError("expected either a mask attribute or a mask_fn "
                       "region, not both");
  StringRef needed = getMaskAttr() ? getMaskAttr().getOperandName() : "";
  for (auto [name, value] :
       {std::pair<StringRef, Value>{"seq_ids", getSeqIds()},
        {"cu_seqlens", getCuSeqlens()},
        {"block_mask", getBlockMask()}})
    if ((name == needed) != static_cast<bool>(value))
      return emitOpError(value ? "expected no " : "expected a ")
             << name << " operand for this mask";
  return verifyTileState(*this, getRowMax(), getAcc(), getBlockQ(),
                         v.getDimSize(3));
}

LogicalResult TileFinalizeOp::verify() {
  auto accType = cast<MemRefType>(getAcc().getType());
  auto out = cast<MemRefType>(getOutput().getType());
  if (accType.getRank() != 2)
    return emitOpError("expected acc of rank 2, got ") << accType;
  if (out.getRank() != 4 || out.getDimSize(3) != accType.getDimSize(1))
    return emitOpError("expected output of rank 4 with head dim ")
           << accType.getDimSize(1) << ", got " << out;
  if (Value lse = getLse()) {
    auto lseType = cast<MemRefType>(lse.getType());
    if (lseType.getRank() != 3 || !lseType.getElementType().isF32())
      return emitOpError("expected lse of rank 3 and element type f32, got ")
             << lseType;
  }
  return verifyTileState(*this, getRowMax(), getAcc(), accType.getDimSize(0),
                         accType.getDimSize(1));
}
