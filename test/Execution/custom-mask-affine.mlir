// An affine mask_fn (a causal band of 20 keys or one of the first 5 keys)
// is classified at each tile's corners: empty tiles are skipped and full
// ones run unmasked, and the result still matches float64.
// RUN: attnc-run %s --sizes="b=1 sq=150 sk=170" --block-q=16 --block-k=8 --seed=4 2>&1 | FileCheck %s
// RUN: attnc compile %s --emit=tiled 2>&1 | FileCheck %s --check-prefix=TILED
// CHECK: remark: attn-skip-masked-tiles: mask mask_fn region: affine mask_fn, tiles classified at their corners
// CHECK: PASS
// TILED: scf.if
// TILED: attn.tile_step
// TILED: unmasked}

func.func @attention(%q: tensor<?x2x?x32xf32>, %k: tensor<?x2x?x32xf32>, %v: tensor<?x2x?x32xf32>) -> (tensor<?x2x?x32xf32>, tensor<?x2x?xf32>) {
  %o, %lse = attn.attention %q, %k, %v mask_fn {
  ^bb0(%b: index, %h: index, %i: index, %j: index):
    %c20 = arith.constant 20 : index
    %c5 = arith.constant 5 : index
    %c20p = arith.addi %j, %c20 : index
    %notfuture = arith.cmpi sle, %j, %i : index
    %recent = arith.cmpi slt, %i, %c20p : index
    %band = arith.andi %notfuture, %recent : i1
    %sink = arith.cmpi slt, %j, %c5 : index
    %vis = arith.ori %band, %sink : i1
    attn.yield %vis : i1
  } : tensor<?x2x?x32xf32>, tensor<?x2x?x32xf32>, tensor<?x2x?x32xf32> -> tensor<?x2x?x32xf32>, tensor<?x2x?xf32>
  return %o, %lse : tensor<?x2x?x32xf32>, tensor<?x2x?xf32>
}
