//===- Passes.td - attnc conversion passes -----------------*- tablegen -*-===//

#ifndef ATTNC_CONVERSION_PASSES
#define ATTNC_CONVERSION_PASSES

include "mlir/Pass/PassBase.td"

def AttnChooseGpuKernel : Pass<"attn-choose-gpu-kernel", "::mlir::ModuleOp"> {
  let summary = "Attach the target's GPU kernel configuration to each attn.attention";
  let description = [{
    Input: `attn.attention` ops. Output: each op carries `attn.gpu_kernel =
    #attn.gpu_kernel<chip = ..., block_q, block_k, warps, m_tiles, stages,
    q_in_smem>`, chosen by the target of `chip` (GpuTarget.h) from the op's
    head dims. An op that already has one keeps it (lit tests and users pin
    configurations that way); either way the configuration is checked
    against the target (stages, m-tiles, shared memory), and an op the
    target cannot run is an error naming the chip and the feature.

    ```mlir
    // before
    %o = attn.attention %q, %k, %v mask(#attn.causal) : ...
    // after --attn-choose-gpu-kernel=chip=sm_90a (D = 128)
    %o = attn.attention %q, %k, %v mask(#attn.causal)
        {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 128,
         block_k = 128, warps = 8, m_tiles = 1, stages = 2, q_in_smem = true,
         wgmma = true>}
    ```
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"sm_90a\"",
           "The target chip: sm_80 or sm_90a">,
  ];
  let statistics = [
    Statistic<"numChosen", "num-chosen", "configurations chosen">,
  ];
}

def ConvertAttnToGPU : Pass<"convert-attn-to-gpu", "::mlir::ModuleOp"> {
  let summary = "Generate the flash-attention kernel an attn.attention's #attn.gpu_kernel describes";
  let description = [{
    Input: a module with exactly one `attn.attention` carrying
    `attn.gpu_kernel` (see attn-choose-gpu-kernel). Output: the module gains
    `gpu.module @attnc_kernels` with `gpu.func @attnc_attention`, built by the
    target of the attribute's chip (GpuTarget.h); the attention op is left
    in place for the host side. A remark names the kernel family, the
    configuration and the key-tile strategy (including the element-wise
    slow path of a non-affine `mask_fn`).

    With `wgmma = true` (sm_90a prefill) the kernel is warp-specialised: a
    producer warpgroup loads Q and K/V tiles by TMA into an mbarrier ring,
    and `warps / 4` consumer warpgroups compute S = Q K^T and O += P V with
    `wgmma.mma_async` (docs/gpu.md, "The Hopper kernel"); the masks, key
    tiles and online softmax are those described next.

    Otherwise (sm_80, and decode on sm_90a) the mma.sync kernel: one thread
    block per (query tile of block_q rows, query head, batch) of `warps`
    warps with `m_tiles` 16-row m-tiles each; Q fragments in registers or
    (q_in_smem) read from shared memory; K and V tiles of block_k keys
    double-buffered in dynamic shared memory with cp.async; S = Q K^T and
    O += P V with `mma.sync.aligned.m16n8k16` (f32 accumulation) on
    ldmatrix fragments; row max and sum reduced with warp shuffles; exp2
    with log2(e) folded into the scale. The key-tile loop covers only the
    tiles the mask leaves non-empty (closed-form bounds, cu_seqlens
    document ranges, or a run-time tile test for seq_ids documents,
    block-sparse masks and affine `mask_fn`s), and the element-wise mask
    runs only on boundary tiles. Query head h reads key / value head
    h / (Hq / Hkv).

    Kernel parameters: the table of include/attnc/Artifact/KernelAbi.h
    (pointers, sizes, then the [B, H, S] element strides of q, k, v, o).
    Grid (ceil(seq_q / block_q), Hq, batch).

    ```mlir
    // before
    %o = attn.attention %q, %k, %v mask(#attn.causal) {attn.gpu_kernel = ...}
    // after (added)
    gpu.module @attnc_kernels {
      gpu.func @attnc_attention(%q: !llvm.ptr, ...) kernel {
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

def AttnMarkTensorMapParams
    : Pass<"attn-mark-tensor-map-params", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Make the tensor-map parameters of attnc's kernels 128-byte grid constants";
  let description = [{
    Input: a `gpu.module` lowered to NVVM (its kernels are `llvm.func`s with
    `nvvm.kernel`). Output: in the kernels of the attnc ABI
    (`attnc_attention`, `attnc_combine`), every parameter whose kind in
    include/attnc/Artifact/KernelAbi.h is TensorMap carries
    `llvm.byval = !llvm.array<128 x i8>`, `llvm.align = 64` and
    `nvvm.grid_constant`, so that the runtime's CUtensorMap travels by value
    in the parameter space and `cp.async.bulk.tensor` reads it there
    (`__grid_constant__`). gpu.func cannot carry these attributes through
    convert-gpu-to-nvvm, hence this pass after it.

    ```mlir
    // before
    llvm.func @attnc_attention(..., %q_map: !llvm.ptr, ...) attributes {nvvm.kernel}
    // after
    llvm.func @attnc_attention(..., %q_map: !llvm.ptr {llvm.align = 64 : i64,
        llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant}, ...)
    ```
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect", "::mlir::NVVM::NVVMDialect"];
  let statistics = [
    Statistic<"numMarked", "num-marked", "tensor-map parameters marked">,
  ];
}

#endif // ATTNC_CONVERSION_PASSES
