//===- Compiler.cpp - attnc as a library ----------------------------------===//
//
// Parsing, spec-to-IR, the lowering pipelines, and the destination-passing
// entry module that CPU execution and the runtime call.
//
//===----------------------------------------------------------------------===//

#include "attnc/Compiler.h"
#include "attnc/InitAll.h"
#include "attnc/Pipelines.h"

#include "dialects/Attn/AttnDialect.h"
#include "passes/Transforms/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstdio>
#include <mutex>

using namespace mlir;
using namespace attnc;
using namespace attnc::attn;
using attnc::mask::Alignment;
using attnc::mask::DocumentSource;
using attnc::mask::MaskKind;

std::optional<EmitLevel> attnc::parseEmitLevel(StringRef name) {
  return llvm::StringSwitch<std::optional<EmitLevel>>(name)
      .Case("attn", EmitLevel::Attn)
      .Case("tiled", EmitLevel::Tiled)
      .Case("loops", EmitLevel::Loops)
      .Case("llvm", EmitLevel::LLVM)
      .Case("kernel", EmitLevel::Kernel)
      .Case("nvvm", EmitLevel::NVVM)
      .Case("ptx", EmitLevel::PTX)
      .Case("artifact", EmitLevel::Artifact)
      .Default(std::nullopt);
}

bool attnc::isEmitLevelOf(EmitLevel level, bool gpu) {
  switch (level) {
  case EmitLevel::Attn:
  case EmitLevel::Tiled:
    return true;
  case EmitLevel::Loops:
  case EmitLevel::LLVM:
    return !gpu;
  case EmitLevel::Kernel:
  case EmitLevel::NVVM:
  case EmitLevel::PTX:
  case EmitLevel::Artifact:
    return gpu;
  }
  return false;
}

StringRef attnc::emitLevelNames(bool gpu) {
  return gpu ? "attn|tiled|kernel|nvvm|ptx|artifact"
             : "attn|tiled|loops|llvm";
}

std::unique_ptr<MLIRContext> attnc::createContext() {
  static std::once_flag passesRegistered;
  std::call_once(passesRegistered, [] { registerAllPasses(); });
  DialectRegistry registry;
  registerAllDialects(registry);
  auto ctx = std::make_unique<MLIRContext>(registry);
  ctx->loadAllAvailableDialects();
  // Diagnostics point at the source line; an op printed out of its context
  // (operands as <<UNKNOWN SSA VALUE>>) adds nothing.
  ctx->printOpOnDiagnostic(false);
  return ctx;
}

//===----------------------------------------------------------------------===//
// Spec to IR
//===----------------------------------------------------------------------===//

/// The mask attribute of a spec; null for no mask (and for a custom one,
/// which a spec cannot spell).
static MaskAttrInterface maskAttrOf(MLIRContext *ctx, const mask::MaskSpec &m) {
  switch (m.kind) {
  case MaskKind::None:
  case MaskKind::Custom:
    return {};
  case MaskKind::Causal:
    return CausalMaskAttr::get(ctx, m.alignment);
  case MaskKind::SlidingWindow:
    return SlidingWindowMaskAttr::get(ctx, m.windowLeft, m.windowRight,
                                      m.alignment);
  case MaskKind::PrefixLM:
    return PrefixLMMaskAttr::get(ctx, m.prefixLength, m.alignment);
  case MaskKind::Document:
    return DocumentMaskAttr::get(ctx, m.documentSource, m.documentCausal);
  case MaskKind::BlockSparse:
    return BlockSparseMaskAttr::get(ctx, m.blockQ, m.blockK);
  }
  return {};
}

OwningOpRef<ModuleOp> attnc::buildSpecModule(MLIRContext &ctx,
                                             const AttentionSpec &spec) {
  OpBuilder b(&ctx);
  Location loc = NameLoc::get(b.getStringAttr("spec"));
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  Type elt = spec.dtype == ElementType::BF16  ? Type(b.getBF16Type())
             : spec.dtype == ElementType::F16 ? Type(b.getF16Type())
                                              : Type(b.getF32Type());
  int64_t dyn = ShapedType::kDynamic;
  auto t4 = [&](int64_t h, int64_t d) {
    return RankedTensorType::get({dyn, h, dyn, d}, elt);
  };
  // A paged cache: pages [num_pages, page_size, Hkv, D].
  // fp8 keys and values: float8 e4m3fn with a kv_scales operand.
  Type kvElt = spec.kvFp8 ? Type(b.getType<Float8E4M3FNType>()) : elt;
  auto kv = [&](int64_t d) {
    return spec.pageSize > 0
               ? RankedTensorType::get({dyn, spec.pageSize, spec.hkv, d}, kvElt)
               : RankedTensorType::get({dyn, spec.hkv, dyn, d}, kvElt);
  };
  SmallVector<Type> args = {t4(spec.hq, spec.d), kv(spec.d), kv(spec.dv)};
  const mask::MaskSpec &m = spec.mask;
  bool cuSeqlens = m.kind == MaskKind::Document &&
                   m.documentSource == DocumentSource::CuSeqlens;
  bool seqIds = m.kind == MaskKind::Document && !cuSeqlens;
  bool blockMask = m.kind == MaskKind::BlockSparse;
  if (cuSeqlens)
    args.push_back(RankedTensorType::get({dyn}, b.getI32Type()));
  if (seqIds)
    args.push_back(RankedTensorType::get({dyn, dyn}, b.getI32Type()));
  if (blockMask)
    args.push_back(
        RankedTensorType::get({spec.blockMaskPerBatch ? dyn : 1,
                               spec.blockMaskPerHead ? spec.hq : 1, dyn, dyn},
                              b.getI8Type()));
  if (spec.kvLens)
    args.push_back(RankedTensorType::get({dyn}, b.getI32Type()));
  if (spec.pageSize > 0)
    args.push_back(RankedTensorType::get({dyn, dyn}, b.getI32Type()));
  if (spec.kvFp8)
    args.push_back(RankedTensorType::get({2, spec.hkv}, b.getF32Type()));
  // A ragged batch: query offsets, and key offsets unless a cache holds
  // the keys.
  bool raggedKeys = spec.ragged && !spec.kvLens;
  if (spec.ragged)
    args.push_back(RankedTensorType::get({dyn}, b.getI32Type()));
  if (raggedKeys)
    args.push_back(RankedTensorType::get({dyn}, b.getI32Type()));
  Type outType = t4(spec.hq, spec.dv);
  Type lseType = spec.lse ? RankedTensorType::get({dyn, spec.hq, dyn},
                                                  b.getF32Type())
                          : Type();
  SmallVector<Type> results = {outType};
  if (lseType)
    results.push_back(lseType);

  b.setInsertionPointToEnd(module->getBody());
  auto func = func::FuncOp::create(b, loc, "attention",
                                   b.getFunctionType(args, results));
  Block *body = func.addEntryBlock();
  b.setInsertionPointToStart(body);
  bool maskOperand = cuSeqlens || seqIds || blockMask;
  Value operand = maskOperand ? body->getArgument(3) : Value();
  unsigned next = maskOperand ? 4 : 3;
  Value kvLens = spec.kvLens ? body->getArgument(next++) : Value();
  Value pageTable = spec.pageSize > 0 ? body->getArgument(next++) : Value();
  Value kvScales = spec.kvFp8 ? body->getArgument(next++) : Value();
  Value cuSeqlensQ = spec.ragged ? body->getArgument(next++) : Value();
  Value cuSeqlensK = raggedKeys ? body->getArgument(next++) : Value();
  auto f32Attr = [&](std::optional<double> v) {
    return v ? b.getF32FloatAttr(*v) : FloatAttr();
  };
  DenseF32ArrayAttr alibi;
  if (spec.alibi) {
    SmallVector<float> slopes;
    for (double s : standardAlibiSlopes(spec.hq))
      slopes.push_back(static_cast<float>(s));
    alibi = b.getDenseF32ArrayAttr(slopes);
  }
  auto op = AttentionOp::create(
      b, loc, outType, lseType, body->getArgument(0), body->getArgument(1),
      body->getArgument(2), seqIds ? operand : Value(),
      cuSeqlens ? operand : Value(), blockMask ? operand : Value(),
      /*alibi_slopes=*/Value(), kvLens, pageTable, kvScales, cuSeqlensQ,
      cuSeqlensK, maskAttrOf(&ctx, m),
      f32Attr(spec.scale),
      f32Attr(spec.softcap), alibi);
  if (spec.decode)
    op->setAttr(kDecodeAttrName, b.getUnitAttr());
  func::ReturnOp::create(b, loc, op->getResults());
  return module;
}

std::string attnc::specToMlir(const AttentionSpec &spec) {
  std::unique_ptr<MLIRContext> ctx = createContext();
  OwningOpRef<ModuleOp> module = buildSpecModule(*ctx, spec);
  std::string ir = "// attnc spec: " + printSpec(spec) + "\n";
  llvm::raw_string_ostream os(ir);
  module->print(os);
  return ir;
}

OwningOpRef<ModuleOp> attnc::parseModule(MLIRContext &ctx,
                                         llvm::SourceMgr &sourceMgr,
                                         StringRef text, StringRef bufferName) {
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(text, bufferName), llvm::SMLoc());
  return parseSourceFile<ModuleOp>(sourceMgr, &ctx);
}

FailureOr<AttentionOp> attnc::findSingleAttention(ModuleOp module) {
  SmallVector<AttentionOp> ops;
  module.walk([&](AttentionOp op) { ops.push_back(op); });
  if (ops.size() != 1)
    return module.emitError("expected exactly one attn.attention, found ")
           << ops.size();
  return ops.front();
}

//===----------------------------------------------------------------------===//
// Pipelines
//===----------------------------------------------------------------------===//

void attnc::buildPipeline(OpPassManager &pm, EmitLevel level,
                          const CompileOptions &options) {
  bool gpu = options.target != "cpu";
  if (gpu)
    buildChooseGpuKernelPipeline(pm, options.target);
  if (level == EmitLevel::Attn)
    return;
  // A GPU target tiles with its kernel's block sizes (attn.tile_sizes set
  // by attn-choose-gpu-kernel).
  buildAttnTilePipeline(pm, {options.blockQ, options.blockK,
                             options.skipMaskedTiles});
  if (options.countTileSteps && !gpu)
    pm.addPass(createAttnCountTileSteps());
  if (level == EmitLevel::Tiled || gpu)
    return;
  buildTiledToLoopsPipeline(pm);
  if (level == EmitLevel::Loops)
    return;
  buildLoopsToLLVMPipeline(pm);
}

LogicalResult attnc::lowerTo(ModuleOp module, EmitLevel level,
                             const CompileOptions &options) {
  PassManager pm(module->getContext());
  buildPipeline(pm, level, options);
  return pm.run(module);
}

//===----------------------------------------------------------------------===//
// Entry module
//===----------------------------------------------------------------------===//

/// Adds `func.func @name` whose body is a copy of a single-block region
/// ending in attn.yield.
static void addRegionFunction(OpBuilder &b, StringRef name, Region &region) {
  Block &block = region.front();
  Type result = block.getTerminator()->getOperand(0).getType();
  auto func = func::FuncOp::create(
      b, region.getLoc(), name,
      b.getFunctionType(block.getArgumentTypes(), {result}));
  IRMapping map;
  region.cloneInto(&func.getBody(), map);
  Operation *yield = func.getBody().front().getTerminator();
  OpBuilder rb(yield);
  func::ReturnOp::create(rb, yield->getLoc(), yield->getOperands());
  yield->erase();
}

OwningOpRef<ModuleOp> attnc::buildCpuEntryModule(AttentionOp op) {
  MLIRContext *ctx = op.getContext();
  Location loc = op.getLoc();
  OpBuilder b(ctx);
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  if (auto parent = op->getParentOfType<ModuleOp>())
    if (Attribute sizes = parent->getAttr(kTileSizesAttrName))
      (*module)->setAttr(kTileSizesAttrName, sizes);
  b.setInsertionPointToEnd(module->getBody());

  auto memrefOf = [](Value v) -> Type {
    auto t = cast<RankedTensorType>(v.getType());
    return MemRefType::get(t.getShape(), t.getElementType());
  };
  SmallVector<Type> argTypes;
  for (Value v : op->getOperands())
    argTypes.push_back(memrefOf(v));
  for (Value v : op->getResults())
    argTypes.push_back(memrefOf(v));
  auto func = func::FuncOp::create(b, loc, "attnc_entry",
                                   b.getFunctionType(argTypes, {}));
  func->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(), b.getUnitAttr());
  Block *entry = func.addEntryBlock();
  b.setInsertionPointToStart(entry);
  IRMapping map;
  for (auto [i, v] : llvm::enumerate(op->getOperands()))
    map.map(v, bufferization::ToTensorOp::create(b, loc, v.getType(),
                                                 entry->getArgument(i),
                                                 /*restrict=*/b.getUnitAttr()));
  Operation *copy = b.clone(*op, map);
  unsigned numInputs = op->getNumOperands();
  for (auto [i, r] : llvm::enumerate(copy->getResults())) {
    auto store = bufferization::MaterializeInDestinationOp::create(
        b, loc, r, entry->getArgument(numInputs + i));
    store.setRestrict(true);
    store.setWritable(true);
  }
  func::ReturnOp::create(b, loc);

  b.setInsertionPointToEnd(module->getBody());
  if (!op.getMaskFn().empty())
    addRegionFunction(b, "attnc_mask_fn", op.getMaskFn());
  if (!op.getScoreFn().empty())
    addRegionFunction(b, "attnc_score_fn", op.getScoreFn());
  return module;
}

//===----------------------------------------------------------------------===//
// Specs from ops
//===----------------------------------------------------------------------===//

AttentionSpec attnc::defaultProblemSizes(AttentionOp op) {
  AttentionSpec sizes;
  sizes.b = op.getBatchSize() > 0 ? 0 : 1;
  sizes.sq = op.getQuerySeqLen() > 0 ? 0 : 128;
  sizes.sk = op.getKeySeqLen() > 0 ? 0 : 128;
  if (op.isRagged()) {
    // Sequences, and their longest query (and packed key) lengths.
    sizes.b = op.getNumSequences() > 0 ? 0 : 3;
    sizes.sq = 128;
    if (op.getCuSeqlensK())
      sizes.sk = 128;
  }
  return sizes;
}

bool attnc::specFromOp(AttentionOp op, const AttentionSpec &sizes,
                       AttentionSpec &spec, std::string &error) {
  spec = sizes;
  auto pick = [&](int64_t fromType, int64_t given, const char *name,
                  int64_t &into) {
    if (!ShapedType::isDynamic(fromType)) {
      if (given > 0 && given != fromType) {
        error = std::string("expected ") + name + " " + std::to_string(given) +
                " to match the IR's static " + name + " " +
                std::to_string(fromType);
        return false;
      }
      into = fromType;
      return true;
    }
    if (given <= 0) {
      error = std::string("the IR has a dynamic ") + name +
              ": give it with --sizes (e.g. --sizes=\"" + name + "=128\")";
      return false;
    }
    into = given;
    return true;
  };
  if (op.isRagged()) {
    // A ragged batch: b sequences, sq and sk their longest lengths; the
    // packed lengths are the runs' own, so the IR must leave them dynamic.
    if (!ShapedType::isDynamic(op.getQuerySeqLen()) ||
        (op.getCuSeqlensK() && !ShapedType::isDynamic(op.getKeySeqLen()))) {
      error = "expected the packed query (and key) length of a ragged op to "
              "be dynamic: a run packs sequences of its own lengths";
      return false;
    }
    int64_t keyLen = op.getCuSeqlensK() ? ShapedType::kDynamic
                                        : op.getKeySeqLen();
    if (!pick(op.getNumSequences(), sizes.b, "b", spec.b) ||
        !pick(ShapedType::kDynamic, sizes.sq, "sq", spec.sq) ||
        !pick(keyLen, sizes.sk > 0 ? sizes.sk : sizes.sq, "sk", spec.sk))
      return false;
    spec.ragged = true;
    if (!spec.raggedLengths.empty() &&
        static_cast<int64_t>(spec.raggedLengths.size()) != spec.b) {
      error = "expected ragged= to list the IR's " + std::to_string(spec.b) +
              " sequences";
      return false;
    }
  } else if (!pick(op.getBatchSize(), sizes.b, "b", spec.b) ||
             !pick(op.getQuerySeqLen(), sizes.sq, "sq", spec.sq) ||
             !pick(op.getKeySeqLen(), sizes.sk > 0 ? sizes.sk : sizes.sq, "sk",
                   spec.sk)) {
    return false;
  }
  spec.hq = op.getNumQueryHeads();
  spec.hkv = op.getNumKeyValueHeads();
  spec.d = op.getHeadDim();
  spec.dv = op.getValueHeadDim();
  Type elt = op.getQuery().getType().getElementType();
  spec.dtype = elt.isBF16()  ? ElementType::BF16
               : elt.isF16() ? ElementType::F16
                             : ElementType::F32;
  spec.scale = op.getEffectiveScale();
  spec.mask = op.getMaskSpec();
  spec.softcap.reset();
  if (auto cap = op.getSoftcapAttr())
    spec.softcap = cap.getValueAsDouble();
  spec.alibi = op.getAlibi() || op.getAlibiSlopes();
  spec.kvLens = static_cast<bool>(op.getKvLens());
  spec.pageSize = op.isPaged() ? op.getPageSize() : 0;
  spec.kvFp8 = static_cast<bool>(op.getKvScales());
  spec.lse = static_cast<bool>(op.getLse());
  if (Value bm = op.getBlockMask()) {
    auto type = cast<RankedTensorType>(bm.getType());
    spec.blockMaskPerBatch = type.getDimSize(0) != 1;
    spec.blockMaskPerHead = type.getDimSize(1) != 1;
  }
  if (spec.mask.kind == MaskKind::Document && spec.documentLengths.empty()) {
    // Documents of about a third, a quarter and the rest of the keys.
    for (int64_t len : {spec.sk / 3, spec.sk / 4})
      if (len > 0)
        spec.documentLengths.push_back(len);
    int64_t used = 0;
    for (int64_t len : spec.documentLengths)
      used += len;
    spec.documentLengths.push_back(spec.sk - used);
  }
  return true;
}
