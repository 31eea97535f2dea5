// RUN: attnc-opt %s --split-input-file --attn-choose-gpu-kernel=chip=sm_90a --attn-tile --attn-skip-masked-tiles --convert-attn-to-gpu 2>/dev/null | FileCheck %s

// A block mask at D = 192 and at D = 256 (two consumer warpgroups on 64-key
// tiles) runs the overlapped schedule on a compacted ring, as at D <= 128:
// the producer announces each ring use's tile in shared memory (an i32
// store; -1 after the last), the consumers read it in an scf.while's test
// once the use's keys have landed and test no tiles themselves (no ballot
// of a cursor), and every consumer thread releases the keys after its
// own read (the keys' empty barriers expect 256 arrivals). ptxas: no spill
// at either head dim (the consumers' own cursor spilled 96-120 bytes at
// D = 256).
// CHECK-LABEL: func.func @d192(
// CHECK: gpu.func @attnc_attention(
// CHECK: nvvm.mbarrier.init {{.*}}, %c256_i32
// CHECK: llvm.load {{.*}} : !llvm.ptr<3> -> i32
// CHECK: scf.while
// CHECK: llvm.load {{.*}} : !llvm.ptr<3> -> i32
// CHECK: scf.condition
// CHECK-NOT: nvvm.vote.sync  ballot
// CHECK: llvm.store {{.*}} : i32, !llvm.ptr<3>
// CHECK: llvm.store %c-1_i32, {{.*}} : i32, !llvm.ptr<3>
// CHECK: gpu.return
func.func @d192(%q: tensor<?x4x?x192xbf16>, %m: tensor<1x1x?x?xi8>) -> tensor<?x4x?x192xbf16> {
  %o = attn.attention %q, %q, %q block_mask(%m : tensor<1x1x?x?xi8>) mask(#attn.block_sparse<block_q = 128, block_k = 128>) : tensor<?x4x?x192xbf16>, tensor<?x4x?x192xbf16>, tensor<?x4x?x192xbf16> -> tensor<?x4x?x192xbf16>
  return %o : tensor<?x4x?x192xbf16>
}

// -----

// CHECK-LABEL: func.func @d256(
// CHECK: gpu.func @attnc_attention(
// CHECK: nvvm.mbarrier.init {{.*}}, %c256_i32
// CHECK: scf.while
// CHECK: llvm.load {{.*}} : !llvm.ptr<3> -> i32
// CHECK: scf.condition
// CHECK-NOT: nvvm.vote.sync  ballot
// CHECK: llvm.store %c-1_i32, {{.*}} : i32, !llvm.ptr<3>
// CHECK: gpu.return
func.func @d256(%q: tensor<?x4x?x256xbf16>, %m: tensor<1x1x?x?xi8>) -> tensor<?x4x?x256xbf16> {
  %o = attn.attention %q, %q, %q block_mask(%m : tensor<1x1x?x?xi8>) mask(#attn.block_sparse<block_q = 128, block_k = 128>) : tensor<?x4x?x256xbf16>, tensor<?x4x?x256xbf16>, tensor<?x4x?x256xbf16> -> tensor<?x4x?x256xbf16>
  return %o : tensor<?x4x?x256xbf16>
}
