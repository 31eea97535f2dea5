// RUN: attnc-opt %s --attn-choose-gpu-kernel=chip=sm_90a --attn-tile --attn-skip-masked-tiles --convert-attn-to-gpu --split-input-file 2>/dev/null | FileCheck %s

// blocks_per_sm = 3 (one consumer warpgroup, 56 KiB of shared memory):
// ptxas's launch bounds ask for three blocks a multiprocessor
// (nvvm.minctasm), so a thread starts with 80 registers (65536 / (256 x 3)
// = 85, down to a multiple of 8), and the setmaxnreg split shares the
// block's 80 x 256 = 20480: 24 for the producer, 136 for the consumers.
// CHECK-LABEL: func.func @three_blocks(
// CHECK: gpu.func @attnc_attention
// CHECK-SAME: nvvm.minctasm = 3
// CHECK: nvvm.setmaxregister  increase 136
// CHECK: nvvm.setmaxregister  decrease 24
func.func @three_blocks(%q: tensor<?x8x?x64xbf16>, %k: tensor<?x2x?x64xbf16>, %v: tensor<?x2x?x64xbf16>) -> tensor<?x8x?x64xbf16> {
  %o = attn.attention %q, %k, %v mask(#attn.causal) {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 64, block_k = 64, warps = 4, m_tiles = 1, stages = 3, q_in_smem = true, wgmma = true, lazy_rescale = true, blocks_per_sm = 3>} : tensor<?x8x?x64xbf16>, tensor<?x2x?x64xbf16>, tensor<?x2x?x64xbf16> -> tensor<?x8x?x64xbf16>
  return %o : tensor<?x8x?x64xbf16>
}

// -----

// Without it the same kernel is derived to two blocks a multiprocessor
// (its shared memory fits twice), whose consumers take 232 registers.
// CHECK-LABEL: func.func @derived(
// CHECK: gpu.func @attnc_attention
// CHECK-SAME: nvvm.minctasm = 2
// CHECK: nvvm.setmaxregister  increase 232
// CHECK: nvvm.setmaxregister  decrease 24
func.func @derived(%q: tensor<?x8x?x64xbf16>, %k: tensor<?x2x?x64xbf16>, %v: tensor<?x2x?x64xbf16>) -> tensor<?x8x?x64xbf16> {
  %o = attn.attention %q, %k, %v mask(#attn.causal) {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 64, block_k = 64, warps = 4, m_tiles = 1, stages = 3, q_in_smem = true, wgmma = true, lazy_rescale = true>} : tensor<?x8x?x64xbf16>, tensor<?x2x?x64xbf16>, tensor<?x2x?x64xbf16> -> tensor<?x8x?x64xbf16>
  return %o : tensor<?x8x?x64xbf16>
}

// -----

// One block a multiprocessor, set, though two would fit.
// CHECK-LABEL: func.func @one_block(
// CHECK: gpu.func @attnc_attention
// CHECK-SAME: nvvm.minctasm = 1
// CHECK: nvvm.setmaxregister  increase 240
func.func @one_block(%q: tensor<?x8x?x64xbf16>, %k: tensor<?x2x?x64xbf16>, %v: tensor<?x2x?x64xbf16>) -> tensor<?x8x?x64xbf16> {
  %o = attn.attention %q, %k, %v mask(#attn.causal) {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 64, block_k = 64, warps = 4, m_tiles = 1, stages = 3, q_in_smem = true, wgmma = true, lazy_rescale = true, blocks_per_sm = 1>} : tensor<?x8x?x64xbf16>, tensor<?x2x?x64xbf16>, tensor<?x2x?x64xbf16> -> tensor<?x8x?x64xbf16>
  return %o : tensor<?x8x?x64xbf16>
}
