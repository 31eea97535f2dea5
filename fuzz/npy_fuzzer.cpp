//===- npy_fuzzer.cpp - libFuzzer target: the .npy reader -----------------===//
//
// Any bytes given to readNpyBytes must give an array or a message, never a
// crash, and an array's element count must match its shape.
//
//===----------------------------------------------------------------------===//

#include "harness/Npy.h"

#include <cstdint>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string bytes(reinterpret_cast<const char *>(data), size);
  attnc::NpyArray array;
  std::string error;
  if (!attnc::readNpyBytes(bytes, "fuzz.npy", array, error))
    return 0;
  uint64_t count = 1;
  for (int64_t dim : array.shape)
    count *= static_cast<uint64_t>(dim);
  if (count != array.data.size())
    std::abort();
  return 0;
}
