//===- Spec.cpp - one-line attention specs --------------------------------===//
//
// Parsing and printing of the spec text of Spec.h. Plain C++ built with
// -fno-exceptions: numbers go through strtoll/strtod with end-pointer checks.
//
//===----------------------------------------------------------------------===//

#include "attnc/Spec.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <cstdint>
#include <sstream>

using namespace attnc;
using attnc::mask::Alignment;
using attnc::mask::DocumentSource;
using attnc::mask::MaskKind;
using attnc::mask::MaskSpec;

const char *attnc::elementTypeName(ElementType t) {
  switch (t) {
  case ElementType::BF16:
    return "bf16";
  case ElementType::F16:
    return "f16";
  case ElementType::F32:
    return "f32";
  }
  return "unknown";
}

double AttentionSpec::effectiveScale() const {
  if (scale)
    return *scale;
  return 1.0 / std::sqrt(static_cast<double>(d));
}

std::vector<double> attnc::standardAlibiSlopes(int64_t heads) {
  std::vector<double> slopes;
  if (heads <= 0)
    return slopes;
  slopes.reserve(heads);
  for (int64_t h = 0; h < heads; ++h)
    slopes.push_back(std::exp2(-8.0 * static_cast<double>(h + 1) /
                               static_cast<double>(heads)));
  return slopes;
}

//===----------------------------------------------------------------------===//
// Number parsing
//===----------------------------------------------------------------------===//

/// A whole-string base-10 integer.
static bool parseInt(const std::string &s, int64_t &v) {
  if (s.empty())
    return false;
  // strtoll skips leading white space; the spec text never has any here, but
  // reject it anyway so " 3" is not a number.
  if (s[0] == ' ' || s[0] == '\t')
    return false;
  errno = 0;
  char *end = nullptr;
  long long r = std::strtoll(s.c_str(), &end, 10);
  if (errno == ERANGE || end != s.c_str() + s.size())
    return false;
  v = static_cast<int64_t>(r);
  return true;
}

/// A whole-string finite floating-point number.
static bool parseDouble(const std::string &s, double &v) {
  if (s.empty() || s[0] == ' ' || s[0] == '\t')
    return false;
  errno = 0;
  char *end = nullptr;
  double r = std::strtod(s.c_str(), &end);
  if (errno == ERANGE || end != s.c_str() + s.size() || !std::isfinite(r))
    return false;
  v = r;
  return true;
}

/// The shortest decimal text that strtod reads back as exactly `v`.
static std::string formatDouble(double v) {
  char buf[64];
  // Integers print plainly ("30", not "3e+01").
  if (std::fabs(v) < 1e15 && v == std::floor(v)) {
    std::snprintf(buf, sizeof(buf), "%.0f", v);
    return buf;
  }
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof(buf), "%.*g", precision, v);
    if (std::strtod(buf, nullptr) == v)
      return buf;
  }
  std::snprintf(buf, sizeof(buf), "%.17g", v);
  return buf;
}

static std::vector<std::string> split(const std::string &s, char sep) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    size_t pos = s.find(sep, start);
    if (pos == std::string::npos) {
      parts.push_back(s.substr(start));
      return parts;
    }
    parts.push_back(s.substr(start, pos - start));
    start = pos + 1;
  }
}

static std::string invalidValue(const std::string &key,
                                const std::string &value,
                                const std::string &expected) {
  return "invalid value '" + value + "' for key '" + key + "': expected " +
         expected;
}

//===----------------------------------------------------------------------===//
// Mask parsing
//===----------------------------------------------------------------------===//

namespace {
/// A parsed mask= value.
struct ParsedMask {
  MaskSpec spec;
  std::vector<int64_t> documentLengths;
  double blockDensity = 0.5;
};
} // namespace

static bool parseAlignment(const std::string &s, Alignment &a) {
  if (s == "top_left") {
    a = Alignment::TopLeft;
    return true;
  }
  if (s == "bottom_right") {
    a = Alignment::BottomRight;
    return true;
  }
  return false;
}

/// Parses the value of mask=. On failure, `error` names the key and value.
static bool parseMask(const std::string &value, ParsedMask &out,
                      std::string &error) {
  std::vector<std::string> parts = split(value, ':');
  const std::string &kind = parts[0];
  auto fail = [&](const char *expected) {
    error = invalidValue("mask", value, expected);
    return false;
  };

  if (kind == "none") {
    if (parts.size() != 1)
      return fail("none");
    out.spec = MaskSpec::none();
    return true;
  }

  if (kind == "causal") {
    const char *form = "causal[:top_left|:bottom_right]";
    Alignment a = Alignment::BottomRight;
    if (parts.size() > 2 || (parts.size() == 2 && !parseAlignment(parts[1], a)))
      return fail(form);
    out.spec = MaskSpec::causal(a);
    return true;
  }

  if (kind == "window") {
    const char *form =
        "window:LEFT,RIGHT[:top_left|:bottom_right] with LEFT, RIGHT in "
        "[0, 2147483647]";
    if (parts.size() < 2 || parts.size() > 3)
      return fail(form);
    std::vector<std::string> nums = split(parts[1], ',');
    int64_t left, right;
    if (nums.size() != 2 || !parseInt(nums[0], left) ||
        !parseInt(nums[1], right) || left < 0 || right < 0 ||
        left > kMaxSeqLen || right > kMaxSeqLen)
      return fail(form);
    Alignment a = Alignment::BottomRight;
    if (parts.size() == 3 && !parseAlignment(parts[2], a))
      return fail(form);
    out.spec = MaskSpec::slidingWindow(left, right, a);
    return true;
  }

  if (kind == "prefix") {
    const char *form =
        "prefix:N[:top_left|:bottom_right] with N in [0, 2147483647]";
    if (parts.size() < 2 || parts.size() > 3)
      return fail(form);
    int64_t n;
    if (!parseInt(parts[1], n) || n < 0 || n > kMaxSeqLen)
      return fail(form);
    Alignment a = Alignment::BottomRight;
    if (parts.size() == 3 && !parseAlignment(parts[2], a))
      return fail(form);
    out.spec = MaskSpec::prefixLM(n, a);
    return true;
  }

  if (kind == "document") {
    const char *form = "document:LEN,LEN,...[:causal] with every LEN >= 0 "
                       "and a positive total";
    if (parts.size() < 2 || parts.size() > 3)
      return fail(form);
    bool causal = false;
    if (parts.size() == 3) {
      if (parts[2] != "causal")
        return fail(form);
      causal = true;
    }
    std::vector<int64_t> lengths;
    int64_t total = 0;
    for (const std::string &n : split(parts[1], ',')) {
      int64_t len;
      if (!parseInt(n, len) || len < 0 || len > INT32_MAX - total)
        return fail(form);
      lengths.push_back(len);
      total += len;
    }
    if (total <= 0)
      return fail(form);
    out.spec = MaskSpec::document(DocumentSource::CuSeqlens, causal);
    out.documentLengths = std::move(lengths);
    return true;
  }

  if (kind == "blocksparse") {
    const char *form = "blocksparse:BQ,BK,DENSITY with BQ, BK in "
                       "[1, 2147483647] and DENSITY in [0, 1]";
    if (parts.size() != 2)
      return fail(form);
    std::vector<std::string> nums = split(parts[1], ',');
    int64_t bq, bk;
    double density;
    if (nums.size() != 3 || !parseInt(nums[0], bq) || !parseInt(nums[1], bk) ||
        !parseDouble(nums[2], density) || bq <= 0 || bk <= 0 ||
        bq > kMaxSeqLen || bk > kMaxSeqLen ||
        !(density >= 0.0 && density <= 1.0))
      return fail(form);
    out.spec = MaskSpec::blockSparse(bq, bk);
    out.blockDensity = density;
    return true;
  }

  return fail("none, causal[:ALIGN], window:LEFT,RIGHT[:ALIGN], "
              "prefix:N[:ALIGN], document:LEN,...[:causal] or "
              "blocksparse:BQ,BK,DENSITY");
}

/// Parses Q:K,Q:K,... (lengths in [0, kMaxSeqLen]) into `out`.
static bool parseRaggedLengths(const std::string &value,
                               std::vector<std::pair<int64_t, int64_t>> &out) {
  std::vector<std::pair<int64_t, int64_t>> lengths;
  for (const std::string &pair : split(value, ',')) {
    std::vector<std::string> qk = split(pair, ':');
    int64_t q, k;
    if (qk.size() != 2 || !parseInt(qk[0], q) || !parseInt(qk[1], k) ||
        q < 0 || k < 0 || q > kMaxSeqLen || k > kMaxSeqLen)
      return false;
    lengths.emplace_back(q, k);
  }
  out = std::move(lengths);
  return !out.empty();
}

//===----------------------------------------------------------------------===//
// parseSpec / printSpec
//===----------------------------------------------------------------------===//

bool attnc::parseSpec(const std::string &text, AttentionSpec &result,
                      std::string &error) {
  AttentionSpec spec;
  bool haveB = false, haveHkv = false, haveSq = false, haveSk = false,
       haveDv = false;
  std::vector<std::string> seen;

  std::istringstream in(text);
  std::string token;
  while (in >> token) {
    std::string key, value;
    size_t eq = token.find('=');
    if (eq == std::string::npos) {
      if (token != "alibi") {
        error = "expected key=value, got '" + token + "'";
        return false;
      }
      key = "alibi";
      value = "1";
    } else {
      key = token.substr(0, eq);
      value = token.substr(eq + 1);
    }

    for (const std::string &k : seen) {
      if (k == key) {
        error = "duplicate key '" + key + "'";
        return false;
      }
    }
    seen.push_back(key);

    // Sizes are bounded where the runtime bounds them (the grid's 65535
    // batches and heads, 2^31 - 1 positions) and head dims by 65536, so no
    // size product of a valid spec overflows.
    auto positiveInt = [&](int64_t &field, int64_t max) {
      int64_t v;
      if (!parseInt(value, v) || v <= 0 || v > max) {
        error = invalidValue(key, value,
                             ("an integer in [1, " + std::to_string(max) + "]")
                                 .c_str());
        return false;
      }
      field = v;
      return true;
    };
    auto positiveDouble = [&](std::optional<double> &field) {
      double v;
      if (!parseDouble(value, v) || !(v > 0)) {
        error = invalidValue(key, value, "a finite positive number");
        return false;
      }
      field = v;
      return true;
    };
    auto flag = [&](bool &field) {
      if (value == "0" || value == "1") {
        field = value == "1";
        return true;
      }
      error = invalidValue(key, value, "0 or 1");
      return false;
    };

    bool ok;
    if (key == "b") {
      ok = positiveInt(spec.b, kMaxBatch);
      haveB = true;
    } else if (key == "hq") {
      ok = positiveInt(spec.hq, kMaxHeads);
    } else if (key == "hkv") {
      ok = positiveInt(spec.hkv, kMaxHeads);
      haveHkv = true;
    } else if (key == "sq") {
      ok = positiveInt(spec.sq, kMaxSeqLen);
      haveSq = true;
    } else if (key == "sk") {
      ok = positiveInt(spec.sk, kMaxSeqLen);
      haveSk = true;
    } else if (key == "d") {
      ok = positiveInt(spec.d, kMaxHeadDim);
    } else if (key == "dv") {
      ok = positiveInt(spec.dv, kMaxHeadDim);
      haveDv = true;
    } else if (key == "dtype") {
      ok = true;
      if (value == "bf16")
        spec.dtype = ElementType::BF16;
      else if (value == "f16")
        spec.dtype = ElementType::F16;
      else if (value == "f32")
        spec.dtype = ElementType::F32;
      else {
        error = invalidValue(key, value, "bf16, f16 or f32");
        ok = false;
      }
    } else if (key == "scale") {
      ok = positiveDouble(spec.scale);
    } else if (key == "softcap") {
      ok = positiveDouble(spec.softcap);
    } else if (key == "alibi") {
      ok = flag(spec.alibi);
    } else if (key == "lse") {
      ok = flag(spec.lse);
    } else if (key == "decode") {
      ok = flag(spec.decode);
    } else if (key == "kv_lens") {
      ok = flag(spec.kvLens);
    } else if (key == "kv_dtype") {
      ok = value == "fp8" || value == "same";
      if (ok)
        spec.kvFp8 = value == "fp8";
      else
        error = invalidValue(key, value, "fp8 or same");
    } else if (key == "ragged") {
      ok = value == "0" || value == "1" ||
           parseRaggedLengths(value, spec.raggedLengths);
      if (ok)
        spec.ragged = value != "0";
      else
        error = invalidValue(key, value,
                             "0, 1 or Q:K,Q:K,... (each sequence's query and "
                             "key lengths, integers in [0, 2147483647])");
    } else if (key == "paged") {
      ok = positiveInt(spec.pageSize, kMaxSeqLen);
    } else if (key == "block_mask") {
      ok = value == "1" || value == "b" || value == "h" || value == "bh";
      if (ok) {
        spec.blockMaskPerBatch = value == "b" || value == "bh";
        spec.blockMaskPerHead = value == "h" || value == "bh";
      } else {
        error = invalidValue(key, value,
                             "1, b, h or bh (one block grid shared by all, or "
                             "one per batch entry, per query head, or both)");
      }
    } else if (key == "mask") {
      ParsedMask m;
      ok = parseMask(value, m, error);
      if (ok) {
        spec.mask = m.spec;
        spec.documentLengths = std::move(m.documentLengths);
        spec.blockDensity = m.blockDensity;
      }
    } else {
      error = "unknown key '" + key + "'";
      ok = false;
    }
    if (!ok)
      return false;
  }

  if (!spec.raggedLengths.empty()) {
    // Explicit lengths give b, and sq and sk unless they are given.
    int64_t count = static_cast<int64_t>(spec.raggedLengths.size());
    int64_t maxQ = 1, maxK = 1;
    for (auto [q, k] : spec.raggedLengths) {
      maxQ = std::max(maxQ, q);
      maxK = std::max(maxK, k);
    }
    if (haveB && spec.b != count) {
      error = "b=" + std::to_string(spec.b) + " does not match the " +
              std::to_string(count) + " sequences of ragged=";
      return false;
    }
    if (count > kMaxBatch) {
      error = "ragged= lists " + std::to_string(count) +
              " sequences, more than " + std::to_string(kMaxBatch);
      return false;
    }
    spec.b = count;
    if (haveSq && spec.sq < maxQ) {
      error = "sq=" + std::to_string(spec.sq) +
              " is shorter than the longest query length of ragged=, " +
              std::to_string(maxQ);
      return false;
    }
    if (haveSk && spec.sk < maxK) {
      error = "sk=" + std::to_string(spec.sk) +
              " is shorter than the longest key length of ragged=, " +
              std::to_string(maxK);
      return false;
    }
    if (!haveSq)
      spec.sq = maxQ;
    if (!haveSk) {
      spec.sk = maxK;
      if (spec.pageSize > 0)
        spec.sk = (maxK + spec.pageSize - 1) / spec.pageSize * spec.pageSize;
    }
    haveSq = haveSk = true;
  }
  if ((spec.blockMaskPerBatch || spec.blockMaskPerHead) &&
      spec.mask.kind != MaskKind::BlockSparse) {
    error = "block_mask= needs mask=blocksparse:...";
    return false;
  }
  if (spec.ragged && spec.mask.kind == MaskKind::Document) {
    error = "ragged= does not take a document mask";
    return false;
  }
  if (spec.ragged && spec.decode) {
    error = "ragged= runs on the prefill kernel: decode=1 does not take it";
    return false;
  }
  if (spec.mask.kind == MaskKind::Document) {
    int64_t total = 0;
    for (int64_t len : spec.documentLengths)
      total += len;
    if (haveSq && spec.sq != total) {
      error = "sq=" + std::to_string(spec.sq) +
              " does not match the document lengths, which sum to " +
              std::to_string(total);
      return false;
    }
    if (haveSk && spec.sk != total) {
      error = "sk=" + std::to_string(spec.sk) +
              " does not match the document lengths, which sum to " +
              std::to_string(total);
      return false;
    }
    spec.sq = spec.sk = total;
  } else {
    if (!haveSq) {
      error = "missing key 'sq' (required unless mask=document:... gives it)";
      return false;
    }
    if (!haveSk)
      spec.sk = spec.sq;
  }
  if (!haveHkv)
    spec.hkv = spec.hq;
  if (!haveDv)
    spec.dv = spec.d;
  if (spec.hq % spec.hkv != 0) {
    error = "hq=" + std::to_string(spec.hq) +
            " is not a multiple of hkv=" + std::to_string(spec.hkv);
    return false;
  }
  if (spec.pageSize > 0) {
    if (spec.sk % spec.pageSize != 0) {
      error = "sk=" + std::to_string(spec.sk) +
              " is not a multiple of the page size paged=" +
              std::to_string(spec.pageSize);
      return false;
    }
    if (spec.mask.kind == MaskKind::Document) {
      error = "paged=" + std::to_string(spec.pageSize) +
              " does not take a document mask";
      return false;
    }
    spec.kvLens = true; // a paged cache has per-sequence lengths
  }
  if (spec.kvLens && spec.mask.kind == MaskKind::Document) {
    error = "kv_lens=1 does not take a document mask";
    return false;
  }

  if (spec.ragged &&
      (spec.b * spec.sq > INT32_MAX || spec.b * spec.sk > INT32_MAX)) {
    error = "ragged= packs up to b * sq = " + std::to_string(spec.b * spec.sq) +
            " query and b * sk = " + std::to_string(spec.b * spec.sk) +
            " key rows, more than the int32 offsets hold";
    return false;
  }

  result = std::move(spec);
  return true;
}

static std::string printMask(const AttentionSpec &spec) {
  const MaskSpec &m = spec.mask;
  auto alignSuffix = [&]() -> std::string {
    return m.alignment == Alignment::TopLeft ? ":top_left" : "";
  };
  switch (m.kind) {
  case MaskKind::None:
    return "none";
  case MaskKind::Causal:
    return "causal" + alignSuffix();
  case MaskKind::SlidingWindow:
    return "window:" + std::to_string(m.windowLeft) + "," +
           std::to_string(m.windowRight) + alignSuffix();
  case MaskKind::PrefixLM:
    return "prefix:" + std::to_string(m.prefixLength) + alignSuffix();
  case MaskKind::Document: {
    std::string s = "document:";
    for (size_t i = 0; i < spec.documentLengths.size(); ++i) {
      if (i)
        s += ",";
      s += std::to_string(spec.documentLengths[i]);
    }
    if (m.documentCausal)
      s += ":causal";
    return s;
  }
  case MaskKind::BlockSparse:
    return "blocksparse:" + std::to_string(m.blockQ) + "," +
           std::to_string(m.blockK) + "," + formatDouble(spec.blockDensity);
  case MaskKind::Custom:
    return "custom";
  }
  return "none";
}

bool attnc::parseSizes(const std::string &text, AttentionSpec &sizes,
                       std::string &error) {
  AttentionSpec parsed;
  // sq is required in a spec, so default it.
  if (!text.empty() &&
      !parseSpec(text.find("sq=") == std::string::npos ? text + " sq=1" : text,
                 parsed, error))
    return false;
  if (text.find("b=") == std::string::npos)
    parsed.b = 0;
  if (text.find("sq=") == std::string::npos)
    parsed.sq = 0;
  if (text.find("sk=") == std::string::npos)
    parsed.sk = 0;
  sizes = parsed;
  return true;
}

std::string attnc::printSpec(const AttentionSpec &spec) {
  std::string s;
  s += "b=" + std::to_string(spec.b);
  s += " hq=" + std::to_string(spec.hq);
  s += " hkv=" + std::to_string(spec.hkv);
  s += " sq=" + std::to_string(spec.sq);
  s += " sk=" + std::to_string(spec.sk);
  s += " d=" + std::to_string(spec.d);
  s += " dv=" + std::to_string(spec.dv);
  s += std::string(" dtype=") + elementTypeName(spec.dtype);
  if (spec.scale)
    s += " scale=" + formatDouble(*spec.scale);
  s += " mask=" + printMask(spec);
  if (spec.softcap)
    s += " softcap=" + formatDouble(*spec.softcap);
  if (spec.alibi)
    s += " alibi";
  s += spec.lse ? " lse=1" : " lse=0";
  if (spec.kvLens)
    s += " kv_lens=1";
  if (spec.pageSize > 0)
    s += " paged=" + std::to_string(spec.pageSize);
  if (spec.kvFp8)
    s += " kv_dtype=fp8";
  if (spec.decode)
    s += " decode=1";
  if (spec.blockMaskPerBatch || spec.blockMaskPerHead)
    s += std::string(" block_mask=") + (spec.blockMaskPerBatch ? "b" : "") +
         (spec.blockMaskPerHead ? "h" : "");
  if (spec.ragged && spec.raggedLengths.empty())
    s += " ragged=1";
  for (size_t i = 0; i < spec.raggedLengths.size(); ++i)
    s += (i ? "," : " ragged=") + std::to_string(spec.raggedLengths[i].first) +
         ":" + std::to_string(spec.raggedLengths[i].second);
  return s;
}
