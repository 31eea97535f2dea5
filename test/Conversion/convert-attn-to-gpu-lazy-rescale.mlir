// RUN: attnc-opt %s --split-input-file --attn-choose-gpu-kernel=chip=sm_90a --attn-tile --attn-skip-masked-tiles --convert-attn-to-gpu 2>/dev/null | FileCheck %s

// lazy_rescale = true (sm_90a's choice at D = 64): a row keeps its maximum
// until a tile's scores pass it by more than 8 (log2 units). In the key
// loop each row slot tests that, and the warp votes on whether any of its
// rows moved; once P V has completed (wait_group 0), O (32 accumulators a
// lane at D = 64) is multiplied by the rows' factors only on that branch,
// and passed through unchanged on the other.
// CHECK-LABEL: func.func @lazy(
// CHECK: lazy_rescale = true
// CHECK: scf.for {{.*}} iter_args(
// CHECK: nvvm.wgmma.mma_async
// CHECK: "wgmma.wait_group.sync.aligned 1;"
// CHECK: %[[LIMIT:.*]] = arith.addf %{{.*}}, %cst{{.*}} : f32
// CHECK: arith.cmpf ogt, %{{.*}}, %[[LIMIT]] : f32
// CHECK: %[[GROWN:.*]] = nvvm.vote.sync  any %{{.*}}, %{{.*}} -> i1
// CHECK: "wgmma.wait_group.sync.aligned 0;"
// CHECK: scf.if %[[GROWN]] -> (f32,
// CHECK-COUNT-32: arith.mulf
// CHECK-NEXT: scf.yield
// CHECK-NEXT: } else {
// CHECK-NEXT: scf.yield
func.func @lazy(%q: tensor<?x8x?x64xbf16>, %k: tensor<?x2x?x64xbf16>, %v: tensor<?x2x?x64xbf16>) -> tensor<?x8x?x64xbf16> {
  %o = attn.attention %q, %k, %v mask(#attn.causal) : tensor<?x8x?x64xbf16>, tensor<?x2x?x64xbf16>, tensor<?x2x?x64xbf16> -> tensor<?x8x?x64xbf16>
  return %o : tensor<?x8x?x64xbf16>
}

// -----

// Without it (sm_90a's choice at D = 128; here the D = 64 kernel pinned
// without it) every tile moves the maximum and rescales O: no vote, and
// the multiplies follow wait_group 0 unconditionally.
// CHECK-LABEL: func.func @eager(
// CHECK: scf.for {{.*}} iter_args(
// CHECK-NOT: nvvm.vote.sync  any
// CHECK: "wgmma.wait_group.sync.aligned 0;"
// CHECK-NEXT: llvm.extractvalue
// CHECK-NOT: scf.if {{.*}} -> (f32
// CHECK: arith.mulf
func.func @eager(%q: tensor<?x8x?x64xbf16>, %k: tensor<?x2x?x64xbf16>, %v: tensor<?x2x?x64xbf16>) -> tensor<?x8x?x64xbf16> {
  %o = attn.attention %q, %k, %v mask(#attn.causal) {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 192, block_k = 128, warps = 12, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true>} : tensor<?x8x?x64xbf16>, tensor<?x2x?x64xbf16>, tensor<?x2x?x64xbf16> -> tensor<?x8x?x64xbf16>
  return %o : tensor<?x8x?x64xbf16>
}
