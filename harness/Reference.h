//===- Reference.h - float64 reference attention ----------------*- C++ -*-===//
//
// The float64 reference that every attnc kernel is checked against, and a
// naive implementation in the input precision that sets the error bar. Both
// are written straight from the textbook formula and the element-wise mask
// semantics of MaskSemantics.h, independently of the compiler's tiled code.
// Plain C++ (no MLIR).
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_HARNESS_REFERENCE_H
#define ATTNC_HARNESS_REFERENCE_H

#include "attnc/Mask/MaskSemantics.h"
#include "attnc/Spec.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace attnc {

/// Rounds a value to the nearest `t` (round to nearest even) and back.
double roundTo(double v, ElementType t);
/// bf16 / f16 bit patterns, round to nearest even.
uint16_t floatToBF16Bits(float f);

/// float8 e4m3fn (1 sign, 4 exponent bits of bias 7, 3 mantissa bits; no
/// infinity, 0x7F/0xFF NaN, largest finite 448): the value of a code, and
/// the code nearest to `v` (ties to even), saturating to +-448; NaN gives
/// 0x7F.
double fp8e4m3ToDouble(uint8_t code);
uint8_t doubleToFp8e4m3(double v);
float bf16BitsToFloat(uint16_t bits);
uint16_t floatToF16Bits(float f);
float f16BitsToFloat(uint16_t bits);

/// One attention problem on the host, every tensor dense row-major.
struct AttentionProblem {
  int64_t b = 1, hq = 1, hkv = 1, sq = 0, sk = 0, d = 0, dv = 0;
  double scale = 1.0;
  mask::MaskSpec mask;
  std::optional<double> softcap;
  /// One slope per query head, or empty for no ALiBi.
  std::vector<double> alibiSlopes;
  /// Inputs: q [b, hq, sq, d], k [b, hkv, sk, d], v [b, hkv, sk, dv], already
  /// rounded to the kernel's element type.
  std::vector<double> q, k, v;
  /// Mask operands: seqIds [b, sk]; cuSeqlens [n + 1]; blockMask
  /// [blockMaskB, blockMaskH, rows, cols] (blockGrid) with blockMaskB in
  /// {1, b} and blockMaskH in {1, hq}.
  std::vector<int32_t> seqIds, cuSeqlens;
  std::vector<uint8_t> blockMask;
  int64_t blockMaskB = 1, blockMaskH = 1;
  /// Per-sequence KV lengths [b] (empty: every sequence has sk keys).
  std::vector<int32_t> kvLens;
  /// Per-sequence query lengths [b] of a ragged batch (empty: not ragged),
  /// and whether its keys are packed too (else a cache holds them).
  std::vector<int32_t> qLens;
  bool raggedKeys = false;
  /// A paged cache (pageSize > 0): pageTable [b, sk / pageSize] of page ids
  /// in [0, numPages). k and v stay in the logical [b, hkv, sk, d] layout
  /// (what the reference reads); a kernel's pages are scattered from them.
  int64_t pageSize = 0, numPages = 0;
  std::vector<int32_t> pageTable;
  /// An fp8 e4m3 cache: the codes of k and v (their layouts) and the scales
  /// [2, hkv] (keys, then values); k and v hold code value * scale.
  std::vector<uint8_t> kCodes, vCodes;
  std::vector<float> kvScales;
  /// Custom mask / score functions (mask kind Custom, score region), if any.
  std::function<bool(int64_t b, int64_t h, int64_t q, int64_t k)> customMask;
  std::function<double(double s, int64_t b, int64_t h, int64_t q, int64_t k)>
      customScore;

  /// Whether query q of (b, h) sees key k, from MaskSemantics. A Custom mask
  /// asks customMask (false when it is unset); an operand-driven mask whose
  /// operand is missing or too small sees nothing.
  bool visible(int64_t bi, int64_t h, int64_t qi, int64_t ki) const;
  /// The keys of batch entry bi: kvLens[bi] clamped to [0, sk], or sk.
  int64_t keysOf(int64_t bi) const;
  /// The query rows of batch entry bi: qLens[bi] clamped to [0, sq], or sq.
  int64_t queriesOf(int64_t bi) const;
  /// A ragged batch: the kernel packs the b sequences' queries and outputs
  /// (cu_seqlens_q), and with raggedKeys their keys (cu_seqlens_k). The
  /// problem stays padded: sequence bi has queriesOf(bi) rows of q and
  /// keysOf(bi) keys (kvLens holds the key lengths); its other rows are
  /// not part of it (output 0, LSE -inf).
  bool ragged() const { return !qLens.empty(); }
  /// The block-sparse grid (rows, cols): ceil(S / block) over the sequence
  /// dims of the kernel's query and key tensors, sq and sk, or in a ragged
  /// batch the packed lengths (the query rows, and with raggedKeys the keys
  /// plus kPackedKeyTail), which bound every sequence's own positions, by
  /// which its blocks are looked up.
  std::pair<int64_t, int64_t> blockGrid() const;
};

/// Rows of NaN keys a harness packs after a ragged batch's last sequence
/// (packed keys), so that a kernel reading past it cannot pass.
constexpr int64_t kPackedKeyTail = 3;

/// Where each row of a paged cache's pages comes from: for page row r of
/// head h (pages [numPages, pageSize, hkv, .], row index (page * pageSize +
/// r) * hkv + h), the logical row (bi * hkv + h) * sk + j of k or v that a
/// sequence maps there, or -1 for a row no sequence reads (a page no
/// sequence uses, or keys at or past a sequence's length, keysOf). Pages
/// may be shared; the last sequence mapping a row wins. Fails on a table of
/// the wrong size or an id outside [0, numPages).
bool pageRowSources(const AttentionProblem &p, std::vector<int64_t> &sources,
                    std::string &error);

/// The rows of k or v as a kernel reads them: `logical` ([b, hkv, sk,
/// width] values, or fp8 codes) gathered into pages [numPages, pageSize,
/// hkv, width] by `sources` (pageRowSources; empty: not paged, the logical
/// layout). Every row no sequence reads, past its kv_lens or in a page no
/// sequence maps, holds `unread` (NaN, the fp8 code 0x7F), so that a kernel
/// reading one cannot pass.
template <typename T>
std::vector<T> kernelKvRows(const AttentionProblem &p,
                            const std::vector<int64_t> &sources,
                            const std::vector<T> &logical, int64_t width,
                            T unread) {
  if (!sources.empty()) {
    std::vector<T> rows(sources.size() * width, unread);
    for (size_t row = 0; row < sources.size(); ++row)
      if (sources[row] >= 0)
        std::copy_n(&logical[sources[row] * width], width, &rows[row * width]);
    return rows;
  }
  std::vector<T> rows = logical;
  if (!p.kvLens.empty())
    for (int64_t bi = 0; bi < p.b; ++bi)
      for (int64_t h = 0; h < p.hkv; ++h)
        for (int64_t j = p.keysOf(bi); j < p.sk; ++j)
          std::fill_n(&rows[((bi * p.hkv + h) * p.sk + j) * width], width,
                      unread);
  return rows;
}

/// float64 attention: out [b, hq, sq, dv], lse [b, hq, sq] (natural log;
/// -inf and an output of 0 for rows with no visible key).
/// The offsets [b + 1] of the sequences' rows when packed: lengths
/// `lengthOf(bi)` one after another.
std::vector<int32_t> packedOffsets(int64_t b,
                                   const std::function<int64_t(int64_t)> &lengthOf);

/// Packs the first lengthOf(bi) rows of each sequence of a padded
/// [b, h, s, w] tensor into [1, h, T, w] (tokenMajor: [T, h, w]) at the
/// rows `offsets` gives, followed by `tail` rows of `fill`.
template <typename T>
std::vector<T> packRows(const std::vector<T> &padded, int64_t b, int64_t h,
                        int64_t s, int64_t w,
                        const std::vector<int32_t> &offsets, bool tokenMajor,
                        int64_t tail, T fill) {
  int64_t total = offsets.back() + tail;
  std::vector<T> packed(static_cast<size_t>(total * h * w), fill);
  for (int64_t bi = 0; bi < b; ++bi)
    for (int64_t hi = 0; hi < h; ++hi)
      for (int64_t r = 0; r < offsets[bi + 1] - offsets[bi]; ++r) {
        int64_t row = offsets[bi] + r;
        int64_t at = tokenMajor ? (row * h + hi) * w : (hi * total + row) * w;
        std::copy_n(&padded[((bi * h + hi) * s + r) * w], w, &packed[at]);
      }
  return packed;
}

/// The inverse of packRows: rows of [1, h, total, w] ([total, h, w] when
/// tokenMajor) back into a padded [b, h, s, w] tensor, its other rows
/// `fill`.
template <typename T>
std::vector<T> unpackRows(const std::vector<T> &packed, int64_t b, int64_t h,
                          int64_t s, int64_t w,
                          const std::vector<int32_t> &offsets, int64_t total,
                          bool tokenMajor, T fill) {
  std::vector<T> padded(static_cast<size_t>(b * h * s * w), fill);
  for (int64_t bi = 0; bi < b; ++bi)
    for (int64_t hi = 0; hi < h; ++hi)
      for (int64_t r = 0; r < offsets[bi + 1] - offsets[bi]; ++r) {
        int64_t row = offsets[bi] + r;
        int64_t at = tokenMajor ? (row * h + hi) * w : (hi * total + row) * w;
        std::copy_n(&packed[at], w, &padded[((bi * h + hi) * s + r) * w]);
      }
  return padded;
}

void referenceAttention(const AttentionProblem &p, std::vector<double> &out,
                        std::vector<double> &lse);

/// Naive attention in precision `t`: the score matrix is materialised and
/// rounded to `t`, softmax in f32 then rounded to `t`, PV accumulated in f32
/// and rounded to `t`. Its error against the reference is the bar a kernel
/// must meet.
void naiveAttention(const AttentionProblem &p, ElementType t,
                    std::vector<double> &out);

/// Error of `got` against `want`.
struct ErrorStats {
  double maxAbs = 0;
  /// ||got - want||_F / ||want||_F (the absolute Frobenius norm of the
  /// difference when ||want||_F is 0).
  double relFrobenius = 0;
  /// Count of positions where exactly one side is NaN/inf or they differ in
  /// infinity (for LSE: -inf must match -inf).
  int64_t mismatchedNonFinite = 0;
};
/// maxAbs and relFrobenius are taken over the positions where both sides are
/// finite. Positions where both are NaN, or both the same infinity (LSE -inf
/// rows), count as equal with difference 0; every other non-finite position,
/// and every position that only the longer vector has, is mismatched.
ErrorStats compare(const std::vector<double> &got,
                   const std::vector<double> &want);

/// The host memory a run of `spec` needs, in bytes, saturating at
/// UINT64_MAX: its inputs and mask operands, and three outputs and LSEs (the
/// kernel's, the float64 reference's, the naive one's), as doubles.
uint64_t problemHostBytes(const AttentionSpec &spec);

/// The most host memory a run may need (`ATTNC_HOST_MEMORY_GB`, default 16):
/// a bigger one is refused up front instead of failing in an allocation.
uint64_t hostMemoryLimit();

/// Checks problemHostBytes(spec) against hostMemoryLimit(); false with a
/// message naming both otherwise.
bool checkHostMemory(const AttentionSpec &spec, std::string &error);

/// Fills `p` for `spec` with seeded inputs: q, k, v normal(0, 1) rounded to
/// spec.dtype; mask operands for document (cu_seqlens and seqIds from the
/// spec's lengths) and block-sparse masks (random with spec.blockDensity);
/// ALiBi slopes when spec.alibi.
void makeProblem(const AttentionSpec &spec, uint64_t seed, AttentionProblem &p);

/// The (query, key) pairs the mask of `problem` leaves visible, over every
/// batch entry and query head: per row for the interval masks, per block for
/// block-sparse masks, per element for documents and custom masks.
double visiblePairs(const AttentionProblem &problem);

} // namespace attnc

#endif // ATTNC_HARNESS_REFERENCE_H
