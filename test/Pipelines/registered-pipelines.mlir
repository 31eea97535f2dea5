// The named pipelines are registered in attnc-opt and run end to end.
// RUN: attnc-opt --help | FileCheck %s --check-prefix=HELP
// RUN: attnc-opt %s --attn-lower-to-nvvm="chip=sm_80" 2>/dev/null | FileCheck %s --check-prefix=NVVM
// RUN: attnc-opt %s --attn-lower-to-llvm="block-q=32 block-k=32" 2>/dev/null | FileCheck %s --check-prefix=LLVM

// HELP: --attn-lower-to-llvm
// HELP: --attn-lower-to-nvvm

// NVVM: attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_80"
// NVVM: gpu.module @attnc_kernels [#nvvm.target<O = 3, chip = "sm_80", features = "+ptx80">]
// NVVM: llvm.func @attnc_attention(
// NVVM: nvvm.mma.sync

// LLVM: llvm.func @attention(
// LLVM-NOT: attn.
// LLVM-NOT: scf.
func.func @attention(%q: tensor<1x2x64x64xbf16>, %k: tensor<1x2x64x64xbf16>, %v: tensor<1x2x64x64xbf16>) -> tensor<1x2x64x64xbf16> {
  %o = attn.attention %q, %k, %v mask(#attn.causal) : tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16> -> tensor<1x2x64x64xbf16>
  return %o : tensor<1x2x64x64xbf16>
}
