//===- WorkList.cpp - reading an attnrt_plan work list in a kernel --------===//

#include "passes/Conversion/WorkList.h"

#include "attnc/Runtime/attnrt_plan.h"
#include "passes/Codegen/IndexArith.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

#include <cstddef>

using namespace mlir;
using namespace attnc;

namespace {
/// The int32 at element `i` of `base` (4-byte aligned), as an index.
Value loadIndex(ImplicitLocOpBuilder &b, Value base, Value i) {
  Type i32 = b.getI32Type();
  Value at = LLVM::GEPOp::create(
      b, LLVM::LLVMPointerType::get(b.getContext()), i32, base,
      ValueRange{arith::IndexCastOp::create(b, b.getI64Type(), i)});
  Value word = LLVM::LoadOp::create(b, i32, at, /*alignment=*/4);
  return arith::IndexCastOp::create(b, b.getIndexType(), word);
}
} // namespace

Value attnc::hasWorkList(ImplicitLocOpBuilder &b, Value plan) {
  Value address = LLVM::PtrToIntOp::create(b, b.getI64Type(), plan);
  return arith::CmpIOp::create(b, arith::CmpIPredicate::ne, address,
                               arith::ConstantIntOp::create(b, 0, 64));
}

Value attnc::workListSize(ImplicitLocOpBuilder &b, Value plan) {
  IndexArith a{b};
  return loadIndex(b, plan, a.constant(0));
}

WorkItem attnc::loadWorkItem(ImplicitLocOpBuilder &b, Value plan, Value i) {
  IndexArith a{b};
  static_assert(ATTNRT_PLAN_ITEMS_OFFSET % 4 == 0 &&
                    sizeof(attnrt_work_item) % 4 == 0,
                "work items are read as int32 words");
  constexpr int64_t kWords = sizeof(attnrt_work_item) / 4;
  Value item = a.add(a.constant(ATTNRT_PLAN_ITEMS_OFFSET / 4),
                     arith::MulIOp::create(b, i, a.constant(kWords)));
  auto field = [&](size_t offset) {
    return loadIndex(b, plan, a.add(item, a.constant(offset / 4)));
  };
  return {field(offsetof(attnrt_work_item, sequence)),
          field(offsetof(attnrt_work_item, kv_head)),
          field(offsetof(attnrt_work_item, q_tile)),
          field(offsetof(attnrt_work_item, split)),
          field(offsetof(attnrt_work_item, num_splits)),
          field(offsetof(attnrt_work_item, partial))};
}
