// RUN: attnc-opt %s --attn-choose-gpu-kernel=chip=sm_90a | FileCheck %s

// A configuration set by hand is kept (and its tile sizes recorded).
// CHECK-LABEL: func.func @pinned(
// CHECK: #attn.gpu_kernel<chip = "sm_90a", block_q = 128, block_k = 64, warps = 8, m_tiles = 1, stages = 2, q_in_smem = false>
// CHECK-SAME: attn.tile_sizes = array<i64: 128, 64>
func.func @pinned(%q: tensor<?x8x?x64xbf16>, %k: tensor<?x2x?x64xbf16>, %v: tensor<?x2x?x64xbf16>) -> tensor<?x8x?x64xbf16> {
  %o = attn.attention %q, %k, %v {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 128, block_k = 64, warps = 8, m_tiles = 1, stages = 2, q_in_smem = false>} : tensor<?x8x?x64xbf16>, tensor<?x2x?x64xbf16>, tensor<?x2x?x64xbf16> -> tensor<?x8x?x64xbf16>
  return %o : tensor<?x8x?x64xbf16>
}
