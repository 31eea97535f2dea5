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
using attnc::rt::kMaxTailSplits;
using attnc::rt::tailLaunch;

TEST(TailSplitsTest, LaunchCountsTheKernelsTailItems) {
  // Past one wave: every resident block, the items past the full waves.
  EXPECT_EQ(tailLaunch(2048, 5, 132).blocks, 132);
  EXPECT_EQ(tailLaunch(2048, 5, 132).tailItems, 2048 % 132);
  // Fewer items than blocks: every item splits, on up to all the blocks.
  EXPECT_EQ(tailLaunch(24, 3, 132).blocks, 72);
  EXPECT_EQ(tailLaunch(24, 3, 132).tailItems, 24);
  EXPECT_EQ(tailLaunch(100, 3, 132).blocks, 132);
  EXPECT_EQ(tailLaunch(100, 3, 132).tailItems, 100);
  // One split: the items whole, on one block each at most.
  EXPECT_EQ(tailLaunch(24, 1, 132).blocks, 24);
  EXPECT_EQ(tailLaunch(24, 1, 132).tailItems, 0);
  EXPECT_EQ(tailLaunch(264, 4, 132).tailItems, 0);
  EXPECT_EQ(tailLaunch(0, 4, 132).blocks, 0);
}

/// The kernel's numbering (FlashKernel.cpp, tailOf) over a launch: block l
/// runs items l, l + blocks, ... below items + (splits - 1) * tail, item x
/// being whole item x before the tail's start and split (x - start) mod
/// splits of tail item start + (x - start) / splits after it.
TEST(TailSplitsTest, EveryItemRunsOnceOrInEverySplitOnce) {
  for (int64_t slots : {8, 132, 264})
    for (int64_t items = 1; items <= 3 * slots + 5; items += 7)
      for (int64_t splits = 1; splits <= kMaxTailSplits; ++splits) {
        auto t = tailLaunch(items, splits, slots);
        ASSERT_GE(t.blocks, 1);
        ASSERT_LE(t.blocks, slots);
        int64_t tail = items % t.blocks, start = items - tail;
        ASSERT_EQ(tail, t.tailItems);
        int64_t end = items + (splits - 1) * tail;
        std::vector<std::vector<int64_t>> seen(items);
        for (int64_t l = 0; l < t.blocks; ++l)
          for (int64_t x = l; x < end; x += t.blocks) {
            bool isTail = x >= start;
            int64_t u = isTail ? x - start : 0;
            int64_t whole = isTail ? start + u / splits : x;
            ASSERT_LT(whole, items);
            seen[whole].push_back(isTail ? u % splits : -1);
          }
        for (int64_t i = 0; i < items; ++i) {
          std::vector<int64_t> want;
          if (i < start)
            want = {-1};
          else
            for (int64_t j = 0; j < splits; ++j)
              want.push_back(j);
          std::sort(seen[i].begin(), seen[i].end());
          ASSERT_EQ(seen[i], want)
              << "item " << i << " of " << items << ", " << splits
              << " splits on " << slots << " slots";
        }
      }
}

TEST(TailSplitsTest, ChoosesForTheLastWave) {
  // No last wave to split, or too few key tiles.
  EXPECT_EQ(chooseTailSplits(264, 94, 132), 1);
  EXPECT_EQ(chooseTailSplits(2048, 3, 132), 1);
  EXPECT_EQ(chooseTailSplits(0, 94, 132), 1);
  EXPECT_EQ(chooseTailSplits(2048, 94, 0), 1);
  // The standard no-mask shapes on an H200 (132 blocks): D = 128 at 4K
  // (24 key tiles of 176) and 16K (94), D = 256 at 8K (103 tiles of 80;
  // the tail is 100 items).
  EXPECT_EQ(chooseTailSplits(2048, 24, 132), 3);
  EXPECT_EQ(chooseTailSplits(2048, 94, 132), 5);
  EXPECT_EQ(chooseTailSplits(1024, 103, 132), 5);
  // Every split holds two key tiles at least, and there are at most 16.
  for (int64_t items : {1, 17, 68, 2048 + 131})
    for (int64_t tiles = 1; tiles <= 300; tiles += 13) {
      int64_t s = chooseTailSplits(items, tiles, 132);
      EXPECT_GE(s, 1);
      EXPECT_LE(s, kMaxTailSplits);
      if (s > 1)
        EXPECT_LE(2 * s, tiles);
    }
  // The kernel numbers the split items in 32 bits.
  EXPECT_EQ(chooseTailSplits(INT32_MAX - 100, 94, 132), 1);
}
