//===- Report.h - what an attention costs -----------------------*- C++ -*-===//
//
// `attnc compile --report`: work over unmasked pairs, tile classification
// as the compiled kernel sees it, HBM traffic and held memory of a naive
// versus the tiled implementation, and the roofline bound on a named GPU.
// Plain C++ (no MLIR).
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_HARNESS_REPORT_H
#define ATTNC_HARNESS_REPORT_H

#include "harness/Reference.h"
#include "attnc/Spec.h"

#include <string>

namespace attnc {

/// Datasheet figures of a GPU for the roofline.
struct GpuModel {
  std::string name;
  /// Dense tensor-core TFLOP/s for bf16/f16 inputs, and FP32 TFLOP/s.
  double tensorTflops = 0, fp32Tflops = 0;
  /// HBM bandwidth in TB/s.
  double hbmTBs = 0;
};

/// Looks up a GPU by name ("h200", "h100", "a100"); false when unknown.
bool lookupGpu(const std::string &name, GpuModel &gpu);

/// Figures of one attention with concrete sizes.
struct AttentionReport {
  int64_t visiblePairs = 0;
  double flops = 0;
  int64_t tilesTotal = 0, tilesSkipped = 0, tilesFull = 0, tilesPartial = 0;
  /// True when the kernel cannot classify tiles (seq_ids documents, custom
  /// masks): every tile is visited with the element-wise mask.
  bool elementwise = false;
  double naiveHbmBytes = 0, tiledHbmBytes = 0;
  double naiveScoreBytes = 0, tiledWorkingSetBytes = 0;
  double arithmeticIntensity = 0;
  GpuModel gpu;
  double rooflineTflops = 0, boundMicroseconds = 0;
};

/// Computes the report for `problem` (whose mask data and custom mask, if
/// any, are used) tiled with blockQ x blockK.
AttentionReport computeReport(const AttentionSpec &spec,
                              const AttentionProblem &problem, int64_t blockQ,
                              int64_t blockK, const GpuModel &gpu);

/// The report as the text `attnc compile --report` prints.
std::string formatReport(const AttentionSpec &spec, const AttentionReport &r,
                         int64_t blockQ, int64_t blockK);

} // namespace attnc

#endif // ATTNC_HARNESS_REPORT_H
