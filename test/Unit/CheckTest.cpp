//===- CheckTest.cpp - the shared check and the device-run helpers --------===//
//
// checkResult and formatCheck (Check.h), which attnc-run and attnrt-run
// print; the plain-C++ parts of DeviceRun.h: the default GPU target, the
// visible pairs behind the FLOP count, the time line, and runOnDevice's
// checks that need no GPU.
//
//===----------------------------------------------------------------------===//

#include "harness/Check.h"
#include "attnc/Artifact/Artifact.h"
#include "attnc/Artifact/KernelAbi.h"
#include "harness/DeviceRun.h"
#include "attnc/Runtime/attnrt.h"

#include <gtest/gtest.h>

#include <cmath>
#include <initializer_list>
#include <limits>
#include <memory>
#include <utility>

using namespace attnc;
using attnc::mask::MaskKind;

namespace {

AttentionProblem seeded(const std::string &specText, uint64_t seed = 1) {
  AttentionSpec spec;
  std::string error;
  EXPECT_TRUE(parseSpec(specText, spec, error)) << error;
  AttentionProblem p;
  makeProblem(spec, seed, p);
  return p;
}

TEST(CheckTest, ReferenceItselfPasses) {
  AttentionProblem p = seeded("b=1 hq=2 sq=20 sk=30 d=16 mask=causal");
  std::vector<double> out, lse;
  referenceAttention(p, out, lse);
  CheckResult r = checkResult(p, ElementType::BF16, out, lse, true, 1.25);
  EXPECT_TRUE(r.pass);
  EXPECT_TRUE(r.outputPass);
  EXPECT_TRUE(r.lsePass);
  EXPECT_EQ(r.output.maxAbs, 0);
  EXPECT_GT(r.naive.relFrobenius, 0);
  EXPECT_EQ(r.lse.mismatchedNonFinite, 0);
}

TEST(CheckTest, PoisonedElementsAndLseFail) {
  AttentionProblem p = seeded("b=1 hq=1 sq=8 d=16");
  std::vector<double> out, lse;
  referenceAttention(p, out, lse);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<double> badOut = out;
  badOut[3] = nan;
  CheckResult r = checkResult(p, ElementType::BF16, badOut, lse, true, 1.25);
  EXPECT_FALSE(r.outputPass);
  EXPECT_TRUE(r.lsePass);
  EXPECT_FALSE(r.pass);
  std::vector<double> badLse = lse;
  badLse[0] += 1e-3;
  r = checkResult(p, ElementType::BF16, out, badLse, true, 1.25);
  EXPECT_TRUE(r.outputPass);
  EXPECT_FALSE(r.lsePass);
  EXPECT_FALSE(r.pass);
  // Without an LSE, the LSE is not looked at.
  r = checkResult(p, ElementType::BF16, out, {}, false, 1.25);
  EXPECT_TRUE(r.pass);
  EXPECT_FALSE(r.hasLse);
}

TEST(CheckTest, ToleranceScalesTheNaiveBar) {
  AttentionProblem p = seeded("b=1 hq=2 sq=40 d=32", 7);
  std::vector<double> naive;
  naiveAttention(p, ElementType::BF16, naive);
  std::vector<double> lse;
  // The naive result has exactly the naive error: within 1.25x, not 0.5x.
  EXPECT_TRUE(checkResult(p, ElementType::BF16, naive, lse, false, 1.25).pass);
  EXPECT_FALSE(checkResult(p, ElementType::BF16, naive, lse, false, 0.5).pass);
}

TEST(CheckTest, FormatsTheLinesBothToolsPrint) {
  AttentionSpec spec;
  std::string error;
  ASSERT_TRUE(parseSpec("b=2 hq=8 hkv=2 sq=1000 mask=causal", spec, error));
  CheckResult r;
  r.output.maxAbs = 6.735e-3;
  r.output.relFrobenius = 1.593e-3;
  r.naive.relFrobenius = 3.626e-3;
  r.hasLse = true;
  r.lse.maxAbs = 2.033e-6;
  EXPECT_EQ(formatCheck("attnrt-run", spec, "cuda (NVIDIA H200)", 3, r),
            "attnrt-run: b=2 hq=8 hkv=2 sq=1000 sk=1000 d=64 dv=64 "
            "dtype=bf16 mask=causal lse=1 on cuda (NVIDIA H200), seed 3\n"
            "  output: max abs error 6.735e-03, rel Frobenius error "
            "1.593e-03 (naive bf16: 3.626e-03; bar 1.25 x naive + 1e-06)\n"
            "  lse:    max abs error 2.033e-06 (bar 1e-04), 0 non-finite "
            "mismatches\n");
  r.hasLse = false;
  r.tolerance = 0.5;
  EXPECT_EQ(formatCheck("attnc-run", spec, "cpu", 0, r),
            "attnc-run: b=2 hq=8 hkv=2 sq=1000 sk=1000 d=64 dv=64 "
            "dtype=bf16 mask=causal lse=1 on cpu, seed 0\n"
            "  output: max abs error 6.735e-03, rel Frobenius error "
            "1.593e-03 (naive bf16: 3.626e-03; bar 0.50 x naive + 1e-06)\n");
}

TEST(DeviceRunTest, DefaultTargetFollowsTheComputeCapability) {
  std::string target, error;
  DeviceInfo d;
  d.name = "NVIDIA H200";
  d.ccMajor = 9;
  d.ccMinor = 0;
  ASSERT_TRUE(defaultGpuTarget(d, target, error)) << error;
  EXPECT_EQ(target, "sm_90a");
  for (int minor : {0, 6, 7, 9}) {
    d.ccMajor = 8;
    d.ccMinor = minor;
    ASSERT_TRUE(defaultGpuTarget(d, target, error)) << error;
    EXPECT_EQ(target, "sm_80");
  }
  // Newer devices run the sm_80 PTX through the driver's JIT.
  d.ccMajor = 10;
  d.ccMinor = 0;
  ASSERT_TRUE(defaultGpuTarget(d, target, error)) << error;
  EXPECT_EQ(target, "sm_80");
  d.name = "Tesla V100";
  d.ccMajor = 7;
  EXPECT_FALSE(defaultGpuTarget(d, target, error));
  EXPECT_EQ(error, "CUDA device 0 (Tesla V100) has compute capability 7.0; "
                   "attnc's kernels need 8.0 or newer");
}

/// Visible pairs counted element by element, over every batch entry and head.
double bruteForcePairs(const AttentionProblem &p) {
  double pairs = 0;
  for (int64_t b = 0; b < p.b; ++b)
    for (int64_t h = 0; h < p.hq; ++h)
      for (int64_t i = 0; i < p.sq; ++i)
        for (int64_t j = 0; j < p.sk; ++j)
          pairs += p.visible(b, h, i, j);
  return pairs;
}

TEST(DeviceRunTest, VisiblePairsMatchEveryElement) {
  for (const char *spec :
       {"b=2 hq=3 sq=37 sk=50 mask=causal", "b=1 hq=2 sq=40 mask=none",
        "b=2 hq=2 sq=33 sk=29 mask=window:5,3:top_left",
        "b=1 hq=4 sq=30 mask=prefix:7", "b=3 hq=2 mask=document:10,0,21",
        "b=2 hq=2 mask=document:9,14:causal",
        "b=2 hq=3 sq=70 sk=90 mask=blocksparse:16,32,0.5"}) {
    AttentionProblem p = seeded(spec);
    EXPECT_EQ(visiblePairs(p), bruteForcePairs(p)) << spec;
  }
  // A custom mask may depend on the batch entry and the head.
  AttentionProblem p = seeded("b=2 hq=3 sq=20 sk=24");
  p.mask.kind = MaskKind::Custom;
  p.customMask = [](int64_t b, int64_t h, int64_t i, int64_t j) {
    return (i + j + b + 2 * h) % 3 == 0;
  };
  EXPECT_EQ(visiblePairs(p), bruteForcePairs(p));
}

TEST(DeviceRunTest, TimeLine) {
  DeviceRunReport r;
  EXPECT_EQ(formatTiming(r), "");
  r.timedRuns = 20;
  r.medianMs = 1.365;
  r.flops = 2.0 * 1e9;
  EXPECT_EQ(formatTiming(r),
            "  time: median 1.365 ms over 20 runs, 1.5 TFLOP/s\n");
}

/// A loaded artifact for 8 query heads, 2 kv heads, d = 64, reading the
/// operands named in `reads` (each "reads_..." key set to 1), with pages of
/// `pageSize` rows (0: a contiguous cache).
std::unique_ptr<attnrt_artifact, void (*)(attnrt_artifact *)>
loadArtifact(std::initializer_list<const char *> reads, int pageSize = 0) {
  Artifact a;
  for (auto [key, value] :
       std::initializer_list<std::pair<const char *, const char *>>{
           {"format", "attnc-artifact-1"},
           {"kernel", "attn_fwd"},
           {"target", "sm_90a"},
           {"dtype", "bf16"},
           {"num_q_heads", "8"},
           {"num_kv_heads", "2"},
           {"head_dim", "64"},
           {"value_head_dim", "64"},
           {"block_q", "64"},
           {"block_k", "64"},
           {"threads", "128"},
           {"dynamic_shared_memory", "0"},
           {"reads_lse", "1"},
           {"reads_seq_ids", "0"},
           {"reads_cu_seqlens", "0"},
           {"reads_block_mask", "0"},
           {"reads_alibi_slopes", "0"},
           {"gqa_pack", "1"},
           {"split_kv", "0"},
           {"tensor_maps", "0"},
           {"reads_kv_lens", "0"},
           {"reads_kv_scales", "0"},
           {"reads_cu_seqlens_q", "0"},
           {"reads_cu_seqlens_k", "0"},
           {"mask_block_q", "16"},
           {"mask_block_k", "32"}})
    a.set(key, value);
  for (const char *key : reads)
    a.set(key, "1");
  a.set("page_size", std::to_string(pageSize));
  a.set("abi_version", std::to_string(attnc::abi::kVersion));
  a.set("params", attnc::abi::paramList());
  a.set("grid", attnc::abi::kGrid);
  a.sections["ptx"] = ".version 8.0\n.target sm_90a\n";
  std::string bytes, error;
  EXPECT_TRUE(serializeArtifact(a, bytes, error)) << error;
  attnrt_artifact *loaded = nullptr;
  EXPECT_EQ(attnrt_artifact_load_memory(bytes.data(), bytes.size(), &loaded),
            ATTNRT_OK)
      << attnrt_last_error();
  return {loaded, attnrt_artifact_destroy};
}

TEST(DeviceRunTest, RejectsAProblemWithoutTheDataTheKernelReads) {
  // These checks come before the driver is opened: no GPU needed.
  std::vector<double> out, lse;
  DeviceRunReport report;
  std::string error;
  AttentionProblem p = seeded("b=2 hq=8 hkv=2 sq=40 sk=50 d=64");
  EXPECT_FALSE(
      runOnDevice(nullptr, p, ElementType::BF16, out, lse, {}, report, error));
  EXPECT_EQ(error, "expected a non-null artifact");

  auto plain = loadArtifact({});
  AttentionProblem shortQ = p;
  shortQ.q.pop_back();
  EXPECT_FALSE(runOnDevice(plain.get(), shortQ, ElementType::BF16, out, lse, {},
                           report, error));
  EXPECT_EQ(error, "expected q data of 40960 values, got 40959");

  auto documents = loadArtifact({"reads_seq_ids"});
  EXPECT_FALSE(runOnDevice(documents.get(), p, ElementType::BF16, out, lse, {},
                           report, error));
  EXPECT_EQ(error, "expected seq_ids data of 100 values, got 0");

  auto cu = loadArtifact({"reads_cu_seqlens"});
  EXPECT_FALSE(
      runOnDevice(cu.get(), p, ElementType::BF16, out, lse, {}, report, error));
  EXPECT_EQ(error, "expected cu_seqlens data of 2 values or more");

  auto sparse = loadArtifact({"reads_block_mask"});
  AttentionProblem s = seeded("b=2 hq=8 hkv=2 sq=40 sk=50 d=64 "
                              "mask=blocksparse:16,32,0.5");
  s.blockMask.pop_back();
  EXPECT_FALSE(runOnDevice(sparse.get(), s, ElementType::BF16, out, lse, {},
                           report, error));
  EXPECT_EQ(error, "expected block mask data of 6 values, got 5");

  auto slopes = loadArtifact({"reads_alibi_slopes"});
  EXPECT_FALSE(runOnDevice(slopes.get(), p, ElementType::BF16, out, lse, {},
                           report, error));
  EXPECT_EQ(error, "expected alibi_slopes data of 8 values, got 0");

  auto lens = loadArtifact({"reads_kv_lens"});
  EXPECT_FALSE(runOnDevice(lens.get(), p, ElementType::BF16, out, lse, {},
                           report, error));
  EXPECT_EQ(error, "expected kv_lens data of 2 values, got 0");

  // A ragged artifact takes a ragged problem (with packed keys when it reads
  // cu_seqlens_k), and a ragged problem a ragged artifact.
  auto ragged = loadArtifact({"reads_cu_seqlens_q", "reads_cu_seqlens_k"});
  EXPECT_FALSE(runOnDevice(ragged.get(), p, ElementType::BF16, out, lse, {},
                           report, error));
  EXPECT_EQ(error, "expected a ragged problem (packed keys) exactly when the "
                   "artifact reads cu_seqlens_q (cu_seqlens_k)");
  AttentionProblem r = seeded("b=3 hq=8 hkv=2 sq=40 sk=50 d=64 ragged=1");
  EXPECT_FALSE(runOnDevice(plain.get(), r, ElementType::BF16, out, lse, {},
                           report, error));
  EXPECT_EQ(error, "expected a ragged problem (packed keys) exactly when the "
                   "artifact reads cu_seqlens_q (cu_seqlens_k)");

  // A paged artifact needs a problem with its page size and a whole table.
  auto paged = loadArtifact({"reads_kv_lens"}, 16);
  AttentionProblem c = seeded("b=2 hq=8 hkv=2 sq=1 sk=64 d=64 paged=16");
  EXPECT_FALSE(runOnDevice(paged.get(),
                           seeded("b=2 hq=8 hkv=2 sq=1 sk=64 "
                                  "d=64 paged=8"),
                           ElementType::BF16, out, lse, {}, report, error));
  EXPECT_EQ(error, "expected a problem with page size 16 (the artifact's), "
                   "got 8");
  c.pageTable.pop_back();
  EXPECT_FALSE(runOnDevice(paged.get(), c, ElementType::BF16, out, lse, {},
                           report, error));
  EXPECT_EQ(error, "expected a page table of b * sk / page_size entries");

  // An fp8 artifact needs the problem's codes and scales.
  auto fp8 = loadArtifact({"reads_kv_scales"});
  EXPECT_FALSE(runOnDevice(fp8.get(), p, ElementType::BF16, out, lse, {},
                           report, error));
  EXPECT_EQ(error, "expected fp8 codes of k and v and 2 * hkv scales");
}

} // namespace
