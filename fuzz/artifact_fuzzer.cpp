//===- artifact_fuzzer.cpp - libFuzzer target: the artifact reader --------===//
//
// Any bytes given to readArtifact (and, when they parse, parseKernelManifest
// and checkShortKernel down the nested short-sequence kernels, as the
// runtime's loader walks them) must give an artifact or a message, never a
// crash; a read artifact must serialise back.
//
//===----------------------------------------------------------------------===//

#include "attnc/Artifact/Artifact.h"

#include <cstdint>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  attnc::Artifact artifact;
  std::string error;
  if (!attnc::readArtifact(data, size, artifact, error))
    return 0;
  std::string bytes;
  if (!attnc::serializeArtifact(artifact, bytes, error))
    std::abort(); // what was read must be writable
  attnc::KernelManifest manifest;
  if (!attnc::parseKernelManifest(artifact, manifest, error))
    return 0;
  // The nested short kernels, each checked against the one around it; the
  // bounds strictly decrease, so the walk ends.
  while (manifest.shortKernelMaxSeq > 0) {
    attnc::Artifact nested;
    attnc::KernelManifest nestedManifest;
    if (!attnc::readShortKernel(artifact, manifest, nested, nestedManifest,
                                error))
      return 0;
    if (nestedManifest.shortKernelMaxSeq >= manifest.shortKernelMaxSeq)
      std::abort(); // checkShortKernel refuses a bound that does not shrink
    artifact = std::move(nested);
    manifest = std::move(nestedManifest);
  }
  return 0;
}
