// A custom score region (here a distance penalty that grows with |i - j|)
// combined with soft-capping and a sliding window, in bf16.
// RUN: attnc-run %s --sizes="b=1 sq=150 sk=150" --seed=2 | FileCheck %s
// CHECK: PASS

func.func @attention(%q: tensor<?x4x?x64xbf16>, %k: tensor<?x2x?x64xbf16>, %v: tensor<?x2x?x64xbf16>) -> tensor<?x4x?x64xbf16> {
  %o = attn.attention %q, %k, %v mask(#attn.sliding_window<left = 40, right = 40>) softcap = 15.0 score_fn {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
    %d = arith.subi %i, %j : index
    %d64 = arith.index_cast %d : index to i64
    %df = arith.sitofp %d64 : i64 to f32
    %ad = math.absf %df : f32
    %w = arith.constant 0.05 : f32
    %pen = arith.mulf %ad, %w : f32
    %r = arith.subf %s, %pen : f32
    attn.yield %r : f32
  } : tensor<?x4x?x64xbf16>, tensor<?x2x?x64xbf16>, tensor<?x2x?x64xbf16> -> tensor<?x4x?x64xbf16>
  return %o : tensor<?x4x?x64xbf16>
}
