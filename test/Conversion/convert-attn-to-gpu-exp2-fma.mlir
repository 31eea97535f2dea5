// RUN: attnc-opt %s --attn-choose-gpu-kernel=chip=sm_90a --attn-tile --attn-skip-masked-tiles --convert-attn-to-gpu 2>/dev/null | FileCheck %s

// exp2_fma = 2 (pinned): of every 8 weights a thread computes, the first 2
// come from the FMA-pipe exp2 (attnc/Numerics/Exp2Poly.h: clamp at -127,
// the 1.5 * 2^23 split, the polynomial, 2^j from the exponent bits), the
// other 6 from ex2.approx.ftz (the wgmma kernels' weights); the two rows'
// rescales stay math.exp2.
// CHECK-LABEL: func.func @exp2_fma_causal_d64(
// CHECK: "wgmma.wait_group.sync.aligned 1;"
// CHECK-COUNT-2: math.exp2
// CHECK-NOT: math.exp2
// CHECK: %[[X:.*]] = arith.maxnumf %{{.*}}, %cst{{.*}} : f32
// CHECK-NEXT: %[[ROUND:.*]] = arith.constant 0x4B400000 : f32
// CHECK-NEXT: %[[T:.*]] = arith.addf %[[X]], %[[ROUND]] : f32
// CHECK-NOT: math.exp2
// CHECK: arith.constant 0.0551714376 : f32
// CHECK-NOT: math.exp2
// CHECK: %[[BITS:.*]] = arith.bitcast %[[T]] : f32 to i32
// CHECK-NOT: math.exp2
// CHECK: arith.shli %[[BITS]]
// CHECK-NOT: math.exp2
// CHECK: arith.maxnumf
// CHECK: arith.shli
// CHECK-NOT: arith.maxnumf
// CHECK-COUNT-6: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"
// CHECK-NOT: math.exp2
// CHECK: arith.maxnumf
func.func @exp2_fma_causal_d64(%q: tensor<?x4x?x64xbf16>) -> tensor<?x4x?x64xbf16> {
  %o = attn.attention %q, %q, %q mask(#attn.causal) {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 128, block_k = 128, warps = 8, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true, exp2_fma = 2>} : tensor<?x4x?x64xbf16>, tensor<?x4x?x64xbf16>, tensor<?x4x?x64xbf16> -> tensor<?x4x?x64xbf16>
  return %o : tensor<?x4x?x64xbf16>
}
