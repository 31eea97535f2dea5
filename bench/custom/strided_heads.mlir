// Custom mask checked on the GPU by bench/custom_check.py: head 0 causal,
// other heads causal over even keys only (not affine: element-wise).
func.func @attention(%q: tensor<?x4x?x64xf16>, %k: tensor<?x2x?x64xf16>, %v: tensor<?x2x?x64xf16>) -> (tensor<?x4x?x64xf16>, tensor<?x4x?xf32>) {
  %o, %lse = attn.attention %q, %k, %v mask_fn {
  ^bb0(%b: index, %h: index, %i: index, %j: index):
    %c2 = arith.constant 2 : index
    %c0 = arith.constant 0 : index
    %causal = arith.cmpi ule, %j, %i : index
    %rem = arith.remui %j, %c2 : index
    %even = arith.cmpi eq, %rem, %c0 : index
    %h0 = arith.cmpi eq, %h, %c0 : index
    %pick = arith.ori %h0, %even : i1
    %vis = arith.andi %causal, %pick : i1
    attn.yield %vis : i1
  } : tensor<?x4x?x64xf16>, tensor<?x2x?x64xf16>, tensor<?x2x?x64xf16> -> tensor<?x4x?x64xf16>, tensor<?x4x?xf32>
  return %o, %lse : tensor<?x4x?x64xf16>, tensor<?x4x?xf32>
}
