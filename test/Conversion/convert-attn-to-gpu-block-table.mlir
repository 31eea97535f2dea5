// RUN: attnc-opt %s --attn-choose-gpu-kernel=chip=sm_90a --attn-tile --attn-skip-masked-tiles --convert-attn-to-gpu 2>/dev/null | FileCheck %s

// A block mask whose key blocks tile the key tiles (block_k = 128, a
// multiple of 8 dividing the kernel's 128 keys): on a boundary tile a lane
// reads the block table once per row slot and 8-column group (2 x 16), not
// once per score (64), which kept ptxas spilling on 128-key tiles.
// The consumers run the overlapped schedule on a compacted ring: an
// scf.while finds the first tile holding a visible pair (one table read a
// tile), whose S and softmax (32 boundary reads) come alone; the loop over
// the tiles after it carries the ring's next use, the last tile visited and
// the next tile's flags (empty, full), read an iteration ahead (an scf.if
// on kt + 1 < hi); an empty tile yields the state unchanged with the next
// tile's flags, waiting on no barrier; a visible one waits for its keys
// and the last tile's values, issues S = Q K^T with that tile's P V, lets
// the other warpgroup take its turn, and only then reads the next tile's
// flags, before it waits for S: no warp waits for a table read before a
// tile's GEMMs. The producer carries the ring's
// use count and loads only the visible tiles (one table read a tile). A
// producer that tests tiles keeps 40 registers (with 24 ptxas spilled it
// for block masks of small blocks), the two consumer warpgroups the rest
// (232).
// CHECK-LABEL: gpu.func @attnc_attention(
// CHECK: nvvm.setmaxregister  increase 232
// CHECK: scf.while ({{.*}}) : (index, i1) -> (index, i1) {
// CHECK: llvm.load {{.*}} -> i8
// CHECK-NOT: llvm.load {{.*}} -> i8
// CHECK: scf.condition
// CHECK-COUNT-32: llvm.load {{.*}} -> i8
// CHECK: llvm.load {{.*}} -> i8
// CHECK-NOT: llvm.load {{.*}} -> i8
// CHECK: scf.for %[[KT:[^ ]+]] = {{.*}} iter_args({{.*}}, %[[EMPTY:[^ ]+]] = %{{[^ ]+}}, %{{[^ ]+}} = %{{[^ ]+}}) -> ({{.*}}, index, index, i1, i1) {
// CHECK-NEXT: scf.if %[[EMPTY]] -> (
// CHECK-NEXT: %[[NEXT:.*]] = arith.addi %[[KT]], %c1{{.*}} : index
// CHECK-NEXT: %[[AHEAD:.*]] = arith.cmpi slt, %[[NEXT]], %{{.*}} : index
// CHECK-NEXT: scf.if %[[AHEAD]] -> (i1, i1) {
// CHECK: llvm.load {{.*}} -> i8
// CHECK-NOT: llvm.load {{.*}} -> i8
// CHECK: } else {
// CHECK-NOT: llvm.load {{.*}} -> i8
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK-NOT: llvm.load {{.*}} -> i8
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK-NOT: llvm.load {{.*}} -> i8
// CHECK: nvvm.wgmma.mma_async
// CHECK-NOT: llvm.load {{.*}} -> i8
// CHECK: nvvm.barrier.arrive
// CHECK-NEXT: %[[NEXT2:.*]] = arith.addi %[[KT]], %c1{{.*}} : index
// CHECK-NEXT: %[[AHEAD2:.*]] = arith.cmpi slt, %[[NEXT2]], %{{.*}} : index
// CHECK-NEXT: scf.if %[[AHEAD2]] -> (i1, i1) {
// CHECK: llvm.load {{.*}} -> i8
// CHECK-NOT: llvm.load {{.*}} -> i8
// CHECK: wgmma.wait_group.sync.aligned 1;
// CHECK-COUNT-32: llvm.load {{.*}} -> i8
// CHECK-NOT: llvm.load {{.*}} -> i8
// CHECK: nvvm.setmaxregister  decrease 40
// CHECK: scf.for {{.*}} iter_args(%{{[^ ]+}} = %{{[^ ]+}}) -> (index) {
// CHECK: llvm.load {{.*}} -> i8
// CHECK-NOT: llvm.load {{.*}} -> i8
// CHECK: scf.if %{{.*}} -> (index) {
// CHECK: nvvm.cp.async.bulk.tensor
// CHECK-NOT: llvm.load {{.*}} -> i8
func.func @attention(%q: tensor<?x16x?x128xbf16>, %k: tensor<?x16x?x128xbf16>, %bm: tensor<1x1x?x?xi8>) -> tensor<?x16x?x128xbf16> {
  %o = attn.attention %q, %k, %k block_mask(%bm : tensor<1x1x?x?xi8>) mask(#attn.block_sparse<block_q = 128, block_k = 128>) {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 128, block_k = 128, warps = 8, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true>} : tensor<?x16x?x128xbf16>, tensor<?x16x?x128xbf16>, tensor<?x16x?x128xbf16> -> tensor<?x16x?x128xbf16>
  return %o : tensor<?x16x?x128xbf16>
}
