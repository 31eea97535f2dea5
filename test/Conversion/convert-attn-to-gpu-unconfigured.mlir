// RUN: attnc-opt %s --convert-attn-to-gpu --split-input-file --verify-diagnostics

// Without attn-choose-gpu-kernel (or a hand-set attribute) there is no
// configuration to build: an error, never a default.
func.func @no_config(%q: tensor<?x4x?x64xbf16>, %k: tensor<?x2x?x64xbf16>, %v: tensor<?x2x?x64xbf16>) -> tensor<?x4x?x64xbf16> {
  // expected-error @+1 {{expected an attn.gpu_kernel attribute (run attn-choose-gpu-kernel, or set it by hand)}}
  %o = attn.attention %q, %k, %v : tensor<?x4x?x64xbf16>, tensor<?x2x?x64xbf16>, tensor<?x2x?x64xbf16> -> tensor<?x4x?x64xbf16>
  return %o : tensor<?x4x?x64xbf16>
}

// -----

func.func @unknown_chip(%q: tensor<?x4x?x64xbf16>, %k: tensor<?x2x?x64xbf16>, %v: tensor<?x2x?x64xbf16>) -> tensor<?x4x?x64xbf16> {
  // expected-error @+1 {{expected a supported chip (sm_80, sm_90a), got "sm_75"}}
  %o = attn.attention %q, %k, %v {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_75", block_q = 128, block_k = 64, warps = 4, m_tiles = 2, stages = 2, q_in_smem = false>} : tensor<?x4x?x64xbf16>, tensor<?x2x?x64xbf16>, tensor<?x2x?x64xbf16> -> tensor<?x4x?x64xbf16>
  return %o : tensor<?x4x?x64xbf16>
}
