// Custom mask checked on the GPU by bench/custom_check.py: a causal band of
// 20 keys plus the first 5 keys (affine: tiles classified at their corners).
func.func @attention(%q: tensor<?x4x?x64xbf16>, %k: tensor<?x2x?x64xbf16>, %v: tensor<?x2x?x64xbf16>) -> (tensor<?x4x?x64xbf16>, tensor<?x4x?xf32>) {
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
  } : tensor<?x4x?x64xbf16>, tensor<?x2x?x64xbf16>, tensor<?x2x?x64xbf16> -> tensor<?x4x?x64xbf16>, tensor<?x4x?xf32>
  return %o, %lse : tensor<?x4x?x64xbf16>, tensor<?x4x?xf32>
}
