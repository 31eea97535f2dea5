// RUN: attnc-opt %s --attn-choose-gpu-kernel=chip=sm_80 --attn-tile --attn-skip-masked-tiles --convert-attn-to-gpu --split-input-file 2>/dev/null | FileCheck %s
// RUN: attnc-opt %s --attn-choose-gpu-kernel=chip=sm_90a --attn-tile --attn-skip-masked-tiles --convert-attn-to-gpu --split-input-file 2>/dev/null | FileCheck %s --check-prefix=WGMMA
// RUN: attnc-opt %s --attn-choose-gpu-kernel=chip=sm_90a --attn-tile --attn-skip-masked-tiles --convert-attn-to-gpu --split-input-file 2>&1 >/dev/null | FileCheck %s --check-prefix=REMARK

// A ragged batch on the GPU. On sm_90a packed keys take the wgmma kernel
// (TMA boxes at each sequence's rows), and so do ragged queries over a
// 16-bit cache (pages of 16 rows here); the remark says which.
// REMARK: remark: convert-attn-to-gpu: sm_90a kernel (wgmma m64nNk16 {{.*}}; ragged batch: each sequence's query rows and keys found from its offsets (cu_seqlens_q, cu_seqlens_k), TMA boxes at the sequence's rows, V rows past its keys zeroed in its last key tile (the decode kernel does not take ragged batches)
// REMARK: remark: convert-attn-to-gpu: sm_90a kernel (wgmma m64nNk16 {{.*}}; KV cache: per-sequence lengths (kv_lens), pages of 16 rows read through the page table, by the wgmma kernel's TMA boxes (a box a page, or a key tile of a larger page), {{.*}}; ragged batch: each sequence's query rows found from its offsets (cu_seqlens_q), TMA boxes at the sequence's rows

// The wgmma kernel (sm_90a): Q's TMA box starts at row cu_seqlens_q[z] +
// q0 of batch entry 0, a key tile's at cu_seqlens_k[z] + k0. Before the
// P V of a tile that runs past the sequence's keys (keep = clamp(len_k -
// k0, 0, 128) < 128 rows), the consumer threads (384: three warpgroups)
// zero its V rows [keep, 128), 8 chunks of 16 bytes a row, fence them for
// the async proxy and meet at named barrier 8.
// WGMMA-LABEL: func.func @ragged(
// WGMMA: gpu.func @attnc_attention(
// WGMMA-SAME: %{{[a-z0-9_]+}}: !llvm.ptr, %{{[a-z0-9_]+}}: !llvm.ptr, %{{[a-z0-9_]+}}: !llvm.ptr, %{{[a-z0-9_]+}}: !llvm.ptr, %{{[a-z0-9_]+}}: !llvm.ptr, %{{[a-z0-9_]+}}: !llvm.ptr, %{{[a-z0-9_]+}}: !llvm.ptr, %{{[a-z0-9_]+}}: !llvm.ptr, %{{[a-z0-9_]+}}: !llvm.ptr, %{{[a-z0-9_]+}}: i64, %{{[a-z0-9_]+}}: i64, %{{[a-z0-9_]+}}: i64, %{{[a-z0-9_]+}}: i64, %{{[a-z0-9_]+}}: i64, %{{[a-z0-9_]+}}: i64, %{{[a-z0-9_]+}}: i64, %{{[a-z0-9_]+}}: i64, %{{[a-z0-9_]+}}: i64, %{{[a-z0-9_]+}}: i64, %{{[a-z0-9_]+}}: i64, %{{[a-z0-9_]+}}: i64, %{{[a-z0-9_]+}}: i64, %{{[a-z0-9_]+}}: i64, %{{[a-z0-9_]+}}: i64, %{{[a-z0-9_]+}}: i64, %{{[a-z0-9_]+}}: i64, %{{[a-z0-9_]+}}: i64, %{{[a-z0-9_]+}}: i64, %{{[a-z0-9_]+}}: !llvm.ptr, %{{[a-z0-9_]+}}: !llvm.ptr, %{{[a-z0-9_]+}}: !llvm.ptr, %{{[a-z0-9_]+}}: i64, %{{[a-z0-9_]+}}: i64, %{{[a-z0-9_]+}}: !llvm.ptr, %[[CUQ:[a-z0-9_]+]]: !llvm.ptr, %[[CUK:[a-z0-9_]+]]: !llvm.ptr,
// WGMMA: llvm.getelementptr %[[CUQ]]
// WGMMA: %[[QSTART:.*]] = arith.minsi %{{.*}}, %{{.*}} : index
// WGMMA: llvm.getelementptr %[[CUK]]
// WGMMA: %[[KSTART:.*]] = arith.minsi %{{.*}}, %{{.*}} : index
// WGMMA: %[[PARTIAL:.*]] = arith.cmpi ult, %[[KEEP:.*]], %c128{{.*}} : index
// WGMMA-NEXT: scf.if %[[PARTIAL]] {
// WGMMA-NEXT: arith.constant 8 : index
// WGMMA-NEXT: arith.constant 128 : index
// WGMMA-NEXT: %[[ROWS:.*]] = arith.subi %c128{{.*}}, %[[KEEP]] : index
// WGMMA: %[[ZERO:.*]] = llvm.mlir.zero : vector<4xi32>
// WGMMA: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c384{{(_[0-9]+)?}} {
// WGMMA: llvm.store %[[ZERO]], %{{.*}} {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr<3>
// WGMMA: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// WGMMA: nvvm.barrier id = %c8_i32 number_of_threads = %c384_i32
// WGMMA: nvvm.wgmma.fence.aligned
// The producer: Q's box at the sequence's start row, batch coordinate 0;
// the key tiles' at the sequence's first key plus k0.
// WGMMA: nvvm.mbarrier.arrive.expect_tx
// WGMMA: %[[QROW:.*]] = arith.addi %[[QSTART]], %{{.*}} : index
// WGMMA-NEXT: %[[QROW32:.*]] = arith.index_cast %[[QROW]] : index to i32
// WGMMA-NEXT: %[[HEAD32:.*]] = arith.index_cast %{{.*}} : index to i32
// WGMMA-NEXT: %[[ZB:.*]] = arith.index_cast %c0{{.*}} : index to i32
// WGMMA: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %{{.*}}, %{{.*}}, box[%c0_i32, %[[QROW32]], %[[HEAD32]], %[[ZB]]]
// WGMMA: %[[KROW:.*]] = arith.addi %[[KSTART]], %{{.*}} : index
// WGMMA-NEXT: %[[KROW32:.*]] = arith.index_cast %[[KROW]] : index to i32
// WGMMA: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %{{.*}}, %{{.*}}, box[%{{.*}}, %[[KROW32]], %{{.*}}, %{{.*}}]

// The mma.sync kernel (sm_80). Block z is a sequence: its query rows start at cu_seqlens_q[z] (clamped
// into [0, seq_q]) and number cu_seqlens_q[z + 1] (clamped into [start,
// seq_q]) minus the start; its keys likewise from cu_seqlens_k and seq_k.
// A block whose query tile starts at or past its sequence's end does
// nothing (the kernel body is inside an scf.if). The query's and the keys'
// first element is the sequence's start row (start * stride_s, batch entry
// 0) of the block's head.
// CHECK-LABEL: func.func @ragged(
// CHECK: gpu.func @attnc_attention(
// CHECK-SAME: %[[Q:[a-z0-9_]+]]: !llvm.ptr, %[[K:[a-z0-9_]+]]: !llvm.ptr, %{{[a-z0-9_]+}}: !llvm.ptr, %{{[a-z0-9_]+}}: !llvm.ptr, %{{[a-z0-9_]+}}: !llvm.ptr, %{{[a-z0-9_]+}}: !llvm.ptr, %{{[a-z0-9_]+}}: !llvm.ptr, %{{[a-z0-9_]+}}: !llvm.ptr, %{{[a-z0-9_]+}}: !llvm.ptr, %{{[a-z0-9_]+}}: i64, 
// CHECK-SAME: %[[SEQ_Q:[a-z0-9_]+]]: i64, %[[SEQ_K:[a-z0-9_]+]]: i64, %{{[a-z0-9_]+}}: i64, %{{[a-z0-9_]+}}: i64, %{{[a-z0-9_]+}}: i64, %{{[a-z0-9_]+}}: i64, %{{[a-z0-9_]+}}: i64, 
// CHECK-SAME: %[[QSS:[a-z0-9_]+]]: i64, %{{[a-z0-9_]+}}: i64, %{{[a-z0-9_]+}}: i64, %[[KSS:[a-z0-9_]+]]: i64, %{{[a-z0-9_]+}}: i64, %{{[a-z0-9_]+}}: i64, %{{[a-z0-9_]+}}: i64, %{{[a-z0-9_]+}}: i64, %{{[a-z0-9_]+}}: i64, %{{[a-z0-9_]+}}: i64, %{{[a-z0-9_]+}}: i64, %{{[a-z0-9_]+}}: !llvm.ptr, %{{[a-z0-9_]+}}: !llvm.ptr, %{{[a-z0-9_]+}}: !llvm.ptr, %{{[a-z0-9_]+}}: i64, %{{[a-z0-9_]+}}: i64, %{{[a-z0-9_]+}}: !llvm.ptr, 
// CHECK-SAME: %[[CUQ:[a-z0-9_]+]]: !llvm.ptr, %[[CUK:[a-z0-9_]+]]: !llvm.ptr, %{{[a-z0-9_]+}}: !llvm.ptr,
// CHECK-DAG: %[[TQ:.*]] = arith.index_cast %[[SEQ_Q]] : i64 to index
// CHECK-DAG: %[[TK:.*]] = arith.index_cast %[[SEQ_K]] : i64 to index
// CHECK-DAG: %[[QS:.*]] = arith.index_cast %[[QSS]] : i64 to index
// CHECK-DAG: %[[KS:.*]] = arith.index_cast %[[KSS]] : i64 to index
// CHECK: %[[BATCH:.*]] = gpu.block_id z
// CHECK: llvm.getelementptr %[[CUQ]][%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, i32
// CHECK: %[[QSTART0:.*]] = arith.maxsi %{{.*}}, %{{.*}} : index
// CHECK-NEXT: %[[QSTART:.*]] = arith.minsi %[[QSTART0]], %[[TQ]] : index
// CHECK: arith.addi %[[BATCH]], %{{.*}} : index
// CHECK: llvm.getelementptr %[[CUQ]][%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, i32
// CHECK: %[[QEND0:.*]] = arith.maxsi %{{.*}}, %[[QSTART]] : index
// CHECK-NEXT: %[[QEND:.*]] = arith.minsi %[[QEND0]], %[[TQ]] : index
// CHECK-NEXT: %[[QLEN:.*]] = arith.subi %[[QEND]], %[[QSTART]] : index
// CHECK: llvm.getelementptr %[[CUK]][%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, i32
// CHECK: %[[KSTART:.*]] = arith.minsi %{{.*}}, %[[TK]] : index
// CHECK: %[[KEND:.*]] = arith.minsi %{{.*}}, %[[TK]] : index
// CHECK-NEXT: %[[KLEN:.*]] = arith.subi %[[KEND]], %[[KSTART]] : index
// CHECK: %[[Q0:.*]] = arith.muli %{{.*}}, %c128 : index
// CHECK-NEXT: %[[ROWS:.*]] = arith.cmpi ult, %[[Q0]], %[[QLEN]] : index
// CHECK-NEXT: scf.if %[[ROWS]] {
// CHECK: %[[QROWS:.*]] = arith.muli %[[QSTART]], %[[QS]] : index
// CHECK-NEXT: %[[QOFF:.*]] = arith.addi %{{.*}}, %[[QROWS]] : index
// CHECK-NEXT: %[[QOFF64:.*]] = arith.index_cast %[[QOFF]] : index to i64
// CHECK-NEXT: llvm.getelementptr %[[Q]][%[[QOFF64]]]
// CHECK: %[[KROWS:.*]] = arith.muli %[[KSTART]], %[[KS]] : index
// CHECK-NEXT: %[[KOFF:.*]] = arith.addi %{{.*}}, %[[KROWS]] : index
// CHECK-NEXT: %[[KOFF64:.*]] = arith.index_cast %[[KOFF]] : index to i64
// CHECK-NEXT: llvm.getelementptr %[[K]][%[[KOFF64]]]
// Rows past the sequence's end are computed at its last row, never stored.
// CHECK: %[[LAST:.*]] = arith.subi %[[QLEN]], %{{.*}} : index
// CHECK-NEXT: arith.minsi %{{.*}}, %[[LAST]] : index
// Key copies stop at the sequence's keys (zero-filled past them).
// CHECK: arith.cmpi slt, %{{.*}}, %[[KLEN]] : index
// CHECK: nvvm.cp.async.shared.global
func.func @ragged(%q: tensor<1x4x?x64xbf16>, %k: tensor<1x2x?x64xbf16>, %v: tensor<1x2x?x64xbf16>, %cq: tensor<?xi32>, %ck: tensor<?xi32>) -> (tensor<1x4x?x64xbf16>, tensor<1x4x?xf32>) {
  %o, %lse = attn.attention %q, %k, %v cu_seqlens_q(%cq : tensor<?xi32>) cu_seqlens_k(%ck : tensor<?xi32>) mask(#attn.causal) : tensor<1x4x?x64xbf16>, tensor<1x2x?x64xbf16>, tensor<1x2x?x64xbf16> -> tensor<1x4x?x64xbf16>, tensor<1x4x?xf32>
  return %o, %lse : tensor<1x4x?x64xbf16>, tensor<1x4x?xf32>
}

// -----

// Ragged queries over a paged cache of the N sequences: keys through the
// page table of block z's sequence, no key offsets.
// CHECK-LABEL: func.func @ragged_paged(
// CHECK: gpu.func @attnc_attention(
// CHECK-SAME: %{{[a-z0-9_]+}}: !llvm.ptr, %{{[a-z0-9_]+}}: !llvm.ptr, %{{[a-z0-9_]+}}: !llvm.ptr, %{{[a-z0-9_]+}}: !llvm.ptr, %{{[a-z0-9_]+}}: !llvm.ptr, %{{[a-z0-9_]+}}: !llvm.ptr, %{{[a-z0-9_]+}}: !llvm.ptr, %{{[a-z0-9_]+}}: !llvm.ptr, %{{[a-z0-9_]+}}: !llvm.ptr, %{{[a-z0-9_]+}}: i64, %{{[a-z0-9_]+}}: i64, %{{[a-z0-9_]+}}: i64, %{{[a-z0-9_]+}}: i64, %{{[a-z0-9_]+}}: i64, %{{[a-z0-9_]+}}: i64, %{{[a-z0-9_]+}}: i64, %{{[a-z0-9_]+}}: i64, %{{[a-z0-9_]+}}: i64, %{{[a-z0-9_]+}}: i64, %{{[a-z0-9_]+}}: i64, %{{[a-z0-9_]+}}: i64, %{{[a-z0-9_]+}}: i64, %{{[a-z0-9_]+}}: i64, %{{[a-z0-9_]+}}: i64, %{{[a-z0-9_]+}}: i64, %{{[a-z0-9_]+}}: i64, %{{[a-z0-9_]+}}: i64, %{{[a-z0-9_]+}}: i64, %{{[a-z0-9_]+}}: !llvm.ptr, %{{[a-z0-9_]+}}: !llvm.ptr, 
// CHECK-SAME: %[[PAGES:[a-z0-9_]+]]: !llvm.ptr, %{{[a-z0-9_]+}}: i64, %{{[a-z0-9_]+}}: i64, %{{[a-z0-9_]+}}: !llvm.ptr, %[[CUQ:[a-z0-9_]+]]: !llvm.ptr,
// CHECK: %[[BATCH:.*]] = gpu.block_id z
// CHECK: llvm.getelementptr %[[CUQ]]
// CHECK: scf.if
// CHECK: %[[ROW:.*]] = arith.muli %[[BATCH]], %{{.*}} : index
// CHECK-NEXT: %[[ROW64:.*]] = arith.index_cast %[[ROW]] : index to i64
// CHECK-NEXT: llvm.getelementptr %[[PAGES]][%[[ROW64]]] : (!llvm.ptr, i64) -> !llvm.ptr, i32
func.func @ragged_paged(%q: tensor<1x4x?x64xbf16>, %k: tensor<?x16x2x64xbf16>, %v: tensor<?x16x2x64xbf16>, %l: tensor<?xi32>, %t: tensor<?x?xi32>, %cq: tensor<?xi32>) -> tensor<1x4x?x64xbf16> {
  %o = attn.attention %q, %k, %v kv_lens(%l : tensor<?xi32>) page_table(%t : tensor<?x?xi32>) cu_seqlens_q(%cq : tensor<?xi32>) mask(#attn.causal) : tensor<1x4x?x64xbf16>, tensor<?x16x2x64xbf16>, tensor<?x16x2x64xbf16> -> tensor<1x4x?x64xbf16>
  return %o : tensor<1x4x?x64xbf16>
}

// -----

// A block-sparse mask in a ragged batch: sequence z reads its plane of the
// grid at its own positions, and a plane has ceil(T_q / 64) rows for the
// T_q packed query rows (seq_q), not ceil of the sequence's own length.
// The per-element mask (boundary tiles) and the tile test's table reads
// both take that row count.
// CHECK-LABEL: func.func @ragged_block_sparse(
// CHECK: gpu.func @attnc_attention(
// CHECK-SAME: %{{[a-z0-9_]+}}: !llvm.ptr, %{{[a-z0-9_]+}}: !llvm.ptr, %{{[a-z0-9_]+}}: !llvm.ptr, %{{[a-z0-9_]+}}: !llvm.ptr, %{{[a-z0-9_]+}}: !llvm.ptr, %{{[a-z0-9_]+}}: !llvm.ptr, %{{[a-z0-9_]+}}: !llvm.ptr, %[[BM:[a-z0-9_]+]]: !llvm.ptr, %{{[a-z0-9_]+}}: !llvm.ptr, %{{[a-z0-9_]+}}: i64, %[[SEQ_Q:[a-z0-9_]+]]: i64,
// CHECK: %[[TQ:.*]] = arith.index_cast %[[SEQ_Q]] : i64 to index
// CHECK: %[[NQ:.*]] = arith.ceildivui %[[TQ]], %c64{{(_[0-9]+)?}} : index
// CHECK: %[[NQ2:.*]] = arith.ceildivui %[[TQ]], %c64{{(_[0-9]+)?}} : index
// CHECK-NEXT: arith.muli %{{.*}}, %[[NQ2]] : index
// CHECK: llvm.getelementptr %[[BM]][%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, i8
// CHECK: arith.muli %{{.*}}, %[[NQ]] : index
// CHECK: llvm.getelementptr %[[BM]][%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, i8
// WGMMA-LABEL: func.func @ragged_block_sparse(
// WGMMA: gpu.func @attnc_attention(
// WGMMA-SAME: %{{[a-z0-9_]+}}: !llvm.ptr, %{{[a-z0-9_]+}}: !llvm.ptr, %{{[a-z0-9_]+}}: !llvm.ptr, %{{[a-z0-9_]+}}: !llvm.ptr, %{{[a-z0-9_]+}}: !llvm.ptr, %{{[a-z0-9_]+}}: !llvm.ptr, %{{[a-z0-9_]+}}: !llvm.ptr, %[[BM:[a-z0-9_]+]]: !llvm.ptr, %{{[a-z0-9_]+}}: !llvm.ptr, %{{[a-z0-9_]+}}: i64, %[[SEQ_Q:[a-z0-9_]+]]: i64,
// On sm_90a the consumers read the table on boundary tiles only, and the
// producer tests the tiles (the compacted ring), each with that row count.
// WGMMA: %[[TQ:.*]] = arith.index_cast %[[SEQ_Q]] : i64 to index
// WGMMA: %[[NQ:.*]] = arith.ceildivui %[[TQ]], %c64{{(_[0-9]+)?}} : index
// WGMMA: arith.muli %{{.*}}, %[[NQ]] : index
// WGMMA: llvm.getelementptr %[[BM]][%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, i8
// WGMMA: nvvm.setmaxregister  decrease
// WGMMA: %[[PNQ:.*]] = arith.ceildivui %[[TQ]], %c64{{(_[0-9]+)?}} : index
// WGMMA-NEXT: arith.muli %{{.*}}, %[[PNQ]] : index
// WGMMA: llvm.getelementptr %[[BM]][%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, i8
func.func @ragged_block_sparse(%q: tensor<1x4x?x64xbf16>, %k: tensor<1x2x?x64xbf16>, %v: tensor<1x2x?x64xbf16>, %bm: tensor<?x4x?x?xi8>, %cq: tensor<?xi32>, %ck: tensor<?xi32>) -> tensor<1x4x?x64xbf16> {
  %o = attn.attention %q, %k, %v block_mask(%bm : tensor<?x4x?x?xi8>) cu_seqlens_q(%cq : tensor<?xi32>) cu_seqlens_k(%ck : tensor<?xi32>) mask(#attn.block_sparse<block_q = 64, block_k = 32>) : tensor<1x4x?x64xbf16>, tensor<1x2x?x64xbf16>, tensor<1x2x?x64xbf16> -> tensor<1x4x?x64xbf16>
  return %o : tensor<1x4x?x64xbf16>
}
