// RUN: attnc-opt %s --convert-attn-to-gpu --split-input-file --verify-diagnostics

// convert-attn-to-gpu lowers tiled IR with a configuration: an untiled op,
// or tiles without #attn.gpu_kernel, are errors, never a default.

func.func @untiled(%q: tensor<?x4x?x64xbf16>, %k: tensor<?x2x?x64xbf16>, %v: tensor<?x2x?x64xbf16>) -> tensor<?x4x?x64xbf16> {
  // expected-error @+1 {{expected tiled attention IR: run attn-choose-gpu-kernel, attn-tile and attn-skip-masked-tiles first (or the attn-lower-to-nvvm pipeline)}}
  %o = attn.attention %q, %k, %v : tensor<?x4x?x64xbf16>, tensor<?x2x?x64xbf16>, tensor<?x2x?x64xbf16> -> tensor<?x4x?x64xbf16>
  return %o : tensor<?x4x?x64xbf16>
}
