//===- attnc-opt.cpp - opt-style driver over attn IR ----------------------===//
//
// Parses, verifies and transforms attention IR with attnc's and upstream's
// passes. Malformed input gives a located diagnostic and a non-zero exit.
//
//===----------------------------------------------------------------------===//

#include "attnc/InitAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  attnc::registerAllPasses();
  mlir::DialectRegistry registry;
  attnc::registerAllDialects(registry);
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "attnc optimizer: passes over attn attention IR\n",
      registry));
}
