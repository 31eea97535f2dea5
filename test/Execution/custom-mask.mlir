// A custom mask region runs on the CPU and matches the float64 reference,
// which evaluates the same region compiled as a host function.
// RUN: attnc-run %s --sizes="b=2 sq=100 sk=90" --seed=5 | FileCheck %s
// RUN: attnc-run %s --sizes="b=1 sq=33 sk=200" --block-q=16 --block-k=16 --seed=6 | FileCheck %s
// CHECK: output: max abs error
// CHECK: lse:
// CHECK: PASS

// A strided causal pattern that also depends on the head: head 0 sees keys
// j <= i, head 1 only every other key j <= i.
func.func @attention(%q: tensor<?x2x?x32xf32>, %k: tensor<?x1x?x32xf32>, %v: tensor<?x1x?x32xf32>) -> (tensor<?x2x?x32xf32>, tensor<?x2x?xf32>) {
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
  } : tensor<?x2x?x32xf32>, tensor<?x1x?x32xf32>, tensor<?x1x?x32xf32> -> tensor<?x2x?x32xf32>, tensor<?x2x?xf32>
  return %o, %lse : tensor<?x2x?x32xf32>, tensor<?x2x?xf32>
}
