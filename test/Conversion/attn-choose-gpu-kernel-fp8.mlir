// RUN: attnc-opt %s --attn-choose-gpu-kernel=chip=sm_90a --split-input-file | FileCheck %s

// sm_90a's choice over fp8 caches (sm_80 refuses them:
// convert-attn-to-gpu-invalid.mlir).
// An fp8 e4m3 cache (kv_scales) of head dims 128: the wgmma kernel on the
// block grid, 128-key tiles (two 16-bit stages, Q and two stages of codes
// fill 224 KiB), also paged; its producer warpgroup converts the codes.
// Head dims of 64, and run-time tile tests (block masks), keep the mma.sync
// kernel.
// CHECK-LABEL: func.func @d128_fp8(
// CHECK: #attn.gpu_kernel<chip = "sm_90a", block_q = 128, block_k = 128, warps = 8, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true>
// CHECK-LABEL: func.func @d128_fp8_paged16(
// CHECK: #attn.gpu_kernel<chip = "sm_90a", block_q = 128, block_k = 128, warps = 8, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true>
// CHECK-LABEL: func.func @d64_fp8(
// CHECK: #attn.gpu_kernel<chip = "sm_90a", block_q = 128, block_k = 64, warps = 4, m_tiles = 2, stages = 2, q_in_smem = false>
// CHECK-LABEL: func.func @d128_fp8_block_sparse(
// CHECK: #attn.gpu_kernel<chip = "sm_90a", block_q = 128, block_k = 32, warps = 4, m_tiles = 2, stages = 2, q_in_smem = true>
func.func @d128_fp8(%q: tensor<?x8x?x128xbf16>, %k: tensor<?x2x?x128xf8E4M3FN>, %l: tensor<?xi32>, %s: tensor<2x2xf32>) -> tensor<?x8x?x128xbf16> {
  %o = attn.attention %q, %k, %k kv_lens(%l : tensor<?xi32>) kv_scales(%s : tensor<2x2xf32>) mask(#attn.causal) : tensor<?x8x?x128xbf16>, tensor<?x2x?x128xf8E4M3FN>, tensor<?x2x?x128xf8E4M3FN> -> tensor<?x8x?x128xbf16>
  return %o : tensor<?x8x?x128xbf16>
}

func.func @d128_fp8_paged16(%q: tensor<?x8x?x128xbf16>, %k: tensor<?x16x2x128xf8E4M3FN>, %l: tensor<?xi32>, %t: tensor<?x?xi32>, %s: tensor<2x2xf32>) -> tensor<?x8x?x128xbf16> {
  %o = attn.attention %q, %k, %k kv_lens(%l : tensor<?xi32>) page_table(%t : tensor<?x?xi32>) kv_scales(%s : tensor<2x2xf32>) mask(#attn.causal) : tensor<?x8x?x128xbf16>, tensor<?x16x2x128xf8E4M3FN>, tensor<?x16x2x128xf8E4M3FN> -> tensor<?x8x?x128xbf16>
  return %o : tensor<?x8x?x128xbf16>
}

func.func @d64_fp8(%q: tensor<?x8x?x64xbf16>, %k: tensor<?x2x?x64xf8E4M3FN>, %s: tensor<2x2xf32>) -> tensor<?x8x?x64xbf16> {
  %o = attn.attention %q, %k, %k kv_scales(%s : tensor<2x2xf32>) : tensor<?x8x?x64xbf16>, tensor<?x2x?x64xf8E4M3FN>, tensor<?x2x?x64xf8E4M3FN> -> tensor<?x8x?x64xbf16>
  return %o : tensor<?x8x?x64xbf16>
}

func.func @d128_fp8_block_sparse(%q: tensor<?x8x?x128xbf16>, %k: tensor<?x2x?x128xf8E4M3FN>, %bm: tensor<1x1x?x?xi8>, %s: tensor<2x2xf32>) -> tensor<?x8x?x128xbf16> {
  %o = attn.attention %q, %k, %k block_mask(%bm : tensor<1x1x?x?xi8>) kv_scales(%s : tensor<2x2xf32>) mask(#attn.block_sparse<block_q = 128, block_k = 128>) : tensor<?x8x?x128xbf16>, tensor<?x2x?x128xf8E4M3FN>, tensor<?x2x?x128xf8E4M3FN> -> tensor<?x8x?x128xbf16>
  return %o : tensor<?x8x?x128xbf16>
}
