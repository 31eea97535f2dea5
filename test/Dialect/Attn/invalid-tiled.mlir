// Verifier messages of the tiled-level ops, one case each.
// RUN: attnc-opt %s -split-input-file -verify-diagnostics

func.func @rank(%q: memref<4x?x16xf32>, %k: memref<1x2x?x16xf32>, %v: memref<1x2x?x16xf32>, %m: memref<8xf32>, %acc: memref<8x16xf32>, %i: index) {
  // expected-error @+1 {{expected query of rank 4 with static head count and head dim, got 'memref<4x?x16xf32>'}}
  attn.tile_step %q, %k, %v state(%m, %m, %acc) at(%i, %i, %i, %i) {block_k = 4 : i64, block_q = 8 : i64, scale = 1.0 : f32} : memref<4x?x16xf32>, memref<1x2x?x16xf32>, memref<1x2x?x16xf32>, memref<8xf32>, memref<8x16xf32>
  return
}

// -----

func.func @element_types(%q: memref<1x2x?x16xf16>, %k: memref<1x2x?x16xf32>, %v: memref<1x2x?x16xf32>, %m: memref<8xf32>, %acc: memref<8x16xf32>, %i: index) {
  // expected-error @+1 {{expected query, key and value of one element type}}
  attn.tile_step %q, %k, %v state(%m, %m, %acc) at(%i, %i, %i, %i) {block_k = 4 : i64, block_q = 8 : i64, scale = 1.0 : f32} : memref<1x2x?x16xf16>, memref<1x2x?x16xf32>, memref<1x2x?x16xf32>, memref<8xf32>, memref<8x16xf32>
  return
}

// -----

func.func @heads(%q: memref<1x3x?x16xf32>, %k: memref<1x2x?x16xf32>, %v: memref<1x2x?x16xf32>, %m: memref<8xf32>, %acc: memref<8x16xf32>, %i: index) {
  // expected-error @+1 {{expected key head dim 16 to match query head dim 16 and query heads 3 to be a multiple of key/value heads 2}}
  attn.tile_step %q, %k, %v state(%m, %m, %acc) at(%i, %i, %i, %i) {block_k = 4 : i64, block_q = 8 : i64, scale = 1.0 : f32} : memref<1x3x?x16xf32>, memref<1x2x?x16xf32>, memref<1x2x?x16xf32>, memref<8xf32>, memref<8x16xf32>
  return
}

// -----

func.func @block_sizes(%q: memref<1x2x?x16xf32>, %m: memref<8xf32>, %acc: memref<8x16xf32>, %i: index) {
  // expected-error @+1 {{expected block sizes in [1, 4096], got block_q = 8, block_k = 0}}
  attn.tile_step %q, %q, %q state(%m, %m, %acc) at(%i, %i, %i, %i) {block_k = 0 : i64, block_q = 8 : i64, scale = 1.0 : f32} : memref<1x2x?x16xf32>, memref<1x2x?x16xf32>, memref<1x2x?x16xf32>, memref<8xf32>, memref<8x16xf32>
  return
}

// -----

func.func @mask_and_region(%q: memref<1x2x?x16xf32>, %m: memref<8xf32>, %acc: memref<8x16xf32>, %i: index) {
  // expected-error @+1 {{expected either a mask attribute or a mask_fn region, not both}}
  attn.tile_step %q, %q, %q state(%m, %m, %acc) at(%i, %i, %i, %i) mask(#attn.causal) mask_fn {
  ^bb0(%b: index, %h: index, %x: index, %y: index):
    %c = arith.cmpi sge, %x, %y : index
    attn.yield %c : i1
  } {block_k = 4 : i64, block_q = 8 : i64, scale = 1.0 : f32} : memref<1x2x?x16xf32>, memref<1x2x?x16xf32>, memref<1x2x?x16xf32>, memref<8xf32>, memref<8x16xf32>
  return
}

// -----

func.func @missing_operand(%q: memref<1x2x?x16xf32>, %m: memref<8xf32>, %acc: memref<8x16xf32>, %i: index) {
  // expected-error @+1 {{expected a cu_seqlens operand for this mask}}
  attn.tile_step %q, %q, %q state(%m, %m, %acc) at(%i, %i, %i, %i) mask(#attn.document<cu_seqlens>) {block_k = 4 : i64, block_q = 8 : i64, scale = 1.0 : f32} : memref<1x2x?x16xf32>, memref<1x2x?x16xf32>, memref<1x2x?x16xf32>, memref<8xf32>, memref<8x16xf32>
  return
}

// -----

func.func @extra_operand(%q: memref<1x2x?x16xf32>, %m: memref<8xf32>, %acc: memref<8x16xf32>, %i: index, %ids: memref<1x?xi32>) {
  // expected-error @+1 {{expected no seq_ids operand for this mask}}
  attn.tile_step %q, %q, %q state(%m, %m, %acc) at(%i, %i, %i, %i) seq_ids(%ids : memref<1x?xi32>) mask(#attn.causal) {block_k = 4 : i64, block_q = 8 : i64, scale = 1.0 : f32} : memref<1x2x?x16xf32>, memref<1x2x?x16xf32>, memref<1x2x?x16xf32>, memref<8xf32>, memref<8x16xf32>
  return
}

// -----

func.func @row_state(%q: memref<1x2x?x16xf32>, %m: memref<4xf32>, %acc: memref<8x16xf32>, %i: index) {
  // expected-error @+1 {{expected row_max and row_sum of type memref<8xf32>, got 'memref<4xf32>'}}
  attn.tile_step %q, %q, %q state(%m, %m, %acc) at(%i, %i, %i, %i) {block_k = 4 : i64, block_q = 8 : i64, scale = 1.0 : f32} : memref<1x2x?x16xf32>, memref<1x2x?x16xf32>, memref<1x2x?x16xf32>, memref<4xf32>, memref<8x16xf32>
  return
}

// -----

func.func @acc_state(%q: memref<1x2x?x16xf32>, %m: memref<8xf32>, %acc: memref<8x32xf32>, %i: index) {
  // expected-error @+1 {{expected acc of type memref<8x16xf32>, got 'memref<8x32xf32>'}}
  attn.tile_step %q, %q, %q state(%m, %m, %acc) at(%i, %i, %i, %i) {block_k = 4 : i64, block_q = 8 : i64, scale = 1.0 : f32} : memref<1x2x?x16xf32>, memref<1x2x?x16xf32>, memref<1x2x?x16xf32>, memref<8xf32>, memref<8x32xf32>
  return
}

// -----

func.func @finalize_acc_rank(%m: memref<8xf32>, %acc: memref<8xf32>, %o: memref<1x2x?x16xf32>, %i: index) {
  // expected-error @+1 {{expected acc of rank 2, got 'memref<8xf32>'}}
  attn.tile_finalize state(%m, %m, %acc) into %o at(%i, %i, %i) : memref<8xf32>, memref<8xf32>, memref<1x2x?x16xf32>
  return
}

// -----

func.func @finalize_output(%m: memref<8xf32>, %acc: memref<8x16xf32>, %o: memref<1x2x?x32xf32>, %i: index) {
  // expected-error @+1 {{expected output of rank 4 with head dim 16, got 'memref<1x2x?x32xf32>'}}
  attn.tile_finalize state(%m, %m, %acc) into %o at(%i, %i, %i) : memref<8xf32>, memref<8x16xf32>, memref<1x2x?x32xf32>
  return
}

// -----

func.func @finalize_lse(%m: memref<8xf32>, %acc: memref<8x16xf32>, %o: memref<1x2x?x16xf32>, %lse: memref<1x2x?xf16>, %i: index) {
  // expected-error @+1 {{expected lse of rank 3 and element type f32, got 'memref<1x2x?xf16>'}}
  attn.tile_finalize state(%m, %m, %acc) into %o lse %lse : memref<1x2x?xf16> at(%i, %i, %i) : memref<8xf32>, memref<8x16xf32>, memref<1x2x?x16xf32>
  return
}

// -----

func.func @finalize_state(%m: memref<4xf32>, %acc: memref<8x16xf32>, %o: memref<1x2x?x16xf32>, %i: index) {
  // expected-error @+1 {{expected row_max and row_sum of type memref<8xf32>, got 'memref<4xf32>'}}
  attn.tile_finalize state(%m, %m, %acc) into %o at(%i, %i, %i) : memref<4xf32>, memref<8x16xf32>, memref<1x2x?x16xf32>
  return
}

// -----

// The regions of a tile step are isolated from above, as those of
// attn.attention: a lowering copies them into kernels, which cannot see the
// host's values.
func.func @region_uses_outside(%q: memref<1x2x?x16xf32>, %m: memref<8xf32>, %acc: memref<8x16xf32>, %i: index) {
  %c20 = arith.constant 20 : index
  // expected-note @+1 {{required by region isolation constraints}}
  attn.tile_step %q, %q, %q state(%m, %m, %acc) at(%i, %i, %i, %i) mask_fn {
  ^bb0(%b: index, %h: index, %qi: index, %kj: index):
    // expected-error @+1 {{'arith.addi' op using value defined outside the region}}
    %s = arith.addi %kj, %c20 : index
    %vis = arith.cmpi slt, %qi, %s : index
    attn.yield %vis : i1
  } {block_k = 4 : i64, block_q = 8 : i64, scale = 1.0 : f32} : memref<1x2x?x16xf32>, memref<1x2x?x16xf32>, memref<1x2x?x16xf32>, memref<8xf32>, memref<8x16xf32>
  return
}

// -----

// A negative block size is not read as a huge unsigned one.
func.func @block_sizes_negative(%q: memref<1x2x?x16xf32>, %m: memref<8xf32>, %acc: memref<8x16xf32>, %i: index) {
  // expected-error @+1 {{expected block sizes in [1, 4096], got block_q = 8, block_k = -4}}
  attn.tile_step %q, %q, %q state(%m, %m, %acc) at(%i, %i, %i, %i) {block_k = -4 : i64, block_q = 8 : i64, scale = 1.0 : f32} : memref<1x2x?x16xf32>, memref<1x2x?x16xf32>, memref<1x2x?x16xf32>, memref<8xf32>, memref<8x16xf32>
  return
}

// -----

func.func @element_type_f64(%q: memref<1x2x?x16xf64>, %m: memref<8xf32>, %acc: memref<8x16xf32>, %i: index) {
  // expected-error @+1 {{expected query element type bf16, f16 or f32, got 'f64'}}
  attn.tile_step %q, %q, %q state(%m, %m, %acc) at(%i, %i, %i, %i) {block_k = 4 : i64, block_q = 8 : i64, scale = 1.0 : f32} : memref<1x2x?x16xf64>, memref<1x2x?x16xf64>, memref<1x2x?x16xf64>, memref<8xf32>, memref<8x16xf32>
  return
}

// -----

// The regions of a tile step are checked as those of attn.attention: a
// mask_fn that yields nothing would leave the passes without a value.
func.func @mask_fn_yields_nothing(%q: memref<1x2x?x16xf32>, %m: memref<8xf32>, %acc: memref<8x16xf32>, %i: index) {
  // expected-error @+1 {{expected mask_fn to yield one 'i1', got 0 value(s)}}
  attn.tile_step %q, %q, %q state(%m, %m, %acc) at(%i, %i, %i, %i) mask_fn {
  ^bb0(%b: index, %h: index, %qi: index, %kj: index):
    "attn.yield"() : () -> ()
  } {block_k = 4 : i64, block_q = 8 : i64, scale = 1.0 : f32} : memref<1x2x?x16xf32>, memref<1x2x?x16xf32>, memref<1x2x?x16xf32>, memref<8xf32>, memref<8x16xf32>
  return
}

// -----

func.func @score_fn_arguments(%q: memref<1x2x?x16xf32>, %m: memref<8xf32>, %acc: memref<8x16xf32>, %i: index) {
  // expected-error @+1 {{expected score_fn arguments (s: f32, b: index, h: index, q: index, k: index), got (f32)}}
  attn.tile_step %q, %q, %q state(%m, %m, %acc) at(%i, %i, %i, %i) score_fn {
  ^bb0(%s: f32):
    attn.yield %s : f32
  } {block_k = 4 : i64, block_q = 8 : i64, scale = 1.0 : f32} : memref<1x2x?x16xf32>, memref<1x2x?x16xf32>, memref<1x2x?x16xf32>, memref<8xf32>, memref<8x16xf32>
  return
}

// -----

// Tile sizes beyond 4096 rows or keys are refused, not expanded.
func.func @block_sizes_huge(%q: memref<1x2x?x16xf32>, %m: memref<8xf32>, %acc: memref<8x16xf32>, %i: index) {
  // expected-error @+1 {{expected block sizes in [1, 4096], got block_q = 9223372036854775807, block_k = 4}}
  attn.tile_step %q, %q, %q state(%m, %m, %acc) at(%i, %i, %i, %i) {block_k = 4 : i64, block_q = 9223372036854775807 : i64, scale = 1.0 : f32} : memref<1x2x?x16xf32>, memref<1x2x?x16xf32>, memref<1x2x?x16xf32>, memref<8xf32>, memref<8x16xf32>
  return
}

// -----

func.func @paged_without_lens(%q: memref<1x4x?x16xf32>, %k: memref<?x8x2x16xf32>, %t: memref<1x?xi32>, %m: memref<8xf32>, %acc: memref<8x16xf32>, %i: index) {
  // expected-error @+1 {{expected kv_lens with page_table}}
  attn.tile_step %q, %k, %k state(%m, %m, %acc) at(%i, %i, %i, %i) page_table(%t : memref<1x?xi32>) {block_k = 4 : i64, block_q = 8 : i64, scale = 1.0 : f32} : memref<1x4x?x16xf32>, memref<?x8x2x16xf32>, memref<?x8x2x16xf32>, memref<8xf32>, memref<8x16xf32>
  return
}

// -----

func.func @fp8_without_scales(%q: memref<1x4x?x16xf32>, %k: memref<1x2x?x16xf8E4M3FN>, %m: memref<8xf32>, %acc: memref<8x16xf32>, %i: index) {
  // expected-error @+1 {{expected query, key and value of one element type (keys and values fp8 e4m3 with kv_scales)}}
  attn.tile_step %q, %k, %k state(%m, %m, %acc) at(%i, %i, %i, %i) {block_k = 4 : i64, block_q = 8 : i64, scale = 1.0 : f32} : memref<1x4x?x16xf32>, memref<1x2x?x16xf8E4M3FN>, memref<1x2x?x16xf8E4M3FN>, memref<8xf32>, memref<8x16xf32>
  return
}

// -----

func.func @ragged_keys_without_queries(%q: memref<1x4x?x16xf32>, %k: memref<1x2x?x16xf32>, %c: memref<?xi32>, %m: memref<8xf32>, %acc: memref<8x16xf32>, %i: index) {
  // expected-error @+1 {{expected cu_seqlens_q with cu_seqlens_k}}
  attn.tile_step %q, %k, %k state(%m, %m, %acc) at(%i, %i, %i, %i) cu_seqlens_k(%c : memref<?xi32>) {block_k = 4 : i64, block_q = 8 : i64, scale = 1.0 : f32} : memref<1x4x?x16xf32>, memref<1x2x?x16xf32>, memref<1x2x?x16xf32>, memref<8xf32>, memref<8x16xf32>
  return
}

// -----

func.func @ragged_without_keys(%q: memref<1x4x?x16xf32>, %k: memref<1x2x?x16xf32>, %c: memref<?xi32>, %m: memref<8xf32>, %acc: memref<8x16xf32>, %i: index) {
  // expected-error @+1 {{expected one of cu_seqlens_k and kv_lens with cu_seqlens_q}}
  attn.tile_step %q, %k, %k state(%m, %m, %acc) at(%i, %i, %i, %i) cu_seqlens_q(%c : memref<?xi32>) {block_k = 4 : i64, block_q = 8 : i64, scale = 1.0 : f32} : memref<1x4x?x16xf32>, memref<1x2x?x16xf32>, memref<1x2x?x16xf32>, memref<8xf32>, memref<8x16xf32>
  return
}
