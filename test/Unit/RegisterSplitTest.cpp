// The setmaxnreg split of a warp-specialised block (RegisterSplit.h): the
// consumers' registers stay within the pool the block starts with, which a
// split computed from 65536 registers a block overshoots.
#include "attnc/Kernel/RegisterSplit.h"

#include <gtest/gtest.h>

using namespace attnc;

TEST(RegisterSplit, LaunchRegisters) {
  EXPECT_EQ(launchRegisters(384, 1), 168); // two consumer warpgroups
  EXPECT_EQ(launchRegisters(512, 1), 128); // three
  EXPECT_EQ(launchRegisters(256, 2), 128); // one, two blocks
  EXPECT_EQ(launchRegisters(256, 1), 248); // one: at most 255, down to 8
}

TEST(RegisterSplit, KernelsSplits) {
  EXPECT_EQ(consumerRegisters(2, 1, 24), 240);
  EXPECT_EQ(consumerRegisters(2, 1, 40), 232);
  // 65536 - 128 x 48 leaves 232 a consumer, but the block starts with
  // 168 x 384 = 64512: 232 beside 48 hung the H200.
  EXPECT_EQ(consumerRegisters(2, 1, 48), 224);
  EXPECT_FALSE(fitsRegisterPool(2, 1, 48, 232));
  EXPECT_EQ(consumerRegisters(3, 1, 40), 152);
  EXPECT_EQ(consumerRegisters(1, 2, 40), 216);
  EXPECT_EQ(consumerRegisters(1, 2, 56), 200);
}

TEST(RegisterSplit, EverySplitFitsAndUsesThePool) {
  for (int64_t groups = 1; groups <= 3; ++groups)
    for (int64_t blocks = 1; blocks <= 2; ++blocks)
      for (int64_t producer = 24; producer <= 56; producer += 8) {
        int64_t consumer = consumerRegisters(groups, blocks, producer);
        SCOPED_TRACE(testing::Message() << groups << " groups, " << blocks
                                        << " blocks, producer " << producer);
        EXPECT_EQ(consumer % 8, 0);
        EXPECT_TRUE(fitsRegisterPool(groups, blocks, producer, consumer));
        if (consumer < 240)
          EXPECT_FALSE(
              fitsRegisterPool(groups, blocks, producer, consumer + 8));
      }
}
