// Per-sequence KV lengths given as a file: the fourth --inputs file after q,
// k, v (no mask operand here); lengths outside [0, sk] are refused.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/make_npy.py %t 2 2 3 50 16
// RUN: %python -c "import numpy as np; np.save('%t/lens.npy', np.array([50, 7], dtype=np.int32)); np.save('%t/zero.npy', np.array([0, 1], dtype=np.int32)); np.save('%t/bad.npy', np.array([-5, 7], dtype=np.int32))"
// RUN: attnc-run %s --inputs=%t/q.npy,%t/k.npy,%t/v.npy,%t/lens.npy | FileCheck %s
// RUN: attnc-run %s --inputs=%t/q.npy,%t/k.npy,%t/v.npy,%t/zero.npy | FileCheck %s
// RUN: not attnc-run %s --inputs=%t/q.npy,%t/k.npy,%t/v.npy,%t/bad.npy 2>&1 | FileCheck %s --check-prefix=BAD
// CHECK: attnc-run: b=2 hq=2 hkv=2 sq=3 sk=50 d=16 {{.*}} kv_lens=1
// CHECK: PASS
// BAD: expected kv_lens values that are integers in [0, sk]
func.func @attention(%q: tensor<2x2x?x16xbf16>, %k: tensor<2x2x?x16xbf16>, %v: tensor<2x2x?x16xbf16>, %l: tensor<2xi32>) -> (tensor<2x2x?x16xbf16>, tensor<2x2x?xf32>) {
  %o, %lse = attn.attention %q, %k, %v kv_lens(%l : tensor<2xi32>) mask(#attn.causal) : tensor<2x2x?x16xbf16>, tensor<2x2x?x16xbf16>, tensor<2x2x?x16xbf16> -> tensor<2x2x?x16xbf16>, tensor<2x2x?xf32>
  return %o, %lse : tensor<2x2x?x16xbf16>, tensor<2x2x?xf32>
}
