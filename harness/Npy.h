//===- Npy.h - NumPy .npy files ---------------------------------*- C++ -*-===//
//
// Reads and writes the .npy arrays attnc-run exchanges with users. Plain C++.
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_HARNESS_NPY_H
#define ATTNC_HARNESS_NPY_H

#include <cstdint>
#include <string>
#include <vector>

namespace attnc {

/// An array read from a .npy file, converted to double.
struct NpyArray {
  std::vector<int64_t> shape;
  std::vector<double> data;
  /// The dtype as written in the header, e.g. "<f4".
  std::string dtype;
};

/// Reads a C-order little-endian .npy file of dtype f4, f8, i4, i8, u1, i1 or
/// b1. Returns false with a message in `error` (unreadable, unsupported
/// dtype, Fortran order, truncated data).
/// Header versions 1.0 and 2.0 are read; multi-byte dtypes must be '<',
/// one-byte ones may be '|' (as numpy writes them) or '<'. Bytes after the
/// data are an error too. b1 reads as 0 or 1.
bool readNpy(const std::string &path, NpyArray &array, std::string &error);

/// readNpy on the bytes of a file; `name` goes into the messages.
bool readNpyBytes(const std::string &bytes, const std::string &name,
                  NpyArray &array, std::string &error);

/// Writes `data` as a float32 .npy file of `shape` (format 1.0, '<f4', data
/// 64-byte aligned as numpy does). Fails when the shape's element count is
/// not data.size() or the file cannot be written.
bool writeNpyF32(const std::string &path, const std::vector<int64_t> &shape,
                 const std::vector<double> &data, std::string &error);

} // namespace attnc

#endif // ATTNC_HARNESS_NPY_H
