//===- Check.h - a run checked against the float64 reference ----*- C++ -*-===//
//
// The check attnc-run (CPU or GPU) and attnrt-run apply to a kernel's result:
// the error against the float64 reference, the bar set by a naive
// implementation in the input precision, and the lines both tools print.
// Plain C++ (no MLIR).
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_HARNESS_CHECK_H
#define ATTNC_HARNESS_CHECK_H

#include "harness/Reference.h"
#include "attnc/Spec.h"

#include <cstdint>
#include <string>
#include <vector>

namespace attnc {

/// f32 rounding of the inputs' products bounds how exact any f32 kernel can
/// be; below this floor on the rel Frobenius error, differences are
/// summation order.
constexpr double kOutputErrorFloor = 1e-6;
/// The absolute bar on the LSE's max abs error (natural-log units).
constexpr double kLseErrorBar = 1e-4;

/// A kernel's result against the reference and the naive bar.
struct CheckResult {
  /// The kernel's output error and the naive implementation's.
  ErrorStats output, naive;
  /// Whether the LSE was checked, and its error.
  bool hasLse = false;
  ErrorStats lse;
  /// The allowed ratio of the kernel's error to the naive error.
  double tolerance = 1.25;
  bool outputPass = false, lsePass = true;
  /// outputPass && lsePass.
  bool pass = false;
};

/// Runs the float64 reference and the naive implementation in `dtype` on
/// `problem` and checks `out` [b, hq, sq, dv] (and, when `hasLse`, `lse`
/// [b, hq, sq]) against them:
///   output: no non-finite mismatch, a finite rel Frobenius error, and
///           error <= tolerance * naive error + kOutputErrorFloor;
///   lse:    no non-finite mismatch, a finite max abs error <= kLseErrorBar.
CheckResult checkResult(const AttentionProblem &problem, ElementType dtype,
                        const std::vector<double> &out,
                        const std::vector<double> &lse, bool hasLse,
                        double tolerance);

/// The lines a tool prints for a check, each ending in a newline:
///   <tool>: <printSpec(spec)> on <device>, seed <seed>
///     output: max abs error ..., rel Frobenius error ... (naive <dtype>: ...;
///             bar <tolerance> x naive + 1e-06)
///     lse:    max abs error ... (bar 1e-04), N non-finite mismatches
/// (the lse line only when the LSE was checked). PASS or FAIL is not part of
/// it: the tools print it last.
std::string formatCheck(const std::string &tool, const AttentionSpec &spec,
                        const std::string &device, uint64_t seed,
                        const CheckResult &result);

} // namespace attnc

#endif // ATTNC_HARNESS_CHECK_H
