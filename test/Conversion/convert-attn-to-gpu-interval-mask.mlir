// RUN: attnc-opt %s --attn-choose-gpu-kernel=chip=sm_90a --attn-tile --attn-skip-masked-tiles --convert-attn-to-gpu 2>/dev/null | FileCheck %s

// Boundary tiles of an interval mask (here causal): each row slot's visible
// keys [lo, min(hi, Sk)) are taken once a tile as i32, relative to the
// lane's first key (the tile's first key plus 2 t), and each score is kept
// by two i32 compares of its constant column with them: no index (64-bit)
// compare and no clamp a score. The full tiles yield the scores unmasked.
// CHECK-LABEL: gpu.func @attnc_attention(
// CHECK: scf.yield %{{.*}} : f32, f32, f32
// CHECK-NEXT: } else {
// CHECK: %[[LASTKEY:.*]] = arith.subi %{{.*}}, %c1{{.*}} : index
// CHECK-NEXT: %[[FIRST:.*]] = arith.addi
// CHECK-NEXT: %[[LO64:.*]] = arith.subi %{{.*}}, %[[FIRST]] : index
// CHECK-NEXT: %[[LO:.*]] = arith.index_cast %[[LO64]] : index to i32
// CHECK-NEXT: %[[HIK:.*]] = arith.minsi %{{.*}}, %{{.*}} : index
// CHECK-NEXT: %[[HI64:.*]] = arith.subi %[[HIK]], %[[FIRST]] : index
// CHECK-NEXT: %[[HI:.*]] = arith.index_cast %[[HI64]] : index to i32
// The second row slot's (rows g + 8).
// CHECK-NEXT: arith.subi %{{.*}}, %[[FIRST]] : index
// CHECK-NEXT: arith.index_cast %{{.*}} : index to i32
// CHECK-NEXT: arith.minsi %{{.*}}, %{{.*}} : index
// CHECK-NEXT: arith.subi %{{.*}}, %[[FIRST]] : index
// CHECK-NEXT: arith.index_cast %{{.*}} : index to i32
// CHECK-NOT: : index
// CHECK: %[[C0:.*]] = arith.constant 0 : i32
// CHECK-NEXT: %[[GE:.*]] = arith.cmpi sge, %[[C0]], %[[LO]] : i32
// CHECK-NEXT: %[[LT:.*]] = arith.cmpi slt, %[[C0]], %[[HI]] : i32
// CHECK-NEXT: %[[VIS:.*]] = arith.andi %[[GE]], %[[LT]] : i1
// CHECK-NEXT: arith.select %[[VIS]], %{{.*}}, %{{.*}} : f32
// CHECK-NEXT: %[[C1:.*]] = arith.constant 1 : i32
// CHECK-NEXT: arith.cmpi sge, %[[C1]], %[[LO]] : i32
// CHECK-NEXT: arith.cmpi slt, %[[C1]], %[[HI]] : i32
// CHECK-NOT: arith.cmpi {{.*}} : index
// CHECK: scf.yield
func.func @causal(%q: tensor<?x16x?x128xbf16>, %k: tensor<?x16x?x128xbf16>) -> tensor<?x16x?x128xbf16> {
  %o = attn.attention %q, %k, %k mask(#attn.causal) : tensor<?x16x?x128xbf16>, tensor<?x16x?x128xbf16>, tensor<?x16x?x128xbf16> -> tensor<?x16x?x128xbf16>
  return %o : tensor<?x16x?x128xbf16>
}
