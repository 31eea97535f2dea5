// The attention of a GQA decoder layer: 8 query heads over 2 key/value
// heads, head dim 64, bf16, causal (bottom-right aligned), logits soft-capped
// at 30, with the log-sum-exp. Batch and lengths are dynamic, so one compile
// serves every length.
//
//   attnc compile examples/causal_gqa_softcap.mlir --emit=tiled
//   attnc-run examples/causal_gqa_softcap.mlir --sizes="b=2 sq=300 sk=300"
func.func @attention(%q: tensor<?x8x?x64xbf16>, %k: tensor<?x2x?x64xbf16>,
                     %v: tensor<?x2x?x64xbf16>)
    -> (tensor<?x8x?x64xbf16>, tensor<?x8x?xf32>) {
  %o, %lse = attn.attention %q, %k, %v mask(#attn.causal) softcap = 30.0
      : tensor<?x8x?x64xbf16>, tensor<?x2x?x64xbf16>, tensor<?x2x?x64xbf16>
      -> tensor<?x8x?x64xbf16>, tensor<?x8x?xf32>
  return %o, %lse : tensor<?x8x?x64xbf16>, tensor<?x8x?xf32>
}
