//===- artifact_fuzzer.cpp - libFuzzer target: the artifact reader --------===//
//
// Any bytes given to readArtifact (and, when they parse, parseKernelManifest)
// must give an artifact or a message, never a crash; a read artifact must
// serialise back.
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
  attnc::KernelManifest manifest;
  (void)attnc::parseKernelManifest(artifact, manifest, error);
  std::string bytes;
  if (!attnc::serializeArtifact(artifact, bytes, error))
    std::abort(); // what was read must be writable
  return 0;
}
