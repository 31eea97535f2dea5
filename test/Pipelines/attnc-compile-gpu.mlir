// The GPU pipeline stops at each level of the one EmitLevel enum.
// RUN: attnc compile %s --target=sm_90a --emit=attn 2>/dev/null | FileCheck %s --check-prefix=ATTN
// RUN: attnc compile %s --target=sm_90a --emit=tiled 2>&1 | FileCheck %s --check-prefix=TILED
// RUN: attnc compile %s --target=sm_90a --emit=kernel 2>&1 >/dev/null | FileCheck %s --check-prefix=REMARK
// RUN: attnc compile %s --target=sm_80 --emit=kernel 2>/dev/null | FileCheck %s --check-prefix=KERNEL
// RUN: attnc compile %s --target=sm_80 --emit=nvvm 2>/dev/null | FileCheck %s --check-prefix=NVVM
// RUN: attnc compile %s --target=sm_90a --emit=kernel 2>/dev/null | FileCheck %s --check-prefix=KERNEL90
// RUN: attnc compile %s --target=sm_90a --emit=nvvm 2>/dev/null | FileCheck %s --check-prefix=NVVM90
// RUN: not attnc compile %s --target=sm_90a --emit=loops 2>&1 | FileCheck %s --check-prefix=BADEMIT

// attn: the op with the configuration the sm_90a target chose for D = 128.
// ATTN: attn.attention
// ATTN-SAME: attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 128, block_k = 128, warps = 8, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true, persistent = true, wide_stores = true>

// tiled: tiles of the kernel's sizes; the configuration rides on the query
// tiles, the key loop is split by attn-skip-masked-tiles.
// TILED: remark: attn-skip-masked-tiles: mask #attn.causal: closed-form bounds
// TILED: scf.parallel
// TILED: attn.tile_step {{.*}} {block_k = 128 : i64, block_q = 128 : i64
// TILED: attn.tile_step {{.*}}unmasked}
// TILED: attn.tile_finalize
// TILED: } {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 128, block_k = 128,

// kernel: the sm_90a target builds the wgmma kernel and says so.
// REMARK: remark: convert-attn-to-gpu: sm_90a kernel (wgmma m64nNk16 from swizzled shared memory, a TMA producer warpgroup and consumer warpgroups on an mbarrier ring), block_q = 128, block_k = 128, 8 warps x 1 m-tiles; key tiles bounded in closed form

// KERNEL: gpu.module @attnc_kernels
// KERNEL: gpu.func @attnc_attention(
// KERNEL: nvvm.mma.sync

// sm_90a: S = Q K^T from shared memory (nvvm.wgmma.mma_async, 8 k-steps of
// 16 over D = 128), O += P V with P from registers (inline PTX: no NVVM op
// takes A from registers).
// The two consumer warpgroups take turns to issue their GEMMs (ping-pong):
// each waits on its named barrier, issues S = Q K^T of the tile and P V of
// the previous one, then lets the other go.
// KERNEL90: gpu.func @attnc_attention(
// KERNEL90-COUNT-8: nvvm.wgmma.mma_async
// KERNEL90: nvvm.barrier id = %{{.*}} number_of_threads = %{{.*}}
// KERNEL90-COUNT-8: nvvm.wgmma.mma_async
// KERNEL90: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// KERNEL90: nvvm.barrier.arrive id = %{{.*}} number_of_threads = %{{.*}}

// NVVM90: llvm.func @attnc_attention(
// NVVM90-SAME: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant}, %{{[a-z0-9]+}}: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant}, %{{[a-z0-9]+}}: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant})

// NVVM: gpu.module @attnc_kernels [#nvvm.target<O = 3, chip = "sm_80", features = "+ptx80">]
// NVVM: llvm.func @attnc_attention(
// NVVM-NOT: scf.
// NVVM: nvvm.mma.sync

// BADEMIT: attnc: error: expected --emit=attn|tiled|kernel|nvvm|ptx|artifact for sm_90a, got loops
func.func @attention(%q: tensor<?x8x?x128xbf16>, %k: tensor<?x2x?x128xbf16>, %v: tensor<?x2x?x128xbf16>) -> tensor<?x8x?x128xbf16> {
  %o = attn.attention %q, %k, %v mask(#attn.causal) : tensor<?x8x?x128xbf16>, tensor<?x2x?x128xbf16>, tensor<?x2x?x128xbf16> -> tensor<?x8x?x128xbf16>
  return %o : tensor<?x8x?x128xbf16>
}
