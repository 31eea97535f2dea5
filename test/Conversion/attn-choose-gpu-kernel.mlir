// RUN: attnc-opt %s --attn-choose-gpu-kernel=chip=sm_90a --split-input-file | FileCheck %s
// RUN: attnc-opt %s --attn-choose-gpu-kernel=chip=sm_80 --split-input-file | FileCheck %s --check-prefix=SM80
// RUN: not attnc-opt %s --attn-choose-gpu-kernel=chip=sm_75 --split-input-file 2>&1 | FileCheck %s --check-prefix=BADCHIP

// The target picks the configuration from the head dims and records it,
// with the tile sizes that tiling for this kernel must use.

// sm_90a prefill: warpgroup MMA (wgmma), Q in shared memory. D = 64: three
// consumer warpgroups (192 rows), 128-key tiles, O rescaled only where a row's
// maximum moves (lazy_rescale: every head dim but 128). sm_80: two m-tiles per
// warp, Q fragments in registers, 64-key tiles.
// CHECK-LABEL: func.func @d64(
// CHECK: attn.attention
// CHECK-SAME: attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 192, block_k = 128, warps = 12, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true, lazy_rescale = true>
// CHECK-SAME: attn.tile_sizes = array<i64: 192, 128>
// SM80-LABEL: func.func @d64(
// SM80: #attn.gpu_kernel<chip = "sm_80", block_q = 128, block_k = 64, warps = 4, m_tiles = 2, stages = 2, q_in_smem = false>
// BADCHIP: error: expected chip to be one of sm_80, sm_90a, got "sm_75"
func.func @d64(%q: tensor<?x8x?x64xbf16>, %k: tensor<?x2x?x64xbf16>, %v: tensor<?x2x?x64xbf16>) -> tensor<?x8x?x64xbf16> {
  %o = attn.attention %q, %k, %v mask(#attn.causal) : tensor<?x8x?x64xbf16>, tensor<?x2x?x64xbf16>, tensor<?x2x?x64xbf16> -> tensor<?x8x?x64xbf16>
  return %o : tensor<?x8x?x64xbf16>
}

// -----

// D = 128 without a mask: two warpgroups share 160-key tiles on a
// persistent grid, with 16-byte O stores as every persistent kernel (under a
// causal mask 128-key tiles, not persistent, Pipelines/attnc-compile-gpu.mlir). sm_80: Q staged in shared memory and
// 32-key tiles, so the accumulators stay in registers.
// CHECK-LABEL: func.func @d128(
// CHECK: #attn.gpu_kernel<chip = "sm_90a", block_q = 128, block_k = 160, warps = 8, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true, persistent = true, wide_stores = true>
// CHECK-SAME: attn.tile_sizes = array<i64: 128, 160>
// SM80-LABEL: func.func @d128(
// SM80: #attn.gpu_kernel<chip = "sm_80", block_q = 128, block_k = 32, warps = 4, m_tiles = 2, stages = 2, q_in_smem = true>
func.func @d128(%q: tensor<?x8x?x128xf16>, %k: tensor<?x8x?x128xf16>, %v: tensor<?x8x?x128xf16>) -> tensor<?x8x?x128xf16> {
  %o = attn.attention %q, %k, %v : tensor<?x8x?x128xf16>, tensor<?x8x?x128xf16>, tensor<?x8x?x128xf16> -> tensor<?x8x?x128xf16>
  return %o : tensor<?x8x?x128xf16>
}

// -----

// D = 128 with a mask that leaves few tiles (a window): one warpgroup on
// 64-key tiles.
// CHECK-LABEL: func.func @d128_window(
// CHECK: #attn.gpu_kernel<chip = "sm_90a", block_q = 64, block_k = 64, warps = 4, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true>
func.func @d128_window(%q: tensor<?x8x?x128xf16>, %k: tensor<?x8x?x128xf16>, %v: tensor<?x8x?x128xf16>) -> tensor<?x8x?x128xf16> {
  %o = attn.attention %q, %k, %v mask(#attn.sliding_window<left = 255, right = 0>) : tensor<?x8x?x128xf16>, tensor<?x8x?x128xf16>, tensor<?x8x?x128xf16> -> tensor<?x8x?x128xf16>
  return %o : tensor<?x8x?x128xf16>
}

// -----

// D = 128 with a window of 1024 keys or more: every query tile sees about
// as many key tiles, so two warpgroups on 128-key tiles, persistent; D = 64
// the same from 2048 keys, while narrower windows at D = 64 take one
// warpgroup on 64-key tiles, three blocks a multiprocessor (the block grid).
// CHECK-LABEL: func.func @d128_wide_window(
// CHECK: #attn.gpu_kernel<chip = "sm_90a", block_q = 128, block_k = 128, warps = 8, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true, persistent = true, wide_stores = true>
// CHECK: #attn.gpu_kernel<chip = "sm_90a", block_q = 128, block_k = 128, warps = 8, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true, persistent = true, wide_stores = true, lazy_rescale = true>
// CHECK: #attn.gpu_kernel<chip = "sm_90a", block_q = 64, block_k = 64, warps = 4, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true, lazy_rescale = true, blocks_per_sm = 3>
// CHECK: #attn.gpu_kernel<chip = "sm_90a", block_q = 64, block_k = 64, warps = 4, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true, lazy_rescale = true, blocks_per_sm = 3>
func.func @d128_wide_window(%q: tensor<?x8x?x128xf16>, %k: tensor<?x8x?x128xf16>, %v: tensor<?x8x?x128xf16>, %q64: tensor<?x8x?x64xbf16>) -> (tensor<?x8x?x128xf16>, tensor<?x8x?x64xbf16>, tensor<?x8x?x64xbf16>, tensor<?x8x?x64xbf16>) {
  %o = attn.attention %q, %k, %v mask(#attn.sliding_window<left = 1023, right = 0>) : tensor<?x8x?x128xf16>, tensor<?x8x?x128xf16>, tensor<?x8x?x128xf16> -> tensor<?x8x?x128xf16>
  %w = attn.attention %q64, %q64, %q64 mask(#attn.sliding_window<left = 2047, right = 0>) : tensor<?x8x?x64xbf16>, tensor<?x8x?x64xbf16>, tensor<?x8x?x64xbf16> -> tensor<?x8x?x64xbf16>
  %n = attn.attention %q64, %q64, %q64 mask(#attn.sliding_window<left = 2046, right = 0>) : tensor<?x8x?x64xbf16>, tensor<?x8x?x64xbf16>, tensor<?x8x?x64xbf16> -> tensor<?x8x?x64xbf16>
  %s = attn.attention %q64, %q64, %q64 mask(#attn.sliding_window<left = 100, right = 20>) : tensor<?x8x?x64xbf16>, tensor<?x8x?x64xbf16>, tensor<?x8x?x64xbf16> -> tensor<?x8x?x64xbf16>
  return %o, %w, %n, %s : tensor<?x8x?x128xf16>, tensor<?x8x?x64xbf16>, tensor<?x8x?x64xbf16>, tensor<?x8x?x64xbf16>
}

// -----

// D = 128 with a block mask or a mask_fn, whose tiles are tested at run
// time, on the block scheduler's grid (a run-time tile test cannot run
// persistent): two warpgroups on 128-key tiles, or on 64-key tiles for a
// block mask whose blocks are not a multiple of 8 keys (its table read per
// score spills on 128). Prefix-LM takes the causal configuration (128-key
// tiles).
// CHECK-LABEL: func.func @d128_block_sparse(
// CHECK: #attn.gpu_kernel<chip = "sm_90a", block_q = 128, block_k = 128, warps = 8, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true>
// CHECK-LABEL: func.func @d128_block_sparse_narrow(
// CHECK: #attn.gpu_kernel<chip = "sm_90a", block_q = 128, block_k = 64, warps = 8, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true>
// CHECK-LABEL: func.func @d128_mask_fn(
// CHECK: #attn.gpu_kernel<chip = "sm_90a", block_q = 128, block_k = 128, warps = 8, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true>
// CHECK-LABEL: func.func @d128_prefix(
// CHECK: #attn.gpu_kernel<chip = "sm_90a", block_q = 128, block_k = 128, warps = 8, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true, persistent = true, wide_stores = true>
func.func @d128_block_sparse(%q: tensor<?x8x?x128xbf16>, %k: tensor<?x8x?x128xbf16>, %bm: tensor<1x1x?x?xi8>) -> tensor<?x8x?x128xbf16> {
  %o = attn.attention %q, %k, %k block_mask(%bm : tensor<1x1x?x?xi8>) mask(#attn.block_sparse<block_q = 128, block_k = 128>) : tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16> -> tensor<?x8x?x128xbf16>
  return %o : tensor<?x8x?x128xbf16>
}

func.func @d128_block_sparse_narrow(%q: tensor<?x8x?x128xbf16>, %k: tensor<?x8x?x128xbf16>, %bm: tensor<1x1x?x?xi8>) -> tensor<?x8x?x128xbf16> {
  %o = attn.attention %q, %k, %k block_mask(%bm : tensor<1x1x?x?xi8>) mask(#attn.block_sparse<block_q = 128, block_k = 4>) : tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16> -> tensor<?x8x?x128xbf16>
  return %o : tensor<?x8x?x128xbf16>
}

func.func @d128_mask_fn(%q: tensor<?x8x?x128xbf16>, %k: tensor<?x8x?x128xbf16>) -> tensor<?x8x?x128xbf16> {
  %o = attn.attention %q, %k, %k mask_fn {
  ^bb0(%b: index, %h: index, %i: index, %j: index):
    %c = arith.cmpi uge, %i, %j : index
    attn.yield %c : i1
  } : tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16> -> tensor<?x8x?x128xbf16>
  return %o : tensor<?x8x?x128xbf16>
}

func.func @d128_prefix(%q: tensor<?x8x?x128xbf16>, %k: tensor<?x8x?x128xbf16>) -> tensor<?x8x?x128xbf16> {
  %o = attn.attention %q, %k, %k mask(#attn.prefix_lm<prefix = 1024>) : tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16> -> tensor<?x8x?x128xbf16>
  return %o : tensor<?x8x?x128xbf16>
}

// cu_seqlens documents: the persistent grid too (pairs of query tiles);
// documents by seq_ids test their key tiles at run time: the block grid.
// CHECK-LABEL: func.func @d128_documents(
// CHECK: #attn.gpu_kernel<chip = "sm_90a", block_q = 128, block_k = 128, warps = 8, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true, persistent = true, wide_stores = true>
// CHECK-LABEL: func.func @d128_seq_ids(
// CHECK: #attn.gpu_kernel<chip = "sm_90a", block_q = 128, block_k = 128, warps = 8, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true>
func.func @d128_documents(%q: tensor<?x8x?x128xbf16>, %k: tensor<?x8x?x128xbf16>, %cu: tensor<?xi32>) -> tensor<?x8x?x128xbf16> {
  %o = attn.attention %q, %k, %k cu_seqlens(%cu : tensor<?xi32>) mask(#attn.document<cu_seqlens, causal>) : tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16> -> tensor<?x8x?x128xbf16>
  return %o : tensor<?x8x?x128xbf16>
}

func.func @d128_seq_ids(%q: tensor<?x8x?x128xbf16>, %k: tensor<?x8x?x128xbf16>, %ids: tensor<?x?xi32>) -> tensor<?x8x?x128xbf16> {
  %o = attn.attention %q, %k, %k seq_ids(%ids : tensor<?x?xi32>) mask(#attn.document<seq_ids>) : tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16> -> tensor<?x8x?x128xbf16>
  return %o : tensor<?x8x?x128xbf16>
}

// -----

// D = 128 soft-capped under a causal mask: the causal configuration (the
// persistent grid in pairs on 128-key tiles), at any cap.
// CHECK-LABEL: func.func @d128_softcap(
// CHECK: #attn.gpu_kernel<chip = "sm_90a", block_q = 128, block_k = 128, warps = 8, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true, persistent = true, wide_stores = true>
// CHECK-LABEL: func.func @d128_softcap_wide(
// CHECK: #attn.gpu_kernel<chip = "sm_90a", block_q = 128, block_k = 128, warps = 8, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true, persistent = true, wide_stores = true>
// CHECK-LABEL: func.func @d128_softcap_f16(
// CHECK: #attn.gpu_kernel<chip = "sm_90a", block_q = 128, block_k = 128, warps = 8, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true, persistent = true, wide_stores = true>
func.func @d128_softcap(%q: tensor<?x8x?x128xbf16>, %k: tensor<?x8x?x128xbf16>) -> tensor<?x8x?x128xbf16> {
  %o = attn.attention %q, %k, %k mask(#attn.causal) softcap = 30.0 : tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16> -> tensor<?x8x?x128xbf16>
  return %o : tensor<?x8x?x128xbf16>
}

func.func @d128_softcap_wide(%q: tensor<?x8x?x128xbf16>, %k: tensor<?x8x?x128xbf16>) -> tensor<?x8x?x128xbf16> {
  %o = attn.attention %q, %k, %k mask(#attn.causal) softcap = 50.0 : tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16> -> tensor<?x8x?x128xbf16>
  return %o : tensor<?x8x?x128xbf16>
}

func.func @d128_softcap_f16(%q: tensor<?x8x?x128xf16>, %k: tensor<?x8x?x128xf16>) -> tensor<?x8x?x128xf16> {
  %o = attn.attention %q, %k, %k mask(#attn.causal) softcap = 30.0 : tensor<?x8x?x128xf16>, tensor<?x8x?x128xf16>, tensor<?x8x?x128xf16> -> tensor<?x8x?x128xf16>
  return %o : tensor<?x8x?x128xf16>
}

// -----

// D = 256 without a mask: two warpgroups on a persistent grid with 64-key
// tiles and 16-byte O stores (O takes 128 registers; on 80-key tiles the
// persistent consumers spill). sm_80: one m-tile per warp, 8 warps. Causal
// and prefix-LM masks: 80-key tiles on the block grid (d256_causal); with
// ALiBi, 64-key tiles.
// CHECK-LABEL: func.func @d256(
// CHECK: #attn.gpu_kernel<chip = "sm_90a", block_q = 128, block_k = 64, warps = 8, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true, persistent = true, wide_stores = true, lazy_rescale = true>
// SM80-LABEL: func.func @d256(
// SM80: #attn.gpu_kernel<chip = "sm_80", block_q = 128, block_k = 32, warps = 8, m_tiles = 1, stages = 2, q_in_smem = false>
func.func @d256(%q: tensor<?x4x?x256xbf16>, %k: tensor<?x4x?x256xbf16>, %v: tensor<?x4x?x256xbf16>) -> tensor<?x4x?x256xbf16> {
  %o = attn.attention %q, %k, %v : tensor<?x4x?x256xbf16>, tensor<?x4x?x256xbf16>, tensor<?x4x?x256xbf16> -> tensor<?x4x?x256xbf16>
  return %o : tensor<?x4x?x256xbf16>
}

// -----

// CHECK-LABEL: func.func @d256_causal(
// CHECK: #attn.gpu_kernel<chip = "sm_90a", block_q = 128, block_k = 80, warps = 8, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true, lazy_rescale = true>
// CHECK: #attn.gpu_kernel<chip = "sm_90a", block_q = 128, block_k = 80, warps = 8, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true, lazy_rescale = true>
// CHECK: #attn.gpu_kernel<chip = "sm_90a", block_q = 128, block_k = 64, warps = 8, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true, lazy_rescale = true>
func.func @d256_causal(%q: tensor<?x4x?x256xbf16>, %k: tensor<?x4x?x256xbf16>, %v: tensor<?x4x?x256xbf16>) -> (tensor<?x4x?x256xbf16>, tensor<?x4x?x256xbf16>, tensor<?x4x?x256xbf16>) {
  %c = attn.attention %q, %k, %v mask(#attn.causal) : tensor<?x4x?x256xbf16>, tensor<?x4x?x256xbf16>, tensor<?x4x?x256xbf16> -> tensor<?x4x?x256xbf16>
  %p = attn.attention %q, %k, %v mask(#attn.prefix_lm<prefix = 40, top_left>) : tensor<?x4x?x256xbf16>, tensor<?x4x?x256xbf16>, tensor<?x4x?x256xbf16> -> tensor<?x4x?x256xbf16>
  %a = attn.attention %q, %k, %v mask(#attn.causal) alibi = [0.5, 0.25, 0.125, 0.0625] : tensor<?x4x?x256xbf16>, tensor<?x4x?x256xbf16>, tensor<?x4x?x256xbf16> -> tensor<?x4x?x256xbf16>
  return %c, %p, %a : tensor<?x4x?x256xbf16>, tensor<?x4x?x256xbf16>, tensor<?x4x?x256xbf16>
}

// -----

// D = 80 and 96 without a mask and under causal, prefix-LM and soft-capped
// causal masks: three consumer warpgroups on 96-key tiles (persistent
// without a mask, the block grid under the masks); a window keeps D = 128's
// one warpgroup on 64-key tiles.
// CHECK-LABEL: func.func @d96(
// CHECK: #attn.gpu_kernel<chip = "sm_90a", block_q = 192, block_k = 96, warps = 12, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true, persistent = true, wide_stores = true, lazy_rescale = true>
// CHECK: #attn.gpu_kernel<chip = "sm_90a", block_q = 192, block_k = 96, warps = 12, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true, lazy_rescale = true>
// CHECK: #attn.gpu_kernel<chip = "sm_90a", block_q = 192, block_k = 96, warps = 12, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true, lazy_rescale = true>
// CHECK: #attn.gpu_kernel<chip = "sm_90a", block_q = 192, block_k = 96, warps = 12, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true, lazy_rescale = true>
// CHECK: #attn.gpu_kernel<chip = "sm_90a", block_q = 64, block_k = 64, warps = 4, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true, lazy_rescale = true>
func.func @d96(%q: tensor<?x4x?x96xbf16>, %k: tensor<?x4x?x96xbf16>, %v: tensor<?x4x?x96xbf16>) -> (tensor<?x4x?x96xbf16>, tensor<?x4x?x96xbf16>, tensor<?x4x?x96xbf16>, tensor<?x4x?x96xbf16>, tensor<?x4x?x96xbf16>) {
  %n = attn.attention %q, %k, %v : tensor<?x4x?x96xbf16>, tensor<?x4x?x96xbf16>, tensor<?x4x?x96xbf16> -> tensor<?x4x?x96xbf16>
  %c = attn.attention %q, %k, %v mask(#attn.causal) : tensor<?x4x?x96xbf16>, tensor<?x4x?x96xbf16>, tensor<?x4x?x96xbf16> -> tensor<?x4x?x96xbf16>
  %p = attn.attention %q, %k, %v mask(#attn.prefix_lm<prefix = 40, top_left>) : tensor<?x4x?x96xbf16>, tensor<?x4x?x96xbf16>, tensor<?x4x?x96xbf16> -> tensor<?x4x?x96xbf16>
  %s = attn.attention %q, %k, %v mask(#attn.causal) softcap = 3.000000e+01 : tensor<?x4x?x96xbf16>, tensor<?x4x?x96xbf16>, tensor<?x4x?x96xbf16> -> tensor<?x4x?x96xbf16>
  %w = attn.attention %q, %k, %v mask(#attn.sliding_window<left = 100, right = 0>) : tensor<?x4x?x96xbf16>, tensor<?x4x?x96xbf16>, tensor<?x4x?x96xbf16> -> tensor<?x4x?x96xbf16>
  return %n, %c, %p, %s, %w : tensor<?x4x?x96xbf16>, tensor<?x4x?x96xbf16>, tensor<?x4x?x96xbf16>, tensor<?x4x?x96xbf16>, tensor<?x4x?x96xbf16>
}

// -----

// CHECK-LABEL: func.func @d80(
// CHECK: #attn.gpu_kernel<chip = "sm_90a", block_q = 192, block_k = 96, warps = 12, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true, persistent = true, wide_stores = true, lazy_rescale = true>
// CHECK: #attn.gpu_kernel<chip = "sm_90a", block_q = 192, block_k = 96, warps = 12, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true, lazy_rescale = true>
// CHECK: #attn.gpu_kernel<chip = "sm_90a", block_q = 192, block_k = 96, warps = 12, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true, lazy_rescale = true>
// CHECK: #attn.gpu_kernel<chip = "sm_90a", block_q = 192, block_k = 96, warps = 12, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true, lazy_rescale = true>
// CHECK: #attn.gpu_kernel<chip = "sm_90a", block_q = 64, block_k = 64, warps = 4, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true, lazy_rescale = true>
func.func @d80(%q: tensor<?x4x?x80xbf16>, %k: tensor<?x4x?x80xbf16>, %v: tensor<?x4x?x80xbf16>) -> (tensor<?x4x?x80xbf16>, tensor<?x4x?x80xbf16>, tensor<?x4x?x80xbf16>, tensor<?x4x?x80xbf16>, tensor<?x4x?x80xbf16>) {
  %n = attn.attention %q, %k, %v : tensor<?x4x?x80xbf16>, tensor<?x4x?x80xbf16>, tensor<?x4x?x80xbf16> -> tensor<?x4x?x80xbf16>
  %c = attn.attention %q, %k, %v mask(#attn.causal) : tensor<?x4x?x80xbf16>, tensor<?x4x?x80xbf16>, tensor<?x4x?x80xbf16> -> tensor<?x4x?x80xbf16>
  %p = attn.attention %q, %k, %v mask(#attn.prefix_lm<prefix = 40, top_left>) : tensor<?x4x?x80xbf16>, tensor<?x4x?x80xbf16>, tensor<?x4x?x80xbf16> -> tensor<?x4x?x80xbf16>
  %s = attn.attention %q, %k, %v mask(#attn.causal) softcap = 3.000000e+01 : tensor<?x4x?x80xbf16>, tensor<?x4x?x80xbf16>, tensor<?x4x?x80xbf16> -> tensor<?x4x?x80xbf16>
  %w = attn.attention %q, %k, %v mask(#attn.sliding_window<left = 100, right = 0>) : tensor<?x4x?x80xbf16>, tensor<?x4x?x80xbf16>, tensor<?x4x?x80xbf16> -> tensor<?x4x?x80xbf16>
  return %n, %c, %p, %s, %w : tensor<?x4x?x80xbf16>, tensor<?x4x?x80xbf16>, tensor<?x4x?x80xbf16>, tensor<?x4x?x80xbf16>, tensor<?x4x?x80xbf16>
}

// -----

// cu_seqlens documents, causal or not: at D = 80 and 96 three consumer
// warpgroups on 96-key tiles (the block grid), at D = 192 112-key tiles.
// CHECK-LABEL: func.func @d96_documents(
// CHECK: #attn.gpu_kernel<chip = "sm_90a", block_q = 192, block_k = 96, warps = 12, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true, lazy_rescale = true>
// CHECK: #attn.gpu_kernel<chip = "sm_90a", block_q = 192, block_k = 96, warps = 12, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true, lazy_rescale = true>
func.func @d96_documents(%q: tensor<?x4x?x96xbf16>, %k: tensor<?x4x?x96xbf16>, %cu: tensor<?xi32>) -> (tensor<?x4x?x96xbf16>, tensor<?x4x?x96xbf16>) {
  %c = attn.attention %q, %k, %k cu_seqlens(%cu : tensor<?xi32>) mask(#attn.document<cu_seqlens, causal>) : tensor<?x4x?x96xbf16>, tensor<?x4x?x96xbf16>, tensor<?x4x?x96xbf16> -> tensor<?x4x?x96xbf16>
  %n = attn.attention %q, %k, %k cu_seqlens(%cu : tensor<?xi32>) mask(#attn.document<cu_seqlens>) : tensor<?x4x?x96xbf16>, tensor<?x4x?x96xbf16>, tensor<?x4x?x96xbf16> -> tensor<?x4x?x96xbf16>
  return %c, %n : tensor<?x4x?x96xbf16>, tensor<?x4x?x96xbf16>
}

// -----

// CHECK-LABEL: func.func @d80_documents(
// CHECK: #attn.gpu_kernel<chip = "sm_90a", block_q = 192, block_k = 96, warps = 12, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true, lazy_rescale = true>
// CHECK: #attn.gpu_kernel<chip = "sm_90a", block_q = 192, block_k = 96, warps = 12, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true, lazy_rescale = true>
func.func @d80_documents(%q: tensor<?x4x?x80xbf16>, %k: tensor<?x4x?x80xbf16>, %cu: tensor<?xi32>) -> (tensor<?x4x?x80xbf16>, tensor<?x4x?x80xbf16>) {
  %c = attn.attention %q, %k, %k cu_seqlens(%cu : tensor<?xi32>) mask(#attn.document<cu_seqlens, causal>) : tensor<?x4x?x80xbf16>, tensor<?x4x?x80xbf16>, tensor<?x4x?x80xbf16> -> tensor<?x4x?x80xbf16>
  %n = attn.attention %q, %k, %k cu_seqlens(%cu : tensor<?xi32>) mask(#attn.document<cu_seqlens>) : tensor<?x4x?x80xbf16>, tensor<?x4x?x80xbf16>, tensor<?x4x?x80xbf16> -> tensor<?x4x?x80xbf16>
  return %c, %n : tensor<?x4x?x80xbf16>, tensor<?x4x?x80xbf16>
}

// -----

// CHECK-LABEL: func.func @d192_documents(
// CHECK: #attn.gpu_kernel<chip = "sm_90a", block_q = 128, block_k = 112, warps = 8, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true, lazy_rescale = true>
// CHECK: #attn.gpu_kernel<chip = "sm_90a", block_q = 128, block_k = 112, warps = 8, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true, lazy_rescale = true>
func.func @d192_documents(%q: tensor<?x4x?x192xbf16>, %k: tensor<?x4x?x192xbf16>, %cu: tensor<?xi32>) -> (tensor<?x4x?x192xbf16>, tensor<?x4x?x192xbf16>) {
  %c = attn.attention %q, %k, %k cu_seqlens(%cu : tensor<?xi32>) mask(#attn.document<cu_seqlens, causal>) : tensor<?x4x?x192xbf16>, tensor<?x4x?x192xbf16>, tensor<?x4x?x192xbf16> -> tensor<?x4x?x192xbf16>
  %n = attn.attention %q, %k, %k cu_seqlens(%cu : tensor<?xi32>) mask(#attn.document<cu_seqlens>) : tensor<?x4x?x192xbf16>, tensor<?x4x?x192xbf16>, tensor<?x4x?x192xbf16> -> tensor<?x4x?x192xbf16>
  return %c, %n : tensor<?x4x?x192xbf16>, tensor<?x4x?x192xbf16>
}

// -----

// D = 192: 112-key tiles, persistent without a mask, on the block grid under
// causal and prefix-LM masks; with ALiBi (a per-score bias) or a window,
// 64-key tiles.
// CHECK-LABEL: func.func @d192(
// CHECK: #attn.gpu_kernel<chip = "sm_90a", block_q = 128, block_k = 112, warps = 8, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true, persistent = true, wide_stores = true, lazy_rescale = true>
// CHECK: #attn.gpu_kernel<chip = "sm_90a", block_q = 128, block_k = 112, warps = 8, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true, lazy_rescale = true>
// CHECK: #attn.gpu_kernel<chip = "sm_90a", block_q = 128, block_k = 112, warps = 8, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true, lazy_rescale = true>
// CHECK: #attn.gpu_kernel<chip = "sm_90a", block_q = 128, block_k = 64, warps = 8, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true, lazy_rescale = true>
// CHECK: #attn.gpu_kernel<chip = "sm_90a", block_q = 128, block_k = 64, warps = 8, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true, lazy_rescale = true>
func.func @d192(%q: tensor<?x4x?x192xbf16>, %k: tensor<?x4x?x192xbf16>, %v: tensor<?x4x?x192xbf16>) -> (tensor<?x4x?x192xbf16>, tensor<?x4x?x192xbf16>, tensor<?x4x?x192xbf16>, tensor<?x4x?x192xbf16>, tensor<?x4x?x192xbf16>) {
  %n = attn.attention %q, %k, %v : tensor<?x4x?x192xbf16>, tensor<?x4x?x192xbf16>, tensor<?x4x?x192xbf16> -> tensor<?x4x?x192xbf16>
  %c = attn.attention %q, %k, %v mask(#attn.causal) : tensor<?x4x?x192xbf16>, tensor<?x4x?x192xbf16>, tensor<?x4x?x192xbf16> -> tensor<?x4x?x192xbf16>
  %p = attn.attention %q, %k, %v mask(#attn.prefix_lm<prefix = 40, top_left>) : tensor<?x4x?x192xbf16>, tensor<?x4x?x192xbf16>, tensor<?x4x?x192xbf16> -> tensor<?x4x?x192xbf16>
  %a = attn.attention %q, %k, %v mask(#attn.causal) alibi = [0.5, 0.25, 0.125, 0.0625] : tensor<?x4x?x192xbf16>, tensor<?x4x?x192xbf16>, tensor<?x4x?x192xbf16> -> tensor<?x4x?x192xbf16>
  %w = attn.attention %q, %k, %v mask(#attn.sliding_window<left = 100, right = 0>) : tensor<?x4x?x192xbf16>, tensor<?x4x?x192xbf16>, tensor<?x4x?x192xbf16> -> tensor<?x4x?x192xbf16>
  return %n, %c, %p, %a, %w : tensor<?x4x?x192xbf16>, tensor<?x4x?x192xbf16>, tensor<?x4x?x192xbf16>, tensor<?x4x?x192xbf16>, tensor<?x4x?x192xbf16>
}

// -----

// attn.decode: the 4 query heads of a KV head packed into 16 rows (a tile
// holds 16 / 4 = 4 query positions), 4 warps sharing them and splitting each
// key tile, the key range split over blocks at run time. sm_90a at D = 128:
// 128-key tiles (32 keys a warp); sm_80: 64-key tiles.
// CHECK-LABEL: func.func @decode_gqa4(
// CHECK: #attn.gpu_kernel<chip = "sm_90a", block_q = 16, block_k = 128, warps = 4, m_tiles = 1, stages = 2, q_in_smem = false, gqa_pack = 4, key_warps = 4, split_kv = true, tma_loads = true>
// CHECK-SAME: attn.tile_sizes = array<i64: 4, 128>
// SM80-LABEL: func.func @decode_gqa4(
// SM80: #attn.gpu_kernel<chip = "sm_80", block_q = 16, block_k = 64, warps = 4, m_tiles = 1, stages = 2, q_in_smem = false, gqa_pack = 4, key_warps = 4, split_kv = true>
func.func @decode_gqa4(%q: tensor<?x8x?x128xbf16>, %k: tensor<?x2x?x128xbf16>, %v: tensor<?x2x?x128xbf16>) -> tensor<?x8x?x128xbf16> {
  %o = attn.attention %q, %k, %v mask(#attn.causal) {attn.decode} : tensor<?x8x?x128xbf16>, tensor<?x2x?x128xbf16>, tensor<?x2x?x128xbf16> -> tensor<?x8x?x128xbf16>
  return %o : tensor<?x8x?x128xbf16>
}

// -----

// ALiBi slopes differ per head: no packing, still split. D = 64 over
// contiguous keys: 128-key tiles in three stages.
// CHECK-LABEL: func.func @decode_alibi(
// CHECK: #attn.gpu_kernel<chip = "sm_90a", block_q = 16, block_k = 128, warps = 4, m_tiles = 1, stages = 3, q_in_smem = false, key_warps = 4, split_kv = true, tma_loads = true>
// CHECK-SAME: attn.tile_sizes = array<i64: 16, 128>
func.func @decode_alibi(%q: tensor<?x8x?x64xbf16>, %k: tensor<?x2x?x64xbf16>, %v: tensor<?x2x?x64xbf16>) -> tensor<?x8x?x64xbf16> {
  %o = attn.attention %q, %k, %v mask(#attn.causal) alibi = [0.5, 0.25, 0.125, 0.0625, 0.03125, 0.015625, 0.0078125, 0.00390625] {attn.decode} : tensor<?x8x?x64xbf16>, tensor<?x2x?x64xbf16>, tensor<?x2x?x64xbf16> -> tensor<?x8x?x64xbf16>
  return %o : tensor<?x8x?x64xbf16>
}

// -----

// A static query length counts: 4 positions x 8 heads = 32 packed rows, two
// query tiles of 16;
// above 64 rows (here 9 x 8), the prefill kernel.
// CHECK-LABEL: func.func @decode_static(
// CHECK: #attn.gpu_kernel<chip = "sm_90a", block_q = 16, block_k = 128, warps = 4, m_tiles = 1, stages = 3, q_in_smem = false, gqa_pack = 8, key_warps = 4, split_kv = true, tma_loads = true>
// CHECK: #attn.gpu_kernel<chip = "sm_90a", block_q = 192, block_k = 128, warps = 12, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true, lazy_rescale = true>
func.func @decode_static(%q: tensor<1x16x4x64xbf16>, %k: tensor<1x2x100x64xbf16>, %q9: tensor<1x16x9x64xbf16>) -> (tensor<1x16x4x64xbf16>, tensor<1x16x9x64xbf16>) {
  %o = attn.attention %q, %k, %k {attn.decode} : tensor<1x16x4x64xbf16>, tensor<1x2x100x64xbf16>, tensor<1x2x100x64xbf16> -> tensor<1x16x4x64xbf16>
  %p = attn.attention %q9, %k, %k {attn.decode} : tensor<1x16x9x64xbf16>, tensor<1x2x100x64xbf16>, tensor<1x2x100x64xbf16> -> tensor<1x16x9x64xbf16>
  return %o, %p : tensor<1x16x4x64xbf16>, tensor<1x16x9x64xbf16>
}

// -----

// Head dims other than 64 and 128 (not yet run on the GPU with the decode
// kernel) take the prefill kernel.
// CHECK-LABEL: func.func @decode_d256(
// CHECK: #attn.gpu_kernel<chip = "sm_90a", block_q = 128, block_k = 80, warps = 8, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true, lazy_rescale = true>
func.func @decode_d256(%q: tensor<?x8x?x256xbf16>, %k: tensor<?x2x?x256xbf16>, %v: tensor<?x2x?x256xbf16>) -> tensor<?x8x?x256xbf16> {
  %o = attn.attention %q, %k, %v mask(#attn.causal) {attn.decode} : tensor<?x8x?x256xbf16>, tensor<?x2x?x256xbf16>, tensor<?x2x?x256xbf16> -> tensor<?x8x?x256xbf16>
  return %o : tensor<?x8x?x256xbf16>
}

// -----

// A prefill over a contiguous 16-bit cache with per-sequence lengths
// (kv_lens) on sm_90a: the wgmma kernel on the block grid (persistent =
// false: the persistent grid numbers the launch's key tiles), as for a
// ragged batch: no mask on 176-key tiles, causal on 128, the 1024-key
// window on one consumer warpgroup and 64-key tiles (off the persistent
// grid, two warpgroups on 128-key tiles were slower: GpuTarget.cpp). Over
// pages, the widest key tile up to 160 without a mask whose TMA boxes fit
// them (160 keys with pages of 16 or 32 rows: on 176 keys, 22 boxes of 16
// rows, the consumers spilled); pages of 4 rows (too few for a box)
// keep the mma.sync kernel, as fp8 codes do, and so do pages of 40 rows
// under a narrow window (its 64-key tiles: no tile of at most 64 keys fits
// them).
// CHECK-LABEL: func.func @d128_kv_lens(
// CHECK: #attn.gpu_kernel<chip = "sm_90a", block_q = 128, block_k = 176, warps = 8, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true{{(, wide_stores = true)?}}>
// CHECK-LABEL: func.func @d128_kv_lens_causal(
// CHECK: #attn.gpu_kernel<chip = "sm_90a", block_q = 128, block_k = 128, warps = 8, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true{{(, wide_stores = true)?}}>
// CHECK-LABEL: func.func @d128_kv_lens_window(
// CHECK: #attn.gpu_kernel<chip = "sm_90a", block_q = 64, block_k = 64, warps = 4, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true>
// CHECK-LABEL: func.func @d128_kv_lens_paged(
// CHECK: #attn.gpu_kernel<chip = "sm_90a", block_q = 128, block_k = 128, warps = 8, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true{{(, wide_stores = true)?}}>
// CHECK-LABEL: func.func @d128_kv_lens_paged32(
// CHECK: #attn.gpu_kernel<chip = "sm_90a", block_q = 128, block_k = 160, warps = 8, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true{{(, wide_stores = true)?}}>
// CHECK-LABEL: func.func @d128_kv_lens_paged16_none(
// CHECK: #attn.gpu_kernel<chip = "sm_90a", block_q = 128, block_k = 160, warps = 8, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true{{(, wide_stores = true)?}}>
// CHECK-LABEL: func.func @d128_kv_lens_paged40_window(
// CHECK: #attn.gpu_kernel<chip = "sm_90a", block_q = 128, block_k = 32, warps = 4, m_tiles = 2, stages = 2, q_in_smem = true>
// CHECK-LABEL: func.func @d128_kv_lens_paged4(
// CHECK: #attn.gpu_kernel<chip = "sm_90a", block_q = 128, block_k = 32, warps = 4, m_tiles = 2, stages = 2, q_in_smem = true>
// SM80-LABEL: func.func @d128_kv_lens(
// SM80: #attn.gpu_kernel<chip = "sm_80", block_q = 128, block_k = 32, warps = 4, m_tiles = 2, stages = 2, q_in_smem = true>
func.func @d128_kv_lens(%q: tensor<?x8x?x128xbf16>, %k: tensor<?x2x?x128xbf16>, %l: tensor<?xi32>) -> tensor<?x8x?x128xbf16> {
  %o = attn.attention %q, %k, %k kv_lens(%l : tensor<?xi32>) : tensor<?x8x?x128xbf16>, tensor<?x2x?x128xbf16>, tensor<?x2x?x128xbf16> -> tensor<?x8x?x128xbf16>
  return %o : tensor<?x8x?x128xbf16>
}

func.func @d128_kv_lens_causal(%q: tensor<?x8x?x128xbf16>, %k: tensor<?x2x?x128xbf16>, %l: tensor<?xi32>) -> tensor<?x8x?x128xbf16> {
  %o = attn.attention %q, %k, %k kv_lens(%l : tensor<?xi32>) mask(#attn.causal) : tensor<?x8x?x128xbf16>, tensor<?x2x?x128xbf16>, tensor<?x2x?x128xbf16> -> tensor<?x8x?x128xbf16>
  return %o : tensor<?x8x?x128xbf16>
}

func.func @d128_kv_lens_window(%q: tensor<?x8x?x128xbf16>, %k: tensor<?x2x?x128xbf16>, %l: tensor<?xi32>) -> tensor<?x8x?x128xbf16> {
  %o = attn.attention %q, %k, %k kv_lens(%l : tensor<?xi32>) mask(#attn.sliding_window<left = 1023, right = 0>) : tensor<?x8x?x128xbf16>, tensor<?x2x?x128xbf16>, tensor<?x2x?x128xbf16> -> tensor<?x8x?x128xbf16>
  return %o : tensor<?x8x?x128xbf16>
}

func.func @d128_kv_lens_paged(%q: tensor<?x8x?x128xbf16>, %k: tensor<?x16x2x128xbf16>, %l: tensor<?xi32>, %t: tensor<?x?xi32>) -> tensor<?x8x?x128xbf16> {
  %o = attn.attention %q, %k, %k kv_lens(%l : tensor<?xi32>) page_table(%t : tensor<?x?xi32>) mask(#attn.causal) : tensor<?x8x?x128xbf16>, tensor<?x16x2x128xbf16>, tensor<?x16x2x128xbf16> -> tensor<?x8x?x128xbf16>
  return %o : tensor<?x8x?x128xbf16>
}

func.func @d128_kv_lens_paged32(%q: tensor<?x8x?x128xbf16>, %k: tensor<?x32x2x128xbf16>, %l: tensor<?xi32>, %t: tensor<?x?xi32>) -> tensor<?x8x?x128xbf16> {
  %o = attn.attention %q, %k, %k kv_lens(%l : tensor<?xi32>) page_table(%t : tensor<?x?xi32>) : tensor<?x8x?x128xbf16>, tensor<?x32x2x128xbf16>, tensor<?x32x2x128xbf16> -> tensor<?x8x?x128xbf16>
  return %o : tensor<?x8x?x128xbf16>
}

func.func @d128_kv_lens_paged16_none(%q: tensor<?x8x?x128xbf16>, %k: tensor<?x16x2x128xbf16>, %l: tensor<?xi32>, %t: tensor<?x?xi32>) -> tensor<?x8x?x128xbf16> {
  %o = attn.attention %q, %k, %k kv_lens(%l : tensor<?xi32>) page_table(%t : tensor<?x?xi32>) : tensor<?x8x?x128xbf16>, tensor<?x16x2x128xbf16>, tensor<?x16x2x128xbf16> -> tensor<?x8x?x128xbf16>
  return %o : tensor<?x8x?x128xbf16>
}

func.func @d128_kv_lens_paged40_window(%q: tensor<?x8x?x128xbf16>, %k: tensor<?x40x2x128xbf16>, %l: tensor<?xi32>, %t: tensor<?x?xi32>) -> tensor<?x8x?x128xbf16> {
  %o = attn.attention %q, %k, %k kv_lens(%l : tensor<?xi32>) page_table(%t : tensor<?x?xi32>) mask(#attn.sliding_window<left = 100, right = 0>) : tensor<?x8x?x128xbf16>, tensor<?x40x2x128xbf16>, tensor<?x40x2x128xbf16> -> tensor<?x8x?x128xbf16>
  return %o : tensor<?x8x?x128xbf16>
}

func.func @d128_kv_lens_paged4(%q: tensor<?x8x?x128xbf16>, %k: tensor<?x4x2x128xbf16>, %l: tensor<?xi32>, %t: tensor<?x?xi32>) -> tensor<?x8x?x128xbf16> {
  %o = attn.attention %q, %k, %k kv_lens(%l : tensor<?xi32>) page_table(%t : tensor<?x?xi32>) mask(#attn.causal) : tensor<?x8x?x128xbf16>, tensor<?x4x2x128xbf16>, tensor<?x4x2x128xbf16> -> tensor<?x8x?x128xbf16>
  return %o : tensor<?x8x?x128xbf16>
}
