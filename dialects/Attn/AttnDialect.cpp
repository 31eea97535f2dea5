//===- AttnDialect.cpp - the attn dialect ---------------------------------===//

#include "dialects/Attn/AttnDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace attnc::attn;

#include "dialects/Attn/AttnDialect.cpp.inc"
#include "dialects/Attn/MaskInterface.cpp.inc"

void AttnDialect::initialize() {
  registerAttributes();
  addOperations<
#define GET_OP_LIST
#include "dialects/Attn/AttnOps.cpp.inc"
      >();
}
