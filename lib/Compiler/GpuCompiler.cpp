//===- GpuCompiler.cpp - attention to PTX, cubin and an artifact ----------===//
//
// Chooses the kernel configuration and builds the kernel through the target
// hooks (convert-attn-to-gpu), lowers it to NVVM and PTX
// (gpu-module-to-binary), assembles a cubin with ptxas, and describes the
// launch in the artifact manifest the runtime reads.
//
//===----------------------------------------------------------------------===//

#include "attnc/Artifact/Artifact.h"
#include "attnc/Artifact/KernelAbi.h"
#include "attnc/Compiler.h"
#include "attnc/Pipelines.h"

#include "dialects/Attn/AttnDialect.h"
#include "passes/Conversion/AttnToGPU.h"
#include "passes/Conversion/FlashKernel.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <cstdlib>

using namespace mlir;
using namespace attnc;
using attnc::mask::DocumentSource;
using attnc::mask::MaskKind;

bool attnc::isGpuChip(llvm::StringRef chip) {
  return GpuTarget::lookup(chip) != nullptr;
}

/// Runs ptxas -v on `ptx` for `chip`; returns the cubin bytes and the log.
static bool assemble(const std::string &ptx, const std::string &chip,
                     std::string &cubin, std::string &ptxasLog,
                     std::string &error) {
  std::string ptxas = cudaToolkitPath() + "/bin/ptxas";
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

/// Tiles a copy of the function around `op` (with its #attn.gpu_kernel)
/// for the kernel, builds the kernel from the tiled IR and lowers it to
/// `level` (the module for Kernel and NVVM, the PTX otherwise).
static bool lowerKernel(attn::AttentionOp op, const GpuTarget &target,
                        EmitLevel level, GpuCompileResult &result,
                        std::string &error) {
  MLIRContext *ctx = op.getContext();
  Operation *function = op->getParentOfType<FunctionOpInterface>();
  if (!function) {
    error = "expected the attention inside a function";
    return false;
  }
  OwningOpRef<ModuleOp> module = ModuleOp::create(op.getLoc());
  module->getBody()->push_back(function->clone());

  PassManager pm(ctx);
  // The tile sizes are the kernel's (attn.tile_sizes, set with the
  // configuration); skipping masked tiles decides the kernel's key loop.
  buildAttnTilePipeline(pm, {/*blockQ=*/64, /*blockK=*/64,
                             /*skipMaskedTiles=*/true});
  pm.addPass(createConvertAttnToGPU());
  if (level != EmitLevel::Kernel)
    buildKernelToNVVMPipeline(pm, target.chip().str(),
                              target.ptxFeatures().str());
  if (level == EmitLevel::PTX || level == EmitLevel::Artifact)
    buildNVVMToPTXPipeline(pm);
  if (failed(pm.run(*module))) {
    error = "building the kernel or lowering it to " +
            std::string(level == EmitLevel::Kernel ? "kernel IR"
                        : level == EmitLevel::NVVM ? "NVVM"
                                                   : "PTX") +
            " failed (see the error above)";
    return false;
  }
  if (level == EmitLevel::Kernel || level == EmitLevel::NVVM) {
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
            cudaToolkitPath() + " has no nvvm/libdevice)";
    return false;
  }
  return true;
}

/// The manifest of the kernel of `op` (its #attn.gpu_kernel) into
/// `result.manifest`.
static void describeKernel(attn::AttentionOp op, const AttentionSpec &spec,
                           const GpuTarget &target, GpuCompileResult &result) {
  attn::GpuKernelAttr config = getGpuKernelAttr(op);
  mask::MaskSpec m = op.getMaskSpec();
  auto flag = [](bool v) { return std::string(v ? "1" : "0"); };
  std::string configText;
  {
    llvm::raw_string_ostream os(configText);
    os << config;
  }
  auto &mf = result.manifest;
  mf = {
      {"format", "attnc-artifact-1"},
      {"kernel", kKernelName.str()},
      {"target", target.chip().str()},
      {"gpu_kernel", configText},
      {"spec", printSpec(spec)},
      {"dtype", elementTypeName(spec.dtype)},
      {"num_q_heads", std::to_string(op.getNumQueryHeads())},
      {"num_kv_heads", std::to_string(op.getNumKeyValueHeads())},
      {"head_dim", std::to_string(op.getHeadDim())},
      {"value_head_dim", std::to_string(op.getValueHeadDim())},
      {"block_q", std::to_string(config.getBlockQ())},
      {"block_k", std::to_string(config.getBlockK())},
      {"threads", std::to_string(config.getThreads())},
      {"dynamic_shared_memory",
       std::to_string(target.sharedMemoryBytes(KernelProblem::of(op), config))},
      {"reads_lse", flag(static_cast<bool>(op.getLse()))},
      {"reads_seq_ids", flag(static_cast<bool>(op.getSeqIds()))},
      {"reads_cu_seqlens", flag(static_cast<bool>(op.getCuSeqlens()))},
      {"reads_block_mask", flag(static_cast<bool>(op.getBlockMask()))},
      {"reads_alibi_slopes", flag(static_cast<bool>(op.getAlibiSlopes()))},
      {"gqa_pack", std::to_string(config.getGqaPack())},
      {"split_kv", flag(config.getSplitKv())},
      {"combine_waits",
       flag(config.getSplitKv() && target.controlsGridDependencies())},
      {"split_blocks_per_sm",
       std::to_string(target.splitBlocksPerSm(KernelProblem::of(op), config))},
      {"tensor_maps", flag(config.getWgmma() || config.getTmaLoads())},
      {"persistent", flag(config.getPersistent())},
      {"tail_splits", flag(splitsPersistentTail(m.kind, config))},
      {"reads_kv_lens", flag(static_cast<bool>(op.getKvLens()))},
      {"reads_kv_scales", flag(static_cast<bool>(op.getKvScales()))},
      {"reads_cu_seqlens_q", flag(static_cast<bool>(op.getCuSeqlensQ()))},
      {"reads_cu_seqlens_k", flag(static_cast<bool>(op.getCuSeqlensK()))},
      {"page_size", std::to_string(op.getPageTable() ? op.getPageSize() : 0)}};
  if (m.kind == MaskKind::BlockSparse) {
    mf.push_back({"mask_block_q", std::to_string(m.blockQ)});
    mf.push_back({"mask_block_k", std::to_string(m.blockK)});
  }
  mf.push_back({"abi_version", std::to_string(abi::kVersion)});
  mf.push_back({"params", abi::paramList()});
  mf.push_back({"grid", abi::kGrid});
}

/// Compiles the target's short-sequence kernel beside the kernel whose
/// configuration `op` carries (and keeps) into `result.shortKernel`, with
/// a remark naming it and its bound; a kernel that does not assemble
/// without spills and without ptxas's performance warnings (C75xx: the
/// wgmmas serialised, setmaxnreg ignored) is left out, with a remark. The
/// short kernel may have one of its own for still shorter sequences (the
/// target's choice beside it, with a lower bound than `maxSeq`), nested
/// in it the same way.
static void addShortSequenceKernel(attn::AttentionOp op,
                                   const AttentionSpec &spec,
                                   const GpuTarget &target,
                                   GpuCompileResult &result,
                                   int64_t maxSeq = INT64_MAX) {
  attn::GpuKernelAttr config = getGpuKernelAttr(op);
  std::optional<GpuTarget::ShortSequenceKernel> alt =
      target.shortSequenceKernel(KernelProblem::of(op), config);
  if (!alt || alt->maxSeq >= maxSeq)
    return;
  llvm::scope_exit restore([&] {
    op->setAttr(kGpuKernelAttrName, config);
    (void)chooseGpuKernel(op, target);
  });
  op->setAttr(kGpuKernelAttrName, alt->config);
  auto shortKernel = std::make_unique<GpuCompileResult>();
  std::string error, log;
  if (failed(chooseGpuKernel(op, target)) ||
      !lowerKernel(op, target, EmitLevel::Artifact, *shortKernel, error) ||
      !assemble(shortKernel->ptx, target.chip().str(), shortKernel->cubin, log,
                error) ||
      spills(log) || log.find("(C75") != std::string::npos) {
    op.emitRemark("no short-sequence kernel with ")
        << alt->config
        << (error.empty() ? ": ptxas spills its registers or serialises its "
                            "wgmmas (ptxas -v)"
                          : ": " + error);
    return;
  }
  describeKernel(op, spec, target, *shortKernel);
  op.emitRemark("sequences of at most ")
      << alt->maxSeq << " queries and keys run another kernel, " << alt->config;
  result.manifest.push_back(
      {"short_kernel_max_seq", std::to_string(alt->maxSeq)});
  addShortSequenceKernel(op, spec, target, *shortKernel, alt->maxSeq);
  result.shortKernel = std::move(shortKernel);
}

bool attnc::compileForGpu(attn::AttentionOp op, const AttentionSpec &spec,
                          llvm::StringRef chip, EmitLevel level,
                          GpuCompileResult &result, std::string &error) {
  const GpuTarget *target = GpuTarget::lookup(chip);
  if (!target) {
    error = "expected a GPU target (" + GpuTarget::supportedChips().str() +
            "), got '" + chip.str() + "'";
    return false;
  }
  if (!isEmitLevelOf(level, /*gpu=*/true) || level == EmitLevel::Attn ||
      level == EmitLevel::Tiled) {
    error = "compileForGpu stops at kernel, nvvm, ptx or artifact";
    return false;
  }
  // A configuration given in the IR is kept as given; a chosen one may be
  // replaced by the target's fallback when ptxas reports spills.
  bool pinned = static_cast<bool>(getGpuKernelAttr(op));
  if (failed(chooseGpuKernel(op, *target))) {
    error = "the attention cannot run on " + chip.str() +
            " (see the error above)";
    return false;
  }
  bool canAssemble =
      llvm::sys::fs::can_execute(cudaToolkitPath() + "/bin/ptxas");
  // The last kernel that assembled with spills, kept in case every
  // fallback after it is refused by ptxas.
  std::optional<GpuCompileResult> spilled;
  attn::GpuKernelAttr spilledConfig;
  while (true) {
    result = GpuCompileResult();
    if (!lowerKernel(op, *target, level, result, error))
      return false;
    if (level == EmitLevel::Kernel || level == EmitLevel::NVVM)
      return true;
    if (level == EmitLevel::PTX && !canAssemble)
      return true;
    std::string log;
    bool assembled =
        assemble(result.ptx, target->chip().str(), result.cubin, log, error);
    // ptxas refuses an instruction that needs more registers than the
    // kernel may have (C7602, e.g. D = 256 with a block mask on 32-key
    // tiles): a chosen configuration falls back as it does on spills.
    bool outOfRegisters =
        !assembled && error.find("(C7602)") != std::string::npos;
    if (!assembled && (pinned || !outOfRegisters))
      return false;
    if (assembled && !spills(log))
      break;
    // Every target's first rung: the same kernel without 16-byte O stores;
    // then the target's own ladder.
    attn::GpuKernelAttr config = getGpuKernelAttr(op);
    std::optional<attn::GpuKernelAttr> fallback =
        pinned ? std::nullopt
        : config.getWideStores() || config.getStagedStores()
            ? GpuTarget::narrowStores(config)
            : target->fallbackConfig(KernelProblem::of(op), config);
    if (!fallback) {
      if (outOfRegisters) {
        if (!spilled)
          return false;
        // Back to the last kernel that assembled.
        result = std::move(*spilled);
        op->setAttr(kGpuKernelAttrName, spilledConfig);
        if (failed(chooseGpuKernel(op, *target))) {
          error = "the configuration does not fit " + chip.str();
          return false;
        }
        error.clear();
      }
      op.emitWarning("the kernel spills registers to local memory with ")
          << getGpuKernelAttr(op) << " (ptxas -v); it runs, but slowly";
      break;
    }
    op.emitRemark(outOfRegisters ? "ptxas has too few registers for the "
                                   "kernel with "
                                 : "the kernel spills registers with ")
        << getGpuKernelAttr(op) << " (ptxas -v); rebuilding with " << *fallback;
    if (assembled) {
      spilled = std::move(result);
      spilledConfig = getGpuKernelAttr(op);
    }
    error.clear();
    op->setAttr(kGpuKernelAttrName, *fallback);
    if (failed(chooseGpuKernel(op, *target))) {
      error = "the fallback configuration does not fit " + chip.str();
      return false;
    }
  }
  if (level == EmitLevel::PTX) {
    result.cubin.clear();
    return true;
  }

  describeKernel(op, spec, *target, result);
  if (level == EmitLevel::Artifact && !pinned)
    addShortSequenceKernel(op, spec, *target, result);
  return true;
}

Artifact attnc::makeArtifact(const GpuCompileResult &result) {
  Artifact artifact;
  for (const auto &[key, value] : result.manifest)
    artifact.set(key, value);
  artifact.sections["ptx"] = result.ptx;
  artifact.sections["cubin"] = result.cubin;
  // The short-sequence kernel: an artifact of its own, nested whole.
  if (result.shortKernel) {
    std::string bytes, error;
    if (serializeArtifact(makeArtifact(*result.shortKernel), bytes, error))
      artifact.sections["short_kernel"] = std::move(bytes);
  }
  return artifact;
}
