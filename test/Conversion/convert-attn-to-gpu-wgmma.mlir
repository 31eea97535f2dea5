// RUN: attnc-opt %s --attn-choose-gpu-kernel=chip=sm_90a --attn-tile --attn-skip-masked-tiles --convert-attn-to-gpu 2>/dev/null | FileCheck %s

// The sm_90a wgmma kernel's key loop (D = 128, no mask: 160-key tiles, two
// consumer warpgroups). Keys and values of a stage have barriers of their
// own: the producer loads a tile's keys (two 160 x 128-byte boxes, 40960
// bytes, tensor map K) once the consumers have released the stage's keys,
// then its values (tensor map V) once they have released its values.
// CHECK-LABEL: func.func @none_bf16_d128(
// CHECK: gpu.func @attnc_attention(
// A persistent grid (the default on two consumer warpgroups): after the
// roles part, the consumers walk the block's work items (its whole items
// from its linear index in steps of the grid's blocks, then its shares of
// the balanced tail: convert-attn-to-gpu-tail-splits.mlir), carrying the
// ring's uses and the items done; each item waits for its Q (full
// barrier) and, once its key loop is done, arrives on Q's empty barrier.
// CHECK: nvvm.setmaxregister increase 232
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %{{.*}} step %c1{{.*}} iter_args(%[[USES:[a-z0-9]+]] = %c0{{.*}}, %{{.*}} = %c0{{.*}}) -> (index, index) {
// CHECK: nvvm.mbarrier.try_wait.parity
// The warpgroups' turns go on from item to item: the last warpgroup gives
// the first turn only before the block's first item with a key tile (no
// ring use before it); each item's first S is issued in the warpgroup's
// turn, and the next warpgroup's turn given, before it is waited for.
// CHECK: %[[NOUSE:[0-9]+]] = arith.cmpi eq, %[[USES]], %c0
// CHECK-NEXT: arith.andi %{{.*}}, %[[NOUSE]] : i1
// CHECK: nvvm.barrier.arrive id =
// CHECK: nvvm.barrier id =
// CHECK: nvvm.wgmma.mma_async {{.*}}<m = 64, n = 160, k = 16>, D[<f32>, <zero>]
// CHECK: nvvm.barrier.arrive id =
// CHECK-NEXT: "wgmma.wait_group.sync.aligned 0;"
// The consumers' loop: tile kt's keys and tile kt - 1's values landed,
// the warpgroup's turn (named barrier), S(kt) and P V(kt - 1) issued as
// two groups, the next warpgroup's turn. Once S has completed
// (wait_group 1) the keys of kt are released, before the softmax; the
// values of kt - 1 only after P V has completed (wait_group 0), still in
// the same iteration.
// CHECK: scf.for %{{.*}} iter_args(
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: nvvm.barrier id =
// CHECK: nvvm.wgmma.mma_async {{.*}}<m = 64, n = 160, k = 16>
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK: nvvm.barrier.arrive id =
// CHECK-NEXT: llvm.inline_asm {{.*}}"wgmma.wait_group.sync.aligned 1;"
// CHECK-NOT: math.exp2
// CHECK: nvvm.mbarrier.arrive %[[KEYS:[0-9]+]] : !llvm.ptr<3>
// CHECK: math.exp2
// CHECK: "wgmma.wait_group.sync.aligned 0;"
// CHECK-NOT: scf.yield
// CHECK: nvvm.mbarrier.arrive %[[VALUES:[0-9]+]] : !llvm.ptr<3>
// CHECK: scf.yield
// After the loop, the last tile's P V in the warpgroup's turn too, and no
// other turn before the next item.
// CHECK: nvvm.barrier id =
// CHECK: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// CHECK: nvvm.barrier.arrive id =
// CHECK-NEXT: "wgmma.wait_group.sync.aligned 0;"
// CHECK-NOT: nvvm.barrier id
// CHECK: nvvm.mbarrier.arrive %{{[0-9]+}} : !llvm.ptr<3>
// CHECK: scf.yield %{{.*}}, %{{.*}} : index, index
// The producer lane walks the same items: Q's empty barrier, Q (32768
// bytes), then per tile the keys' empty barrier, the keys by TMA onto the
// keys' full barrier; the values' empty barrier, the values onto theirs.
// CHECK: nvvm.setmaxregister decrease 40
// CHECK: scf.for %{{.*}} iter_args(%{{.*}} = %c0{{.*}}, %{{.*}} = %c0{{.*}}) -> (index, index) {
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %c32768_i32
// CHECK: scf.for
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: nvvm.mbarrier.arrive.expect_tx %[[KF:[0-9]+]], %c40960_i32
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %arg38, %[[KF]], box[%c0_i32
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %arg38, %[[KF]], box[%c64_i32
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: nvvm.mbarrier.arrive.expect_tx %[[VF:[0-9]+]], %c40960_i32
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %arg39, %[[VF]], box[%c0_i32
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %arg39, %[[VF]], box[%c64_i32
func.func @none_bf16_d128(%q: tensor<?x4x?x128xbf16>, %k: tensor<?x4x?x128xbf16>, %v: tensor<?x4x?x128xbf16>) -> tensor<?x4x?x128xbf16> {
  %o = attn.attention %q, %k, %v : tensor<?x4x?x128xbf16>, tensor<?x4x?x128xbf16>, tensor<?x4x?x128xbf16> -> tensor<?x4x?x128xbf16>
  return %o : tensor<?x4x?x128xbf16>
}
