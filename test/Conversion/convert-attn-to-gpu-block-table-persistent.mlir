// RUN: attnc-opt %s --attn-choose-gpu-kernel=chip=sm_90a --attn-tile --attn-skip-masked-tiles --convert-attn-to-gpu 2>/dev/null | FileCheck %s

// A block mask on the persistent grid: the compacted ring (the producer
// announces each visible tile's use, and an end use after an item's last)
// goes on from one work item to the next. The consumers start each item
// at the ring uses of the block's items before it (the loop's state) and,
// past the item's end use, release both halves of its stage: the keys by
// every consumer thread (each read the end word), the values by one thread
// a warpgroup. The producer's end use passes a phase of the values'
// barriers too (a wait on the values' empty barrier, an arrival without
// bytes on their full one), so that every stage's four barriers complete
// one phase a use in the next item. Q is released as soon as the item's
// last S has completed (after the scf.while over the uses, before the last
// P V), or at once for an item with no visible tile. The producer, which
// tests tiles and walks the items, keeps 72 registers (with 56 ptxas
// spilled it, D = 64 to 192), the two consumer warpgroups 216.

// CHECK-LABEL: gpu.func @attnc_attention(
// CHECK: nvvm.setmaxregister  increase 216
// CHECK: scf.for %{{.*}} = {{.*}} iter_args(%[[CBASE:[^ ]+]] = %c0{{[^ ]*}}, %[[CROUND:[^ ]+]] = %c0{{[^ ]*}}) -> (index, index) {
// The first use's keys and word, at the uses before this item.
// CHECK: arith.remui %[[CBASE]], %c2{{.*}} : index
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: llvm.load {{.*}} : !llvm.ptr<3> -> i32
// The item's key loop in an scf.if on a visible tile, whose last result is
// the end use.
// CHECK: %[[END:.*]]:69 = scf.if
// Ping-pong's first turn: given once, before the block's first item with a
// visible tile (its uses before it are the items' end uses).
// CHECK: arith.cmpi eq, %[[CBASE]], %[[CROUND]] : index
// CHECK: scf.while
// CHECK: scf.condition
// CHECK: } do {
// CHECK-NOT: 163912
// CHECK: nvvm.wgmma.mma_async
// CHECK-NOT: 163912
// CHECK: scf.yield
// Every S has completed: Q's empty barrier (offset 163912), then the last
// tile's values and P V.
// CHECK-NOT: wgmma.mma_async
// CHECK: %c163912{{.*}} = arith.constant 163912 : index
// CHECK: nvvm.mbarrier.arrive
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: wgmma.mma_async
// CHECK: scf.yield
// CHECK: } else {
// CHECK-NEXT: %[[T2:.*]] = arith.constant true
// CHECK-NEXT: %[[REL2:.*]] = arith.andi %[[T2]], %{{.*}} : i1
// CHECK-NEXT: scf.if %[[REL2]] {
// CHECK-NEXT: %c163912{{.*}} = arith.constant 163912 : index
// CHECK: nvvm.mbarrier.arrive
// CHECK: scf.yield
// The end use (the scf.if's last result): its keys' empty barrier (4 +
// stage) by every thread, its values' (6 + stage) by one a warpgroup, and
// the next item's uses after it.
// CHECK: %[[ALL:.*]] = arith.constant true
// CHECK-NEXT: scf.if %[[ALL]] {
// CHECK: arith.remui %[[END]]#68, %c2{{.*}} : index
// CHECK: arith.addi %{{.*}}, %c4{{.*}} : index
// CHECK: nvvm.mbarrier.arrive
// CHECK: scf.if %{{.*}} {
// CHECK: arith.remui %[[END]]#68, %c2{{.*}} : index
// CHECK: arith.addi %{{.*}}, %c6{{.*}} : index
// CHECK: nvvm.mbarrier.arrive
// CHECK: %[[NEXT:.*]] = arith.addi %[[END]]#68, %c1{{.*}} : index
// CHECK-NEXT: arith.subi %[[NEXT]], %[[CBASE]] : index

// The producer: its compacted loop from the uses before the item; after
// the end's word (-1) and the arrival on its keys' full barrier, a wait on
// the values' empty barrier of the end use's stage and an arrival without
// bytes on their full one, then the uses after the end use.
// CHECK: nvvm.setmaxregister  decrease 72
// CHECK: scf.for %{{.*}} = {{.*}} iter_args(%[[PBASE:[^ ]+]] = %c0{{[^ ]*}}, %{{[^ ]+}} = %c0{{[^ ]*}}) -> (index, index) {
// CHECK: scf.for %{{.*}} = {{.*}} iter_args(%{{[^ ]+}} = %[[PBASE]], %{{[^ ]+}} = %c-1{{[^ ]*}}) -> (index, index) {
// CHECK: arith.cmpi sgt, %{{.*}}, %[[PBASE]] : index
// CHECK: %[[LOADED:.*]] = arith.cmpi sgt, %[[PUSES:.*]]#0, %[[PBASE]] : index
// CHECK: llvm.store %c-1_i32, %{{.*}} : i32, !llvm.ptr<3>
// CHECK: nvvm.mbarrier.arrive %{{.*}} : !llvm.ptr<3>
// CHECK: %[[V6:.*]] = arith.constant 6 : index
// CHECK: arith.remui %[[PUSES]]#0, %c2{{.*}} : index
// CHECK: arith.addi %{{.*}}, %[[V6]] : index
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: arith.remui %[[PUSES]]#0, %c2{{.*}} : index
// CHECK: arith.addi %{{.*}}, %c2{{.*}} : index
// CHECK-NOT: expect_tx
// CHECK: nvvm.mbarrier.arrive %{{.*}} : !llvm.ptr<3>
// CHECK-NEXT: %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT: arith.addi %[[PUSES]]#0, %[[ONE]] : index
// CHECK: gpu.return
func.func @attention(%q: tensor<?x16x?x128xbf16>, %k: tensor<?x16x?x128xbf16>, %bm: tensor<1x1x?x?xi8>) -> tensor<?x16x?x128xbf16> {
  %o = attn.attention %q, %k, %k block_mask(%bm : tensor<1x1x?x?xi8>) mask(#attn.block_sparse<block_q = 128, block_k = 128>) {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 128, block_k = 128, warps = 8, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true, persistent = true>} : tensor<?x16x?x128xbf16>, tensor<?x16x?x128xbf16>, tensor<?x16x?x128xbf16> -> tensor<?x16x?x128xbf16>
  return %o : tensor<?x16x?x128xbf16>
}
