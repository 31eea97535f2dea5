// bench/cache_prefill_bench.py's attnc_mma: the cache prefill of
// bench_cache_d128_causal (bench/bench.list) pinned to the mma.sync kernel
// that sm_90a chose for a KV cache before the wgmma kernel read one (the
// configuration Sm80Target::chooseConfig gives D = 128). Compiled by
// scripts/build-gpu-artifacts.sh as bench_cache_d128_causal_mma.
func.func @attention(%q: tensor<?x32x?x128xbf16>, %k: tensor<?x8x?x128xbf16>, %v: tensor<?x8x?x128xbf16>, %l: tensor<?xi32>) -> (tensor<?x32x?x128xbf16>, tensor<?x32x?xf32>) {
  %o, %lse = attn.attention %q, %k, %v kv_lens(%l : tensor<?xi32>) mask(#attn.causal) {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 128, block_k = 32, warps = 4, m_tiles = 2, stages = 2, q_in_smem = true>} : tensor<?x32x?x128xbf16>, tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16> -> tensor<?x32x?x128xbf16>, tensor<?x32x?xf32>
  return %o, %lse : tensor<?x32x?x128xbf16>, tensor<?x32x?xf32>
}
