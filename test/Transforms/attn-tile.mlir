// RUN: attnc-opt %s --attn-tile="block-q=32 block-k=16" --split-input-file --verify-diagnostics | FileCheck %s
// RUN: not attnc-opt %s --attn-tile="block-q=0" --split-input-file 2>&1 | FileCheck %s --check-prefix=BADOPT
// BADOPT: error: expected positive tile sizes, got block-q = 0, block-k = 64

// The query tiles are a parallel loop over (batch, head, tile), the state
// lives in stack buffers of the tile's size, the key tiles are a sequential
// loop of tile steps, and a finalize writes the output and LSE.
// CHECK-LABEL: func @causal_gqa
// CHECK-DAG: %[[Q:.*]] = bufferization.to_buffer %arg0 read_only
// CHECK-DAG: %[[K:.*]] = bufferization.to_buffer %arg1 read_only
// CHECK-DAG: %[[V:.*]] = bufferization.to_buffer %arg2 read_only
// CHECK-DAG: %[[OUT:.*]] = memref.alloc({{.*}}) : memref<?x8x?x64xbf16>
// CHECK-DAG: %[[LSE:.*]] = memref.alloc({{.*}}) : memref<?x8x?xf32>
// CHECK: scf.parallel (%[[B:.*]], %[[H:.*]], %[[T:.*]]) =
// The state of one query tile lives on the heap for the tile, and is freed
// after the finalize.
// CHECK-DAG: %[[M:.*]] = memref.alloc() : memref<32xf32>
// CHECK-DAG: %[[L:.*]] = memref.alloc() : memref<32xf32>
// CHECK-DAG: %[[ACC:.*]] = memref.alloc() : memref<32x64xf32>
// CHECK: %[[Q0:.*]] = arith.muli %[[T]], %{{.*}} : index
// CHECK: scf.for %[[KT:.*]] =
// CHECK: %[[K0:.*]] = arith.muli %[[KT]]
// CHECK: attn.tile_step %[[Q]], %[[K]], %[[V]] state(%[[M]], %[[L]], %[[ACC]]) at(%[[B]], %[[H]], %[[Q0]], %[[K0]]) mask(#attn.causal) {block_k = 16 : i64, block_q = 32 : i64, scale = 1.250000e-01 : f32, softcap = 3.000000e+01 : f32}
// CHECK: } {attn.key_tiles}
// CHECK: attn.tile_finalize state(%[[M]], %[[L]], %[[ACC]]) into %[[OUT]] lse %[[LSE]]
// CHECK-NEXT: memref.dealloc %[[M]]
// CHECK-NEXT: memref.dealloc %[[L]]
// CHECK-NEXT: memref.dealloc %[[ACC]]
// CHECK: bufferization.to_tensor %[[OUT]] restrict writable
// CHECK: bufferization.to_tensor %[[LSE]] restrict writable
func.func @causal_gqa(%q: tensor<?x8x?x64xbf16>, %k: tensor<?x2x?x64xbf16>, %v: tensor<?x2x?x64xbf16>) -> (tensor<?x8x?x64xbf16>, tensor<?x8x?xf32>) {
  %o, %lse = attn.attention %q, %k, %v mask(#attn.causal) softcap = 30.0 : tensor<?x8x?x64xbf16>, tensor<?x2x?x64xbf16>, tensor<?x2x?x64xbf16> -> tensor<?x8x?x64xbf16>, tensor<?x8x?xf32>
  return %o, %lse : tensor<?x8x?x64xbf16>, tensor<?x8x?xf32>
}

// -----

// The op's attn.tile_sizes wins over the pass options; regions and mask
// operands travel with every step.
// CHECK-LABEL: func @op_tile_sizes_and_regions
// CHECK: memref.alloc() : memref<16xf32>
// CHECK: attn.tile_step {{.*}} seq_ids(%{{.*}} : memref<1x?xi32>) mask(#attn.document<seq_ids>) score_fn {
// CHECK: math.tanh
// CHECK: {block_k = 8 : i64, block_q = 16 : i64, scale = 5.000000e-01 : f32}
func.func @op_tile_sizes_and_regions(%q: tensor<1x2x?x16xf32>, %k: tensor<1x2x?x16xf32>, %v: tensor<1x2x?x16xf32>, %ids: tensor<1x?xi32>) -> tensor<1x2x?x16xf32> {
  %o = attn.attention %q, %k, %v seq_ids(%ids : tensor<1x?xi32>) mask(#attn.document<seq_ids>) scale = 0.5 score_fn {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
    %t = math.tanh %s : f32
    attn.yield %t : f32
  } {attn.tile_sizes = array<i64: 16, 8>} : tensor<1x2x?x16xf32>, tensor<1x2x?x16xf32>, tensor<1x2x?x16xf32> -> tensor<1x2x?x16xf32>
  return %o : tensor<1x2x?x16xf32>
}

// -----

// A module's attn.tile_sizes applies to every op in it.
module attributes {attn.tile_sizes = array<i64: 8, 4>} {
  // CHECK-LABEL: func @module_tile_sizes
  // CHECK: memref.alloc() : memref<8x32xf32>
  // CHECK: block_k = 4 : i64, block_q = 8 : i64
  func.func @module_tile_sizes(%q: tensor<1x1x?x32xf16>, %k: tensor<1x1x?x32xf16>, %v: tensor<1x1x?x32xf16>) -> tensor<1x1x?x32xf16> {
    %o = attn.attention %q, %k, %v : tensor<1x1x?x32xf16>, tensor<1x1x?x32xf16>, tensor<1x1x?x32xf16> -> tensor<1x1x?x32xf16>
    return %o : tensor<1x1x?x32xf16>
  }
}

// -----

// A result materialized into a buffer is written there directly.
// CHECK-LABEL: func @destination_passing
// CHECK-SAME: %[[DEST:[a-z0-9]+]]: memref<1x1x?x32xf16>
// The output buffer is not allocated (the state buffers are, without
// dynamic sizes).
// CHECK-NOT: memref.alloc(%
// CHECK: attn.tile_finalize {{.*}} into %[[DEST]]
// CHECK-NOT: materialize_in_destination
func.func @destination_passing(%q: tensor<1x1x?x32xf16>, %k: tensor<1x1x?x32xf16>, %v: tensor<1x1x?x32xf16>, %dest: memref<1x1x?x32xf16>) {
  %o = attn.attention %q, %k, %v : tensor<1x1x?x32xf16>, tensor<1x1x?x32xf16>, tensor<1x1x?x32xf16> -> tensor<1x1x?x32xf16>
  bufferization.materialize_in_destination %o in restrict writable %dest : (tensor<1x1x?x32xf16>, memref<1x1x?x32xf16>) -> ()
  return
}

// -----

// A destination that is not `restrict` may alias the keys or values, which
// later tiles still read: the output goes to a new buffer and
// materialize_in_destination copies it.
// CHECK-LABEL: func @destination_may_alias
// CHECK-SAME: %[[DEST:[a-z0-9]+]]: memref<1x1x?x32xf16>
// CHECK: %[[OUT:.*]] = memref.alloc(%{{.*}}) : memref<1x1x?x32xf16>
// CHECK: attn.tile_finalize {{.*}} into %[[OUT]]
// CHECK: bufferization.materialize_in_destination %{{.*}} in writable %[[DEST]]
func.func @destination_may_alias(%q: tensor<1x1x?x32xf16>, %k: tensor<1x1x?x32xf16>, %v: tensor<1x1x?x32xf16>, %dest: memref<1x1x?x32xf16>) {
  %o = attn.attention %q, %k, %v : tensor<1x1x?x32xf16>, tensor<1x1x?x32xf16>, tensor<1x1x?x32xf16> -> tensor<1x1x?x32xf16>
  bufferization.materialize_in_destination %o in writable %dest : (tensor<1x1x?x32xf16>, memref<1x1x?x32xf16>) -> ()
  return
}

// -----

func.func @bad_tile_sizes(%q: tensor<1x1x?x32xf16>, %k: tensor<1x1x?x32xf16>, %v: tensor<1x1x?x32xf16>) -> tensor<1x1x?x32xf16> {
  // expected-error @+1 {{expected attn.tile_sizes to be array<i64: block_q, block_k> with sizes in [1, 4096], got array<i64: 0, 4>}}
  %o = attn.attention %q, %k, %v {attn.tile_sizes = array<i64: 0, 4>} : tensor<1x1x?x32xf16>, tensor<1x1x?x32xf16>, tensor<1x1x?x32xf16> -> tensor<1x1x?x32xf16>
  return %o : tensor<1x1x?x32xf16>
}

// -----

// Per-sequence KV lengths: the key loop of batch entry b runs over
// ceil(clamp(kv_lens[b], 0, Sk) / block_k) tiles, and every step carries
// kv_lens (its masks align to that length).
// CHECK-LABEL: func @kv_lens
// CHECK-DAG: %[[LENS:.*]] = bufferization.to_buffer %arg3 read_only
// CHECK-DAG: %[[SK:.*]] = memref.dim %{{.*}}, %c2{{.*}} : memref<?x2x?x64xbf16>
// CHECK: scf.parallel (%[[B:.*]], %{{.*}}, %{{.*}}) =
// CHECK: %[[LEN32:.*]] = memref.load %[[LENS]][%[[B]]] : memref<?xi32>
// CHECK: %[[LEN:.*]] = arith.index_cast %[[LEN32]] : i32 to index
// CHECK: %[[LO:.*]] = arith.maxsi %[[LEN]], %c0{{.*}}
// CHECK: %[[CL:.*]] = arith.minsi %[[LO]], %[[SK]]
// CHECK: %[[TILES:.*]] = arith.ceildivui %[[CL]], %c16
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %[[TILES]]
// CHECK: attn.tile_step {{.*}} kv_lens(%[[LENS]] : memref<?xi32>) mask(#attn.causal)
func.func @kv_lens(%q: tensor<?x8x?x64xbf16>, %k: tensor<?x2x?x64xbf16>, %v: tensor<?x2x?x64xbf16>, %l: tensor<?xi32>) -> tensor<?x8x?x64xbf16> {
  %o = attn.attention %q, %k, %v kv_lens(%l : tensor<?xi32>) mask(#attn.causal) : tensor<?x8x?x64xbf16>, tensor<?x2x?x64xbf16>, tensor<?x2x?x64xbf16> -> tensor<?x8x?x64xbf16>
  return %o : tensor<?x8x?x64xbf16>
}

// -----

// A paged cache: Sk is max_pages * page_size (page_table dim 1 times key
// dim 1), the key loop is bounded by kv_lens, and every step carries both.
// CHECK-LABEL: func @paged
// CHECK-DAG: %[[LENS:.*]] = bufferization.to_buffer %arg3 read_only
// CHECK-DAG: %[[PT:.*]] = bufferization.to_buffer %arg4 read_only
// CHECK-DAG: %[[PAGES:.*]] = memref.dim %[[PT]], %c1
// CHECK-DAG: %[[PSIZE:.*]] = memref.dim %{{.*}}, %c1{{.*}} : memref<?x16x2x64xbf16>
// CHECK: %[[SK:.*]] = arith.muli %[[PAGES]], %[[PSIZE]]
// CHECK: scf.parallel
// CHECK: arith.minsi %{{.*}}, %[[SK]]
// CHECK: attn.tile_step {{.*}} kv_lens(%[[LENS]] : memref<?xi32>) page_table(%[[PT]] : memref<?x?xi32>) mask(#attn.causal)
func.func @paged(%q: tensor<?x8x?x64xbf16>, %k: tensor<?x16x2x64xbf16>, %v: tensor<?x16x2x64xbf16>, %l: tensor<?xi32>, %t: tensor<?x?xi32>) -> tensor<?x8x?x64xbf16> {
  %o = attn.attention %q, %k, %v kv_lens(%l : tensor<?xi32>) page_table(%t : tensor<?x?xi32>) mask(#attn.causal) : tensor<?x8x?x64xbf16>, tensor<?x16x2x64xbf16>, tensor<?x16x2x64xbf16> -> tensor<?x8x?x64xbf16>
  return %o : tensor<?x8x?x64xbf16>
}

// -----

// A ragged batch: the grid runs over the N sequences (cu_seqlens_q holds
// N + 1 offsets) and ceil(Tq / block_q) query tiles; a sequence's key loop
// runs over its own keys (cu_seqlens_k[b + 1] - cu_seqlens_k[b], the end
// clamped to at least the start) and over none for a query tile past the
// sequence's end. Steps and the finalize carry the offsets.
// CHECK-LABEL: func @ragged
// CHECK-DAG: %[[CQ:.*]] = bufferization.to_buffer %arg3 read_only
// CHECK-DAG: %[[CK:.*]] = bufferization.to_buffer %arg4 read_only
// CHECK-DAG: %[[TQ:.*]] = memref.dim %{{.*}}, %c2{{.*}} : memref<1x8x?x64xbf16>
// CHECK-DAG: %[[TK:.*]] = memref.dim %{{.*}}, %c2{{.*}} : memref<1x2x?x64xbf16>
// CHECK-DAG: %[[QTILES:.*]] = arith.ceildivui %[[TQ]], %c32
// CHECK-DAG: %[[NQ:.*]] = memref.dim %[[CQ]], %c0
// CHECK-DAG: %[[N:.*]] = arith.subi %[[NQ]], %c1
// CHECK: scf.parallel (%[[B:.*]], %{{.*}}, %[[T:.*]]) = ({{.*}}) to (%[[N]], %c8, %[[QTILES]])
// CHECK: %[[Q0:.*]] = arith.muli %[[T]], %c32
// CHECK: memref.load %[[CK]][%[[B]]]
// CHECK: %[[KS:.*]] = arith.minsi %{{.*}}, %[[TK]]
// CHECK: %[[B1:.*]] = arith.addi %[[B]], %c1
// CHECK: memref.load %[[CK]][%[[B1]]]
// CHECK: %[[KE0:.*]] = arith.maxsi %{{.*}}, %[[KS]]
// CHECK: %[[KE:.*]] = arith.minsi %[[KE0]], %[[TK]]
// CHECK: %[[KLEN:.*]] = arith.subi %[[KE]], %[[KS]]
// CHECK: %[[KTILES:.*]] = arith.ceildivui %[[KLEN]], %c16
// CHECK: memref.load %[[CQ]][%[[B]]]
// CHECK: %[[QLEN:.*]] = arith.subi
// CHECK: %[[ROWS:.*]] = arith.cmpi slt, %[[Q0]], %[[QLEN]]
// CHECK: %[[TILES:.*]] = arith.select %[[ROWS]], %[[KTILES]], %c0
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %[[TILES]]
// CHECK: attn.tile_step {{.*}} at(%[[B]], {{.*}}) cu_seqlens_q(%[[CQ]] : memref<?xi32>) cu_seqlens_k(%[[CK]] : memref<?xi32>) mask(#attn.causal)
// CHECK: attn.tile_finalize {{.*}} cu_seqlens_q(%[[CQ]] : memref<?xi32>) at(%[[B]],
func.func @ragged(%q: tensor<1x8x?x64xbf16>, %k: tensor<1x2x?x64xbf16>, %v: tensor<1x2x?x64xbf16>, %cq: tensor<?xi32>, %ck: tensor<?xi32>) -> tensor<1x8x?x64xbf16> {
  %o = attn.attention %q, %k, %v cu_seqlens_q(%cq : tensor<?xi32>) cu_seqlens_k(%ck : tensor<?xi32>) mask(#attn.causal) : tensor<1x8x?x64xbf16>, tensor<1x2x?x64xbf16>, tensor<1x2x?x64xbf16> -> tensor<1x8x?x64xbf16>
  return %o : tensor<1x8x?x64xbf16>
}
