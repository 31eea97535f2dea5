//===- Attnc.cpp - attnc's C API ------------------------------------------===//

#include "attnc-c/Attnc.h"

#include "attnc/Artifact/Artifact.h"
#include "attnc/Compiler.h"
#include "attnc/Spec.h"
#include "dialects/Attn/AttnDialect.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Registration.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/IR/MLIRContext.h"

#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>
#include <string>

MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(Attn, attn, attnc::attn::AttnDialect)

static int fail(const std::string &message, char *error, size_t size) {
  if (error && size > 0) {
    size_t n = std::min(size - 1, message.size());
    std::memcpy(error, message.data(), n);
    error[n] = '\0';
  }
  return 1;
}

/// The error of a target that is not a GPU chip attnc compiles for.
static int failTarget(const char *target, char *error, size_t size) {
  return fail(std::string("expected target sm_80 or sm_90a, got '") + target +
                  "'",
              error, size);
}

/// Compiles, in a compiler context of its own, the single attention of the
/// module `build` makes there, to the artifact of `target` at `outputPath`;
/// `problem` gives the manifest's default problem. The context's error
/// diagnostics become the message instead of going to stderr. Returns 0 or
/// 1 with the message in `error`. The caller has checked `target`.
static int compileToArtifact(
    const char *target, const char *outputPath, char *error, size_t errorSize,
    llvm::function_ref<mlir::OwningOpRef<mlir::ModuleOp>(mlir::MLIRContext &,
                                                         std::string &)>
        build,
    llvm::function_ref<bool(attnc::attn::AttentionOp, attnc::AttentionSpec &,
                            std::string &)>
        problem) {
  std::unique_ptr<mlir::MLIRContext> ctx = attnc::createContext();
  std::string diagnostics, message;
  mlir::ScopedDiagnosticHandler handler(ctx.get(), [&](mlir::Diagnostic &d) {
    if (d.getSeverity() == mlir::DiagnosticSeverity::Error)
      diagnostics += (diagnostics.empty() ? "" : "; ") + d.str();
    return mlir::success();
  });
  mlir::OwningOpRef<mlir::ModuleOp> module = build(*ctx, message);
  if (!module)
    return fail(message + diagnostics, error, errorSize);
  mlir::FailureOr<attnc::attn::AttentionOp> op =
      attnc::findSingleAttention(*module);
  if (mlir::failed(op))
    return fail(diagnostics, error, errorSize);
  attnc::AttentionSpec spec;
  if (!problem(*op, spec, message))
    return fail(message, error, errorSize);
  attnc::GpuCompileResult result;
  if (!attnc::compileForGpu(*op, spec, target, attnc::EmitLevel::Artifact,
                            result, message))
    return fail(message + (diagnostics.empty() ? "" : ": " + diagnostics),
                error, errorSize);
  if (!attnc::writeArtifact(attnc::makeArtifact(result), outputPath, message))
    return fail(message, error, errorSize);
  return 0;
}

int attncCompileSpecToArtifact(const char *spec, const char *target,
                               const char *outputPath, char *error,
                               size_t errorSize) {
  if (!spec || !target || !outputPath)
    return fail("expected a spec, a target and an output path", error,
                errorSize);
  if (!attnc::isGpuChip(target))
    return failTarget(target, error, errorSize);
  attnc::AttentionSpec parsed;
  std::string message;
  if (!attnc::parseSpec(spec, parsed, message))
    return fail("bad spec: " + message, error, errorSize);
  return compileToArtifact(
      target, outputPath, error, errorSize,
      [&](mlir::MLIRContext &ctx, std::string &) {
        return attnc::buildSpecModule(ctx, parsed);
      },
      [&](attnc::attn::AttentionOp, attnc::AttentionSpec &problem,
          std::string &) {
        problem = parsed;
        return true;
      });
}

//===-- Mask attributes ---------------------------------------------------===//

using attnc::mask::Alignment;

static Alignment alignmentOf(bool topLeft) {
  return topLeft ? Alignment::TopLeft : Alignment::BottomRight;
}

/// The attribute, or a null one when the verifier refused it (its message
/// went to the context's diagnostic handlers).
template <typename AttrT, typename... Args>
static MlirAttribute checkedAttr(MlirContext ctx, Args... args) {
  mlir::MLIRContext *context = unwrap(ctx);
  return wrap(mlir::Attribute(AttrT::getChecked(
      mlir::detail::getDefaultDiagnosticEmitFn(context), context, args...)));
}

MlirAttribute attncCausalMaskAttrGet(MlirContext ctx, bool topLeft) {
  return wrap(mlir::Attribute(
      attnc::attn::CausalMaskAttr::get(unwrap(ctx), alignmentOf(topLeft))));
}

MlirAttribute attncSlidingWindowMaskAttrGet(MlirContext ctx, int64_t left,
                                            int64_t right, bool topLeft) {
  return checkedAttr<attnc::attn::SlidingWindowMaskAttr>(ctx, left, right,
                                                         alignmentOf(topLeft));
}

MlirAttribute attncPrefixLMMaskAttrGet(MlirContext ctx, int64_t prefix,
                                       bool topLeft) {
  return checkedAttr<attnc::attn::PrefixLMMaskAttr>(ctx, prefix,
                                                    alignmentOf(topLeft));
}

MlirAttribute attncDocumentMaskAttrGet(MlirContext ctx, bool cuSeqlens,
                                       bool causal) {
  return wrap(mlir::Attribute(attnc::attn::DocumentMaskAttr::get(
      unwrap(ctx),
      cuSeqlens ? attnc::mask::DocumentSource::CuSeqlens
                : attnc::mask::DocumentSource::SegmentIds,
      causal)));
}

MlirAttribute attncBlockSparseMaskAttrGet(MlirContext ctx, int64_t blockQ,
                                          int64_t blockK) {
  return checkedAttr<attnc::attn::BlockSparseMaskAttr>(ctx, blockQ, blockK);
}

bool attncAttributeIsAMask(MlirAttribute attr) {
  return !mlirAttributeIsNull(attr) &&
         mlir::isa<attnc::attn::MaskAttrInterface>(unwrap(attr));
}

int attncMaskIsVisible(MlirAttribute attr, int64_t q, int64_t k, int64_t sq,
                       int64_t sk) {
  if (!attncAttributeIsAMask(attr))
    return -1;
  auto mask = mlir::cast<attnc::attn::MaskAttrInterface>(unwrap(attr));
  if (!mask.isStructured() || q < 0 || k < 0 || q >= sq || k >= sk)
    return -1;
  return mask.isVisible(q, k, sq, sk, /*data=*/nullptr) ? 1 : 0;
}

//===-- The attention op ---------------------------------------------------===//

MlirOperation attncAttentionOpCreate(MlirLocation cLoc, MlirValue cQ,
                                     MlirValue cK, MlirValue cV,
                                     MlirAttribute cMask,
                                     MlirValue cMaskOperand, bool hasScale,
                                     float scale, bool returnLse) {
  AttncAttentionOptions options = {};
  options.has_scale = hasScale;
  options.scale = scale;
  options.return_lse = returnLse;
  return attncAttentionOpCreateWithOptions(cLoc, cQ, cK, cV, cMask,
                                           cMaskOperand, &options);
}

MlirOperation
attncAttentionOpCreateWithOptions(MlirLocation cLoc, MlirValue cQ, MlirValue cK,
                                  MlirValue cV, MlirAttribute cMask,
                                  MlirValue cMaskOperand,
                                  const AttncAttentionOptions *options) {
  using namespace mlir;
  AttncAttentionOptions none = {};
  const AttncAttentionOptions &o = options ? *options : none;
  Location loc = unwrap(cLoc);
  if (mlirValueIsNull(cQ) || mlirValueIsNull(cK) || mlirValueIsNull(cV)) {
    emitError(loc) << "attncAttentionOpCreate: expected q, k and v";
    return MlirOperation{nullptr};
  }
  Value q = unwrap(cQ), k = unwrap(cK), v = unwrap(cV);
  auto qType = dyn_cast<RankedTensorType>(q.getType());
  auto vType = dyn_cast<RankedTensorType>(v.getType());
  if (!qType || !vType || qType.getRank() != 4 || vType.getRank() != 4) {
    emitError(loc) << "attncAttentionOpCreate: expected q and v to be ranked "
                      "tensors of rank 4, got "
                   << q.getType() << " and " << v.getType();
    return MlirOperation{nullptr};
  }
  attnc::attn::MaskAttrInterface mask;
  if (!mlirAttributeIsNull(cMask)) {
    mask = dyn_cast<attnc::attn::MaskAttrInterface>(unwrap(cMask));
    if (!mask) {
      emitError(loc) << "attncAttentionOpCreate: expected a mask attribute, got "
                     << unwrap(cMask);
      return MlirOperation{nullptr};
    }
  }
  // The mask's operand goes in the slot the mask names; the verifier reports
  // a missing one, or one that is given to a mask that reads none.
  StringRef operandName = mask ? mask.getOperandName() : StringRef();
  Value operand =
      mlirValueIsNull(cMaskOperand) ? Value() : unwrap(cMaskOperand);
  if (operand && operandName.empty()) {
    emitError(loc) << "attncAttentionOpCreate: a mask operand was given but "
                   << (mask ? "the mask reads none" : "there is no mask");
    return MlirOperation{nullptr};
  }
  bool slopesAttr = o.num_alibi_slopes > 0;
  if (slopesAttr && !o.alibi_slopes) {
    emitError(loc) << "attncAttentionOpCreate: expected alibi_slopes for "
                   << o.num_alibi_slopes << " ALiBi slopes, got null";
    return MlirOperation{nullptr};
  }
  if (slopesAttr && !mlirValueIsNull(o.alibi_slopes_operand)) {
    emitError(loc) << "attncAttentionOpCreate: expected ALiBi slopes as an "
                      "attribute or as an operand, got both";
    return MlirOperation{nullptr};
  }
  auto valueOf = [](MlirValue value) {
    return mlirValueIsNull(value) ? Value() : unwrap(value);
  };
  MLIRContext *ctx = loc.getContext();
  OpBuilder b(ctx);
  Type outType = RankedTensorType::get(
      {qType.getDimSize(0), qType.getDimSize(1), qType.getDimSize(2),
       vType.getDimSize(3)},
      qType.getElementType());
  Type lseType = o.return_lse ? RankedTensorType::get({qType.getDimSize(0),
                                                       qType.getDimSize(1),
                                                       qType.getDimSize(2)},
                                                      b.getF32Type())
                              : Type();
  auto op = attnc::attn::AttentionOp::create(
      b, loc, outType, lseType, q, k, v,
      operandName == "seq_ids" ? operand : Value(),
      operandName == "cu_seqlens" ? operand : Value(),
      operandName == "block_mask" ? operand : Value(),
      valueOf(o.alibi_slopes_operand), valueOf(o.kv_lens),
      valueOf(o.page_table), valueOf(o.kv_scales), valueOf(o.cu_seqlens_q),
      valueOf(o.cu_seqlens_k), mask,
      o.has_scale ? b.getF32FloatAttr(o.scale) : FloatAttr(),
      o.has_softcap ? b.getF32FloatAttr(o.softcap) : FloatAttr(),
      slopesAttr ? b.getDenseF32ArrayAttr(
                       ArrayRef<float>(o.alibi_slopes, o.num_alibi_slopes))
                 : DenseF32ArrayAttr());
  if (o.decode)
    op->setAttr(attnc::attn::kDecodeAttrName, b.getUnitAttr());
  if (failed(verify(op))) {
    op->destroy();
    return MlirOperation{nullptr};
  }
  return wrap(op.getOperation());
}

int attncCompileModuleToArtifact(MlirModule cModule, const char *target,
                                 const char *outputPath, char *error,
                                 size_t errorSize) {
  if (mlirModuleIsNull(cModule) || !target || !outputPath)
    return fail("expected a module, a target and an output path", error,
                errorSize);
  if (!attnc::isGpuChip(target))
    return failTarget(target, error, errorSize);
  // The module is compiled in a context of the compiler's own (its dialects
  // and passes registered), from its printed form: the caller's context and
  // module stay as they are.
  std::string text;
  {
    llvm::raw_string_ostream os(text);
    unwrap(cModule).print(os);
  }
  llvm::SourceMgr sourceMgr;
  return compileToArtifact(
      target, outputPath, error, errorSize,
      [&](mlir::MLIRContext &ctx, std::string &failure) {
        failure = "the module does not parse in the compiler's context: ";
        return attnc::parseModule(ctx, sourceMgr, text, "<module>");
      },
      [](attnc::attn::AttentionOp op, attnc::AttentionSpec &problem,
         std::string &message) {
        return attnc::specFromOp(op, attnc::defaultProblemSizes(op), problem,
                                 message);
      });
}
