// RUN: attnc-opt %s --attn-choose-gpu-kernel=chip=sm_90a --attn-tile --attn-skip-masked-tiles --convert-attn-to-gpu 2>/dev/null | FileCheck %s

// On the persistent grid (D = 128, no mask) the consumers release a work
// item's Q (its empty barrier: byte 196680 of shared memory in this
// kernel) inside the key loop, so that the producer loads the next item's
// Q while the last P V and the epilogue run. One thread a warpgroup
// (`releases`) arrives:
// - after the first tile's S has completed, where that tile is the item's
//   last (an item of one key tile);
// - in the key loop, once tile kt's softmax is done and the P V before it
//   has completed, where kt is the item's last tile;
// - after the key loop only where the item has no key tile (lo >= hi).
// CHECK-LABEL: func.func @none_bf16_d128(
// CHECK: gpu.func @attnc_attention(
// CHECK: nvvm.setmaxregister increase 232
// CHECK: "wgmma.wait_group.sync.aligned 0;"
// CHECK: %[[HI1:[0-9]+]] = arith.subi %[[HI:[0-9]+]], %c1{{.*}} : index
// CHECK-NEXT: %[[FIRSTLAST:[0-9]+]] = arith.cmpi eq, %[[LO:[0-9]+]], %[[HI1]] : index
// CHECK-NEXT: %[[C1:[0-9]+]] = arith.andi %[[FIRSTLAST]], %[[REL:[0-9]+]] : i1
// CHECK-NEXT: scf.if %[[C1]] {
// CHECK-NEXT: arith.constant 196680 : index
// CHECK: nvvm.mbarrier.arrive
// CHECK: scf.for %[[KT:arg[0-9]+]] = %{{[0-9]+}} to %[[HI]] step %{{.*}} iter_args(
// CHECK: "wgmma.wait_group.sync.aligned 0;"
// CHECK: %[[KTLAST:[0-9]+]] = arith.cmpi eq, %[[KT]], %{{[0-9]+}} : index
// CHECK-NEXT: %[[C2:[0-9]+]] = arith.andi %[[KTLAST]], %[[REL]] : i1
// CHECK-NEXT: scf.if %[[C2]] {
// CHECK-NEXT: arith.constant 196680 : index
// CHECK: nvvm.mbarrier.arrive
// After the key loop (its last yield), none while the last P V runs, and
// after the item's key tiles (and its last P V) none but for an item
// without key tiles.
// CHECK: scf.yield
// CHECK-NOT: arith.constant 196680
// CHECK: "wgmma.wait_group.sync.aligned 0;"
// CHECK-NOT: arith.constant 196680
// CHECK: %[[NONE:[0-9]+]] = arith.cmpi sge, %[[LO]], %[[HI]] : index
// CHECK-NEXT: %[[C3:[0-9]+]] = arith.andi %[[REL]], %[[NONE]] : i1
// CHECK-NEXT: scf.if %[[C3]] {
// CHECK-NEXT: arith.constant 196680 : index
// CHECK: nvvm.mbarrier.arrive
func.func @none_bf16_d128(%q: tensor<?x4x?x128xbf16>, %k: tensor<?x4x?x128xbf16>, %v: tensor<?x4x?x128xbf16>) -> tensor<?x4x?x128xbf16> {
  %o = attn.attention %q, %k, %v : tensor<?x4x?x128xbf16>, tensor<?x4x?x128xbf16>, tensor<?x4x?x128xbf16> -> tensor<?x4x?x128xbf16>
  return %o : tensor<?x4x?x128xbf16>
}
