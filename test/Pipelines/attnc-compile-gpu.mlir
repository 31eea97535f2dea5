// The GPU pipeline stops at each level of the one EmitLevel enum.
// RUN: attnc compile %s --target=sm_90a --emit=attn 2>/dev/null | FileCheck %s --check-prefix=ATTN
// RUN: attnc compile %s --target=sm_90a --emit=tiled 2>&1 | FileCheck %s --check-prefix=TILED
// RUN: attnc compile %s --target=sm_90a --emit=kernel 2>&1 >/dev/null | FileCheck %s --check-prefix=REMARK
// RUN: attnc compile %s --target=sm_80 --emit=kernel 2>/dev/null | FileCheck %s --check-prefix=KERNEL
// RUN: attnc compile %s --target=sm_80 --emit=nvvm 2>/dev/null | FileCheck %s --check-prefix=NVVM
// RUN: not attnc compile %s --target=sm_90a --emit=loops 2>&1 | FileCheck %s --check-prefix=BADEMIT

// attn: the op with the configuration the sm_90a target chose for D = 128.
// ATTN: attn.attention
// ATTN-SAME: attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 128, block_k = 32, warps = 4, m_tiles = 2, stages = 2, q_in_smem = true>

// tiled: tiles of the kernel's sizes; the configuration rides on the query
// tiles, the key loop is split by attn-skip-masked-tiles.
// TILED: remark: attn-skip-masked-tiles: mask #attn.causal: closed-form bounds
// TILED: scf.parallel
// TILED: attn.tile_step {{.*}} {block_k = 32 : i64, block_q = 128 : i64
// TILED: attn.tile_step {{.*}}unmasked}
// TILED: attn.tile_finalize
// TILED: } {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 128, block_k = 32,

// kernel: the sm_90a target builds the sm_80-class kernel today and says so.
// REMARK: remark: convert-attn-to-gpu: sm_90a kernel (mma.sync m16n8k16, cp.async double buffering (the sm_80-class kernel; no wgmma kernel yet)), block_q = 128, block_k = 32, 4 warps x 2 m-tiles; key tiles bounded in closed form

// KERNEL: gpu.module @attnc_kernels
// KERNEL: gpu.func @attnc_attention(
// KERNEL: nvvm.mma.sync

// NVVM: gpu.module @attnc_kernels [#nvvm.target<O = 3, chip = "sm_80", features = "+ptx80">]
// NVVM: llvm.func @attnc_attention(
// NVVM-NOT: scf.
// NVVM: nvvm.mma.sync

// BADEMIT: attnc: error: expected --emit=attn|tiled|kernel|nvvm|ptx|artifact for sm_90a, got loops
func.func @attention(%q: tensor<?x8x?x128xbf16>, %k: tensor<?x2x?x128xbf16>, %v: tensor<?x2x?x128xbf16>) -> tensor<?x8x?x128xbf16> {
  %o = attn.attention %q, %k, %v mask(#attn.causal) : tensor<?x8x?x128xbf16>, tensor<?x2x?x128xbf16>, tensor<?x2x?x128xbf16> -> tensor<?x8x?x128xbf16>
  return %o : tensor<?x8x?x128xbf16>
}
