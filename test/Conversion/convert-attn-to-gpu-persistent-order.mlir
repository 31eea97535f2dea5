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

// Tiles of equal cost (no mask, D = 128): block l of B takes its whole
// items l, l + B, ... of the N = T * H * batch (query tiles fastest, each
// unit's last first; no pairs) below the tail's start, then its segments
// of the balanced tail: with num_splits >= 2 the N mod B items of the last,
// part-filled wave (the tail) have their W = (N mod B) * C key tiles dealt
// to the blocks in equal contiguous shares, block l's being tiles
// [l W / B, (l + 1) W / B), one or two items' worth. All in 32 bits from
// copies of the launch's values, made again in each item: the loop runs
// to the whole items plus the segments, and item x is whole item l + x B
// or tail item first / C + (x - whole items), its tiles clamped to the
// share.
// CHECK-LABEL: gpu.func @attnc_attention(
// CHECK: nvvm.setmaxregister  increase
// CHECK: %[[GXY:.*]] = arith.muli %{{.*}}, %{{.*}} : i32
// CHECK-NEXT: %[[B:.*]] = arith.muli %[[GXY]], %{{.*}} : i32
// CHECK: arith.addi %{{.*}}, %{{.*}} : i32
// CHECK: %[[L:.*]] = arith.addi %{{.*}}, %{{.*}} : i32
// CHECK: %[[T64:.*]] = arith.ceildivui %{{.*}}, %c128_i64 : i64
// CHECK: %[[T:.*]] = arith.trunci %[[T64]] : i64 to i32
// CHECK: %[[PER:.*]] = arith.muli %[[T]], %c4_i32 : i32
// CHECK: %[[N:.*]] = arith.muli %[[PER]], %{{.*}} : i32
// CHECK: %[[C64:.*]] = arith.ceildivui %{{.*}}, %c160_i64 : i64
// CHECK: %[[C:.*]] = arith.trunci %[[C64]] : i64 to i32
// CHECK: %[[BALANCED:.*]] = arith.cmpi sge, %{{.*}}, %c2_i32 : i32
// CHECK: %[[REM:.*]] = arith.remui %[[N]], %[[B]] : i32
// CHECK: %[[TAIL:.*]] = arith.select %[[BALANCED]], %[[REM]], %c0_i32 : i32
// CHECK: %[[START:.*]] = arith.subi %[[N]], %[[TAIL]] : i32
// CHECK: %[[BM1:.*]] = arith.subi %[[B]], %c1_i32 : i32
// CHECK: %[[AHEAD:.*]] = arith.subi %[[START]], %[[L]] : i32
// CHECK: %[[UP:.*]] = arith.addi %[[AHEAD]], %[[BM1]] : i32
// CHECK: %[[MINE:.*]] = arith.divui %[[UP]], %[[B]] : i32
// CHECK: %[[ANY:.*]] = arith.cmpi ugt, %[[START]], %[[L]] : i32
// CHECK: %[[WHOLE:.*]] = arith.select %[[ANY]], %[[MINE]], %c0_i32{{.*}} : i32
// CHECK: %[[W:.*]] = arith.muli %[[TAIL]], %[[C]] : i32
// CHECK: %[[LW:.*]] = arith.muli %[[L]], %[[W]] : i32
// CHECK: %[[FIRST:.*]] = arith.divui %[[LW]], %[[B]] : i32
// CHECK: %[[L1:.*]] = arith.addi %[[L]], %c1_i32{{.*}} : i32
// CHECK: %[[L1W:.*]] = arith.muli %[[L1]], %[[W]] : i32
// CHECK: %[[LAST:.*]] = arith.divui %[[L1W]], %[[B]] : i32
// CHECK: %[[FIRST_ITEM:.*]] = arith.divui %[[FIRST]], %[[C]] : i32
// CHECK: %[[LAST_TILE:.*]] = arith.subi %[[LAST]], %c1_i32{{.*}} : i32
// CHECK: %[[LAST_ITEM:.*]] = arith.divui %[[LAST_TILE]], %[[C]] : i32
// CHECK: %[[SPAN:.*]] = arith.subi %[[LAST_ITEM]], %[[FIRST_ITEM]] : i32
// CHECK: %[[SEGS:.*]] = arith.addi %[[SPAN]], %c1_i32{{.*}} : i32
// CHECK: %[[SOME:.*]] = arith.cmpi ugt, %[[LAST]], %[[FIRST]] : i32
// CHECK: %[[SEGMENTS:.*]] = arith.select %[[SOME]], %[[SEGS]], %c0_i32{{.*}} : i32
// CHECK: %[[ITERS:.*]] = arith.addi %[[WHOLE]], %[[SEGMENTS]] : i32
// CHECK: %[[END:.*]] = arith.index_castui %[[ITERS]] : i32 to index
// CHECK: scf.for %[[I:.*]] = %c0{{.*}} to %[[END]] step %c1 iter_args
// CHECK-NOT: scf.if
// The item's own copies (the same arithmetic), then its decoding:
// CHECK: %[[GXY2:.*]] = arith.muli %{{.*}}, %{{.*}} : i32
// CHECK-NEXT: %[[B2:.*]] = arith.muli %[[GXY2]], %{{.*}} : i32
// CHECK: arith.addi %{{.*}}, %{{.*}} : i32
// CHECK: %[[L2:.*]] = arith.addi %{{.*}}, %{{.*}} : i32
// CHECK: %[[C2_64:.*]] = arith.ceildivui %{{.*}}, %c160_i64{{.*}} : i64
// CHECK: %[[C2:.*]] = arith.trunci %[[C2_64]] : i64 to i32
// CHECK: %[[START2:.*]] = arith.subi %{{.*}}, %{{.*}} : i32
// CHECK: %[[WHOLE2:.*]] = arith.select %{{.*}}, %{{.*}}, %c0_i32{{.*}} : i32
// CHECK: %[[FIRST2:.*]] = arith.divui %{{.*}}, %[[B2]] : i32
// CHECK: %[[LAST2:.*]] = arith.divui %{{.*}}, %[[B2]] : i32
// CHECK: %[[X:.*]] = arith.index_castui %{{.*}} : index to i32
// CHECK: %[[IS_TAIL:.*]] = arith.cmpi uge, %[[X]], %[[WHOLE2]] : i32
// CHECK: %[[K:.*]] = arith.subi %[[X]], %[[WHOLE2]] : i32
// CHECK: %[[SEG:.*]] = arith.select %[[IS_TAIL]], %[[K]], %c0_i32{{.*}} : i32
// CHECK: %[[FI:.*]] = arith.divui %[[FIRST2]], %[[C2]] : i32
// CHECK: %[[U:.*]] = arith.addi %[[FI]], %[[SEG]] : i32
// CHECK: %[[U0:.*]] = arith.muli %[[U]], %[[C2]] : i32
// CHECK: %[[LO_AT:.*]] = arith.maxui %[[FIRST2]], %[[U0]] : i32
// CHECK: arith.subi %[[LO_AT]], %[[U0]] : i32
// CHECK: %[[U1:.*]] = arith.addi %[[U0]], %[[C2]] : i32
// CHECK: %[[HI_AT:.*]] = arith.minui %[[LAST2]], %[[U1]] : i32
// CHECK: arith.subi %[[HI_AT]], %[[U0]] : i32
// CHECK: %[[XB:.*]] = arith.muli %[[X]], %[[B2]] : i32
// CHECK: %[[AS_WHOLE:.*]] = arith.addi %[[L2]], %[[XB]] : i32
// CHECK: %[[AS_TAIL:.*]] = arith.addi %[[START2]], %[[U]] : i32
// CHECK: %[[ITEM:.*]] = arith.select %[[IS_TAIL]], %[[AS_TAIL]], %[[AS_WHOLE]] : i32
// CHECK: %[[T2_64:.*]] = arith.ceildivui %{{.*}}, %c128_i64{{.*}} : i64
// CHECK: %[[T2:.*]] = arith.trunci %[[T2_64]] : i64 to i32
// CHECK: %[[UNIT:.*]] = arith.divui %[[ITEM]], %[[T2]] : i32
// CHECK: %[[BACK:.*]] = arith.remui %[[ITEM]], %[[T2]] : i32
// CHECK: %[[LASTQ:.*]] = arith.subi %[[T2]], %c1_i32{{.*}} : i32
// CHECK: %[[TILE:.*]] = arith.subi %[[LASTQ]], %[[BACK]] : i32
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
