// RUN: attnc-opt %s --attn-choose-gpu-kernel=chip=sm_90a --attn-tile --attn-skip-masked-tiles --convert-attn-to-gpu 2>/dev/null | FileCheck %s

// The wgmma kernel on the block grid (x: query tiles, y: heads, z: batch):
// block l = x + X (y + Y z), in the order the hardware starts blocks, is in
// group g = l / (X n) of n = min(ceil(256 / X), Y Z) units (head, batch
// entry); the group's first unit is g n and it holds m = min(n, Y Z - g n)
// of them. Block o = l mod X n of the group takes query tile
// X - 1 - o / m of unit g n + o mod m: head unit mod Y, batch unit / Y.
// The last query tiles of the group's units start first, so the grid's
// tail holds the first (shortest, under a causal mask) tiles of the last
// group's units. The query rows start at tile * 192 (D = 64: three consumer
// warpgroups; at D = 128 a causal mask runs a persistent grid).
// CHECK-LABEL: gpu.func @attnc_attention(
// CHECK: %[[BX:.*]] = gpu.block_id  x
// CHECK-NEXT: %[[BY:.*]] = gpu.block_id  y
// CHECK-NEXT: %[[BZ:.*]] = gpu.block_id  z
// CHECK-NEXT: %[[GX:.*]] = gpu.grid_dim  x
// CHECK-NEXT: %[[GY:.*]] = gpu.grid_dim  y
// CHECK-NEXT: %[[GZ:.*]] = gpu.grid_dim  z
// CHECK-NEXT: %[[UNITS:.*]] = arith.muli %[[GY]], %[[GZ]] : index
// CHECK-NEXT: %[[YZ:.*]] = arith.muli %[[GY]], %[[BZ]] : index
// CHECK-NEXT: %[[ROW:.*]] = arith.addi %[[BY]], %[[YZ]] : index
// CHECK-NEXT: %[[XROW:.*]] = arith.muli %[[GX]], %[[ROW]] : index
// CHECK-NEXT: %[[L:.*]] = arith.addi %[[BX]], %[[XROW]] : index
// CHECK-NEXT: %[[C256:.*]] = arith.constant 256 : index
// CHECK-NEXT: %[[WANT:.*]] = arith.ceildivui %[[C256]], %[[GX]] : index
// CHECK-NEXT: %[[N:.*]] = arith.minsi %[[WANT]], %[[UNITS]] : index
// CHECK-NEXT: %[[GB:.*]] = arith.muli %[[GX]], %[[N]] : index
// CHECK-NEXT: %[[G:.*]] = arith.divui %[[L]], %[[GB]] : index
// CHECK-NEXT: %[[FIRST:.*]] = arith.muli %[[G]], %[[N]] : index
// CHECK-NEXT: %[[LEFT:.*]] = arith.subi %[[UNITS]], %[[FIRST]] : index
// CHECK-NEXT: %[[M:.*]] = arith.minsi %[[N]], %[[LEFT]] : index
// CHECK-NEXT: %[[O:.*]] = arith.remui %[[L]], %[[GB]] : index
// CHECK-NEXT: %[[IN:.*]] = arith.remui %[[O]], %[[M]] : index
// CHECK-NEXT: %[[UNIT:.*]] = arith.addi %[[FIRST]], %[[IN]] : index
// CHECK-NEXT: %[[RANK:.*]] = arith.divui %[[O]], %[[M]] : index
// CHECK-NEXT: %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT: %[[LAST:.*]] = arith.subi %[[GX]], %[[ONE]] : index
// CHECK-NEXT: %[[TILE:.*]] = arith.subi %[[LAST]], %[[RANK]] : index
// CHECK-NEXT: %[[HEAD:.*]] = arith.remui %[[UNIT]], %[[GY]] : index
// CHECK-NEXT: %[[BATCH:.*]] = arith.divui %[[UNIT]], %[[GY]] : index
// CHECK: arith.muli %[[TILE]], %c192 : index
func.func @causal(%q: tensor<?x16x?x64xbf16>, %k: tensor<?x16x?x64xbf16>) -> tensor<?x16x?x64xbf16> {
  %o = attn.attention %q, %k, %k mask(#attn.causal) : tensor<?x16x?x64xbf16>, tensor<?x16x?x64xbf16>, tensor<?x16x?x64xbf16> -> tensor<?x16x?x64xbf16>
  return %o : tensor<?x16x?x64xbf16>
}
