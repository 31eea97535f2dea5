//===- SpecTest.cpp - spec text parsing and printing ----------------------===//
//
// Defaults, every mask form, the error messages, and printSpec round trips.
//
//===----------------------------------------------------------------------===//

#include "attnc/Spec.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

using namespace attnc;
using attnc::mask::Alignment;
using attnc::mask::DocumentSource;
using attnc::mask::MaskKind;

namespace {

AttentionSpec parseOk(const std::string &text) {
  AttentionSpec spec;
  std::string error;
  EXPECT_TRUE(parseSpec(text, spec, error)) << text << ": " << error;
  EXPECT_EQ(error, "") << text;
  return spec;
}

std::string parseError(const std::string &text) {
  AttentionSpec spec;
  std::string error;
  EXPECT_FALSE(parseSpec(text, spec, error)) << text;
  return error;
}

TEST(SpecTest, Defaults) {
  AttentionSpec s = parseOk("sq=100");
  EXPECT_EQ(s.b, 1);
  EXPECT_EQ(s.hq, 1);
  EXPECT_EQ(s.hkv, 1);
  EXPECT_EQ(s.sq, 100);
  EXPECT_EQ(s.sk, 100);
  EXPECT_EQ(s.d, 64);
  EXPECT_EQ(s.dv, 64);
  EXPECT_EQ(s.dtype, ElementType::BF16);
  EXPECT_FALSE(s.scale.has_value());
  EXPECT_EQ(s.mask.kind, MaskKind::None);
  EXPECT_FALSE(s.softcap.has_value());
  EXPECT_FALSE(s.alibi);
  EXPECT_TRUE(s.lse);
  EXPECT_DOUBLE_EQ(s.effectiveScale(), 0.125);
}

TEST(SpecTest, DerivedDefaultsFollowTheirKeys) {
  AttentionSpec s = parseOk("hq=8 sq=7 d=128");
  EXPECT_EQ(s.hkv, 8);
  EXPECT_EQ(s.sk, 7);
  EXPECT_EQ(s.dv, 128);
  EXPECT_DOUBLE_EQ(s.effectiveScale(), 1.0 / std::sqrt(128.0));
}

TEST(SpecTest, FullSpec) {
  AttentionSpec s = parseOk("b=2 hq=8 hkv=2 sq=1000 sk=1500 d=64 dv=32 "
                            "dtype=f16 scale=0.5 mask=causal softcap=30 alibi "
                            "lse=0");
  EXPECT_EQ(s.b, 2);
  EXPECT_EQ(s.hq, 8);
  EXPECT_EQ(s.hkv, 2);
  EXPECT_EQ(s.sq, 1000);
  EXPECT_EQ(s.sk, 1500);
  EXPECT_EQ(s.d, 64);
  EXPECT_EQ(s.dv, 32);
  EXPECT_EQ(s.dtype, ElementType::F16);
  ASSERT_TRUE(s.scale.has_value());
  EXPECT_EQ(*s.scale, 0.5);
  EXPECT_EQ(s.effectiveScale(), 0.5);
  EXPECT_EQ(s.mask.kind, MaskKind::Causal);
  EXPECT_EQ(s.mask.alignment, Alignment::BottomRight);
  ASSERT_TRUE(s.softcap.has_value());
  EXPECT_EQ(*s.softcap, 30.0);
  EXPECT_TRUE(s.alibi);
  EXPECT_FALSE(s.lse);
}

TEST(SpecTest, FlagsAndDtypes) {
  EXPECT_TRUE(parseOk("sq=1 alibi=1").alibi);
  EXPECT_FALSE(parseOk("sq=1 alibi=0").alibi);
  EXPECT_TRUE(parseOk("sq=1 lse=1").lse);
  EXPECT_EQ(parseOk("sq=1 dtype=bf16").dtype, ElementType::BF16);
  EXPECT_EQ(parseOk("sq=1 dtype=f32").dtype, ElementType::F32);
  EXPECT_STREQ(elementTypeName(ElementType::BF16), "bf16");
  EXPECT_STREQ(elementTypeName(ElementType::F16), "f16");
  EXPECT_STREQ(elementTypeName(ElementType::F32), "f32");
}

TEST(SpecTest, WhiteSpaceIsFlexible) {
  AttentionSpec s = parseOk("  sq=3\t\thq=2  \n");
  EXPECT_EQ(s.sq, 3);
  EXPECT_EQ(s.hq, 2);
}

TEST(SpecTest, Masks) {
  AttentionSpec s = parseOk("sq=4 mask=none");
  EXPECT_EQ(s.mask.kind, MaskKind::None);

  s = parseOk("sq=4 mask=causal:top_left");
  EXPECT_EQ(s.mask.kind, MaskKind::Causal);
  EXPECT_EQ(s.mask.alignment, Alignment::TopLeft);
  s = parseOk("sq=4 mask=causal:bottom_right");
  EXPECT_EQ(s.mask.alignment, Alignment::BottomRight);

  s = parseOk("sq=4 mask=window:3,5");
  EXPECT_EQ(s.mask.kind, MaskKind::SlidingWindow);
  EXPECT_EQ(s.mask.windowLeft, 3);
  EXPECT_EQ(s.mask.windowRight, 5);
  EXPECT_EQ(s.mask.alignment, Alignment::BottomRight);
  s = parseOk("sq=4 mask=window:0,0:top_left");
  EXPECT_EQ(s.mask.windowLeft, 0);
  EXPECT_EQ(s.mask.alignment, Alignment::TopLeft);

  s = parseOk("sq=4 mask=prefix:128:top_left");
  EXPECT_EQ(s.mask.kind, MaskKind::PrefixLM);
  EXPECT_EQ(s.mask.prefixLength, 128);
  EXPECT_EQ(s.mask.alignment, Alignment::TopLeft);

  s = parseOk("sq=200 sk=150 mask=blocksparse:128,64,0.25");
  EXPECT_EQ(s.mask.kind, MaskKind::BlockSparse);
  EXPECT_EQ(s.mask.blockQ, 128);
  EXPECT_EQ(s.mask.blockK, 64);
  EXPECT_EQ(s.blockDensity, 0.25);
  EXPECT_EQ(parseOk("sq=1 mask=blocksparse:1,1,0").blockDensity, 0.0);
  EXPECT_EQ(parseOk("sq=1 mask=blocksparse:1,1,1").blockDensity, 1.0);
}

TEST(SpecTest, DocumentMaskSetsLengths) {
  AttentionSpec s = parseOk("hq=2 mask=document:3,5,2");
  EXPECT_EQ(s.mask.kind, MaskKind::Document);
  EXPECT_EQ(s.mask.documentSource, DocumentSource::CuSeqlens);
  EXPECT_FALSE(s.mask.documentCausal);
  EXPECT_EQ(s.documentLengths, (std::vector<int64_t>{3, 5, 2}));
  EXPECT_EQ(s.sq, 10);
  EXPECT_EQ(s.sk, 10);

  s = parseOk("mask=document:4:causal sq=4 sk=4");
  EXPECT_TRUE(s.mask.documentCausal);
  EXPECT_EQ(s.documentLengths, (std::vector<int64_t>{4}));
  EXPECT_EQ(s.sq, 4);

  // Empty documents are allowed.
  s = parseOk("mask=document:0,3,0");
  EXPECT_EQ(s.sq, 3);
}

TEST(SpecTest, Errors) {
  const std::string seq = "expected an integer in [1, 2147483647]";
  EXPECT_EQ(parseError("sq=4 foo=1"), "unknown key 'foo'");
  EXPECT_EQ(parseError("sq=abc"), "invalid value 'abc' for key 'sq': " + seq);
  EXPECT_EQ(parseError("sq=0"), "invalid value '0' for key 'sq': " + seq);
  EXPECT_EQ(parseError("sq=-3"), "invalid value '-3' for key 'sq': " + seq);
  EXPECT_EQ(parseError("sq=12x"), "invalid value '12x' for key 'sq': " + seq);
  EXPECT_EQ(parseError("sq="), "invalid value '' for key 'sq': " + seq);
  EXPECT_EQ(parseError("sq=99999999999999999999999"),
            "invalid value '99999999999999999999999' for key 'sq': " + seq);
  EXPECT_EQ(parseError("sq=4 d=1.5"), "invalid value '1.5' for key 'd': "
                                      "expected an integer in [1, 65536]");
  for (const char *key : {"b", "hq", "hkv"})
    EXPECT_EQ(parseError(std::string("sq=4 ") + key + "=0"),
              std::string("invalid value '0' for key '") + key +
                  "': expected an integer in [1, 65535]");
  EXPECT_EQ(parseError("sq=4 sk=0"), "invalid value '0' for key 'sk': " + seq);
  EXPECT_EQ(parseError("sq=4 dv=0"), "invalid value '0' for key 'dv': "
                                     "expected an integer in [1, 65536]");
  // Sizes are bounded where the runtime bounds them, so no size product of a
  // valid spec overflows.
  EXPECT_EQ(parseError("sq=4611686018427387904"),
            "invalid value '4611686018427387904' for key 'sq': " + seq);
  EXPECT_EQ(parseError("sq=4 b=65536"), "invalid value '65536' for key 'b': "
                                        "expected an integer in [1, 65535]");
  EXPECT_EQ(parseError("sq=4 d=65537"), "invalid value '65537' for key 'd': "
                                        "expected an integer in [1, 65536]");
  EXPECT_EQ(parseError("sq=4 mask=window:9223372036854775807,9223372036854775807"),
            "invalid value 'window:9223372036854775807,9223372036854775807' "
            "for key 'mask': expected window:LEFT,RIGHT[:top_left|:"
            "bottom_right] with LEFT, RIGHT in [0, 2147483647]");
  EXPECT_EQ(parseError("sq=4 mask=blocksparse:9223372036854775807,1,0.5"),
            "invalid value 'blocksparse:9223372036854775807,1,0.5' for key "
            "'mask': expected blocksparse:BQ,BK,DENSITY with BQ, BK in "
            "[1, 2147483647] and DENSITY in [0, 1]");
  EXPECT_NE(parseError("sq=4 mask=prefix:2147483648").find("expected prefix:N"),
            std::string::npos);
  EXPECT_EQ(parseError("sq=4 dtype=fp8"),
            "invalid value 'fp8' for key 'dtype': expected bf16, f16 or f32");
  EXPECT_EQ(parseError("sq=4 scale=x"),
            "invalid value 'x' for key 'scale': expected a finite positive "
            "number");
  EXPECT_EQ(parseError("sq=4 scale=0"),
            "invalid value '0' for key 'scale': expected a finite positive "
            "number");
  EXPECT_EQ(parseError("sq=4 scale=inf"),
            "invalid value 'inf' for key 'scale': expected a finite positive "
            "number");
  EXPECT_EQ(parseError("sq=4 softcap=-1"),
            "invalid value '-1' for key 'softcap': expected a finite positive "
            "number");
  EXPECT_EQ(parseError("sq=4 softcap=nan"),
            "invalid value 'nan' for key 'softcap': expected a finite "
            "positive number");
  EXPECT_EQ(parseError("sq=4 lse=yes"),
            "invalid value 'yes' for key 'lse': expected 0 or 1");
  EXPECT_EQ(parseError("sq=4 alibi=2"),
            "invalid value '2' for key 'alibi': expected 0 or 1");
  EXPECT_EQ(parseError("sq=1 sk=100 paged=16"),
            "sk=100 is not a multiple of the page size paged=16");
  EXPECT_EQ(parseError("sq=1 sk=96 paged=0"),
            "invalid value '0' for key 'paged': expected an integer in [1, "
            "2147483647]");
  EXPECT_EQ(parseError("mask=document:32,32 paged=16"),
            "paged=16 does not take a document mask");
  EXPECT_EQ(parseError("mask=document:32,32 kv_lens=1"),
            "kv_lens=1 does not take a document mask");
  EXPECT_EQ(parseError("sq=1 kv_dtype=fp16"),
            "invalid value 'fp16' for key 'kv_dtype': expected fp8 or same");
  EXPECT_EQ(parseError("sq=1 kv_lens=2"),
            "invalid value '2' for key 'kv_lens': expected 0 or 1");
  EXPECT_EQ(parseError("sq=1 decode=yes"),
            "invalid value 'yes' for key 'decode': expected 0 or 1");
  EXPECT_EQ(parseError("sq=4 causal"), "expected key=value, got 'causal'");
  EXPECT_EQ(parseError("sq=4 sq=5"), "duplicate key 'sq'");
  EXPECT_EQ(parseError("sq=4 alibi alibi=0"), "duplicate key 'alibi'");
  EXPECT_EQ(parseError("hq=8"),
            "missing key 'sq' (required unless mask=document:... gives it)");
  EXPECT_EQ(parseError(""),
            "missing key 'sq' (required unless mask=document:... gives it)");
  EXPECT_EQ(parseError("sk=4"),
            "missing key 'sq' (required unless mask=document:... gives it)");
  EXPECT_EQ(parseError("sq=4 hq=6 hkv=4"), "hq=6 is not a multiple of hkv=4");
  EXPECT_EQ(parseError("sq=4 hkv=2"), "hq=1 is not a multiple of hkv=2");
  EXPECT_EQ(parseError("sq=4 mask=document:3,5"),
            "sq=4 does not match the document lengths, which sum to 8");
  EXPECT_EQ(parseError("sk=9 mask=document:3,5"),
            "sk=9 does not match the document lengths, which sum to 8");
}

TEST(SpecTest, Ragged) {
  AttentionSpec seeded = parseOk("b=5 sq=70 sk=90 ragged=1");
  EXPECT_TRUE(seeded.ragged);
  EXPECT_TRUE(seeded.raggedLengths.empty());
  EXPECT_EQ(seeded.b, 5);
  // A list gives b, sq and sk (its maxima; with pages sk rounds up to a
  // page), unless sq and sk are given.
  AttentionSpec listed = parseOk("ragged=40:40,1:90,0:10");
  EXPECT_TRUE(listed.ragged);
  ASSERT_EQ(listed.raggedLengths.size(), 3u);
  EXPECT_EQ(listed.raggedLengths[1].first, 1);
  EXPECT_EQ(listed.raggedLengths[1].second, 90);
  EXPECT_EQ(listed.b, 3);
  EXPECT_EQ(listed.sq, 40);
  EXPECT_EQ(listed.sk, 90);
  EXPECT_EQ(parseOk("paged=16 ragged=3:20,1:33").sk, 48);
  EXPECT_EQ(parseOk("sq=64 sk=128 ragged=3:20,1:33").sq, 64);
  EXPECT_FALSE(parseOk("sq=4 ragged=0").ragged);
}

TEST(SpecTest, BlockMaskGrids) {
  AttentionSpec shared = parseOk("sq=64 mask=blocksparse:16,16,0.5");
  EXPECT_FALSE(shared.blockMaskPerBatch);
  EXPECT_FALSE(shared.blockMaskPerHead);
  AttentionSpec both =
      parseOk("sq=64 mask=blocksparse:16,16,0.5 block_mask=bh");
  EXPECT_TRUE(both.blockMaskPerBatch);
  EXPECT_TRUE(both.blockMaskPerHead);
  EXPECT_TRUE(parseOk("sq=64 mask=blocksparse:16,16,0.5 block_mask=b")
                  .blockMaskPerBatch);
  EXPECT_FALSE(parseOk("sq=64 mask=blocksparse:16,16,0.5 block_mask=h")
                   .blockMaskPerBatch);
  EXPECT_FALSE(parseOk("sq=64 mask=blocksparse:16,16,0.5 block_mask=1")
                   .blockMaskPerHead);
  EXPECT_EQ(parseError("sq=64 mask=causal block_mask=b"),
            "block_mask= needs mask=blocksparse:...");
  EXPECT_EQ(parseError("sq=64 mask=blocksparse:16,16,0.5 block_mask=hb"),
            "invalid value 'hb' for key 'block_mask': expected 1, b, h or bh "
            "(one block grid shared by all, or one per batch entry, per query "
            "head, or both)");
}

TEST(SpecTest, RaggedErrors) {
  const char *form = "0, 1 or Q:K,Q:K,... (each sequence's query and key "
                     "lengths, integers in [0, 2147483647])";
  EXPECT_EQ(parseError("ragged=2"),
            std::string("invalid value '2' for key 'ragged': expected ") + form);
  EXPECT_EQ(parseError("ragged=3:-1"),
            std::string("invalid value '3:-1' for key 'ragged': expected ") + form);
  EXPECT_EQ(parseError("ragged=3:4,5"),
            std::string("invalid value '3:4,5' for key 'ragged': expected ") + form);
  EXPECT_EQ(parseError("b=2 ragged=3:4,5:6,1:1"),
            "b=2 does not match the 3 sequences of ragged=");
  EXPECT_EQ(parseError("sq=2 ragged=3:4"),
            "sq=2 is shorter than the longest query length of ragged=, 3");
  EXPECT_EQ(parseError("sk=3 ragged=3:4"),
            "sk=3 is shorter than the longest key length of ragged=, 4");
  EXPECT_EQ(parseError("mask=document:4,4 ragged=1"),
            "ragged= does not take a document mask");
  EXPECT_EQ(parseError("sq=1 decode=1 ragged=1"),
            "ragged= runs on the prefill kernel: decode=1 does not take it");
  EXPECT_EQ(parseError("b=65535 sq=2147483647 ragged=1"),
            "ragged= packs up to b * sq = 140735340806145 query and b * sk = "
            "140735340806145 key rows, more than the int32 offsets hold");
}

TEST(SpecTest, MaskErrorsNameTheValue) {
  const char *bad[] = {
      "mask=diagonal",
      "mask=none:top_left",
      "mask=causal:left",
      "mask=causal:top_left:x",
      "mask=window",
      "mask=window:3",
      "mask=window:3,x",
      "mask=window:-1,0",
      "mask=window:1,2:middle",
      "mask=prefix",
      "mask=prefix:-2",
      "mask=prefix:2:up",
      "mask=document",
      "mask=document:",
      "mask=document:3,,4",
      "mask=document:3,-1",
      "mask=document:0,0",
      "mask=document:3:noncausal",
      "mask=blocksparse:64,64",
      "mask=blocksparse:0,64,0.5",
      "mask=blocksparse:64,64,1.5",
      "mask=blocksparse:64,64,-0.1",
      "mask=blocksparse:64,64,x",
      "mask=blocksparse:64,64,nan",
      "mask=",
  };
  for (const char *b : bad) {
    std::string text = std::string("sq=4 ") + b;
    std::string value = std::string(b).substr(5);
    std::string error = parseError(text);
    EXPECT_EQ(error.rfind("invalid value '" + value +
                              "' for key 'mask': "
                              "expected ",
                          0),
              0u)
        << text << " -> " << error;
  }
  EXPECT_EQ(parseError("sq=4 mask=window:3"),
            "invalid value 'window:3' for key 'mask': expected "
            "window:LEFT,RIGHT[:top_left|:bottom_right] with LEFT, RIGHT in "
            "[0, 2147483647]");
}

TEST(SpecTest, FailureLeavesSpecUntouched) {
  AttentionSpec s;
  s.sq = 77;
  std::string error;
  EXPECT_FALSE(parseSpec("sq=5 hq=oops", s, error));
  EXPECT_EQ(s.sq, 77);
}

TEST(SpecTest, PrintIsCanonical) {
  EXPECT_EQ(printSpec(parseOk("sq=10")),
            "b=1 hq=1 hkv=1 sq=10 sk=10 d=64 dv=64 dtype=bf16 mask=none lse=1");
  EXPECT_EQ(printSpec(parseOk("b=2 hq=8 hkv=2 sq=1000 sk=1000 d=64 dtype=bf16 "
                              "mask=causal softcap=30")),
            "b=2 hq=8 hkv=2 sq=1000 sk=1000 d=64 dv=64 dtype=bf16 "
            "mask=causal softcap=30 lse=1");
  EXPECT_EQ(printSpec(parseOk("sq=3 scale=0.1 alibi lse=0 dtype=f32 "
                              "mask=window:2,1:top_left")),
            "b=1 hq=1 hkv=1 sq=3 sk=3 d=64 dv=64 dtype=f32 scale=0.1 "
            "mask=window:2,1:top_left alibi lse=0");
}

TEST(SpecTest, RoundTrip) {
  const char *texts[] = {
      "sq=10",
      "b=2 hq=8 hkv=2 sq=1000 sk=1000 d=64 dtype=bf16 mask=causal softcap=30",
      "b=3 hq=4 hkv=1 sq=17 sk=33 d=32 dv=48 dtype=f16 "
      "scale=0.3333333333333333 "
      "mask=causal:top_left softcap=12.5 alibi lse=0",
      "sq=5 sk=9 mask=window:3,0",
      "sq=5 sk=9 mask=window:1,2:top_left",
      "sq=5 sk=9 mask=prefix:4",
      "sq=5 sk=9 mask=prefix:0:top_left dtype=f32",
      "b=2 hq=4 sq=64 mask=blocksparse:16,32,0.25 block_mask=bh",
      "b=2 sq=64 mask=blocksparse:16,32,0.25 block_mask=b",
      "mask=document:3,5,0,2",
      "hq=2 mask=document:7:causal",
      "sq=200 sk=150 mask=blocksparse:128,64,0.123456789",
      "sq=1 scale=1e-300 softcap=1e300",
      "b=64 hq=32 hkv=8 sq=1 sk=8192 d=128 mask=causal decode=1",
      "b=4 hq=4 hkv=2 sq=3 sk=300 mask=window:7,0 kv_lens=1",
      "b=3 hq=8 hkv=2 sq=1 sk=512 mask=causal kv_lens=1 paged=16",
      "b=3 hq=8 hkv=2 sq=1 sk=512 mask=causal kv_lens=1 kv_dtype=fp8",
      "b=3 hq=8 hkv=2 sq=1 sk=512 mask=causal kv_lens=1 paged=16 kv_dtype=fp8",
      "b=5 hq=4 hkv=2 sq=70 sk=90 mask=causal ragged=1",
      "hq=4 mask=causal ragged=40:40,1:90,0:10",
      "hq=4 mask=none paged=16 ragged=3:20,1:33",
  };
  for (const char *text : texts) {
    AttentionSpec a = parseOk(text);
    std::string printed = printSpec(a);
    AttentionSpec b = parseOk(printed);
    EXPECT_EQ(printSpec(b), printed) << text;
    EXPECT_EQ(a.b, b.b) << text;
    EXPECT_EQ(a.hq, b.hq) << text;
    EXPECT_EQ(a.hkv, b.hkv) << text;
    EXPECT_EQ(a.sq, b.sq) << text;
    EXPECT_EQ(a.sk, b.sk) << text;
    EXPECT_EQ(a.decode, b.decode) << text;
    EXPECT_EQ(a.kvLens, b.kvLens) << text;
    EXPECT_EQ(a.pageSize, b.pageSize) << text;
    EXPECT_EQ(a.kvFp8, b.kvFp8) << text;
    EXPECT_EQ(a.d, b.d) << text;
    EXPECT_EQ(a.dv, b.dv) << text;
    EXPECT_EQ(a.dtype, b.dtype) << text;
    EXPECT_EQ(a.scale, b.scale) << text;
    EXPECT_EQ(a.softcap, b.softcap) << text;
    EXPECT_EQ(a.alibi, b.alibi) << text;
    EXPECT_EQ(a.lse, b.lse) << text;
    EXPECT_EQ(a.mask.kind, b.mask.kind) << text;
    EXPECT_EQ(a.mask.alignment, b.mask.alignment) << text;
    EXPECT_EQ(a.mask.windowLeft, b.mask.windowLeft) << text;
    EXPECT_EQ(a.mask.windowRight, b.mask.windowRight) << text;
    EXPECT_EQ(a.mask.prefixLength, b.mask.prefixLength) << text;
    EXPECT_EQ(a.mask.documentSource, b.mask.documentSource) << text;
    EXPECT_EQ(a.mask.documentCausal, b.mask.documentCausal) << text;
    EXPECT_EQ(a.mask.blockQ, b.mask.blockQ) << text;
    EXPECT_EQ(a.mask.blockK, b.mask.blockK) << text;
    EXPECT_EQ(a.documentLengths, b.documentLengths) << text;
    EXPECT_EQ(a.blockDensity, b.blockDensity) << text;
  }
}

TEST(SpecTest, ProgrammaticSpecRoundTrips) {
  AttentionSpec a;
  a.b = 2;
  a.hq = 6;
  a.hkv = 3;
  a.sq = 11;
  a.sk = 13;
  a.d = 16;
  a.dv = 8;
  a.dtype = ElementType::F16;
  a.scale = 0.1 + 0.2; // not a short decimal
  a.softcap = 1.0 / 3.0;
  a.mask = mask::MaskSpec::prefixLM(5, Alignment::TopLeft);
  AttentionSpec b = parseOk(printSpec(a));
  EXPECT_EQ(b.scale, a.scale);
  EXPECT_EQ(b.softcap, a.softcap);
  EXPECT_EQ(printSpec(b), printSpec(a));
}

TEST(SpecTest, AlibiSlopes) {
  std::vector<double> s = standardAlibiSlopes(8);
  ASSERT_EQ(s.size(), 8u);
  for (int i = 0; i < 8; ++i)
    EXPECT_DOUBLE_EQ(s[i], std::pow(2.0, -(i + 1))) << i;
  s = standardAlibiSlopes(4);
  ASSERT_EQ(s.size(), 4u);
  EXPECT_DOUBLE_EQ(s[0], 0.25);
  EXPECT_DOUBLE_EQ(s[3], 1.0 / 256);
  s = standardAlibiSlopes(3);
  EXPECT_DOUBLE_EQ(s[0], std::pow(2.0, -8.0 / 3));
  EXPECT_DOUBLE_EQ(s[2], 1.0 / 256);
  EXPECT_TRUE(standardAlibiSlopes(0).empty());
}

} // namespace
