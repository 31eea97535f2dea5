// RUN: attnc-opt %s --attn-choose-gpu-kernel=chip=sm_90a | FileCheck %s

// Decode over KV caches at D = 128 on sm_90a: 128-key tiles. 16-bit and fp8
// caches, contiguous or in pages of a multiple of 8 rows, load by TMA
// (tma_loads), fp8 pages too (with launch bounds: convert-attn-to-gpu's
// test); a paged 16-bit cache of smaller pages keeps the row copies on
// 64-key tiles (three blocks a multiprocessor: on 128-key tiles they were
// 1.3x slower on the H200, bench/RESULTS.md).
// CHECK-LABEL: func.func @decode_caches_d128(
// CHECK: kv_lens{{.*}}#attn.gpu_kernel<chip = "sm_90a", block_q = 16, block_k = 128, {{.*}}split_kv = true, tma_loads = true>
// CHECK: page_table{{.*}}#attn.gpu_kernel<chip = "sm_90a", block_q = 16, block_k = 128, {{.*}}split_kv = true, tma_loads = true>
// CHECK: kv_scales{{.*}}#attn.gpu_kernel<chip = "sm_90a", block_q = 16, block_k = 128, {{.*}}split_kv = true, tma_loads = true>
// CHECK: page_table{{.*}}kv_scales{{.*}}#attn.gpu_kernel<chip = "sm_90a", block_q = 16, block_k = 128, {{.*}}split_kv = true, tma_loads = true>
// CHECK: page_table{{.*}}#attn.gpu_kernel<chip = "sm_90a", block_q = 16, block_k = 64, {{.*}}split_kv = true>
func.func @decode_caches_d128(%q: tensor<?x8x1x128xbf16>, %k: tensor<?x2x?x128xbf16>, %kp: tensor<?x16x2x128xbf16>, %k8: tensor<?x2x?x128xf8E4M3FN>, %k8p: tensor<?x16x2x128xf8E4M3FN>, %l: tensor<?xi32>, %t: tensor<?x?xi32>, %s: tensor<2x2xf32>, %kp4: tensor<?x4x2x128xbf16>) -> (tensor<?x8x1x128xbf16>, tensor<?x8x1x128xbf16>, tensor<?x8x1x128xbf16>, tensor<?x8x1x128xbf16>, tensor<?x8x1x128xbf16>) {
  %a = attn.attention %q, %k, %k kv_lens(%l : tensor<?xi32>) {attn.decode} : tensor<?x8x1x128xbf16>, tensor<?x2x?x128xbf16>, tensor<?x2x?x128xbf16> -> tensor<?x8x1x128xbf16>
  %b = attn.attention %q, %kp, %kp kv_lens(%l : tensor<?xi32>) page_table(%t : tensor<?x?xi32>) {attn.decode} : tensor<?x8x1x128xbf16>, tensor<?x16x2x128xbf16>, tensor<?x16x2x128xbf16> -> tensor<?x8x1x128xbf16>
  %c = attn.attention %q, %k8, %k8 kv_scales(%s : tensor<2x2xf32>) {attn.decode} : tensor<?x8x1x128xbf16>, tensor<?x2x?x128xf8E4M3FN>, tensor<?x2x?x128xf8E4M3FN> -> tensor<?x8x1x128xbf16>
  %d = attn.attention %q, %k8p, %k8p kv_lens(%l : tensor<?xi32>) page_table(%t : tensor<?x?xi32>) kv_scales(%s : tensor<2x2xf32>) {attn.decode} : tensor<?x8x1x128xbf16>, tensor<?x16x2x128xf8E4M3FN>, tensor<?x16x2x128xf8E4M3FN> -> tensor<?x8x1x128xbf16>
  %e = attn.attention %q, %kp4, %kp4 kv_lens(%l : tensor<?xi32>) page_table(%t : tensor<?x?xi32>) {attn.decode} : tensor<?x8x1x128xbf16>, tensor<?x4x2x128xbf16>, tensor<?x4x2x128xbf16> -> tensor<?x8x1x128xbf16>
  return %a, %b, %c, %d, %e : tensor<?x8x1x128xbf16>, tensor<?x8x1x128xbf16>, tensor<?x8x1x128xbf16>, tensor<?x8x1x128xbf16>, tensor<?x8x1x128xbf16>
}


// At D = 64, contiguous 16-bit keys loaded by TMA take 128-key tiles in three
// stages (64 KiB of loads in flight a block, as at D = 128); a paged cache
// keeps 64-key tiles in two stages, and an fp8 cache (rows of 64 codes, too
// short for the TMA boxes) the row copies.
// CHECK-LABEL: func.func @decode_caches_d64(
// CHECK: kv_lens{{.*}}#attn.gpu_kernel<chip = "sm_90a", block_q = 16, block_k = 128, warps = 4, m_tiles = 1, stages = 3, {{.*}}split_kv = true, tma_loads = true>
// CHECK: page_table{{.*}}#attn.gpu_kernel<chip = "sm_90a", block_q = 16, block_k = 64, warps = 4, m_tiles = 1, stages = 2, {{.*}}split_kv = true, tma_loads = true>
// CHECK: kv_scales{{.*}}#attn.gpu_kernel<chip = "sm_90a", block_q = 16, block_k = 64, warps = 4, m_tiles = 1, stages = 2, {{.*}}split_kv = true>
func.func @decode_caches_d64(%q: tensor<?x8x1x64xbf16>, %k: tensor<?x2x?x64xbf16>, %kp: tensor<?x16x2x64xbf16>, %k8: tensor<?x2x?x64xf8E4M3FN>, %l: tensor<?xi32>, %t: tensor<?x?xi32>, %s: tensor<2x2xf32>) -> (tensor<?x8x1x64xbf16>, tensor<?x8x1x64xbf16>, tensor<?x8x1x64xbf16>) {
  %a = attn.attention %q, %k, %k kv_lens(%l : tensor<?xi32>) {attn.decode} : tensor<?x8x1x64xbf16>, tensor<?x2x?x64xbf16>, tensor<?x2x?x64xbf16> -> tensor<?x8x1x64xbf16>
  %b = attn.attention %q, %kp, %kp kv_lens(%l : tensor<?xi32>) page_table(%t : tensor<?x?xi32>) {attn.decode} : tensor<?x8x1x64xbf16>, tensor<?x16x2x64xbf16>, tensor<?x16x2x64xbf16> -> tensor<?x8x1x64xbf16>
  %c = attn.attention %q, %k8, %k8 kv_scales(%s : tensor<2x2xf32>) {attn.decode} : tensor<?x8x1x64xbf16>, tensor<?x2x?x64xf8E4M3FN>, tensor<?x2x?x64xf8E4M3FN> -> tensor<?x8x1x64xbf16>
  return %a, %b, %c : tensor<?x8x1x64xbf16>, tensor<?x8x1x64xbf16>, tensor<?x8x1x64xbf16>
}
