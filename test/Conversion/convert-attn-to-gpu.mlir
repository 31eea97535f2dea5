// RUN: attnc-opt %s --attn-choose-gpu-kernel=chip=sm_80 --attn-tile --attn-skip-masked-tiles --convert-attn-to-gpu --split-input-file 2>/dev/null | FileCheck %s
// RUN: attnc-opt %s --attn-choose-gpu-kernel=chip=sm_80 --attn-tile --attn-skip-masked-tiles --convert-attn-to-gpu --split-input-file 2>&1 >/dev/null | FileCheck %s --check-prefix=REMARK

// The kernel of a causal GQA attention (8 query heads over 2 key/value heads,
// bf16, head dim 64) with the log-sum-exp: the module becomes a GPU container
// and gains gpu.module @attnc_kernels with the dynamic shared memory and the
// kernel, whose parameters are the kernel ABI table (KernelAbi.h): q, k, v,
// o, lse, seq_ids, cu_seqlens, block_mask, alibi_slopes as pointers, then
// batch, seq_q, seq_k, num_cu_seqlens, block_mask_b, block_mask_h and the
// [B, H, S] element strides of q, k, v and o as i64, num_splits, scratch,
// and the tensor maps (pointers here; attn-mark-tensor-map-params makes them
// by-value parameters after lowering), which this kernel does not read.
// The attention op stays in place for the host side.
// Every op gets a remark naming the kernel, its configuration and how key
// tiles are chosen.
// REMARK: remark: convert-attn-to-gpu: sm_80 kernel (mma.sync m16n8k16, cp.async double buffering), block_q = 128, block_k = 64, 4 warps x 2 m-tiles; key tiles bounded in closed form (from the tiled IR), mask arithmetic on boundary tiles only
// REMARK: block_q = 128, block_k = 32, 4 warps x 2 m-tiles; no mask: every key tile unmasked, no mask arithmetic
// REMARK: key tiles bounded by run-time cu_seqlens document ranges (from the tiled IR)
// REMARK: run-time tile test 'document_ids' (from the tiled IR): empty tiles skipped
// REMARK: run-time tile test 'block_table' (from the tiled IR): empty tiles skipped
// REMARK: run-time tile test 'affine_corners' (from the tiled IR): empty tiles skipped
// REMARK: element-wise mask on every key tile (slow path): the mask_fn is not affine in (q, k) and the region scan of the tiled IR is not run on the GPU
// CHECK: module attributes {gpu.container_module}
// CHECK-LABEL: func.func @causal_bf16(
// The host side keeps the tiled IR the kernel was built from.
// CHECK: attn.tile_step {{.*}} mask(#attn.causal)
// CHECK: gpu.module @attnc_kernels {
// CHECK-NEXT: llvm.mlir.global external @attnc_smem() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
// CHECK-NEXT: gpu.func @attnc_attention(
// CHECK-SAME: %[[Q:[a-z0-9_]+]]: !llvm.ptr, %[[K:[a-z0-9_]+]]: !llvm.ptr, %[[V:[a-z0-9_]+]]: !llvm.ptr,
// CHECK-SAME: %[[O:[a-z0-9_]+]]: !llvm.ptr, %[[LSE:[a-z0-9_]+]]: !llvm.ptr, %{{[a-z0-9_]+}}: !llvm.ptr,
// CHECK-SAME: %{{[a-z0-9_]+}}: !llvm.ptr, %{{[a-z0-9_]+}}: !llvm.ptr, %{{[a-z0-9_]+}}: !llvm.ptr,
// CHECK-SAME: %{{[a-z0-9_]+}}: i64, %[[SEQ_Q:[a-z0-9_]+]]: i64, %[[SEQ_K:[a-z0-9_]+]]: i64,
// CHECK-SAME: %{{[a-z0-9_]+}}: i64, %{{[a-z0-9_]+}}: i64, %{{[a-z0-9_]+}}: i64,
// CHECK-SAME: %[[QSB:[a-z0-9_]+]]: i64, %[[QSH:[a-z0-9_]+]]: i64, %[[QSS:[a-z0-9_]+]]: i64,
// CHECK-SAME: %{{[a-z0-9_]+}}: i64, %{{[a-z0-9_]+}}: i64, %[[KSS:[a-z0-9_]+]]: i64,
// CHECK-SAME: %{{[a-z0-9_]+}}: i64, %{{[a-z0-9_]+}}: i64, %{{[a-z0-9_]+}}: i64,
// CHECK-SAME: %{{[a-z0-9_]+}}: i64, %{{[a-z0-9_]+}}: i64, %[[OSS:[a-z0-9_]+]]: i64,
// CHECK-SAME: %{{[a-z0-9_]+}}: i64, %{{[a-z0-9_]+}}: !llvm.ptr,
// CHECK-SAME: %{{[a-z0-9_]+}}: !llvm.ptr, %{{[a-z0-9_]+}}: !llvm.ptr, %{{[a-z0-9_]+}}: !llvm.ptr)
// CHECK-SAME: kernel attributes {known_block_size = array<i32: {{[0-9]+}}, 1, 1>}
// CHECK: llvm.mlir.addressof @attnc_smem : !llvm.ptr<3>
// CHECK: %[[SQ:.*]] = arith.index_cast %[[SEQ_Q]] : i64 to index
// CHECK-NEXT: %[[SK:.*]] = arith.index_cast %[[SEQ_K]] : i64 to index
// Rows are addressed through the strides the runtime passes, so strided
// views (e.g. [B, S, H, D].transpose(1, 2)) run in place.
// CHECK-NEXT: %[[QB:.*]] = arith.index_cast %[[QSB]] : i64 to index
// CHECK-NEXT: %[[QH:.*]] = arith.index_cast %[[QSH]] : i64 to index
// CHECK: gpu.thread_id x
// CHECK: %[[TILE:.*]] = gpu.block_id x
// CHECK-NEXT: %[[HEAD:.*]] = gpu.block_id y
// CHECK-NEXT: gpu.block_id z
// Query head h reads key/value head h / 4.
// CHECK: %[[C4:.*]] = arith.constant 4 : index
// CHECK-NEXT: arith.divui %[[HEAD]], %[[C4]] : index
// CHECK: %[[Q0:.*]] = arith.muli %[[TILE]], %{{.*}} : index
// The (batch, head) base of Q is batch * stride_b + head * stride_h, a
// 64-bit offset taken once; rows within the head use 32-bit offsets
// r * stride_s.
// CHECK: arith.muli %{{.*}}, %[[QB]] : index
// CHECK-NEXT: arith.muli %[[HEAD]], %[[QH]] : index
// CHECK: %[[QHEAD:.*]] = llvm.getelementptr %[[Q]][%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, i16
// CHECK: %[[QS32:.*]] = arith.trunci %[[QSS]] : i64 to i32
// The Q fragments are loaded once, as 32-bit pairs.
// CHECK: arith.muli %{{.*}}, %[[QS32]] : i32
// CHECK: llvm.getelementptr %[[QHEAD]][%{{.*}}] : (!llvm.ptr, i32) -> !llvm.ptr, i16
// CHECK-NEXT: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr -> i32
// The key tiles to visit, before the loop, with the causal interval formula
// (i' = i + Sk - Sq sees keys [0, i' + 1)) at the tile's first row.
// CHECK: %[[SHIFT:.*]] = arith.subi %[[SK]], %[[SQ]] : index
// CHECK-NEXT: %[[I0:.*]] = arith.addi %{{.*}}, %[[SHIFT]] : index
// CHECK: arith.addi %[[I0]], %{{.*}} : index
// CHECK: %[[LO:.*]] = arith.divui %{{.*}}, %{{.*}} : index
// CHECK: %[[NEG_INF:.*]] = arith.constant 0xFF800000 : f32
// The first K and V tiles stream into shared memory with cp.async.
// CHECK: scf.if
// CHECK: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache = cg, %{{.*}} : !llvm.ptr<3>, !llvm.ptr<1>, i32
// CHECK: nvvm.cp.async.commit.group
// The key-tile loop, carrying the row max, the row sum and the accumulators.
// CHECK: %[[RES:.*]]:{{[0-9]+}} = scf.for %[[KT:[a-z0-9_]+]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(
// CHECK-SAME: -> (f32, f32, f32, f32,
// Prefetch the next tile, then wait for this one.
// CHECK: nvvm.cp.async.shared.global
// CHECK: nvvm.cp.async.commit.group
// CHECK-NEXT: nvvm.cp.async.wait.group 1
// CHECK-NEXT: gpu.barrier
// S = Q K^T: K fragments by ldmatrix, bf16 tensor-core mma.
// CHECK: nvvm.ldmatrix %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, num = 4 : i32, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>} : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32, i32, i32)>
// CHECK: nvvm.mma.sync A[{{.*}}] B[{{.*}}] C[{{.*}}] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>, shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// Plain scores: scale and log2(e) folded into one constant (0.125 log2 e);
// the scores stay unscaled through the mask and the row maximum.
// CHECK: %[[SCALE:.*]] = arith.constant 0.180336878 : f32
// Full tiles skip the mask; boundary tiles take it (-inf where hidden).
// CHECK: arith.cmpi sge, %[[KT]], %{{.*}} : index
// Proves the full-tile branch has no mask arithmetic: it only yields the
// scores as the MMAs left them.
// CHECK: %[[S:[0-9]+]]:{{[0-9]+}} = scf.if %{{.*}} -> (f32,
// CHECK-NEXT: scf.yield %{{[0-9]+}},
// CHECK-NEXT: } else {
// CHECK: arith.select %{{.*}}, %{{.*}}, %[[NEG_INF]] : f32
// Online softmax: row max over the 4 lanes of a row by xor shuffles, then
// scaled; each weight is one FMA, exp2(s * scale log2 e - ref).
// CHECK: arith.maximumf
// CHECK: gpu.shuffle xor %{{.*}}, %c1_i32{{.*}}, %c32_i32{{.*}} : f32
// CHECK: gpu.shuffle xor %{{.*}}, %c2_i32{{.*}}, %c32_i32{{.*}} : f32
// CHECK: arith.mulf %{{.*}}, %[[SCALE]] : f32
// CHECK: %[[W0:.*]] = math.fma %[[S]]#0, %[[SCALE]], %{{.*}} : f32
// CHECK-NEXT: math.exp2 %[[W0]] : f32
// O += P V: V fragments by the transposed ldmatrix.
// CHECK: nvvm.ldmatrix %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<col>, num = 4 : i32, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>} : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32, i32, i32)>
// CHECK: nvvm.mma.sync {{.*}}multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>
// CHECK: gpu.barrier
// CHECK-NEXT: scf.yield
// After the loop: row sums reduced, O = acc / l stored as bf16 pairs, and
// LSE = (m + log2 l) ln 2. O's head pointer is taken after the loop.
// CHECK: %[[OHEAD:.*]] = llvm.getelementptr %[[O]][%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, i16
// CHECK: gpu.shuffle xor %{{.*}}, %c1_i32{{.*}}, %c32_i32{{.*}} : f32
// CHECK: arith.divf
// CHECK: %[[OPTR:.*]] = llvm.getelementptr %[[OHEAD]][%{{.*}}] : (!llvm.ptr, i32) -> !llvm.ptr, i16
// CHECK: llvm.fptrunc %{{.*}} : vector<2xf32> to vector<2xbf16>
// CHECK: llvm.store %{{.*}}, %[[OPTR]] {alignment = 4 : i64} : i32, !llvm.ptr
// CHECK: math.log2
// CHECK: %[[LPTR:.*]] = llvm.getelementptr %[[LSE]][%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT: llvm.store %{{.*}}, %[[LPTR]] {alignment = 4 : i64} : f32, !llvm.ptr
// CHECK: gpu.return
func.func @causal_bf16(%q: tensor<?x8x?x64xbf16>, %k: tensor<?x2x?x64xbf16>, %v: tensor<?x2x?x64xbf16>) -> (tensor<?x8x?x64xbf16>, tensor<?x8x?xf32>) {
  %o, %lse = attn.attention %q, %k, %v mask(#attn.causal) : tensor<?x8x?x64xbf16>, tensor<?x2x?x64xbf16>, tensor<?x2x?x64xbf16> -> tensor<?x8x?x64xbf16>, tensor<?x8x?xf32>
  return %o, %lse : tensor<?x8x?x64xbf16>, tensor<?x8x?xf32>
}

// -----

// f16, head dim 128, no mask, no LSE: the f16 pairs travel as vector<2xf16>
// (mma.sync takes its multiplicand type from them); no row shift enters the
// key-tile range; the scale is 1/sqrt(128) log2 e; nothing is written to LSE.
// CHECK-LABEL: func.func @none_f16_d128(
// CHECK: gpu.func @attnc_attention(
// CHECK: %[[SQ:.*]] = arith.index_cast %{{.*}} : i64 to index
// CHECK-NEXT: %[[SK:.*]] = arith.index_cast %{{.*}} : i64 to index
// CHECK-NOT: arith.subi %[[SK]], %[[SQ]]
// CHECK: scf.for %{{.*}} iter_args(
// CHECK: llvm.bitcast %{{.*}} : i32 to vector<2xf16>
// CHECK: nvvm.mma.sync A[{{.*}}] B[{{.*}}] C[{{.*}}] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (vector<2xf16>, vector<2xf16>, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// CHECK: arith.constant 0.127517432 : f32
// CHECK: llvm.fptrunc %{{.*}} : vector<2xf32> to vector<2xf16>
// CHECK-NOT: math.log2
// CHECK: gpu.return
func.func @none_f16_d128(%q: tensor<?x4x?x128xf16>, %k: tensor<?x4x?x128xf16>, %v: tensor<?x4x?x128xf16>) -> tensor<?x4x?x128xf16> {
  %o = attn.attention %q, %k, %v : tensor<?x4x?x128xf16>, tensor<?x4x?x128xf16>, tensor<?x4x?x128xf16> -> tensor<?x4x?x128xf16>
  return %o : tensor<?x4x?x128xf16>
}

// -----

// Sliding window: the causal interval with `left` subtracted from i' for the
// first visible key; the loop runs between the computed tile bounds.
// CHECK-LABEL: func.func @sliding_window(
// CHECK: gpu.func @attnc_attention(
// CHECK: %[[SQ:.*]] = arith.index_cast %{{.*}} : i64 to index
// CHECK-NEXT: %[[SK:.*]] = arith.index_cast %{{.*}} : i64 to index
// CHECK: %[[TILE:.*]] = gpu.block_id x
// CHECK: %[[Q0:.*]] = arith.muli %[[TILE]], %{{.*}} : index
// CHECK: %[[SHIFT:.*]] = arith.subi %[[SK]], %[[SQ]] : index
// CHECK-NEXT: %[[I0:.*]] = arith.addi %{{.*}}, %[[SHIFT]] : index
// CHECK-NEXT: %[[LEFT:.*]] = arith.constant 100 : index
// CHECK-NEXT: arith.subi %[[I0]], %[[LEFT]] : index
// CHECK: %[[LO:.*]] = arith.divui %{{.*}}, %{{.*}} : index
// CHECK: %[[NT:.*]] = arith.ceildivui %[[SK]], %{{.*}} : index
// CHECK: %[[HI:.*]] = arith.minsi %{{.*}}, %[[NT]] : index
// CHECK: scf.for %{{.*}} = %[[LO]] to %[[HI]] step
// CHECK: gpu.return
func.func @sliding_window(%q: tensor<?x8x?x64xbf16>, %k: tensor<?x2x?x64xbf16>, %v: tensor<?x2x?x64xbf16>) -> tensor<?x8x?x64xbf16> {
  %o = attn.attention %q, %k, %v mask(#attn.sliding_window<left = 100, right = 0>) : tensor<?x8x?x64xbf16>, tensor<?x2x?x64xbf16>, tensor<?x2x?x64xbf16> -> tensor<?x8x?x64xbf16>
  return %o : tensor<?x8x?x64xbf16>
}

// -----

// Prefix-LM (top-left): row i sees keys [0, max(prefix, i + 1)).
// CHECK-LABEL: func.func @prefix_lm(
// CHECK: gpu.func @attnc_attention(
// CHECK: %[[SQ:.*]] = arith.index_cast %{{.*}} : i64 to index
// CHECK-NEXT: %[[SK:.*]] = arith.index_cast %{{.*}} : i64 to index
// CHECK: arith.maxsi %c40{{.*}}, %{{.*}} : index
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step
// CHECK: gpu.return
func.func @prefix_lm(%q: tensor<?x8x?x64xbf16>, %k: tensor<?x2x?x64xbf16>, %v: tensor<?x2x?x64xbf16>) -> tensor<?x8x?x64xbf16> {
  %o = attn.attention %q, %k, %v mask(#attn.prefix_lm<prefix = 40, top_left>) : tensor<?x8x?x64xbf16>, tensor<?x2x?x64xbf16>, tensor<?x2x?x64xbf16> -> tensor<?x8x?x64xbf16>
  return %o : tensor<?x8x?x64xbf16>
}

// -----

// cu_seqlens documents: before the key-tile loop, the documents around the
// tile's first and last rows are found by scanning the cu_seqlens pointer
// (num_cu_seqlens entries of i32).
// CHECK-LABEL: func.func @document_cu_seqlens(
// CHECK: gpu.func @attnc_attention(
// CHECK-SAME: %{{[a-z0-9_]+}}: !llvm.ptr, %{{[a-z0-9_]+}}: !llvm.ptr, %{{[a-z0-9_]+}}: !llvm.ptr,
// CHECK-SAME: %{{[a-z0-9_]+}}: !llvm.ptr, %{{[a-z0-9_]+}}: !llvm.ptr, %{{[a-z0-9_]+}}: !llvm.ptr,
// CHECK-SAME: %[[CU:[a-z0-9_]+]]: !llvm.ptr, %{{[a-z0-9_]+}}: !llvm.ptr, %{{[a-z0-9_]+}}: !llvm.ptr,
// CHECK-SAME: %{{[a-z0-9_]+}}: i64, %{{[a-z0-9_]+}}: i64, %{{[a-z0-9_]+}}: i64,
// CHECK-SAME: %[[NUM_CU_ARG:[a-z0-9_]+]]: i64,
// CHECK: %[[SQ:.*]] = arith.index_cast %{{.*}} : i64 to index
// CHECK-NEXT: %[[SK:.*]] = arith.index_cast %{{.*}} : i64 to index
// CHECK: %[[NUM_CU:.*]] = arith.index_cast %[[NUM_CU_ARG]] : i64 to index
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[NUM_CU]] step %{{.*}} iter_args({{.*}}) -> (index, index) {
// CHECK: llvm.getelementptr %[[CU]][%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, i32
// CHECK-NEXT: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr -> i32
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[NUM_CU]] step %{{.*}} iter_args({{.*}}) -> (index, index) {
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(
// CHECK-SAME: -> (f32,
// CHECK: gpu.return
func.func @document_cu_seqlens(%q: tensor<1x4x?x64xbf16>, %k: tensor<1x2x?x64xbf16>, %v: tensor<1x2x?x64xbf16>, %cu: tensor<?xi32>) -> tensor<1x4x?x64xbf16> {
  %o = attn.attention %q, %k, %v cu_seqlens(%cu : tensor<?xi32>) mask(#attn.document<cu_seqlens, causal>) : tensor<1x4x?x64xbf16>, tensor<1x2x?x64xbf16>, tensor<1x2x?x64xbf16> -> tensor<1x4x?x64xbf16>
  return %o : tensor<1x4x?x64xbf16>
}

// -----

// seq_ids documents: no closed-form bounds, so the loop starts at tile 0; the
// mask of a boundary tile compares the i32 document ids read through the
// seq_ids pointer.
// CHECK-LABEL: func.func @document_seq_ids(
// CHECK: gpu.func @attnc_attention(
// CHECK-SAME: %{{[a-z0-9_]+}}: !llvm.ptr, %{{[a-z0-9_]+}}: !llvm.ptr, %{{[a-z0-9_]+}}: !llvm.ptr,
// CHECK-SAME: %{{[a-z0-9_]+}}: !llvm.ptr, %{{[a-z0-9_]+}}: !llvm.ptr, %[[IDS:[a-z0-9_]+]]: !llvm.ptr,
// CHECK: scf.for %{{.*}} = %c0{{[_0-9]*}} to %{{.*}} step %{{.*}} iter_args(
// CHECK: } else {
// CHECK: llvm.getelementptr %[[IDS]][%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, i32
// CHECK-NEXT: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr -> i32
// CHECK: arith.cmpi eq, %{{.*}}, %{{.*}} : i32
// CHECK: gpu.return
func.func @document_seq_ids(%q: tensor<?x4x?x64xbf16>, %k: tensor<?x2x?x64xbf16>, %v: tensor<?x2x?x64xbf16>, %ids: tensor<?x?xi32>) -> tensor<?x4x?x64xbf16> {
  %o = attn.attention %q, %k, %v seq_ids(%ids : tensor<?x?xi32>) mask(#attn.document<seq_ids>) : tensor<?x4x?x64xbf16>, tensor<?x2x?x64xbf16>, tensor<?x2x?x64xbf16> -> tensor<?x4x?x64xbf16>
  return %o : tensor<?x4x?x64xbf16>
}

// -----

// Block-sparse: the loop starts at tile 0; the mask of a boundary tile reads
// the i8 block flags through the block_mask pointer.
// CHECK-LABEL: func.func @block_sparse(
// CHECK: gpu.func @attnc_attention(
// CHECK-SAME: %{{[a-z0-9_]+}}: !llvm.ptr, %{{[a-z0-9_]+}}: !llvm.ptr, %{{[a-z0-9_]+}}: !llvm.ptr,
// CHECK-SAME: %{{[a-z0-9_]+}}: !llvm.ptr, %{{[a-z0-9_]+}}: !llvm.ptr, %{{[a-z0-9_]+}}: !llvm.ptr,
// CHECK-SAME: %{{[a-z0-9_]+}}: !llvm.ptr, %[[BM:[a-z0-9_]+]]: !llvm.ptr,
// CHECK: scf.for %{{.*}} = %c0{{[_0-9]*}} to %{{.*}} step %{{.*}} iter_args(
// CHECK: } else {
// CHECK: llvm.getelementptr %[[BM]][%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, i8
// CHECK-NEXT: llvm.load %{{.*}} {alignment = 1 : i64} : !llvm.ptr -> i8
// CHECK: gpu.return
func.func @block_sparse(%q: tensor<?x8x?x64xbf16>, %k: tensor<?x2x?x64xbf16>, %v: tensor<?x2x?x64xbf16>, %bm: tensor<?x?x?x?xi8>) -> tensor<?x8x?x64xbf16> {
  %o = attn.attention %q, %k, %v block_mask(%bm : tensor<?x?x?x?xi8>) mask(#attn.block_sparse<block_q = 128, block_k = 64>) : tensor<?x8x?x64xbf16>, tensor<?x2x?x64xbf16>, tensor<?x2x?x64xbf16> -> tensor<?x8x?x64xbf16>
  return %o : tensor<?x8x?x64xbf16>
}

// -----

// A mask_fn region is inlined into the kernel (its body evaluated on the
// query rows and keys of a boundary tile); no attn op is left in the kernel.
// CHECK-LABEL: func.func @custom_mask(
// CHECK: gpu.func @attnc_attention(
// CHECK-NOT: attn.
// CHECK: scf.for
// CHECK-NOT: attn.
// CHECK: } else {
// CHECK-NOT: attn.
// CHECK: arith.cmpi uge, %{{.*}}, %{{.*}} : index
// CHECK-NOT: attn.
// CHECK: gpu.return
func.func @custom_mask(%q: tensor<?x8x?x64xbf16>, %k: tensor<?x2x?x64xbf16>, %v: tensor<?x2x?x64xbf16>) -> tensor<?x8x?x64xbf16> {
  %o = attn.attention %q, %k, %v mask_fn {
  ^bb0(%b: index, %h: index, %i: index, %j: index):
    %c = arith.cmpi uge, %i, %j : index
    attn.yield %c : i1
  } : tensor<?x8x?x64xbf16>, tensor<?x2x?x64xbf16>, tensor<?x2x?x64xbf16> -> tensor<?x8x?x64xbf16>
  return %o : tensor<?x8x?x64xbf16>
}

// -----

// A mask_fn that is not affine in (q, k) (a remainder) cannot be classified
// per tile: every tile takes the element-wise mask, and the remark says so.
// CHECK-LABEL: func.func @custom_mask_modular(
// CHECK: gpu.func @attnc_attention(
// CHECK: arith.remui
// CHECK: gpu.return
func.func @custom_mask_modular(%q: tensor<?x8x?x64xbf16>, %k: tensor<?x2x?x64xbf16>, %v: tensor<?x2x?x64xbf16>) -> tensor<?x8x?x64xbf16> {
  %o = attn.attention %q, %k, %v mask_fn {
  ^bb0(%b: index, %h: index, %i: index, %j: index):
    %c3 = arith.constant 3 : index
    %r = arith.remui %j, %c3 : index
    %c0 = arith.constant 0 : index
    %c = arith.cmpi eq, %r, %c0 : index
    attn.yield %c : i1
  } : tensor<?x8x?x64xbf16>, tensor<?x2x?x64xbf16>, tensor<?x2x?x64xbf16> -> tensor<?x8x?x64xbf16>
  return %o : tensor<?x8x?x64xbf16>
}

// -----

// A score_fn region is inlined into the score pipeline of the kernel: scale,
// the region (tanh here), then log2(e).
// CHECK-LABEL: func.func @custom_score(
// CHECK: gpu.func @attnc_attention(
// CHECK: scf.for
// CHECK: %[[SCALE:.*]] = arith.constant 1.250000e-01 : f32
// CHECK-NEXT: %[[SCALED:.*]] = arith.mulf %{{.*}}, %[[SCALE]] : f32
// CHECK-NEXT: %[[T:.*]] = math.tanh %[[SCALED]] : f32
// CHECK-NEXT: %[[LOG2E:.*]] = arith.constant 1.44269502 : f32
// CHECK-NEXT: arith.mulf %[[T]], %[[LOG2E]] : f32
// CHECK-NOT: attn.
// CHECK: gpu.return
func.func @custom_score(%q: tensor<?x8x?x64xbf16>, %k: tensor<?x2x?x64xbf16>, %v: tensor<?x2x?x64xbf16>) -> tensor<?x8x?x64xbf16> {
  %o = attn.attention %q, %k, %v mask(#attn.causal) score_fn {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
    %t = math.tanh %s : f32
    attn.yield %t : f32
  } : tensor<?x8x?x64xbf16>, tensor<?x2x?x64xbf16>, tensor<?x2x?x64xbf16> -> tensor<?x8x?x64xbf16>
  return %o : tensor<?x8x?x64xbf16>
}

// -----

// Soft-capping: cap * tanh(s / cap), tanh by the hardware's approximate
// instruction (libdevice's tanhf is a long sequence per score); s / cap is a
// multiply by scale / cap (0.125 / 30; a division is IEEE div.rn, a check
// and a slow-path call a score), and log2(e) joins the cap (30 log2(e)).
// CHECK-LABEL: func.func @softcap(
// CHECK: gpu.func @attnc_attention(
// CHECK: scf.for
// CHECK: %[[RCP:.*]] = arith.constant 0.00416666688 : f32
// CHECK-NEXT: %[[X:.*]] = arith.mulf %{{.*}}, %[[RCP]] : f32
// CHECK-NEXT: %[[T:.*]] = llvm.inline_asm asm_dialect = att "tanh.approx.f32 $0, $1;", "=f,f" %[[X]] : (f32) -> f32
// CHECK-NEXT: %[[CAP:.*]] = arith.constant 43.2808495 : f32
// CHECK-NEXT: arith.mulf %[[CAP]], %[[T]] : f32
// CHECK-NOT: math.tanh
// CHECK: gpu.return
func.func @softcap(%q: tensor<?x4x?x64xbf16>, %k: tensor<?x2x?x64xbf16>, %v: tensor<?x2x?x64xbf16>) -> tensor<?x4x?x64xbf16> {
  %o = attn.attention %q, %k, %v softcap = 30.0 : tensor<?x4x?x64xbf16>, tensor<?x2x?x64xbf16>, tensor<?x2x?x64xbf16> -> tensor<?x4x?x64xbf16>
  return %o : tensor<?x4x?x64xbf16>
}

// -----

// ALiBi slopes given as an attribute: a constant table indexed by the query
// head once per block (the head is block-uniform), before the key loop;
// the bias slope * |i' - j| is subtracted from every score.
// CHECK-LABEL: func.func @alibi_attribute(
// CHECK: gpu.func @attnc_attention(
// CHECK: %[[HEAD:.*]] = gpu.block_id y
// CHECK: %[[TABLE:.*]] = arith.constant dense<[5.000000e-01, 2.500000e-01, 1.250000e-01, 6.250000e-02]> : vector<4xf32>
// CHECK-NEXT: %[[SLOPE:.*]] = vector.extract %[[TABLE]][%[[HEAD]]] : f32 from vector<4xf32>
// CHECK: scf.for
// CHECK: %[[DIST:.*]] = arith.sitofp %{{.*}} : i64 to f32
// CHECK-NEXT: %[[BIAS:.*]] = arith.mulf %[[SLOPE]], %[[DIST]] : f32
// CHECK-NEXT: arith.subf %{{.*}}, %[[BIAS]] : f32
// CHECK: gpu.return
func.func @alibi_attribute(%q: tensor<?x4x?x64xbf16>, %k: tensor<?x2x?x64xbf16>, %v: tensor<?x2x?x64xbf16>) -> tensor<?x4x?x64xbf16> {
  %o = attn.attention %q, %k, %v mask(#attn.causal) alibi = [0.5, 0.25, 0.125, 0.0625] : tensor<?x4x?x64xbf16>, tensor<?x2x?x64xbf16>, tensor<?x2x?x64xbf16> -> tensor<?x4x?x64xbf16>
  return %o : tensor<?x4x?x64xbf16>
}

// -----

// ALiBi slopes given as an operand: read once through the alibi_slopes
// pointer at the query head, before the key loop.
// CHECK-LABEL: func.func @alibi_operand(
// CHECK: gpu.func @attnc_attention(
// CHECK-SAME: %{{[a-z0-9_]+}}: !llvm.ptr, %{{[a-z0-9_]+}}: !llvm.ptr, %{{[a-z0-9_]+}}: !llvm.ptr,
// CHECK-SAME: %{{[a-z0-9_]+}}: !llvm.ptr, %{{[a-z0-9_]+}}: !llvm.ptr, %{{[a-z0-9_]+}}: !llvm.ptr,
// CHECK-SAME: %{{[a-z0-9_]+}}: !llvm.ptr, %{{[a-z0-9_]+}}: !llvm.ptr, %[[SLOPES:[a-z0-9_]+]]: !llvm.ptr,
// CHECK: %[[HEAD:.*]] = gpu.block_id y
// CHECK: %[[H64:.*]] = arith.index_cast %[[HEAD]] : index to i64
// CHECK-NEXT: %[[PTR:.*]] = llvm.getelementptr %[[SLOPES]][%[[H64]]] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT: %[[SLOPE:.*]] = llvm.load %[[PTR]] {alignment = 4 : i64} : !llvm.ptr -> f32
// CHECK: scf.for
// CHECK: %[[DIST:.*]] = arith.sitofp %{{.*}} : i64 to f32
// CHECK-NEXT: %[[BIAS:.*]] = arith.mulf %[[SLOPE]], %[[DIST]] : f32
// CHECK-NEXT: arith.subf %{{.*}}, %[[BIAS]] : f32
// CHECK: gpu.return
func.func @alibi_operand(%q: tensor<?x4x?x64xbf16>, %k: tensor<?x2x?x64xbf16>, %v: tensor<?x2x?x64xbf16>, %s: tensor<4xf32>) -> tensor<?x4x?x64xbf16> {
  %o = attn.attention %q, %k, %v alibi_slopes(%s : tensor<4xf32>) mask(#attn.causal) : tensor<?x4x?x64xbf16>, tensor<?x2x?x64xbf16>, tensor<?x2x?x64xbf16> -> tensor<?x4x?x64xbf16>
  return %o : tensor<?x4x?x64xbf16>
}
