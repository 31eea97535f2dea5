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

// Tiles of about equal cost (a window of 1024 keys): block l takes the items
// l, l + B, ... of the T * H * batch, query tiles fastest, each unit's last
// first; no pairs.
// CHECK-LABEL: gpu.func @attnc_attention(
// CHECK: nvvm.setmaxregister  increase
// CHECK: %[[L:.*]] = arith.addi %block_id_x, %{{.*}} : index
// CHECK: %[[BLOCKS:.*]] = arith.muli %{{.*}}, %grid_dim_z : index
// CHECK: %[[T:.*]] = arith.ceildivui %{{.*}}, %c128 : index
// CHECK-NOT: arith.ceildivui %[[T]], %c2
// CHECK: scf.for %[[I:.*]] = %[[L]] to %{{.*}} step %[[BLOCKS]] iter_args
// CHECK-NOT: scf.if
// CHECK: %[[BACK:.*]] = arith.remui %[[I]], %[[T]] : index
// CHECK: %[[LAST:.*]] = arith.subi %[[T]], %c1{{.*}} : index
// CHECK: %[[TILE:.*]] = arith.subi %[[LAST]], %[[BACK]] : index
// CHECK: %[[UNIT:.*]] = arith.divui %[[I]], %[[T]] : index
// CHECK: arith.muli %[[TILE]], %c128{{.*}} : index
func.func @window(%q: tensor<?x4x?x128xbf16>) -> tensor<?x4x?x128xbf16> {
  %o = attn.attention %q, %q, %q mask(#attn.sliding_window<left = 1023, right = 0>) : tensor<?x4x?x128xbf16>, tensor<?x4x?x128xbf16>, tensor<?x4x?x128xbf16> -> tensor<?x4x?x128xbf16>
  return %o : tensor<?x4x?x128xbf16>
}
