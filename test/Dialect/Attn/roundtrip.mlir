// Every mask and score modification parses, prints and re-parses, in the
// custom form and through the generic form.
// RUN: attnc-opt %s | attnc-opt | FileCheck %s
// RUN: attnc-opt %s --mlir-print-op-generic | attnc-opt | FileCheck %s

!q = tensor<2x8x?x64xbf16>
!kv = tensor<2x2x?x64xbf16>
!lse = tensor<2x8x?xf32>

// CHECK-LABEL: func @no_mask
// CHECK: attn.attention %{{.*}}, %{{.*}}, %{{.*}} : tensor<2x8x?x64xbf16>, tensor<2x2x?x64xbf16>, tensor<2x2x?x64xbf16> -> tensor<2x8x?x64xbf16>
func.func @no_mask(%q: !q, %k: !kv, %v: !kv) -> !q {
  %o = attn.attention %q, %k, %v : !q, !kv, !kv -> !q
  return %o : !q
}

// CHECK-LABEL: func @causal_default_is_bottom_right
// CHECK: attn.attention {{.*}} mask(#attn.causal) :
func.func @causal_default_is_bottom_right(%q: !q, %k: !kv, %v: !kv) -> !q {
  %o = attn.attention %q, %k, %v mask(#attn.causal<bottom_right>) : !q, !kv, !kv -> !q
  return %o : !q
}

// CHECK-LABEL: func @causal_top_left_with_lse
// CHECK: %{{.*}}, %{{.*}} = attn.attention {{.*}} mask(#attn.causal<top_left>) : {{.*}} -> tensor<2x8x?x64xbf16>, tensor<2x8x?xf32>
func.func @causal_top_left_with_lse(%q: !q, %k: !kv, %v: !kv) -> (!q, !lse) {
  %o, %lse = attn.attention %q, %k, %v mask(#attn.causal<top_left>) : !q, !kv, !kv -> !q, !lse
  return %o, %lse : !q, !lse
}

// CHECK-LABEL: func @sliding_window
// CHECK: mask(#attn.sliding_window<left = 256, right = 0>) :
// CHECK: mask(#attn.sliding_window<left = 3, right = 5, top_left>) :
func.func @sliding_window(%q: !q, %k: !kv, %v: !kv) -> (!q, !q) {
  %a = attn.attention %q, %k, %v mask(#attn.sliding_window<left = 256, right = 0>) : !q, !kv, !kv -> !q
  %b = attn.attention %q, %k, %v mask(#attn.sliding_window<left = 3, right = 5, top_left>) : !q, !kv, !kv -> !q
  return %a, %b : !q, !q
}

// CHECK-LABEL: func @prefix_lm
// CHECK: mask(#attn.prefix_lm<prefix = 128>) :
// CHECK: mask(#attn.prefix_lm<prefix = 0, top_left>) :
func.func @prefix_lm(%q: !q, %k: !kv, %v: !kv) -> (!q, !q) {
  %a = attn.attention %q, %k, %v mask(#attn.prefix_lm<prefix = 128, bottom_right>) : !q, !kv, !kv -> !q
  %b = attn.attention %q, %k, %v mask(#attn.prefix_lm<prefix = 0, top_left>) : !q, !kv, !kv -> !q
  return %a, %b : !q, !q
}

// CHECK-LABEL: func @document_seq_ids
// CHECK: attn.attention %{{.*}}, %{{.*}}, %{{.*}} seq_ids(%{{.*}} : tensor<2x?xi32>) mask(#attn.document<seq_ids>) :
// CHECK: seq_ids(%{{.*}} : tensor<2x?xi32>) mask(#attn.document<seq_ids, causal>) :
func.func @document_seq_ids(%q: !q, %k: !kv, %v: !kv, %ids: tensor<2x?xi32>) -> (!q, !q) {
  %a = attn.attention %q, %k, %v seq_ids(%ids : tensor<2x?xi32>) mask(#attn.document<seq_ids>) : !q, !kv, !kv -> !q
  %b = attn.attention %q, %k, %v seq_ids(%ids : tensor<2x?xi32>) mask(#attn.document<seq_ids, causal>) : !q, !kv, !kv -> !q
  return %a, %b : !q, !q
}

// CHECK-LABEL: func @document_cu_seqlens
// CHECK: cu_seqlens(%{{.*}} : tensor<5xi32>) mask(#attn.document<cu_seqlens, causal>) :
func.func @document_cu_seqlens(%q: tensor<1x4x?x32xf16>, %k: tensor<1x4x?x32xf16>, %v: tensor<1x4x?x32xf16>, %cu: tensor<5xi32>) -> tensor<1x4x?x32xf16> {
  %o = attn.attention %q, %k, %v cu_seqlens(%cu : tensor<5xi32>) mask(#attn.document<cu_seqlens, causal>) : tensor<1x4x?x32xf16>, tensor<1x4x?x32xf16>, tensor<1x4x?x32xf16> -> tensor<1x4x?x32xf16>
  return %o : tensor<1x4x?x32xf16>
}

// CHECK-LABEL: func @block_sparse
// CHECK: block_mask(%{{.*}} : tensor<1x1x2x3xi8>) mask(#attn.block_sparse<block_q = 128, block_k = 64>) :
func.func @block_sparse(%q: tensor<2x8x200x64xbf16>, %k: tensor<2x2x150x64xbf16>, %v: tensor<2x2x150x64xbf16>, %bm: tensor<1x1x2x3xi8>) -> tensor<2x8x200x64xbf16> {
  %o = attn.attention %q, %k, %v block_mask(%bm : tensor<1x1x2x3xi8>) mask(#attn.block_sparse<block_q = 128, block_k = 64>) : tensor<2x8x200x64xbf16>, tensor<2x2x150x64xbf16>, tensor<2x2x150x64xbf16> -> tensor<2x8x200x64xbf16>
  return %o : tensor<2x8x200x64xbf16>
}

// CHECK-LABEL: func @custom_mask
// CHECK: attn.attention %{{.*}}, %{{.*}}, %{{.*}} mask_fn {
// CHECK-NEXT: ^bb0(%[[B:.*]]: index, %[[H:.*]]: index, %[[I:.*]]: index, %[[J:.*]]: index):
// CHECK-NEXT: %[[C:.*]] = arith.cmpi uge, %[[I]], %[[J]] : index
// CHECK-NEXT: attn.yield %[[C]] : i1
func.func @custom_mask(%q: !q, %k: !kv, %v: !kv) -> !q {
  %o = attn.attention %q, %k, %v mask_fn {
  ^bb0(%b: index, %h: index, %i: index, %j: index):
    %c = arith.cmpi uge, %i, %j : index
    attn.yield %c : i1
  } : !q, !kv, !kv -> !q
  return %o : !q
}

// CHECK-LABEL: func @scale_and_softcap
// CHECK: mask(#attn.causal) scale = 1.250000e-01 softcap = 3.000000e+01 :
func.func @scale_and_softcap(%q: !q, %k: !kv, %v: !kv) -> !q {
  %o = attn.attention %q, %k, %v mask(#attn.causal) scale = 0.125 softcap = 30.0 : !q, !kv, !kv -> !q
  return %o : !q
}

// CHECK-LABEL: func @alibi_attribute
// CHECK: alibi = [5.000000e-01, 2.500000e-01, 1.250000e-01, 6.250000e-02, 3.125000e-02, 1.562500e-02, 7.812500e-03, 3.906250e-03] :
func.func @alibi_attribute(%q: !q, %k: !kv, %v: !kv) -> !q {
  %o = attn.attention %q, %k, %v alibi = [0.5, 0.25, 0.125, 0.0625, 0.03125, 0.015625, 0.0078125, 0.00390625] : !q, !kv, !kv -> !q
  return %o : !q
}

// CHECK-LABEL: func @kv_lens_operand
// CHECK: alibi_slopes(%{{.*}} : tensor<8xf32>) kv_lens(%{{.*}} : tensor<2xi32>) mask(#attn.causal) :
func.func @kv_lens_operand(%q: !q, %k: !kv, %v: !kv, %s: tensor<8xf32>, %l: tensor<2xi32>) -> !q {
  %o = attn.attention %q, %k, %v alibi_slopes(%s : tensor<8xf32>) kv_lens(%l : tensor<2xi32>) mask(#attn.causal) : !q, !kv, !kv -> !q
  return %o : !q
}

// A paged cache: key/value pages [num_pages, page_size, Hkv, D].
// CHECK-LABEL: func @paged_kv
// CHECK: kv_lens(%{{.*}} : tensor<2xi32>) page_table(%{{.*}} : tensor<2x?xi32>) mask(#attn.causal) : tensor<2x8x1x64xbf16>, tensor<?x16x2x64xbf16>, tensor<?x16x2x64xbf16> -> tensor<2x8x1x64xbf16>
func.func @paged_kv(%q: tensor<2x8x1x64xbf16>, %k: tensor<?x16x2x64xbf16>, %v: tensor<?x16x2x64xbf16>, %l: tensor<2xi32>, %t: tensor<2x?xi32>) -> tensor<2x8x1x64xbf16> {
  %o = attn.attention %q, %k, %v kv_lens(%l : tensor<2xi32>) page_table(%t : tensor<2x?xi32>) mask(#attn.causal) : tensor<2x8x1x64xbf16>, tensor<?x16x2x64xbf16>, tensor<?x16x2x64xbf16> -> tensor<2x8x1x64xbf16>
  return %o : tensor<2x8x1x64xbf16>
}

// An fp8 e4m3 cache with per-head scales.
// CHECK-LABEL: func @fp8_kv
// CHECK: kv_scales(%{{.*}} : tensor<2x2xf32>) mask(#attn.causal) : tensor<2x8x?x64xbf16>, tensor<2x2x?x64xf8E4M3FN>, tensor<2x2x?x64xf8E4M3FN> -> tensor<2x8x?x64xbf16>
func.func @fp8_kv(%q: tensor<2x8x?x64xbf16>, %k: tensor<2x2x?x64xf8E4M3FN>, %v: tensor<2x2x?x64xf8E4M3FN>, %s: tensor<2x2xf32>) -> tensor<2x8x?x64xbf16> {
  %o = attn.attention %q, %k, %v kv_scales(%s : tensor<2x2xf32>) mask(#attn.causal) : tensor<2x8x?x64xbf16>, tensor<2x2x?x64xf8E4M3FN>, tensor<2x2x?x64xf8E4M3FN> -> tensor<2x8x?x64xbf16>
  return %o : tensor<2x8x?x64xbf16>
}

// A ragged batch: 3 sequences packed along Sq, keys packed along Sk.
// CHECK-LABEL: func @ragged
// CHECK: cu_seqlens_q(%{{.*}} : tensor<4xi32>) cu_seqlens_k(%{{.*}} : tensor<4xi32>) mask(#attn.causal) : tensor<1x8x?x64xbf16>, tensor<1x2x?x64xbf16>, tensor<1x2x?x64xbf16> -> tensor<1x8x?x64xbf16>, tensor<1x8x?xf32>
func.func @ragged(%q: tensor<1x8x?x64xbf16>, %k: tensor<1x2x?x64xbf16>, %cq: tensor<4xi32>, %ck: tensor<4xi32>) -> (tensor<1x8x?x64xbf16>, tensor<1x8x?xf32>) {
  %o, %lse = attn.attention %q, %k, %k cu_seqlens_q(%cq : tensor<4xi32>) cu_seqlens_k(%ck : tensor<4xi32>) mask(#attn.causal) : tensor<1x8x?x64xbf16>, tensor<1x2x?x64xbf16>, tensor<1x2x?x64xbf16> -> tensor<1x8x?x64xbf16>, tensor<1x8x?xf32>
  return %o, %lse : tensor<1x8x?x64xbf16>, tensor<1x8x?xf32>
}

// A ragged batch under a block mask: a grid per sequence (3 of them), over
// the packed lengths.
// CHECK-LABEL: func @ragged_block_sparse
// CHECK: block_mask(%{{.*}} : tensor<3x1x?x?xi8>) cu_seqlens_q(%{{.*}} : tensor<4xi32>) cu_seqlens_k(%{{.*}} : tensor<4xi32>) mask(#attn.block_sparse<block_q = 64, block_k = 64>)
func.func @ragged_block_sparse(%q: tensor<1x8x?x64xbf16>, %k: tensor<1x2x?x64xbf16>, %bm: tensor<3x1x?x?xi8>, %cq: tensor<4xi32>, %ck: tensor<4xi32>) -> tensor<1x8x?x64xbf16> {
  %o = attn.attention %q, %k, %k block_mask(%bm : tensor<3x1x?x?xi8>) cu_seqlens_q(%cq : tensor<4xi32>) cu_seqlens_k(%ck : tensor<4xi32>) mask(#attn.block_sparse<block_q = 64, block_k = 64>) : tensor<1x8x?x64xbf16>, tensor<1x2x?x64xbf16>, tensor<1x2x?x64xbf16> -> tensor<1x8x?x64xbf16>
  return %o : tensor<1x8x?x64xbf16>
}

// A ragged batch whose keys are in a paged cache of its 3 sequences.
// CHECK-LABEL: func @ragged_paged
// CHECK: kv_lens(%{{.*}} : tensor<3xi32>) page_table(%{{.*}} : tensor<3x?xi32>) cu_seqlens_q(%{{.*}} : tensor<4xi32>) mask(#attn.causal)
func.func @ragged_paged(%q: tensor<1x8x?x64xbf16>, %k: tensor<?x16x2x64xbf16>, %l: tensor<3xi32>, %t: tensor<3x?xi32>, %cq: tensor<4xi32>) -> tensor<1x8x?x64xbf16> {
  %o = attn.attention %q, %k, %k kv_lens(%l : tensor<3xi32>) page_table(%t : tensor<3x?xi32>) cu_seqlens_q(%cq : tensor<4xi32>) mask(#attn.causal) : tensor<1x8x?x64xbf16>, tensor<?x16x2x64xbf16>, tensor<?x16x2x64xbf16> -> tensor<1x8x?x64xbf16>
  return %o : tensor<1x8x?x64xbf16>
}

// CHECK-LABEL: func @alibi_operand
// CHECK: alibi_slopes(%{{.*}} : tensor<8xf32>) mask(#attn.causal) :
func.func @alibi_operand(%q: !q, %k: !kv, %v: !kv, %s: tensor<8xf32>) -> !q {
  %o = attn.attention %q, %k, %v alibi_slopes(%s : tensor<8xf32>) mask(#attn.causal) : !q, !kv, !kv -> !q
  return %o : !q
}

// CHECK-LABEL: func @custom_score
// CHECK: score_fn {
// CHECK-NEXT: ^bb0(%[[S:.*]]: f32, %{{.*}}: index, %{{.*}}: index, %{{.*}}: index, %{{.*}}: index):
// CHECK-NEXT: %[[T:.*]] = math.tanh %[[S]] : f32
// CHECK-NEXT: attn.yield %[[T]] : f32
func.func @custom_score(%q: !q, %k: !kv, %v: !kv) -> !q {
  %o = attn.attention %q, %k, %v mask(#attn.sliding_window<left = 16, right = 16>) score_fn {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
    %t = math.tanh %s : f32
    attn.yield %t : f32
  } : !q, !kv, !kv -> !q
  return %o : !q
}

// CHECK-LABEL: func @everything_combined
// CHECK: attn.attention {{.*}} mask_fn {
// CHECK: score_fn {
func.func @everything_combined(%q: tensor<1x4x?x128xf32>, %k: tensor<1x1x?x128xf32>, %v: tensor<1x1x?x96xf32>) -> (tensor<1x4x?x96xf32>, tensor<1x4x?xf32>) {
  %o, %lse = attn.attention %q, %k, %v scale = 2.0 softcap = 50.0 alibi = [1.0, 0.5, 0.25, 0.125] mask_fn {
  ^bb0(%b: index, %h: index, %i: index, %j: index):
    %c = arith.cmpi ne, %i, %j : index
    attn.yield %c : i1
  } score_fn {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
    attn.yield %s : f32
  } : tensor<1x4x?x128xf32>, tensor<1x1x?x128xf32>, tensor<1x1x?x96xf32> -> tensor<1x4x?x96xf32>, tensor<1x4x?xf32>
  return %o, %lse : tensor<1x4x?x96xf32>, tensor<1x4x?xf32>
}

// The GPU kernel configuration attribute.
// CHECK-LABEL: func.func @gpu_kernel_config(
// CHECK: {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 128, block_k = 32, warps = 4, m_tiles = 2, stages = 2, q_in_smem = true>}
func.func @gpu_kernel_config(%q: tensor<2x8x16x128xbf16>) -> tensor<2x8x16x128xbf16> {
  %o = attn.attention %q, %q, %q {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 128, block_k = 32, warps = 4, m_tiles = 2, stages = 2, q_in_smem = true>} : tensor<2x8x16x128xbf16>, tensor<2x8x16x128xbf16>, tensor<2x8x16x128xbf16> -> tensor<2x8x16x128xbf16>
  return %o : tensor<2x8x16x128xbf16>
}

// wgmma and persistent print only when set.
// CHECK-LABEL: func.func @gpu_kernel_wgmma(
// CHECK: {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 128, block_k = 128, warps = 8, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true>}
// CHECK: {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 64, block_k = 64, warps = 4, m_tiles = 1, stages = 2, q_in_smem = true>}
// CHECK: {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 128, block_k = 128, warps = 8, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true, persistent = true>}
// CHECK: {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 128, block_k = 128, warps = 8, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true>}
func.func @gpu_kernel_wgmma(%q: tensor<2x8x16x128xbf16>) -> (tensor<2x8x16x128xbf16>, tensor<2x8x16x128xbf16>, tensor<2x8x16x128xbf16>, tensor<2x8x16x128xbf16>) {
  %a = attn.attention %q, %q, %q {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 128, block_k = 128, warps = 8, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true>} : tensor<2x8x16x128xbf16>, tensor<2x8x16x128xbf16>, tensor<2x8x16x128xbf16> -> tensor<2x8x16x128xbf16>
  %b = attn.attention %q, %q, %q {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 64, block_k = 64, warps = 4, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = false>} : tensor<2x8x16x128xbf16>, tensor<2x8x16x128xbf16>, tensor<2x8x16x128xbf16> -> tensor<2x8x16x128xbf16>
  %c = attn.attention %q, %q, %q {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 128, block_k = 128, warps = 8, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true, persistent = true>} : tensor<2x8x16x128xbf16>, tensor<2x8x16x128xbf16>, tensor<2x8x16x128xbf16> -> tensor<2x8x16x128xbf16>
  %d = attn.attention %q, %q, %q {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 128, block_k = 128, warps = 8, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true, persistent = false>} : tensor<2x8x16x128xbf16>, tensor<2x8x16x128xbf16>, tensor<2x8x16x128xbf16> -> tensor<2x8x16x128xbf16>
  return %a, %b, %c, %d : tensor<2x8x16x128xbf16>, tensor<2x8x16x128xbf16>, tensor<2x8x16x128xbf16>, tensor<2x8x16x128xbf16>
}

// exp2_fma prints only when not 0; it follows persistent, and may stand
// without it.
// CHECK-LABEL: func.func @gpu_kernel_exp2_fma(
// CHECK: {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 128, block_k = 128, warps = 8, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true, persistent = true, exp2_fma = 4>}
// CHECK: {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 128, block_k = 128, warps = 8, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true, exp2_fma = 8>}
// CHECK: {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_80", block_q = 64, block_k = 64, warps = 4, m_tiles = 1, stages = 2, q_in_smem = false>}
func.func @gpu_kernel_exp2_fma(%q: tensor<2x8x16x128xbf16>) -> (tensor<2x8x16x128xbf16>, tensor<2x8x16x128xbf16>, tensor<2x8x16x128xbf16>) {
  %a = attn.attention %q, %q, %q {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 128, block_k = 128, warps = 8, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true, persistent = true, exp2_fma = 4>} : tensor<2x8x16x128xbf16>, tensor<2x8x16x128xbf16>, tensor<2x8x16x128xbf16> -> tensor<2x8x16x128xbf16>
  %b = attn.attention %q, %q, %q {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 128, block_k = 128, warps = 8, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true, exp2_fma = 8>} : tensor<2x8x16x128xbf16>, tensor<2x8x16x128xbf16>, tensor<2x8x16x128xbf16> -> tensor<2x8x16x128xbf16>
  %c = attn.attention %q, %q, %q {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_80", block_q = 64, block_k = 64, warps = 4, m_tiles = 1, stages = 2, q_in_smem = false, exp2_fma = 0>} : tensor<2x8x16x128xbf16>, tensor<2x8x16x128xbf16>, tensor<2x8x16x128xbf16> -> tensor<2x8x16x128xbf16>
  return %a, %b, %c : tensor<2x8x16x128xbf16>, tensor<2x8x16x128xbf16>, tensor<2x8x16x128xbf16>
}

// ping_pong prints only when false; it follows tma_loads' place, before
// exp2_fma, and true is the default.
// CHECK-LABEL: func.func @gpu_kernel_ping_pong(
// CHECK: {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 128, block_k = 80, warps = 8, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true, ping_pong = false>}
// CHECK: {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 128, block_k = 176, warps = 8, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true, persistent = true, ping_pong = false, exp2_fma = 2>}
// CHECK: {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 128, block_k = 176, warps = 8, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true>}
func.func @gpu_kernel_ping_pong(%q: tensor<2x8x16x128xbf16>) -> (tensor<2x8x16x128xbf16>, tensor<2x8x16x128xbf16>, tensor<2x8x16x128xbf16>) {
  %a = attn.attention %q, %q, %q {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 128, block_k = 80, warps = 8, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true, ping_pong = false>} : tensor<2x8x16x128xbf16>, tensor<2x8x16x128xbf16>, tensor<2x8x16x128xbf16> -> tensor<2x8x16x128xbf16>
  %b = attn.attention %q, %q, %q {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 128, block_k = 176, warps = 8, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true, persistent = true, ping_pong = false, exp2_fma = 2>} : tensor<2x8x16x128xbf16>, tensor<2x8x16x128xbf16>, tensor<2x8x16x128xbf16> -> tensor<2x8x16x128xbf16>
  %c = attn.attention %q, %q, %q {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 128, block_k = 176, warps = 8, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true, ping_pong = true>} : tensor<2x8x16x128xbf16>, tensor<2x8x16x128xbf16>, tensor<2x8x16x128xbf16> -> tensor<2x8x16x128xbf16>
  return %a, %b, %c : tensor<2x8x16x128xbf16>, tensor<2x8x16x128xbf16>, tensor<2x8x16x128xbf16>
}

// wide_stores prints only when true; it follows ping_pong, before
// exp2_fma, on any kernel (mma.sync too), and false is the default.
// CHECK-LABEL: func.func @gpu_kernel_wide_stores(
// CHECK: {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 128, block_k = 176, warps = 8, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true, persistent = true, ping_pong = false, wide_stores = true, exp2_fma = 2>}
// CHECK: {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_80", block_q = 128, block_k = 64, warps = 8, m_tiles = 1, stages = 2, q_in_smem = false, wide_stores = true>}
// CHECK: {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_80", block_q = 128, block_k = 64, warps = 8, m_tiles = 1, stages = 2, q_in_smem = false>}
func.func @gpu_kernel_wide_stores(%q: tensor<2x8x16x128xbf16>) -> (tensor<2x8x16x128xbf16>, tensor<2x8x16x128xbf16>, tensor<2x8x16x128xbf16>) {
  %a = attn.attention %q, %q, %q {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 128, block_k = 176, warps = 8, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true, persistent = true, ping_pong = false, wide_stores = true, exp2_fma = 2>} : tensor<2x8x16x128xbf16>, tensor<2x8x16x128xbf16>, tensor<2x8x16x128xbf16> -> tensor<2x8x16x128xbf16>
  %b = attn.attention %q, %q, %q {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_80", block_q = 128, block_k = 64, warps = 8, m_tiles = 1, stages = 2, q_in_smem = false, wide_stores = true>} : tensor<2x8x16x128xbf16>, tensor<2x8x16x128xbf16>, tensor<2x8x16x128xbf16> -> tensor<2x8x16x128xbf16>
  %c = attn.attention %q, %q, %q {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_80", block_q = 128, block_k = 64, warps = 8, m_tiles = 1, stages = 2, q_in_smem = false, wide_stores = false>} : tensor<2x8x16x128xbf16>, tensor<2x8x16x128xbf16>, tensor<2x8x16x128xbf16> -> tensor<2x8x16x128xbf16>
  return %a, %b, %c : tensor<2x8x16x128xbf16>, tensor<2x8x16x128xbf16>, tensor<2x8x16x128xbf16>
}

// lazy_rescale prints only when true; it follows wide_stores, before
// exp2_fma, and false is the default.
// CHECK-LABEL: func.func @gpu_kernel_lazy_rescale(
// CHECK: {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 128, block_k = 80, warps = 8, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true, persistent = true, wide_stores = true, lazy_rescale = true, exp2_fma = 2>}
// CHECK: {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 128, block_k = 80, warps = 8, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true>}
func.func @gpu_kernel_lazy_rescale(%q: tensor<2x8x16x128xbf16>) -> (tensor<2x8x16x128xbf16>, tensor<2x8x16x128xbf16>) {
  %a = attn.attention %q, %q, %q {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 128, block_k = 80, warps = 8, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true, persistent = true, wide_stores = true, lazy_rescale = true, exp2_fma = 2>} : tensor<2x8x16x128xbf16>, tensor<2x8x16x128xbf16>, tensor<2x8x16x128xbf16> -> tensor<2x8x16x128xbf16>
  %b = attn.attention %q, %q, %q {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 128, block_k = 80, warps = 8, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true, lazy_rescale = false>} : tensor<2x8x16x128xbf16>, tensor<2x8x16x128xbf16>, tensor<2x8x16x128xbf16> -> tensor<2x8x16x128xbf16>
  return %a, %b : tensor<2x8x16x128xbf16>, tensor<2x8x16x128xbf16>
}

// trim_keys prints only when true; it follows lazy_rescale, before
// exp2_fma, and false is the default.
// CHECK-LABEL: func.func @gpu_kernel_trim_keys(
// CHECK: {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 128, block_k = 128, warps = 8, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true, persistent = true, lazy_rescale = true, trim_keys = true, exp2_fma = 2>}
// CHECK: {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 128, block_k = 128, warps = 8, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true>}
func.func @gpu_kernel_trim_keys(%q: tensor<2x8x16x128xbf16>) -> (tensor<2x8x16x128xbf16>, tensor<2x8x16x128xbf16>) {
  %a = attn.attention %q, %q, %q {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 128, block_k = 128, warps = 8, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true, persistent = true, lazy_rescale = true, trim_keys = true, exp2_fma = 2>} : tensor<2x8x16x128xbf16>, tensor<2x8x16x128xbf16>, tensor<2x8x16x128xbf16> -> tensor<2x8x16x128xbf16>
  %b = attn.attention %q, %q, %q {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 128, block_k = 128, warps = 8, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true, trim_keys = false>} : tensor<2x8x16x128xbf16>, tensor<2x8x16x128xbf16>, tensor<2x8x16x128xbf16> -> tensor<2x8x16x128xbf16>
  return %a, %b : tensor<2x8x16x128xbf16>, tensor<2x8x16x128xbf16>
}

// staged_stores prints only when true, q_buffers only when not 1,
// blocks_per_sm only when not 0; they follow trim_keys, before exp2_fma;
// false, 1 and 0 are the defaults.
// CHECK-LABEL: func.func @gpu_kernel_staged_stores(
// CHECK: {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 128, block_k = 80, warps = 8, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true, persistent = true, lazy_rescale = true, trim_keys = true, staged_stores = true, q_buffers = 2, blocks_per_sm = 1, exp2_fma = 2>}
// CHECK: {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 128, block_k = 80, warps = 8, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true>}
func.func @gpu_kernel_staged_stores(%q: tensor<2x8x16x192xbf16>) -> (tensor<2x8x16x192xbf16>, tensor<2x8x16x192xbf16>) {
  %a = attn.attention %q, %q, %q {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 128, block_k = 80, warps = 8, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true, persistent = true, lazy_rescale = true, trim_keys = true, staged_stores = true, q_buffers = 2, blocks_per_sm = 1, exp2_fma = 2>} : tensor<2x8x16x192xbf16>, tensor<2x8x16x192xbf16>, tensor<2x8x16x192xbf16> -> tensor<2x8x16x192xbf16>
  %b = attn.attention %q, %q, %q {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 128, block_k = 80, warps = 8, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true, staged_stores = false, q_buffers = 1, blocks_per_sm = 0>} : tensor<2x8x16x192xbf16>, tensor<2x8x16x192xbf16>, tensor<2x8x16x192xbf16> -> tensor<2x8x16x192xbf16>
  return %a, %b : tensor<2x8x16x192xbf16>, tensor<2x8x16x192xbf16>
}

// chain_items prints only when true, after blocks_per_sm and before
// exp2_fma; false is the default.
// CHECK-LABEL: func.func @gpu_kernel_chain_items(
// CHECK: {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 128, block_k = 128, warps = 8, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true, persistent = true, q_buffers = 2, blocks_per_sm = 1, chain_items = true, exp2_fma = 2>}
// CHECK: {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 128, block_k = 128, warps = 8, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true, persistent = true, q_buffers = 2>}
func.func @gpu_kernel_chain_items(%q: tensor<2x8x16x128xbf16>) -> (tensor<2x8x16x128xbf16>, tensor<2x8x16x128xbf16>) {
  %a = attn.attention %q, %q, %q {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 128, block_k = 128, warps = 8, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true, persistent = true, q_buffers = 2, blocks_per_sm = 1, chain_items = true, exp2_fma = 2>} : tensor<2x8x16x128xbf16>, tensor<2x8x16x128xbf16>, tensor<2x8x16x128xbf16> -> tensor<2x8x16x128xbf16>
  %b = attn.attention %q, %q, %q {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 128, block_k = 128, warps = 8, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true, persistent = true, q_buffers = 2, chain_items = false>} : tensor<2x8x16x128xbf16>, tensor<2x8x16x128xbf16>, tensor<2x8x16x128xbf16> -> tensor<2x8x16x128xbf16>
  return %a, %b : tensor<2x8x16x128xbf16>, tensor<2x8x16x128xbf16>
}

// The decode parameters print only when set; attn.decode marks a decode step.
// CHECK-LABEL: func.func @gpu_kernel_decode(
// CHECK: {attn.decode, attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 16, block_k = 64, warps = 4, m_tiles = 1, stages = 2, q_in_smem = false, gqa_pack = 4, key_warps = 4, split_kv = true>}
// CHECK: {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_80", block_q = 16, block_k = 64, warps = 1, m_tiles = 1, stages = 2, q_in_smem = false, split_kv = true>}
// CHECK: {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_80", block_q = 16, block_k = 64, warps = 1, m_tiles = 1, stages = 2, q_in_smem = false, gqa_pack = 2>}
// CHECK: {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_80", block_q = 16, block_k = 64, warps = 1, m_tiles = 1, stages = 2, q_in_smem = false>}
func.func @gpu_kernel_decode(%q: tensor<2x8x1x128xbf16>, %k: tensor<2x2x9x128xbf16>) -> (tensor<2x8x1x128xbf16>, tensor<2x8x1x128xbf16>, tensor<2x8x1x128xbf16>, tensor<2x8x1x128xbf16>) {
  %a = attn.attention %q, %k, %k {attn.decode, attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 16, block_k = 64, warps = 4, m_tiles = 1, stages = 2, q_in_smem = false, gqa_pack = 4, key_warps = 4, split_kv = true>} : tensor<2x8x1x128xbf16>, tensor<2x2x9x128xbf16>, tensor<2x2x9x128xbf16> -> tensor<2x8x1x128xbf16>
  %b = attn.attention %q, %k, %k {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_80", block_q = 16, block_k = 64, warps = 1, m_tiles = 1, stages = 2, q_in_smem = false, split_kv = true>} : tensor<2x8x1x128xbf16>, tensor<2x2x9x128xbf16>, tensor<2x2x9x128xbf16> -> tensor<2x8x1x128xbf16>
  %c = attn.attention %q, %k, %k {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_80", block_q = 16, block_k = 64, warps = 1, m_tiles = 1, stages = 2, q_in_smem = false, gqa_pack = 2, split_kv = false>} : tensor<2x8x1x128xbf16>, tensor<2x2x9x128xbf16>, tensor<2x2x9x128xbf16> -> tensor<2x8x1x128xbf16>
  %d = attn.attention %q, %k, %k {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_80", block_q = 16, block_k = 64, warps = 1, m_tiles = 1, stages = 2, q_in_smem = false, gqa_pack = 1>} : tensor<2x8x1x128xbf16>, tensor<2x2x9x128xbf16>, tensor<2x2x9x128xbf16> -> tensor<2x8x1x128xbf16>
  return %a, %b, %c, %d : tensor<2x8x1x128xbf16>, tensor<2x8x1x128xbf16>, tensor<2x8x1x128xbf16>, tensor<2x8x1x128xbf16>
}

// tma_loads prints only when set, after the decode parameters and before
// exp2_fma.
// CHECK-LABEL: func.func @gpu_kernel_tma_loads(
// CHECK: {attn.decode, attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 16, block_k = 128, warps = 4, m_tiles = 1, stages = 3, q_in_smem = false, gqa_pack = 4, key_warps = 4, split_kv = true, tma_loads = true>}
// CHECK: {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 64, block_k = 64, warps = 4, m_tiles = 1, stages = 2, q_in_smem = false, tma_loads = true, exp2_fma = 2>}
// CHECK: {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 64, block_k = 64, warps = 4, m_tiles = 1, stages = 2, q_in_smem = false>}
func.func @gpu_kernel_tma_loads(%q: tensor<2x8x1x128xbf16>, %k: tensor<2x2x16x128xbf16>) -> (tensor<2x8x1x128xbf16>, tensor<2x8x1x128xbf16>, tensor<2x8x1x128xbf16>) {
  %a = attn.attention %q, %k, %k {attn.decode, attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 16, block_k = 128, warps = 4, m_tiles = 1, stages = 3, q_in_smem = false, gqa_pack = 4, key_warps = 4, split_kv = true, tma_loads = true>} : tensor<2x8x1x128xbf16>, tensor<2x2x16x128xbf16>, tensor<2x2x16x128xbf16> -> tensor<2x8x1x128xbf16>
  %b = attn.attention %q, %k, %k {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 64, block_k = 64, warps = 4, m_tiles = 1, stages = 2, q_in_smem = false, tma_loads = true, exp2_fma = 2>} : tensor<2x8x1x128xbf16>, tensor<2x2x16x128xbf16>, tensor<2x2x16x128xbf16> -> tensor<2x8x1x128xbf16>
  %c = attn.attention %q, %k, %k {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 64, block_k = 64, warps = 4, m_tiles = 1, stages = 2, q_in_smem = false, tma_loads = false>} : tensor<2x8x1x128xbf16>, tensor<2x2x16x128xbf16>, tensor<2x2x16x128xbf16> -> tensor<2x8x1x128xbf16>
  return %a, %b, %c : tensor<2x8x1x128xbf16>, tensor<2x8x1x128xbf16>, tensor<2x8x1x128xbf16>
}
