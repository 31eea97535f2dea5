// RUN: attnc-opt %s --attn-count-tile-steps | FileCheck %s

// Every tile step is preceded by an increment of the run counter (entry 0),
// and an unmasked one also by an increment of entry 1.
// CHECK: memref.global @attnc_tile_steps : memref<2xi64> = dense<0>
// CHECK-LABEL: func.func @steps(
// CHECK: %[[G:.*]] = memref.get_global @attnc_tile_steps : memref<2xi64>
// CHECK-NEXT: %[[ONE:.*]] = arith.constant 1 : i64
// CHECK-NEXT: %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT: memref.atomic_rmw addi %[[ONE]], %[[G]][%[[C0]]] : (i64, memref<2xi64>) -> i64
// CHECK-NEXT: attn.tile_step
// CHECK-NOT: unmasked
// CHECK-SAME: {{$}}
// CHECK: %[[G2:.*]] = memref.get_global @attnc_tile_steps : memref<2xi64>
// CHECK: memref.atomic_rmw addi %{{.*}}, %[[G2]][%{{.*}}] : (i64, memref<2xi64>) -> i64
// CHECK: %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT: memref.atomic_rmw addi %{{.*}}, %[[G2]][%[[C1]]] : (i64, memref<2xi64>) -> i64
// CHECK-NEXT: attn.tile_step {{.*}}unmasked}
func.func @steps(%q: memref<1x2x?x16xf32>, %m: memref<8xf32>, %acc: memref<8x16xf32>, %i: index) {
  attn.tile_step %q, %q, %q state(%m, %m, %acc) at(%i, %i, %i, %i) {block_k = 4 : i64, block_q = 8 : i64, scale = 1.0 : f32} : memref<1x2x?x16xf32>, memref<1x2x?x16xf32>, memref<1x2x?x16xf32>, memref<8xf32>, memref<8x16xf32>
  attn.tile_step %q, %q, %q state(%m, %m, %acc) at(%i, %i, %i, %i) {block_k = 4 : i64, block_q = 8 : i64, scale = 1.0 : f32, unmasked} : memref<1x2x?x16xf32>, memref<1x2x?x16xf32>, memref<1x2x?x16xf32>, memref<8xf32>, memref<8x16xf32>
  return
}
