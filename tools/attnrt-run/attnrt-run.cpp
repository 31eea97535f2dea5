//===- attnrt-run.cpp - run an attnc artifact on the GPU and check it -----===//
//
// Loads a compiled artifact, builds the attention of its spec (or of a
// --spec that changes only the sizes) with seeded random inputs or inputs
// from .npy files, launches the kernel through the attnrt C API and compares
// the result with the float64 reference and with a naive implementation in
// the same input precision, exactly as attnc-run does on the CPU. With
// --time=N it then times N launches between CUDA events.
//
// Plain C++ with no MLIR or LLVM: it runs on a GPU machine that has only
// libc and the NVIDIA driver. Exit codes: 0 PASS, 1 FAIL, 2 bad input or a
// failure to load or run (including a machine without a driver).
//
//===----------------------------------------------------------------------===//

#include "harness/Check.h"
#include "harness/Inputs.h"
#include "harness/Npy.h"
#include "harness/Reference.h"
#include "attnc/Artifact/Artifact.h"
#include "harness/DeviceRun.h"
#include "attnc/Runtime/attnrt.h"
#include "attnc/Spec.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

using namespace attnc;
using attnc::mask::DocumentSource;
using attnc::mask::MaskKind;

static const char *const kUsage =
    "usage: attnrt-run --artifact=FILE.attnc [--spec=\"b=2 sq=1000 ...\"] "
    "[--seed=N]\n"
    "                  [--inputs=q.npy,k.npy,v.npy[,mask operand][,alibi "
    "slopes]]\n"
    "                  [--output=o.npy] [--lse=lse.npy] [--time=N] "
    "[--tolerance=X]\n"
    "                  [--splits=N] [--plan=CTAS] [--o-row-stride=N]\n"
    "\n"
    "Runs the artifact's kernel on CUDA device 0 and checks it against a "
    "float64\n"
    "reference. --spec defaults to the artifact's spec and may change only b, "
    "sq,\n"
    "sk, the document lengths and the block-sparse density. Exit codes: 0 "
    "PASS,\n"
    "1 FAIL, 2 bad input or a failure to load or run. --splits sets the key "
    "splits\n"
    "of a split_kv (decode) artifact, or how a persistent kernel with "
    "tail_splits\n"
    "runs its last wave (1: whole items, 2: its key tiles dealt to every "
    "block);\n"
    "by default the runtime chooses.\n"
    "--plan runs it from an attnrt_plan work list of the spec's lengths over\n"
    "CTAS thread blocks (0: the blocks resident at once on the device).\n"
    "--o-row-stride writes O in place with its rows N elements apart (N >= "
    "dv;\n"
    "the runtime refuses strides that are not multiples of 8 unless sq = 1).\n";

static int badInput(const std::string &message) {
  std::fprintf(stderr, "attnrt-run: error: %s\n", message.c_str());
  return 2;
}

//===----------------------------------------------------------------------===//
// Command line
//===----------------------------------------------------------------------===//

namespace {
struct Options {
  std::string artifact, spec, inputs, output, lse;
  uint64_t seed = 0;
  int64_t time = 0;
  int64_t splits = 0;
  /// --plan: the work list's thread blocks (0: the device's), -1 without.
  int64_t plan = -1;
  /// --o-row-stride: O's rows this many elements apart (0: dense).
  int64_t oRowStride = 0;
  double tolerance = 1.25;
  bool help = false;
};
} // namespace

static bool parseUnsigned(const std::string &s, uint64_t &out) {
  if (s.empty() || s.size() > 20)
    return false;
  uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9')
      return false;
    uint64_t next = v * 10 + static_cast<uint64_t>(c - '0');
    if (next / 10 != v)
      return false;
    v = next;
  }
  out = v;
  return true;
}

/// Parses --key=value and --key value; false with a message on error.
static bool parseOptions(int argc, char **argv, Options &o,
                         std::string &error) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "-h" || arg == "--help" || arg == "-help") {
      o.help = true;
      continue;
    }
    if (arg.compare(0, 2, "--") != 0) {
      error = "unexpected argument '" + arg + "'";
      return false;
    }
    std::string key = arg.substr(2), value;
    bool hasValue = false;
    size_t eq = key.find('=');
    if (eq != std::string::npos) {
      value = key.substr(eq + 1);
      key = key.substr(0, eq);
      hasValue = true;
    }
    static const char *const known[] = {
        "artifact", "spec",      "seed",   "inputs", "output",      "lse",
        "time",     "tolerance", "splits", "plan",   "o-row-stride"};
    if (std::find_if(std::begin(known), std::end(known), [&](const char *k) {
          return key == k;
        }) == std::end(known)) {
      error = "unknown option '--" + key + "'";
      return false;
    }
    if (!hasValue) {
      if (i + 1 >= argc) {
        error = "expected a value after --" + key;
        return false;
      }
      value = argv[++i];
    }
    if (key == "artifact") {
      o.artifact = value;
    } else if (key == "spec") {
      o.spec = value;
    } else if (key == "inputs") {
      o.inputs = value;
    } else if (key == "output") {
      o.output = value;
    } else if (key == "lse") {
      o.lse = value;
    } else if (key == "seed") {
      if (!parseUnsigned(value, o.seed)) {
        error =
            "expected --seed to be a non-negative integer, got '" + value + "'";
        return false;
      }
    } else if (key == "time") {
      uint64_t n = 0;
      if (!parseUnsigned(value, n) || n < 1 || n > 1000000) {
        error = "expected --time to be a number of runs in [1, 1000000], "
                "got '" +
                value + "'";
        return false;
      }
      o.time = static_cast<int64_t>(n);
    } else if (key == "splits") {
      uint64_t n = 0;
      if (!parseUnsigned(value, n) || n < 1 || n > 4096) {
        error = "expected --splits to be a number of key splits in [1, 4096], "
                "got '" +
                value + "'";
        return false;
      }
      o.splits = static_cast<int64_t>(n);
    } else if (key == "plan") {
      uint64_t n = 0;
      if (!parseUnsigned(value, n) || n > 1000000) {
        error = "expected --plan to be a number of thread blocks in [0, "
                "1000000] (0: the device's), got '" +
                value + "'";
        return false;
      }
      o.plan = static_cast<int64_t>(n);
    } else if (key == "o-row-stride") {
      uint64_t n = 0;
      if (!parseUnsigned(value, n) || n < 1 || n > (uint64_t{1} << 30)) {
        error = "expected --o-row-stride to be a number of elements in [1, "
                "2^30], got '" +
                value + "'";
        return false;
      }
      o.oRowStride = static_cast<int64_t>(n);
    } else if (key == "tolerance") {
      char *end = nullptr;
      o.tolerance = std::strtod(value.c_str(), &end);
      if (value.empty() || *end != '\0' || !std::isfinite(o.tolerance) ||
          o.tolerance <= 0) {
        error =
            "expected --tolerance to be a positive number, got '" + value + "'";
        return false;
      }
    }
  }
  return true;
}

//===----------------------------------------------------------------------===//
// Spec against artifact
//===----------------------------------------------------------------------===//

/// Fails when `given` changes anything of `fixed` other than b, sq, sk, the
/// document lengths and the block-sparse density.
static bool checkSpecChange(const AttentionSpec &fixed,
                            const AttentionSpec &given, std::string &error) {
  auto differs = [&](const char *key, const std::string &from,
                     const std::string &to) {
    error = std::string("--spec changes ") + key + " from " + from + " to " +
            to +
            ": an artifact fixes everything but b, sq, sk, the document "
            "lengths and the block-sparse density (the artifact's spec: " +
            printSpec(fixed) + ")";
    return false;
  };
  auto num = [](double v) {
    char buf[64];
    std::snprintf(buf, sizeof(buf), "%.17g", v);
    return std::string(buf);
  };
  if (given.hq != fixed.hq)
    return differs("hq", std::to_string(fixed.hq), std::to_string(given.hq));
  if (given.hkv != fixed.hkv)
    return differs("hkv", std::to_string(fixed.hkv), std::to_string(given.hkv));
  if (given.d != fixed.d)
    return differs("d", std::to_string(fixed.d), std::to_string(given.d));
  if (given.dv != fixed.dv)
    return differs("dv", std::to_string(fixed.dv), std::to_string(given.dv));
  if (given.dtype != fixed.dtype)
    return differs("dtype", elementTypeName(fixed.dtype),
                   elementTypeName(given.dtype));
  if (given.effectiveScale() != fixed.effectiveScale())
    return differs("scale", num(fixed.effectiveScale()),
                   num(given.effectiveScale()));
  const mask::MaskSpec &a = fixed.mask, &b = given.mask;
  bool aligned = a.kind == MaskKind::Causal ||
                 a.kind == MaskKind::SlidingWindow ||
                 a.kind == MaskKind::PrefixLM;
  auto maskText = [](const AttentionSpec &s) {
    std::string t = printSpec(s);
    size_t at = t.find(" mask=");
    size_t end = t.find(' ', at + 1);
    return t.substr(at + 6, end == std::string::npos ? end : end - at - 6);
  };
  if (a.kind != b.kind || (aligned && a.alignment != b.alignment) ||
      a.windowLeft != b.windowLeft || a.windowRight != b.windowRight ||
      a.prefixLength != b.prefixLength ||
      (a.kind == MaskKind::Document &&
       (a.documentCausal != b.documentCausal ||
        a.documentSource != b.documentSource)) ||
      a.blockQ != b.blockQ || a.blockK != b.blockK)
    return differs("mask", maskText(fixed), maskText(given));
  if (given.softcap != fixed.softcap)
    return differs("softcap", fixed.softcap ? num(*fixed.softcap) : "off",
                   given.softcap ? num(*given.softcap) : "off");
  if (given.alibi != fixed.alibi)
    return differs("alibi", fixed.alibi ? "on" : "off",
                   given.alibi ? "on" : "off");
  if (given.lse != fixed.lse)
    return differs("lse", fixed.lse ? "1" : "0", given.lse ? "1" : "0");
  return true;
}

/// Fails when the spec does not describe the kernel of the manifest.
static bool checkSpecAgainstManifest(const AttentionSpec &s,
                                     const KernelManifest &m,
                                     std::string &error) {
  auto mismatch = [&](const std::string &what, const std::string &got,
                      const std::string &want) {
    error = "the spec's " + what + " " + got +
            " does not match the "
            "artifact's " +
            want;
    return false;
  };
  auto str = [](int64_t v) { return std::to_string(v); };
  if (s.hq != m.numQHeads)
    return mismatch("hq", str(s.hq), "num_q_heads " + str(m.numQHeads));
  if (s.hkv != m.numKvHeads)
    return mismatch("hkv", str(s.hkv), "num_kv_heads " + str(m.numKvHeads));
  if (s.d != m.headDim)
    return mismatch("d", str(s.d), "head_dim " + str(m.headDim));
  if (s.dv != m.valueHeadDim)
    return mismatch("dv", str(s.dv), "value_head_dim " + str(m.valueHeadDim));
  if (elementTypeName(s.dtype) != m.dtype)
    return mismatch("dtype", elementTypeName(s.dtype), "dtype " + m.dtype);
  if (s.lse != m.readsLse)
    return mismatch("lse", s.lse ? "1" : "0",
                    std::string("reads_lse ") + (m.readsLse ? "1" : "0"));
  bool document = s.mask.kind == MaskKind::Document;
  if (document != (m.readsSeqIds || m.readsCuSeqlens))
    return mismatch("mask", mask::stringifyMaskKind(s.mask.kind),
                    std::string("document operands (reads_seq_ids ") +
                        (m.readsSeqIds ? "1" : "0") + ", reads_cu_seqlens " +
                        (m.readsCuSeqlens ? "1" : "0") + ")");
  bool sparse = s.mask.kind == MaskKind::BlockSparse;
  if (sparse != m.readsBlockMask)
    return mismatch("mask", mask::stringifyMaskKind(s.mask.kind),
                    std::string("reads_block_mask ") +
                        (m.readsBlockMask ? "1" : "0"));
  if (sparse &&
      (s.mask.blockQ != m.maskBlockQ || s.mask.blockK != m.maskBlockK))
    return mismatch("block-sparse blocks",
                    str(s.mask.blockQ) + "x" + str(s.mask.blockK),
                    "mask_block_q x mask_block_k " + str(m.maskBlockQ) + "x" +
                        str(m.maskBlockK));
  if (m.readsAlibiSlopes && !s.alibi)
    return mismatch("alibi", "off", "reads_alibi_slopes 1");
  if (s.kvFp8 != m.readsKvScales)
    return mismatch("kv_dtype", s.kvFp8 ? "fp8" : "same",
                    std::string("reads_kv_scales ") +
                        (m.readsKvScales ? "1" : "0"));
  if (s.kvLens != m.readsKvLens)
    return mismatch("kv_lens", s.kvLens ? "1" : "0",
                    std::string("reads_kv_lens ") +
                        (m.readsKvLens ? "1" : "0"));
  if (s.pageSize != m.pageSize)
    return mismatch("paged", str(s.pageSize), "page_size " + str(m.pageSize));
  if (s.ragged != m.readsCuSeqlensQ)
    return mismatch("ragged", s.ragged ? "on" : "off",
                    std::string("reads_cu_seqlens_q ") +
                        (m.readsCuSeqlensQ ? "1" : "0"));
  return true;
}

//===----------------------------------------------------------------------===//
// Main
//===----------------------------------------------------------------------===//

int main(int argc, char **argv) {
  Options opts;
  std::string error;
  if (!parseOptions(argc, argv, opts, error)) {
    std::fprintf(stderr, "attnrt-run: error: %s\n%s", error.c_str(), kUsage);
    return 2;
  }
  if (opts.help) {
    std::printf("%s", kUsage);
    return 0;
  }
  if (opts.artifact.empty()) {
    std::fprintf(stderr, "attnrt-run: error: expected --artifact\n%s", kUsage);
    return 2;
  }

  // The artifact: a handle for launching, and its manifest.
  attnrt_artifact *handleRaw = nullptr;
  if (attnrt_artifact_load_file(opts.artifact.c_str(), &handleRaw) != ATTNRT_OK)
    return badInput(attnrt_last_error());
  std::unique_ptr<attnrt_artifact, void (*)(attnrt_artifact *)> handle(
      handleRaw, attnrt_artifact_destroy);
  Artifact file;
  KernelManifest manifest;
  if (!readArtifactFile(opts.artifact, file, error) ||
      !parseKernelManifest(file, manifest, error))
    return badInput(error);

  // The spec: the artifact's, or a --spec that changes only the sizes.
  AttentionSpec spec;
  bool haveArtifactSpec = !manifest.spec.empty();
  if (haveArtifactSpec && !parseSpec(manifest.spec, spec, error))
    return badInput("the artifact's spec '" + manifest.spec +
                    "' does not parse: " + error);
  if (!opts.spec.empty()) {
    AttentionSpec given;
    if (!parseSpec(opts.spec, given, error))
      return badInput("bad --spec: " + error);
    if (haveArtifactSpec && !checkSpecChange(spec, given, error))
      return badInput(error);
    spec = given;
  } else if (!haveArtifactSpec) {
    return badInput("the artifact has no 'spec' in its manifest: give --spec");
  }

  // Inputs; without --spec, their shapes give b, sq and sk.
  std::vector<std::string> inputs = splitComma(opts.inputs);
  if (!inputs.empty() && inputs.size() < 3)
    return badInput("expected --inputs=q.npy,k.npy,v.npy[,...]");
  NpyArray qkv[3];
  if (!inputs.empty()) {
    for (int i = 0; i < 3; ++i)
      if (!readNpy(inputs[i], qkv[i], error))
        return badInput(error);
    const NpyArray &q = qkv[0], &k = qkv[1];
    if (opts.spec.empty() && spec.mask.kind != MaskKind::Document &&
        q.shape.size() == 4 && k.shape.size() == 4) {
      spec.b = q.shape[0];
      spec.sq = q.shape[2];
      spec.sk = k.shape[2];
    }
  }
  if (!checkSpecAgainstManifest(spec, manifest, error))
    return badInput(error);
  if (spec.b > 65535 || spec.sq > INT32_MAX || spec.sk > INT32_MAX)
    return badInput("expected b <= 65535 and sq, sk <= 2^31 - 1");

  // The device, before the (possibly slow) host work.
  DeviceInfo device;
  if (!openDevice(device, error))
    return badInput(error);

  // The problem on the host.
  AttentionProblem problem;
  if (!checkHostMemory(spec, error))
    return badInput(error);
  makeProblem(spec, opts.seed, problem);
  if (manifest.readsSeqIds && !manifest.readsCuSeqlens)
    problem.mask.documentSource = DocumentSource::SegmentIds;
  if (!inputs.empty()) {
    // q, k and v as read above, then one file per optional operand the
    // kernel reads.
    InputOperands operands;
    operands.seqIds = manifest.readsSeqIds;
    operands.cuSeqlens = manifest.readsCuSeqlens;
    operands.blockMask = manifest.readsBlockMask;
    operands.alibiSlopes = manifest.readsAlibiSlopes;
    if (!loadInputs(inputs, spec, operands, problem, error, qkv,
                    &spec.documentLengths))
      return badInput(error);
  }

  // The run: device buffers (o and lse poisoned with NaN), the launch
  // through attnrt_launch, the copy back and, with --time, the timing.
  std::vector<double> out, lseOut;
  DeviceRunOptions runOptions;
  runOptions.timedRuns = opts.time;
  runOptions.numSplits = opts.splits;
  runOptions.planCtas = opts.plan;
  runOptions.oRowStride = opts.oRowStride;
  DeviceRunReport timing;
  if (!runOnDevice(handle.get(), problem, spec.dtype, out, lseOut, runOptions,
                   timing, error))
    return badInput(error);

  // The check, as attnc-run reports it.
  CheckResult check = checkResult(problem, spec.dtype, out, lseOut,
                                  manifest.readsLse, opts.tolerance);
  std::printf("%s", formatCheck("attnrt-run", spec,
                                "cuda (" + device.name + ")", opts.seed, check)
                        .c_str());
  std::fflush(stdout);
  if (!opts.output.empty() &&
      !writeNpyF32(opts.output, {spec.b, spec.hq, spec.sq, spec.dv}, out,
                   error))
    return badInput(error);
  if (!opts.lse.empty()) {
    if (!manifest.readsLse)
      return badInput("--lse given but the artifact writes no LSE");
    if (!writeNpyF32(opts.lse, {spec.b, spec.hq, spec.sq}, lseOut, error))
      return badInput(error);
  }
  if (manifest.splitKv && opts.plan >= 0)
    std::printf("  work list: %lld thread blocks, %lld items, %lld partial "
                "records\n",
                static_cast<long long>(timing.planCtas),
                static_cast<long long>(timing.planItems),
                static_cast<long long>(timing.planPartials));
  else if (manifest.splitKv)
    std::printf("  key splits: %lld\n", static_cast<long long>(timing.numSplits));
  else if (manifest.tailSplits)
    std::printf("  last wave: %s\n", timing.numSplits >= 2
                                         ? "key tiles dealt to every block"
                                         : "whole items");
  std::printf("%s", formatTiming(timing).c_str());
  std::printf("%s\n", check.pass ? "PASS" : "FAIL");
  return check.pass ? 0 : 1;
}
