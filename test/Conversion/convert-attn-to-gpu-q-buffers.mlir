// RUN: attnc-opt %s --attn-choose-gpu-kernel=chip=sm_90a --attn-tile --attn-skip-masked-tiles --convert-attn-to-gpu 2>/dev/null | FileCheck %s

// q_buffers = 2 (D = 192, the causal pairs on 80-key tiles): two Q tiles,
// the first at byte 122880 (after two stages of K and V) with its full and
// empty barriers at 172096 and 172104, the second at 173056 (the next
// 1024-byte boundary after the ring's barriers and tile slots) with its
// barriers at 222208 (one arrival: the producer's expect_tx) and 222216
// (one arrival per consumer warpgroup). Work item `round` of a block takes
// the second tile when round is odd and is use round / 2 of that tile:
// the consumers wait for its full barrier and release its empty one, the
// producer waits for that empty one before it loads the item's Q there.
// CHECK-LABEL: func.func @two_q_tiles(
// CHECK: gpu.func
// CHECK: arith.constant 222208 : index
// CHECK: nvvm.mbarrier.init %{{.*}}, %c1_i32{{.*}} : !llvm.ptr<3>, i32
// CHECK: arith.constant 222216 : index
// CHECK: nvvm.mbarrier.init %{{.*}}, %c2_i32{{.*}} : !llvm.ptr<3>, i32
// CHECK-NEXT: nvvm.fence.mbarrier.init
// The consumers.
// CHECK: arith.select %[[SECOND:[0-9]+]], %c173056, %c122880 : index
// CHECK-NEXT: arith.constant 2 : index
// CHECK-NEXT: arith.divui %{{.*}}, %c2{{.*}} : index
// CHECK: arith.select %[[SECOND]], %c222208, %c172096 : index
// CHECK-NEXT: arith.index_cast
// CHECK-NEXT: llvm.getelementptr
// CHECK-NEXT: arith.constant
// CHECK-NEXT: nvvm.mbarrier.try_wait.parity
// CHECK: arith.select %[[SECOND]], %c222216, %c172104 : index
// CHECK: nvvm.mbarrier.arrive
// The producer.
// CHECK: arith.select %[[PSECOND:[0-9]+]], %c173056, %c122880 : index
// CHECK: arith.select %[[PSECOND]], %c222216, %c172104 : index
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: arith.select %[[PSECOND]], %c222208, %c172096 : index
// CHECK: nvvm.mbarrier.arrive.expect_tx
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK: gpu.return
func.func @two_q_tiles(%q: tensor<?x4x?x192xbf16>) -> tensor<?x4x?x192xbf16> {
  %o = attn.attention %q, %q, %q mask(#attn.causal) {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 128, block_k = 80, warps = 8, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true, persistent = true, lazy_rescale = true, q_buffers = 2>} : tensor<?x4x?x192xbf16>, tensor<?x4x?x192xbf16>, tensor<?x4x?x192xbf16> -> tensor<?x4x?x192xbf16>
  return %o : tensor<?x4x?x192xbf16>
}
