//===- MaskSemantics.h - The meaning of every attn mask ---------*- C++ -*-===//
//
// The single source of truth for which (query, key) pairs an attention mask
// leaves visible. It is plain C++ with no MLIR dependency, so the verifier,
// the tile classifier, the IR builders, the float64 reference and the
// runtime all read the same definitions.
//
// Conventions (docs/attn-dialect.md states them for users):
//   - Query row i of Sq rows is aligned to key position i' = i + offset, with
//     offset = 0 for top_left and Sk - Sq for bottom_right alignment.
//   - For the structured masks (none, causal, sliding window, prefix-LM) the
//     keys visible to a row form one half-open interval [lo(i), hi(i)) whose
//     bounds never decrease with i and which overlaps or touches the interval
//     of the next row. Tile classification follows exactly from that.
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_MASK_MASKSEMANTICS_H
#define ATTNC_MASK_MASKSEMANTICS_H

#include <algorithm>
#include <cstdint>
#include <string>

namespace attnc {
namespace mask {

/// How query rows line up with key positions when Sq != Sk.
enum class Alignment : uint8_t { TopLeft, BottomRight };

/// Every mask family of the attn dialect.
enum class MaskKind : uint8_t {
  None,
  Causal,
  SlidingWindow,
  PrefixLM,
  Document,
  BlockSparse,
  Custom
};

/// Where a document mask reads its document boundaries from.
enum class DocumentSource : uint8_t { SegmentIds, CuSeqlens };

/// What a (query range, key range) tile holds.
enum class TileClass : uint8_t { Empty, Full, Partial };

/// A plain description of a mask: the kind and its parameters.
struct MaskSpec {
  MaskKind kind = MaskKind::None;
  Alignment alignment = Alignment::BottomRight;
  int64_t windowLeft = 0;
  int64_t windowRight = 0;
  int64_t prefixLength = 0;
  DocumentSource documentSource = DocumentSource::SegmentIds;
  bool documentCausal = false;
  int64_t blockQ = 0;
  int64_t blockK = 0;

  static MaskSpec none() { return MaskSpec(); }
  static MaskSpec causal(Alignment a) {
    MaskSpec s;
    s.kind = MaskKind::Causal;
    s.alignment = a;
    return s;
  }
  static MaskSpec slidingWindow(int64_t left, int64_t right, Alignment a) {
    MaskSpec s;
    s.kind = MaskKind::SlidingWindow;
    s.windowLeft = left;
    s.windowRight = right;
    s.alignment = a;
    return s;
  }
  static MaskSpec prefixLM(int64_t prefix, Alignment a) {
    MaskSpec s;
    s.kind = MaskKind::PrefixLM;
    s.prefixLength = prefix;
    s.alignment = a;
    return s;
  }
  static MaskSpec document(DocumentSource source, bool causal) {
    MaskSpec s;
    s.kind = MaskKind::Document;
    s.documentSource = source;
    s.documentCausal = causal;
    return s;
  }
  static MaskSpec blockSparse(int64_t blockQ, int64_t blockK) {
    MaskSpec s;
    s.kind = MaskKind::BlockSparse;
    s.blockQ = blockQ;
    s.blockK = blockK;
    return s;
  }
};

/// The data of the operand-driven masks, for one (batch, query head).
struct MaskOperandView {
  /// Document id of every key position of this batch entry ([Sk] values).
  const int32_t *segmentIds = nullptr;
  /// Document start offsets ([numDocuments + 1] values, first 0, last Sk).
  const int32_t *cuSeqlens = nullptr;
  int64_t numDocuments = 0;
  /// Block visibility of this (batch, head): [ceil(Sq/Bq)][ceil(Sk/Bk)],
  /// non-zero means visible; rows are blockMaskRowStride elements apart.
  const uint8_t *blockMask = nullptr;
  int64_t blockMaskRowStride = 0;
};

/// Returns the mnemonic of a mask kind as the dialect spells it.
const char *stringifyMaskKind(MaskKind kind);
/// Returns "top_left" or "bottom_right".
const char *stringifyAlignment(Alignment a);

/// True for the masks whose rows see one closed-form interval of keys:
/// none, causal, sliding window and prefix-LM.
bool hasIntervalForm(MaskKind kind);
/// True for the masks that read an operand (document, block-sparse).
bool needsOperandData(MaskKind kind);

/// The per-row interval formulas, written once over an arithmetic policy so
/// that the same code evaluates integers here and builds index arithmetic in
/// the IR builders. `A` provides `Value`, `constant(int64_t)`, `add`, `sub`,
/// `max` and `min`.
template <typename A> struct RowIntervalFormula {
  using Value = typename A::Value;

  /// i' = i + (0 or Sk - Sq).
  static Value alignedRow(A &a, const MaskSpec &spec, Value q, Value sq,
                          Value sk) {
    if (spec.alignment == Alignment::TopLeft)
      return q;
    return a.add(q, a.sub(sk, sq));
  }

  /// The raw (unclipped) interval [lo, hi) of keys visible to row q. Only for
  /// masks with hasIntervalForm(kind).
  static void raw(A &a, const MaskSpec &spec, Value q, Value sq, Value sk,
                  Value &lo, Value &hi) {
    switch (spec.kind) {
    case MaskKind::Causal: {
      lo = a.constant(0);
      hi = a.add(alignedRow(a, spec, q, sq, sk), a.constant(1));
      return;
    }
    case MaskKind::SlidingWindow: {
      Value row = alignedRow(a, spec, q, sq, sk);
      lo = a.sub(row, a.constant(spec.windowLeft));
      hi = a.add(row, a.constant(spec.windowRight + 1));
      return;
    }
    case MaskKind::PrefixLM: {
      Value row = alignedRow(a, spec, q, sq, sk);
      lo = a.constant(0);
      hi = a.max(a.constant(spec.prefixLength), a.add(row, a.constant(1)));
      return;
    }
    default:
      lo = a.constant(0);
      hi = sk;
      return;
    }
  }

  /// Clamps v to [0, sk].
  static Value clip(A &a, Value v, Value sk) {
    return a.min(a.max(v, a.constant(0)), sk);
  }

  /// The keys of [0, sk) that row q sees, as [begin, end), end >= begin.
  static void clipped(A &a, const MaskSpec &spec, Value q, Value sq, Value sk,
                      Value &begin, Value &end) {
    Value lo, hi;
    raw(a, spec, q, sq, sk, lo, hi);
    begin = clip(a, lo, sk);
    end = a.max(clip(a, hi, sk), begin);
  }

  /// For the query rows [qFirst, qLast] (inclusive, both valid rows): the keys
  /// some row sees, [anyBegin, anyEnd), and the keys every row sees,
  /// [allBegin, allEnd). Empty ranges have end <= begin.
  static void tileBounds(A &a, const MaskSpec &spec, Value qFirst, Value qLast,
                         Value sq, Value sk, Value &anyBegin, Value &anyEnd,
                         Value &allBegin, Value &allEnd) {
    Value loFirst, hiFirst, loLast, hiLast;
    raw(a, spec, qFirst, sq, sk, loFirst, hiFirst);
    raw(a, spec, qLast, sq, sk, loLast, hiLast);
    anyBegin = clip(a, loFirst, sk);
    anyEnd = clip(a, hiLast, sk);
    allBegin = clip(a, loLast, sk);
    allEnd = clip(a, hiFirst, sk);
  }
};

/// The integer policy for RowIntervalFormula.
struct IntegerArith {
  using Value = int64_t;
  Value constant(int64_t v) { return v; }
  Value add(Value x, Value y) { return x + y; }
  Value sub(Value x, Value y) { return x - y; }
  Value max(Value x, Value y) { return std::max(x, y); }
  Value min(Value x, Value y) { return std::min(x, y); }
};

/// Half-open key range.
struct KeyRange {
  int64_t begin = 0;
  int64_t end = 0;
  bool empty() const { return end <= begin; }
};

/// Keys some row of a query tile sees, and keys every row sees.
struct QueryTileKeyBounds {
  KeyRange any;
  KeyRange all;
};

/// The keys of [0, sk) that row q sees (interval-form masks only).
KeyRange rowKeyRange(const MaskSpec &spec, int64_t q, int64_t sq, int64_t sk);

/// Key bounds for the query rows [qBegin, qEnd) (clipped to [0, sq)),
/// interval-form masks only.
QueryTileKeyBounds queryTileKeyBounds(const MaskSpec &spec, int64_t qBegin,
                                      int64_t qEnd, int64_t sq, int64_t sk);

/// Element-wise semantics: whether query q sees key k. Operand-driven masks
/// need `data`; without it they answer false. Custom masks live in IR and are
/// not evaluated here.
bool isVisible(const MaskSpec &spec, int64_t q, int64_t k, int64_t sq,
               int64_t sk, const MaskOperandView *data = nullptr);

/// Classifies the tile of queries [qBegin, qEnd) and keys [kBegin, kEnd),
/// both clipped to the sequence. Interval-form masks are classified in
/// closed form; operand-driven masks from `data` (Partial without it, which
/// is always safe); custom masks are always Partial here.
TileClass classifyTile(const MaskSpec &spec, int64_t qBegin, int64_t qEnd,
                       int64_t kBegin, int64_t kEnd, int64_t sq, int64_t sk,
                       const MaskOperandView *data = nullptr);

/// The number of (query, key) pairs an interval-form mask leaves visible in
/// one (batch, head): the sum of the rows' key ranges.
int64_t countIntervalPairs(const MaskSpec &spec, int64_t sq, int64_t sk);

/// The index along a block-mask dimension of size `size` for batch entry or
/// head `index`: a dimension of size 1 is shared by all of them.
inline int64_t broadcastIndex(int64_t size, int64_t index) {
  return size == 1 ? 0 : index;
}

} // namespace mask
} // namespace attnc

#endif // ATTNC_MASK_MASKSEMANTICS_H
