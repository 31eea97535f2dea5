//===- attnc-run.cpp - run an attention and check it against float64 -----===//
//
// Compiles an attention (an .mlir file or a one-line spec), runs it with
// seeded random inputs or inputs from .npy files, and compares the result
// with the float64 reference and with a naive implementation in the same
// input precision. Prints the errors and PASS or FAIL.
//
// --device=cpu JIT-compiles the CPU lowering and calls it. --device=cuda
// compiles the GPU kernel for --target (by default the arch of CUDA device
// 0) into an in-memory artifact and runs it on device 0 through the runtime
// (attnrt, DeviceRun.h), exactly as attnrt-run runs an artifact file; a
// mask_fn / score_fn region is JIT-compiled for the host as well, for the
// reference.
// Exit codes: 0 PASS, 1 FAIL, 2 bad input or a failure to compile or run.
//
//===----------------------------------------------------------------------===//

#include "attnc/Artifact/Artifact.h"
#include "attnc/Compiler.h"
#include "attnc/Runtime/attnrt.h"
#include "attnc/Spec.h"
#include "harness/Check.h"
#include "harness/CpuKernel.h"
#include "harness/DeviceRun.h"
#include "harness/Inputs.h"
#include "harness/Npy.h"
#include "harness/Reference.h"

#include "dialects/Attn/AttnDialect.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstdio>
#include <memory>

using namespace attnc;
namespace cl = llvm::cl;

/// The tool's own options; --help shows these only.
static cl::OptionCategory toolOptions("attnc-run options");

static cl::opt<std::string> inputFile(cl::Positional, cl::cat(toolOptions),
                                      cl::desc("[attention.mlir]"),
                                      cl::init(""));
static cl::opt<std::string>
    specText("spec", cl::cat(toolOptions),
             cl::desc("Attention spec, e.g. \"b=2 hq=8 sq=1000 "
                      "d=64 mask=causal\" (see docs/attnc-run.md)"),
             cl::init(""));
static cl::opt<std::string>
    sizesText("sizes", cl::cat(toolOptions),
              cl::desc("Sizes of the dynamic dims of an .mlir input, e.g. "
                       "\"b=2 sq=100 sk=120\""),
              cl::init(""));
static cl::opt<std::string> device("device", cl::cat(toolOptions),
                                   cl::desc("cpu or cuda"), cl::init("cpu"));
static cl::opt<std::string>
    target("target", cl::cat(toolOptions),
           cl::desc("GPU target of --device=cuda: sm_80 or sm_90a (default: "
                    "the arch of CUDA device 0)"),
           cl::init(""));
static cl::opt<int64_t>
    timeRuns("time", cl::cat(toolOptions),
             cl::desc("With --device=cuda: after the check, time N launches "
                      "(3 warm-up launches first)"),
             cl::init(0));
static cl::opt<uint64_t> seed("seed", cl::cat(toolOptions),
                              cl::desc("Seed of the random inputs"),
                              cl::init(0));
static cl::opt<std::string>
    inputsList("inputs", cl::cat(toolOptions),
               cl::desc("q.npy,k.npy,v.npy[,mask operand.npy][,alibi "
                        "slopes.npy]: inputs instead of random ones"),
               cl::init(""));
static cl::opt<std::string> outputPath("output", cl::cat(toolOptions),
                                       cl::desc("Write the output as .npy"),
                                       cl::init(""));
static cl::opt<std::string> lsePath("lse", cl::cat(toolOptions),
                                    cl::desc("Write the LSE as .npy"),
                                    cl::init(""));
static cl::opt<int64_t> blockQ("block-q", cl::cat(toolOptions),
                               cl::desc("Query rows per tile (CPU)"),
                               cl::init(64));
static cl::opt<int64_t> blockK("block-k", cl::cat(toolOptions),
                               cl::desc("Keys per tile (CPU)"), cl::init(64));
static cl::opt<bool> noSkip("no-skip", cl::cat(toolOptions),
                            cl::desc("Do not skip masked tiles (every tile "
                                     "gets the element-wise mask; CPU)"),
                            cl::init(false));
static cl::opt<bool> countTiles(
    "count-tiles", cl::cat(toolOptions),
    cl::desc("Count the key tiles the CPU run visits and the unmasked ones "
             "(attn-count-tile-steps); compare with attnc compile --report"),
    cl::init(false));
static cl::opt<double>
    tolerance("tolerance", cl::cat(toolOptions),
              cl::desc("Allowed ratio of the kernel's error to the naive "
                       "same-precision error"),
              cl::init(1.25));

static int badInput(const std::string &message) {
  llvm::errs() << "attnc-run: error: " << message << "\n";
  return 2;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(toolOptions);
  cl::ParseCommandLineOptions(
      argc, argv,
      "attnc-run: run an attention and check it against a float64 "
      "reference\n");

  if (device != "cpu" && device != "cuda")
    return badInput("expected --device=cpu or --device=cuda, got " + device);
  bool cuda = device == "cuda";
  std::string gpuTarget = target;
  if (!target.empty()) {
    if (!cuda)
      return badInput("--target=" + target + " needs --device=cuda");
    if (!isGpuChip(target))
      return badInput("expected --target=sm_80 or --target=sm_90a, got " +
                      target);
  }
  if (!std::isfinite(tolerance) || tolerance <= 0)
    return badInput("expected --tolerance to be a positive number, got " +
                    std::to_string(tolerance.getValue()));
  if (timeRuns.getNumOccurrences() && (timeRuns < 1 || timeRuns > 1000000))
    return badInput("expected --time to be a number of runs in [1, "
                    "1000000], got " +
                    std::to_string(timeRuns.getValue()));
  if (timeRuns > 0 && !cuda)
    return badInput("--time needs --device=cuda");
  if (cuda) {
    // These set the CPU passes; the GPU kernel chooses its own tiles.
    for (const cl::Option *o : {static_cast<const cl::Option *>(&blockQ),
                                static_cast<const cl::Option *>(&blockK),
                                static_cast<const cl::Option *>(&noSkip)})
      if (o->getNumOccurrences())
        return badInput("--" + o->ArgStr.str() +
                        " applies to --device=cpu only (the GPU kernel "
                        "chooses its own tiles)");
  }
  if (inputFile.empty() == specText.empty())
    return badInput("give either an .mlir file or --spec, not both");
  if (blockQ <= 0 || blockK <= 0)
    return badInput("expected positive --block-q and --block-k");

  std::unique_ptr<mlir::MLIRContext> ctx = createContext();
  std::string error;

  // The attention, as IR.
  AttentionSpec given;
  std::string irText, bufferName;
  if (!specText.empty()) {
    if (!parseSpec(specText, given, error))
      return badInput("bad --spec: " + error);
    irText = specToMlir(given);
    bufferName = "<spec>";
  } else {
    auto buffer = llvm::MemoryBuffer::getFileOrSTDIN(inputFile);
    if (!buffer)
      return badInput("cannot read " + inputFile + ": " +
                      buffer.getError().message());
    irText = (*buffer)->getBuffer().str();
    bufferName = inputFile;
    if (!parseSizes(sizesText, given, error))
      return badInput("bad --sizes: " + error);
  }
  llvm::SourceMgr sourceMgr;
  mlir::SourceMgrDiagnosticHandler diagnostics(sourceMgr, ctx.get());
  mlir::OwningOpRef<mlir::ModuleOp> module =
      parseModule(*ctx, sourceMgr, irText, bufferName);
  if (!module)
    return 2;
  mlir::FailureOr<attn::AttentionOp> op = findSingleAttention(*module);
  if (mlir::failed(op))
    return 2;

  // Sizes of dynamic dims may also come from the .npy inputs.
  std::vector<std::string> inputs = splitComma(inputsList);
  if (!inputs.empty() && inputs.size() < 3)
    return badInput("expected --inputs q.npy,k.npy,v.npy[,...]");
  if (!inputs.empty() && specText.empty()) {
    NpyArray q, k;
    if (!readNpy(inputs[0], q, error) || !readNpy(inputs[1], k, error))
      return badInput(error);
    if (q.shape.size() != 4 || k.shape.size() != 4)
      return badInput("expected q and k .npy inputs of rank 4");
    if (given.b <= 0)
      given.b = q.shape[0];
    if (given.sq <= 0)
      given.sq = q.shape[2];
    if (given.sk <= 0)
      given.sk = k.shape[2];
  }
  AttentionSpec spec;
  if (!specFromOp(*op, given, spec, error))
    return badInput(error);

  // The device (before the slower host work), and the target it runs.
  DeviceInfo gpu;
  if (cuda) {
    if (!openDevice(gpu, error))
      return badInput(error);
    if (gpuTarget.empty() && !defaultGpuTarget(gpu, gpuTarget, error))
      return badInput(error);
  }

  // Inputs, and the operands an --inputs file may replace.
  AttentionProblem problem;
  if (!checkHostMemory(spec, error))
    return badInput(error);
  makeProblem(spec, seed, problem);
  InputOperands operands;
  operands.seqIds = static_cast<bool>(op->getSeqIds());
  operands.cuSeqlens = static_cast<bool>(op->getCuSeqlens());
  operands.alibiSlopes = static_cast<bool>(op->getAlibiSlopes());
  operands.kvLens = static_cast<bool>(op->getKvLens());
  if (mlir::Value bm = op->getBlockMask()) {
    // makeProblem draws a grid per batch entry and/or head when the IR's
    // block mask has those dims (specFromOp).
    auto type = mlir::cast<mlir::RankedTensorType>(bm.getType());
    operands.blockMask = true;
    auto fixed = [](int64_t dim) {
      return mlir::ShapedType::isDynamic(dim) ? int64_t(0) : dim;
    };
    operands.blockMaskBatch = fixed(type.getDimSize(0));
    operands.blockMaskHeads = fixed(type.getDimSize(1));
  }
  if (auto slopes = op->getAlibiAttr()) {
    problem.alibiSlopes.assign(slopes.asArrayRef().begin(),
                               slopes.asArrayRef().end());
  }
  // The report names the documents of an input cu_seqlens.
  if (!inputs.empty() && spec.kvFp8)
    return badInput("--inputs does not take an fp8 cache (kv_dtype=fp8): the "
                    "run quantises generated keys and values");
  if (!inputs.empty() && spec.ragged)
    return badInput("--inputs does not take a ragged batch (cu_seqlens_q): "
                    "the run packs generated sequences of its own lengths");
  if (!inputs.empty() && spec.pageSize > 0)
    return badInput("--inputs does not take a paged cache (paged=" +
                    std::to_string(spec.pageSize) +
                    "): the run scatters generated keys into its pages");
  if (!inputs.empty() && !loadInputs(inputs, spec, operands, problem, error,
                                     nullptr, &spec.documentLengths))
    return badInput(error);

  // An IR that passes one value as several of q, k, v computes with one
  // tensor: the reference must see the same values there.
  if (op->getKey() == op->getQuery())
    problem.k = problem.q;
  if (op->getValue() == op->getQuery())
    problem.v = problem.q;
  else if (op->getValue() == op->getKey())
    problem.v = problem.k;

  // Compile and run.
  CompileOptions options;
  options.blockQ = blockQ;
  options.blockK = blockK;
  // On the GPU the CPU build is not run: no tile skipping (nor its remark).
  options.skipMaskedTiles = !noSkip && !cuda;
  if (countTiles && cuda)
    return badInput("--count-tiles counts the CPU run: use --device=cpu");
  options.countTileSteps = countTiles;
  bool hasLse = static_cast<bool>(op->getLse());
  std::vector<double> out, lse;
  std::string where = "cpu";
  DeviceRunReport timing;
  // The CPU build: the kernel itself on the CPU, and on the GPU only the
  // host copies of a mask_fn / score_fn region for the reference.
  std::unique_ptr<CpuKernel> kernel;
  if (!cuda || op->hasMaskFn() || op->hasScoreFn()) {
    mlir::OwningOpRef<mlir::ModuleOp> entry = buildCpuEntryModule(*op);
    kernel = CpuKernel::compile(*entry, options, error);
    if (!kernel)
      return badInput(error);
    problem.customMask = kernel->maskFn();
    problem.customScore = kernel->scoreFn();
  }
  if (!cuda) {
    if (!kernel->run(problem, spec.dtype, out, lse, error))
      return badInput(error);
  } else {
    // The GPU kernel as an artifact in memory, loaded and run as attnrt-run
    // runs an artifact file.
    GpuCompileResult compiled;
    if (!compileForGpu(*op, spec, gpuTarget, EmitLevel::Artifact, compiled,
                       error))
      return badInput(error);
    std::string bytes;
    if (!serializeArtifact(makeArtifact(compiled), bytes, error))
      return badInput(error);
    attnrt_artifact *loaded = nullptr;
    if (attnrt_artifact_load_memory(bytes.data(), bytes.size(), &loaded) !=
        ATTNRT_OK)
      return badInput(attnrt_last_error());
    std::unique_ptr<attnrt_artifact, void (*)(attnrt_artifact *)> artifact(
        loaded, attnrt_artifact_destroy);
    DeviceRunOptions runOptions;
    runOptions.timedRuns = timeRuns;
    if (!runOnDevice(artifact.get(), problem, spec.dtype, out, lse, runOptions,
                     timing, error))
      return badInput(error);
    where = "cuda (" + gpu.name + ", " + gpuTarget + ")";
  }

  CheckResult check =
      checkResult(problem, spec.dtype, out, lse, hasLse, tolerance);
  std::printf("%s", formatCheck("attnc-run", spec, where, seed, check).c_str());
  if (kernel)
    if (auto counts = kernel->tileStepCounts())
      std::printf("tile steps: %lld visited, %lld unmasked\n",
                  static_cast<long long>(counts->first),
                  static_cast<long long>(counts->second));
  if (!outputPath.empty() &&
      !writeNpyF32(outputPath, {spec.b, spec.hq, spec.sq, spec.dv}, out, error))
    return badInput(error);
  if (!lsePath.empty()) {
    if (!hasLse)
      return badInput("--lse given but the attention has no LSE result");
    if (!writeNpyF32(lsePath, {spec.b, spec.hq, spec.sq}, lse, error))
      return badInput(error);
  }
  std::printf("%s", formatTiming(timing).c_str());
  std::printf("%s\n", check.pass ? "PASS" : "FAIL");
  return check.pass ? 0 : 1;
}
