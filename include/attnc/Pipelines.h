//===- Pipelines.h - attnc's pass pipelines ---------------------*- C++ -*-===//
//
// The stage builders of attnc's pipelines, with typed addPass calls, and
// their registration as named pipelines of attnc-opt:
//
//   attn-lower-to-llvm    attn -> tiled -> loops -> LLVM dialect (the CPU)
//   attn-lower-to-nvvm    attn -> GPU kernel -> NVVM (chip=sm_80|sm_90a)
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_PIPELINES_H
#define ATTNC_PIPELINES_H

#include <cstdint>
#include <string>

namespace mlir {
class OpPassManager;
} // namespace mlir

namespace attnc {

/// Tiling options shared by the CPU pipeline and the tiled level of the GPU
/// one.
struct TilePipelineOptions {
  /// Tile sizes, unless the op or module sets `attn.tile_sizes`.
  int64_t blockQ = 64;
  int64_t blockK = 64;
  /// Run attn-skip-masked-tiles (off: every tile gets the element-wise mask).
  bool skipMaskedTiles = true;
};

/// attn-tile, attn-skip-masked-tiles, cse: attn IR to the tiled level.
void buildAttnTilePipeline(mlir::OpPassManager &pm,
                           const TilePipelineOptions &options);
/// attn-decompose-online-softmax, canonicalize, cse: tiled to loops.
void buildTiledToLoopsPipeline(mlir::OpPassManager &pm);
/// The upstream passes from loops to the LLVM dialect on the host.
void buildLoopsToLLVMPipeline(mlir::OpPassManager &pm);

/// attn-choose-gpu-kernel for `chip`: attn IR with #attn.gpu_kernel.
void buildChooseGpuKernelPipeline(mlir::OpPassManager &pm,
                                  const std::string &chip);
/// The kernel module (convert-attn-to-gpu's output) to NVVM: attach the
/// NVVM target for `chip`, then scf-to-cf, gpu-to-nvvm, canonicalize, cse,
/// reconcile-unrealized-casts inside the gpu.module.
void buildKernelToNVVMPipeline(mlir::OpPassManager &pm,
                               const std::string &chip,
                               const std::string &features);
/// gpu-module-to-binary producing PTX ("isa") with libdevice from the CUDA
/// toolkit (NVVM::getCUDAToolkitPath, else /usr/local/cuda).
void buildNVVMToPTXPipeline(mlir::OpPassManager &pm);

/// The CUDA toolkit the GPU pipeline uses.
std::string cudaToolkitPath();

/// Registers attn-lower-to-llvm and attn-lower-to-nvvm.
void registerAttnPipelines();

} // namespace attnc

#endif // ATTNC_PIPELINES_H
