// One value passed as q, k and v (self-attention on one tensor): the
// reference sees the same values in all three, so the run passes.
// RUN: attnc-run %s --sizes="sq=20" 2>&1 | FileCheck %s
// CHECK: PASS
func.func @attention(%q: tensor<1x2x?x16xf32>) -> tensor<1x2x?x16xf32> {
  %o = attn.attention %q, %q, %q : tensor<1x2x?x16xf32>, tensor<1x2x?x16xf32>, tensor<1x2x?x16xf32> -> tensor<1x2x?x16xf32>
  return %o : tensor<1x2x?x16xf32>
}
