//===- main.cpp - attnc embedded in another program -----------------------===//
//
// Builds an attn.attention with the C++ API (a causal GQA attention, bf16,
// head dim 64), prints it, compiles it for sm_90a to an artifact (PTX, cubin,
// manifest; the CUDA toolkit's ptxas and libdevice, CUDA_ROOT) and loads that
// artifact with the runtime's C API, which attnrt_launch then runs on device
// buffers (as attnrt-run does on a GPU machine).
// Usage: attnc-embed OUTPUT.attnc
//
//===----------------------------------------------------------------------===//

#include "attnc/Artifact/Artifact.h"
#include "attnc/Compiler.h"
#include "attnc/Runtime/attnrt.h"
#include "attnc/Spec.h"
#include "dialects/Attn/AttnDialect.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <string>

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: attnc-embed OUTPUT.attnc\n");
    return 2;
  }
  std::unique_ptr<mlir::MLIRContext> ctx = attnc::createContext();

  attnc::AttentionSpec spec;
  spec.b = 1;
  spec.hq = 8;
  spec.hkv = 2;
  spec.sq = spec.sk = 128;
  spec.d = spec.dv = 64;
  spec.dtype = attnc::ElementType::BF16;
  spec.mask = attnc::mask::MaskSpec::causal(attnc::mask::Alignment::BottomRight);
  mlir::OwningOpRef<mlir::ModuleOp> module = attnc::buildSpecModule(*ctx, spec);
  mlir::FailureOr<attnc::attn::AttentionOp> op =
      attnc::findSingleAttention(*module);
  if (mlir::failed(op))
    return 1;
  llvm::outs() << "built: " << op->getOperationName() << " with "
               << op->getNumQueryHeads() << " query heads over "
               << op->getNumKeyValueHeads() << " key/value heads, mask "
               << attnc::mask::stringifyMaskKind(op->getMaskSpec().kind)
               << "\n";

  attnc::GpuCompileResult result;
  std::string error;
  if (!attnc::compileForGpu(*op, spec, "sm_90a", attnc::EmitLevel::Artifact,
                            result, error)) {
    llvm::errs() << "compile: " << error << "\n";
    return 1;
  }
  if (!attnc::writeArtifact(attnc::makeArtifact(result), argv[1], error)) {
    llvm::errs() << "write: " << error << "\n";
    return 1;
  }
  llvm::outs() << "artifact: " << argv[1] << " (" << result.ptx.size()
               << " bytes of PTX, " << result.cubin.size()
               << " bytes of cubin)\n";

  attnrt_artifact *artifact = nullptr;
  if (attnrt_artifact_load_file(argv[1], &artifact) != ATTNRT_OK) {
    llvm::errs() << "load: " << attnrt_last_error() << "\n";
    return 1;
  }
  llvm::outs() << "runtime: kernel " << attnrt_artifact_get(artifact, "kernel")
               << " for " << attnrt_artifact_get(artifact, "target") << "\n";
  attnrt_artifact_destroy(artifact);
  return 0;
}
