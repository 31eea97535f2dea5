// Custom score checked on the GPU by bench/custom_check.py: a sliding
// window of +-40 keys, soft-capped at 15, minus 0.05 * |i - j|.
func.func @attention(%q: tensor<?x4x?x128xbf16>, %k: tensor<?x4x?x128xbf16>, %v: tensor<?x4x?x128xbf16>) -> (tensor<?x4x?x128xbf16>, tensor<?x4x?xf32>) {
  %o, %lse = attn.attention %q, %k, %v mask(#attn.sliding_window<left = 40, right = 40>) softcap = 15.0 score_fn {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
    %d = arith.subi %i, %j : index
    %d64 = arith.index_cast %d : index to i64
    %df = arith.sitofp %d64 : i64 to f32
    %ad = math.absf %df : f32
    %w = arith.constant 0.05 : f32
    %pen = arith.mulf %ad, %w : f32
    %r = arith.subf %s, %pen : f32
    attn.yield %r : f32
  } : tensor<?x4x?x128xbf16>, tensor<?x4x?x128xbf16>, tensor<?x4x?x128xbf16> -> tensor<?x4x?x128xbf16>, tensor<?x4x?xf32>
  return %o, %lse : tensor<?x4x?x128xbf16>, tensor<?x4x?xf32>
}
