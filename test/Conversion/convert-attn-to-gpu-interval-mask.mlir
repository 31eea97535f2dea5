// RUN: attnc-opt %s --attn-choose-gpu-kernel=chip=sm_90a --attn-tile --attn-skip-masked-tiles --convert-attn-to-gpu --split-input-file 2>/dev/null | FileCheck %s

// Boundary tiles of an interval mask (here causal): each row slot's visible
// keys [lo, min(hi, Sk)) are taken once a tile as i32, relative to the
// lane's first key (the tile's first key plus 2 t) and at least -1 (exact
// for any Sk attnrt accepts), and each score is kept
// by two i32 compares of its constant column with them (a sliding window
// takes one end at a time, below): no index (64-bit)
// compare and no clamp a score. The full tiles yield the scores unmasked.
// CHECK-LABEL: gpu.func @attnc_attention(
// CHECK: scf.yield %{{.*}} : f32, f32, f32
// CHECK-NEXT: } else {
// CHECK: %[[LASTKEY:.*]] = arith.subi %{{.*}}, %c1{{.*}} : index
// CHECK-NEXT: %[[FIRST:.*]] = arith.addi
// CHECK-NEXT: %[[M1:.*]] = arith.constant -1 : index
// CHECK-NEXT: %[[LO64:.*]] = arith.subi %{{.*}}, %[[FIRST]] : index
// CHECK-NEXT: %[[LOA:.*]] = arith.maxsi %[[LO64]], %[[M1]] : index
// CHECK-NEXT: %[[LO:.*]] = arith.index_cast %[[LOA]] : index to i32
// CHECK-NEXT: %[[HIK:.*]] = arith.minsi %{{.*}}, %{{.*}} : index
// CHECK-NEXT: arith.constant -1 : index
// CHECK-NEXT: %[[HI64:.*]] = arith.subi %[[HIK]], %[[FIRST]] : index
// CHECK-NEXT: %[[HIA:.*]] = arith.maxsi %[[HI64]]
// CHECK-NEXT: %[[HI:.*]] = arith.index_cast %[[HIA]] : index to i32
// The second row slot's (rows g + 8).
// CHECK-COUNT-2: arith.index_cast %{{.*}} : index to i32
// CHECK-NOT: : index
// CHECK: %[[C0:.*]] = arith.constant 0 : i32
// CHECK-NEXT: %[[GE:.*]] = arith.cmpi sge, %[[C0]], %[[LO]] : i32
// CHECK-NEXT: %[[LT:.*]] = arith.cmpi slt, %[[C0]], %[[HI]] : i32
// CHECK-NEXT: %[[VIS:.*]] = arith.andi %[[GE]], %[[LT]] : i1
// CHECK-NEXT: arith.select %[[VIS]], %{{.*}}, %{{.*}} : f32
// CHECK-NEXT: %[[C1:.*]] = arith.constant 1 : i32
// CHECK-NEXT: arith.cmpi sge, %[[C1]], %[[LO]] : i32
// CHECK-NEXT: arith.cmpi slt, %[[C1]], %[[HI]] : i32
// CHECK-NOT: arith.cmpi {{.*}} : index
// CHECK: scf.yield
func.func @causal(%q: tensor<?x16x?x128xbf16>, %k: tensor<?x16x?x128xbf16>) -> tensor<?x16x?x128xbf16> {
  %o = attn.attention %q, %k, %k mask(#attn.causal) : tensor<?x16x?x128xbf16>, tensor<?x16x?x128xbf16>, tensor<?x16x?x128xbf16> -> tensor<?x16x?x128xbf16>
  return %o : tensor<?x16x?x128xbf16>
}

// -----

// cu_seqlens documents (causal): each row slot's document [start, end) is
// found once a work item, by a scan of cu_seqlens (%[[DOC]]#0 and #1) on
// the consumers before they wait for Q, not on each boundary tile. A row
// slot's interval is its document, up to its own key position + 1, and
// empty (hi = lo) for a row whose position is before the keys; the scores
// then take the same two i32 compares.
// CHECK-LABEL: gpu.func @attnc_attention(
// (On the persistent grid: after the item's key-tile range, the
// consumers' releasing thread picked, then the rows.)
// CHECK: nvvm.fence.mbarrier.init
// CHECK-NOT: nvvm.mbarrier.try_wait
// CHECK: arith.remui %thread_id_x{{.*}}, %c128{{.*}} : index
// CHECK-NEXT: arith.cmpi eq
// CHECK-NOT: nvvm.mbarrier.try_wait
// CHECK: %[[POS0:.*]] = arith.addi %{{.*}}, %{{.*}} : index
// CHECK: %[[VALID0:.*]] = arith.cmpi sge, %[[POS0]], %c0{{.*}} : index
// CHECK: %[[DOC:.*]]:2 = scf.for
// CHECK: %{{.*}}:2 = scf.for
// CHECK: scf.yield
// CHECK-NEXT: }
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK-NOT: scf.for
// CHECK: scf.yield %{{.*}} : f32, f32, f32
// CHECK-NEXT: } else {
// CHECK-NEXT: %{{.*}} = arith.constant 1 : index
// CHECK-NEXT: %{{.*}} = arith.subi %{{.*}}, %{{.*}} : index
// CHECK-NEXT: %[[FIRSTD:.*]] = arith.addi
// CHECK-NEXT: %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT: %[[POS1:.*]] = arith.addi %[[POS0]], %[[ONE]] : index
// CHECK-NEXT: %[[UPTO:.*]] = arith.minsi %[[DOC]]#1, %[[POS1]] : index
// CHECK-NEXT: %[[HIKEY:.*]] = arith.select %[[VALID0]], %[[UPTO]], %[[DOC]]#0 : index
// CHECK-NEXT: arith.constant -1 : index
// CHECK-NEXT: %[[DLO64:.*]] = arith.subi %[[DOC]]#0, %[[FIRSTD]] : index
// CHECK-NEXT: %[[DLOA:.*]] = arith.maxsi %[[DLO64]]
// CHECK-NEXT: %[[DLO:.*]] = arith.index_cast %[[DLOA]] : index to i32
// CHECK-NEXT: %[[DHIK:.*]] = arith.minsi %[[HIKEY]], %{{.*}} : index
// CHECK-NEXT: arith.constant -1 : index
// CHECK-NEXT: %[[DHI64:.*]] = arith.subi %[[DHIK]], %[[FIRSTD]] : index
// CHECK-NEXT: %[[DHIA:.*]] = arith.maxsi %[[DHI64]]
// CHECK-NEXT: %[[DHI:.*]] = arith.index_cast %[[DHIA]] : index to i32
// CHECK: %[[D0:.*]] = arith.constant 0 : i32
// CHECK-NEXT: arith.cmpi sge, %[[D0]], %[[DLO]] : i32
// CHECK-NEXT: arith.cmpi slt, %[[D0]], %[[DHI]] : i32
func.func @documents(%q: tensor<?x16x?x128xbf16>, %k: tensor<?x16x?x128xbf16>, %cu: tensor<?xi32>) -> tensor<?x16x?x128xbf16> {
  %o = attn.attention %q, %k, %k cu_seqlens(%cu : tensor<?xi32>) mask(#attn.document<cu_seqlens, causal>) : tensor<?x16x?x128xbf16>, tensor<?x16x?x128xbf16>, tensor<?x16x?x128xbf16> -> tensor<?x16x?x128xbf16>
  return %o : tensor<?x16x?x128xbf16>
}

// -----

// A sliding window (D = 128: 128-key tiles): each boundary tile masks one
// end at a time. The lower ends cut the lane's columns where some row
// slot's lo > 0, the upper ends where some hi <= 121 (its last column of a
// 128-key tile); each end that cuts masks the scores behind its own branch
// (the thread's), one i32 compare of a score's constant column and one
// select, with no compare of the other end: a window's first tiles take the
// lower ends only, its diagonal the upper ones.
// CHECK-LABEL: gpu.func @attnc_attention(
// CHECK: scf.yield %{{.*}} : f32, f32, f32
// CHECK-NEXT: } else {
// CHECK: %[[WLO:.*]] = arith.index_cast %{{.*}} : index to i32
// CHECK: %[[WHI:.*]] = arith.index_cast %{{.*}} : index to i32
// CHECK: %[[Z:.*]] = arith.constant 0 : i32
// CHECK-NEXT: %[[LOCUT:.*]] = arith.cmpi sgt, %[[WLO]], %[[Z]] : i32
// CHECK-NEXT: %[[LAST:.*]] = arith.constant 121 : i32
// CHECK-NEXT: %[[HICUT:.*]] = arith.cmpi sle, %[[WHI]], %[[LAST]] : i32
// CHECK: %[[CUTLO:.*]] = arith.ori %[[LOCUT]], %{{.*}} : i1
// CHECK-NEXT: %[[CUTHI:.*]] = arith.ori %[[HICUT]], %{{.*}} : i1
// CHECK-NEXT: %[[LOWER:.*]]:64 = scf.if %[[CUTLO]] -> (f32
// CHECK-NEXT: %[[C0:.*]] = arith.constant 0 : i32
// CHECK-NEXT: %[[GE:.*]] = arith.cmpi sge, %[[C0]], %[[WLO]] : i32
// CHECK-NEXT: arith.select %[[GE]], %{{.*}}, %{{.*}} : f32
// CHECK-NEXT: %[[C1:.*]] = arith.constant 1 : i32
// CHECK-NEXT: arith.cmpi sge, %[[C1]], %[[WLO]] : i32
// CHECK-NOT: arith.cmpi slt
// CHECK: } else {
// CHECK-NEXT: scf.yield %{{.*}} : f32
// CHECK-NEXT: }
// CHECK-NEXT: %{{.*}}:64 = scf.if %[[CUTHI]] -> (f32
// CHECK-NEXT: %[[D0:.*]] = arith.constant 0 : i32
// CHECK-NEXT: %[[LT:.*]] = arith.cmpi slt, %[[D0]], %[[WHI]] : i32
// CHECK-NEXT: arith.select %[[LT]], %[[LOWER]]#0, %{{.*}} : f32
// CHECK-NOT: arith.cmpi sge
// CHECK: } else {
// CHECK-NEXT: scf.yield %[[LOWER]]#0, %[[LOWER]]#1,
func.func @window(%q: tensor<?x16x?x128xbf16>, %k: tensor<?x16x?x128xbf16>) -> tensor<?x16x?x128xbf16> {
  %o = attn.attention %q, %k, %k mask(#attn.sliding_window<left = 1023, right = 0>) : tensor<?x16x?x128xbf16>, tensor<?x16x?x128xbf16>, tensor<?x16x?x128xbf16> -> tensor<?x16x?x128xbf16>
  return %o : tensor<?x16x?x128xbf16>
}

// -----

// A ragged batch's window keeps both ends' compares a score (one end at a
// time spilled a ragged batch's three-warpgroup D = 64 kernel).
// CHECK-LABEL: gpu.func @attnc_attention(
// CHECK: scf.yield %{{.*}} : f32, f32, f32
// CHECK-NEXT: } else {
// CHECK: %[[RGE:.*]] = arith.cmpi sge, %{{.*}}, %{{.*}} : i32
// CHECK-NEXT: %[[RLT:.*]] = arith.cmpi slt, %{{.*}}, %{{.*}} : i32
// CHECK-NEXT: %[[RVIS:.*]] = arith.andi %[[RGE]], %[[RLT]] : i1
// CHECK-NEXT: arith.select %[[RVIS]], %{{.*}}, %{{.*}} : f32
func.func @ragged_window(%q: tensor<1x4x?x64xbf16>, %k: tensor<1x2x?x64xbf16>, %v: tensor<1x2x?x64xbf16>, %cq: tensor<?xi32>, %ck: tensor<?xi32>) -> tensor<1x4x?x64xbf16> {
  %o = attn.attention %q, %k, %v cu_seqlens_q(%cq : tensor<?xi32>) cu_seqlens_k(%ck : tensor<?xi32>) mask(#attn.sliding_window<left = 255, right = 0>) : tensor<1x4x?x64xbf16>, tensor<1x2x?x64xbf16>, tensor<1x2x?x64xbf16> -> tensor<1x4x?x64xbf16>
  return %o : tensor<1x4x?x64xbf16>
}
