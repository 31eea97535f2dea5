// RUN: attnc-opt %s --split-input-file --attn-choose-gpu-kernel=chip=sm_90a --attn-tile --attn-skip-masked-tiles --convert-attn-to-gpu 2>/dev/null | FileCheck %s
// RUN: attnc-opt %s --split-input-file --attn-choose-gpu-kernel=chip=sm_90a --attn-tile --attn-skip-masked-tiles --convert-attn-to-gpu 2>/dev/null | FileCheck %s --check-prefix=NOSHUF

// staged_stores = true (D = 192, the causal pairs on 80-key tiles): the
// consumer warps' rows sit after the rest of the shared memory (byte
// 172160: two stages of 80-key K and V, Q, the barriers and the tile
// slots end at 172120) at 16 rows of 2 * 192 + 16 = 400 bytes a warp.
// Behind the run-time test of O's alignment, each lane writes its 48
// packed pairs there (4-byte shared stores) between two bar.warp.sync,
// then reads back and stores 16-byte chunks: four row groups of 4 rows
// by three groups of 8 chunks, 12 loads and 12 global stores, no shuffle
// of O's words; the other branch stores 4-byte pairs.
// NOSHUF (the whole staged branch, from its first bar.warp.sync to the
// 4-byte branch): no i32 shuffle of O's words.
// NOSHUF-LABEL: func.func @d192(
// NOSHUF: nvvm.bar.warp.sync
// NOSHUF-NOT: gpu.shuffle xor %{{.*}} : i32
// NOSHUF: } else {
// CHECK-LABEL: func.func @d192(
// CHECK: gpu.func
// CHECK: arith.constant 6400 : index
// CHECK: arith.constant 172160 : index
// CHECK: nvvm.bar.warp.sync
// CHECK-COUNT-48: llvm.store %{{.*}} {alignment = 4 : i64} : i32, !llvm.ptr<3>
// CHECK-NOT: gpu.shuffle xor %{{.*}} : i32
// CHECK: nvvm.bar.warp.sync
// CHECK-NOT: gpu.shuffle xor %{{.*}} : i32
// CHECK-COUNT-12: llvm.store %{{.*}} {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr{{$}}
// CHECK-NOT: vector<4xi32>
// CHECK: } else {
// CHECK: llvm.store %{{.*}} {alignment = 4 : i64} : i32, !llvm.ptr{{$}}
// CHECK: gpu.return
func.func @d192(%q: tensor<?x4x?x192xbf16>) -> tensor<?x4x?x192xbf16> {
  %o = attn.attention %q, %q, %q mask(#attn.causal) {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 128, block_k = 80, warps = 8, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true, persistent = true, lazy_rescale = true, staged_stores = true>} : tensor<?x4x?x192xbf16>, tensor<?x4x?x192xbf16>, tensor<?x4x?x192xbf16> -> tensor<?x4x?x192xbf16>
  return %o : tensor<?x4x?x192xbf16>
}

// -----

// D = 80: ten 16-byte chunks a row, so a store instruction covers 16 rows
// of two chunks (every row of the warp at once): 20 pairs a lane in, five
// 16-byte stores out.
// CHECK-LABEL: func.func @d80(
// CHECK: gpu.func
// CHECK: nvvm.bar.warp.sync
// CHECK-COUNT-20: llvm.store %{{.*}} {alignment = 4 : i64} : i32, !llvm.ptr<3>
// CHECK: nvvm.bar.warp.sync
// CHECK-COUNT-5: llvm.store %{{.*}} {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr{{$}}
// CHECK-NOT: vector<4xi32>
// CHECK: } else {
// CHECK: gpu.return
func.func @d80(%q: tensor<?x4x?x80xbf16>) -> tensor<?x4x?x80xbf16> {
  %o = attn.attention %q, %q, %q {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 128, block_k = 128, warps = 8, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true, persistent = true, staged_stores = true>} : tensor<?x4x?x80xbf16>, tensor<?x4x?x80xbf16>, tensor<?x4x?x80xbf16> -> tensor<?x4x?x80xbf16>
  return %o : tensor<?x4x?x80xbf16>
}

// -----

// Without the flag (the same D = 192 kernel): no staged rows.
// CHECK-LABEL: func.func @unstaged(
// CHECK: gpu.func
// CHECK-NOT: nvvm.bar.warp.sync
// CHECK-NOT: !llvm.ptr<3> -> vector<4xi32>
// CHECK: gpu.return
func.func @unstaged(%q: tensor<?x4x?x192xbf16>) -> tensor<?x4x?x192xbf16> {
  %o = attn.attention %q, %q, %q mask(#attn.causal) {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 128, block_k = 80, warps = 8, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true, persistent = true, lazy_rescale = true>} : tensor<?x4x?x192xbf16>, tensor<?x4x?x192xbf16>, tensor<?x4x?x192xbf16> -> tensor<?x4x?x192xbf16>
  return %o : tensor<?x4x?x192xbf16>
}
