// bench/cache_prefill_bench.py's attnc_fp8_mma: the fp8 cache prefill of
// bench_cache_d128_causal_fp8 (bench/bench.list) pinned to the mma.sync
// kernel that sm_90a chose for an fp8 cache before the wgmma kernel
// converted codes (the configuration Sm80Target::chooseConfig gives D =
// 128 over fp8 codes). Compiled by scripts/build-gpu-artifacts.sh as
// bench_cache_d128_causal_fp8_mma.
func.func @attention(%q: tensor<?x32x?x128xbf16>, %k: tensor<?x8x?x128xf8E4M3FN>, %v: tensor<?x8x?x128xf8E4M3FN>, %l: tensor<?xi32>, %s: tensor<2x8xf32>) -> (tensor<?x32x?x128xbf16>, tensor<?x32x?xf32>) {
  %o, %lse = attn.attention %q, %k, %v kv_lens(%l : tensor<?xi32>) kv_scales(%s : tensor<2x8xf32>) mask(#attn.causal) {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 128, block_k = 32, warps = 4, m_tiles = 2, stages = 2, q_in_smem = true>} : tensor<?x32x?x128xbf16>, tensor<?x8x?x128xf8E4M3FN>, tensor<?x8x?x128xf8E4M3FN> -> tensor<?x32x?x128xbf16>, tensor<?x32x?xf32>
  return %o, %lse : tensor<?x32x?x128xbf16>, tensor<?x32x?xf32>
}
