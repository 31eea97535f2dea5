// RUN: attnc-opt %s --attn-choose-gpu-kernel=chip=sm_90a | FileCheck %s

// Decode over KV caches at D = 128 on sm_90a: per-sequence lengths and an
// fp8 cache (paged or not) keep the 128-key tiles; a paged 16-bit cache
// takes 64-key tiles (three blocks a multiprocessor; on 128-key tiles it
// was 1.3x slower on the H200, bench/RESULTS.md). Only the contiguous
// 16-bit cache loads by TMA (tma_loads): TMA does not follow pages, and
// fp8 codes are converted from a staging ring.
// CHECK-LABEL: func.func @decode_caches_d128(
// CHECK: kv_lens{{.*}}#attn.gpu_kernel<chip = "sm_90a", block_q = 16, block_k = 128, {{.*}}split_kv = true, tma_loads = true>
// CHECK: page_table{{.*}}#attn.gpu_kernel<chip = "sm_90a", block_q = 16, block_k = 64, {{.*}}split_kv = true>
// CHECK: kv_scales{{.*}}#attn.gpu_kernel<chip = "sm_90a", block_q = 16, block_k = 128, {{.*}}split_kv = true>
// CHECK: page_table{{.*}}kv_scales{{.*}}#attn.gpu_kernel<chip = "sm_90a", block_q = 16, block_k = 128, {{.*}}split_kv = true>
func.func @decode_caches_d128(%q: tensor<?x8x1x128xbf16>, %k: tensor<?x2x?x128xbf16>, %kp: tensor<?x16x2x128xbf16>, %k8: tensor<?x2x?x128xf8E4M3FN>, %k8p: tensor<?x16x2x128xf8E4M3FN>, %l: tensor<?xi32>, %t: tensor<?x?xi32>, %s: tensor<2x2xf32>) -> (tensor<?x8x1x128xbf16>, tensor<?x8x1x128xbf16>, tensor<?x8x1x128xbf16>, tensor<?x8x1x128xbf16>) {
  %a = attn.attention %q, %k, %k kv_lens(%l : tensor<?xi32>) {attn.decode} : tensor<?x8x1x128xbf16>, tensor<?x2x?x128xbf16>, tensor<?x2x?x128xbf16> -> tensor<?x8x1x128xbf16>
  %b = attn.attention %q, %kp, %kp kv_lens(%l : tensor<?xi32>) page_table(%t : tensor<?x?xi32>) {attn.decode} : tensor<?x8x1x128xbf16>, tensor<?x16x2x128xbf16>, tensor<?x16x2x128xbf16> -> tensor<?x8x1x128xbf16>
  %c = attn.attention %q, %k8, %k8 kv_scales(%s : tensor<2x2xf32>) {attn.decode} : tensor<?x8x1x128xbf16>, tensor<?x2x?x128xf8E4M3FN>, tensor<?x2x?x128xf8E4M3FN> -> tensor<?x8x1x128xbf16>
  %d = attn.attention %q, %k8p, %k8p kv_lens(%l : tensor<?xi32>) page_table(%t : tensor<?x?xi32>) kv_scales(%s : tensor<2x2xf32>) {attn.decode} : tensor<?x8x1x128xbf16>, tensor<?x16x2x128xf8E4M3FN>, tensor<?x16x2x128xf8E4M3FN> -> tensor<?x8x1x128xbf16>
  return %a, %b, %c, %d : tensor<?x8x1x128xbf16>, tensor<?x8x1x128xbf16>, tensor<?x8x1x128xbf16>, tensor<?x8x1x128xbf16>
}

