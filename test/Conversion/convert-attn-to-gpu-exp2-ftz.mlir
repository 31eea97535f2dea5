// RUN: attnc-opt %s --split-input-file --attn-choose-gpu-kernel=chip=sm_90a --attn-tile --attn-skip-masked-tiles --convert-attn-to-gpu 2>/dev/null | FileCheck %s

// The wgmma kernels take each softmax weight exp2(s - m) as ex2.approx.ftz
// (subnormal weights flushed to 0; without .ftz ptxas wraps every MUFU.EX2
// in a range test and two multiplies): in the key loop, after the S GEMM's
// wait, the weights are the intrinsic and only the two rows' rescale
// factors stay math.exp2 (72 weights a thread: 64 rows x 144 keys over a
// warpgroup's 128 threads).
// CHECK-LABEL: func.func @wgmma_causal(
// CHECK: "wgmma.wait_group.sync.aligned 1;"
// CHECK-COUNT-2: math.exp2
// CHECK-COUNT-72: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"
// CHECK-NOT: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"
// CHECK: "wgmma.wait_group.sync.aligned 0;"
func.func @wgmma_causal(%q: tensor<?x4x?x128xbf16>) -> tensor<?x4x?x128xbf16> {
  %o = attn.attention %q, %q, %q mask(#attn.causal) {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 128, block_k = 144, warps = 8, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true>} : tensor<?x4x?x128xbf16>, tensor<?x4x?x128xbf16>, tensor<?x4x?x128xbf16> -> tensor<?x4x?x128xbf16>
  return %o : tensor<?x4x?x128xbf16>
}

// -----

// The mma.sync kernels (the decode kernels of sm_90a, and sm_80's) keep
// math.exp2 for every weight.
// CHECK-LABEL: func.func @mma_sync_decode(
// CHECK-NOT: ex2.approx.ftz
// CHECK: math.exp2
// CHECK-NOT: ex2.approx.ftz
// CHECK: gpu.return
func.func @mma_sync_decode(%q: tensor<?x8x?x128xbf16>, %k: tensor<?x2x?x128xbf16>, %v: tensor<?x2x?x128xbf16>) -> tensor<?x8x?x128xbf16> {
  %o = attn.attention %q, %k, %v mask(#attn.causal) {attn.decode} : tensor<?x8x?x128xbf16>, tensor<?x2x?x128xbf16>, tensor<?x2x?x128xbf16> -> tensor<?x8x?x128xbf16>
  return %o : tensor<?x8x?x128xbf16>
}
