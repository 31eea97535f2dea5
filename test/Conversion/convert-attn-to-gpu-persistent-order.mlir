// RUN: attnc-opt %s --split-input-file --attn-choose-gpu-kernel=chip=sm_90a --attn-tile --attn-skip-masked-tiles --convert-attn-to-gpu 2>/dev/null | FileCheck %s

// The persistent grid under a causal mask (D = 128; prefix-LM masks and
// cu_seqlens documents alike, below): block l of B blocks
// takes the pairs l, l + B, ... of the H * batch units' ceil(T / 2) pairs
// each, T = ceil(Sq / 128) query tiles, pairs numbered unit by unit. Pair p
// is query tiles T - 1 - p mod ceil(T / 2) (run first) and p mod ceil(T / 2)
// of unit p / ceil(T / 2), whose keys add up to about T + 1 tiles whichever
// the pair; the middle tile of an odd T pairs with itself and runs once.
// (The consumers' walk; the producer's is the same.)
// CHECK-LABEL: gpu.func @attnc_attention(
// CHECK: nvvm.setmaxregister  increase
// CHECK: %[[L:.*]] = arith.addi %block_id_x, %{{.*}} : index
// CHECK: %[[BLOCKS:.*]] = arith.muli %{{.*}}, %grid_dim_z : index
// CHECK: %[[T:.*]] = arith.ceildivui %{{.*}}, %c128 : index
// CHECK: %[[UNITS:.*]] = arith.muli %c16{{.*}}, %{{.*}} : index
// CHECK: %[[HALVES:.*]] = arith.ceildivui %[[T]], %c2 : index
// CHECK: %[[PAIRS:.*]] = arith.muli %[[HALVES]], %[[UNITS]] : index
// CHECK: %[[ABOVE:.*]] = arith.maxsi %[[PAIRS]], %[[L]] : index
// CHECK: %[[LEFT:.*]] = arith.subi %[[ABOVE]], %[[L]] : index
// CHECK: %[[MINE:.*]] = arith.ceildivui %[[LEFT]], %[[BLOCKS]] : index
// CHECK: %[[COUNT:.*]] = arith.muli %[[MINE]], %c2{{.*}} : index
// CHECK: scf.for %[[J:.*]] = %{{.*}} to %[[COUNT]] step %c1 iter_args
// CHECK: %[[JP:.*]] = arith.divui %[[J]], %c2{{.*}} : index
// CHECK: %[[STRIDE:.*]] = arith.muli %[[JP]], %[[BLOCKS]] : index
// CHECK: %[[PAIR:.*]] = arith.addi %[[L]], %[[STRIDE]] : index
// CHECK: %[[LOW:.*]] = arith.remui %[[PAIR]], %[[HALVES]] : index
// CHECK: %[[LAST:.*]] = arith.subi %[[T]], %c1{{.*}} : index
// CHECK: %[[HIGH:.*]] = arith.subi %[[LAST]], %[[LOW]] : index
// CHECK: %[[PARITY:.*]] = arith.remui %[[J]], %c2{{.*}} : index
// CHECK: %[[SECOND:.*]] = arith.cmpi eq, %[[PARITY]], %c1{{.*}} : index
// CHECK: %[[TILE:.*]] = arith.select %[[SECOND]], %[[LOW]], %[[HIGH]] : index
// CHECK: %[[UNIT:.*]] = arith.divui %[[PAIR]], %[[HALVES]] : index
// CHECK: %[[TWO:.*]] = arith.cmpi ne, %[[LOW]], %[[HIGH]] : index
// CHECK: %[[FIRST:.*]] = arith.xori %[[SECOND]], %true : i1
// CHECK: %[[RUNS:.*]] = arith.ori %[[FIRST]], %[[TWO]] : i1
// CHECK: scf.if %[[RUNS]] -> (index, index) {
// CHECK: arith.remui %[[UNIT]], %c16{{.*}} : index
// CHECK: arith.divui %[[UNIT]], %c16{{.*}} : index
// CHECK: arith.muli %[[TILE]], %c128{{.*}} : index
func.func @causal(%q: tensor<?x16x?x128xbf16>, %k: tensor<?x16x?x128xbf16>) -> tensor<?x16x?x128xbf16> {
  %o = attn.attention %q, %k, %k mask(#attn.causal) : tensor<?x16x?x128xbf16>, tensor<?x16x?x128xbf16>, tensor<?x16x?x128xbf16> -> tensor<?x16x?x128xbf16>
  return %o : tensor<?x16x?x128xbf16>
}

// -----

// cu_seqlens documents: pairs too. The producer, which scans cu_seqlens for
// each item's key tiles, keeps 56 registers (with 40 it spilled 32 bytes),
// the two consumer warpgroups 224.
// CHECK-LABEL: gpu.func @attnc_attention(
// CHECK-DAG: nvvm.setmaxregister  decrease 56
// CHECK-DAG: nvvm.setmaxregister  increase 224
// CHECK: %[[T:.*]] = arith.ceildivui %{{.*}}, %c128 : index
// CHECK: %[[HALVES:.*]] = arith.ceildivui %[[T]], %c2 : index
// CHECK: scf.for
// CHECK: arith.remui %{{.*}}, %[[HALVES]] : index
func.func @documents(%q: tensor<?x16x?x128xbf16>, %k: tensor<?x16x?x128xbf16>, %cu: tensor<?xi32>) -> tensor<?x16x?x128xbf16> {
  %o = attn.attention %q, %k, %k cu_seqlens(%cu : tensor<?xi32>) mask(#attn.document<cu_seqlens, causal>) : tensor<?x16x?x128xbf16>, tensor<?x16x?x128xbf16>, tensor<?x16x?x128xbf16> -> tensor<?x16x?x128xbf16>
  return %o : tensor<?x16x?x128xbf16>
}

// -----

// Tiles of equal cost (no mask, D = 128): block l takes the items
// l, l + B, ... of the T * H * batch, query tiles fastest, each unit's last
// first; no pairs. The count mod B items of the last, part-filled wave
// (tail items) follow the whole items as num_splits items each (split j of
// tail item u is item start + u * splits + j, start = count - tail), so the
// loop runs to count + (splits - 1) * tail; an item's whole item, split and
// query tile come in 32 bits from copies of the launch's values.
// CHECK-LABEL: gpu.func @attnc_attention(
// CHECK: nvvm.setmaxregister  increase
// CHECK: %[[L:.*]] = arith.addi %block_id_x, %{{.*}} : index
// CHECK: %[[BLOCKS:.*]] = arith.muli %{{.*}}, %grid_dim_z : index
// CHECK: %[[T:.*]] = arith.ceildivui %{{.*}}, %c128 : index
// CHECK-NOT: arith.ceildivui %[[T]], %c2
// CHECK: %[[PER:.*]] = arith.muli %[[T]], %c4 : index
// CHECK: %[[COUNT:.*]] = arith.muli %[[PER]], %{{.*}} : index
// CHECK: %[[SPLITS:.*]] = arith.maxsi %{{.*}}, %c1 : index
// CHECK: %[[TAIL:.*]] = arith.remui %[[COUNT]], %[[BLOCKS]] : index
// CHECK: %[[MORE:.*]] = arith.subi %[[SPLITS]], %c1{{.*}} : index
// CHECK: %[[EXTRA:.*]] = arith.muli %[[MORE]], %[[TAIL]] : index
// CHECK: %[[END:.*]] = arith.addi %[[COUNT]], %[[EXTRA]] : index
// CHECK: scf.for %[[I:.*]] = %[[L]] to %[[END]] step %[[BLOCKS]] iter_args
// CHECK-NOT: scf.if
// CHECK: %[[T32:.*]] = arith.trunci %{{.*}} : i64 to i32
// CHECK: %[[PER32:.*]] = arith.muli %[[T32]], %c4_i32 : i32
// CHECK: %[[COUNT32:.*]] = arith.muli %[[PER32]], %{{.*}} : i32
// CHECK: %[[S32:.*]] = arith.maxsi %{{.*}}, %c1_i32 : i32
// CHECK: %[[TAIL32:.*]] = arith.remui %[[COUNT32]], %{{.*}} : i32
// CHECK: %[[START:.*]] = arith.subi %[[COUNT32]], %[[TAIL32]] : i32
// CHECK: %[[I32:.*]] = arith.index_castui %{{.*}} : index to i32
// CHECK: %[[IS_TAIL:.*]] = arith.cmpi uge, %[[I32]], %[[START]] : i32
// CHECK: %[[U0:.*]] = arith.select %[[IS_TAIL]], %[[I32]], %[[START]] : i32
// CHECK: %[[U:.*]] = arith.subi %[[U0]], %[[START]] : i32
// CHECK: %[[ITEM:.*]] = arith.divui %[[U]], %[[S32]] : i32
// CHECK: %[[SPLIT:.*]] = arith.remui %[[U]], %[[S32]] : i32
// CHECK: %[[ITS_SPLITS:.*]] = arith.select %[[IS_TAIL]], %[[S32]], %c1_i32{{.*}} : i32
// CHECK: %[[FROM_TAIL:.*]] = arith.addi %[[START]], %[[ITEM]] : i32
// CHECK: %[[WHOLE:.*]] = arith.select %[[IS_TAIL]], %[[FROM_TAIL]], %[[I32]] : i32
// CHECK: %[[UNIT:.*]] = arith.divui %[[WHOLE]], %[[T32]] : i32
// CHECK: %[[BACK:.*]] = arith.remui %[[WHOLE]], %[[T32]] : i32
// CHECK: %[[LAST:.*]] = arith.subi %[[T32]], %c1_i32{{.*}} : i32
// CHECK: %[[TILE:.*]] = arith.subi %[[LAST]], %[[BACK]] : i32
func.func @none(%q: tensor<?x4x?x128xbf16>) -> tensor<?x4x?x128xbf16> {
  %o = attn.attention %q, %q, %q : tensor<?x4x?x128xbf16>, tensor<?x4x?x128xbf16>, tensor<?x4x?x128xbf16> -> tensor<?x4x?x128xbf16>
  return %o : tensor<?x4x?x128xbf16>
}

// -----

// A sliding window of 1024 keys: the first S = ceil((1023 - (Sk - Sq)) /
// 128) query tiles of a unit (clamped to [0, T]) hold fewer key tiles.
// Items: every unit's T - S full tiles first (unit by unit, each unit's last
// first), then the short tiles, tile S - 1 of every unit first; round r
// gives item r B + l to block l, or r B + B - 1 - l in an odd round (a
// snake). A block runs every full round and the last, part-filled one
// where its place is below the items left; the query tile and the unit
// come in 32 bits from copies of T, Sk - Sq and the batch that LLVM cannot
// hoist out of the loop; the producer keeps 40 registers.
// CHECK-LABEL: gpu.func @attnc_attention(
// CHECK-DAG: nvvm.setmaxregister  decrease 40
// CHECK-DAG: nvvm.setmaxregister  increase 232
// CHECK: %[[L:.*]] = arith.addi %block_id_x, %{{.*}} : index
// CHECK: %[[BLOCKS:.*]] = arith.muli %{{.*}}, %grid_dim_z : index
// CHECK: %[[T:.*]] = arith.ceildivui %{{.*}}, %c128 : index
// CHECK: %[[PERBATCH:.*]] = arith.muli %[[T]], %c4 : index
// CHECK: %[[COUNT:.*]] = arith.muli %[[PERBATCH]], %{{.*}} : index
// CHECK: %[[FULLR:.*]] = arith.divui %[[COUNT]], %[[BLOCKS]] : index
// CHECK: %[[LEFT:.*]] = arith.remui %[[COUNT]], %[[BLOCKS]] : index
// CHECK: %[[FPAR:.*]] = arith.remui %[[FULLR]], %c2 : index
// CHECK: %[[LASTODD:.*]] = arith.cmpi eq, %[[FPAR]], %c1 : index
// CHECK: %[[LOWPLACE:.*]] = arith.cmpi ult, %[[L]], %[[LEFT]] : index
// CHECK: %[[FROM:.*]] = arith.subi %[[BLOCKS]], %[[LEFT]] : index
// CHECK: %[[HIGHPLACE:.*]] = arith.cmpi uge, %[[L]], %[[FROM]] : index
// CHECK: %[[INLAST:.*]] = arith.select %[[LASTODD]], %[[HIGHPLACE]], %[[LOWPLACE]] : i1
// CHECK: %[[EXTRA:.*]] = arith.select %[[INLAST]], %c1{{.*}}, %c0{{.*}} : index
// CHECK: %[[ROUNDS:.*]] = arith.addi %[[FULLR]], %[[EXTRA]] : index
// CHECK: scf.for %[[R:.*]] = %{{.*}} to %[[ROUNDS]] step %c1{{.*}} iter_args
// CHECK: %[[PARITY:.*]] = arith.remui %[[R]], %c2{{.*}} : index
// CHECK: %[[ODD:.*]] = arith.cmpi eq, %[[PARITY]], %c1{{.*}} : index
// CHECK: %[[LASTB:.*]] = arith.subi %[[BLOCKS]], %c1{{.*}} : index
// CHECK: %[[REV:.*]] = arith.subi %[[LASTB]], %[[L]] : index
// CHECK: %[[POS:.*]] = arith.select %[[ODD]], %[[REV]], %[[L]] : index
// CHECK: %[[ROUNDSTART:.*]] = arith.muli %[[R]], %[[BLOCKS]] : index
// CHECK: %[[ITEM:.*]] = arith.addi %[[ROUNDSTART]], %[[POS]] : index
// CHECK: llvm.inline_asm has_side_effects {{.*}}"mov.b64 $0, $1;"
// CHECK: %[[OFFSET:.*]] = arith.subi %{{.*}}, %{{.*}} : index
// CHECK: llvm.inline_asm has_side_effects {{.*}}"mov.b64 $0, $1;"
// CHECK: %[[REACH:.*]] = arith.subi %c1023, %{{.*}} : index
// CHECK: %[[SHORT0:.*]] = arith.ceildivsi %[[REACH]], %c128{{.*}} : index
// CHECK: %[[SHORT1:.*]] = arith.maxsi %[[SHORT0]], %c0{{.*}} : index
// CHECK: %[[SHORT:.*]] = arith.minsi %[[SHORT1]], %{{.*}} : index
// CHECK: %[[ITEM32:.*]] = arith.index_castui %[[ITEM]] : index to i32
// CHECK: %[[T32:.*]] = arith.index_castui %{{.*}} : index to i32
// CHECK: %[[SHORT32:.*]] = arith.index_castui %[[SHORT]] : index to i32
// CHECK: %[[UNITS32:.*]] = arith.index_castui %{{.*}} : index to i32
// CHECK: %[[FULL:.*]] = arith.subi %[[T32]], %[[SHORT32]] : i32
// CHECK: %[[FULLDIV:.*]] = arith.maxui %[[FULL]], %c1_i32 : i32
// CHECK: %[[FULLITEMS:.*]] = arith.muli %[[FULL]], %[[UNITS32]] : i32
// CHECK: %[[ISFULL:.*]] = arith.cmpi ult, %[[ITEM32]], %[[FULLITEMS]] : i32
// CHECK: %[[J0:.*]] = arith.select %[[ISFULL]], %[[FULLITEMS]], %[[ITEM32]] : i32
// CHECK: %[[J:.*]] = arith.subi %[[J0]], %[[FULLITEMS]] : i32
// CHECK: %[[JROW:.*]] = arith.divui %[[J]], %[[UNITS32]] : i32
// CHECK: %[[SHORTBACK:.*]] = arith.addi %[[FULL]], %[[JROW]] : i32
// CHECK: %[[FULLBACK:.*]] = arith.remui %[[ITEM32]], %[[FULLDIV]] : i32
// CHECK: %[[BACK:.*]] = arith.select %[[ISFULL]], %[[FULLBACK]], %[[SHORTBACK]] : i32
// CHECK: %[[SHORTUNIT:.*]] = arith.remui %[[J]], %[[UNITS32]] : i32
// CHECK: %[[FULLUNIT:.*]] = arith.divui %[[ITEM32]], %[[FULLDIV]] : i32
// CHECK: %[[UNIT:.*]] = arith.select %[[ISFULL]], %[[FULLUNIT]], %[[SHORTUNIT]] : i32
// CHECK: %[[TLAST:.*]] = arith.subi %[[T32]], %c1_i32{{.*}} : i32
// CHECK: %[[TILE32:.*]] = arith.subi %[[TLAST]], %[[BACK]] : i32
// CHECK: %[[TILE:.*]] = arith.index_castui %[[TILE32]] : i32 to index
// CHECK: %[[UNITX:.*]] = arith.index_castui %[[UNIT]] : i32 to index
// CHECK-NOT: scf.if
// CHECK: arith.remui %[[UNITX]], %c4{{.*}} : index
// CHECK: arith.divui %[[UNITX]], %c4{{.*}} : index
// CHECK: arith.muli %[[TILE]], %c128{{.*}} : index
func.func @window(%q: tensor<?x4x?x128xbf16>) -> tensor<?x4x?x128xbf16> {
  %o = attn.attention %q, %q, %q mask(#attn.sliding_window<left = 1023, right = 0>) : tensor<?x4x?x128xbf16>, tensor<?x4x?x128xbf16>, tensor<?x4x?x128xbf16> -> tensor<?x4x?x128xbf16>
  return %o : tensor<?x4x?x128xbf16>
}
