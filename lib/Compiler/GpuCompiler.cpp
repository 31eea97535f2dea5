//===- GpuCompiler.cpp - attention to PTX, cubin and an artifact ----------===//
//
// Generates the kernel (convert-attn-to-gpu), lowers it to NVVM and PTX
// (gpu-module-to-binary), assembles a cubin with ptxas, and describes the
// launch in the artifact manifest the runtime reads.
//
//===----------------------------------------------------------------------===//

#include "attnc/Compiler.h"
#include "attnc/Runtime/Artifact.h"

#include "dialects/Attn/AttnDialect.h"
#include "passes/Conversion/AttnToGPU.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

using namespace mlir;
using namespace attnc;
using attnc::mask::DocumentSource;
using attnc::mask::MaskKind;

std::optional<GpuTarget> attnc::parseGpuTarget(llvm::StringRef name) {
  if (name == "sm_80" || name == "sm_90a")
    return GpuTarget{name.str()};
  return std::nullopt;
}

/// The CUDA toolkit: $CUDA_ROOT, $CUDA_HOME, $CUDA_PATH or /usr/local/cuda.
static std::string cudaRoot() {
  for (const char *var : {"CUDA_ROOT", "CUDA_HOME", "CUDA_PATH"})
    if (const char *v = std::getenv(var); v && *v)
      return v;
  return "/usr/local/cuda";
}

/// Runs ptxas -v on `ptx` for `chip`; returns the cubin bytes and the log.
static bool assemble(const std::string &ptx, const std::string &chip,
                     std::string &cubin, std::string &ptxasLog,
                     std::string &error) {
  std::string ptxas = cudaRoot() + "/bin/ptxas";
  if (!llvm::sys::fs::can_execute(ptxas)) {
    error =
        "ptxas not found at " + ptxas + " (set CUDA_ROOT to the CUDA toolkit)";
    return false;
  }
  llvm::SmallString<128> in, out, log;
  if (llvm::sys::fs::createTemporaryFile("attnc", "ptx", in) ||
      llvm::sys::fs::createTemporaryFile("attnc", "cubin", out) ||
      llvm::sys::fs::createTemporaryFile("attnc", "log", log)) {
    error = "cannot create temporary files for ptxas";
    return false;
  }
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(in, ec);
    os << ptx;
  }
  std::string arch = "-arch=" + chip;
  llvm::SmallVector<llvm::StringRef> args = {ptxas, arch, "-O3", "-v",
                                             in,    "-o", out};
  std::optional<llvm::StringRef> redirects[] = {std::nullopt, log.str(),
                                                log.str()};
  std::string execError;
  int rc = llvm::sys::ExecuteAndWait(ptxas, args, std::nullopt, redirects, 0, 0,
                                     &execError);
  auto buffer = llvm::MemoryBuffer::getFile(out, /*IsText=*/false);
  auto logText = llvm::MemoryBuffer::getFile(log);
  llvm::sys::fs::remove(in);
  llvm::sys::fs::remove(out);
  llvm::sys::fs::remove(log);
  if (rc != 0 || !buffer) {
    error = "ptxas failed: " + execError +
            (logText ? (*logText)->getBuffer().str() : std::string());
    return false;
  }
  cubin = (*buffer)->getBuffer().str();
  ptxasLog = logText ? (*logText)->getBuffer().str() : std::string();
  return true;
}

/// True when a ptxas -v log reports spill stores or loads.
static bool spills(const std::string &log) {
  for (const char *what : {" bytes spill stores", " bytes spill loads"}) {
    size_t at = log.find(what);
    while (at != std::string::npos) {
      size_t start = log.rfind(' ', at - 1);
      if (start != std::string::npos && std::atoll(log.c_str() + start + 1) > 0)
        return true;
      at = log.find(what, at + 1);
    }
  }
  return false;
}

/// Builds the kernel of `op` with `config` and lowers it to `level` (the
/// module for Kernel and NVVM, the PTX otherwise).
static bool lowerKernel(attn::AttentionOp op, const GpuTarget &target,
                        GpuEmitLevel level, const GpuKernelConfig &config,
                        GpuCompileResult &result, std::string &error) {
  MLIRContext *ctx = op.getContext();
  OwningOpRef<ModuleOp> module = ModuleOp::create(op.getLoc());
  if (failed(buildAttentionKernel(*module, op, config))) {
    error = "the attention cannot become a GPU kernel (see the error above)";
    return false;
  }
  if (level == GpuEmitLevel::Kernel) {
    result.module = std::move(module);
    return true;
  }

  PassManager pm(ctx);
  std::string pipeline =
      "nvvm-attach-target{chip=" + target.chip +
      " features=" + target.features +
      " O=3},gpu.module(convert-scf-to-cf,convert-gpu-to-nvvm,canonicalize,"
      "cse,reconcile-unrealized-casts)";
  if (level != GpuEmitLevel::NVVM)
    pipeline += ",gpu-module-to-binary{format=isa toolkit=" + cudaRoot() + "}";
  std::string pipelineError;
  llvm::raw_string_ostream errs(pipelineError);
  if (failed(parsePassPipeline(pipeline, pm, errs))) {
    error = "bad GPU pipeline: " + pipelineError;
    return false;
  }
  if (failed(pm.run(*module))) {
    error = "lowering the kernel to " +
            std::string(level == GpuEmitLevel::NVVM ? "NVVM" : "PTX") +
            " failed";
    return false;
  }
  if (level == GpuEmitLevel::NVVM) {
    result.module = std::move(module);
    return true;
  }
  module->walk([&](gpu::BinaryOp binary) {
    for (Attribute object : binary.getObjects())
      result.ptx = cast<gpu::ObjectAttr>(object).getObject().getValue().str();
  });
  if (result.ptx.empty()) {
    error = "gpu-module-to-binary produced no PTX";
    return false;
  }
  if (result.ptx.find("__nv_") != std::string::npos &&
      result.ptx.find(".extern .func") != std::string::npos) {
    error = "the PTX calls libdevice functions that were not linked; set "
            "CUDA_ROOT to the CUDA toolkit (" +
            cudaRoot() +
            " has no "
            "nvvm/libdevice)";
    return false;
  }
  return true;
}

bool attnc::compileForGpu(attn::AttentionOp op, const AttentionSpec &spec,
                          const GpuTarget &target, GpuEmitLevel level,
                          GpuCompileResult &result, std::string &error) {
  // The preferred configuration first; when ptxas reports spills, the one
  // with a single m-tile per warp (fewer registers).
  SmallVector<GpuKernelConfig> configs = {chooseGpuKernelConfig(op)};
  if (configs.front().mTiles > 1)
    configs.push_back(singleTileGpuKernelConfig(op));
  bool canAssemble = llvm::sys::fs::can_execute(cudaRoot() + "/bin/ptxas");
  GpuKernelConfig config;
  for (size_t attempt = 0; attempt < configs.size(); ++attempt) {
    config = configs[attempt];
    result = GpuCompileResult();
    if (!lowerKernel(op, target, level, config, result, error))
      return false;
    if (level == GpuEmitLevel::Kernel || level == GpuEmitLevel::NVVM)
      return true;
    if (level == GpuEmitLevel::PTX && !canAssemble)
      return true;
    std::string log;
    if (!assemble(result.ptx, target.chip, result.cubin, log, error))
      return false;
    if (!spills(log) || attempt + 1 == configs.size())
      break;
  }
  if (level == GpuEmitLevel::PTX) {
    result.cubin.clear();
    return true;
  }

  mask::MaskSpec m = op.getMaskSpec();
  auto flag = [](bool v) { return std::string(v ? "1" : "0"); };
  auto &mf = result.manifest;
  mf = {{"format", "attnc-artifact-1"},
        {"kernel", config.kernelName},
        {"target", target.chip},
        {"spec", printSpec(spec)},
        {"dtype", elementTypeName(spec.dtype)},
        {"num_q_heads", std::to_string(op.getNumQueryHeads())},
        {"num_kv_heads", std::to_string(op.getNumKeyValueHeads())},
        {"head_dim", std::to_string(op.getHeadDim())},
        {"value_head_dim", std::to_string(op.getValueHeadDim())},
        {"block_q", std::to_string(config.blockQ)},
        {"block_k", std::to_string(config.blockK)},
        {"threads", std::to_string(config.threads())},
        {"dynamic_shared_memory",
         std::to_string(gpuSharedMemoryBytes(op, config))},
        {"reads_lse", flag(static_cast<bool>(op.getLse()))},
        {"reads_seq_ids", flag(static_cast<bool>(op.getSeqIds()))},
        {"reads_cu_seqlens", flag(static_cast<bool>(op.getCuSeqlens()))},
        {"reads_block_mask", flag(static_cast<bool>(op.getBlockMask()))},
        {"reads_alibi_slopes", flag(static_cast<bool>(op.getAlibiSlopes()))}};
  if (m.kind == MaskKind::BlockSparse) {
    mf.push_back({"mask_block_q", std::to_string(m.blockQ)});
    mf.push_back({"mask_block_k", std::to_string(m.blockK)});
  }
  mf.push_back({"params", kKernelParams});
  mf.push_back({"grid", kKernelGrid});
  return true;
}

Artifact attnc::makeArtifact(const GpuCompileResult &result) {
  Artifact artifact;
  for (const auto &[key, value] : result.manifest)
    artifact.set(key, value);
  artifact.sections["ptx"] = result.ptx;
  artifact.sections["cubin"] = result.cubin;
  return artifact;
}
