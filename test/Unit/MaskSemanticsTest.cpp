//===- MaskSemanticsTest.cpp - tile classification vs element-wise --------===//
//
// For every structured mask and many (Sq, Sk, tile size, alignment)
// combinations: element-wise evaluation matches the textbook definition of
// docs/attn-dialect.md, and tile classification agrees exhaustively with it
// (empty: no visible pair; full: every pair visible; partial: otherwise).
//
//===----------------------------------------------------------------------===//

#include "attnc/Mask/MaskSemantics.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace attnc::mask;

namespace {

/// The definitions of docs/attn-dialect.md, written out literally and
/// independently of MaskSemantics.cpp.
bool textbookVisible(const MaskSpec &s, int64_t i, int64_t j, int64_t sq,
                     int64_t sk, const MaskOperandView *data) {
  int64_t ip = s.alignment == Alignment::TopLeft ? i : i + sk - sq;
  switch (s.kind) {
  case MaskKind::None:
    return true;
  case MaskKind::Causal:
    return j <= ip;
  case MaskKind::SlidingWindow:
    return ip - s.windowLeft <= j && j <= ip + s.windowRight;
  case MaskKind::PrefixLM:
    return j < s.prefixLength || j <= ip;
  case MaskKind::Document: {
    int64_t p = i + sk - sq;
    if (p < 0)
      return false;
    if (s.documentCausal && j > p)
      return false;
    if (s.documentSource == DocumentSource::SegmentIds)
      return data->segmentIds[p] == data->segmentIds[j];
    auto doc = [&](int64_t x) {
      for (int64_t d = 0; d < data->numDocuments; ++d)
        if (data->cuSeqlens[d] <= x && x < data->cuSeqlens[d + 1])
          return d;
      return int64_t(-1);
    };
    return doc(p) >= 0 && doc(p) == doc(j);
  }
  case MaskKind::BlockSparse:
    return data->blockMask[(i / s.blockQ) * data->blockMaskRowStride +
                           j / s.blockK] != 0;
  case MaskKind::Custom:
    return false;
  }
  return false;
}

std::string describe(const MaskSpec &s) {
  return std::string(stringifyMaskKind(s.kind)) + "/" +
         stringifyAlignment(s.alignment) +
         " L=" + std::to_string(s.windowLeft) +
         " R=" + std::to_string(s.windowRight) +
         " N=" + std::to_string(s.prefixLength);
}

std::vector<MaskSpec> structuredMasks() {
  std::vector<MaskSpec> masks = {MaskSpec::none()};
  for (Alignment a : {Alignment::TopLeft, Alignment::BottomRight}) {
    masks.push_back(MaskSpec::causal(a));
    for (auto [l, r] : std::vector<std::pair<int64_t, int64_t>>{
             {0, 0}, {3, 0}, {0, 5}, {7, 2}, {40, 40}, {1000, 0}})
      masks.push_back(MaskSpec::slidingWindow(l, r, a));
    for (int64_t n : {0, 1, 5, 40, 200})
      masks.push_back(MaskSpec::prefixLM(n, a));
  }
  return masks;
}

/// Checks every tile of a (sq, sk) problem with tiles of bq x bk.
void checkTiles(const MaskSpec &spec, int64_t sq, int64_t sk, int64_t bq,
                int64_t bk, const MaskOperandView *data) {
  std::vector<char> visible(sq * sk);
  for (int64_t i = 0; i < sq; ++i)
    for (int64_t j = 0; j < sk; ++j) {
      bool want = textbookVisible(spec, i, j, sq, sk, data);
      ASSERT_EQ(isVisible(spec, i, j, sq, sk, data), want)
          << describe(spec) << " sq=" << sq << " sk=" << sk << " i=" << i
          << " j=" << j;
      visible[i * sk + j] = want;
    }
  for (int64_t q0 = 0; q0 < sq; q0 += bq)
    for (int64_t k0 = 0; k0 < sk; k0 += bk) {
      int64_t q1 = std::min(q0 + bq, sq), k1 = std::min(k0 + bk, sk);
      int64_t count = 0;
      for (int64_t i = q0; i < q1; ++i)
        for (int64_t j = k0; j < k1; ++j)
          count += visible[i * sk + j];
      TileClass want = count == 0                       ? TileClass::Empty
                       : count == (q1 - q0) * (k1 - k0) ? TileClass::Full
                                                        : TileClass::Partial;
      // Tiles may run past the sequence end; classification clips them.
      TileClass got =
          classifyTile(spec, q0, q0 + bq, k0, k0 + bk, sq, sk, data);
      ASSERT_EQ(static_cast<int>(got), static_cast<int>(want))
          << describe(spec) << " sq=" << sq << " sk=" << sk << " bq=" << bq
          << " bk=" << bk << " tile q0=" << q0 << " k0=" << k0;
    }
}

TEST(MaskSemantics, StructuredTileClassificationIsExact) {
  const int64_t lengths[] = {1, 2, 7, 16, 33, 64, 100};
  const int64_t tiles[] = {1, 3, 8, 16, 32};
  for (const MaskSpec &spec : structuredMasks())
    for (int64_t sq : lengths)
      for (int64_t sk : lengths)
        for (int64_t bq : tiles)
          for (int64_t bk : tiles)
            checkTiles(spec, sq, sk, bq, bk, nullptr);
}

TEST(MaskSemantics, QueryTileKeyBoundsCoverExactlyTheVisibleKeys) {
  for (const MaskSpec &spec : structuredMasks())
    for (int64_t sq : {1, 9, 50})
      for (int64_t sk : {1, 13, 50})
        for (int64_t bq : {1, 4, 16})
          for (int64_t q0 = 0; q0 < sq; q0 += bq) {
            QueryTileKeyBounds b =
                queryTileKeyBounds(spec, q0, q0 + bq, sq, sk);
            for (int64_t j = 0; j < sk; ++j) {
              bool any = false, all = true;
              for (int64_t i = q0; i < std::min(q0 + bq, sq); ++i) {
                bool v = textbookVisible(spec, i, j, sq, sk, nullptr);
                any |= v;
                all &= v;
              }
              ASSERT_EQ(any, b.any.begin <= j && j < b.any.end)
                  << describe(spec) << " sq=" << sq << " sk=" << sk
                  << " q0=" << q0 << " j=" << j;
              ASSERT_EQ(all, b.all.begin <= j && j < b.all.end)
                  << describe(spec) << " sq=" << sq << " sk=" << sk
                  << " q0=" << q0 << " j=" << j;
            }
          }
}

TEST(MaskSemantics, BottomRightCausalHidesLeadingRowsWhenSqExceedsSk) {
  MaskSpec causal = MaskSpec::causal(Alignment::BottomRight);
  // Sq = 10, Sk = 4: rows 0..5 see nothing, row 6 sees key 0, row 9 all.
  for (int64_t i = 0; i < 6; ++i)
    EXPECT_TRUE(rowKeyRange(causal, i, 10, 4).empty()) << i;
  EXPECT_EQ(rowKeyRange(causal, 6, 10, 4).end, 1);
  EXPECT_EQ(rowKeyRange(causal, 9, 10, 4).end, 4);
  EXPECT_EQ(classifyTile(causal, 0, 6, 0, 4, 10, 4), TileClass::Empty);
}

TEST(MaskSemantics, DocumentMasksFromSeqIdsAndCuSeqlens) {
  // Documents of lengths 3, 5, 1, 7 packed into 16 positions.
  std::vector<int32_t> ids, cu = {0};
  int32_t doc = 0;
  for (int len : {3, 5, 1, 7}) {
    for (int t = 0; t < len; ++t)
      ids.push_back(doc * 10 + 7); // ids need not be 0..N-1
    cu.push_back(cu.back() + len);
    ++doc;
  }
  int64_t s = static_cast<int64_t>(ids.size());
  MaskOperandView byIds;
  byIds.segmentIds = ids.data();
  MaskOperandView byCu;
  byCu.cuSeqlens = cu.data();
  byCu.numDocuments = static_cast<int64_t>(cu.size()) - 1;
  for (bool causal : {false, true}) {
    MaskSpec fromIds = MaskSpec::document(DocumentSource::SegmentIds, causal);
    MaskSpec fromCu = MaskSpec::document(DocumentSource::CuSeqlens, causal);
    for (int64_t i = 0; i < s; ++i)
      for (int64_t j = 0; j < s; ++j)
        ASSERT_EQ(isVisible(fromIds, i, j, s, s, &byIds),
                  isVisible(fromCu, i, j, s, s, &byCu));
    for (int64_t bq : {1, 2, 4, 5})
      for (int64_t bk : {1, 3, 4}) {
        checkTiles(fromIds, s, s, bq, bk, &byIds);
        checkTiles(fromCu, s, s, bq, bk, &byCu);
      }
    // Decode-style Sq < Sk: the query rows stand at the last key positions.
    checkTiles(fromCu, 4, s, 2, 4, &byCu);
  }
  // A position across documents is never visible; inside one it is.
  MaskSpec plain = MaskSpec::document(DocumentSource::CuSeqlens, false);
  EXPECT_FALSE(isVisible(plain, 2, 3, s, s, &byCu));
  EXPECT_TRUE(isVisible(plain, 3, 7, s, s, &byCu));
  // Without operand data, classification stays conservative.
  EXPECT_EQ(classifyTile(plain, 0, 4, 0, 4, s, s), TileClass::Partial);
}

TEST(MaskSemantics, BlockSparseFollowsItsBlockMask) {
  const int64_t sq = 37, sk = 29, bq = 8, bk = 4;
  const int64_t nq = (sq + bq - 1) / bq, nk = (sk + bk - 1) / bk;
  std::vector<uint8_t> blocks(nq * nk);
  for (int64_t i = 0; i < nq * nk; ++i)
    blocks[i] = (i * 7 + 3) % 3 == 0;
  MaskOperandView data;
  data.blockMask = blocks.data();
  data.blockMaskRowStride = nk;
  MaskSpec spec = MaskSpec::blockSparse(bq, bk);
  for (int64_t tq : {1, 4, 8, 16})
    for (int64_t tk : {1, 4, 5, 8})
      checkTiles(spec, sq, sk, tq, tk, &data);
}

} // namespace
