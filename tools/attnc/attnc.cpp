//===- attnc.cpp - the attnc compile driver -------------------------------===//
//
//   attnc compile in.mlir|--spec "..." --target=cpu --emit=LEVEL [--report]
//   attnc compile in.mlir|--spec "..." --target=sm_90a -o out.attnc
//
// For the CPU, lowers an attention to the requested level (attn, tiled,
// loops, llvm) and prints it. For a GPU (sm_80, sm_90a), writes the artifact
// (PTX, cubin, manifest) or prints the kernel, NVVM or PTX level. --report
// prints what the attention costs instead.
//
//===----------------------------------------------------------------------===//

#include "attnc/Artifact/Artifact.h"
#include "attnc/Compiler.h"
#include "attnc/Spec.h"
#include "harness/CpuKernel.h"
#include "harness/Report.h"

#include "dialects/Attn/AttnDialect.h"
#include "passes/Transforms/Passes.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>

using namespace attnc;
namespace cl = llvm::cl;

/// The tool's own options; --help shows these only.
static cl::OptionCategory toolOptions("attnc compile options");

static cl::opt<std::string> inputFile(cl::Positional, cl::cat(toolOptions),
                                      cl::desc("[attention.mlir]"),
                                      cl::init(""));
static cl::opt<std::string> specText("spec", cl::cat(toolOptions),
                                     cl::desc("Attention spec"), cl::init(""));
static cl::opt<std::string> target("target", cl::cat(toolOptions),
                                   cl::desc("cpu, sm_80 or sm_90a"),
                                   cl::init("cpu"));
static cl::opt<std::string>
    emit("emit", cl::cat(toolOptions),
         cl::desc("Stop after: attn | tiled | loops | llvm (cpu); attn | tiled | "
                  "kernel | nvvm | ptx | artifact (GPU targets)"),
         cl::init(""));
static cl::opt<bool> report("report", cl::cat(toolOptions),
                            cl::desc("Print the cost report"), cl::init(false));
static cl::opt<std::string> gpuName("gpu", cl::cat(toolOptions),
                                    cl::desc("GPU of the roofline (h200, "
                                             "h100, a100)"),
                                    cl::init("h200"));
static cl::opt<std::string>
    sizesText("sizes", cl::cat(toolOptions),
              cl::desc("Sizes of dynamic dims for --report, e.g. "
                       "\"b=2 sq=1024 sk=1024\""),
              cl::init(""));
static cl::opt<int64_t> blockQ("block-q", cl::cat(toolOptions),
                               cl::desc("Query rows per tile"), cl::init(64));
static cl::opt<int64_t> blockK("block-k", cl::cat(toolOptions),
                               cl::desc("Keys per tile"), cl::init(64));
static cl::opt<bool> noSkip("no-skip", cl::cat(toolOptions),
                            cl::desc("Do not skip masked tiles"),
                            cl::init(false));
static cl::opt<std::string> outputFile("o", cl::cat(toolOptions),
                                       cl::desc("Output file"),
                                       cl::value_desc("filename"),
                                       cl::init("-"));

static int fail(const std::string &message) {
  llvm::errs() << "attnc: error: " << message << "\n";
  return 1;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  if (argc < 2 || std::strcmp(argv[1], "compile") != 0) {
    llvm::errs() << "usage: attnc compile [in.mlir | --spec \"...\"] "
                    "[--target=cpu|sm_80|sm_90a] [--emit=LEVEL] "
                    "[--report] [-o out]\n       attnc compile --help\n";
    return 1;
  }
  // Drop the subcommand.
  std::vector<char *> args = {argv[0]};
  args.insert(args.end(), argv + 2, argv + argc);
  cl::HideUnrelatedOptions(toolOptions);
  cl::ParseCommandLineOptions(static_cast<int>(args.size()), args.data(),
                              "attnc compile: lower an attention\n");

  bool gpu = target != "cpu";
  if (gpu && !isGpuChip(target))
    return fail("expected --target=cpu, sm_80 or sm_90a, got " + target);
  std::string levelName = !emit.empty() ? emit.getValue()
                          : gpu         ? "artifact"
                                        : "llvm";
  std::optional<EmitLevel> level = parseEmitLevel(levelName);
  if (!level || !isEmitLevelOf(*level, gpu))
    return fail("expected --emit=" + emitLevelNames(gpu).str() + " for " +
                target + ", got " + levelName);
  bool kernelLevel =
      gpu && *level != EmitLevel::Attn && *level != EmitLevel::Tiled;
  if (*level == EmitLevel::Artifact && outputFile == "-")
    return fail("an artifact is binary: give -o out.attnc");
  if (inputFile.empty() == specText.empty())
    return fail("give either an .mlir file or --spec, not both");
  if (blockQ <= 0 || blockK <= 0)
    return fail("expected positive --block-q and --block-k");

  std::unique_ptr<mlir::MLIRContext> ctx = createContext();
  std::string error, irText, bufferName = "<spec>";
  AttentionSpec given;
  if (!specText.empty()) {
    if (!parseSpec(specText, given, error))
      return fail("bad --spec: " + error);
    irText = specToMlir(given);
  } else {
    auto buffer = llvm::MemoryBuffer::getFileOrSTDIN(inputFile);
    if (!buffer)
      return fail("cannot read " + inputFile + ": " +
                  buffer.getError().message());
    irText = (*buffer)->getBuffer().str();
    bufferName = inputFile;
  }
  llvm::SourceMgr sourceMgr;
  mlir::SourceMgrDiagnosticHandler diagnostics(sourceMgr, ctx.get());
  mlir::OwningOpRef<mlir::ModuleOp> module =
      parseModule(*ctx, sourceMgr, irText, bufferName);
  if (!module)
    return 1;

  CompileOptions options;
  options.blockQ = blockQ;
  options.blockK = blockK;
  options.skipMaskedTiles = !noSkip;
  options.target = target;

  std::string errorMessage;
  auto output = mlir::openOutputFile(outputFile, &errorMessage);
  if (!output)
    return fail(errorMessage);

  if (kernelLevel && !report) {
    mlir::FailureOr<attn::AttentionOp> op = findSingleAttention(*module);
    if (mlir::failed(op))
      return 1;
    // The manifest's default problem: the spec, or the IR's sizes with
    // b = 1 and 128 rows where they are dynamic.
    AttentionSpec sizes = specText.empty() ? defaultProblemSizes(*op) : given;
    AttentionSpec spec;
    if (!specFromOp(*op, sizes, spec, error))
      return fail(error);
    if (!specText.empty()) {
      spec.documentLengths = given.documentLengths;
      spec.blockDensity = given.blockDensity;
      spec.scale = given.scale;
    }
    GpuCompileResult result;
    if (!compileForGpu(*op, spec, target, *level, result, error))
      return fail(error);
    if (*level == EmitLevel::Artifact) {
      std::string bytes;
      if (!serializeArtifact(makeArtifact(result), bytes, error))
        return fail(error);
      output->os() << bytes;
    } else if (*level == EmitLevel::PTX) {
      output->os() << result.ptx;
    } else {
      result.module->print(output->os());
      output->os() << "\n";
    }
    output->keep();
    return 0;
  }

  if (report) {
    GpuModel model;
    if (!lookupGpu(gpuName, model))
      return fail("unknown --gpu " + gpuName + " (h200, h100, a100)");
    mlir::FailureOr<attn::AttentionOp> op = findSingleAttention(*module);
    if (mlir::failed(op))
      return 1;
    AttentionSpec sizes = given;
    if (specText.empty() && !parseSizes(sizesText, sizes, error))
      return fail("bad --sizes: " + error);
    AttentionSpec spec;
    if (!specFromOp(*op, sizes, spec, error))
      return fail(error);
    if (!specText.empty()) {
      spec.documentLengths = given.documentLengths;
      spec.blockDensity = given.blockDensity;
    }
    if (spec.kvLens)
      return fail("--report counts pairs and tiles from the sizes, and kv_lens "
                  "are run-time data: report the attention without kv_lens "
                  "for its full-length bound");
    if (spec.kvFp8)
      return fail("--report counts bytes in the query's element type: an fp8 "
                  "cache (kv_dtype=fp8) is not modelled yet");
    AttentionProblem problem;
    if (!checkHostMemory(spec, error))
      return fail(error);
    makeProblem(spec, /*seed=*/0, problem);
    std::unique_ptr<CpuKernel> kernel;
    if (op->hasMaskFn()) {
      // A custom mask is evaluated by running its region.
      mlir::OwningOpRef<mlir::ModuleOp> entry = buildCpuEntryModule(*op);
      kernel = CpuKernel::compile(*entry, options, error);
      if (!kernel)
        return fail(error);
      problem.customMask = kernel->maskFn();
    }
    // The tile sizes the passes would use (op, then module attribute).
    mlir::FailureOr<TileSizes> tiles =
        getTileSizes(*op, TileSizes{blockQ, blockK});
    if (mlir::failed(tiles))
      return 1;
    int64_t bq = tiles->blockQ, bk = tiles->blockK;
    AttentionReport r = computeReport(spec, problem, bq, bk, model);
    output->os() << formatReport(spec, r, bq, bk);
    output->keep();
    return 0;
  }

  if (mlir::failed(lowerTo(*module, *level, options)))
    return 1;
  module->print(output->os());
  output->os() << "\n";
  output->keep();
  return 0;
}
