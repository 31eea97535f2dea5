// RUN: attnc-opt %s --attn-choose-gpu-kernel=chip=sm_90a --attn-tile --attn-skip-masked-tiles --convert-attn-to-gpu --split-input-file 2>/dev/null | FileCheck %s

// chain_items (D = 128 causal pairs, two consumer warpgroups, Q tiles at
// bytes 131072 and 164864 with full barriers at 163904 and 197632): the
// consumers' item loop carries, besides the ring uses and the round,
// whether the item's first S came with the item before's last turn and
// that S (64 scores a thread); the producer's loop carries the first two
// only.
// CHECK-LABEL: func.func @chained(
// CHECK: scf.for %{{.*}} iter_args(%{{.*}} = %c0{{.*}}, %{{.*}} = %c0{{.*}}, %[[HAVE:arg[0-9]+]] = %false, %[[S0:arg[0-9]+]] = %cst
// An item's first S: the carried one, or issued in its own turn.
// CHECK: %{{.*}}:64 = scf.if %[[HAVE]] -> (f32
// CHECK-NEXT: scf.yield %[[S0]],
// CHECK-NEXT: } else {
// CHECK: nvvm.barrier id
// CHECK-COUNT-8: nvvm.wgmma.mma_async
// CHECK: nvvm.barrier.arrive
// CHECK-NEXT: wgmma.wait_group.sync.aligned 0;
// Its keys released unless it was carried.
// CHECK: %[[NOTHAVE:.*]] = arith.xori %[[HAVE]], %true
// CHECK: arith.andi %{{.*}}, %[[NOTHAVE]] : i1
// The last P V: where the next item has a key tile, its turn also issues
// the next item's first S, on the next use's keys and the other Q tile
// (waited for first), and both are waited for: 128 results, P V's
// accumulators and the next S. The next keys are released there (the
// next item does not release them again).
// CHECK: %{{.*}}:128 = scf.if %{{.*}} -> (f32
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: arith.select %[[SECOND:[0-9]+]], %c131072{{[_0-9]*}}, %c164864{{[_0-9]*}} : index
// CHECK: arith.select %[[SECOND]], %c163904{{[_0-9]*}}, %c197632{{[_0-9]*}} : index
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: nvvm.barrier id
// CHECK-NOT: nvvm.barrier
// CHECK-COUNT-8: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NOT: nvvm.barrier
// CHECK-COUNT-8: nvvm.wgmma.mma_async
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NOT: wgmma.wait_group
// CHECK: nvvm.barrier.arrive
// CHECK-NEXT: wgmma.wait_group.sync.aligned 1;
// CHECK: wgmma.wait_group.sync.aligned 0;
// CHECK-NOT: scf.yield
// CHECK: nvvm.mbarrier.arrive
// CHECK: scf.yield
// Otherwise the last P V takes its turn alone.
// CHECK-NEXT: } else {
// CHECK: nvvm.barrier id
// CHECK-COUNT-8: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// CHECK-NOT: nvvm.wgmma.mma_async
// CHECK: nvvm.barrier.arrive
// CHECK-NEXT: wgmma.wait_group.sync.aligned 0;
// The producer.
// CHECK: scf.for %{{.*}} iter_args(%{{.*}} = %c0{{.*}}, %{{.*}} = %c0{{.*}}) -> (index, index)
// CHECK: gpu.return
func.func @chained(%q: tensor<?x4x?x128xbf16>) -> tensor<?x4x?x128xbf16> {
  %o = attn.attention %q, %q, %q mask(#attn.causal) {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 128, block_k = 128, warps = 8, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true, persistent = true, wide_stores = true, q_buffers = 2, chain_items = true>} : tensor<?x4x?x128xbf16>, tensor<?x4x?x128xbf16>, tensor<?x4x?x128xbf16> -> tensor<?x4x?x128xbf16>
  return %o : tensor<?x4x?x128xbf16>
}

// -----

// A sliding window's items (the window order's rounds) chain too: the
// item's round is taken apart (its 32-bit divisions by the long tiles and
// the units), then the next round's again, for its key-tile bounds, before
// the item's key tiles, whose scf.if yields the next S besides m, l and O
// (4 + 64 + 64 results); the last P V's turn holds the next S where it has
// a key tile.
// CHECK-LABEL: func.func @chained_window(
// CHECK: scf.for %{{.*}} iter_args(%{{.*}} = %c0{{.*}}, %{{.*}} = %c0{{.*}}, %[[WHAVE:arg[0-9]+]] = %false, %{{.*}} = %cst
// CHECK-COUNT-2: arith.divui %{{.*}} : i32
// CHECK-COUNT-2: arith.divui %{{.*}} : i32
// CHECK: %{{.*}}:132 = scf.if %{{.*}} -> (f32
// CHECK: %{{.*}}:64 = scf.if %[[WHAVE]] -> (f32
// CHECK: %{{.*}}:128 = scf.if %{{.*}} -> (f32
// CHECK-COUNT-8: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// CHECK-COUNT-8: nvvm.wgmma.mma_async
// CHECK: gpu.return
func.func @chained_window(%q: tensor<?x4x?x128xbf16>) -> tensor<?x4x?x128xbf16> {
  %o = attn.attention %q, %q, %q mask(#attn.sliding_window<left = 1023, right = 0>) {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 128, block_k = 128, warps = 8, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true, persistent = true, wide_stores = true, q_buffers = 2, chain_items = true>} : tensor<?x4x?x128xbf16>, tensor<?x4x?x128xbf16>, tensor<?x4x?x128xbf16> -> tensor<?x4x?x128xbf16>
  return %o : tensor<?x4x?x128xbf16>
}
