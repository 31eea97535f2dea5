// RUN: attnc-opt %s --attn-choose-gpu-kernel=chip=sm_90a --attn-tile --attn-skip-masked-tiles --convert-attn-to-gpu 2>/dev/null | FileCheck %s

// A block mask whose key blocks tile the key tiles (block_k = 128, a
// multiple of 8 dividing the kernel's 128 keys): on a boundary tile a lane
// reads the block table once per row slot and 8-column group (2 x 16), not
// once per score (64), which kept ptxas spilling on 128-key tiles.
// The consumers run the overlapped schedule on a compacted ring, over the
// visible tiles only: a warp's cursor tests 32 tiles at once (lane l tile
// base + l: one table read each, in parallel), keeps two ballots (visible,
// full) and finds the next visible tile as a count of trailing zeros; it
// tests again only when it leaves its 32 tiles. An scf.while finds the
// first visible tile, whose S and softmax (32 boundary reads) come alone;
// the loop (an scf.while over the visible tiles) carries the ring's next
// use, the last tile visited, the next visible tile with its `full` flag
// and the cursor's ballots. A tile waits for its keys and the last tile's
// values, issues S = Q K^T with the last tile's P V, lets the other
// warpgroup take its turn, and only then moves the cursor (any table
// reads), before it waits for S: no warp waits for a table read before a
// tile's GEMMs, and no iteration is spent on an empty tile. The producer
// carries the ring's
// use count and loads only the visible tiles (one table read a tile). A
// producer that tests tiles keeps 40 registers (with 24 ptxas spilled it
// for block masks of small blocks), the two consumer warpgroups the rest
// (232).
// CHECK-LABEL: gpu.func @attnc_attention(
// CHECK-SAME: %[[KMAP:[a-z0-9_]+]]: !llvm.ptr, %[[VMAP:[a-z0-9_]+]]: !llvm.ptr) kernel
// CHECK: %[[LANE:.*]] = arith.remui %thread_id_x, %c32{{.*}} : index
// CHECK: nvvm.setmaxregister  increase 232
// CHECK: scf.while ({{.*}}) : (index, index, i32, i32) -> (index, index, i32, i32) {
// CHECK-NOT: llvm.load {{.*}} -> i8
// CHECK: scf.condition
// CHECK: } do {
// CHECK: %[[FROM:.*]] = arith.maxsi
// CHECK-NEXT: %[[MINE:.*]] = arith.addi %[[FROM]], %[[LANE]] : index
// CHECK: llvm.load {{.*}} -> i8
// CHECK-NOT: llvm.load {{.*}} -> i8
// CHECK: nvvm.vote.sync  ballot
// CHECK-NEXT: nvvm.vote.sync  ballot
// CHECK-NEXT: scf.yield %[[FROM]], %[[FROM]]
// CHECK-NOT: llvm.load {{.*}} -> i8
// CHECK: llvm.intr.cttz
// CHECK-COUNT-32: llvm.load {{.*}} -> i8
// CHECK-NOT: llvm.load {{.*}} -> i8
// CHECK: scf.while ({{.*}}) : (index, index, i32, i32) -> (index, index, i32, i32) {
// CHECK: llvm.load {{.*}} -> i8
// CHECK-NOT: llvm.load {{.*}} -> i8
// CHECK: nvvm.vote.sync  ballot
// CHECK-NOT: llvm.load {{.*}} -> i8
// CHECK: scf.while ({{.*}}) : ({{.*}}, index, index, index, i1, index, i32, i32) -> ({{.*}}, index, index, index, i1, index, i32, i32) {
// CHECK-NOT: llvm.load {{.*}} -> i8
// CHECK: scf.condition
// CHECK: } do {
// CHECK-NOT: llvm.load {{.*}} -> i8
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK-NOT: llvm.load {{.*}} -> i8
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK-NOT: llvm.load {{.*}} -> i8
// CHECK: nvvm.wgmma.mma_async
// CHECK-NOT: llvm.load {{.*}} -> i8
// CHECK: nvvm.barrier.arrive
// CHECK-NEXT: arith.addi
// CHECK-NOT: nvvm.
// CHECK: scf.while ({{.*}}) : (index, index, i32, i32) -> (index, index, i32, i32) {
// CHECK: llvm.load {{.*}} -> i8
// CHECK-NOT: llvm.load {{.*}} -> i8
// CHECK: nvvm.vote.sync  ballot
// CHECK-NOT: llvm.load {{.*}} -> i8
// CHECK: wgmma.wait_group.sync.aligned 1;
// CHECK-COUNT-32: llvm.load {{.*}} -> i8
// CHECK-NOT: llvm.load {{.*}} -> i8
// The producer, in the order the consumers use the tiles: a visible
// tile's keys (K map), then, from the second visible tile on, the values
// (V map) of the visible tile before it; the loop carries the ring's use
// count and that tile (-1 before the first); the last tile's values after
// the loop.
// CHECK: nvvm.setmaxregister  decrease 40
// CHECK: scf.for %[[PKT:[^ ]+]] = {{.*}} iter_args(%[[PUSE:[^ ]+]] = %c0{{[^ ]*}}, %[[PPREV:[^ ]+]] = %c-1{{[^ ]*}}) -> (index, index) {
// CHECK: llvm.load {{.*}} -> i8
// CHECK-NOT: llvm.load {{.*}} -> i8
// CHECK: scf.if %{{.*}} -> (index, index) {
// CHECK-NOT: %[[VMAP]]
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[KMAP]],
// CHECK-NOT: %[[VMAP]]
// CHECK: %[[LATER:.*]] = arith.cmpi sgt, %[[PUSE]], %c0{{.*}} : index
// CHECK-NEXT: scf.if %[[LATER]] {
// CHECK-NOT: %[[KMAP]]
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[VMAP]],
// CHECK: scf.yield %{{.*}}, %[[PKT]] : index, index
// CHECK-NEXT: } else {
// CHECK-NEXT: scf.yield %[[PUSE]], %[[PPREV]] : index, index
// CHECK: %[[LOADED:.*]] = arith.cmpi sgt, %{{.*}}#0, %c0{{.*}} : index
// CHECK-NEXT: scf.if %[[LOADED]] {
// CHECK-NOT: %[[KMAP]]
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[VMAP]],
// CHECK-NOT: llvm.load {{.*}} -> i8
func.func @attention(%q: tensor<?x16x?x128xbf16>, %k: tensor<?x16x?x128xbf16>, %bm: tensor<1x1x?x?xi8>) -> tensor<?x16x?x128xbf16> {
  %o = attn.attention %q, %k, %k block_mask(%bm : tensor<1x1x?x?xi8>) mask(#attn.block_sparse<block_q = 128, block_k = 128>) {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 128, block_k = 128, warps = 8, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true>} : tensor<?x16x?x128xbf16>, tensor<?x16x?x128xbf16>, tensor<?x16x?x128xbf16> -> tensor<?x16x?x128xbf16>
  return %o : tensor<?x16x?x128xbf16>
}
