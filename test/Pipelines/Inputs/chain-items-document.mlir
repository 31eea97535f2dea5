module {
  func.func @attention(%arg0: tensor<?x16x?x128xbf16>, %arg1: tensor<?x16x?x128xbf16>, %arg2: tensor<?x16x?x128xbf16>, %arg3: tensor<?xi32>) -> (tensor<?x16x?x128xbf16>, tensor<?x16x?xf32>) {
    %output, %lse = attn.attention %arg0, %arg1, %arg2 cu_seqlens(%arg3 : tensor<?xi32>) mask(#attn.document<cu_seqlens, causal>) {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 128, block_k = 128, warps = 8, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true, persistent = true, wide_stores = true, q_buffers = 2, chain_items = true>} : tensor<?x16x?x128xbf16>, tensor<?x16x?x128xbf16>, tensor<?x16x?x128xbf16> -> tensor<?x16x?x128xbf16>, tensor<?x16x?xf32>
    return %output, %lse : tensor<?x16x?x128xbf16>, tensor<?x16x?xf32>
  }
}

