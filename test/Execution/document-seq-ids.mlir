// A seq_ids document mask (ids generated from documents of about a third,
// a quarter and the rest of the keys) with run-time id-range tile tests.
// RUN: attnc-run %s --sizes="b=2 sq=200 sk=200" --block-q=16 --block-k=16 --seed=8 2>&1 | FileCheck %s
// RUN: attnc-run %s --sizes="b=1 sq=37 sk=120" --block-q=8 --block-k=8 --seed=9 2>&1 | FileCheck %s
// CHECK: remark: attn-skip-masked-tiles: mask #attn.document<seq_ids, causal>: run-time document id ranges
// CHECK: PASS

func.func @attention(%q: tensor<?x4x?x64xbf16>, %k: tensor<?x2x?x64xbf16>, %v: tensor<?x2x?x64xbf16>, %ids: tensor<?x?xi32>) -> (tensor<?x4x?x64xbf16>, tensor<?x4x?xf32>) {
  %o, %lse = attn.attention %q, %k, %v seq_ids(%ids : tensor<?x?xi32>) mask(#attn.document<seq_ids, causal>) : tensor<?x4x?x64xbf16>, tensor<?x2x?x64xbf16>, tensor<?x2x?x64xbf16> -> tensor<?x4x?x64xbf16>, tensor<?x4x?xf32>
  return %o, %lse : tensor<?x4x?x64xbf16>, tensor<?x4x?xf32>
}
