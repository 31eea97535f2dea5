// RUN: attnc-opt %s --attn-choose-gpu-kernel=chip=sm_90a --attn-tile --attn-skip-masked-tiles --convert-attn-to-gpu 2>/dev/null | FileCheck %s

// A block mask whose key blocks tile the key tiles (block_k = 128, a
// multiple of 8 dividing the kernel's 128 keys): on a boundary tile a lane
// reads the block table once per row slot and 8-column group (2 x 16), not
// once per score (64), which kept ptxas spilling on 128-key tiles.
// The consumers run the overlapped schedule on a compacted ring, over the
// visible tiles only, and test no tiles themselves: the producer writes
// which tile each ring use holds (2 kt + full, an i32 in shared memory)
// before its keys' full barrier's arrival, and -1 in the use after the
// last one. The consumers wait for a use's keys, read that word (the first
// use's before the first tile, whose S and softmax, 32 boundary reads,
// come alone; each next use's in the test of an scf.while over the uses),
// and every consumer thread releases the keys after its own read (the
// keys' empty barriers expect 256 arrivals, the values' 2, one a
// warpgroup). A tile waits for its keys and the last tile's values,
// issues S = Q K^T with the last tile's P V and lets the other warpgroup
// take its turn: no table read in the consumers outside a boundary tile's
// softmax. A producer that tests tiles keeps 40 registers (with 24 ptxas
// spilled it for block masks of small blocks), the two consumer
// warpgroups the rest (232).
// CHECK-LABEL: gpu.func @attnc_attention(
// CHECK-SAME: %[[KMAP:[a-z0-9_]+]]: !llvm.ptr, %[[VMAP:[a-z0-9_]+]]: !llvm.ptr) kernel
// CHECK: nvvm.mbarrier.init %{{.*}}, %c1_i32
// CHECK: nvvm.mbarrier.init %{{.*}}, %c256_i32
// CHECK: nvvm.mbarrier.init %{{.*}}, %c1_i32
// CHECK: nvvm.mbarrier.init %{{.*}}, %c256_i32
// CHECK: nvvm.mbarrier.init %{{.*}}, %c1_i32
// CHECK: nvvm.mbarrier.init %{{.*}}, %c2_i32
// CHECK: nvvm.mbarrier.init %{{.*}}, %c1_i32
// CHECK: nvvm.mbarrier.init %{{.*}}, %c2_i32
// CHECK: nvvm.setmaxregister  increase 232
// CHECK-NOT: llvm.load {{.*}} -> i8
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK-NOT: llvm.load {{.*}} -> i8
// CHECK: %[[WORD0:.*]] = llvm.load {{.*}} : !llvm.ptr<3> -> i32
// CHECK-NOT: llvm.load {{.*}} -> i8
// CHECK: nvvm.wgmma.mma_async
// CHECK-NOT: llvm.load {{.*}} -> i8
// CHECK: nvvm.mbarrier.arrive
// CHECK-COUNT-32: llvm.load {{.*}} -> i8
// CHECK-NOT: llvm.load {{.*}} -> i8
// CHECK: scf.while
// CHECK-NOT: llvm.load {{.*}} -> i8
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK-NOT: llvm.load {{.*}} -> i8
// CHECK: llvm.load {{.*}} : !llvm.ptr<3> -> i32
// CHECK-NOT: llvm.load {{.*}} -> i8
// CHECK: scf.condition
// CHECK: } do {
// CHECK-NOT: llvm.load {{.*}} -> i8
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK-NOT: llvm.load {{.*}} -> i8
// CHECK: nvvm.wgmma.mma_async
// CHECK-NOT: llvm.load {{.*}} -> i8
// CHECK: nvvm.barrier.arrive
// CHECK-NOT: llvm.load {{.*}} -> i8
// CHECK: wgmma.wait_group.sync.aligned 1;
// CHECK-NOT: llvm.load {{.*}} -> i8
// CHECK: nvvm.mbarrier.arrive
// CHECK-COUNT-32: llvm.load {{.*}} -> i8
// CHECK-NOT: llvm.load {{.*}} -> i8
// The producer, in the order the consumers use the tiles: a visible
// tile's word and keys (K map), then, from the second visible tile on, the
// values (V map) of the visible tile before it; the loop carries the
// ring's use count and that tile (-1 before the first); the last tile's
// values after the loop, then the end's word (-1) and an arrival without
// bytes on its keys' full barrier. The tile's test reads the table once,
// before the load's branch: the word's full flag comes from that test.
// CHECK: nvvm.setmaxregister  decrease 40
// CHECK: scf.for %[[PKT:[^ ]+]] = {{.*}} iter_args(%[[PUSE:[^ ]+]] = %c0{{[^ ]*}}, %[[PPREV:[^ ]+]] = %c-1{{[^ ]*}}) -> (index, index) {
// CHECK: llvm.load {{.*}} -> i8
// CHECK-NOT: llvm.load {{.*}} -> i8
// CHECK: scf.if %{{.*}} -> (index, index) {
// CHECK-NOT: llvm.load {{.*}} -> i8
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK-NOT: llvm.load {{.*}} -> i8
// CHECK: llvm.store %{{.*}}, %{{.*}} : i32, !llvm.ptr<3>
// CHECK: nvvm.mbarrier.arrive.expect_tx
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
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: llvm.store %c-1_i32, %{{.*}} : i32, !llvm.ptr<3>
// CHECK: nvvm.mbarrier.arrive %{{.*}} : !llvm.ptr<3>
// The block's one item ends the ring: no phase of the values' barriers for
// the end use (a persistent grid's ring goes on and passes one:
// convert-attn-to-gpu-block-table-persistent.mlir).
// CHECK-NOT: nvvm.mbarrier
// CHECK: gpu.return
func.func @attention(%q: tensor<?x16x?x128xbf16>, %k: tensor<?x16x?x128xbf16>, %bm: tensor<1x1x?x?xi8>) -> tensor<?x16x?x128xbf16> {
  %o = attn.attention %q, %k, %k block_mask(%bm : tensor<1x1x?x?xi8>) mask(#attn.block_sparse<block_q = 128, block_k = 128>) {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 128, block_k = 128, warps = 8, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true>} : tensor<?x16x?x128xbf16>, tensor<?x16x?x128xbf16>, tensor<?x16x?x128xbf16> -> tensor<?x16x?x128xbf16>
  return %o : tensor<?x16x?x128xbf16>
}
