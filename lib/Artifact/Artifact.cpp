//===- Artifact.cpp - attnc artifact files --------------------------------===//
//
// Writing and reading the artifact format of Artifact.h, and the checks on a
// kernel artifact's manifest.
//
//===----------------------------------------------------------------------===//

#include "attnc/Artifact/Artifact.h"
#include "attnc/Artifact/KernelAbi.h"

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

using namespace attnc;


static const char *const kHeader = "attnc-artifact";
static const char *const kVersion = "1";
static const char *const kFormat = "attnc-artifact-1";

const std::string *Artifact::get(const std::string &key) const {
  for (const auto &entry : manifest)
    if (entry.first == key)
      return &entry.second;
  return nullptr;
}

void Artifact::set(const std::string &key, const std::string &value) {
  for (auto &entry : manifest)
    if (entry.first == key) {
      entry.second = value;
      return;
    }
  manifest.emplace_back(key, value);
}

//===----------------------------------------------------------------------===//
// Writing
//===----------------------------------------------------------------------===//

static bool isSpace(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' ||
         c == '\f';
}

static bool hasSpace(const std::string &s) {
  for (char c : s)
    if (isSpace(c))
      return true;
  return false;
}

bool attnc::serializeArtifact(const Artifact &artifact, std::string &bytes,
                              std::string &error) {
  std::string out = std::string(kHeader) + " " + kVersion + "\n";
  for (size_t i = 0; i < artifact.manifest.size(); ++i) {
    const std::string &key = artifact.manifest[i].first;
    const std::string &value = artifact.manifest[i].second;
    if (key.empty() || hasSpace(key) || key.find('=') != std::string::npos ||
        key == "end") {
      error = "expected a manifest key without white space or '=' (and not "
              "'end'), got '" +
              key + "'";
      return false;
    }
    for (size_t j = 0; j < i; ++j)
      if (artifact.manifest[j].first == key) {
        error = "duplicate manifest key '" + key + "'";
        return false;
      }
    if (value.find('\n') != std::string::npos ||
        value.find('\r') != std::string::npos ||
        (!value.empty() && (isSpace(value.front()) || isSpace(value.back())))) {
      error = "expected the value of manifest key '" + key +
              "' on one line without leading or trailing white space";
      return false;
    }
    out += key + " = " + value + "\n";
  }
  out += "end\n";
  for (const auto &section : artifact.sections) {
    if (section.first.empty() || hasSpace(section.first)) {
      error = "expected a section name without white space, got '" +
              section.first + "'";
      return false;
    }
    out += "section " + section.first + " " +
           std::to_string(section.second.size()) + "\n";
    out += section.second;
    out += "\n";
  }
  bytes = std::move(out);
  return true;
}

bool attnc::writeArtifact(const Artifact &artifact, const std::string &path,
                          std::string &error) {
  std::string bytes;
  if (!serializeArtifact(artifact, bytes, error))
    return false;
  FILE *f = std::fopen(path.c_str(), "wb");
  if (!f) {
    error = "cannot write " + path + ": " + std::strerror(errno);
    return false;
  }
  bool ok = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
  ok = (std::fclose(f) == 0) && ok;
  if (!ok) {
    error = "cannot write " + path + ": " + std::strerror(errno);
    return false;
  }
  return true;
}

//===----------------------------------------------------------------------===//
// Reading
//===----------------------------------------------------------------------===//

static std::string trim(const std::string &s) {
  size_t b = 0, e = s.size();
  while (b < e && isSpace(s[b]))
    ++b;
  while (e > b && isSpace(s[e - 1]))
    --e;
  return s.substr(b, e - b);
}

/// A line for an error message: at most 60 characters, printable.
static std::string quoteLine(const std::string &line) {
  std::string out;
  for (char c : line.substr(0, 60))
    out += (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) ? '?' : c;
  if (line.size() > 60)
    out += "...";
  return "'" + out + "'";
}

/// Parses a decimal integer of digits only (an optional leading '-' when
/// `allowNegative`). False on anything else or on overflow.
static bool parseInt(const std::string &s, int64_t &value,
                     bool allowNegative = false) {
  size_t i = 0;
  bool negative = false;
  if (allowNegative && !s.empty() && s[0] == '-') {
    negative = true;
    i = 1;
  }
  if (i >= s.size())
    return false;
  uint64_t v = 0;
  for (; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9')
      return false;
    uint64_t digit = static_cast<uint64_t>(s[i] - '0');
    if (v > (static_cast<uint64_t>(INT64_MAX) - digit) / 10)
      return false;
    v = v * 10 + digit;
  }
  value = negative ? -static_cast<int64_t>(v) : static_cast<int64_t>(v);
  return true;
}

namespace {
/// Walks the bytes of an artifact line by line and by byte counts.
class Reader {
public:
  Reader(const char *data, size_t size) : data(data), size(size) {}

  bool atEnd() const { return pos >= size; }
  size_t remaining() const { return size - pos; }
  int lineNumber() const { return line; }

  /// The next line without its "\n" (and a trailing "\r"); false at the end.
  /// `complete` tells whether the line ended with "\n".
  bool nextLine(std::string &out, bool &complete) {
    if (pos >= size)
      return false;
    const void *nl = std::memchr(data + pos, '\n', size - pos);
    size_t end =
        nl ? static_cast<size_t>(static_cast<const char *>(nl) - data) : size;
    out.assign(data + pos, end - pos);
    if (!out.empty() && out.back() == '\r')
      out.pop_back();
    complete = nl != nullptr;
    pos = nl ? end + 1 : size;
    ++line;
    return true;
  }

  /// Takes `n` raw bytes (n <= remaining()).
  void take(size_t n, std::string &out) {
    out.assign(data + pos, n);
    pos += n;
    // Count the lines a section spans so later messages stay accurate.
    for (char c : out)
      line += c == '\n';
  }

  char peek() const { return data[pos]; }
  void skip() {
    ++pos;
    ++line;
  }

private:
  const char *data;
  size_t size;
  size_t pos = 0;
  int line = 0;
};
} // namespace

bool attnc::readArtifact(const void *data, size_t size, Artifact &artifact,
                         std::string &error) {
  if (!data && size) {
    error = "null artifact data";
    return false;
  }
  Reader r(static_cast<const char *>(data), size);
  Artifact result;
  std::string line;
  bool complete = false;

  // The header and version.
  if (!r.nextLine(line, complete)) {
    error = "empty artifact: expected the first line 'attnc-artifact 1'";
    return false;
  }
  {
    std::string header = trim(line);
    std::string prefix = std::string(kHeader) + " ";
    if (header.compare(0, prefix.size(), prefix) != 0) {
      error = "not an attnc artifact: expected the first line "
              "'attnc-artifact 1', got " +
              quoteLine(line);
      return false;
    }
    std::string version = trim(header.substr(prefix.size()));
    if (version != kVersion) {
      error = "unsupported artifact format version " + quoteLine(version) +
              " (this runtime reads version 1)";
      return false;
    }
  }

  // The manifest, up to `end`.
  bool sawEnd = false;
  while (r.nextLine(line, complete)) {
    std::string text = trim(line);
    if (text == "end") {
      if (!complete) {
        error = "line " + std::to_string(r.lineNumber()) +
                ": expected a newline after 'end'";
        return false;
      }
      sawEnd = true;
      break;
    }
    if (text.empty())
      continue;
    size_t eq = text.find('=');
    if (eq == std::string::npos) {
      error = "line " + std::to_string(r.lineNumber()) +
              ": expected 'key = value' or 'end', got " + quoteLine(line);
      return false;
    }
    std::string key = trim(text.substr(0, eq));
    std::string value = trim(text.substr(eq + 1));
    if (key.empty() || hasSpace(key)) {
      error = "line " + std::to_string(r.lineNumber()) +
              ": expected a manifest key without white space before '=', "
              "got " +
              quoteLine(line);
      return false;
    }
    // 'end' ends the manifest; as a key it could not be written back (found
    // by fuzz/artifact_fuzzer.cpp).
    if (key == "end") {
      error = "line " + std::to_string(r.lineNumber()) +
              ": expected 'end' alone on its line, got " + quoteLine(line);
      return false;
    }
    if (result.get(key)) {
      error = "line " + std::to_string(r.lineNumber()) +
              ": duplicate manifest key '" + key + "'";
      return false;
    }
    // A carriage return inside a value would not survive writing it back
    // (found by fuzz/artifact_fuzzer.cpp).
    if (value.find('\r') != std::string::npos) {
      error = "line " + std::to_string(r.lineNumber()) +
              ": expected the value of manifest key '" + key +
              "' without a carriage return";
      return false;
    }
    result.manifest.emplace_back(key, value);
  }
  if (!sawEnd) {
    error = "missing 'end' line after the manifest";
    return false;
  }

  // The sections.
  while (!r.atEnd()) {
    r.nextLine(line, complete);
    int lineNo = r.lineNumber();
    std::string where = "line " + std::to_string(lineNo) + ": ";
    // "section <name> <size>", single spaces.
    std::vector<std::string> words;
    size_t start = 0;
    while (start <= line.size()) {
      size_t sp = line.find(' ', start);
      if (sp == std::string::npos)
        sp = line.size();
      words.push_back(line.substr(start, sp - start));
      start = sp + 1;
    }
    if (words.size() != 3 || words[0] != "section" || words[1].empty() ||
        hasSpace(words[1])) {
      error =
          where + "expected 'section <name> <size>', got " + quoteLine(line);
      return false;
    }
    const std::string &name = words[1];
    int64_t bytes = 0;
    if (!parseInt(words[2], bytes)) {
      error = where + "expected the size in bytes of section '" + name +
              "' as a non-negative integer, got " + quoteLine(words[2]);
      return false;
    }
    if (!complete) {
      error = where + "section '" + name +
              "' is truncated: its header has "
              "no newline";
      return false;
    }
    if (result.sections.count(name)) {
      error = where + "duplicate section '" + name + "'";
      return false;
    }
    if (static_cast<uint64_t>(bytes) >= r.remaining()) {
      // The bytes and their newline must both be there.
      error = where + "section '" + name + "' is truncated: it declares " +
              std::to_string(bytes) + " bytes (plus a newline) but " +
              std::to_string(r.remaining()) + " remain";
      return false;
    }
    std::string content;
    r.take(static_cast<size_t>(bytes), content);
    if (r.peek() != '\n') {
      error = where + "expected a newline after the " + std::to_string(bytes) +
              " bytes of section '" + name + "' (wrong size?)";
      return false;
    }
    r.skip();
    result.sections.emplace(name, std::move(content));
  }

  artifact = std::move(result);
  return true;
}

bool attnc::readArtifactFile(const std::string &path, Artifact &artifact,
                             std::string &error) {
  FILE *f = std::fopen(path.c_str(), "rb");
  if (!f) {
    error = "cannot read " + path + ": " + std::strerror(errno);
    return false;
  }
  std::string bytes;
  char buffer[1 << 16];
  size_t n;
  while ((n = std::fread(buffer, 1, sizeof(buffer), f)) > 0)
    bytes.append(buffer, n);
  bool failed = std::ferror(f) != 0;
  std::fclose(f);
  if (failed) {
    error = "cannot read " + path;
    return false;
  }
  if (!readArtifact(bytes.data(), bytes.size(), artifact, error)) {
    error = path + ": " + error;
    return false;
  }
  return true;
}

//===----------------------------------------------------------------------===//
// Kernel manifests
//===----------------------------------------------------------------------===//

static std::string withoutSpaces(const std::string &s) {
  std::string out;
  for (char c : s)
    if (!isSpace(c))
      out += c;
  return out;
}

namespace {
/// Reads typed manifest values, failing with a message naming the key.
struct ManifestReader {
  const Artifact &artifact;
  std::string &error;

  const std::string *require(const char *key) {
    const std::string *value = artifact.get(key);
    if (!value)
      error = std::string("missing manifest key '") + key + "'";
    return value;
  }

  /// An integer in [min, max].
  bool integer(const char *key, int64_t &out, int64_t min, int64_t max) {
    const std::string *value = require(key);
    if (!value)
      return false;
    if (!parseInt(*value, out, /*allowNegative=*/true)) {
      error = std::string("manifest key '") + key +
              "': expected an integer, got " + quoteLine(*value);
      return false;
    }
    if (out < min || out > max) {
      error = std::string("manifest key '") + key + "': expected " +
              (max == INT64_MAX ? "at least " + std::to_string(min)
                                : "an integer in [" + std::to_string(min) +
                                      ", " + std::to_string(max) + "]") +
              ", got " + *value;
      return false;
    }
    return true;
  }

  /// 0 or 1.
  bool flag(const char *key, bool &out) {
    const std::string *value = require(key);
    if (!value)
      return false;
    if (*value != "0" && *value != "1") {
      error = std::string("manifest key '") + key + "': expected 0 or 1, got " +
              quoteLine(*value);
      return false;
    }
    out = *value == "1";
    return true;
  }

  /// An integer in [min, max] that older artifacts do not have (absent: 0).
  bool optionalInteger(const char *key, int64_t &out, int64_t min,
                       int64_t max) {
    out = 0;
    return !artifact.get(key) || integer(key, out, min, max);
  }

  /// A flag that older artifacts do not have (absent: false).
  bool optionalFlag(const char *key, bool &out) {
    out = false;
    return !artifact.get(key) || flag(key, out);
  }
};
} // namespace

/// sm_<digits>[letter], e.g. sm_80, sm_90a.
static bool isTarget(const std::string &t) {
  if (t.size() < 4 || t.compare(0, 3, "sm_") != 0)
    return false;
  size_t i = 3;
  while (i < t.size() && t[i] >= '0' && t[i] <= '9')
    ++i;
  if (i == 3)
    return false;
  if (i < t.size() && t[i] >= 'a' && t[i] <= 'z')
    ++i;
  return i == t.size();
}

static bool isIdentifier(const std::string &s) {
  if (s.empty() || (s[0] >= '0' && s[0] <= '9'))
    return false;
  for (char c : s)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
          (c >= '0' && c <= '9') || c == '_' || c == '$' || c == '.'))
      return false;
  return true;
}

bool attnc::parseKernelManifest(const Artifact &artifact,
                                KernelManifest &manifest, std::string &error) {
  ManifestReader r{artifact, error};
  KernelManifest m;

  const std::string *format = r.require("format");
  if (!format)
    return false;
  if (*format != kFormat) {
    error = "unsupported artifact format " + quoteLine(*format) +
            " (this runtime reads attnc-artifact-1)";
    return false;
  }

  const std::string *kernel = r.require("kernel");
  if (!kernel)
    return false;
  if (!isIdentifier(*kernel)) {
    error = "manifest key 'kernel': expected a kernel name, got " +
            quoteLine(*kernel);
    return false;
  }
  m.kernel = *kernel;

  const std::string *target = r.require("target");
  if (!target)
    return false;
  if (!isTarget(*target)) {
    error = "manifest key 'target': expected sm_<version> such as sm_80 or "
            "sm_90a, got " +
            quoteLine(*target);
    return false;
  }
  m.target = *target;

  const std::string *dtype = r.require("dtype");
  if (!dtype)
    return false;
  if (*dtype != "bf16" && *dtype != "f16" && *dtype != "f32") {
    error = "manifest key 'dtype': expected bf16, f16 or f32, got " +
            quoteLine(*dtype);
    return false;
  }
  m.dtype = *dtype;

  if (const std::string *spec = artifact.get("spec"))
    m.spec = *spec;

  // Grid y holds the query heads (at most 65535); a block at most 1024
  // threads; dynamic shared memory fits cuFuncSetAttribute's int; head
  // dimensions are bounded so that stride products cannot overflow.
  if (!r.integer("num_q_heads", m.numQHeads, 1, 65535) ||
      !r.integer("num_kv_heads", m.numKvHeads, 1, 65535) ||
      !r.integer("head_dim", m.headDim, 1, 65536) ||
      !r.integer("value_head_dim", m.valueHeadDim, 1, 65536) ||
      !r.integer("block_q", m.blockQ, 1, 1024) ||
      !r.integer("block_k", m.blockK, 1, 1024) ||
      !r.integer("threads", m.threads, 1, 1024) ||
      !r.integer("dynamic_shared_memory", m.dynamicSharedMemory, 0,
                 INT32_MAX) ||
      !r.flag("reads_lse", m.readsLse) ||
      !r.flag("reads_seq_ids", m.readsSeqIds) ||
      !r.flag("reads_cu_seqlens", m.readsCuSeqlens) ||
      !r.flag("reads_block_mask", m.readsBlockMask) ||
      !r.flag("reads_alibi_slopes", m.readsAlibiSlopes) ||
      !r.integer("gqa_pack", m.gqaPack, 1, 16) ||
      !r.flag("split_kv", m.splitKv) ||
      !r.optionalInteger("split_blocks_per_sm", m.splitBlocksPerSm, 0, 64) ||
      !r.optionalFlag("combine_waits", m.combineWaits) ||
      !r.flag("tensor_maps", m.tensorMaps) ||
      !r.optionalFlag("persistent", m.persistent) ||
      !r.optionalFlag("tail_splits", m.tailSplits) ||
      !r.flag("reads_kv_lens", m.readsKvLens) ||
      !r.flag("reads_kv_scales", m.readsKvScales) ||
      !r.flag("reads_cu_seqlens_q", m.readsCuSeqlensQ) ||
      !r.flag("reads_cu_seqlens_k", m.readsCuSeqlensK) ||
      !r.integer("page_size", m.pageSize, 0, 65536) ||
      !r.optionalInteger("short_kernel_max_seq", m.shortKernelMaxSeq, 0,
                         INT32_MAX))
    return false;
  const bool hasShortKernel = artifact.sections.count("short_kernel") != 0;
  if ((m.shortKernelMaxSeq > 0) != hasShortKernel) {
    error = hasShortKernel ? "the artifact has a 'short_kernel' section but "
                             "no manifest key 'short_kernel_max_seq' above 0"
                           : "manifest key 'short_kernel_max_seq': expected "
                             "a 'short_kernel' section beside it";
    return false;
  }
  if (m.tailSplits && !m.persistent) {
    error = "manifest key 'tail_splits': expected persistent = 1 beside it";
    return false;
  }
  if (m.readsCuSeqlensK && !m.readsCuSeqlensQ) {
    error = "manifest key 'reads_cu_seqlens_k': packed keys need "
            "reads_cu_seqlens_q = 1";
    return false;
  }
  if (m.readsCuSeqlensQ && m.readsCuSeqlensK == m.readsKvLens) {
    error = "manifest key 'reads_cu_seqlens_q': a ragged batch reads its "
            "keys packed (reads_cu_seqlens_k = 1) or from a cache "
            "(reads_kv_lens = 1), exactly one";
    return false;
  }
  if (m.readsCuSeqlensQ && (m.splitKv || m.gqaPack != 1)) {
    error = "manifest key 'reads_cu_seqlens_q': a ragged batch runs on the "
            "prefill kernels (split_kv = 0, gqa_pack = 1)";
    return false;
  }
  if (m.pageSize > 0 && !m.readsKvLens) {
    error = "manifest key 'page_size': a paged cache (page_size " +
            std::to_string(m.pageSize) + ") needs reads_kv_lens = 1";
    return false;
  }
  if (m.numQHeads % m.numKvHeads != 0) {
    error = "manifest: expected num_q_heads " + std::to_string(m.numQHeads) +
            " to be a multiple of num_kv_heads " + std::to_string(m.numKvHeads);
    return false;
  }
  if (m.gqaPack != 1 && (m.gqaPack != m.numQHeads / m.numKvHeads ||
                         m.blockQ % m.gqaPack != 0)) {
    error = "manifest key 'gqa_pack': expected 1 or num_q_heads / "
            "num_kv_heads (" +
            std::to_string(m.numQHeads / m.numKvHeads) +
            ") dividing block_q, got " + std::to_string(m.gqaPack);
    return false;
  }
  if (m.readsBlockMask &&
      (!r.integer("mask_block_q", m.maskBlockQ, 1, INT64_MAX) ||
       !r.integer("mask_block_k", m.maskBlockK, 1, INT64_MAX)))
    return false;

  int64_t abiVersion = 0;
  if (!r.integer("abi_version", abiVersion, 1, INT32_MAX))
    return false;
  if (abiVersion != abi::kVersion) {
    error = "manifest key 'abi_version': the artifact's kernel ABI is version " +
            std::to_string(abiVersion) + ", this runtime launches version " +
            std::to_string(abi::kVersion) + " (recompile the artifact)";
    return false;
  }
  const std::string *params = r.require("params");
  if (!params)
    return false;
  const std::string want = abi::paramList();
  if (withoutSpaces(*params) != want) {
    error = "manifest key 'params': unsupported kernel parameters " +
            quoteLine(*params) + " (this runtime launches " + want + ")";
    return false;
  }
  const std::string *grid = r.require("grid");
  if (!grid)
    return false;
  if (withoutSpaces(*grid) != abi::kGrid) {
    error = "manifest key 'grid': unsupported grid " + quoteLine(*grid) +
            " (this runtime launches " + abi::kGrid + ")";
    return false;
  }

  auto nonEmpty = [&](const char *name) {
    auto it = artifact.sections.find(name);
    return it != artifact.sections.end() && !it->second.empty();
  };
  if (!nonEmpty("cubin") && !nonEmpty("ptx")) {
    error = "the artifact has no kernel code: expected a non-empty 'cubin' or "
            "'ptx' section";
    return false;
  }

  manifest = std::move(m);
  return true;
}

bool attnc::checkShortKernel(const Artifact &main, int64_t maxSeq,
                             const Artifact &nested, KernelManifest &manifest,
                             std::string &error) {
  auto fail = [&](const std::string &why) {
    error = "section 'short_kernel': " + why;
    return false;
  };
  if (!parseKernelManifest(nested, manifest, error))
    return fail(error);
  if (manifest.shortKernelMaxSeq >= maxSeq)
    return fail("manifest key 'short_kernel_max_seq': expected its own "
                "short kernel's bound below " +
                std::to_string(maxSeq) + ", got " +
                std::to_string(manifest.shortKernelMaxSeq));
  // The keys a kernel's configuration sets; every other one describes the
  // launch both kernels take and must match.
  static const char *const configKeys[] = {"gpu_kernel",
                                           "block_q",
                                           "block_k",
                                           "threads",
                                           "dynamic_shared_memory",
                                           "persistent",
                                           "tail_splits",
                                           "split_blocks_per_sm",
                                           "short_kernel_max_seq"};
  auto isConfigKey = [](const std::string &key) {
    for (const char *k : configKeys)
      if (key == k)
        return true;
    return false;
  };
  for (const auto *a : {&main, &nested})
    for (const auto &[key, value] : a->manifest) {
      if (isConfigKey(key))
        continue;
      const std::string *mine = main.get(key), *its = nested.get(key);
      if (!mine || !its || *mine != *its)
        return fail("manifest key '" + key + "' is " +
                    (its ? quoteLine(*its) : std::string("absent")) +
                    ", the main kernel's " +
                    (mine ? quoteLine(*mine) : std::string("absent")));
    }
  return true;
}

bool attnc::readShortKernel(const Artifact &main,
                            const KernelManifest &mainManifest,
                            Artifact &nested, KernelManifest &manifest,
                            std::string &error) {
  const std::string &bytes = main.sections.at("short_kernel");
  if (!readArtifact(bytes.data(), bytes.size(), nested, error)) {
    error = "section 'short_kernel': " + error;
    return false;
  }
  return checkShortKernel(main, mainManifest.shortKernelMaxSeq, nested,
                          manifest, error);
}
