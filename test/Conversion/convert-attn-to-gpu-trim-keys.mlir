// RUN: attnc-opt %s --split-input-file --attn-choose-gpu-kernel=chip=sm_90a --attn-tile --attn-skip-masked-tiles --convert-attn-to-gpu 2>/dev/null | FileCheck %s
// RUN: attnc-opt %s --split-input-file --attn-choose-gpu-kernel=chip=sm_90a --attn-tile --attn-skip-masked-tiles --convert-attn-to-gpu 2>/dev/null | FileCheck %s --check-prefix=WHOLE

// trim_keys = true under a sliding window (D = 128, 128-key tiles): each
// consumer warpgroup takes the keys its 64 rows may see, [lo, hi), and in
// the key loop issues P V of the tile before over key steps [0, 4) of 16
// when hi <= k0 + 64, [4, 8) when lo >= k0 + 64, or all 8; S = Q K^T stays
// m64n128 (ptxas serialised the wgmmas when S branched).
// CHECK-LABEL: func.func @window(
// CHECK: trim_keys = true
// CHECK: scf.for
// CHECK-COUNT-8: nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 128, k = 16>
// CHECK: %[[SPLIT:.*]] = arith.addi %{{.*}}, %c64{{.*}} : index
// CHECK: %[[LOWER:.*]] = arith.cmpi sle, %{{.*}}, %[[SPLIT]] : index
// CHECK: %[[UPPER:.*]] = arith.cmpi sge, %{{.*}}, %[[SPLIT]] : index
// CHECK: scf.if %[[LOWER]] -> (f32,
// CHECK-COUNT-4: wgmma.mma_async.sync.aligned.m64n128k16
// CHECK-NOT: wgmma.mma_async.sync.aligned.m64n128k16
// CHECK: } else {
// CHECK: scf.if %[[UPPER]] -> (f32,
// CHECK-COUNT-4: wgmma.mma_async.sync.aligned.m64n128k16
// CHECK-NOT: wgmma.mma_async.sync.aligned.m64n128k16
// CHECK: } else {
// CHECK-COUNT-8: wgmma.mma_async.sync.aligned.m64n128k16
// CHECK-NOT: wgmma.mma_async.sync.aligned.m64n128k16
// CHECK: "wgmma.wait_group.sync.aligned 1;"
// CHECK: //{{ -----}}
// No S anywhere in the function is narrowed.
// WHOLE-LABEL: func.func @window(
// WHOLE-NOT: <m = 64, n = 64, k = 16>
// WHOLE: //{{ -----}}
func.func @window(%q: tensor<?x16x?x128xbf16>, %k: tensor<?x16x?x128xbf16>) -> tensor<?x16x?x128xbf16> {
  %o = attn.attention %q, %k, %k mask(#attn.sliding_window<left = 1023, right = 0>) {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 128, block_k = 128, warps = 8, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true, persistent = true, wide_stores = true, trim_keys = true>} : tensor<?x16x?x128xbf16>, tensor<?x16x?x128xbf16>, tensor<?x16x?x128xbf16> -> tensor<?x16x?x128xbf16>
  return %o : tensor<?x16x?x128xbf16>
}

// -----

// Without it every P V is 8 key steps: no branch between 4 and 8.
// CHECK-LABEL: func.func @untrimmed(
// CHECK: {attn.gpu_kernel = #attn.gpu_kernel<{{[^>]*}}wide_stores = true>}
// CHECK: scf.for
// CHECK-COUNT-8: wgmma.mma_async.sync.aligned.m64n128k16
// CHECK-NOT: } else {
// CHECK: "wgmma.wait_group.sync.aligned 1;"
// CHECK: //{{ -----}}
func.func @untrimmed(%q: tensor<?x16x?x128xbf16>, %k: tensor<?x16x?x128xbf16>) -> tensor<?x16x?x128xbf16> {
  %o = attn.attention %q, %k, %k mask(#attn.sliding_window<left = 1023, right = 0>) {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 128, block_k = 128, warps = 8, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true, persistent = true, wide_stores = true>} : tensor<?x16x?x128xbf16>, tensor<?x16x?x128xbf16>, tensor<?x16x?x128xbf16> -> tensor<?x16x?x128xbf16>
  return %o : tensor<?x16x?x128xbf16>
}

// -----

// cu_seqlens documents (causal within each): the warpgroup's keys run
// from its first row's document start to its last row's position + 1;
// on 160-key tiles the halves are 80 keys, 5 key steps each.
// CHECK-LABEL: func.func @documents(
// CHECK: trim_keys = true
// CHECK: %[[SPLIT:.*]] = arith.addi %{{.*}}, %c80{{.*}} : index
// CHECK: %[[LOWER:.*]] = arith.cmpi sle, %{{.*}}, %[[SPLIT]] : index
// CHECK: scf.if %[[LOWER]] -> (f32,
// CHECK-COUNT-5: wgmma.mma_async.sync.aligned.m64n128k16
// CHECK-NOT: wgmma.mma_async.sync.aligned.m64n128k16
// CHECK: } else {
func.func @documents(%q: tensor<?x16x?x128xbf16>, %k: tensor<?x16x?x128xbf16>, %cu: tensor<?xi32>) -> tensor<?x16x?x128xbf16> {
  %o = attn.attention %q, %k, %k cu_seqlens(%cu : tensor<?xi32>) mask(#attn.document<cu_seqlens, causal>) {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 128, block_k = 160, warps = 8, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true, trim_keys = true>} : tensor<?x16x?x128xbf16>, tensor<?x16x?x128xbf16>, tensor<?x16x?x128xbf16> -> tensor<?x16x?x128xbf16>
  return %o : tensor<?x16x?x128xbf16>
}
