// RUN: attnc-opt %s --split-input-file --attn-choose-gpu-kernel=chip=sm_90a --attn-tile --attn-skip-masked-tiles --convert-attn-to-gpu 2>/dev/null | FileCheck %s

// A block mask at D = 192 (two consumer warpgroups on 64-key tiles) runs the
// overlapped schedule on a compacted ring, as at D <= 128: a warp's cursor
// ballots 32 tiles' tests at once and finds the next visible tile as a count
// of trailing zeros, in scf.while loops over the visible tiles (ptxas: no
// spill).
// CHECK-LABEL: func.func @d192(
// CHECK: gpu.func @attnc_attention(
// CHECK: scf.while
// CHECK: nvvm.vote.sync  ballot
// CHECK: llvm.intr.cttz
// CHECK: gpu.return
func.func @d192(%q: tensor<?x4x?x192xbf16>, %m: tensor<1x1x?x?xi8>) -> tensor<?x4x?x192xbf16> {
  %o = attn.attention %q, %q, %q block_mask(%m : tensor<1x1x?x?xi8>) mask(#attn.block_sparse<block_q = 128, block_k = 128>) : tensor<?x4x?x192xbf16>, tensor<?x4x?x192xbf16>, tensor<?x4x?x192xbf16> -> tensor<?x4x?x192xbf16>
  return %o : tensor<?x4x?x192xbf16>
}

// -----

// At D = 256 the compacted ring spilled 96-120 bytes: one key tile at a
// time, each tile's flags tested in the loop, no cursor.
// CHECK-LABEL: func.func @d256(
// CHECK: gpu.func @attnc_attention(
// CHECK-NOT: scf.while
// CHECK-NOT: llvm.intr.cttz
// CHECK: gpu.return
func.func @d256(%q: tensor<?x4x?x256xbf16>, %m: tensor<1x1x?x?xi8>) -> tensor<?x4x?x256xbf16> {
  %o = attn.attention %q, %q, %q block_mask(%m : tensor<1x1x?x?xi8>) mask(#attn.block_sparse<block_q = 128, block_k = 128>) : tensor<?x4x?x256xbf16>, tensor<?x4x?x256xbf16>, tensor<?x4x?x256xbf16> -> tensor<?x4x?x256xbf16>
  return %o : tensor<?x4x?x256xbf16>
}
