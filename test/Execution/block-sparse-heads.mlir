// A block mask with a head dimension: attnc-run generates one of that shape
// (different random blocks for every head).
// RUN: attnc-run %s --sizes="b=1 sq=64 sk=70" --seed=2 2>&1 | FileCheck %s
// CHECK: PASS
// A block mask file must have the heads the IR fixes.
// RUN: rm -rf %t && mkdir -p %t && %python %S/Inputs/make_block_mask_npy.py %t
// RUN: attnc-run %s --inputs=%t/q.npy,%t/k.npy,%t/v.npy,%t/bm14.npy 2>&1 | FileCheck %s
// RUN: sh -c 'attnc-run %s --inputs=%t/q.npy,%t/k.npy,%t/v.npy,%t/bm11.npy 2>&1; echo "exit $?"' | FileCheck %s --check-prefix=HEADS
// HEADS: attnc-run: error: the IR's block_mask has head count 4
// HEADS: exit 2

func.func @attention(%q: tensor<?x4x?x32xf32>, %k: tensor<?x4x?x32xf32>, %v: tensor<?x4x?x32xf32>, %bm: tensor<1x4x?x?xi8>) -> tensor<?x4x?x32xf32> {
  %o = attn.attention %q, %k, %v block_mask(%bm : tensor<1x4x?x?xi8>) mask(#attn.block_sparse<block_q = 16, block_k = 16>) : tensor<?x4x?x32xf32>, tensor<?x4x?x32xf32>, tensor<?x4x?x32xf32> -> tensor<?x4x?x32xf32>
  return %o : tensor<?x4x?x32xf32>
}
