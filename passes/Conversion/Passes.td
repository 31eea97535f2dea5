//===- Passes.td - attnc conversion passes -----------------*- tablegen -*-===//

#ifndef ATTNC_CONVERSION_PASSES
#define ATTNC_CONVERSION_PASSES

include "mlir/Pass/PassBase.td"

def ConvertAttnToGPU : Pass<"convert-attn-to-gpu", "::mlir::ModuleOp"> {
  let summary = "Generate a tensor-core flash-attention kernel per attn.attention";
  let description = [{
    Input: a module with exactly one `attn.attention` (bf16 or f16, head dims
    multiples of 16 up to 256). Output: the module gains `gpu.module
    @attnc_kernels` with `gpu.func @attnc_attention`, the sm_80-class kernel
    (runs on sm_80 and later, Hopper included); the attention op is left in
    place for the host side.

    The kernel: one thread block per (query tile of 128 rows, query head,
    batch) of 4 warps with two 16-row m-tiles each (or 8 warps of one, see
    GpuKernelConfig); Q fragments in registers or, above D = 64, read from
    shared memory; K and V tiles are staged in shared memory; S = Q K^T and
    O += P V use `mma.sync.aligned.m16n8k16` with f32 accumulation; row max
    and row sum are reduced with warp shuffles; exp2 with log2(e) folded into
    the scale. The key-tile loop covers only the tiles the mask leaves
    non-empty (closed-form bounds, or cu_seqlens document ranges), and the
    element-wise mask runs only on boundary tiles. Query head h reads key /
    value head h / (Hq / Hkv).

    Kernel parameters (docs/runtime.md): q, k, v, o, lse, seq_ids,
    cu_seqlens, block_mask, alibi_slopes as pointers, then batch, seq_q,
    seq_k, num_cu_seqlens, block_mask_b, block_mask_h as i64. Grid
    (ceil(seq_q / 128), Hq, batch), 128 threads (256 with one m-tile per
    warp); K and V tiles double-buffered in dynamic shared memory with
    cp.async, B fragments with ldmatrix.

    ```mlir
    // before
    %o = attn.attention %q, %k, %v mask(#attn.causal) : ...
    // after (added)
    gpu.module @attnc_kernels {
      gpu.func @attnc_attention(%q: !llvm.ptr, ...) workgroup(...) kernel {
        ... nvvm.mma.sync ... gpu.shuffle xor ... math.exp2 ...
      }
    }
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::gpu::GPUDialect",
    "::mlir::LLVM::LLVMDialect", "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect", "::mlir::NVVM::NVVMDialect",
    "::mlir::scf::SCFDialect", "::mlir::vector::VectorDialect"
  ];
  let statistics = [
    Statistic<"numKernels", "num-kernels", "kernels generated">,
    Statistic<"numBoundedKeyLoops", "num-bounded-key-loops",
              "kernels whose key-tile loop skips empty tiles">,
  ];
}

#endif // ATTNC_CONVERSION_PASSES
