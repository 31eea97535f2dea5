//===- spec_fuzzer.cpp - libFuzzer target: the spec parser ----------------===//
//
// Any text given to parseSpec or parseSizes must give a spec or a message,
// never a crash, and a parsed spec must print and parse back to itself.
//
//===----------------------------------------------------------------------===//

#include "attnc/Spec.h"

#include <cstdint>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string text(reinterpret_cast<const char *>(data), size);
  attnc::AttentionSpec spec;
  std::string error;
  if (attnc::parseSpec(text, spec, error)) {
    std::string printed = attnc::printSpec(spec);
    attnc::AttentionSpec again;
    if (!attnc::parseSpec(printed, again, error) ||
        attnc::printSpec(again) != printed)
      std::abort(); // a printed spec must parse back to itself
  }
  attnc::AttentionSpec sizes;
  (void)attnc::parseSizes(text, sizes, error);
  return 0;
}
