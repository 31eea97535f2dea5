// RUN: attnc-opt %s --attn-tile --attn-skip-masked-tiles --convert-attn-to-gpu --split-input-file --verify-diagnostics

// Tiles without a configuration: an error, never a default.
func.func @no_config(%q: tensor<?x4x?x64xbf16>, %k: tensor<?x2x?x64xbf16>, %v: tensor<?x2x?x64xbf16>) -> tensor<?x4x?x64xbf16> {
  // expected-remark @+2 {{attn-skip-masked-tiles: mask none: closed-form bounds}}
  // expected-error @+1 {{expected an attn.gpu_kernel attribute on the query tiles (run attn-choose-gpu-kernel before attn-tile, or set it by hand)}}
  %o = attn.attention %q, %k, %v : tensor<?x4x?x64xbf16>, tensor<?x2x?x64xbf16>, tensor<?x2x?x64xbf16> -> tensor<?x4x?x64xbf16>
  return %o : tensor<?x4x?x64xbf16>
}

// -----

// A chip without a target.
func.func @unknown_chip(%q: tensor<?x4x?x64xbf16>, %k: tensor<?x2x?x64xbf16>, %v: tensor<?x2x?x64xbf16>) -> tensor<?x4x?x64xbf16> {
  // expected-remark @+2 {{attn-skip-masked-tiles: mask none: closed-form bounds}}
  // expected-error @+1 {{expected a supported chip (sm_80, sm_90a), got "sm_75"}}
  %o = attn.attention %q, %k, %v {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_75", block_q = 64, block_k = 64, warps = 2, m_tiles = 2, stages = 2, q_in_smem = false>} : tensor<?x4x?x64xbf16>, tensor<?x2x?x64xbf16>, tensor<?x2x?x64xbf16> -> tensor<?x4x?x64xbf16>
  return %o : tensor<?x4x?x64xbf16>
}

// -----

// Tiles that do not match the configuration's (attn-tile's default 64 x 64
// against block_q = 128).
func.func @tile_mismatch(%q: tensor<?x4x?x64xbf16>, %k: tensor<?x2x?x64xbf16>, %v: tensor<?x2x?x64xbf16>) -> tensor<?x4x?x64xbf16> {
  // expected-remark @+2 {{attn-skip-masked-tiles: mask none: closed-form bounds}}
  // expected-error @+1 {{expected the tiles (block_q = 64, block_k = 64) to match the kernel's #attn.gpu_kernel<chip = "sm_80", block_q = 128, block_k = 64, warps = 4, m_tiles = 2, stages = 2, q_in_smem = false>}}
  %o = attn.attention %q, %k, %v {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_80", block_q = 128, block_k = 64, warps = 4, m_tiles = 2, stages = 2, q_in_smem = false>} : tensor<?x4x?x64xbf16>, tensor<?x2x?x64xbf16>, tensor<?x2x?x64xbf16> -> tensor<?x4x?x64xbf16>
  return %o : tensor<?x4x?x64xbf16>
}
