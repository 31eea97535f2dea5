// Operand-driven features checked on the GPU by bench/custom_check.py: a
// causal seq_ids document mask (negative ids: outside every document) and
// ALiBi slopes given as an operand.
func.func @attention(%q: tensor<?x4x?x64xbf16>, %k: tensor<?x2x?x64xbf16>, %v: tensor<?x2x?x64xbf16>, %ids: tensor<?x?xi32>, %slopes: tensor<4xf32>) -> (tensor<?x4x?x64xbf16>, tensor<?x4x?xf32>) {
  %o, %lse = attn.attention %q, %k, %v seq_ids(%ids : tensor<?x?xi32>) alibi_slopes(%slopes : tensor<4xf32>) mask(#attn.document<seq_ids, causal>) : tensor<?x4x?x64xbf16>, tensor<?x2x?x64xbf16>, tensor<?x2x?x64xbf16> -> tensor<?x4x?x64xbf16>, tensor<?x4x?xf32>
  return %o, %lse : tensor<?x4x?x64xbf16>, tensor<?x4x?xf32>
}
