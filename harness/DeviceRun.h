//===- DeviceRun.h - run an artifact on CUDA device 0 -----------*- C++ -*-===//
//
// The device side of attnrt-run and `attnc-run --device=cuda`: open CUDA
// device 0, copy a host AttentionProblem to device buffers, launch an
// artifact's kernel through attnrt_launch, copy the result back and,
// optionally, time more launches. Plain C++ (no MLIR); it uses the driver
// entry points of CudaDriver.h, so it builds and links without a GPU.
// Library attnrt_devicerun: linked by the tools, not part of libattnrt.so.
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_HARNESS_DEVICERUN_H
#define ATTNC_HARNESS_DEVICERUN_H

#include "harness/Reference.h"
#include "attnc/Runtime/attnrt.h"
#include "attnc/Spec.h"

#include <cstdint>
#include <string>
#include <vector>

namespace attnc {

/// CUDA device 0 as openDevice found it.
struct DeviceInfo {
  /// The device's name, e.g. "NVIDIA H200".
  std::string name;
  /// Its compute capability, e.g. 9.0.
  int ccMajor = 0, ccMinor = 0;
};

/// Opens the driver (CudaDriver.h), calls cuInit, and makes device 0's
/// primary context current on the calling thread (it stays retained for the
/// life of the process). Fails with a message: the runtime's
/// `libcuda.so.1 not found: no NVIDIA driver on this machine` without a
/// driver, `no CUDA device: cuInit failed: ...` without a device, or the
/// failing driver call.
bool openDevice(DeviceInfo &info, std::string &error);

/// The attnc GPU target for a device: `sm_90a` for compute capability 9.0,
/// `sm_80` for 8.x, and `sm_80` for any newer device as well (its cubin does
/// not load there, and the runtime falls back to the driver JIT of the
/// artifact's sm_80 PTX). Fails for devices older than 8.0, which lack the
/// bf16/f16 mma.sync instructions the kernels use.
bool defaultGpuTarget(const DeviceInfo &device, std::string &target,
                      std::string &error);

/// Options of runOnDevice.
struct DeviceRunOptions {
  /// When > 0: after the checked launch (whose result is already copied
  /// back), 3 warm-up launches, then this many launches each between two
  /// CUDA events.
  int64_t timedRuns = 0;
  /// attnrt_attention_args::num_splits (0: the runtime chooses).
  int64_t numSplits = 0;
  /// >= 0: launch from an attnrt_plan work list of the problem's lengths
  /// over that many thread blocks (0: attnrt_plan_request_init's, the
  /// blocks resident at once on the device); -1: no plan.
  int64_t planCtas = -1;
  /// > 0: O's rows this many elements apart (at least the value head dim;
  /// each head's rows start a multiple of 8 elements apart), written in
  /// place and read back row by row; the elements between the rows must
  /// stay poisoned (a kernel writing past a row fails). The runtime refuses a
  /// row stride that is not a multiple of 8 elements unless each head has
  /// one query row, which is how a kernel's 4-byte O stores past its 16-byte
  /// test run.
  /// 0: dense [b, hq, sq, dv]. Not with cu_seqlens_q (packed rows).
  int64_t oRowStride = 0;
};

/// What runOnDevice measured.
struct DeviceRunReport {
  /// The number of timed launches (0: not timed) and their median.
  int64_t timedRuns = 0;
  double medianMs = 0;
  /// 2 * visible pairs * (d + dv), set when timed.
  double flops = 0;
  /// The key splits of the launch (1 without split_kv or with a plan).
  int64_t numSplits = 1;
  /// With a plan: its thread blocks, items and partial records.
  int64_t planCtas = 0, planItems = 0, planPartials = 0;
};

/// Runs `artifact`'s kernel on `problem` in the calling thread's current
/// context (openDevice), on the default stream:
///   - converts q, k, v to `dtype` (bf16/f16 bits or f32) and copies them
///     and the mask operands and ALiBi slopes the manifest reads
///     (reads_seq_ids, reads_cu_seqlens, reads_block_mask,
///     reads_alibi_slopes) to device buffers;
///   - fills o and, when the manifest has reads_lse = 1, lse with 0xFF bytes
///     (NaN), so that an element the kernel never writes is a mismatch;
///   - launches through attnrt_launch (which validates the launch against
///     the manifest), synchronises, and copies o [b, hq, sq, dv] into `out`
///     and lse [b, hq, sq] into `lse` (left empty without an LSE);
///   - times more launches when options.timedRuns > 0.
/// Device buffers are freed on return. Fails with a message in `error`
/// (attnrt_last_error for a rejected launch, `the kernel failed: ...` when
/// the kernel faults, or the failing driver call).
bool runOnDevice(attnrt_artifact *artifact, const AttentionProblem &problem,
                 ElementType dtype, std::vector<double> &out,
                 std::vector<double> &lse, const DeviceRunOptions &options,
                 DeviceRunReport &report, std::string &error);


/// "  time: median 1.365 ms over 20 runs, 1.5 TFLOP/s\n" for a timed report,
/// "" otherwise.
std::string formatTiming(const DeviceRunReport &report);

} // namespace attnc

#endif // ATTNC_HARNESS_DEVICERUN_H
