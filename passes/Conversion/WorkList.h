//===- WorkList.h - reading an attnrt_plan work list in a kernel -*- C++
//-*-===//
//
// A split_kv kernel launched with a plan (KernelAbi.h `plan`) reads the work
// list that attnrt_plan wrote (attnrt_plan.h): the item count, then the
// attnrt_work_items in launch order. These helpers emit those reads.
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_PASSES_CONVERSION_WORKLIST_H
#define ATTNC_PASSES_CONVERSION_WORKLIST_H

#include "mlir/IR/ImplicitLocOpBuilder.h"

namespace attnc {

/// One attnrt_work_item as index values. `head` is the grid's head row: the
/// KV head of a kernel that packs its group's query heads (gqa_pack), else
/// the query head.
struct WorkItem {
  mlir::Value sequence, head, qTile, split, numSplits, partial;
};

/// Whether the launch passed a work list (`plan` is not null).
mlir::Value hasWorkList(mlir::ImplicitLocOpBuilder &b, mlir::Value plan);

/// The number of items of the work list at `plan` (index).
mlir::Value workListSize(mlir::ImplicitLocOpBuilder &b, mlir::Value plan);

/// Item `i` of the work list at `plan` (index fields).
WorkItem loadWorkItem(mlir::ImplicitLocOpBuilder &b, mlir::Value plan,
                      mlir::Value i);

} // namespace attnc

#endif // ATTNC_PASSES_CONVERSION_WORKLIST_H
