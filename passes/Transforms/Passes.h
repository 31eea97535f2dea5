//===- Passes.h - attnc transformation passes -------------------*- C++ -*-===//
//
// The target-independent passes and the functions behind them, callable by
// pipelines and embedders without a pass.
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_PASSES_TRANSFORMS_PASSES_H
#define ATTNC_PASSES_TRANSFORMS_PASSES_H

#include "dialects/Attn/AttnDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"

namespace attnc {

#define GEN_PASS_DECL
#include "passes/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "passes/Transforms/Passes.h.inc"

/// Tile sizes of the query (parallel) and key (sequential) dimensions.
struct TileSizes {
  int64_t blockQ = 64;
  int64_t blockK = 64;
};

/// Name of the attribute that marks the key-tile loop built by tiling.
inline constexpr llvm::StringLiteral kKeyTilesAttrName = "attn.key_tiles";
using attn::kTileSizesAttrName;

/// Tile sizes for `op`: its `attn.tile_sizes`, the enclosing module's, or
/// `fallback`. Fails with a diagnostic on a malformed attribute.
mlir::FailureOr<TileSizes> getTileSizes(attn::AttentionOp op,
                                        TileSizes fallback);

/// Replaces `op` by buffers and the tiled loop nest of attn.tile_step ops.
mlir::LogicalResult tileAttention(mlir::RewriterBase &rewriter,
                                  attn::AttentionOp op, TileSizes sizes);

/// How a key-tile loop was split.
enum class SkipStrategy {
  ClosedForm,
  RuntimeDocument,
  RuntimeDocumentIds,
  RuntimeBlockTable,
  AffineCorners,
  RegionScan,
  Elementwise
};
/// Name of a strategy as remarks print it.
llvm::StringRef stringifySkipStrategy(SkipStrategy s);

/// Splits a key-tile loop (attn.key_tiles) into boundary, full and boundary
/// ranges, or classifies its tiles at run time. Returns the strategy used.
mlir::FailureOr<SkipStrategy> skipMaskedTiles(mlir::RewriterBase &rewriter,
                                              mlir::scf::ForOp keyLoop);

/// Expands one attn.tile_step into scf/arith/math loops.
mlir::LogicalResult decomposeTileStep(mlir::RewriterBase &rewriter,
                                      attn::TileStepOp op);
/// Expands one attn.tile_finalize into scf/arith/math loops.
mlir::LogicalResult decomposeTileFinalize(mlir::RewriterBase &rewriter,
                                          attn::TileFinalizeOp op);

/// The global attn-count-tile-steps adds: [tile steps run, unmasked ones].
inline constexpr llvm::StringLiteral kTileStepCounterName = "attnc_tile_steps";

} // namespace attnc

#endif // ATTNC_PASSES_TRANSFORMS_PASSES_H
