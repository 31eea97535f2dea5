func.func @attention(%q: tensor<1x1x128x64xbf16>, %k: tensor<1x1x128x64xbf16>, %v: tensor<1x1x128x64xbf16>) -> tensor<1x1x128x64xbf16> {
  %o = attn.attention %q, %k, %v mask(#attn.causal) {attn.tile_sizes = array<i64: 0, 16>} : tensor<1x1x128x64xbf16>, tensor<1x1x128x64xbf16>, tensor<1x1x128x64xbf16> -> tensor<1x1x128x64xbf16>
  return %o : tensor<1x1x128x64xbf16>
}
