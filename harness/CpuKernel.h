//===- CpuKernel.h - run the CPU build of an attention ----------*- C++ -*-===//
//
// The CPU path as a test harness: an entry module (buildCpuEntryModule)
// lowered to LLVM and JIT-compiled with MLIR's ExecutionEngine, run on a
// host AttentionProblem (harness/Reference.h) for the float64 check.
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_HARNESS_CPUKERNEL_H
#define ATTNC_HARNESS_CPUKERNEL_H

#include "attnc/Compiler.h"
#include "harness/Reference.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace attnc {

/// The CPU build of an entry module (ExecutionEngine), ready to run.
class CpuKernel {
public:
  /// Lowers a copy of `entryModule` to LLVM and JIT-compiles it. Returns
  /// null with a message in `error` on failure.
  static std::unique_ptr<CpuKernel> compile(mlir::ModuleOp entryModule,
                                            const CompileOptions &options,
                                            std::string &error);
  ~CpuKernel();

  /// Runs the kernel on `problem` (inputs converted to `dtype`); fills `out`
  /// [b, hq, sq, dv] and, when the op has one, `lse` [b, hq, sq].
  bool run(const AttentionProblem &problem, ElementType dtype,
           std::vector<double> &out, std::vector<double> &lse,
           std::string &error) const;

  /// The op's mask_fn / score_fn regions as host functions, for the
  /// reference; empty when the op has no such region.
  std::function<bool(int64_t, int64_t, int64_t, int64_t)> maskFn() const;
  std::function<double(double, int64_t, int64_t, int64_t, int64_t)>
  scoreFn() const;

  bool hasLse() const { return lse; }

  /// The tile steps the runs so far executed and how many were unmasked,
  /// when compiled with CompileOptions::countTileSteps; std::nullopt
  /// otherwise.
  std::optional<std::pair<int64_t, int64_t>> tileStepCounts() const;

private:
  struct Impl;
  CpuKernel(std::unique_ptr<Impl> impl, bool lse);
  std::unique_ptr<Impl> impl;
  bool lse;
};

} // namespace attnc

#endif // ATTNC_HARNESS_CPUKERNEL_H
