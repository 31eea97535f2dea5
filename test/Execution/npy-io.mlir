// Inputs read from .npy files (float64 here, rounded to f16 before the run),
// outputs written as float32 .npy; one compile serves two lengths.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/make_npy.py %t 1 2 40 37 16
// RUN: attnc-run %s --inputs=%t/q.npy,%t/k.npy,%t/v.npy --output=%t/o.npy --lse=%t/lse.npy | FileCheck %s
// RUN: %python %S/Inputs/check_npy.py %t/o.npy 1,2,40,16 %t/lse.npy 1,2,40 | FileCheck %s --check-prefix=FILES
// RUN: %python %S/Inputs/make_npy.py %t 2 2 5 300 16
// RUN: attnc-run %s --inputs=%t/q.npy,%t/k.npy,%t/v.npy | FileCheck %s
// CHECK: PASS
// FILES: o.npy float32 (1, 2, 40, 16) finite
// FILES: lse.npy float32 (1, 2, 40) finite

func.func @attention(%q: tensor<?x2x?x16xf16>, %k: tensor<?x2x?x16xf16>, %v: tensor<?x2x?x16xf16>) -> (tensor<?x2x?x16xf16>, tensor<?x2x?xf32>) {
  %o, %lse = attn.attention %q, %k, %v mask(#attn.causal) : tensor<?x2x?x16xf16>, tensor<?x2x?x16xf16>, tensor<?x2x?x16xf16> -> tensor<?x2x?x16xf16>, tensor<?x2x?xf32>
  return %o, %lse : tensor<?x2x?x16xf16>, tensor<?x2x?xf32>
}
