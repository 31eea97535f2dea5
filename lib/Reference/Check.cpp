//===- Check.cpp - a run checked against the float64 reference ------------===//

#include "harness/Check.h"

#include <cmath>
#include <cstdio>

using namespace attnc;

CheckResult attnc::checkResult(const AttentionProblem &problem,
                               ElementType dtype,
                               const std::vector<double> &out,
                               const std::vector<double> &lse, bool hasLse,
                               double tolerance) {
  CheckResult r;
  r.tolerance = tolerance;
  r.hasLse = hasLse;
  std::vector<double> refOut, refLse, naiveOut;
  referenceAttention(problem, refOut, refLse);
  naiveAttention(problem, dtype, naiveOut);
  r.output = compare(out, refOut);
  r.naive = compare(naiveOut, refOut);
  r.outputPass = r.output.mismatchedNonFinite == 0 &&
                 std::isfinite(r.output.relFrobenius) &&
                 r.output.relFrobenius <=
                     tolerance * r.naive.relFrobenius + kOutputErrorFloor;
  if (hasLse) {
    r.lse = compare(lse, refLse);
    r.lsePass = r.lse.mismatchedNonFinite == 0 && std::isfinite(r.lse.maxAbs) &&
                r.lse.maxAbs <= kLseErrorBar;
  }
  r.pass = r.outputPass && r.lsePass;
  return r;
}

std::string attnc::formatCheck(const std::string &tool,
                               const AttentionSpec &spec,
                               const std::string &device, uint64_t seed,
                               const CheckResult &r) {
  std::string text = tool + ": " + printSpec(spec) + " on " + device +
                     ", seed " + std::to_string(seed) + "\n";
  char line[256];
  std::snprintf(line, sizeof(line),
                "  output: max abs error %.3e, rel Frobenius error %.3e "
                "(naive %s: %.3e; bar %.2f x naive + %.0e)\n",
                r.output.maxAbs, r.output.relFrobenius,
                elementTypeName(spec.dtype), r.naive.relFrobenius, r.tolerance,
                kOutputErrorFloor);
  text += line;
  if (r.hasLse) {
    std::snprintf(line, sizeof(line),
                  "  lse:    max abs error %.3e (bar %.0e), %lld non-finite "
                  "mismatches\n",
                  r.lse.maxAbs, kLseErrorBar,
                  static_cast<long long>(r.lse.mismatchedNonFinite));
    text += line;
  }
  return text;
}
