// RUN: attnc-opt %s --convert-attn-to-gpu --split-input-file 2>/dev/null | FileCheck %s

// convert-attn-to-gpu builds the key loop the tiled IR describes, and
// decides nothing itself: here the tiled IR is written by hand with bounds
// no mask would give (boundary tiles [11, 13), unmasked [13, 17), boundary
// [17, 19)), and the kernel visits exactly those.
// CHECK-LABEL: func.func @split_loops(
// CHECK: gpu.func @attnc_attention(
// CHECK: %[[LO:.*]] = arith.constant 11 : index
// CHECK: %[[FULL_LO:.*]] = arith.constant 13 : index
// CHECK: %[[FULL_HI:.*]] = arith.constant 17 : index
// CHECK: %[[HI:.*]] = arith.constant 19 : index
// CHECK: scf.for %[[KT:[a-z0-9_]+]] = %[[LO]] to %[[HI]] step
// The unmasked range of the tiled IR is the kernel's full-tile test.
// CHECK: arith.cmpi sge, %[[KT]], %[[FULL_LO]] : index
// CHECK-NEXT: arith.cmpi slt, %[[KT]], %[[FULL_HI]] : index
// CHECK: gpu.return
func.func @split_loops(%q: memref<?x4x?x64xbf16>, %k: memref<?x2x?x64xbf16>, %v: memref<?x2x?x64xbf16>, %o: memref<?x4x?x64xbf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c11 = arith.constant 11 : index
  %c13 = arith.constant 13 : index
  %c17 = arith.constant 17 : index
  %c19 = arith.constant 19 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %b = memref.dim %q, %c0 : memref<?x4x?x64xbf16>
  scf.parallel (%bi, %h, %t) = (%c0, %c0, %c0) to (%b, %c4, %c1) step (%c1, %c1, %c1) {
    %m = memref.alloca() : memref<128xf32>
    %l = memref.alloca() : memref<128xf32>
    %acc = memref.alloca() : memref<128x64xf32>
    %q0 = arith.muli %t, %c128 : index
    scf.for %kt = %c11 to %c13 step %c1 {
      %k0 = arith.muli %kt, %c64 : index
      attn.tile_step %q, %k, %v state(%m, %l, %acc) at(%bi, %h, %q0, %k0) mask(#attn.causal) {block_k = 64 : i64, block_q = 128 : i64, scale = 1.250000e-01 : f32} : memref<?x4x?x64xbf16>, memref<?x2x?x64xbf16>, memref<?x2x?x64xbf16>, memref<128xf32>, memref<128x64xf32>
    }
    scf.for %kt = %c13 to %c17 step %c1 {
      %k0 = arith.muli %kt, %c64 : index
      attn.tile_step %q, %k, %v state(%m, %l, %acc) at(%bi, %h, %q0, %k0) mask(#attn.causal) {block_k = 64 : i64, block_q = 128 : i64, scale = 1.250000e-01 : f32, unmasked} : memref<?x4x?x64xbf16>, memref<?x2x?x64xbf16>, memref<?x2x?x64xbf16>, memref<128xf32>, memref<128x64xf32>
    }
    scf.for %kt = %c17 to %c19 step %c1 {
      %k0 = arith.muli %kt, %c64 : index
      attn.tile_step %q, %k, %v state(%m, %l, %acc) at(%bi, %h, %q0, %k0) mask(#attn.causal) {block_k = 64 : i64, block_q = 128 : i64, scale = 1.250000e-01 : f32} : memref<?x4x?x64xbf16>, memref<?x2x?x64xbf16>, memref<?x2x?x64xbf16>, memref<128xf32>, memref<128x64xf32>
    }
    attn.tile_finalize state(%m, %l, %acc) into %o at(%bi, %h, %q0) : memref<128xf32>, memref<128x64xf32>, memref<?x4x?x64xbf16>
    scf.reduce
  } {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_80", block_q = 128, block_k = 64, warps = 4, m_tiles = 2, stages = 2, q_in_smem = false>}
  return
}

// -----

// A run-time tile test: the kernel evaluates the guards of the tiled IR at
// each tile (for the prologue, the prefetch of the next tile and the tile
// itself): here tile 5 is empty and tile 7 full, by hand.
// CHECK-LABEL: func.func @tile_test(
// CHECK: gpu.func @attnc_attention(
// The first tile's emptiness decides whether it is loaded.
// CHECK: %[[C5:.*]] = arith.constant 5 : index
// CHECK-NEXT: arith.cmpi ne, %{{.*}}, %[[C5]] : index
// CHECK: scf.for %[[KT:[a-z0-9_]+]] = %{{.*}} to %{{.*}} step
// The tile's own flags: not empty (work), and full from the inner guard.
// CHECK: arith.cmpi ne, %[[KT]], %{{.*}} : index
// CHECK: arith.cmpi eq, %[[KT]], %{{.*}} : index
// CHECK: gpu.return
func.func @tile_test(%q: memref<?x4x?x64xbf16>, %k: memref<?x2x?x64xbf16>, %v: memref<?x2x?x64xbf16>, %o: memref<?x4x?x64xbf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %c7 = arith.constant 7 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %b = memref.dim %q, %c0 : memref<?x4x?x64xbf16>
  %sk = memref.dim %k, %c2 : memref<?x2x?x64xbf16>
  %nk = arith.ceildivui %sk, %c64 : index
  scf.parallel (%bi, %h, %t) = (%c0, %c0, %c0) to (%b, %c4, %c1) step (%c1, %c1, %c1) {
    %m = memref.alloca() : memref<128xf32>
    %l = memref.alloca() : memref<128xf32>
    %acc = memref.alloca() : memref<128x64xf32>
    %q0 = arith.muli %t, %c128 : index
    scf.for %kt = %c0 to %nk step %c1 {
      %k0 = arith.muli %kt, %c64 : index
      %any = arith.cmpi ne, %kt, %c5 : index
      %full = arith.cmpi eq, %kt, %c7 : index
      scf.if %any {
        scf.if %full {
          attn.tile_step %q, %k, %v state(%m, %l, %acc) at(%bi, %h, %q0, %k0) mask(#attn.causal) {block_k = 64 : i64, block_q = 128 : i64, scale = 1.250000e-01 : f32, unmasked} : memref<?x4x?x64xbf16>, memref<?x2x?x64xbf16>, memref<?x2x?x64xbf16>, memref<128xf32>, memref<128x64xf32>
        } else {
          attn.tile_step %q, %k, %v state(%m, %l, %acc) at(%bi, %h, %q0, %k0) mask(#attn.causal) {block_k = 64 : i64, block_q = 128 : i64, scale = 1.250000e-01 : f32} : memref<?x4x?x64xbf16>, memref<?x2x?x64xbf16>, memref<?x2x?x64xbf16>, memref<128xf32>, memref<128x64xf32>
        }
      } {attn.tile_test = "block_table"}
    }
    attn.tile_finalize state(%m, %l, %acc) into %o at(%bi, %h, %q0) : memref<128xf32>, memref<128x64xf32>, memref<?x4x?x64xbf16>
    scf.reduce
  } {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_80", block_q = 128, block_k = 64, warps = 4, m_tiles = 2, stages = 2, q_in_smem = false>}
  return
}
