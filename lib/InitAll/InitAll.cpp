//===- InitAll.cpp - register everything attnc provides -------------------===//

#include "attnc/InitAll.h"
#include "attnc/Pipelines.h"

#include "dialects/Attn/AttnDialect.h"
#include "passes/Conversion/AttnToGPU.h"
#include "passes/Transforms/Passes.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"

void attnc::registerAllDialects(mlir::DialectRegistry &registry) {
  registry.insert<attnc::attn::AttnDialect>();
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::registerAllToLLVMIRTranslations(registry);
}

void attnc::registerAllPasses() {
  mlir::registerAllPasses();
  attnc::registerTransformsPasses();
  attnc::registerConversionPasses();
  attnc::registerAttnPipelines();
}
