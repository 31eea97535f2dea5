//===- MaskSemantics.cpp - The meaning of every attn mask -----------------===//
//
// Element-wise evaluation and tile classification of attn masks. See
// MaskSemantics.h for the conventions.
//
//===----------------------------------------------------------------------===//

#include "attnc/Mask/MaskSemantics.h"

using namespace attnc::mask;

const char *attnc::mask::stringifyMaskKind(MaskKind kind) {
  switch (kind) {
  case MaskKind::None:
    return "none";
  case MaskKind::Causal:
    return "causal";
  case MaskKind::SlidingWindow:
    return "sliding_window";
  case MaskKind::PrefixLM:
    return "prefix_lm";
  case MaskKind::Document:
    return "document";
  case MaskKind::BlockSparse:
    return "block_sparse";
  case MaskKind::Custom:
    return "custom";
  }
  return "unknown";
}

const char *attnc::mask::stringifyAlignment(Alignment a) {
  return a == Alignment::TopLeft ? "top_left" : "bottom_right";
}

bool attnc::mask::hasIntervalForm(MaskKind kind) {
  return kind == MaskKind::None || kind == MaskKind::Causal ||
         kind == MaskKind::SlidingWindow || kind == MaskKind::PrefixLM;
}

bool attnc::mask::needsOperandData(MaskKind kind) {
  return kind == MaskKind::Document || kind == MaskKind::BlockSparse;
}

KeyRange attnc::mask::rowKeyRange(const MaskSpec &spec, int64_t q, int64_t sq,
                                  int64_t sk) {
  IntegerArith a;
  KeyRange r;
  RowIntervalFormula<IntegerArith>::clipped(a, spec, q, sq, sk, r.begin, r.end);
  return r;
}

QueryTileKeyBounds attnc::mask::queryTileKeyBounds(const MaskSpec &spec,
                                                   int64_t qBegin, int64_t qEnd,
                                                   int64_t sq, int64_t sk) {
  QueryTileKeyBounds b;
  qBegin = std::max<int64_t>(qBegin, 0);
  qEnd = std::min(qEnd, sq);
  if (qEnd <= qBegin)
    return b;
  IntegerArith a;
  RowIntervalFormula<IntegerArith>::tileBounds(a, spec, qBegin, qEnd - 1, sq,
                                               sk, b.any.begin, b.any.end,
                                               b.all.begin, b.all.end);
  return b;
}

/// The document of key position `pos`, or -1 when the data does not cover it.
static int64_t documentOf(const MaskSpec &spec, const MaskOperandView &data,
                          int64_t pos) {
  if (spec.documentSource == DocumentSource::SegmentIds)
    return data.segmentIds[pos];
  // Last d with cuSeqlens[d] <= pos.
  const int32_t *first = data.cuSeqlens;
  const int32_t *last = data.cuSeqlens + data.numDocuments + 1;
  const int32_t *it = std::upper_bound(first, last, pos);
  int64_t d = (it - first) - 1;
  return d < data.numDocuments ? d : -1;
}

bool attnc::mask::isVisible(const MaskSpec &spec, int64_t q, int64_t k,
                            int64_t sq, int64_t sk,
                            const MaskOperandView *data) {
  if (q < 0 || q >= sq || k < 0 || k >= sk)
    return false;
  if (hasIntervalForm(spec.kind)) {
    KeyRange r = rowKeyRange(spec, q, sq, sk);
    return r.begin <= k && k < r.end;
  }
  if (!data)
    return false;
  switch (spec.kind) {
  case MaskKind::Document: {
    IntegerArith a;
    int64_t pos =
        RowIntervalFormula<IntegerArith>::alignedRow(a, spec, q, sq, sk);
    if (pos < 0 || pos >= sk)
      return false;
    if (spec.documentCausal && k > pos)
      return false;
    int64_t dq = documentOf(spec, *data, pos);
    return dq >= 0 && dq == documentOf(spec, *data, k);
  }
  case MaskKind::BlockSparse:
    return data->blockMask[(q / spec.blockQ) * data->blockMaskRowStride +
                           k / spec.blockK] != 0;
  default:
    return false;
  }
}

TileClass attnc::mask::classifyTile(const MaskSpec &spec, int64_t qBegin,
                                    int64_t qEnd, int64_t kBegin, int64_t kEnd,
                                    int64_t sq, int64_t sk,
                                    const MaskOperandView *data) {
  qBegin = std::max<int64_t>(qBegin, 0);
  qEnd = std::min(qEnd, sq);
  kBegin = std::max<int64_t>(kBegin, 0);
  kEnd = std::min(kEnd, sk);
  if (qEnd <= qBegin || kEnd <= kBegin)
    return TileClass::Empty;

  if (hasIntervalForm(spec.kind)) {
    QueryTileKeyBounds b = queryTileKeyBounds(spec, qBegin, qEnd, sq, sk);
    if (kEnd <= b.any.begin || kBegin >= b.any.end)
      return TileClass::Empty;
    if (b.all.begin <= kBegin && kEnd <= b.all.end)
      return TileClass::Full;
    return TileClass::Partial;
  }
  if (spec.kind == MaskKind::Custom || !data)
    return TileClass::Partial;

  // Operand-driven masks: count visible pairs.
  int64_t visible = 0;
  for (int64_t q = qBegin; q < qEnd; ++q)
    for (int64_t k = kBegin; k < kEnd; ++k)
      visible += isVisible(spec, q, k, sq, sk, data);
  if (visible == 0)
    return TileClass::Empty;
  if (visible == (qEnd - qBegin) * (kEnd - kBegin))
    return TileClass::Full;
  return TileClass::Partial;
}

int64_t attnc::mask::countIntervalPairs(const MaskSpec &spec, int64_t sq,
                                        int64_t sk) {
  int64_t pairs = 0;
  for (int64_t i = 0; i < sq; ++i) {
    KeyRange r = rowKeyRange(spec, i, sq, sk);
    pairs += std::max<int64_t>(0, r.end - r.begin);
  }
  return pairs;
}
