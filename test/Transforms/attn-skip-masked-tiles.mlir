// RUN: attnc-opt %s --attn-tile="block-q=32 block-k=16" --attn-skip-masked-tiles --cse --split-input-file --verify-diagnostics | FileCheck %s

// Causal: the key-tile range is split into boundary tiles, full tiles whose
// step is unmasked, and boundary tiles; the bounds are the mask interface's
// interval formulas (i' = i + Sk - Sq; row i sees keys [0, i' + 1)).
// CHECK-LABEL: func @causal
// CHECK: %[[SQ:.*]] = memref.dim %{{.*}}, %c2 : memref<1x2x?x32xbf16>
// CHECK-NEXT: %[[SK:.*]] = memref.dim %{{.*}}, %c2 : memref<1x2x?x32xbf16>
// CHECK: scf.parallel
// CHECK: %[[SHIFT:.*]] = arith.subi %[[SK]], %[[SQ]] : index
// CHECK-NEXT: arith.addi %{{.*}}, %[[SHIFT]] : index
// Proves only the middle loop's step is unmasked: each boundary step line is
// free of `unmasked` up to its end ({{$}}), past the attribute dictionary.
// CHECK: scf.for %{{.*}} = %[[LO:.*]] to %[[FULL_LO:.*]] step
// CHECK: attn.tile_step
// CHECK-SAME: mask(#attn.causal)
// CHECK-NOT: unmasked
// CHECK-SAME: {{$}}
// CHECK: scf.for %{{.*}} = %[[FULL_LO]] to %[[FULL_HI:.*]] step
// CHECK: attn.tile_step {{.*}} unmasked}
// CHECK: scf.for %{{.*}} = %[[FULL_HI]] to %[[HI:.*]] step
// CHECK: attn.tile_step
// CHECK-NOT: unmasked
// CHECK-SAME: {{$}}
// CHECK-NOT: attn.key_tiles
// CHECK: attn.tile_finalize
func.func @causal(%q: tensor<1x2x?x32xbf16>, %k: tensor<1x2x?x32xbf16>, %v: tensor<1x2x?x32xbf16>) -> tensor<1x2x?x32xbf16> {
  // expected-remark @+1 {{attn-skip-masked-tiles: mask #attn.causal: closed-form bounds}}
  %o = attn.attention %q, %k, %v mask(#attn.causal) : tensor<1x2x?x32xbf16>, tensor<1x2x?x32xbf16>, tensor<1x2x?x32xbf16> -> tensor<1x2x?x32xbf16>
  return %o : tensor<1x2x?x32xbf16>
}

// -----

// Sliding window and prefix-LM use the same closed form, with their own
// interval: the window subtracts `left` from i', the prefix takes the max
// with the prefix length.
// CHECK-LABEL: func @window_and_prefix
// CHECK: arith.subi %{{.*}}, %c100 : index
// CHECK: unmasked
// CHECK: arith.maxsi %c40, %{{.*}} : index
// CHECK: unmasked
func.func @window_and_prefix(%q: tensor<1x2x?x32xf32>, %k: tensor<1x2x?x32xf32>, %v: tensor<1x2x?x32xf32>) -> (tensor<1x2x?x32xf32>, tensor<1x2x?x32xf32>) {
  // expected-remark @+1 {{mask #attn.sliding_window<left = 100, right = 0>: closed-form bounds}}
  %a = attn.attention %q, %k, %v mask(#attn.sliding_window<left = 100, right = 0>) : tensor<1x2x?x32xf32>, tensor<1x2x?x32xf32>, tensor<1x2x?x32xf32> -> tensor<1x2x?x32xf32>
  // expected-remark @+1 {{mask #attn.prefix_lm<prefix = 40, top_left>: closed-form bounds}}
  %b = attn.attention %q, %k, %v mask(#attn.prefix_lm<prefix = 40, top_left>) : tensor<1x2x?x32xf32>, tensor<1x2x?x32xf32>, tensor<1x2x?x32xf32> -> tensor<1x2x?x32xf32>
  return %a, %b : tensor<1x2x?x32xf32>, tensor<1x2x?x32xf32>
}

// -----

// No mask: every tile is full.
// CHECK-LABEL: func @no_mask
// CHECK: attn.tile_step {{.*}} unmasked}
func.func @no_mask(%q: tensor<1x2x?x32xf32>, %k: tensor<1x2x?x32xf32>, %v: tensor<1x2x?x32xf32>) -> tensor<1x2x?x32xf32> {
  // expected-remark @+1 {{mask none: closed-form bounds}}
  %o = attn.attention %q, %k, %v : tensor<1x2x?x32xf32>, tensor<1x2x?x32xf32>, tensor<1x2x?x32xf32> -> tensor<1x2x?x32xf32>
  return %o : tensor<1x2x?x32xf32>
}

// -----

// cu_seqlens documents: the documents around the tile's first and last rows
// are found at run time by scanning the offsets.
// CHECK-LABEL: func @document_cu_seqlens
// CHECK: scf.for {{.*}} iter_args
// CHECK: memref.load %{{.*}} : memref<?xi32>
// CHECK: attn.tile_step {{.*}} unmasked}
func.func @document_cu_seqlens(%q: tensor<1x2x?x32xf32>, %k: tensor<1x2x?x32xf32>, %v: tensor<1x2x?x32xf32>, %cu: tensor<?xi32>) -> tensor<1x2x?x32xf32> {
  // expected-remark @+1 {{mask #attn.document<cu_seqlens, causal>: run-time document ranges}}
  %o = attn.attention %q, %k, %v cu_seqlens(%cu : tensor<?xi32>) mask(#attn.document<cu_seqlens, causal>) : tensor<1x2x?x32xf32>, tensor<1x2x?x32xf32>, tensor<1x2x?x32xf32> -> tensor<1x2x?x32xf32>
  return %o : tensor<1x2x?x32xf32>
}

// -----

// Block-sparse: each tile counts its visible blocks at run time; no visible
// block skips the tile, all visible runs it unmasked.
// CHECK-LABEL: func @block_sparse
// CHECK: scf.for %[[KT:.*]] =
// CHECK: %[[COUNT:.*]] = scf.for {{.*}} iter_args
// CHECK: memref.load %{{.*}} : memref<1x1x?x?xi8>
// CHECK: %[[EMPTY:.*]] = arith.cmpi eq, %[[COUNT]], %c0
// CHECK: %[[ALL:.*]] = arith.cmpi eq, %[[COUNT]]
// CHECK: %[[ANY:.*]] = arith.xori %[[EMPTY]], %true
// CHECK: scf.if %[[ANY]] {
// CHECK-NEXT: scf.if %[[ALL]] {
// CHECK-NEXT: attn.tile_step {{.*}} unmasked}
// Proves the partly visible tile's step is not unmasked (whole line checked:
// `: memref` would stop at block_mask(... : memref), before the attributes).
// CHECK: } else {
// CHECK-NEXT: attn.tile_step
// CHECK-NOT: unmasked
// CHECK-SAME: {{$}}
func.func @block_sparse(%q: tensor<1x2x?x32xf32>, %k: tensor<1x2x?x32xf32>, %v: tensor<1x2x?x32xf32>, %bm: tensor<1x1x?x?xi8>) -> tensor<1x2x?x32xf32> {
  // expected-remark @+1 {{mask #attn.block_sparse<block_q = 64, block_k = 64>: run-time block table}}
  %o = attn.attention %q, %k, %v block_mask(%bm : tensor<1x1x?x?xi8>) mask(#attn.block_sparse<block_q = 64, block_k = 64>) : tensor<1x2x?x32xf32>, tensor<1x2x?x32xf32>, tensor<1x2x?x32xf32> -> tensor<1x2x?x32xf32>
  return %o : tensor<1x2x?x32xf32>
}

// -----

// seq_ids documents and mask_fn regions are classified per tile at run
// time: document id ranges; an affine region at the tile's corners; any
// other region evaluated over the tile. Each wraps the step in scf.if.
// CHECK-LABEL: func @run_time_tests
// CHECK: scf.if
// CHECK: attn.tile_step {{.*}} mask(#attn.document<seq_ids>) {{.*}} unmasked}
// The affine case: corner values of q >= k combined for the whole tile.
// CHECK: arith.cmpi sge
// CHECK: arith.cmpi sge
// CHECK: arith.cmpi sge
// CHECK: arith.cmpi sge
// CHECK: scf.if
// The scan case: the region inside a loop nest over the tile.
// CHECK: scf.for
// CHECK: scf.for
// CHECK: arith.remui
// CHECK: scf.if
// CHECK: return
func.func @run_time_tests(%q: tensor<1x2x?x32xf32>, %k: tensor<1x2x?x32xf32>, %v: tensor<1x2x?x32xf32>, %ids: tensor<1x?xi32>) -> (tensor<1x2x?x32xf32>, tensor<1x2x?x32xf32>, tensor<1x2x?x32xf32>) {
  // expected-remark @+1 {{mask #attn.document<seq_ids>: run-time document id ranges}}
  %a = attn.attention %q, %k, %v seq_ids(%ids : tensor<1x?xi32>) mask(#attn.document<seq_ids>) : tensor<1x2x?x32xf32>, tensor<1x2x?x32xf32>, tensor<1x2x?x32xf32> -> tensor<1x2x?x32xf32>
  // expected-remark @+1 {{mask mask_fn region: affine mask_fn, tiles classified at their corners}}
  %b = attn.attention %q, %k, %v mask_fn {
  ^bb0(%bb: index, %h: index, %i: index, %j: index):
    %c = arith.cmpi sge, %i, %j : index
    attn.yield %c : i1
  } : tensor<1x2x?x32xf32>, tensor<1x2x?x32xf32>, tensor<1x2x?x32xf32> -> tensor<1x2x?x32xf32>
  // expected-remark @+1 {{mask mask_fn region: mask_fn evaluated over each tile at run time}}
  %c = attn.attention %q, %k, %v mask_fn {
  ^bb0(%bb: index, %h: index, %i: index, %j: index):
    %c2 = arith.constant 2 : index
    %r = arith.remui %j, %c2 : index
    %c0 = arith.constant 0 : index
    %even = arith.cmpi eq, %r, %c0 : index
    attn.yield %even : i1
  } : tensor<1x2x?x32xf32>, tensor<1x2x?x32xf32>, tensor<1x2x?x32xf32> -> tensor<1x2x?x32xf32>
  return %a, %b, %c : tensor<1x2x?x32xf32>, tensor<1x2x?x32xf32>, tensor<1x2x?x32xf32>
}
