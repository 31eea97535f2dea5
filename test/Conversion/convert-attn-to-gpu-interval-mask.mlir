// RUN: attnc-opt %s --attn-choose-gpu-kernel=chip=sm_90a --attn-tile --attn-skip-masked-tiles --convert-attn-to-gpu --split-input-file 2>/dev/null | FileCheck %s

// Boundary tiles of an interval mask (here causal): each row slot's visible
// keys [lo, min(hi, Sk)) are taken once a tile as i32, relative to the
// lane's first key (the tile's first key plus 2 t) and at least -1 (exact
// for any Sk attnrt accepts), and each score is kept
// by two i32 compares of its constant column with them: no index (64-bit)
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
// CHECK: nvvm.fence.mbarrier.init
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
