//===- Inputs.h - the --inputs .npy files of a run --------------*- C++ -*-===//
//
// Reads the .npy inputs of attnc-run and attnrt-run into an AttentionProblem:
// q, k and v with their shapes checked against the spec, then one file per
// optional operand the kernel reads. Both tools print the messages as they
// are (docs/attnc-run.md, docs/runtime.md). Plain C++ (no MLIR).
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_HARNESS_INPUTS_H
#define ATTNC_HARNESS_INPUTS_H

#include "harness/Npy.h"
#include "harness/Reference.h"
#include "attnc/Spec.h"

#include <cstdint>
#include <string>
#include <vector>

namespace attnc {

/// Splits a comma-separated list, dropping empty items ("a,,b," gives a, b;
/// "" gives none).
std::vector<std::string> splitComma(const std::string &s);

/// A shape as "[1, 2, 3]".
std::string shapeText(const std::vector<int64_t> &shape);

/// The optional operands a kernel reads. After q, k and v, the --inputs
/// files go to them in kernel-parameter order: seq_ids, cu_seqlens,
/// block_mask, alibi_slopes.
struct InputOperands {
  bool seqIds = false, cuSeqlens = false, blockMask = false,
       alibiSlopes = false, kvLens = false;
  /// The batch and head dims the IR fixes for the block mask (0: not
  /// fixed). A file with another batch (head count) fails ("the IR's
  /// block_mask has batch 1", "... has head count 4"). An artifact's kernel
  /// takes either.
  int64_t blockMaskBatch = 0, blockMaskHeads = 0;
};

/// Sets problem.q, k and v from paths[0], [1] and [2], in that order each
/// read and its shape checked against [b, hq, sq, d], [b, hkv, sk, d] and
/// [b, hkv, sk, dv] of `spec` ("expected q (q.npy) of shape [1, 2, 30, 32],
/// got [...]"); then rounds every value to spec.dtype. With `read` (an array
/// of three: q, k, v), the files were read already and only their shapes
/// are checked (the arrays are moved from).
///
/// Then reads paths[3...] into the operands `operands` names, one file each
/// in order; trailing ones may be left out (the problem keeps the generated
/// operand). seq_ids must be [b, sk]; cu_seqlens rank 1, at least 2 entries,
/// from 0 to sk and non-decreasing (when `documentLengths` is given, it gets
/// the file's document lengths); block_mask [1 or b, 1 or hq,
/// ceil(sq/block_q), ceil(sk/block_k)], nonzero meaning visible;
/// alibi_slopes [hq]. A file left over fails ("unexpected extra --inputs file
/// ..."). Returns false with the message in `error` at the first problem.
/// Needs at least 3 paths.
bool loadInputs(const std::vector<std::string> &paths,
                const AttentionSpec &spec, const InputOperands &operands,
                AttentionProblem &problem, std::string &error,
                NpyArray *read = nullptr,
                std::vector<int64_t> *documentLengths = nullptr);

} // namespace attnc

#endif // ATTNC_HARNESS_INPUTS_H
