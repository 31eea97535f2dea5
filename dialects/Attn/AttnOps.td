//===- AttnOps.td - attn dialect operations ----------------*- tablegen -*-===//
//
// attn.attention and its region terminator.
//
//===----------------------------------------------------------------------===//

#ifndef ATTN_OPS
#define ATTN_OPS

include "AttnDialect.td"
include "AttnAttrs.td"
include "mlir/IR/OpBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"

def Attn_AttentionOp : Attn_Op<"attention", [
    AttrSizedOperandSegments, IsolatedFromAbove, RecursiveMemoryEffects]> {
  let summary = "Masked scaled-dot-product attention with optional LSE.";
  let description = [{
    Computes attention over query [B, Hq, Sq, D], key [B, Hkv, Sk, D] and
    value [B, Hkv, Sk, Dv] into output [B, Hq, Sq, Dv] and, when a second
    result is given, the per-row log-sum-exp [B, Hq, Sq] (f32, natural log).
    B, Sq and Sk may be dynamic; the head counts and head dims are static.
    Hq must be a multiple of Hkv; query head h reads key/value head
    h / (Hq / Hkv) (GQA; Hkv = 1 is MQA).

    For query row i and visible key j the score is built in this order:
    1. s = scale * dot(q_i, k_j), scale defaulting to 1/sqrt(D);
    2. `softcap = c`: s = c * tanh(s / c);
    3. ALiBi (`alibi = [s0, s1, ...]` or the `alibi_slopes` operand, one
       slope per query head): s = s - slope[h] * |i + Sk - Sq - j|;
    4. `score_fn`: s = score_fn(s, b, h, i, j).
    Keys hidden by the mask (`mask(#attn...)` or the `mask_fn` region) are
    dropped before the softmax. With `kv_lens` ([B] i32, per-sequence KV
    lengths, clamped to [0, Sk]) batch entry b has only its first
    kv_lens[b] keys, and everything that depends on Sk (bottom-right
    alignment, ALiBi distances) uses kv_lens[b] for it: a padded KV cache.
    With `page_table` ([B, max_pages] i32; needs kv_lens) the cache is
    paged: key and value are pages [num_pages, page_size, Hkv, D|Dv], key
    j of sequence b is row j mod page_size of page page_table[b, j /
    page_size], and Sk = max_pages * page_size. Key and value may be float8
    e4m3fn with `kv_scales` ([2, Hkv] f32): key element x of KV head h
    stands for x * kv_scales[0, h], value element x for x * kv_scales[1, h].
    A ragged batch (`cu_seqlens_q`, [N + 1] i32 offsets): query and output
    are [1, Hq, Tq, D|Dv] of N packed sequences, sequence n holding the
    rows [cu_seqlens_q[n], cu_seqlens_q[n + 1]); its keys are packed the
    same way by `cu_seqlens_k` (key and value [1, Hkv, Tk, D|Dv]), or come
    from a cache of N sequences (kv_lens, optionally page_table). Each
    sequence is its own attention: masks, ALiBi and the regions see its
    local positions (b = n) and its own Sq and Sk. A row with no visible key yields 0 and an LSE
    of -inf. Accumulation is f32 (docs/attn-dialect.md, numerics contract).

    Example (GQA, causal, soft-capped, with LSE):
    ```mlir
    %o, %lse = attn.attention %q, %k, %v mask(#attn.causal) softcap = 30.0
        : tensor<2x8x?x64xbf16>, tensor<2x2x?x64xbf16>, tensor<2x2x?x64xbf16>
        -> tensor<2x8x?x64xbf16>, tensor<2x8x?xf32>
    ```
    A custom mask:
    ```mlir
    %o = attn.attention %q, %k, %v mask_fn {
    ^bb0(%b: index, %h: index, %i: index, %j: index):
      %c = arith.cmpi uge, %i, %j : index
      attn.yield %c : i1
    } : tensor<1x4x128x64xf16>, tensor<1x4x128x64xf16>, tensor<1x4x128x64xf16>
      -> tensor<1x4x128x64xf16>
    ```
  }];

  let arguments = (ins
    AnyRankedTensor:$query,
    AnyRankedTensor:$key,
    AnyRankedTensor:$value,
    Optional<AnyRankedTensor>:$seq_ids,
    Optional<AnyRankedTensor>:$cu_seqlens,
    Optional<AnyRankedTensor>:$block_mask,
    Optional<AnyRankedTensor>:$alibi_slopes,
    Optional<AnyRankedTensor>:$kv_lens,
    Optional<AnyRankedTensor>:$page_table,
    Optional<AnyRankedTensor>:$kv_scales,
    Optional<AnyRankedTensor>:$cu_seqlens_q,
    Optional<AnyRankedTensor>:$cu_seqlens_k,
    OptionalAttr<Attn_MaskAttrInterface>:$mask,
    OptionalAttr<F32Attr>:$scale,
    OptionalAttr<F32Attr>:$softcap,
    OptionalAttr<DenseF32ArrayAttr>:$alibi
  );
  let results = (outs AnyRankedTensor:$output,
                      Optional<AnyRankedTensor>:$lse);
  let regions = (region AnyRegion:$mask_fn, AnyRegion:$score_fn);

  let assemblyFormat = [{
    $query `,` $key `,` $value
    (`seq_ids` `(` $seq_ids^ `:` type($seq_ids) `)`)?
    (`cu_seqlens` `(` $cu_seqlens^ `:` type($cu_seqlens) `)`)?
    (`block_mask` `(` $block_mask^ `:` type($block_mask) `)`)?
    (`alibi_slopes` `(` $alibi_slopes^ `:` type($alibi_slopes) `)`)?
    (`kv_lens` `(` $kv_lens^ `:` type($kv_lens) `)`)?
    (`page_table` `(` $page_table^ `:` type($page_table) `)`)?
    (`kv_scales` `(` $kv_scales^ `:` type($kv_scales) `)`)?
    (`cu_seqlens_q` `(` $cu_seqlens_q^ `:` type($cu_seqlens_q) `)`)?
    (`cu_seqlens_k` `(` $cu_seqlens_k^ `:` type($cu_seqlens_k) `)`)?
    (`mask` `(` $mask^ `)`)?
    (`scale` `=` $scale^)?
    (`softcap` `=` $softcap^)?
    (`alibi` `=` $alibi^)?
    (`mask_fn` $mask_fn^)?
    (`score_fn` $score_fn^)?
    attr-dict `:` type($query) `,` type($key) `,` type($value)
    `->` type(results)
  }];

  let hasVerifier = 1;
  let hasRegionVerifier = 1;

  let extraClassDeclaration = [{
    /// The mask as a plain description: none when there is no mask, custom
    /// when the mask_fn region is given.
    ::attnc::mask::MaskSpec getMaskSpec();
    /// The scale applied to q.k: the attribute, or 1/sqrt(D).
    double getEffectiveScale();
    /// True when a mask_fn / score_fn region is present.
    bool hasMaskFn() { return !getMaskFn().empty(); }
    bool hasScoreFn() { return !getScoreFn().empty(); }
    /// True when a score is changed after scaling (soft-cap, ALiBi, region).
    bool hasScoreModification() {
      return getSoftcap() || getAlibi() || getAlibiSlopes() || hasScoreFn();
    }
    /// Named dimensions, read from the operand types (dynamic sizes are
    /// ShapedType::kDynamic).
    int64_t getBatchSize();
    int64_t getNumQueryHeads();
    int64_t getNumKeyValueHeads();
    int64_t getQuerySeqLen();
    int64_t getKeySeqLen();
    int64_t getHeadDim();
    int64_t getValueHeadDim();
    /// Paged KV (a page_table operand): key and value are pages
    /// [num_pages, page_size, Hkv, D]; the page size is their dim 1.
    bool isPaged() { return static_cast<bool>(getPageTable()); }
    int64_t getPageSize();
    /// A ragged batch (a cu_seqlens_q operand): N sequences packed along
    /// the query's Sq (and with cu_seqlens_k along the key's Sk).
    bool isRagged() { return static_cast<bool>(getCuSeqlensQ()); }
    /// The number of sequences: N of cu_seqlens_q [N + 1] in a ragged
    /// batch (dynamic when its size is), else the query batch B.
    int64_t getNumSequences();
  }];
}

//===----------------------------------------------------------------------===//
// Tiled level: the online-softmax state machine over buffers
//===----------------------------------------------------------------------===//

def Attn_TileStepOp : Attn_Op<"tile_step", [
    AttrSizedOperandSegments, AllTypesMatch<["row_max", "row_sum"]>,
    IsolatedFromAbove]> {
  let summary = "One online-softmax update of a query tile by a key tile.";
  let description = [{
    Updates the running state of the query tile starting at row `q_begin` of
    (batch, head) with the key/value tile starting at `k_begin`. With
    `cu_seqlens_q` (a ragged batch) `batch` is a sequence and `q_begin` a row
    of it, at offset cu_seqlens_q[batch] in the packed query; with
    `cu_seqlens_k` its keys are packed the same way. The state is
    the running row max m and row sum l ([block_q] f32, base-2 units) and the
    accumulator O ([block_q, Dv] f32). With S the tile's scores (the score
    pipeline of attn.attention, times log2(e), masked keys at -inf):

    ```
    m' = max(m, rowmax(S));  a = exp2(m - m');  P = exp2(S - m')
    l' = a * l + rowsum(P);  O' = a * O + round(P) V
    ```

    where a fully masked row keeps m' = -inf and contributes nothing. Rows
    and keys past the sequence ends are not touched. With `unmasked` the tile
    is known to be fully visible and no mask arithmetic is emitted for it.
    `attn-decompose-online-softmax` expands it into loops.
  }];
  let arguments = (ins
    AnyMemRef:$query, AnyMemRef:$key, AnyMemRef:$value,
    Optional<AnyMemRef>:$seq_ids,
    Optional<AnyMemRef>:$cu_seqlens,
    Optional<AnyMemRef>:$block_mask,
    Optional<AnyMemRef>:$alibi_slopes,
    Optional<AnyMemRef>:$kv_lens,
    Optional<AnyMemRef>:$page_table,
    Optional<AnyMemRef>:$kv_scales,
    Optional<AnyMemRef>:$cu_seqlens_q,
    Optional<AnyMemRef>:$cu_seqlens_k,
    AnyMemRef:$row_max, AnyMemRef:$row_sum, AnyMemRef:$acc,
    Index:$batch, Index:$head, Index:$q_begin, Index:$k_begin,
    OptionalAttr<Attn_MaskAttrInterface>:$mask,
    F32Attr:$scale,
    OptionalAttr<F32Attr>:$softcap,
    OptionalAttr<DenseF32ArrayAttr>:$alibi,
    I64Attr:$block_q, I64Attr:$block_k,
    UnitAttr:$unmasked
  );
  let regions = (region AnyRegion:$mask_fn, AnyRegion:$score_fn);
  let assemblyFormat = [{
    $query `,` $key `,` $value
    `state` `(` $row_max `,` $row_sum `,` $acc `)`
    `at` `(` $batch `,` $head `,` $q_begin `,` $k_begin `)`
    (`seq_ids` `(` $seq_ids^ `:` type($seq_ids) `)`)?
    (`cu_seqlens` `(` $cu_seqlens^ `:` type($cu_seqlens) `)`)?
    (`block_mask` `(` $block_mask^ `:` type($block_mask) `)`)?
    (`alibi_slopes` `(` $alibi_slopes^ `:` type($alibi_slopes) `)`)?
    (`kv_lens` `(` $kv_lens^ `:` type($kv_lens) `)`)?
    (`page_table` `(` $page_table^ `:` type($page_table) `)`)?
    (`kv_scales` `(` $kv_scales^ `:` type($kv_scales) `)`)?
    (`cu_seqlens_q` `(` $cu_seqlens_q^ `:` type($cu_seqlens_q) `)`)?
    (`cu_seqlens_k` `(` $cu_seqlens_k^ `:` type($cu_seqlens_k) `)`)?
    (`mask` `(` $mask^ `)`)?
    (`mask_fn` $mask_fn^)?
    (`score_fn` $score_fn^)?
    attr-dict `:` type($query) `,` type($key) `,` type($value) `,`
    type($row_max) `,` type($acc)
  }];
  let extraClassDeclaration = [{
    bool hasMaskFn() { return !getMaskFn().empty(); }
    bool hasScoreFn() { return !getScoreFn().empty(); }
    /// The plain description of the step's mask (Custom for a mask_fn).
    ::attnc::mask::MaskSpec getMaskSpec();
    /// Paged KV: key and value are pages [num_pages, page_size, Hkv, D].
    bool isPaged() { return static_cast<bool>(getPageTable()); }
  }];
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
}

def Attn_TileFinalizeOp : Attn_Op<"tile_finalize", [
    AttrSizedOperandSegments, AllTypesMatch<["row_max", "row_sum"]>]> {
  let summary = "Writes a query tile's output and log-sum-exp from its state.";
  let description = [{
    For every valid row r of the tile: O = acc / l (0 when l = 0) rounded to
    the output element type, and LSE = (m + log2(l)) * ln(2) (-inf when
    l = 0). With `cu_seqlens_q` (a ragged batch) `batch` is the sequence and
    `q_begin` a row of it: the rows are written at the sequence's offset in
    the packed output, and only the sequence's rows are valid.
  }];
  let arguments = (ins AnyMemRef:$row_max, AnyMemRef:$row_sum, AnyMemRef:$acc,
                       AnyMemRef:$output, Optional<AnyMemRef>:$lse,
                       Optional<AnyMemRef>:$cu_seqlens_q,
                       Index:$batch, Index:$head, Index:$q_begin);
  let assemblyFormat = [{
    `state` `(` $row_max `,` $row_sum `,` $acc `)` `into` $output
    (`lse` $lse^ `:` type($lse))?
    (`cu_seqlens_q` `(` $cu_seqlens_q^ `:` type($cu_seqlens_q) `)`)?
    `at` `(` $batch `,` $head `,` $q_begin `)`
    attr-dict `:` type($row_max) `,` type($acc) `,` type($output)
  }];
  let hasVerifier = 1;
}

def Attn_YieldOp : Attn_Op<"yield", [
    Pure, ReturnLike, Terminator, ParentOneOf<["AttentionOp", "TileStepOp"]>]> {
  let summary = "Yields the value of a mask_fn or score_fn region.";
  let arguments = (ins Variadic<AnyType>:$values);
  let assemblyFormat = "$values attr-dict `:` type($values)";
}

#endif // ATTN_OPS
