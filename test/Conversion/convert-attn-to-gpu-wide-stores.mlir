// RUN: attnc-opt %s --split-input-file --attn-choose-gpu-kernel=chip=sm_90a --attn-tile --attn-skip-masked-tiles --convert-attn-to-gpu 2>/dev/null | FileCheck %s

// wide_stores = true: O leaves in 16-byte stores (8 adjacent columns a
// lane, after the lanes of a row trade their pairs by i32 shuffles), behind
// a run-time test of O's alignment whose other branch stores 4-byte pairs:
// the wgmma kernel ...
// CHECK-LABEL: func.func @wgmma(
// CHECK: gpu.func
// CHECK: gpu.shuffle xor %{{.*}} : i32
// CHECK: llvm.store %{{.*}} {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr
// CHECK: } else {
// CHECK: llvm.store %{{.*}} {alignment = 4 : i64} : i32, !llvm.ptr
// CHECK: gpu.return
func.func @wgmma(%q: tensor<?x4x?x128xbf16>) -> tensor<?x4x?x128xbf16> {
  %o = attn.attention %q, %q, %q mask(#attn.causal) {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 128, block_k = 128, warps = 8, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true, wide_stores = true>} : tensor<?x4x?x128xbf16>, tensor<?x4x?x128xbf16>, tensor<?x4x?x128xbf16> -> tensor<?x4x?x128xbf16>
  return %o : tensor<?x4x?x128xbf16>
}

// -----

// ... and the mma.sync kernel (f16 here).
// CHECK-LABEL: func.func @mma_sync(
// CHECK: gpu.func
// CHECK: llvm.store %{{.*}} {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr
// CHECK: gpu.return
func.func @mma_sync(%q: tensor<?x4x?x64xf16>) -> tensor<?x4x?x64xf16> {
  %o = attn.attention %q, %q, %q {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 128, block_k = 64, warps = 8, m_tiles = 1, stages = 2, q_in_smem = false, wide_stores = true>} : tensor<?x4x?x64xf16>, tensor<?x4x?x64xf16>, tensor<?x4x?x64xf16> -> tensor<?x4x?x64xf16>
  return %o : tensor<?x4x?x64xf16>
}

// -----

// The target chooses it for the persistent grid (here a window of 1024
// keys, D = 128).
// CHECK-LABEL: func.func @chosen_persistent(
// CHECK: gpu.func
// CHECK: llvm.store %{{.*}} {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr
// CHECK: gpu.return
func.func @chosen_persistent(%q: tensor<?x4x?x128xbf16>) -> tensor<?x4x?x128xbf16> {
  %o = attn.attention %q, %q, %q mask(#attn.sliding_window<left = 1023, right = 0>) : tensor<?x4x?x128xbf16>, tensor<?x4x?x128xbf16>, tensor<?x4x?x128xbf16> -> tensor<?x4x?x128xbf16>
  return %o : tensor<?x4x?x128xbf16>
}

// -----

// By default (a block-grid kernel chosen by the target, or the flag left
// out): 4-byte pairs only, no shuffle of O's words.
// CHECK-LABEL: func.func @chosen_block_grid(
// CHECK: gpu.func
// CHECK-NOT: vector<4xi32>
// CHECK-NOT: gpu.shuffle xor %{{.*}} : i32
// CHECK: llvm.store %{{.*}} {alignment = 4 : i64} : i32, !llvm.ptr
// CHECK-NOT: vector<4xi32>
// CHECK: gpu.return
func.func @chosen_block_grid(%q: tensor<?x4x?x64xbf16>) -> tensor<?x4x?x64xbf16> {
  %o = attn.attention %q, %q, %q mask(#attn.causal) : tensor<?x4x?x64xbf16>, tensor<?x4x?x64xbf16>, tensor<?x4x?x64xbf16> -> tensor<?x4x?x64xbf16>
  return %o : tensor<?x4x?x64xbf16>
}

// -----

// A head of 80 columns is two 32-column groups and 16 columns: a row slot
// stores its first 64 columns 16 bytes a lane and its last 16 a pair at a
// time (two slots); the other branch 4-byte pairs only (ten a slot).
// CHECK-LABEL: func.func @head_80(
// CHECK: gpu.func
// CHECK-COUNT-2: llvm.store %{{.*}} {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr
// CHECK-COUNT-2: llvm.store %{{.*}} {alignment = 4 : i64} : i32, !llvm.ptr
// CHECK-COUNT-2: llvm.store %{{.*}} {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr
// CHECK-COUNT-2: llvm.store %{{.*}} {alignment = 4 : i64} : i32, !llvm.ptr
// CHECK: } else {
// CHECK-NOT: vector<4xi32>
// CHECK-COUNT-20: llvm.store %{{.*}} {alignment = 4 : i64} : i32, !llvm.ptr
// CHECK-NOT: vector<4xi32>
// CHECK: gpu.return
func.func @head_80(%q: tensor<?x4x?x80xbf16>) -> tensor<?x4x?x80xbf16> {
  %o = attn.attention %q, %q, %q mask(#attn.causal) {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 64, block_k = 64, warps = 4, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true, wide_stores = true>} : tensor<?x4x?x80xbf16>, tensor<?x4x?x80xbf16>, tensor<?x4x?x80xbf16> -> tensor<?x4x?x80xbf16>
  return %o : tensor<?x4x?x80xbf16>
}
