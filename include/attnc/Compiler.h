//===- Compiler.h - attnc as a library --------------------------*- C++ -*-===//
//
// The compiler as stage functions over a plain options struct: build or
// parse attention IR, lower it level by level, run it on the CPU. The tools
// (attnc, attnc-run) are thin mains over this.
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_COMPILER_H
#define ATTNC_COMPILER_H

#include "attnc/Artifact/Artifact.h"
#include "attnc/Spec.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Support/LLVM.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace llvm {
class SourceMgr;
} // namespace llvm

namespace mlir {
class MLIRContext;
class OpPassManager;
} // namespace mlir

namespace attnc {
namespace attn {
class AttentionOp;
} // namespace attn

/// The levels `attnc compile --emit` stops at, for every target. The CPU
/// pipeline goes attn -> tiled -> loops -> llvm; a GPU one goes attn (with
/// #attn.gpu_kernel) -> tiled -> kernel -> nvvm -> ptx -> artifact.
enum class EmitLevel { Attn, Tiled, Loops, LLVM, Kernel, NVVM, PTX, Artifact };

/// Parses a level's name ("attn", "tiled", ..., "artifact").
std::optional<EmitLevel> parseEmitLevel(llvm::StringRef name);

/// True when `level` is a stop of the CPU pipeline (`gpu` false) or of a
/// GPU one (`gpu` true).
bool isEmitLevelOf(EmitLevel level, bool gpu);

/// The level names of the CPU or GPU pipeline, joined by '|'.
llvm::StringRef emitLevelNames(bool gpu);

/// Options of every stage.
struct CompileOptions {
  /// Tile sizes, unless the op or module sets `attn.tile_sizes` (a GPU
  /// target takes them from its #attn.gpu_kernel instead).
  int64_t blockQ = 64;
  int64_t blockK = 64;
  /// Run attn-skip-masked-tiles (off: every tile gets the element-wise mask).
  bool skipMaskedTiles = true;
  /// "cpu", or the GPU chip ("sm_80", "sm_90a").
  std::string target = "cpu";
  /// Count the tile steps a CPU run executes (attn-count-tile-steps;
  /// CpuKernel::tileStepCounts reads them).
  bool countTileSteps = false;
};

/// Creates a context with everything attnc parses and produces registered.
std::unique_ptr<mlir::MLIRContext> createContext();

/// Builds the attn IR of a spec: `func.func @attention` with dynamic B, Sq
/// and Sk, so one compile serves every length.
mlir::OwningOpRef<mlir::ModuleOp> buildSpecModule(mlir::MLIRContext &ctx,
                                                  const AttentionSpec &spec);

/// The IR of buildSpecModule as text, after a `// attnc spec:` comment (the
/// tools parse it back so that diagnostics point at its lines).
std::string specToMlir(const AttentionSpec &spec);

/// Parses IR text into `sourceMgr` (which keeps the buffer for located
/// diagnostics; pair it with a SourceMgrDiagnosticHandler).
mlir::OwningOpRef<mlir::ModuleOp> parseModule(mlir::MLIRContext &ctx,
                                              llvm::SourceMgr &sourceMgr,
                                              llvm::StringRef text,
                                              llvm::StringRef bufferName);

/// The single attn.attention of `module`; emits an error when there is none
/// or more than one.
mlir::FailureOr<attn::AttentionOp> findSingleAttention(mlir::ModuleOp module);

/// Adds the passes that take attn IR to `level` of the CPU pipeline, or to
/// the attn and tiled levels of a GPU one (Attn adds none on the CPU, and
/// attn-choose-gpu-kernel on a GPU target).
void buildPipeline(mlir::OpPassManager &pm, EmitLevel level,
                   const CompileOptions &options);

/// Lowers `module` in place to `level` (CPU levels, and the attn and tiled
/// levels of a GPU target; the kernel levels go through compileForGpu).
mlir::LogicalResult lowerTo(mlir::ModuleOp module, EmitLevel level,
                            const CompileOptions &options);

/// A new module holding `attnc_entry`, a destination-passing function over
/// memrefs (inputs in operand order, then output and LSE) around a copy of
/// `op`, plus `attnc_mask_fn` / `attnc_score_fn` copies of its regions for
/// the reference.
mlir::OwningOpRef<mlir::ModuleOp> buildCpuEntryModule(attn::AttentionOp op);

/// Derives a spec from an attention op: static sizes from its types, dynamic
/// B, Sq and Sk from `sizes` (which must give them); fails with a message.
bool specFromOp(attn::AttentionOp op, const AttentionSpec &sizes,
                AttentionSpec &spec, std::string &error);

/// The sizes of the default problem of `op` for specFromOp: b = 1 and
/// sq = sk = 128 where the op's are dynamic (0, "take the op's", where they
/// are static). `attnc compile in.mlir` writes that problem into the
/// artifact's manifest.
AttentionSpec defaultProblemSizes(attn::AttentionOp op);

/// True when attnc has a GPU target for `chip` ("sm_80", "sm_90a").
bool isGpuChip(llvm::StringRef chip);

/// The result of compiling one attention for a GPU.
struct GpuCompileResult {
  /// The module at the requested level (Kernel, NVVM), or null.
  mlir::OwningOpRef<mlir::ModuleOp> module;
  std::string ptx;
  /// ptxas output for the target (Artifact level).
  std::string cubin;
  /// The manifest entries of the artifact (docs/runtime.md).
  std::vector<std::pair<std::string, std::string>> manifest;
  /// Artifact level: the target's second kernel for short sequences (its
  /// ptx, cubin and manifest), which the runtime launches when seq_q and
  /// seq_k are at most the main manifest's `short_kernel_max_seq`; null
  /// when the artifact has one kernel.
  std::unique_ptr<GpuCompileResult> shortKernel;
};

/// Compiles `op` into the kernel of `chip` up to `level` (Kernel, NVVM, PTX
/// or Artifact). Chooses the #attn.gpu_kernel configuration unless `op`
/// carries one; when ptxas reports spills for a chosen configuration, it
/// retries with the target's fallback configuration, and warns when the
/// kept one still spills. `spec` (with concrete b, sq, sk) goes into the
/// manifest as the default problem. PTX needs CUDA_ROOT (libdevice); cubins
/// run ptxas from $CUDA_ROOT/bin. Fails with a message in `error`.
bool compileForGpu(attn::AttentionOp op, const AttentionSpec &spec,
                   llvm::StringRef chip, EmitLevel level,
                   GpuCompileResult &result, std::string &error);

/// The artifact of an Artifact-level result: its manifest, and its `ptx` and
/// `cubin` sections. `attnc compile -o` writes it (serializeArtifact);
/// `attnc-run --device=cuda` loads it from memory
/// (attnrt_artifact_load_memory).
Artifact makeArtifact(const GpuCompileResult &result);

} // namespace attnc

#endif // ATTNC_COMPILER_H
