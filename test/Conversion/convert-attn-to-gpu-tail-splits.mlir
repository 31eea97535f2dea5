// RUN: attnc-opt %s --split-input-file --attn-choose-gpu-kernel=chip=sm_90a --attn-tile --attn-skip-masked-tiles --convert-attn-to-gpu 2>/dev/null | FileCheck %s

// The persistent no-mask kernel (D = 128: two consumer warpgroups of 4
// warps, 384 threads) splits its last wave's items by keys (tail splits;
// the item loop's numbering is in convert-attn-to-gpu-persistent-order.mlir).
// After the key loop, an item of one split stores its rows. A split item's
// warps write their lanes' state, 68 values a thread (m and l of 2 slots,
// 64 accumulators), to its split's record in the scratch (argument 28):
// value v of consumer thread c at v * 256 + c of a record of 68 * 256
// floats, past a u32 counter per (tail item, warp of the block: 12),
// padded to 4. Each warp then fences, syncs, and its lane 0 counts it in
// on the item's counter for the warp (atom.add, acq_rel at gpu scope); the
// count goes to every lane, and the warp counted last (splits - 1 before
// it) fences again and merges every other split's record into its state
// (loads at gpu scope, the offsets of m, l and the accumulators in the
// instructions), then stores the rows. The others store nothing.
// CHECK-LABEL: gpu.func @attnc_attention(
// CHECK: nvvm.setmaxregister  increase
// CHECK: %[[TAIL:.*]]:69 = scf.if %{{.*}} -> (i1, f32,
// CHECK: %[[TRUE:.*]] = arith.constant true
// CHECK: scf.yield %[[TRUE]], %[[STATE:[0-9]+]]#0, %[[STATE]]#1,
// CHECK: } else {
// CHECK: %[[COUNTERS:.*]] = arith.muli %[[ITEMS:.*]], %c12 : index
// CHECK: %[[PADDED:.*]] = arith.ceildivui %[[COUNTERS]], %c4{{.*}} : index
// CHECK: %[[RECORDS:.*]] = arith.muli %[[PADDED]], %c4{{.*}} : index
// CHECK: %[[FIRST:.*]] = arith.muli %[[ITEM:.*]], %[[SPLITS:.*]] : index
// CHECK: %[[MINE:.*]] = arith.addi %[[FIRST]], %[[SPLIT:.*]] : index
// CHECK: %[[AT:.*]] = arith.muli %[[MINE]], %c17408 : index
// CHECK: %[[LANE_AT:.*]] = arith.addi %[[AT]], %thread_id_x
// CHECK: %[[BASE:.*]] = arith.addi %[[RECORDS]], %[[LANE_AT]] : index
// CHECK: llvm.getelementptr %arg28[%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK: llvm.store %[[STATE]]#0, %{{.*}} : f32, !llvm.ptr
// CHECK: %[[LAST_AT:.*]] = arith.addi %[[BASE]], %c17152 : index
// CHECK: llvm.store %[[STATE]]#67, %{{.*}} : f32, !llvm.ptr
// CHECK-NEXT: llvm.inline_asm has_side_effects {{.*}} "fence.acq_rel.gpu;"
// CHECK-NEXT: llvm.inline_asm has_side_effects {{.*}} "bar.warp.sync -1;"
// CHECK: %[[WARP_AT:.*]] = arith.muli %[[ITEM]], %c12{{.*}} : index
// CHECK: %[[COUNTER_AT:.*]] = arith.addi %[[WARP_AT]], %{{.*}} : index
// CHECK: %[[COUNTER:.*]] = llvm.getelementptr %arg28[%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, i32
// CHECK: %[[LANE0:.*]] = arith.cmpi eq, %{{.*}}, %c0{{.*}} : index
// CHECK: %[[BEFORE:.*]] = scf.if %[[LANE0]] -> (i32) {
// CHECK: llvm.inline_asm has_side_effects {{.*}} "atom.acq_rel.gpu.add.u32 $0, [$1], 1;", "=r,l"
// CHECK: %[[COUNTED:.*]], %{{.*}} = gpu.shuffle  idx %[[BEFORE]], %c0_i32, %c32_i32 : i32
// CHECK: %[[OTHERS:.*]] = arith.subi %[[SPLITS]], %c1{{.*}} : index
// CHECK: %[[OTHERS32:.*]] = arith.index_cast %[[OTHERS]] : index to i32
// CHECK: %[[LAST:.*]] = arith.cmpi eq, %[[COUNTED]], %[[OTHERS32]] : i32
// CHECK: scf.if %[[LAST]] -> (f32,
// CHECK-NEXT: llvm.inline_asm has_side_effects {{.*}} "fence.acq_rel.gpu;"
// CHECK: scf.for %[[J:.*]] = %c0{{.*}} to %[[SPLITS]] step %c1{{.*}} iter_args(%[[M0:.*]] = %[[STATE]]#0, %[[M1:.*]] = %[[STATE]]#1, %[[L0:.*]] = %[[STATE]]#2,
// CHECK: %[[OTHER:.*]] = arith.cmpi ne, %[[J]], %[[SPLIT]] : index
// CHECK: scf.if %[[OTHER]] -> (f32,
// CHECK: %[[THEIRS:.*]] = arith.addi %[[RECORDS]], %{{.*}} : index
// CHECK: %[[ADDR:.*]] = llvm.ptrtoint
// CHECK: %[[M:.*]] = llvm.inline_asm has_side_effects {{.*}} "ld.relaxed.gpu.f32 $0, [$1+0];", "=f,l" %[[ADDR]]
// CHECK: %[[L:.*]] = llvm.inline_asm has_side_effects {{.*}} "ld.relaxed.gpu.f32 $0, [$1+2048];", "=f,l" %[[ADDR]]
// CHECK: %[[TOP:.*]] = arith.maximumf %[[M0]], %[[M]] : f32
// CHECK: %[[REF:.*]] = arith.select %{{.*}}, %{{.*}}, %[[TOP]] : f32
// CHECK: %[[D_MINE:.*]] = arith.subf %[[M0]], %[[REF]] : f32
// CHECK: %[[F_MINE:.*]] = math.exp2 %[[D_MINE]] : f32
// CHECK: %[[D_THEIRS:.*]] = arith.subf %[[M]], %[[REF]] : f32
// CHECK: %[[F_THEIRS:.*]] = math.exp2 %[[D_THEIRS]] : f32
// CHECK: %[[L_THEIRS:.*]] = arith.mulf %[[F_THEIRS]], %[[L]] : f32
// CHECK: %[[L_MINE:.*]] = arith.mulf %[[F_MINE]], %[[L0]] : f32
// CHECK: arith.addf %[[L_MINE]], %[[L_THEIRS]] : f32
// CHECK: "ld.relaxed.gpu.f32 $0, [$1+4096];"
// CHECK: "ld.relaxed.gpu.f32 $0, [$1+68608];"
// CHECK: scf.if %[[TAIL]]#0 {
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
