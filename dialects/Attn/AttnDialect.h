//===- AttnDialect.h - the attn dialect -------------------------*- C++ -*-===//
//
// Declares the attn dialect, its mask attributes and interface, and its ops.
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_DIALECTS_ATTN_ATTNDIALECT_H
#define ATTNC_DIALECTS_ATTN_ATTNDIALECT_H

#include "attnc/Mask/MaskSemantics.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "dialects/Attn/AttnDialect.h.inc"
#include "dialects/Attn/MaskInterface.h.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/Attn/AttnAttrs.h.inc"

#define GET_OP_CLASSES
#include "dialects/Attn/AttnOps.h.inc"

namespace attnc::attn {
/// The largest tile side attnc accepts (rows or keys of one tile).
inline constexpr int64_t kMaxTileSize = 4096;
/// The op / module attribute that sets tile sizes (array<i64: bq, bk>).
inline constexpr llvm::StringLiteral kTileSizesAttrName = "attn.tile_sizes";
/// A unit attribute on attn.attention: the attention is a decode step (a
/// query length of about one row per query head; the length stays dynamic).
/// GPU targets then choose a decode kernel (gqa_pack, split_kv).
inline constexpr llvm::StringLiteral kDecodeAttrName = "attn.decode";
/// The attribute holding an attention's #attn.gpu_kernel; attn-tile carries
/// it over to the query-tile loop.
inline constexpr llvm::StringLiteral kGpuKernelAttrName = "attn.gpu_kernel";
/// The attribute attn-skip-masked-tiles puts on the guard of a run-time
/// tile test, naming the test ("affine_corners", "region_scan",
/// "document_ids", "block_table").
inline constexpr llvm::StringLiteral kTileTestAttrName = "attn.tile_test";
} // namespace attnc::attn

#endif // ATTNC_DIALECTS_ATTN_ATTNDIALECT_H
