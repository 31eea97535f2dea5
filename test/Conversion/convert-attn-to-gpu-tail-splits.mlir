// RUN: attnc-opt %s --split-input-file --attn-choose-gpu-kernel=chip=sm_90a --attn-tile --attn-skip-masked-tiles --convert-attn-to-gpu 2>/dev/null | FileCheck %s

// The persistent no-mask kernel (D = 128: two consumer warpgroups of 4
// warps, 384 threads) deals the key tiles of its last wave's items to all
// its blocks (the balanced tail; the item loop's numbering is in
// convert-attn-to-gpu-persistent-order.mlir). After the key loop a whole
// item stores its rows. In a tail segment each warp writes its lanes'
// state, 68 values a thread (m and l of 2 slots, 64 accumulators), to the
// segment's record in the scratch (argument 28): record 2 l + k of block
// l's segment k, value v of consumer thread c at v * 256 + c of a record
// of 68 * 256 floats, past a u32 counter per (tail item, warp of the
// block: 12), padded to 4. Each warp then fences, syncs, and its lane 0
// adds the segment's key tiles to the item's counter for the warp
// (atom.add, acq_rel at gpu scope); the sum goes to every lane, and the
// warp whose tiles complete the item's fences again and merges the record
// of every other block with a share of the item (the blocks of its first
// and last tiles and those between, skipping empty shares; loads at gpu
// scope, the offsets of m, l and the accumulators in the instructions),
// then stores the rows. The others store nothing.
// CHECK-LABEL: gpu.func @attnc_attention(
// CHECK: nvvm.setmaxregister  increase
// CHECK: %[[TAIL:.*]]:69 = scf.if %[[IS_TAIL:.*]] -> (i1, f32,
// CHECK: %[[COUNTERS:.*]] = arith.muli %[[ITEMS:.*]], %c12_i32 : i32
// CHECK: %[[PAD:.*]] = arith.addi %[[COUNTERS]], %c3_i32 : i32
// CHECK: %[[QUADS:.*]] = arith.divui %[[PAD]], %c4_i32{{.*}} : i32
// CHECK: %[[RECORDS:.*]] = arith.muli %[[QUADS]], %c4_i32{{.*}} : i32
// CHECK: %[[TWO_L:.*]] = arith.muli %[[L:.*]], %c2_i32{{.*}} : i32
// CHECK: %[[MINE:.*]] = arith.addi %[[TWO_L]], %[[SEG:.*]] : i32
// CHECK: %[[AT:.*]] = arith.muli %[[MINE]], %c17408_i32 : i32
// CHECK: %[[FROM_RECORDS:.*]] = arith.addi %[[RECORDS]], %[[AT]] : i32
// CHECK: %[[BASE32:.*]] = arith.index_castui %[[FROM_RECORDS]] : i32 to index
// CHECK: %[[BASE:.*]] = arith.addi %[[BASE32]], %thread_id_x
// CHECK: llvm.getelementptr %arg28[%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK: llvm.store %[[STATE:[0-9]+]]#0, %{{.*}} : f32, !llvm.ptr
// CHECK: arith.addi %[[BASE]], %c17152 : index
// CHECK: llvm.store %[[STATE]]#67, %{{.*}} : f32, !llvm.ptr
// CHECK-NEXT: llvm.inline_asm has_side_effects {{.*}} "fence.acq_rel.gpu;"
// CHECK-NEXT: llvm.inline_asm has_side_effects {{.*}} "bar.warp.sync -1;"
// CHECK: %[[WARP_AT:.*]] = arith.muli %[[ITEM:.*]], %c12_i32{{.*}} : i32
// CHECK: %[[COUNTER:.*]] = llvm.getelementptr %arg28[%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, i32
// CHECK: %[[SPAN:.*]] = arith.subi %[[HI:.*]], %[[LO:.*]] : index
// CHECK: %[[TILES:.*]] = arith.index_castui %[[SPAN]] : index to i32
// CHECK: %[[LANE0:.*]] = arith.cmpi eq, %{{.*}}, %c0{{.*}} : index
// CHECK: %[[BEFORE:.*]] = scf.if %[[LANE0]] -> (i32) {
// CHECK: llvm.inline_asm has_side_effects {{.*}} "atom.acq_rel.gpu.add.u32 $0, [$1], $2;", "=r,l,r" %{{.*}}, %[[TILES]]
// CHECK: %[[COUNTED:.*]], %{{.*}} = gpu.shuffle  idx %[[BEFORE]], %c0_i32{{.*}}, %c32_i32 : i32
// CHECK: %[[NOW:.*]] = arith.addi %[[COUNTED]], %[[TILES]] : i32
// CHECK: %[[LAST:.*]] = arith.cmpi eq, %[[NOW]], %[[C:.*]] : i32
// CHECK: scf.if %[[LAST]] -> (f32,
// CHECK-NEXT: llvm.inline_asm has_side_effects {{.*}} "fence.acq_rel.gpu;"
// CHECK: %[[ITEM_AT:.*]] = arith.muli %[[ITEM]], %[[C]] : i32
// CHECK: scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %c1{{.*}} iter_args(%[[M0:.*]] = %[[STATE]]#0, %[[M1:.*]] = %[[STATE]]#1, %[[L0:.*]] = %[[STATE]]#2,
// CHECK: %[[J32:.*]] = arith.index_castui %[[J]] : index to i32
// CHECK: %[[ITS_FIRST:.*]] = arith.divui %{{.*}}, %{{.*}} : i32
// CHECK: %[[ITS_END:.*]] = arith.divui %{{.*}}, %{{.*}} : i32
// CHECK: %[[NONEMPTY:.*]] = arith.cmpi ugt, %[[ITS_END]], %[[ITS_FIRST]] : i32
// CHECK: %[[NOT_MINE:.*]] = arith.cmpi ne, %[[J32]], %[[L]] : i32
// CHECK: %[[OTHER:.*]] = arith.andi %[[NOT_MINE]], %[[NONEMPTY]] : i1
// CHECK: scf.if %[[OTHER]] -> (f32,
// CHECK: %[[ITS_ITEM:.*]] = arith.divui %[[ITS_FIRST]], %[[C]] : i32
// CHECK: %[[ITS_SEG:.*]] = arith.subi %[[ITEM]], %[[ITS_ITEM]] : i32
// CHECK: %[[TWO_J:.*]] = arith.muli %[[J32]], %c2_i32{{.*}} : i32
// CHECK: arith.addi %[[TWO_J]], %[[ITS_SEG]] : i32
// CHECK: %[[ADDR:.*]] = llvm.ptrtoint
// CHECK: %[[M:.*]] = llvm.inline_asm has_side_effects {{.*}} "ld.relaxed.gpu.f32 $0, [$1+0];", "=f,l" %[[ADDR]]
// CHECK: %[[LSUM:.*]] = llvm.inline_asm has_side_effects {{.*}} "ld.relaxed.gpu.f32 $0, [$1+2048];", "=f,l" %[[ADDR]]
// CHECK: %[[TOP:.*]] = arith.maximumf %[[M0]], %[[M]] : f32
// CHECK: %[[REF:.*]] = arith.select %{{.*}}, %{{.*}}, %[[TOP]] : f32
// CHECK: %[[D_MINE:.*]] = arith.subf %[[M0]], %[[REF]] : f32
// CHECK: %[[F_MINE:.*]] = math.exp2 %[[D_MINE]] : f32
// CHECK: %[[D_THEIRS:.*]] = arith.subf %[[M]], %[[REF]] : f32
// CHECK: %[[F_THEIRS:.*]] = math.exp2 %[[D_THEIRS]] : f32
// CHECK: %[[L_THEIRS:.*]] = arith.mulf %[[F_THEIRS]], %[[LSUM]] : f32
// CHECK: %[[L_MINE:.*]] = arith.mulf %[[F_MINE]], %[[L0]] : f32
// CHECK: arith.addf %[[L_MINE]], %[[L_THEIRS]] : f32
// CHECK: "ld.relaxed.gpu.f32 $0, [$1+4096];"
// CHECK: "ld.relaxed.gpu.f32 $0, [$1+68608];"
// A whole item (the else branch) stores its rows.
// CHECK: %[[TRUE:.*]] = arith.constant true
// CHECK-NEXT: scf.yield %[[TRUE]], %[[STATE]]#0, %[[STATE]]#1,
// CHECK-NEXT: }
// CHECK-NEXT: scf.if %[[TAIL]]#0 {
// CHECK: llvm.store %{{.*}} : vector<4xi32>, !llvm.ptr
func.func @none(%q: tensor<?x4x?x128xbf16>) -> tensor<?x4x?x128xbf16> {
  %o = attn.attention %q, %q, %q : tensor<?x4x?x128xbf16>, tensor<?x4x?x128xbf16>, tensor<?x4x?x128xbf16> -> tensor<?x4x?x128xbf16>
  return %o : tensor<?x4x?x128xbf16>
}

// -----

// A causal kernel orders its items by cost (pairs) and splits none: no
// counter, no record loads, to the end of the output.
// CHECK-LABEL: func.func @causal(
// CHECK: gpu.func @attnc_attention(
// CHECK: nvvm.setmaxregister  increase
// CHECK-NOT: atom.acq_rel
// CHECK-NOT: ld.relaxed
func.func @causal(%q: tensor<?x4x?x128xbf16>) -> tensor<?x4x?x128xbf16> {
  %o = attn.attention %q, %q, %q mask(#attn.causal) : tensor<?x4x?x128xbf16>, tensor<?x4x?x128xbf16>, tensor<?x4x?x128xbf16> -> tensor<?x4x?x128xbf16>
  return %o : tensor<?x4x?x128xbf16>
}
