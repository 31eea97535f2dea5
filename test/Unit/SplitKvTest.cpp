//===- SplitKvTest.cpp - the runtime's choice of key splits ---------------===//
//
// Properties of rt::chooseNumSplits (lib/Runtime/SplitKv.h): no split when
// the blocks already fill the GPU (several waves, or one wave of at least
// three blocks a multiprocessor) or a block has one key tile, never more
// splits than key tiles or kMaxAutoSplits, and the chosen count's last wave
// as full as the rule promises with no smaller count as good.
//
//===----------------------------------------------------------------------===//

#include "lib/Runtime/SplitKv.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

using attnc::rt::chooseNumSplits;
using attnc::rt::kMaxAutoSplits;
using attnc::rt::splitSlots;

namespace {
/// The fraction of the last wave's slots that work: waves / ceil(waves).
double efficiency(int64_t blocks, int64_t splits, int64_t slots) {
  double waves = static_cast<double>(blocks * splits) / slots;
  return waves / std::ceil(waves);
}
} // namespace

TEST(SplitKvTest, NoSplitWhenBlocksFillTheGpuOrOneTile) {
  EXPECT_EQ(chooseNumSplits(/*blocks=*/4 * 396, /*keyTiles=*/1000, 396, 132),
            1);
  EXPECT_EQ(chooseNumSplits(10000, 1000, 396, 132), 1);
  EXPECT_EQ(chooseNumSplits(8, /*keyTiles=*/1, 396, 132), 1);
  EXPECT_EQ(chooseNumSplits(0, 100, 396, 132), 1);
  EXPECT_EQ(chooseNumSplits(8, 100, 0, 0), 1);
}

TEST(SplitKvTest, FillsTheLastWaveWithTheFewestSplits) {
  for (int64_t slots : {132, 396, 1056})
    for (int64_t blocks : {1, 8, 64, 100, 512, 1000})
      for (int64_t keyTiles : {2, 7, 64, 2048}) {
        if (blocks >= 4 * slots || (blocks <= slots && blocks >= 3 * 132))
          continue;
        int64_t s = chooseNumSplits(blocks, keyTiles, slots, 132);
        int64_t most = std::min(kMaxAutoSplits, keyTiles);
        ASSERT_GE(s, 1);
        ASSERT_LE(s, most);
        double best = 0;
        for (int64_t t = 1; t <= most; ++t)
          best = std::max(best, efficiency(blocks, t, slots));
        EXPECT_GE(efficiency(blocks, s, slots), 0.95 * best)
            << blocks << " blocks, " << keyTiles << " tiles, " << slots;
        for (int64_t t = 1; t < s; ++t)
          EXPECT_LT(efficiency(blocks, t, slots), 0.95 * best)
              << "fewer splits (" << t << ") would do as well";
      }
}

TEST(SplitKvTest, DecodeShapes) {
  // B = 1, 8 KV heads, 2048 key tiles on 396 slots: enough splits that the
  // blocks cover the GPU at least once.
  int64_t s = chooseNumSplits(8, 2048, 396, 132);
  EXPECT_GE(8 * s, 396 * 0.95);
  // B = 64, 8 KV heads (512 blocks) on 396 slots: unsplit, 1.3 waves leave
  // the second one two-thirds idle; split, the last wave is 90% full.
  EXPECT_LT(efficiency(512, 1, 396), 0.7);
  s = chooseNumSplits(512, 128, 396, 132);
  EXPECT_GT(s, 1);
  EXPECT_GE(efficiency(512, s, 396), 0.9);
  // The same 512 blocks on 660 slots (5 a multiprocessor, as the D=64
  // decode kernel): all resident at once, 3.9 a multiprocessor, unsplit (the
  // wave rule alone takes 5 splits: 250 us unsplit against 266 on the H200,
  // bench/RESULTS.md).
  EXPECT_EQ(chooseNumSplits(512, 128, 660, 132), 1);
  // Fewer than three a multiprocessor: split.
  EXPECT_GT(chooseNumSplits(300, 128, 660, 132), 1);
}

TEST(SplitKvTest, SlotsCappedByTheKernelsBlocksPerSm) {
  // 2 blocks resident a multiprocessor on 132: 264 slots; a kernel that
  // keeps its multiprocessor's loads in flight with one block plans with
  // 132, so B = 1 with 8 KV heads takes 16 splits instead of 32.
  EXPECT_EQ(splitSlots(264, 132, 1), 132);
  EXPECT_EQ(splitSlots(264, 132, 2), 264);
  EXPECT_EQ(splitSlots(264, 132, 4), 264); // never above the occupancy
  EXPECT_EQ(splitSlots(264, 132, 0), 264); // no hint (older artifacts)
  EXPECT_EQ(chooseNumSplits(8, 1024, splitSlots(264, 132, 1), 132), 16);
  EXPECT_EQ(chooseNumSplits(8, 1024, splitSlots(264, 132, 2), 132), 32);
}

using attnc::rt::chooseTailSplits;
using attnc::rt::kBalancedTail;
using attnc::rt::kWholeItems;
using attnc::rt::tailLaunch;

TEST(TailSplitsTest, LaunchCountsTheKernelsTailItems) {
  // The balanced tail: every resident block, the items past the full
  // waves (every item when there are fewer than the blocks).
  EXPECT_EQ(tailLaunch(2048, kBalancedTail, 132).blocks, 132);
  EXPECT_EQ(tailLaunch(2048, kBalancedTail, 132).tailItems, 2048 % 132);
  EXPECT_EQ(tailLaunch(24, kBalancedTail, 132).blocks, 132);
  EXPECT_EQ(tailLaunch(24, kBalancedTail, 132).tailItems, 24);
  EXPECT_EQ(tailLaunch(264, kBalancedTail, 132).tailItems, 0);
  // Whole items: one block each at most, no tail.
  EXPECT_EQ(tailLaunch(24, kWholeItems, 132).blocks, 24);
  EXPECT_EQ(tailLaunch(24, kWholeItems, 132).tailItems, 0);
  EXPECT_EQ(tailLaunch(0, kBalancedTail, 132).blocks, 0);
}

/// The kernel's numbering (FlashKernel.cpp, tailGeometry and the merge)
/// over a launch: block l runs its whole items l, l + B, ... below the
/// tail's start, then its segments, the tail's key tiles [l W / B,
/// (l + 1) W / B) item by item; the merging block finds the others from
/// the item's first and last tiles.
TEST(TailSplitsTest, EveryTileOfTheTailRunsOnce) {
  for (int64_t slots : {8, 132})
    for (int64_t items = 1; items <= 3 * slots + 5; items += 7)
      for (int64_t c : {1, 2, 5, 24, 94}) {
        auto t = tailLaunch(items, kBalancedTail, slots);
        int64_t blocks = t.blocks, tail = items % blocks;
        ASSERT_EQ(tail, t.tailItems);
        int64_t start = items - tail, w = tail * c;
        std::vector<int64_t> whole(items, 0);
        // Per tail item: the tiles seen, and the (block, segment) pairs.
        std::vector<std::vector<int64_t>> tiles(tail);
        std::vector<std::vector<std::pair<int64_t, int64_t>>> parts(tail);
        for (int64_t l = 0; l < blocks; ++l) {
          int64_t wholeItems =
              start > l ? (start - l + blocks - 1) / blocks : 0;
          int64_t first = l * w / blocks, last = (l + 1) * w / blocks;
          int64_t segments = last > first ? (last - 1) / c - first / c + 1 : 0;
          for (int64_t x = 0; x < wholeItems + segments; ++x) {
            if (x < wholeItems) {
              ASSERT_LT(l + x * blocks, start);
              ++whole[l + x * blocks];
              continue;
            }
            int64_t k = x - wholeItems, u = first / c + k;
            int64_t lo = std::max(first, u * c) - u * c,
                    hi = std::min(last, (u + 1) * c) - u * c;
            ASSERT_LT(u, tail);
            ASSERT_LT(lo, hi) << "an empty segment";
            for (int64_t j = lo; j < hi; ++j)
              tiles[u].push_back(j);
            parts[u].push_back({l, k});
          }
        }
        for (int64_t i = 0; i < start; ++i)
          ASSERT_EQ(whole[i], 1) << "item " << i;
        auto blockOf = [&](int64_t tile) {
          return ((tile + 1) * blocks + w - 1) / w - 1;
        };
        for (int64_t u = 0; u < tail; ++u) {
          std::sort(tiles[u].begin(), tiles[u].end());
          std::vector<int64_t> want(c);
          for (int64_t j = 0; j < c; ++j)
            want[j] = j;
          ASSERT_EQ(tiles[u], want) << "tail item " << u;
          // The merge's blocks (those of a share that is not empty) and
          // each one's segment of the item.
          std::vector<std::pair<int64_t, int64_t>> found;
          for (int64_t l = blockOf(u * c); l <= blockOf(u * c + c - 1); ++l)
            if ((l + 1) * w / blocks > l * w / blocks)
              found.push_back({l, u - (l * w / blocks) / c});
          ASSERT_EQ(found, parts[u]) << "tail item " << u;
        }
      }
}

TEST(TailSplitsTest, ChoosesForTheLastWave) {
  // No last wave, or too few key tiles for a share to pay.
  EXPECT_EQ(chooseTailSplits(264, 94, 132), kWholeItems);
  EXPECT_EQ(chooseTailSplits(2048, 3, 132), kWholeItems);
  EXPECT_EQ(chooseTailSplits(24, 6, 132), kWholeItems);
  EXPECT_EQ(chooseTailSplits(0, 94, 132), kWholeItems);
  EXPECT_EQ(chooseTailSplits(2048, 94, 0), kWholeItems);
  // The standard no-mask shapes on an H200 (132 blocks): D = 128 at 4K
  // (26 key tiles of 160) and 16K (103), D = 256 at 8K (103 tiles of 80;
  // the tail is 100 items).
  EXPECT_EQ(chooseTailSplits(2048, 26, 132), kBalancedTail);
  EXPECT_EQ(chooseTailSplits(2048, 103, 132), kBalancedTail);
  EXPECT_EQ(chooseTailSplits(1024, 103, 132), kBalancedTail);
  // The kernel deals the tail's tiles times the blocks in 32 bits.
  EXPECT_EQ(chooseTailSplits(2048 + 131, int64_t(1) << 20, 132), kWholeItems);
}
