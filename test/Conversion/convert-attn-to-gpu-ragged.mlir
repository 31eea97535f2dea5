// RUN: attnc-opt %s --attn-choose-gpu-kernel=chip=sm_90a --attn-tile --attn-skip-masked-tiles --convert-attn-to-gpu --split-input-file 2>/dev/null | FileCheck %s
// RUN: attnc-opt %s --attn-choose-gpu-kernel=chip=sm_90a --attn-tile --attn-skip-masked-tiles --convert-attn-to-gpu --split-input-file 2>&1 >/dev/null | FileCheck %s --check-prefix=REMARK

// A ragged batch on the GPU: on sm_90a it takes the mma.sync prefill kernel
// (TMA boxes would cross into the next sequence), and the remark says so.
// REMARK: remark: convert-attn-to-gpu: sm_90a kernel (mma.sync m16n8k16, cp.async double buffering (the sm_80-class kernel)), {{.*}}; ragged batch: each sequence's query rows and keys found from its offsets (cu_seqlens_q, cu_seqlens_k) by the mma.sync prefill kernel (the wgmma and decode kernels do not take ragged batches yet)
// REMARK: remark: convert-attn-to-gpu: sm_90a kernel (mma.sync m16n8k16, {{.*}}; ragged batch: each sequence's query rows found from its offsets (cu_seqlens_q) by the mma.sync prefill kernel

// Block z is a sequence: its query rows start at cu_seqlens_q[z] (clamped
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
