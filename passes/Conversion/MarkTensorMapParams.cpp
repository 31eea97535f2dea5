//===- MarkTensorMapParams.cpp - tensor maps as grid-constant params ------===//
//
// attn-mark-tensor-map-params: the TensorMap parameters of the kernel ABI
// (KernelAbi.h) become 128-byte by-value grid constants of the lowered
// kernels.
//
//===----------------------------------------------------------------------===//

#include "passes/Conversion/AttnToGPU.h"

#include "passes/Conversion/FlashKernel.h"

#include "attnc/Artifact/KernelAbi.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

#define DEBUG_TYPE "attn-mark-tensor-map-params"

namespace attnc {
#define GEN_PASS_DEF_ATTNMARKTENSORMAPPARAMS
#include "passes/Conversion/Passes.h.inc"
} // namespace attnc

using namespace mlir;
using namespace attnc;

namespace {
struct AttnMarkTensorMapParamsPass final
    : attnc::impl::AttnMarkTensorMapParamsBase<AttnMarkTensorMapParamsPass> {
  using AttnMarkTensorMapParamsBase::AttnMarkTensorMapParamsBase;

  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    Builder b(ctx);
    auto byval =
        TypeAttr::get(LLVM::LLVMArrayType::get(IntegerType::get(ctx, 8), 128));
    for (auto func : getOperation().getOps<LLVM::LLVMFuncOp>()) {
      if (func.getName() != kKernelName &&
          func.getName() != abi::kCombineKernel)
        continue;
      if (func.getNumArguments() != abi::NumParams) {
        func.emitError("expected the ")
            << static_cast<unsigned>(abi::NumParams)
            << " parameters of the kernel ABI, got " << func.getNumArguments();
        return signalPassFailure();
      }
      for (unsigned i = 0; i < abi::NumParams; ++i) {
        if (abi::kParams[i].kind != abi::ParamKind::TensorMap)
          continue;
        func.setArgAttr(i, LLVM::LLVMDialect::getByValAttrName(), byval);
        func.setArgAttr(i, LLVM::LLVMDialect::getAlignAttrName(),
                        b.getI64IntegerAttr(64));
        func.setArgAttr(i, NVVM::NVVMDialect::getGridConstantAttrName(),
                        b.getUnitAttr());
        ++numMarked;
      }
    }
  }
};
} // namespace
