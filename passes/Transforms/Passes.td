//===- Passes.td - attnc transformation passes -------------*- tablegen -*-===//
//
// Target-independent passes from attn.attention to loops.
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_TRANSFORMS_PASSES
#define ATTNC_TRANSFORMS_PASSES

include "mlir/Pass/PassBase.td"

def AttnTile : Pass<"attn-tile", "::mlir::ModuleOp"> {
  let summary = "Tile attn.attention into query tiles and a key-tile loop";
  let description = [{
    Input: `attn.attention` ops on tensors. Output: each op is replaced by
    buffers and a loop nest: a parallel loop over (batch, query head, query
    tile of block_q rows) that holds the online-softmax state in stack
    buffers (row max m = -inf, row sum l = 0, accumulator O = 0), a
    sequential `scf.for` over key tiles of block_k keys (tagged
    `attn.key_tiles`) whose body is one `attn.tile_step`, and an
    `attn.tile_finalize` that writes the output and the LSE. Every key tile
    is visited with the element-wise mask: `attn-skip-masked-tiles` refines
    that.

    Tile sizes come from, in order: the op's `attn.tile_sizes` attribute
    (`array<i64: block_q, block_k>`), the enclosing module's, the pass
    options.

    ```mlir
    // before
    %o = attn.attention %q, %k, %v mask(#attn.causal) : ...
    // after
    scf.parallel (%b, %h, %t) = ... {
      memref.alloca_scope {
        scf.for %kt = %c0 to %num_key_tiles step %c1 {
          attn.tile_step %qm, %km, %vm state(%m, %l, %acc) at(...) ...
        } {attn.key_tiles}
        attn.tile_finalize state(%m, %l, %acc) into %om at(...)
      }
    }
    ```
  }];
  let options = [
    Option<"blockQ", "block-q", "int64_t", /*default=*/"64",
           "Query rows per tile">,
    Option<"blockK", "block-k", "int64_t", /*default=*/"64",
           "Keys per tile">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::bufferization::BufferizationDialect",
    "::mlir::memref::MemRefDialect", "::mlir::scf::SCFDialect"
  ];
  let statistics = [
    Statistic<"numTiled", "num-tiled", "attn.attention ops tiled">,
  ];
}

def AttnSkipMaskedTiles : Pass<"attn-skip-masked-tiles", "::mlir::ModuleOp"> {
  let summary = "Split each key-tile loop into empty, full and boundary tiles";
  let description = [{
    Input: `attn.key_tiles` loops from `attn-tile`. Output: for each query
    tile, the key-tile range is computed from the mask and the loop is split
    into boundary tiles before the full range, full tiles (their
    `attn.tile_step` carries `unmasked`, so no mask arithmetic is emitted),
    and boundary tiles after. Tiles proven empty are never visited.

    Strategies, reported with a remark per op and counted in statistics:
    - closed form: none, causal (both alignments), sliding window and
      prefix-LM; the bounds are the mask interface's per-row interval
      formulas emitted as index arithmetic;
    - runtime document ranges: `#attn.document<cu_seqlens>` reads the
      documents of the tile's first and last rows at run time;
    - runtime block table: `#attn.block_sparse` reads the block mask for
      each tile and skips or unmasks it;
    - run-time document id ranges: `#attn.document<seq_ids>` compares the
      id ranges of each tile's rows and keys;
    - affine corners: a `mask_fn` built from linear comparisons of q and k
      (`q >= k`, `q - k < W`, ...) combined with and / or / not is evaluated
      at each tile's four corners; a half-plane holds on the whole tile when
      it holds at its corners, so full and empty tiles are proven;
    - region scan: any other `mask_fn` is evaluated over each tile at run
      time (code generated from the same region) to skip or unmask it.
    Tiles classified at run time are wrapped in `scf.if`: skipped when
    empty, stepped `unmasked` when full.

    ```mlir
    // before
    scf.for %kt = %c0 to %n step %c1 { attn.tile_step ... } {attn.key_tiles}
    // after (causal)
    scf.for %kt = %lo to %full_lo step %c1 { attn.tile_step ... }
    scf.for %kt = %full_lo to %full_hi step %c1 { attn.tile_step ... unmasked }
    scf.for %kt = %full_hi to %hi step %c1 { attn.tile_step ... }
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::memref::MemRefDialect"];
  let statistics = [
    Statistic<"numClosedForm", "num-closed-form",
              "key-tile loops split with closed-form bounds">,
    Statistic<"numRuntimeDocument", "num-runtime-document",
              "key-tile loops bounded by run-time document ranges">,
    Statistic<"numRuntimeBlockTable", "num-runtime-block-table",
              "key-tile loops classified from the block mask at run time">,
    Statistic<"numRegionTests", "num-region-tests",
              "key-tile loops classified from the mask_fn region">,
    Statistic<"numElementwise", "num-elementwise",
              "key-tile loops left with the element-wise mask on every tile">,
  ];
}

def AttnDecomposeOnlineSoftmax
    : Pass<"attn-decompose-online-softmax", "::mlir::ModuleOp"> {
  let summary = "Expand attn.tile_step / attn.tile_finalize into loops";
  let description = [{
    Input: `attn.tile_step` and `attn.tile_finalize`. Output: scf loops over
    memrefs with arith/math: scores in f32 with log2(e) folded into the
    scale, soft-capping, ALiBi and the score region applied, the mask
    applied only where the step is not `unmasked`, then the online update
    `m' = max(m, rowmax(S)); a = exp2(m - m'); P = exp2(S - m');
    l' = a*l + rowsum(P); O' = a*O + round(P) V`, guarded so that a row with
    no visible key keeps m = -inf, l = 0. The finalize divides by l and
    forms LSE = (m + log2 l) ln 2, giving 0 and -inf for empty rows.

    ```mlir
    // before
    attn.tile_step %q, %k, %v state(%m, %l, %acc) at(%b, %h, %q0, %k0) ...
    // after
    scf.for %r = %c0 to %rows step %c1 {
      ... scores, arith.maximumf, math.exp2, updates of %m, %l, %acc ...
    }
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::vector::VectorDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect"];
  let statistics = [
    Statistic<"numMaskedSteps", "num-masked-steps",
              "tile steps expanded with the element-wise mask">,
    Statistic<"numUnmaskedSteps", "num-unmasked-steps",
              "tile steps expanded without mask arithmetic">,
  ];
}

def AttnCountTileSteps : Pass<"attn-count-tile-steps", "::mlir::ModuleOp"> {
  let summary = "Count the tile steps a run executes (instrumentation)";
  let description = [{
    Input: tiled IR (after attn-tile, usually after attn-skip-masked-tiles).
    Output: the module gains `memref.global @attnc_tile_steps :
    memref<2xi64>` (zero), and each `attn.tile_step` is preceded by an
    atomic increment of entry 0, and of entry 1 too when the step is
    `unmasked`. Running the code then counts the key tiles it visits and how
    many of them ran without mask arithmetic, which tests compare with the
    exact tile classification of `attnc compile --report` (`attnc-run
    --count-tiles`): a silent loss of tile skipping shows up as more
    visited tiles.

    ```mlir
    // before
    attn.tile_step ... {unmasked}
    // after
    %g = memref.get_global @attnc_tile_steps : memref<2xi64>
    memref.atomic_rmw addi %c1_i64, %g[%c0] : (i64, memref<2xi64>) -> i64
    memref.atomic_rmw addi %c1_i64, %g[%c1] : (i64, memref<2xi64>) -> i64
    attn.tile_step ... {unmasked}
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect"];
  let statistics = [
    Statistic<"numInstrumented", "num-instrumented", "tile steps counted">,
  ];
}

#endif // ATTNC_TRANSFORMS_PASSES
