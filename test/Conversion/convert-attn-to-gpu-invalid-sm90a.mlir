// RUN: attnc-opt %s --attn-choose-gpu-kernel=chip=sm_90a --attn-tile --attn-skip-masked-tiles --convert-attn-to-gpu --split-input-file --verify-diagnostics

// The sm_90a target's errors on pinned wgmma configurations.

// A TMA box holds at most 256 rows; the wgmma kernel loads Q as one.
func.func @wgmma_block_q(%q: tensor<?x4x?x64xbf16>, %k: tensor<?x2x?x64xbf16>, %v: tensor<?x2x?x64xbf16>) -> tensor<?x4x?x64xbf16> {
  // expected-error @+1 {{expected block_q <= 256 with wgmma on target sm_90a (Q is one TMA box of block_q rows), got 320}}
  %o = attn.attention %q, %k, %v {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 320, block_k = 64, warps = 20, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true>} : tensor<?x4x?x64xbf16>, tensor<?x2x?x64xbf16>, tensor<?x2x?x64xbf16> -> tensor<?x4x?x64xbf16>
  return %o : tensor<?x4x?x64xbf16>
}

// -----

// The TMA ring has 2 to 4 stages.
func.func @wgmma_stages(%q: tensor<?x4x?x64xbf16>, %k: tensor<?x2x?x64xbf16>, %v: tensor<?x2x?x64xbf16>) -> tensor<?x4x?x64xbf16> {
  // expected-error @+1 {{expected stages in [2, 4] with wgmma or tma_loads on target sm_90a (the TMA ring), got 5}}
  %o = attn.attention %q, %k, %v {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 64, block_k = 64, warps = 4, m_tiles = 1, stages = 5, q_in_smem = true, wgmma = true>} : tensor<?x4x?x64xbf16>, tensor<?x2x?x64xbf16>, tensor<?x2x?x64xbf16> -> tensor<?x4x?x64xbf16>
  return %o : tensor<?x4x?x64xbf16>
}

// -----

// The wgmma kernel takes per-sequence KV lengths on the block grid only:
// the persistent grid numbers the launch's key tiles.
func.func @persistent_kv_lens(%q: tensor<?x4x?x64xbf16>, %k: tensor<?x2x?x64xbf16>, %v: tensor<?x2x?x64xbf16>, %l: tensor<?xi32>) -> tensor<?x4x?x64xbf16> {
  // expected-error @+1 {{expected persistent = false with per-sequence KV lengths (kv_lens) on target sm_90a: the persistent grid numbers the launch's key tiles}}
  %o = attn.attention %q, %k, %v kv_lens(%l : tensor<?xi32>) mask(#attn.causal) {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 128, block_k = 128, warps = 8, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true, persistent = true>} : tensor<?x4x?x64xbf16>, tensor<?x2x?x64xbf16>, tensor<?x2x?x64xbf16> -> tensor<?x4x?x64xbf16>
  return %o : tensor<?x4x?x64xbf16>
}

// -----

// Over a paged cache its TMA boxes are whole pages of a multiple of 8 rows
// dividing the key tile, or key tiles dividing the page: not pages of 12
// rows,
func.func @wgmma_pages12(%q: tensor<?x4x?x64xbf16>, %k: tensor<?x12x2x64xbf16>, %v: tensor<?x12x2x64xbf16>, %l: tensor<?xi32>, %t: tensor<?x?xi32>) -> tensor<?x4x?x64xbf16> {
  // expected-error @+1 {{expected wgmma = false with pages of 12 rows and 48-key tiles on target sm_90a: the wgmma kernel's TMA boxes are whole pages of a multiple of 8 rows dividing the key tile, or key tiles dividing the page}}
  %o = attn.attention %q, %k, %v kv_lens(%l : tensor<?xi32>) page_table(%t : tensor<?x?xi32>) mask(#attn.causal) {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 64, block_k = 48, warps = 4, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true>} : tensor<?x4x?x64xbf16>, tensor<?x12x2x64xbf16>, tensor<?x12x2x64xbf16> -> tensor<?x4x?x64xbf16>
  return %o : tensor<?x4x?x64xbf16>
}

// -----

// nor pages of 32 rows under 80-key tiles,
func.func @wgmma_pages32_tile80(%q: tensor<?x4x?x64xbf16>, %k: tensor<?x32x2x64xbf16>, %v: tensor<?x32x2x64xbf16>, %l: tensor<?xi32>, %t: tensor<?x?xi32>) -> tensor<?x4x?x64xbf16> {
  // expected-error @+1 {{expected wgmma = false with pages of 32 rows and 80-key tiles on target sm_90a}}
  %o = attn.attention %q, %k, %v kv_lens(%l : tensor<?xi32>) page_table(%t : tensor<?x?xi32>) mask(#attn.causal) {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 64, block_k = 80, warps = 4, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true>} : tensor<?x4x?x64xbf16>, tensor<?x32x2x64xbf16>, tensor<?x32x2x64xbf16> -> tensor<?x4x?x64xbf16>
  return %o : tensor<?x4x?x64xbf16>
}

// -----

// Over an fp8 cache its producer converts TMA boxes of rows of 128 codes
// (head dims a multiple of 128),
func.func @wgmma_fp8_d64(%q: tensor<?x4x?x64xbf16>, %k: tensor<?x2x?x64xf8E4M3FN>, %v: tensor<?x2x?x64xf8E4M3FN>, %s: tensor<2x2xf32>) -> tensor<?x4x?x64xbf16> {
  // expected-error @+1 {{expected wgmma = false with an fp8 cache (kv_scales) of head dims 64 and 64 on target sm_90a: the wgmma kernel converts TMA boxes of rows of 128 codes (head dims a multiple of 128)}}
  %o = attn.attention %q, %k, %v kv_scales(%s : tensor<2x2xf32>) mask(#attn.causal) {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 128, block_k = 128, warps = 8, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true>} : tensor<?x4x?x64xbf16>, tensor<?x2x?x64xf8E4M3FN>, tensor<?x2x?x64xf8E4M3FN> -> tensor<?x4x?x64xbf16>
  return %o : tensor<?x4x?x64xbf16>
}

// -----

// on the block grid,
func.func @wgmma_fp8_persistent(%q: tensor<?x4x?x128xbf16>, %k: tensor<?x2x?x128xf8E4M3FN>, %v: tensor<?x2x?x128xf8E4M3FN>, %s: tensor<2x2xf32>) -> tensor<?x4x?x128xbf16> {
  // expected-error @+1 {{expected persistent = false and no run-time tile test (block mask, mask_fn) with wgmma over an fp8 cache (kv_scales) on target sm_90a: its producer converts every key tile of a block's range}}
  %o = attn.attention %q, %k, %v kv_scales(%s : tensor<2x2xf32>) mask(#attn.causal) {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 128, block_k = 128, warps = 8, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true, persistent = true>} : tensor<?x4x?x128xbf16>, tensor<?x2x?x128xf8E4M3FN>, tensor<?x2x?x128xf8E4M3FN> -> tensor<?x4x?x128xbf16>
  return %o : tensor<?x4x?x128xbf16>
}

// -----

// visiting every key tile of its range (no block mask or mask_fn).
func.func @wgmma_fp8_block_mask(%q: tensor<?x4x?x128xbf16>, %k: tensor<?x2x?x128xf8E4M3FN>, %v: tensor<?x2x?x128xf8E4M3FN>, %s: tensor<2x2xf32>, %bm: tensor<1x1x?x?xi8>) -> tensor<?x4x?x128xbf16> {
  // expected-error @+1 {{expected persistent = false and no run-time tile test (block mask, mask_fn) with wgmma over an fp8 cache (kv_scales) on target sm_90a: its producer converts every key tile of a block's range}}
  %o = attn.attention %q, %k, %v block_mask(%bm : tensor<1x1x?x?xi8>) kv_scales(%s : tensor<2x2xf32>) mask(#attn.block_sparse<block_q = 128, block_k = 128>) {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 128, block_k = 128, warps = 8, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true>} : tensor<?x4x?x128xbf16>, tensor<?x2x?x128xf8E4M3FN>, tensor<?x2x?x128xf8E4M3FN> -> tensor<?x4x?x128xbf16>
  return %o : tensor<?x4x?x128xbf16>
}

// -----

// An fp8 cache's codes stream through a cp.async ring of 2 to 4 stages.
func.func @fp8_stages(%q: tensor<?x4x?x64xbf16>, %k: tensor<?x2x?x64xf8E4M3FN>, %v: tensor<?x2x?x64xf8E4M3FN>, %s: tensor<2x2xf32>) -> tensor<?x4x?x64xbf16> {
  // expected-error @+1 {{expected stages in [2, 4] for an fp8 cache or a decode kernel on target sm_90a (the cp.async ring), got 5}}
  %o = attn.attention %q, %k, %v kv_scales(%s : tensor<2x2xf32>) mask(#attn.causal) {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 128, block_k = 64, warps = 4, m_tiles = 2, stages = 5, q_in_smem = true>} : tensor<?x4x?x64xbf16>, tensor<?x2x?x64xf8E4M3FN>, tensor<?x2x?x64xf8E4M3FN> -> tensor<?x4x?x64xbf16>
  return %o : tensor<?x4x?x64xbf16>
}

// -----

// The decode kernel's 16-bit tiles stream through a cp.async ring of 2 to 4
// stages too.
func.func @decode_stages(%q: tensor<?x8x1x128xbf16>, %k: tensor<?x2x?x128xbf16>) -> tensor<?x8x1x128xbf16> {
  // expected-error @+1 {{expected stages in [2, 4] for an fp8 cache or a decode kernel on target sm_90a (the cp.async ring), got 5}}
  %o = attn.attention %q, %k, %k {attn.decode, attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 16, block_k = 128, warps = 4, m_tiles = 1, stages = 5, q_in_smem = false, gqa_pack = 4, key_warps = 4, split_kv = true>} : tensor<?x8x1x128xbf16>, tensor<?x2x?x128xbf16>, tensor<?x2x?x128xbf16> -> tensor<?x8x1x128xbf16>
  return %o : tensor<?x8x1x128xbf16>
}

// -----

// A ragged batch's blocks skip the query tiles past their sequence's end:
// no persistent grid.
func.func @ragged_persistent(%q: tensor<1x8x?x128xbf16>, %k: tensor<1x2x?x128xbf16>, %cq: tensor<?xi32>) -> tensor<1x8x?x128xbf16> {
  // expected-error @+1 {{expected persistent = false with a ragged batch (cu_seqlens_q) on target sm_90a: the persistent grid runs dense batches}}
  %o = attn.attention %q, %k, %k cu_seqlens_q(%cq : tensor<?xi32>) cu_seqlens_k(%cq : tensor<?xi32>) mask(#attn.causal) {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 128, block_k = 128, warps = 8, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true, persistent = true>} : tensor<1x8x?x128xbf16>, tensor<1x2x?x128xbf16>, tensor<1x2x?x128xbf16> -> tensor<1x8x?x128xbf16>
  return %o : tensor<1x8x?x128xbf16>
}

// -----

// A ragged batch runs on the prefill kernels: no split-KV decode kernel.
func.func @ragged_split_kv(%q: tensor<1x8x?x64xbf16>, %k: tensor<1x2x?x64xbf16>, %cq: tensor<?xi32>) -> tensor<1x8x?x64xbf16> {
  // expected-error @+1 {{expected split_kv = false, gqa_pack = 1 and key_warps = 1 with a ragged batch (cu_seqlens_q) on target sm_90a: ragged batches run on the prefill kernels}}
  %o = attn.attention %q, %k, %k cu_seqlens_q(%cq : tensor<?xi32>) cu_seqlens_k(%cq : tensor<?xi32>) mask(#attn.causal) {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 16, block_k = 64, warps = 4, m_tiles = 1, stages = 2, q_in_smem = false, gqa_pack = 4, key_warps = 4, split_kv = true>} : tensor<1x8x?x64xbf16>, tensor<1x2x?x64xbf16>, tensor<1x2x?x64xbf16> -> tensor<1x8x?x64xbf16>
  return %o : tensor<1x8x?x64xbf16>
}

// -----

// TMA loads in the mma.sync kernel read boxes of 16-bit keys and values: a
// paged cache's boxes are pages of a multiple of 8 rows (128-byte swizzle
// atoms),
func.func @tma_loads_paged4(%q: tensor<?x8x1x128xbf16>, %kp: tensor<?x4x2x128xbf16>, %l: tensor<?xi32>, %t: tensor<?x?xi32>) -> tensor<?x8x1x128xbf16> {
  // expected-error @+1 {{expected tma_loads = false with pages of 4 rows on target sm_90a: a TMA box of a page has a multiple of 8 rows (128-byte swizzle atoms)}}
  %o = attn.attention %q, %kp, %kp kv_lens(%l : tensor<?xi32>) page_table(%t : tensor<?x?xi32>) {attn.decode, attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 16, block_k = 128, warps = 4, m_tiles = 1, stages = 2, q_in_smem = false, gqa_pack = 4, key_warps = 4, split_kv = true, tma_loads = true>} : tensor<?x8x1x128xbf16>, tensor<?x4x2x128xbf16>, tensor<?x4x2x128xbf16> -> tensor<?x8x1x128xbf16>
  return %o : tensor<?x8x1x128xbf16>
}

// -----

// an fp8 cache's boxes are rows of 128 codes (head dims a multiple of 128),
func.func @tma_loads_fp8_d64(%q: tensor<?x8x1x64xbf16>, %k8: tensor<?x2x?x64xf8E4M3FN>, %s: tensor<2x2xf32>) -> tensor<?x8x1x64xbf16> {
  // expected-error @+1 {{expected tma_loads = false with an fp8 cache (kv_scales) of head dims 64 and 64 on target sm_90a: its TMA boxes are rows of 128 codes (head dims a multiple of 128)}}
  %o = attn.attention %q, %k8, %k8 kv_scales(%s : tensor<2x2xf32>) {attn.decode, attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 16, block_k = 64, warps = 4, m_tiles = 1, stages = 2, q_in_smem = false, gqa_pack = 4, key_warps = 4, split_kv = true, tma_loads = true>} : tensor<?x8x1x64xbf16>, tensor<?x2x?x64xf8E4M3FN>, tensor<?x2x?x64xf8E4M3FN> -> tensor<?x8x1x64xbf16>
  return %o : tensor<?x8x1x64xbf16>
}

// -----

// nor a ragged batch's packed keys (a box would cross into the next
// sequence's rows),
func.func @tma_loads_ragged(%q: tensor<1x8x?x64xbf16>, %k: tensor<1x2x?x64xbf16>, %cq: tensor<?xi32>) -> tensor<1x8x?x64xbf16> {
  // expected-error @+1 {{expected tma_loads = false with packed keys (cu_seqlens_k) on target sm_90a: TMA loads boxes of the keys and values of a cache}}
  %o = attn.attention %q, %k, %k cu_seqlens_q(%cq : tensor<?xi32>) cu_seqlens_k(%cq : tensor<?xi32>) mask(#attn.causal) {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 64, block_k = 64, warps = 4, m_tiles = 1, stages = 2, q_in_smem = false, tma_loads = true>} : tensor<1x8x?x64xbf16>, tensor<1x2x?x64xbf16>, tensor<1x2x?x64xbf16> -> tensor<1x8x?x64xbf16>
  return %o : tensor<1x8x?x64xbf16>
}

// -----

// and its ring, like the wgmma kernel's, has 2 to 4 stages.
func.func @tma_loads_stages(%q: tensor<?x8x1x128xbf16>, %k: tensor<?x2x?x128xbf16>) -> tensor<?x8x1x128xbf16> {
  // expected-error @+1 {{expected stages in [2, 4] with wgmma or tma_loads on target sm_90a (the TMA ring), got 1}}
  %o = attn.attention %q, %k, %k {attn.decode, attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 16, block_k = 128, warps = 4, m_tiles = 1, stages = 1, q_in_smem = false, gqa_pack = 4, key_warps = 4, split_kv = true, tma_loads = true>} : tensor<?x8x1x128xbf16>, tensor<?x2x?x128xbf16>, tensor<?x2x?x128xbf16> -> tensor<?x8x1x128xbf16>
  return %o : tensor<?x8x1x128xbf16>
}

// -----

// blocks_per_sm: two blocks of 163928 bytes (D = 256: two stages of 64
// keys, Q's tile, barriers) do not fit a multiprocessor.
func.func @blocks_per_sm_shared_memory(%q: tensor<?x4x?x256xbf16>, %k: tensor<?x2x?x256xbf16>, %v: tensor<?x2x?x256xbf16>) -> tensor<?x4x?x256xbf16> {
  // expected-error @+1 {{expected blocks_per_sm = 2 blocks of 164952 bytes of shared memory (with the 1024 the driver reserves) to fit the 233472 bytes of a multiprocessor on sm_90a}}
  %o = attn.attention %q, %k, %v {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 64, block_k = 64, warps = 4, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true, blocks_per_sm = 2>} : tensor<?x4x?x256xbf16>, tensor<?x2x?x256xbf16>, tensor<?x2x?x256xbf16> -> tensor<?x4x?x256xbf16>
  return %o : tensor<?x4x?x256xbf16>
}

// -----

// blocks_per_sm: six blocks of 384 threads exceed a multiprocessor's 2048.
func.func @blocks_per_sm_threads(%q: tensor<?x4x?x64xbf16>, %k: tensor<?x2x?x64xbf16>, %v: tensor<?x2x?x64xbf16>) -> tensor<?x4x?x64xbf16> {
  // expected-error @+1 {{expected blocks_per_sm = 6 blocks of 384 threads to fit the 2048 threads of a multiprocessor on sm_90a}}
  %o = attn.attention %q, %k, %v {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 128, block_k = 32, warps = 8, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true, blocks_per_sm = 6>} : tensor<?x4x?x64xbf16>, tensor<?x2x?x64xbf16>, tensor<?x2x?x64xbf16> -> tensor<?x4x?x64xbf16>
  return %o : tensor<?x4x?x64xbf16>
}

// -----

// chain_items issues the next work item's first S from the tiled IR's
// key-tile bounds: not without a mask (the persistent grid splits its tail
// items by keys).
func.func @chain_items_no_mask(%q: tensor<?x4x?x128xbf16>) -> tensor<?x4x?x128xbf16> {
  // expected-error @+1 {{expected chain_items = false on target sm_90a for this attention: chained work items need a mask with key-tile bounds (no run-time tile test, not the unmasked kernel's split tail items), a contiguous 16-bit cache, dense batches and no trim_keys}}
  %o = attn.attention %q, %q, %q {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 128, block_k = 128, warps = 8, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true, persistent = true, q_buffers = 2, chain_items = true>} : tensor<?x4x?x128xbf16>, tensor<?x4x?x128xbf16>, tensor<?x4x?x128xbf16> -> tensor<?x4x?x128xbf16>
  return %o : tensor<?x4x?x128xbf16>
}

// -----

// Nor with trim_keys.
func.func @chain_items_trim_keys(%q: tensor<?x4x?x128xbf16>) -> tensor<?x4x?x128xbf16> {
  // expected-error @+1 {{expected chain_items = false on target sm_90a for this attention}}
  %o = attn.attention %q, %q, %q mask(#attn.causal) {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 128, block_k = 128, warps = 8, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true, persistent = true, trim_keys = true, q_buffers = 2, chain_items = true>} : tensor<?x4x?x128xbf16>, tensor<?x4x?x128xbf16>, tensor<?x4x?x128xbf16> -> tensor<?x4x?x128xbf16>
  return %o : tensor<?x4x?x128xbf16>
}
