// RUN: attnc-opt %s --split-input-file --attn-choose-gpu-kernel=chip=sm_90a --attn-tile --attn-skip-masked-tiles --convert-attn-to-gpu 2>/dev/null | FileCheck %s

// By default the two consumer warpgroups of the wgmma kernel take turns to
// issue their GEMMs (ping-pong): the last warpgroup lets the first start,
// and each waits for its turn at a named barrier of 256 threads (the two
// warpgroups) and hands it on once its GEMMs are issued.
// CHECK-LABEL: func.func @turns(
// CHECK: gpu.func
// CHECK: nvvm.barrier.arrive id = %{{.*}} number_of_threads = %{{.*}}
// CHECK: wgmma.mma_async
// CHECK: nvvm.barrier id = %{{.*}} number_of_threads = %{{.*}}
// CHECK: wgmma.mma_async
// CHECK: nvvm.barrier.arrive id = %{{.*}} number_of_threads = %{{.*}}
func.func @turns(%q: tensor<?x4x?x128xbf16>) -> tensor<?x4x?x128xbf16> {
  %o = attn.attention %q, %q, %q mask(#attn.causal) {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 128, block_k = 128, warps = 8, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true>} : tensor<?x4x?x128xbf16>, tensor<?x4x?x128xbf16>, tensor<?x4x?x128xbf16> -> tensor<?x4x?x128xbf16>
  return %o : tensor<?x4x?x128xbf16>
}

// -----

// ping_pong = false: no turns; each warpgroup issues its GEMMs when ready
// (no named barrier in the kernel: this one has no ragged tail to zero).
// CHECK-LABEL: func.func @no_turns(
// CHECK: gpu.func
// CHECK-NOT: nvvm.barrier
// CHECK: wgmma.mma_async
// CHECK-NOT: nvvm.barrier
// CHECK: gpu.return
func.func @no_turns(%q: tensor<?x4x?x128xbf16>) -> tensor<?x4x?x128xbf16> {
  %o = attn.attention %q, %q, %q mask(#attn.causal) {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 128, block_k = 128, warps = 8, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true, ping_pong = false>} : tensor<?x4x?x128xbf16>, tensor<?x4x?x128xbf16>, tensor<?x4x?x128xbf16> -> tensor<?x4x?x128xbf16>
  return %o : tensor<?x4x?x128xbf16>
}
