//===- TensorMaps.h - the TMA tensor maps of a launch ----------*- C++ -*-===//
//
// Internal to attnrt: what cuTensorMapEncodeTiled is asked for the q, k and
// v maps of a `tensor_maps` kernel (KernelAbi.h), apart from the driver, so
// that the shapes of contiguous, ragged, paged and fp8 tensors are tested
// without a GPU.
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_LIB_RUNTIME_TENSORMAPS_H
#define ATTNC_LIB_RUNTIME_TENSORMAPS_H

#include "attnc/Artifact/Artifact.h"
#include "attnc/Runtime/attnrt.h"

#include <cstdint>
#include <vector>

namespace attnc::rt {

/// One tensor map: rank 4, dims {D, S, H, B} innermost first (a paged
/// cache's k and v: {D, page_size, H, num_pages}), byte strides of S, H and
/// B, a box of 128 bytes by `box[1]` rows, 128-byte swizzle.
struct TensorMapShape {
  /// The kernel parameter (abi::QMap, KMap or VMap) and the tensor's name.
  unsigned param = 0;
  const char *name = "";
  const void *data = nullptr;
  /// CUtensorMapDataType: UINT8 (0) for fp8 codes, FLOAT16 (6), BFLOAT16 (9).
  int dataType = 0;
  uint64_t dims[4] = {};
  uint64_t strides[3] = {};
  unsigned box[4] = {};
};

/// The maps of the launch `a` of a kernel with manifest `m` into `out` (an
/// empty tensor gets none), or ATTNRT_ERROR_INVALID_ARGUMENT (recorded for
/// attnrt_last_error) naming the tensor whose address or strides are not
/// multiples of 16 bytes.
attnrt_status tensorMapShapes(const KernelManifest &m,
                              const attnrt_attention_args &a,
                              std::vector<TensorMapShape> &out);

} // namespace attnc::rt

#endif // ATTNC_LIB_RUNTIME_TENSORMAPS_H
