//===- RuntimeTest.cpp - the attnc runtime without a GPU ------------------===//
//
// The artifact format (round trips, every malformed-file message), kernel
// manifests, launch validation (one case per rule), the C API's behaviour on
// a machine without a driver, the C++ wrapper, and attnrt-run's exit codes
// for bad input and a missing driver. Nothing here needs a GPU.
//
//===----------------------------------------------------------------------===//

#include "attnc/Artifact/Artifact.h"
#include "attnc/Artifact/KernelAbi.h"
#include "attnc/Runtime/attnrt.h"
#include "attnc/Runtime/attnrt.hpp"
#include "attnc/Runtime/attnrt_plan.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <dlfcn.h>
#include <string>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace attnc;

namespace {

std::string tempPath(const std::string &name) {
  return ::testing::TempDir() + "attnc-rt-" + std::to_string(::getpid()) + "-" +
         name;
}

/// The manifest of a bf16 causal GQA kernel as the compiler writes it.
Artifact kernelArtifact() {
  Artifact a;
  a.set("format", "attnc-artifact-1");
  a.set("kernel", "attn_fwd");
  a.set("target", "sm_90a");
  a.set("spec", "b=2 hq=8 hkv=2 sq=100 sk=100 d=64 dv=64 dtype=bf16 "
                "mask=causal lse=1");
  a.set("dtype", "bf16");
  a.set("num_q_heads", "8");
  a.set("num_kv_heads", "2");
  a.set("head_dim", "64");
  a.set("value_head_dim", "64");
  a.set("block_q", "64");
  a.set("block_k", "64");
  a.set("threads", "128");
  a.set("dynamic_shared_memory", "65536");
  a.set("reads_lse", "1");
  a.set("reads_seq_ids", "0");
  a.set("reads_cu_seqlens", "0");
  a.set("reads_block_mask", "0");
  a.set("reads_alibi_slopes", "0");
  a.set("gqa_pack", "1");
  a.set("split_kv", "0");
  a.set("tensor_maps", "0");
  a.set("reads_kv_lens", "0");
  a.set("page_size", "0");
  a.set("reads_kv_scales", "0");
  a.set("reads_cu_seqlens_q", "0");
  a.set("reads_cu_seqlens_k", "0");
  a.set("abi_version", std::to_string(attnc::abi::kVersion));
  a.set("params", attnc::abi::paramList());
  a.set("grid", attnc::abi::kGrid);
  a.sections["ptx"] = ".version 8.0\n.target sm_90a\n";
  return a;
}

std::string bytesOf(const Artifact &a) {
  std::string bytes, error;
  EXPECT_TRUE(serializeArtifact(a, bytes, error)) << error;
  return bytes;
}

/// readArtifact's message for `bytes` ("" when it parses).
std::string readError(const std::string &bytes) {
  Artifact a;
  std::string error;
  if (readArtifact(bytes.data(), bytes.size(), a, error))
    return "";
  return error;
}

/// parseKernelManifest's message for `a` ("" when it passes).
std::string manifestError(const Artifact &a) {
  KernelManifest m;
  std::string error;
  if (parseKernelManifest(a, m, error))
    return "";
  return error;
}

const char *kHead = "attnc-artifact 1\n";

} // namespace

//===----------------------------------------------------------------------===//
// Artifact files
//===----------------------------------------------------------------------===//

TEST(ArtifactTest, SerializesTheDocumentedLayout) {
  Artifact a;
  a.set("format", "attnc-artifact-1");
  a.set("kernel", "k");
  a.sections["ptx"] = "abc";
  EXPECT_EQ(bytesOf(a), "attnc-artifact 1\n"
                        "format = attnc-artifact-1\n"
                        "kernel = k\n"
                        "end\n"
                        "section ptx 3\n"
                        "abc\n");
}

TEST(ArtifactTest, RoundTripsBinarySections) {
  Artifact a = kernelArtifact();
  // A cubin-like blob with newlines, NULs, high bytes and text that looks
  // like artifact syntax.
  std::string cubin("\x7f"
                    "ELF\x02\x01\x01\0\0\n\nend\nsection ptx 3\n",
                    26);
  for (int i = 0; i < 256; ++i)
    cubin += static_cast<char>(i);
  cubin += std::string(3, '\0');
  a.sections["cubin"] = cubin;
  a.sections["empty"] = "";
  std::string bytes = bytesOf(a);

  Artifact b;
  std::string error;
  ASSERT_TRUE(readArtifact(bytes.data(), bytes.size(), b, error)) << error;
  EXPECT_EQ(b.manifest, a.manifest);
  EXPECT_EQ(b.sections, a.sections);
  EXPECT_EQ(b.sections["cubin"].size(), cubin.size());

  std::string path = tempPath("roundtrip.attnc");
  ASSERT_TRUE(writeArtifact(a, path, error)) << error;
  Artifact c;
  ASSERT_TRUE(readArtifactFile(path, c, error)) << error;
  EXPECT_EQ(c.manifest, a.manifest);
  EXPECT_EQ(c.sections, a.sections);
  std::remove(path.c_str());
}

TEST(ArtifactTest, ReadsValuesTrimmedAndSkipsBlankLines) {
  std::string bytes = std::string(kHead) + "\n  kernel   =   attn fwd  \r\n"
                                           "spec=b=2 sq=3\n"
                                           "empty =\n"
                                           "\n"
                                           "end\n";
  Artifact a;
  std::string error;
  ASSERT_TRUE(readArtifact(bytes.data(), bytes.size(), a, error)) << error;
  ASSERT_EQ(a.manifest.size(), 3u);
  EXPECT_EQ(*a.get("kernel"), "attn fwd");
  EXPECT_EQ(*a.get("spec"), "b=2 sq=3");
  EXPECT_EQ(*a.get("empty"), "");
  EXPECT_EQ(a.get("absent"), nullptr);
  EXPECT_TRUE(a.sections.empty());
}

TEST(ArtifactTest, SetReplacesInPlace) {
  Artifact a;
  a.set("x", "1");
  a.set("y", "2");
  a.set("x", "3");
  ASSERT_EQ(a.manifest.size(), 2u);
  EXPECT_EQ(a.manifest[0].first, "x");
  EXPECT_EQ(a.manifest[0].second, "3");
}

TEST(ArtifactTest, RejectsMalformedFiles) {
  std::string ok = std::string(kHead) + "kernel = k\nend\n";
  ASSERT_EQ(readError(ok), "");
  EXPECT_EQ(readError(""),
            "empty artifact: expected the first line 'attnc-artifact 1'");
  EXPECT_EQ(readError("\x7f"
                      "ELF...\n"),
            "not an attnc artifact: expected the first line 'attnc-artifact "
            "1', got '?ELF...'");
  EXPECT_EQ(readError("attnc-artifact 2\nend\n"),
            "unsupported artifact format version '2' (this runtime reads "
            "version 1)");
  EXPECT_EQ(readError(std::string(kHead) + "kernel = k\n"),
            "missing 'end' line after the manifest");
  EXPECT_EQ(readError(std::string(kHead) + "kernel = k\nend"),
            "line 3: expected a newline after 'end'");
  EXPECT_EQ(readError(std::string(kHead) + "kernel k\nend\n"),
            "line 2: expected 'key = value' or 'end', got 'kernel k'");
  EXPECT_EQ(readError(std::string(kHead) + " = k\nend\n"),
            "line 2: expected a manifest key without white space before '=', "
            "got ' = k'");
  EXPECT_EQ(readError(std::string(kHead) + "my key = k\nend\n"),
            "line 2: expected a manifest key without white space before '=', "
            "got 'my key = k'");
  EXPECT_EQ(readError(std::string(kHead) + "kernel = a\nkernel = b\nend\n"),
            "line 3: duplicate manifest key 'kernel'");
  // What is read must be writable back (found by fuzz/artifact_fuzzer.cpp).
  EXPECT_EQ(readError(std::string(kHead) + "end = 1\nend\n"),
            "line 2: expected 'end' alone on its line, got 'end = 1'");
  EXPECT_EQ(readError(std::string(kHead) + "spec = a\rb\nend\n"),
            "line 2: expected the value of manifest key 'spec' without a "
            "carriage return");
}

TEST(ArtifactTest, RejectsMalformedSections) {
  std::string head = std::string(kHead) + "kernel = k\nend\n";
  EXPECT_EQ(readError(head + "section ptx 3\nabc\n"), "");
  EXPECT_EQ(readError(head + "sections ptx 3\nabc\n"),
            "line 4: expected 'section <name> <size>', got 'sections ptx 3'");
  EXPECT_EQ(readError(head + "section ptx\nabc\n"),
            "line 4: expected 'section <name> <size>', got 'section ptx'");
  EXPECT_EQ(readError(head + "section ptx three\nabc\n"),
            "line 4: expected the size in bytes of section 'ptx' as a "
            "non-negative integer, got 'three'");
  EXPECT_EQ(readError(head + "section ptx -3\nabc\n"),
            "line 4: expected the size in bytes of section 'ptx' as a "
            "non-negative integer, got '-3'");
  EXPECT_EQ(readError(head + "section ptx 99999999999999999999\nabc\n"),
            "line 4: expected the size in bytes of section 'ptx' as a "
            "non-negative integer, got '99999999999999999999'");
  EXPECT_EQ(readError(head + "section ptx 3"),
            "line 4: section 'ptx' is truncated: its header has no newline");
  EXPECT_EQ(readError(head + "section cubin 100\nabc\n"),
            "line 4: section 'cubin' is truncated: it declares 100 bytes "
            "(plus a newline) but 4 remain");
  // The bytes are there but not their newline.
  EXPECT_EQ(readError(head + "section ptx 3\nabc"),
            "line 4: section 'ptx' is truncated: it declares 3 bytes (plus a "
            "newline) but 3 remain");
  EXPECT_EQ(readError(head + "section ptx 2\nabc\n"),
            "line 4: expected a newline after the 2 bytes of section 'ptx' "
            "(wrong size?)");
  EXPECT_EQ(readError(head + "section ptx 1\na\nsection ptx 1\nb\n"),
            "line 6: duplicate section 'ptx'");
  EXPECT_EQ(readError(head + "section ptx 3\nabc\ntrailing"),
            "line 6: expected 'section <name> <size>', got 'trailing'");
}

TEST(ArtifactTest, RefusesToSerializeWhatCannotBeRead) {
  std::string bytes, error;
  Artifact a;
  a.set("bad key", "v");
  EXPECT_FALSE(serializeArtifact(a, bytes, error));
  EXPECT_NE(error.find("expected a manifest key without white space"),
            std::string::npos)
      << error;
  a = Artifact();
  a.set("end", "v");
  EXPECT_FALSE(serializeArtifact(a, bytes, error));
  a = Artifact();
  a.manifest.emplace_back("k", "1");
  a.manifest.emplace_back("k", "2");
  EXPECT_FALSE(serializeArtifact(a, bytes, error));
  EXPECT_EQ(error, "duplicate manifest key 'k'");
  a = Artifact();
  a.set("k", "two\nlines");
  EXPECT_FALSE(serializeArtifact(a, bytes, error));
  EXPECT_EQ(error, "expected the value of manifest key 'k' on one line "
                   "without leading or trailing white space");
  a = Artifact();
  a.sections["two words"] = "x";
  EXPECT_FALSE(serializeArtifact(a, bytes, error));
  EXPECT_EQ(error, "expected a section name without white space, got 'two "
                   "words'");
  EXPECT_FALSE(
      writeArtifact(kernelArtifact(), "/nonexistent-dir/x.attnc", error));
  EXPECT_NE(error.find("cannot write /nonexistent-dir/x.attnc"),
            std::string::npos);
}

//===----------------------------------------------------------------------===//
// Kernel manifests
//===----------------------------------------------------------------------===//

TEST(KernelManifestTest, ParsesEveryField) {
  Artifact a = kernelArtifact();
  a.set("reads_block_mask", "1");
  a.set("mask_block_q", "128");
  a.set("mask_block_k", "32");
  a.set("future_key", "ignored");
  KernelManifest m;
  std::string error;
  ASSERT_TRUE(parseKernelManifest(a, m, error)) << error;
  EXPECT_EQ(m.kernel, "attn_fwd");
  EXPECT_EQ(m.target, "sm_90a");
  EXPECT_EQ(m.dtype, "bf16");
  EXPECT_EQ(m.spec.substr(0, 8), "b=2 hq=8");
  EXPECT_EQ(m.numQHeads, 8);
  EXPECT_EQ(m.numKvHeads, 2);
  EXPECT_EQ(m.headDim, 64);
  EXPECT_EQ(m.valueHeadDim, 64);
  EXPECT_EQ(m.blockQ, 64);
  EXPECT_EQ(m.blockK, 64);
  EXPECT_EQ(m.threads, 128);
  EXPECT_EQ(m.dynamicSharedMemory, 65536);
  EXPECT_TRUE(m.readsLse);
  EXPECT_FALSE(m.readsSeqIds);
  EXPECT_FALSE(m.readsCuSeqlens);
  EXPECT_TRUE(m.readsBlockMask);
  EXPECT_FALSE(m.readsAlibiSlopes);
  EXPECT_EQ(m.maskBlockQ, 128);
  EXPECT_EQ(m.maskBlockK, 32);
}

TEST(KernelManifestTest, AcceptsSpacedAbiListsAndNoSpec) {
  Artifact a = kernelArtifact();
  a.set("grid", "ceil(seq_q * gqa_pack / block_q) * num_splits, "
                "num_q_heads / gqa_pack, batch");
  a.manifest.erase(a.manifest.begin() + 3); // spec
  ASSERT_EQ(a.get("spec"), nullptr);
  EXPECT_EQ(manifestError(a), "");
}

TEST(KernelManifestTest, RequiresEveryKey) {
  const char *required[] = {"format",
                            "kernel",
                            "target",
                            "dtype",
                            "num_q_heads",
                            "num_kv_heads",
                            "head_dim",
                            "value_head_dim",
                            "block_q",
                            "block_k",
                            "threads",
                            "dynamic_shared_memory",
                            "reads_lse",
                            "reads_seq_ids",
                            "reads_cu_seqlens",
                            "reads_block_mask",
                            "reads_alibi_slopes",
                            "gqa_pack",
                            "split_kv",
                            "tensor_maps",
                            "reads_kv_lens",
                            "page_size",
                            "reads_kv_scales",
                            "reads_cu_seqlens_q",
                            "reads_cu_seqlens_k",
                            "abi_version",
                            "params",
                            "grid"};
  for (const char *key : required) {
    Artifact a = kernelArtifact();
    for (size_t i = 0; i < a.manifest.size(); ++i)
      if (a.manifest[i].first == key)
        a.manifest.erase(a.manifest.begin() + i);
    EXPECT_EQ(manifestError(a),
              std::string("missing manifest key '") + key + "'");
  }
  Artifact a = kernelArtifact();
  a.set("reads_block_mask", "1");
  EXPECT_EQ(manifestError(a), "missing manifest key 'mask_block_q'");
  a.set("mask_block_q", "64");
  EXPECT_EQ(manifestError(a), "missing manifest key 'mask_block_k'");
}

/// An optional 0/1 manifest key read into `field`: false when absent
/// (artifacts older than the key), true at 1, and `bad` is an error naming
/// the key.
static void expectOptionalFlag(const char *key, bool KernelManifest::*field,
                               const char *bad) {
  Artifact a = kernelArtifact();
  KernelManifest m;
  std::string error;
  ASSERT_TRUE(parseKernelManifest(a, m, error)) << error;
  EXPECT_FALSE(m.*field);
  a.set(key, "1");
  ASSERT_TRUE(parseKernelManifest(a, m, error)) << error;
  EXPECT_TRUE(m.*field);
  a.set(key, bad);
  EXPECT_EQ(manifestError(a), std::string("manifest key '") + key +
                                  "': expected 0 or 1, got '" + bad + "'");
}

TEST(KernelManifestTest, ReadsPersistentOptionally) {
  // Absent (artifacts older than the key): not persistent.
  expectOptionalFlag("persistent", &KernelManifest::persistent, "yes");
}

TEST(KernelManifestTest, ReadsTailSplitsOptionally) {
  // Absent (artifacts older than the key): the last wave runs whole.
  Artifact a = kernelArtifact();
  a.set("persistent", "1");
  KernelManifest m;
  std::string error;
  ASSERT_TRUE(parseKernelManifest(a, m, error)) << error;
  EXPECT_FALSE(m.tailSplits);
  a.set("tail_splits", "1");
  ASSERT_TRUE(parseKernelManifest(a, m, error)) << error;
  EXPECT_TRUE(m.tailSplits);
  a.set("tail_splits", "2");
  EXPECT_EQ(manifestError(a),
            "manifest key 'tail_splits': expected 0 or 1, got '2'");
  // Only a persistent kernel has a last wave to split.
  a.set("tail_splits", "1");
  a.set("persistent", "0");
  EXPECT_EQ(manifestError(a), "manifest key 'tail_splits': expected "
                              "persistent = 1 beside it");
}

TEST(KernelManifestTest, ReadsSplitBlocksPerSmOptionally) {
  // Absent (artifacts older than the key): 0, the occupancy's blocks.
  Artifact a = kernelArtifact();
  KernelManifest m;
  std::string error;
  ASSERT_TRUE(parseKernelManifest(a, m, error)) << error;
  EXPECT_EQ(m.splitBlocksPerSm, 0);
  a.set("split_blocks_per_sm", "2");
  ASSERT_TRUE(parseKernelManifest(a, m, error)) << error;
  EXPECT_EQ(m.splitBlocksPerSm, 2);
  a.set("split_blocks_per_sm", "65");
  EXPECT_EQ(manifestError(a), "manifest key 'split_blocks_per_sm': expected "
                              "an integer in [0, 64], got 65");
  a.set("split_blocks_per_sm", "two");
  EXPECT_EQ(manifestError(a), "manifest key 'split_blocks_per_sm': expected "
                              "an integer, got 'two'");
}

TEST(KernelManifestTest, ReadsCombineWaitsOptionally) {
  // Absent (artifacts older than the key): the combine does not wait, and
  // the runtime launches it after the split kernel in stream order.
  expectOptionalFlag("combine_waits", &KernelManifest::combineWaits, "2");
}

TEST(KernelManifestTest, RejectsBadValues) {
  auto with = [](const char *key, const char *value) {
    Artifact a = kernelArtifact();
    a.set(key, value);
    return manifestError(a);
  };
  EXPECT_EQ(with("format", "attnc-artifact-2"),
            "unsupported artifact format 'attnc-artifact-2' (this runtime "
            "reads attnc-artifact-1)");
  EXPECT_EQ(with("kernel", "attn fwd"),
            "manifest key 'kernel': expected a kernel name, got 'attn fwd'");
  EXPECT_EQ(with("target", "hopper"),
            "manifest key 'target': expected sm_<version> such as sm_80 or "
            "sm_90a, got 'hopper'");
  EXPECT_EQ(with("target", "sm_100a"), "");
  EXPECT_EQ(with("dtype", "fp8"),
            "manifest key 'dtype': expected bf16, f16 or f32, got 'fp8'");
  EXPECT_EQ(with("head_dim", "sixty-four"),
            "manifest key 'head_dim': expected an integer, got 'sixty-four'");
  EXPECT_EQ(with("head_dim", "64.0"),
            "manifest key 'head_dim': expected an integer, got '64.0'");
  EXPECT_EQ(with("block_q", ""),
            "manifest key 'block_q': expected an integer, got ''");
  EXPECT_EQ(with("num_q_heads", "0"),
            "manifest key 'num_q_heads': expected an integer in [1, 65535], "
            "got 0");
  EXPECT_EQ(with("block_k", "-64"),
            "manifest key 'block_k': expected an integer in [1, 1024], got "
            "-64");
  // A crafted block size must not overflow the launch arithmetic.
  EXPECT_EQ(with("block_q", "9223372036854775807"),
            "manifest key 'block_q': expected an integer in [1, 1024], got "
            "9223372036854775807");
  EXPECT_EQ(with("abi_version", "1"),
            "manifest key 'abi_version': the artifact's kernel ABI is version "
            "1, this runtime launches version " +
                std::to_string(attnc::abi::kVersion) + " (recompile the artifact)");
  EXPECT_EQ(with("threads", "2048"),
            "manifest key 'threads': expected an integer in [1, 1024], got "
            "2048");
  EXPECT_EQ(with("dynamic_shared_memory", "-1"),
            "manifest key 'dynamic_shared_memory': expected an integer in [0, "
            "2147483647], got -1");
  EXPECT_EQ(with("reads_lse", "yes"),
            "manifest key 'reads_lse': expected 0 or 1, got 'yes'");
  EXPECT_EQ(with("num_kv_heads", "3"),
            "manifest: expected num_q_heads 8 to be a multiple of "
            "num_kv_heads 3");
  EXPECT_NE(with("params", "q,k,v,o,batch,seq_q,seq_k")
                .find("manifest key 'params': unsupported kernel parameters "
                      "'q,k,v,o,batch,seq_q,seq_k' (this runtime launches "
                      "q,k,v,o,lse,"),
            std::string::npos);
  EXPECT_EQ(with("grid", "num_q_heads,batch"),
            "manifest key 'grid': unsupported grid 'num_q_heads,batch' (this "
            "runtime launches "
            "ceil(seq_q*gqa_pack/block_q)*num_splits,num_q_heads/gqa_pack,"
            "batch)");
  EXPECT_EQ(with("gqa_pack", "3"),
            "manifest key 'gqa_pack': expected 1 or num_q_heads / num_kv_heads "
            "(4) dividing block_q, got 3");
  EXPECT_EQ(with("gqa_pack", "17"),
            "manifest key 'gqa_pack': expected an integer in [1, 16], got 17");
  EXPECT_EQ(with("split_kv", "2"),
            "manifest key 'split_kv': expected 0 or 1, got '2'");
}

TEST(KernelManifestTest, RequiresKernelCode) {
  Artifact a = kernelArtifact();
  a.sections.clear();
  EXPECT_EQ(manifestError(a), "the artifact has no kernel code: expected a "
                              "non-empty 'cubin' or 'ptx' section");
  a.sections["ptx"] = "";
  EXPECT_NE(manifestError(a), "");
  a.sections.clear();
  a.sections["cubin"] = std::string("\x7f"
                                    "ELF",
                                    4);
  EXPECT_EQ(manifestError(a), "");
}

//===----------------------------------------------------------------------===//
// The C API: loading
//===----------------------------------------------------------------------===//

namespace {
/// Loads `a` through the C API; nullptr with the status on failure.
attnrt_artifact *load(const Artifact &a, attnrt_status *status = nullptr) {
  std::string bytes = bytesOf(a);
  attnrt_artifact *out = reinterpret_cast<attnrt_artifact *>(1);
  attnrt_status s =
      attnrt_artifact_load_memory(bytes.data(), bytes.size(), &out);
  if (status)
    *status = s;
  if (s != ATTNRT_OK) {
    EXPECT_EQ(out, nullptr);
  }
  return s == ATTNRT_OK ? out : nullptr;
}
} // namespace

TEST(RuntimeLoadTest, LoadsFromMemoryAndFile) {
  attnrt_artifact *a = load(kernelArtifact());
  ASSERT_NE(a, nullptr) << attnrt_last_error();
  EXPECT_STREQ(attnrt_artifact_get(a, "kernel"), "attn_fwd");
  EXPECT_STREQ(attnrt_artifact_get(a, "target"), "sm_90a");
  EXPECT_EQ(attnrt_artifact_get(a, "absent"), nullptr);
  EXPECT_EQ(attnrt_artifact_get(a, nullptr), nullptr);
  EXPECT_EQ(attnrt_artifact_get(nullptr, "kernel"), nullptr);
  attnrt_artifact_destroy(a);
  attnrt_artifact_destroy(nullptr);

  std::string path = tempPath("load.attnc"), error;
  ASSERT_TRUE(writeArtifact(kernelArtifact(), path, error)) << error;
  attnrt_artifact *b = nullptr;
  ASSERT_EQ(attnrt_artifact_load_file(path.c_str(), &b), ATTNRT_OK)
      << attnrt_last_error();
  EXPECT_STREQ(attnrt_artifact_get(b, "dtype"), "bf16");
  attnrt_artifact_destroy(b);
  std::remove(path.c_str());
}

TEST(RuntimeLoadTest, ReportsBadArtifacts) {
  attnrt_artifact *out = nullptr;
  const char junk[] = "hello\n";
  EXPECT_EQ(attnrt_artifact_load_memory(junk, sizeof(junk) - 1, &out),
            ATTNRT_ERROR_BAD_ARTIFACT);
  EXPECT_EQ(out, nullptr);
  EXPECT_STREQ(attnrt_last_error(),
               "not an attnc artifact: expected the first line "
               "'attnc-artifact 1', got 'hello'");

  Artifact a = kernelArtifact();
  a.set("head_dim", "x");
  attnrt_status s;
  EXPECT_EQ(load(a, &s), nullptr);
  EXPECT_EQ(s, ATTNRT_ERROR_BAD_ARTIFACT);
  EXPECT_STREQ(attnrt_last_error(),
               "manifest key 'head_dim': expected an integer, got 'x'");

  std::string path = tempPath("does-not-exist.attnc");
  EXPECT_EQ(attnrt_artifact_load_file(path.c_str(), &out),
            ATTNRT_ERROR_BAD_ARTIFACT);
  EXPECT_EQ(std::string(attnrt_last_error()),
            "cannot read " + path + ": No such file or directory");

  // Manifest errors of a file name the file.
  std::string bad = tempPath("bad.attnc"), error;
  ASSERT_TRUE(writeArtifact(a, bad, error)) << error;
  EXPECT_EQ(attnrt_artifact_load_file(bad.c_str(), &out),
            ATTNRT_ERROR_BAD_ARTIFACT);
  EXPECT_EQ(std::string(attnrt_last_error()),
            bad + ": manifest key 'head_dim': expected an integer, got 'x'");
  std::remove(bad.c_str());

  EXPECT_EQ(attnrt_artifact_load_memory(junk, 6, nullptr),
            ATTNRT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(attnrt_artifact_load_memory(nullptr, 6, &out),
            ATTNRT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(attnrt_artifact_load_file(nullptr, &out),
            ATTNRT_ERROR_INVALID_ARGUMENT);
}

/// kernelArtifact() with `nested` as its short-sequence kernel for
/// sequences of at most 2048.
static Artifact withShortKernel(const Artifact &nested) {
  Artifact a = kernelArtifact();
  a.set("short_kernel_max_seq", "2048");
  a.sections["short_kernel"] = bytesOf(nested);
  return a;
}

/// kernelArtifact() configured as another kernel of the same attention.
static Artifact otherKernel() {
  Artifact k = kernelArtifact();
  k.set("gpu_kernel", "#attn.gpu_kernel<other>");
  k.set("block_q", "128");
  k.set("block_k", "128");
  k.set("threads", "384");
  k.set("dynamic_shared_memory", "100000");
  k.set("persistent", "1");
  return k;
}

TEST(RuntimeLoadTest, LoadsAShortSequenceKernel) {
  attnrt_artifact *a = load(withShortKernel(otherKernel()));
  ASSERT_NE(a, nullptr) << attnrt_last_error();
  EXPECT_STREQ(attnrt_artifact_get(a, "short_kernel_max_seq"), "2048");
  EXPECT_STREQ(attnrt_artifact_get(a, "block_q"), "64");
  attnrt_artifact_destroy(a);

  KernelManifest m;
  std::string error;
  ASSERT_TRUE(parseKernelManifest(withShortKernel(otherKernel()), m, error))
      << error;
  EXPECT_EQ(m.shortKernelMaxSeq, 2048);

  // A short kernel with one of its own for sequences of at most 1024.
  Artifact middle = otherKernel();
  middle.set("short_kernel_max_seq", "1024");
  Artifact shortest = otherKernel();
  shortest.set("block_k", "64");
  middle.sections["short_kernel"] = bytesOf(shortest);
  a = load(withShortKernel(middle));
  ASSERT_NE(a, nullptr) << attnrt_last_error();
  EXPECT_STREQ(attnrt_artifact_get(a, "short_kernel_max_seq"), "2048");
  attnrt_artifact_destroy(a);
}

TEST(RuntimeLoadTest, RefusesShortSequenceKernelsOfAnotherLaunch) {
  auto loadError = [](const Artifact &a) {
    attnrt_status s;
    EXPECT_EQ(load(a, &s), nullptr);
    EXPECT_EQ(s, ATTNRT_ERROR_BAD_ARTIFACT);
    return std::string(attnrt_last_error());
  };
  // A key of the launch contract differs, or is missing.
  Artifact k = otherKernel();
  k.set("num_kv_heads", "8");
  EXPECT_EQ(loadError(withShortKernel(k)),
            "section 'short_kernel': manifest key 'num_kv_heads' is '8', the "
            "main kernel's '2'");
  k = otherKernel();
  k.set("combine_waits", "0");
  EXPECT_EQ(loadError(withShortKernel(k)),
            "section 'short_kernel': manifest key 'combine_waits' is '0', the "
            "main kernel's absent");
  // Not an artifact, not a kernel, or one with a short kernel of its own.
  Artifact a = kernelArtifact();
  a.set("short_kernel_max_seq", "2048");
  a.sections["short_kernel"] = "hello\n";
  EXPECT_EQ(loadError(a), "section 'short_kernel': not an attnc artifact: "
                          "expected the first line 'attnc-artifact 1', got "
                          "'hello'");
  k = otherKernel();
  k.set("head_dim", "x");
  EXPECT_EQ(loadError(withShortKernel(k)),
            "section 'short_kernel': manifest key 'head_dim': expected an "
            "integer, got 'x'");
  // A nested short kernel's bound must be below the one around it.
  EXPECT_EQ(loadError(withShortKernel(withShortKernel(otherKernel()))),
            "section 'short_kernel': manifest key 'short_kernel_max_seq': "
            "expected its own short kernel's bound below 2048, got 2048");
  // A nested one's own errors name both sections.
  k = otherKernel();
  k.set("short_kernel_max_seq", "1024");
  Artifact third = otherKernel();
  third.set("num_q_heads", "16");
  k.sections["short_kernel"] = bytesOf(third);
  EXPECT_EQ(loadError(withShortKernel(k)),
            "section 'short_kernel': section 'short_kernel': manifest key "
            "'num_q_heads' is '16', the main kernel's '8'");
  // The bound and the section come together.
  a = kernelArtifact();
  a.set("short_kernel_max_seq", "2048");
  EXPECT_EQ(loadError(a), "manifest key 'short_kernel_max_seq': expected a "
                          "'short_kernel' section beside it");
  a = withShortKernel(otherKernel());
  a.set("short_kernel_max_seq", "0");
  EXPECT_EQ(loadError(a), "the artifact has a 'short_kernel' section but no "
                          "manifest key 'short_kernel_max_seq' above 0");
  a.set("short_kernel_max_seq", "-1");
  EXPECT_NE(loadError(a).find("short_kernel_max_seq"), std::string::npos);
}

TEST(RuntimeLoadTest, KeepsTheLastErrorPerThread) {
  attnrt_artifact *out = nullptr;
  EXPECT_EQ(attnrt_artifact_load_memory("x", 1, &out),
            ATTNRT_ERROR_BAD_ARTIFACT);
  std::string mine = attnrt_last_error();
  EXPECT_NE(mine, "");
  std::string other = "unset";
  std::thread([&] { other = attnrt_last_error(); }).join();
  EXPECT_EQ(other, "");
  EXPECT_EQ(attnrt_last_error(), mine);
}

//===----------------------------------------------------------------------===//
// The C API: validation
//===----------------------------------------------------------------------===//

namespace {
/// A launch of kernelArtifact() (b=2, hq=8, hkv=2, sq=100, sk=120, d=dv=64)
/// with fake, suitably aligned device pointers.
class ValidateTest : public ::testing::Test {
protected:
  void SetUp() override {
    artifact = load(kernelArtifact());
    ASSERT_NE(artifact, nullptr) << attnrt_last_error();
    all = load(allOperands());
    ASSERT_NE(all, nullptr) << attnrt_last_error();
    std::memset(&args, 0, sizeof(args));
    args.dtype = ATTNRT_BF16;
    args.batch = 2;
    args.num_q_heads = 8;
    args.num_kv_heads = 2;
    args.seq_q = 100;
    args.seq_k = 120;
    args.head_dim = 64;
    args.value_head_dim = 64;
    args.q = fake(0x10000);
    args.k = fake(0x20000);
    args.v = fake(0x30000);
    args.o = fake(0x40000);
    args.lse = static_cast<float *>(fake(0x50000));
    runtime::denseStrides(8, 100, 64, args.q_strides);
    runtime::denseStrides(2, 120, 64, args.k_strides);
    runtime::denseStrides(2, 120, 64, args.v_strides);
    runtime::denseStrides(8, 100, 64, args.o_strides);
  }
  void TearDown() override {
    attnrt_artifact_destroy(artifact);
    attnrt_artifact_destroy(all);
  }

  /// A kernel that reads every optional operand.
  static Artifact allOperands() {
    Artifact a = kernelArtifact();
    a.set("reads_seq_ids", "1");
    a.set("reads_cu_seqlens", "1");
    a.set("reads_block_mask", "1");
    a.set("reads_alibi_slopes", "1");
    a.set("mask_block_q", "64");
    a.set("mask_block_k", "64");
    return a;
  }
  /// args with every optional operand set.
  attnrt_attention_args withOperands() const {
    attnrt_attention_args a = args;
    a.seq_ids = static_cast<const int32_t *>(fake(0x60000));
    a.cu_seqlens = static_cast<const int32_t *>(fake(0x70000));
    a.num_cu_seqlens = 3;
    a.block_mask = static_cast<const uint8_t *>(fake(0x80000));
    a.block_mask_b = 1;
    a.block_mask_h = 8;
    a.alibi_slopes = static_cast<const float *>(fake(0x90000));
    return a;
  }
  static void *fake(uintptr_t address) {
    return reinterpret_cast<void *>(address);
  }

  /// attnrt_validate's message for `a` against `on` ("" when it passes).
  std::string check(const attnrt_attention_args &a,
                    const attnrt_artifact *on = nullptr) {
    attnrt_status s = attnrt_validate(on ? on : artifact, &a);
    if (s == ATTNRT_OK)
      return "";
    EXPECT_EQ(s, ATTNRT_ERROR_INVALID_ARGUMENT);
    return attnrt_last_error();
  }

  attnrt_artifact *artifact = nullptr, *all = nullptr;
  attnrt_attention_args args;
};
} // namespace

TEST_F(ValidateTest, AcceptsAValidLaunch) {
  EXPECT_EQ(check(args), "");
  EXPECT_EQ(check(withOperands(), all), "");
  attnrt_attention_args a = withOperands();
  a.block_mask_b = 2;
  a.block_mask_h = 1;
  EXPECT_EQ(check(a, all), "");
  // Counts the kernel does not read are not checked.
  a = args;
  a.num_cu_seqlens = -5;
  a.block_mask_b = 77;
  EXPECT_EQ(check(a), "");
}

TEST_F(ValidateTest, BoundsThePersistentKernelsWorkItems) {
  // A persistent kernel orders its work items in 32 bits (sliding windows):
  // query tiles of 64 rows x 8 heads x batch must stay below 2^31.
  Artifact p = kernelArtifact();
  p.set("persistent", "1");
  attnrt_artifact *persistent = load(p);
  ASSERT_NE(persistent, nullptr) << attnrt_last_error();
  EXPECT_EQ(check(args, persistent), "");
  attnrt_attention_args a = args;
  a.seq_q = int64_t(1) << 22; // 2^16 query tiles
  runtime::denseStrides(8, a.seq_q, 64, a.q_strides);
  runtime::denseStrides(8, a.seq_q, 64, a.o_strides);
  a.batch = 4095; // 2^16 x 8 x 4095 = 2^31 - 2^19 items
  EXPECT_EQ(check(a, persistent), "");
  a.batch = 4096;
  EXPECT_EQ(check(a, persistent),
            "expected at most 2^31 - 1 work items for the persistent kernel "
            "(query tiles of 64 rows x query heads x batch), got 65536 x "
            "32768");
  // A kernel with one block an item has no such bound here.
  EXPECT_EQ(check(a), "");
  attnrt_artifact_destroy(persistent);
}

TEST_F(ValidateTest, BoundsTheTailSplits) {
  // A persistent kernel that splits its last wave takes num_splits 0 (the
  // runtime's choice), 1 (whole items) or 2 (the balanced tail); others 0
  // or 1.
  Artifact p = kernelArtifact();
  p.set("persistent", "1");
  p.set("tail_splits", "1");
  attnrt_artifact *tail = load(p);
  ASSERT_NE(tail, nullptr) << attnrt_last_error();
  attnrt_attention_args a = args;
  a.num_splits = 2;
  EXPECT_EQ(check(a, tail), "");
  a.num_splits = 3;
  EXPECT_EQ(check(a, tail),
            "expected num_splits in [0, 2] (2: the persistent kernel's last "
            "wave dealt to every block by keys), got 3");
  a.num_splits = 2;
  EXPECT_EQ(check(a), "expected num_splits in [0, 1] (the artifact has no "
                      "split_kv kernel), got 2");
  // Whole items need no scratch and no device.
  a.num_splits = 1;
  size_t bytes = 1;
  EXPECT_EQ(attnrt_scratch_size(tail, &a, &bytes), ATTNRT_OK)
      << attnrt_last_error();
  EXPECT_EQ(bytes, 0u);
  int64_t splits = 0;
  EXPECT_EQ(attnrt_num_splits(tail, &a, &splits), ATTNRT_OK)
      << attnrt_last_error();
  EXPECT_EQ(splits, 1);
  attnrt_artifact_destroy(tail);
}

TEST_F(ValidateTest, TakesTheTailSplitsOfTheKernelTheLaunchRuns) {
  // A short-sequence kernel with tail splits beside a main one without:
  // num_splits 2 where the lengths take the short kernel, not past it.
  Artifact nested = otherKernel();
  nested.set("tail_splits", "1");
  attnrt_artifact *both = load(withShortKernel(nested));
  ASSERT_NE(both, nullptr) << attnrt_last_error();
  attnrt_attention_args a = args; // seq_q = seq_k = 100: the short kernel
  a.num_splits = 2;
  EXPECT_EQ(check(a, both), "");
  a.seq_k = 4096;
  runtime::denseStrides(2, a.seq_k, 64, a.k_strides);
  runtime::denseStrides(2, a.seq_k, 64, a.v_strides);
  EXPECT_EQ(check(a, both), "expected num_splits in [0, 1] (the artifact has "
                            "no split_kv kernel), got 2");
  attnrt_artifact_destroy(both);
}

TEST_F(ValidateTest, WalksTheNestedShortKernels) {
  // main (no tail splits) > short kernel up to 2048 (tail splits) > its own
  // up to 1024 (none): each launch takes the innermost kernel whose bound
  // both lengths fit.
  Artifact shortest = otherKernel();
  shortest.set("block_k", "64");
  Artifact middle = otherKernel();
  middle.set("tail_splits", "1");
  middle.set("short_kernel_max_seq", "1024");
  middle.sections["short_kernel"] = bytesOf(shortest);
  attnrt_artifact *chain = load(withShortKernel(middle));
  ASSERT_NE(chain, nullptr) << attnrt_last_error();
  attnrt_attention_args a = args; // seq_q = seq_k = 100: the shortest
  a.num_splits = 2;
  EXPECT_EQ(check(a, chain), "expected num_splits in [0, 1] (the artifact "
                             "has no split_kv kernel), got 2");
  a.seq_k = 1500; // past 1024, within 2048: the middle one
  runtime::denseStrides(2, a.seq_k, 64, a.k_strides);
  runtime::denseStrides(2, a.seq_k, 64, a.v_strides);
  EXPECT_EQ(check(a, chain), "");
  a.seq_k = 4096; // the main kernel
  runtime::denseStrides(2, a.seq_k, 64, a.k_strides);
  runtime::denseStrides(2, a.seq_k, 64, a.v_strides);
  EXPECT_EQ(check(a, chain), "expected num_splits in [0, 1] (the artifact "
                             "has no split_kv kernel), got 2");
  attnrt_artifact_destroy(chain);
}

TEST_F(ValidateTest, RejectsNullHandles) {
  EXPECT_EQ(attnrt_validate(nullptr, &args), ATTNRT_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(attnrt_last_error(), "expected a non-null artifact");
  EXPECT_EQ(attnrt_validate(artifact, nullptr), ATTNRT_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(attnrt_last_error(), "expected non-null args");
}

TEST_F(ValidateTest, RejectsAnotherDtype) {
  attnrt_attention_args a = args;
  a.dtype = ATTNRT_F16;
  EXPECT_EQ(check(a), "expected dtype f16 to match the artifact's bf16");
  a.dtype = static_cast<attnrt_dtype>(7);
  EXPECT_EQ(check(a),
            "expected dtype ATTNRT_BF16, ATTNRT_F16 or ATTNRT_F32, got 7");
}

TEST_F(ValidateTest, RejectsOtherHeadCountsAndDims) {
  attnrt_attention_args a = args;
  a.num_q_heads = 16;
  EXPECT_EQ(check(a), "expected num_q_heads 16 to match the artifact's 8");
  a = args;
  a.num_kv_heads = 8;
  EXPECT_EQ(check(a), "expected num_kv_heads 8 to match the artifact's 2");
  a = args;
  a.head_dim = 128;
  EXPECT_EQ(check(a), "expected head_dim 128 to match the artifact's 64");
  a = args;
  a.value_head_dim = 32;
  EXPECT_EQ(check(a), "expected value_head_dim 32 to match the artifact's 64");
}

TEST_F(ValidateTest, RejectsSizesOutOfRange) {
  attnrt_attention_args a = args;
  a.batch = 0;
  EXPECT_EQ(check(a),
            "expected batch in [1, 65535] (the grid's z limit), got 0");
  a.batch = 65536;
  EXPECT_EQ(check(a),
            "expected batch in [1, 65535] (the grid's z limit), got 65536");
  a = args;
  a.seq_q = 0;
  EXPECT_EQ(check(a), "expected seq_q in [1, 2147483647], got 0");
  a.seq_q = int64_t(1) << 31;
  EXPECT_EQ(check(a), "expected seq_q in [1, 2147483647], got 2147483648");
  a = args;
  a.seq_k = -1;
  EXPECT_EQ(check(a), "expected seq_k in [1, 2147483647], got -1");
  // The longest sequences whose heads fit 2^31 elements pass (with strides
  // to match); one row more is refused (the kernel's in-head offsets are
  // 32-bit).
  a = args;
  a.seq_q = a.seq_k = (int64_t(1) << 31) / 64 - 1;
  runtime::denseStrides(8, a.seq_q, 64, a.q_strides);
  runtime::denseStrides(2, a.seq_k, 64, a.k_strides);
  runtime::denseStrides(2, a.seq_k, 64, a.v_strides);
  runtime::denseStrides(8, a.seq_q, 64, a.o_strides);
  EXPECT_EQ(check(a), "");
  a.seq_k += 1;
  runtime::denseStrides(2, a.seq_k, 64, a.k_strides);
  runtime::denseStrides(2, a.seq_k, 64, a.v_strides);
  EXPECT_EQ(check(a), "expected k_strides {4294967296, 2147483648, 64, 1} of "
                      "[B, Hkv, Sk, D] to keep one head within 2^31 elements, "
                      "got (S - 1) * stride_s + D = 2147483648");
}

TEST_F(ValidateTest, RejectsNullTensors) {
  const char *names[] = {"q", "k", "v", "o"};
  for (int i = 0; i < 4; ++i) {
    attnrt_attention_args a = args;
    const void **p[] = {&a.q, &a.k, &a.v, const_cast<const void **>(&a.o)};
    *p[i] = nullptr;
    EXPECT_EQ(check(a), std::string("expected a non-null ") + names[i]);
  }
}

TEST_F(ValidateTest, RejectsMisalignedTensors) {
  attnrt_attention_args a = args;
  a.q = fake(0x10008);
  EXPECT_EQ(check(a), "expected q (0x10008) to be 16-byte aligned");
  a = args;
  a.k = fake(0x20002);
  EXPECT_EQ(check(a), "expected k (0x20002) to be 16-byte aligned");
  a = args;
  a.v = fake(0x30004);
  EXPECT_EQ(check(a), "expected v (0x30004) to be 16-byte aligned");
  a = args;
  a.o = fake(0x40001);
  EXPECT_EQ(check(a), "expected o (0x40001) to be 16-byte aligned");
}

TEST_F(ValidateTest, AcceptsStridedViewsInPlace) {
  attnrt_attention_args a = args;
  // [B, S, H, D].transpose(1, 2): heads inside the sequence.
  a.k_strides[1] = 64;
  a.k_strides[2] = 128;
  a.o_strides[1] = 64;
  a.o_strides[2] = 512;
  EXPECT_EQ(check(a), "");
  // Padded batch entries and padded rows.
  a = args;
  a.v_strides[0] = 2 * 15360;
  a.q_strides[2] = 72;
  a.q_strides[1] = 7200;
  a.q_strides[0] = 57600;
  EXPECT_EQ(check(a), "");
}

TEST_F(ValidateTest, RejectsStridesTheKernelCannotUse) {
  attnrt_attention_args a = args;
  a.q_strides[3] = 2;
  EXPECT_EQ(check(a), "expected q_strides {51200, 6400, 64, 2} to have an "
                      "innermost stride of 1 (contiguous rows of [B, Hq, Sq, "
                      "D])");
  a = args;
  a.k_strides[2] = 60;
  EXPECT_EQ(check(a), "expected k_strides {15360, 7680, 60, 1} of [B, Hkv, "
                      "Sk, D] to be non-negative multiples of 8 elements (16 "
                      "bytes)");
  a = args;
  a.v_strides[1] = -7680;
  EXPECT_EQ(check(a), "expected v_strides {15360, -7680, 64, 1} of [B, Hkv, "
                      "Sk, Dv] to be non-negative multiples of 8 elements (16 "
                      "bytes)");
  a = args;
  a.q_strides[0] = INT64_MAX / 8 * 8;
  EXPECT_EQ(check(a).find("expected q_strides"), 0u);
  EXPECT_NE(check(a).find("to address fewer than 2^63 elements"),
            std::string::npos);
}

TEST_F(ValidateTest, RejectsOverlappingOutput) {
  attnrt_attention_args a = args;
  // Rows of 72 elements: a head (100 rows) then spans 7200 > 6400.
  a.o_strides[2] = 72;
  EXPECT_EQ(check(a), "expected o_strides {51200, 6400, 72, 1} of [B, Hq, Sq, "
                      "Dv] not to overlap: an output element would be written "
                      "twice");
  a = args;
  a.o_strides[1] = 0;
  EXPECT_NE(check(a).find("not to overlap"), std::string::npos);
  // The same broadcast is fine for an input.
  a = args;
  a.q_strides[1] = 0;
  EXPECT_EQ(check(a), "");
}

TEST_F(ValidateTest, RequiresLseExactlyWhenWritten) {
  attnrt_attention_args a = args;
  a.lse = nullptr;
  EXPECT_EQ(check(a), "expected a non-null lse: the artifact writes the "
                      "log-sum-exp");
  Artifact noLse = kernelArtifact();
  noLse.set("reads_lse", "0");
  attnrt_artifact *other = load(noLse);
  ASSERT_NE(other, nullptr);
  EXPECT_EQ(check(args, other), "expected lse to be NULL: the artifact does "
                                "not write the log-sum-exp");
  EXPECT_EQ(check(a, other), "");
  attnrt_artifact_destroy(other);
  a = args;
  a.lse = static_cast<float *>(fake(0x50002));
  EXPECT_EQ(check(a), "expected lse (0x50002) to be 4-byte aligned");
}

TEST_F(ValidateTest, ChecksKvCaches) {
  // kv_lens alone: a padded contiguous cache.
  Artifact lensArtifact = kernelArtifact();
  lensArtifact.set("reads_kv_lens", "1");
  attnrt_artifact *lens = load(lensArtifact);
  ASSERT_NE(lens, nullptr) << attnrt_last_error();
  attnrt_attention_args a = args;
  EXPECT_EQ(check(a, lens), "expected a non-null kv_lens: the artifact reads "
                            "per-sequence KV lengths");
  a.kv_lens = static_cast<const int32_t *>(fake(0xA0000));
  EXPECT_EQ(check(a, lens), "");
  EXPECT_EQ(check(a), "expected kv_lens to be NULL: the artifact does not "
                      "read per-sequence KV lengths");
  a.kv_lens = static_cast<const int32_t *>(fake(0xA0002));
  EXPECT_EQ(check(a, lens), "expected kv_lens (0xa0002) to be 4-byte aligned");
  a = args;
  a.kv_lens = static_cast<const int32_t *>(fake(0xA0000));
  a.page_table = static_cast<const int32_t *>(fake(0xB0000));
  EXPECT_EQ(check(a, lens), "expected page_table to be NULL: the artifact "
                            "does not read a paged KV cache");
  a.page_table = nullptr;
  a.max_pages = 4;
  EXPECT_EQ(check(a, lens), "expected max_pages and num_pages 0: the artifact "
                            "does not read a paged KV cache");
  attnrt_artifact_destroy(lens);

  // Pages of 16 rows: k and v are [num_pages, 16, Hkv, D] with strides
  // {page, head, row, 1}; seq_k = max_pages * 16.
  Artifact pagedArtifact = kernelArtifact();
  pagedArtifact.set("reads_kv_lens", "1");
  pagedArtifact.set("page_size", "16");
  attnrt_artifact *paged = load(pagedArtifact);
  ASSERT_NE(paged, nullptr) << attnrt_last_error();
  attnrt_attention_args p = args;
  p.seq_k = 128;
  p.kv_lens = static_cast<const int32_t *>(fake(0xA0000));
  p.page_table = static_cast<const int32_t *>(fake(0xB0000));
  p.max_pages = 8;
  p.num_pages = 37;
  for (int64_t *st : {p.k_strides, p.v_strides}) {
    st[0] = 16 * 2 * 64;
    st[1] = 64;
    st[2] = 2 * 64;
    st[3] = 1;
  }
  EXPECT_EQ(check(p, paged), "");
  a = p;
  a.page_table = nullptr;
  EXPECT_EQ(check(a, paged), "expected a non-null page_table: the artifact "
                             "reads a paged KV cache");
  a = p;
  a.seq_k = 120;
  EXPECT_EQ(check(a, paged), "expected seq_k 120 to be max_pages * page_size "
                             "= 8 * 16 (a paged cache)");
  a = p;
  a.num_pages = 0;
  EXPECT_EQ(check(a, paged), "expected num_pages in [1, 2147483647], got 0");
  a = p;
  a.max_pages = 0;
  EXPECT_EQ(check(a, paged), "expected max_pages in [1, 134217727], got 0");
  a = p;
  a.k_strides[2] = 100;
  EXPECT_EQ(check(a, paged),
            "expected k_strides {2048, 64, 100, 1} of pages [num_pages, "
            "page_size, Hkv, D] to be non-negative multiples of 8 elements "
            "(16 bytes)");
  attnrt_artifact_destroy(paged);

  // An fp8 cache: kv_scales, and K/V strides in one-byte elements
  // (multiples of 16).
  Artifact fp8Artifact = kernelArtifact();
  fp8Artifact.set("reads_kv_scales", "1");
  attnrt_artifact *fp8 = load(fp8Artifact);
  ASSERT_NE(fp8, nullptr) << attnrt_last_error();
  a = args;
  EXPECT_EQ(check(a, fp8), "expected a non-null kv_scales: the artifact reads "
                           "the scales of an fp8 cache");
  a.kv_scales = static_cast<const float *>(fake(0xC0000));
  EXPECT_EQ(check(a, fp8), "");
  EXPECT_EQ(check(a), "expected kv_scales to be NULL: the artifact does not "
                      "read the scales of an fp8 cache");
  a.k_strides[2] = 72; // a multiple of 8, not of 16
  EXPECT_EQ(check(a, fp8),
            "expected k_strides {15360, 7680, 72, 1} of [B, Hkv, Sk, D] to be "
            "non-negative multiples of 16 elements (16 bytes)");
  attnrt_artifact_destroy(fp8);

  // A manifest with pages but no kv_lens is malformed.
  pagedArtifact.set("reads_kv_lens", "0");
  EXPECT_EQ(load(pagedArtifact), nullptr);
  EXPECT_STREQ(attnrt_last_error(), "manifest key 'page_size': a paged cache "
                                    "(page_size 16) needs reads_kv_lens = 1");
}

TEST_F(ValidateTest, ChecksRaggedBatches) {
  // Packed keys: 3 sequences in q [300 tokens, 8, 64] and k, v [360, 2, 64]
  // (strides {any, D, H * D, 1}), batch = the sequence count.
  Artifact raggedArtifact = kernelArtifact();
  raggedArtifact.set("reads_cu_seqlens_q", "1");
  raggedArtifact.set("reads_cu_seqlens_k", "1");
  attnrt_artifact *ragged = load(raggedArtifact);
  ASSERT_NE(ragged, nullptr) << attnrt_last_error();
  auto packed = [](int64_t h, int64_t d, int64_t *st) {
    st[0] = 0;
    st[1] = d;
    st[2] = h * d;
    st[3] = 1;
  };
  attnrt_attention_args r = args;
  r.batch = 3;
  r.seq_q = 300;
  r.seq_k = 360;
  packed(8, 64, r.q_strides);
  packed(8, 64, r.o_strides);
  packed(2, 64, r.k_strides);
  packed(2, 64, r.v_strides);
  r.cu_seqlens_q = static_cast<const int32_t *>(fake(0xD0000));
  r.cu_seqlens_k = static_cast<const int32_t *>(fake(0xE0000));
  r.max_seqlen_q = 200;
  EXPECT_EQ(check(r, ragged), "");
  attnrt_attention_args a = r;
  a.max_seqlen_q = 0; // 0: seq_q
  EXPECT_EQ(check(a, ragged), "");
  a.max_seqlen_q = 301;
  EXPECT_EQ(check(a, ragged),
            "expected max_seqlen_q in [0, 300] (0: seq_q; the longest "
            "sequence's query rows), got 301");
  a = r;
  a.cu_seqlens_q = nullptr;
  EXPECT_EQ(check(a, ragged), "expected a non-null cu_seqlens_q: the artifact "
                              "reads the query offsets of a ragged batch");
  a = r;
  a.cu_seqlens_k = static_cast<const int32_t *>(fake(0xE0002));
  EXPECT_EQ(check(a, ragged),
            "expected cu_seqlens_k (0xe0002) to be 4-byte aligned");
  // Other artifacts take neither the offsets nor max_seqlen_q.
  a = args;
  a.cu_seqlens_q = static_cast<const int32_t *>(fake(0xD0000));
  EXPECT_EQ(check(a), "expected cu_seqlens_q to be NULL: the artifact does "
                      "not read the query offsets of a ragged batch");
  a = args;
  a.max_seqlen_q = 5;
  EXPECT_EQ(check(a), "expected max_seqlen_q in [0, 0] (the artifact does not "
                      "take a ragged batch), got 5");
  attnrt_artifact_destroy(ragged);

  // Malformed ragged manifests.
  Artifact bad = kernelArtifact();
  bad.set("reads_cu_seqlens_k", "1");
  EXPECT_EQ(load(bad), nullptr);
  EXPECT_STREQ(attnrt_last_error(), "manifest key 'reads_cu_seqlens_k': packed "
                                    "keys need reads_cu_seqlens_q = 1");
  bad = kernelArtifact();
  bad.set("reads_cu_seqlens_q", "1");
  EXPECT_EQ(load(bad), nullptr);
  EXPECT_STREQ(attnrt_last_error(),
               "manifest key 'reads_cu_seqlens_q': a ragged batch reads its "
               "keys packed (reads_cu_seqlens_k = 1) or from a cache "
               "(reads_kv_lens = 1), exactly one");
  bad = raggedArtifact;
  bad.set("split_kv", "1");
  EXPECT_EQ(load(bad), nullptr);
  EXPECT_STREQ(attnrt_last_error(),
               "manifest key 'reads_cu_seqlens_q': a ragged batch runs on the "
               "prefill kernels (split_kv = 0, gqa_pack = 1)");
}

TEST_F(ValidateTest, RequiresEachOperandExactlyWhenRead) {
  attnrt_attention_args a = withOperands();
  a.seq_ids = nullptr;
  EXPECT_EQ(check(a, all),
            "expected a non-null seq_ids: the artifact reads document ids");
  a = withOperands();
  a.cu_seqlens = nullptr;
  EXPECT_EQ(check(a, all), "expected a non-null cu_seqlens: the artifact "
                           "reads document offsets");
  a = withOperands();
  a.block_mask = nullptr;
  EXPECT_EQ(check(a, all),
            "expected a non-null block_mask: the artifact reads a block mask");
  a = withOperands();
  a.alibi_slopes = nullptr;
  EXPECT_EQ(check(a, all), "expected a non-null alibi_slopes: the artifact "
                           "reads ALiBi slopes");

  attnrt_attention_args extra = withOperands();
  a = args;
  a.seq_ids = extra.seq_ids;
  EXPECT_EQ(check(a), "expected seq_ids to be NULL: the artifact does not "
                      "read document ids");
  a = args;
  a.cu_seqlens = extra.cu_seqlens;
  EXPECT_EQ(check(a), "expected cu_seqlens to be NULL: the artifact does not "
                      "read document offsets");
  a = args;
  a.block_mask = extra.block_mask;
  EXPECT_EQ(check(a), "expected block_mask to be NULL: the artifact does not "
                      "read a block mask");
  a = args;
  a.alibi_slopes = extra.alibi_slopes;
  EXPECT_EQ(check(a), "expected alibi_slopes to be NULL: the artifact does "
                      "not read ALiBi slopes");

  a = withOperands();
  a.seq_ids = static_cast<const int32_t *>(fake(0x60001));
  EXPECT_EQ(check(a, all), "expected seq_ids (0x60001) to be 4-byte aligned");
  a = withOperands();
  a.block_mask = static_cast<const uint8_t *>(fake(0x80001));
  EXPECT_EQ(check(a, all), ""); // bytes need no alignment
}

TEST_F(ValidateTest, RequiresADocumentInCuSeqlens) {
  attnrt_attention_args a = withOperands();
  a.num_cu_seqlens = 1;
  EXPECT_EQ(check(a, all),
            "expected num_cu_seqlens >= 2 (one document at least), got 1");
}

TEST_F(ValidateTest, RequiresBroadcastableBlockMasks) {
  attnrt_attention_args a = withOperands();
  a.block_mask_b = 3;
  EXPECT_EQ(check(a, all), "expected block_mask_b 1 or batch 2, got 3");
  a = withOperands();
  a.block_mask_b = 0;
  EXPECT_EQ(check(a, all), "expected block_mask_b 1 or batch 2, got 0");
  a = withOperands();
  a.block_mask_h = 2;
  EXPECT_EQ(check(a, all), "expected block_mask_h 1 or num_q_heads 8, got 2");
}

TEST_F(ValidateTest, ScratchSizeIsZero) {
  size_t bytes = 99;
  EXPECT_EQ(attnrt_scratch_size(artifact, &args, &bytes), ATTNRT_OK);
  EXPECT_EQ(bytes, 0u);
  attnrt_attention_args a = args;
  a.head_dim = 128;
  EXPECT_EQ(attnrt_scratch_size(artifact, &a, &bytes),
            ATTNRT_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(attnrt_last_error(),
               "expected head_dim 128 to match the artifact's 64");
  EXPECT_EQ(attnrt_scratch_size(artifact, &args, nullptr),
            ATTNRT_ERROR_INVALID_ARGUMENT);
}

/// kernelArtifact() as a split_kv decode kernel (4 query heads per tile).
static Artifact splitArtifact() {
  Artifact a = kernelArtifact();
  a.set("block_q", "16");
  a.set("threads", "32");
  a.set("gqa_pack", "4");
  a.set("split_kv", "1");
  return a;
}

TEST_F(ValidateTest, SplitsOnlyOnSplitKvArtifacts) {
  attnrt_attention_args a = args;
  a.num_splits = 2;
  EXPECT_EQ(check(a), "expected num_splits in [0, 1] (the artifact has no "
                      "split_kv kernel), got 2");
  a.num_splits = -1;
  EXPECT_EQ(check(a), "expected num_splits in [0, 1] (the artifact has no "
                      "split_kv kernel), got -1");
  attnrt_artifact *split = load(splitArtifact());
  ASSERT_NE(split, nullptr) << attnrt_last_error();
  a.num_splits = 4096;
  EXPECT_EQ(check(a, split), "");
  a.num_splits = 4097;
  EXPECT_EQ(check(a, split), "expected num_splits in [0, 4096], got 4097");
  attnrt_artifact_destroy(split);
}

TEST_F(ValidateTest, ScratchHoldsEverySplitsPartialRows) {
  attnrt_artifact *split = load(splitArtifact());
  ASSERT_NE(split, nullptr) << attnrt_last_error();
  attnrt_attention_args a = args;
  size_t bytes = 99;
  int64_t splits = 0;
  a.num_splits = 1;
  EXPECT_EQ(attnrt_scratch_size(split, &a, &bytes), ATTNRT_OK);
  EXPECT_EQ(bytes, 0u);
  // Partial O [3, B=2, Hq=8, Sq=100, Dv=64] and LSE [3, 2, 8, 100], f32.
  a.num_splits = 3;
  EXPECT_EQ(attnrt_scratch_size(split, &a, &bytes), ATTNRT_OK);
  EXPECT_EQ(bytes, size_t{3} * 2 * 8 * 100 * (64 + 1) * 4);
  EXPECT_EQ(attnrt_num_splits(split, &a, &splits), ATTNRT_OK);
  EXPECT_EQ(splits, 3);
  // A plain artifact never needs scratch.
  a.num_splits = 1;
  EXPECT_EQ(attnrt_scratch_size(artifact, &a, &bytes), ATTNRT_OK);
  EXPECT_EQ(bytes, 0u);
  EXPECT_EQ(attnrt_num_splits(split, &a, nullptr),
            ATTNRT_ERROR_INVALID_ARGUMENT);
  attnrt_artifact_destroy(split);
}

TEST_F(ValidateTest, ChecksWorkLists) {
  attnrt_artifact *split = load(splitArtifact());
  ASSERT_NE(split, nullptr) << attnrt_last_error();
  attnrt_attention_args p = args;
  p.plan = fake(0xF0000);
  p.plan_items = 300;
  p.plan_partials = 5;
  EXPECT_EQ(check(p, split), "");
  // Scratch: one record of block_q = 16 rows of Dv = 64 outputs and 16
  // LSEs per partial; the split count is 1 (the items carry theirs).
  size_t bytes = 0;
  int64_t splits = 0;
  EXPECT_EQ(attnrt_scratch_size(split, &p, &bytes), ATTNRT_OK);
  EXPECT_EQ(bytes, size_t{5} * 16 * (64 + 1) * 4);
  EXPECT_EQ(attnrt_num_splits(split, &p, &splits), ATTNRT_OK);
  EXPECT_EQ(splits, 1);
  EXPECT_EQ(attnrt_launch(split, &p, nullptr), ATTNRT_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(attnrt_last_error(),
               "expected 16-byte aligned scratch of at least 20800 bytes for "
               "5 partial records of a plan (attnrt_scratch_size), got (nil) "
               "with 0 bytes");
  attnrt_attention_args a = p;
  a.num_splits = 2;
  EXPECT_EQ(check(a, split), "expected num_splits 0 with a plan (its items "
                             "carry their splits), got 2");
  a = p;
  a.plan_items = 0;
  EXPECT_EQ(check(a, split), "expected plan_items in [1, 2147483647] (at "
                             "least the plan's num_items), got 0");
  a = p;
  a.plan_partials = -1;
  EXPECT_EQ(check(a, split), "expected plan_partials in [0, 2147483647] (at "
                             "least the plan's num_partials), got -1");
  a = p;
  a.plan = fake(0xF0004);
  EXPECT_EQ(check(a, split), "expected plan (0xf0004) to be 8-byte aligned");
  a = p;
  a.plan = nullptr;
  EXPECT_EQ(check(a, split),
            "expected plan_items and plan_partials 0 without a plan");
  // Other artifacts run no work list, and planning for them is refused.
  EXPECT_EQ(check(p), "expected plan to be NULL: the artifact has no "
                      "split_kv kernel to run a work list");
  attnrt_plan_request request;
  EXPECT_EQ(attnrt_plan_request_init(artifact, &args, &request),
            ATTNRT_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(attnrt_last_error(),
               "attnrt_plan_request_init: the artifact has no split_kv kernel "
               "to run a work list");
  a = args;
  a.num_q_heads = 6;
  EXPECT_EQ(attnrt_plan_request_init(split, &a, &request),
            ATTNRT_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(attnrt_last_error(),
               "attnrt_plan_request_init: expected batch >= 1 and num_q_heads "
               "a multiple of gqa_pack 4, got 2 and 6");
  EXPECT_EQ(attnrt_plan_request_init(split, &args, nullptr),
            ATTNRT_ERROR_INVALID_ARGUMENT);
  attnrt_artifact_destroy(split);
}

TEST_F(ValidateTest, LaunchChecksTheScratchBeforeTheDriver) {
  attnrt_artifact *split = load(splitArtifact());
  ASSERT_NE(split, nullptr) << attnrt_last_error();
  attnrt_attention_args a = args;
  a.num_splits = 3;
  EXPECT_EQ(attnrt_launch(split, &a, nullptr), ATTNRT_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(attnrt_last_error(),
               "expected 16-byte aligned scratch of at least 1248000 bytes for "
               "3 key splits (attnrt_scratch_size), got (nil) with 0 bytes");
  a.scratch = fake(0xa0008);
  a.scratch_bytes = 1248000;
  EXPECT_EQ(attnrt_launch(split, &a, nullptr), ATTNRT_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(attnrt_last_error()).find("16-byte aligned scratch"),
            std::string::npos);
  a.scratch = fake(0xa0000);
  a.scratch_bytes = 1247999;
  EXPECT_EQ(attnrt_launch(split, &a, nullptr), ATTNRT_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(attnrt_last_error()).find("with 1247999 bytes"),
            std::string::npos);
  attnrt_artifact_destroy(split);
}

//===----------------------------------------------------------------------===//
// The C API: launching without a GPU
//===----------------------------------------------------------------------===//

static bool driverPresent() {
  void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!h)
    h = dlopen("libcuda.so", RTLD_NOW | RTLD_LOCAL);
  if (h)
    dlclose(h);
  return h != nullptr;
}

TEST_F(ValidateTest, LaunchValidatesBeforeTouchingTheDriver) {
  attnrt_attention_args a = args;
  a.seq_q = 0;
  EXPECT_EQ(attnrt_launch(artifact, &a, nullptr),
            ATTNRT_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(attnrt_last_error(), "expected seq_q in [1, 2147483647], got 0");
  EXPECT_EQ(attnrt_launch(nullptr, &args, nullptr),
            ATTNRT_ERROR_INVALID_ARGUMENT);
}

TEST_F(ValidateTest, LaunchWithoutADriverSaysSo) {
  // Never reaches a kernel: without a driver it stops at dlopen, and with
  // one this process has no current context.
  attnrt_status s = attnrt_launch(artifact, &args, nullptr);
  if (!driverPresent()) {
    EXPECT_EQ(s, ATTNRT_ERROR_NO_DRIVER);
    EXPECT_STREQ(attnrt_last_error(),
                 "libcuda.so.1 not found: no NVIDIA driver on this machine");
  } else {
    EXPECT_TRUE(s == ATTNRT_ERROR_NO_DEVICE || s == ATTNRT_ERROR_CUDA) << s;
    EXPECT_NE(std::string(attnrt_last_error()), "");
  }
  // The same answer again (the driver is looked up once).
  EXPECT_EQ(attnrt_launch(artifact, &args, nullptr), s);
}

//===----------------------------------------------------------------------===//
// The C++ wrapper
//===----------------------------------------------------------------------===//

TEST(RuntimeWrapperTest, OwnsTheArtifactAndCarriesMessages) {
  runtime::Artifact a;
  EXPECT_FALSE(a);
  std::string bytes = bytesOf(kernelArtifact());
  runtime::Status s = a.loadMemory(bytes.data(), bytes.size());
  ASSERT_TRUE(s) << s.message();
  EXPECT_TRUE(a);
  EXPECT_EQ(a.get("kernel"), "attn_fwd");
  EXPECT_EQ(a.get("absent"), "");
  EXPECT_TRUE(a.has("spec"));

  runtime::Artifact b = std::move(a);
  EXPECT_FALSE(a);
  EXPECT_TRUE(b);

  attnrt_attention_args args;
  std::memset(&args, 0, sizeof(args));
  s = b.validate(args);
  EXPECT_FALSE(s);
  EXPECT_EQ(s.code(), ATTNRT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(s.message(), "expected num_q_heads 0 to match the artifact's 8");
  int64_t splits = 7;
  s = b.numSplits(args, splits);
  EXPECT_EQ(s.code(), ATTNRT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(splits, 1);

  runtime::Artifact c;
  s = c.loadMemory("junk", 4);
  EXPECT_EQ(s.code(), ATTNRT_ERROR_BAD_ARTIFACT);
  EXPECT_FALSE(c);
  b.reset();
  EXPECT_FALSE(b);
}

//===----------------------------------------------------------------------===//
// attnrt-run
//===----------------------------------------------------------------------===//

namespace {
/// Runs attnrt-run with `args` (a shell word list) and `env` prefix; returns
/// the exit code and stdout + stderr.
int runRunner(const std::string &env, const std::string &args,
              std::string &output) {
  std::string command = env + " '" ATTNRT_RUN_PATH "' " + args + " 2>&1";
  FILE *p = popen(command.c_str(), "r");
  if (!p)
    return -1;
  output.clear();
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof(buf), p)) > 0)
    output.append(buf, n);
  int status = pclose(p);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}
} // namespace

TEST(RunnerTest, SaysThereIsNoDriverAndExits2) {
  std::string path = tempPath("runner.attnc"), error, out;
  Artifact a = kernelArtifact();
  ASSERT_TRUE(writeArtifact(a, path, error)) << error;
  // ATTNRT_LIBCUDA makes a machine with a driver act as one without.
  EXPECT_EQ(runRunner("ATTNRT_LIBCUDA=/nonexistent/libcuda.so.1",
                      "--artifact=" + path + " --seed=3", out),
            2)
      << out;
  EXPECT_EQ(out, "attnrt-run: error: libcuda.so.1 not found: no NVIDIA "
                 "driver on this machine\n");
  if (!driverPresent()) {
    EXPECT_EQ(runRunner("", "--artifact " + path, out), 2);
    EXPECT_NE(out.find("libcuda.so.1 not found"), std::string::npos) << out;
  }
  std::remove(path.c_str());
}

TEST(RunnerTest, RejectsSpecsThatChangeTheKernel) {
  std::string path = tempPath("runner-spec.attnc"), error, out;
  ASSERT_TRUE(writeArtifact(kernelArtifact(), path, error)) << error;
  const char *env = "ATTNRT_LIBCUDA=/nonexistent/libcuda.so.1";
  // Sizes may change (and then the missing driver is reported).
  EXPECT_EQ(runRunner(env,
                      "--artifact=" + path +
                          " --spec='b=1 hq=8 hkv=2 sq=33 sk=77 d=64 "
                          "mask=causal'",
                      out),
            2);
  EXPECT_NE(out.find("libcuda.so.1 not found"), std::string::npos) << out;
  // Anything else may not.
  EXPECT_EQ(runRunner(env,
                      "--artifact=" + path +
                          " --spec='b=1 hq=8 hkv=2 sq=33 d=128 mask=causal'",
                      out),
            2);
  EXPECT_NE(out.find("attnrt-run: error: --spec changes d from 64 to 128: an "
                     "artifact fixes everything but b, sq, sk"),
            std::string::npos)
      << out;
  EXPECT_EQ(runRunner(env,
                      "--artifact=" + path +
                          " --spec='b=1 hq=8 hkv=2 sq=33 d=64 mask=none'",
                      out),
            2);
  EXPECT_NE(out.find("--spec changes mask from causal to none"),
            std::string::npos)
      << out;
  EXPECT_EQ(runRunner(env, "--artifact=" + path + " --spec='sq=abc'", out), 2);
  EXPECT_NE(out.find("attnrt-run: error: bad --spec: "), std::string::npos)
      << out;
  EXPECT_EQ(runRunner(env, "--artifact=" + path + " --time=0", out), 2);
  EXPECT_NE(out.find("expected --time to be a number of runs"),
            std::string::npos)
      << out;
  EXPECT_EQ(runRunner(env, "--artifact=" + path + " --splits=0", out), 2);
  EXPECT_NE(out.find("expected --splits to be a number of key splits in [1, "
                     "4096], got '0'"),
            std::string::npos)
      << out;
  EXPECT_EQ(runRunner(env, "--artifact=" + path + " --plan=-1", out), 2);
  EXPECT_NE(out.find("expected --plan to be a number of thread blocks in [0, "
                     "1000000] (0: the device's), got '-1'"),
            std::string::npos)
      << out;
  EXPECT_EQ(runRunner(env, "--artifact=" + path + " --bogus=1", out), 2);
  EXPECT_NE(out.find("unknown option '--bogus'"), std::string::npos) << out;
  EXPECT_EQ(runRunner(env, "", out), 2);
  EXPECT_NE(out.find("expected --artifact"), std::string::npos) << out;

  // The spec must describe the manifest's kernel.
  Artifact a = kernelArtifact();
  a.set("spec", "b=2 hq=8 hkv=2 sq=100 d=64 mask=causal lse=0");
  ASSERT_TRUE(writeArtifact(a, path, error)) << error;
  EXPECT_EQ(runRunner(env, "--artifact=" + path, out), 2);
  EXPECT_NE(out.find("the spec's lse 0 does not match the artifact's "
                     "reads_lse 1"),
            std::string::npos)
      << out;
  a.set("spec", "b=2 hq=8 hkv=2 sq=100 d=64 mask=causal ragged=1");
  ASSERT_TRUE(writeArtifact(a, path, error)) << error;
  EXPECT_EQ(runRunner(env, "--artifact=" + path, out), 2);
  EXPECT_NE(out.find("the spec's ragged on does not match the artifact's "
                     "reads_cu_seqlens_q 0"),
            std::string::npos)
      << out;
  std::remove(path.c_str());

  EXPECT_EQ(runRunner(env, "--artifact=" + path, out), 2);
  EXPECT_NE(out.find("cannot read " + path), std::string::npos) << out;
}
