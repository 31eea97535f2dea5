//===- PlanTest.cpp - attnrt_plan: coverage, splits, balance, errors ------===//

#include "attnc/Runtime/attnrt_plan.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <map>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace {

struct Plan {
  attnrt_status status;
  attnrt_plan_info info{};
  int32_t count = -1; // the workspace's item count
  std::vector<attnrt_work_item> items;
};

Plan plan(const attnrt_plan_request &r) {
  Plan p;
  size_t bytes = 0;
  p.status = attnrt_plan_workspace_size(&r, &bytes);
  if (p.status != ATTNRT_OK)
    return p;
  std::vector<uint64_t> workspace((bytes + 7) / 8);
  p.status = attnrt_plan(&r, workspace.data(), bytes, &p.info);
  if (p.status != ATTNRT_OK)
    return p;
  p.count = *reinterpret_cast<const int32_t *>(workspace.data());
  EXPECT_EQ(p.info.items_offset, size_t{ATTNRT_PLAN_ITEMS_OFFSET});
  auto *items = reinterpret_cast<const attnrt_work_item *>(
      reinterpret_cast<const char *>(workspace.data()) + p.info.items_offset);
  p.items.assign(items, items + p.info.num_items);
  return p;
}

attnrt_plan_request request(const std::vector<int32_t> &sq,
                            const std::vector<int32_t> &sk) {
  attnrt_plan_request r{};
  r.batch = static_cast<int32_t>(sq.size());
  r.num_kv_heads = 1;
  r.group_size = 1;
  r.seq_q = sq.data();
  r.seq_k = sk.data();
  r.block_q = 64;
  r.block_k = 128;
  r.num_ctas = 132;
  r.max_splits = 64;
  r.min_split_tiles = 1;
  return r;
}

/// The decode kernel's request on an H200 (bench_decode_d128_*: Hkv = 8, 4
/// query heads packed per tile of 16 rows, 64-key tiles, 3 blocks on each
/// of 132 multiprocessors).
attnrt_plan_request h200DecodeRequest(const std::vector<int32_t> &sq,
                                      const std::vector<int32_t> &sk) {
  attnrt_plan_request r = request(sq, sk);
  r.num_kv_heads = 8;
  r.group_size = 4;
  r.block_q = 16;
  r.block_k = 64;
  r.num_ctas = 396;
  return r;
}

/// Key tiles that query tile t of sequence b must read, by brute force over
/// its rows (independent of the planner's closed form).
int32_t visibleKeyTiles(const attnrt_plan_request &r, int32_t b, int32_t t) {
  int64_t sq = r.seq_q[b], sk = r.seq_k[b];
  int64_t rows = sq * r.group_size;
  int64_t last = -1;
  for (int64_t row = int64_t(t) * r.block_q;
       row < std::min<int64_t>(rows, int64_t(t + 1) * r.block_q); ++row) {
    int64_t p = row / r.group_size;
    int64_t lastKey = r.causal ? std::min(sk - 1, p + sk - sq) : sk - 1;
    last = std::max(last, lastKey);
  }
  return static_cast<int32_t>(last < 0 ? 0 : last / r.block_k + 1);
}

/// Every property a kernel relies on.
void expectValid(const attnrt_plan_request &r, const Plan &p) {
  ASSERT_EQ(p.status, ATTNRT_OK) << attnrt_last_error();
  ASSERT_EQ(p.count, p.info.num_items);
  // Each query tile's splits: 0..n-1 once each, covering exactly its
  // visible key tiles in order.
  std::map<std::tuple<int32_t, int32_t, int32_t>,
           std::vector<attnrt_work_item>>
      byTile;
  std::set<int32_t> partials;
  for (const attnrt_work_item &w : p.items) {
    byTile[{w.sequence, w.kv_head, w.q_tile}].push_back(w);
    if (w.num_splits > 1) {
      EXPECT_TRUE(partials.insert(w.partial).second) << "partial reused";
    } else {
      EXPECT_EQ(w.partial, -1);
    }
  }
  EXPECT_EQ(static_cast<int32_t>(partials.size()), p.info.num_partials);
  if (!partials.empty()) {
    EXPECT_EQ(*partials.begin(), 0);
    EXPECT_EQ(*partials.rbegin(), p.info.num_partials - 1);
  }
  size_t tiles = 0;
  for (int32_t b = 0; b < r.batch; ++b) {
    int32_t qTiles = static_cast<int32_t>(
        (int64_t(r.seq_q[b]) * r.group_size + r.block_q - 1) / r.block_q);
    for (int32_t h = 0; h < r.num_kv_heads; ++h)
      for (int32_t t = 0; t < qTiles; ++t) {
        ++tiles;
        auto it = byTile.find({b, h, t});
        ASSERT_NE(it, byTile.end()) << "query tile " << b << "," << h << ","
                                    << t << " has no item";
        std::vector<attnrt_work_item> splits = it->second;
        std::sort(splits.begin(), splits.end(),
                  [](auto &x, auto &y) { return x.split < y.split; });
        int32_t n = static_cast<int32_t>(splits.size());
        int32_t next = 0;
        for (int32_t s = 0; s < n; ++s) {
          EXPECT_EQ(splits[s].split, s);
          EXPECT_EQ(splits[s].num_splits, n);
          EXPECT_EQ(splits[s].k_tile_begin, next);
          EXPECT_LE(splits[s].k_tile_begin, splits[s].k_tile_end);
          next = splits[s].k_tile_end;
        }
        EXPECT_EQ(next, visibleKeyTiles(r, b, t))
            << "query tile " << b << "," << h << "," << t;
        EXPECT_LE(n, r.max_splits);
      }
  }
  EXPECT_EQ(byTile.size(), tiles) << "items for query tiles that do not exist";
  // Launch order: longest first. Costs as reported, and the LPT bound of
  // the schedule that order gives on num_ctas blocks (each item to the
  // block that is free first): the busiest block carries at most the mean
  // load plus the largest item.
  std::vector<int64_t> loads(r.num_ctas, 0);
  int64_t total = 0, largest = 0, previous = INT64_MAX;
  for (const attnrt_work_item &w : p.items) {
    int64_t cost = w.k_tile_end - w.k_tile_begin + 1;
    EXPECT_LE(cost, previous) << "items not longest first";
    previous = cost;
    *std::min_element(loads.begin(), loads.end()) += cost;
    total += cost;
    largest = std::max(largest, cost);
  }
  int64_t busiest = *std::max_element(loads.begin(), loads.end());
  EXPECT_EQ(total, p.info.total_cost);
  EXPECT_EQ(busiest, p.info.max_cta_cost);
  EXPECT_LE(busiest, (total + r.num_ctas - 1) / r.num_ctas + largest);
}

TEST(Plan, LongDecodeIsSplitAcrossTheGpu) {
  // B=1, Sk=128K, Hkv=8, 4 query heads per KV head, one query row each: 8
  // query tiles alone would leave 124 of 132 blocks idle.
  std::vector<int32_t> sq = {1}, sk = {131072};
  attnrt_plan_request r = request(sq, sk);
  r.num_kv_heads = 8;
  r.group_size = 4;
  r.causal = 1;
  Plan p = plan(r);
  expectValid(r, p);
  EXPECT_GT(p.info.max_num_splits, 1);
  // 8 x 1024 key tiles over 132 blocks: the busiest carries within 10% of
  // the mean.
  EXPECT_LE(p.info.max_cta_cost * 10, 11 * p.info.total_cost / r.num_ctas);
}

TEST(Plan, EqualTilesDoNotLeaveARaggedLastWave) {
  // B=64, Sk=8K, Hkv=8 on 396 blocks (an H200 at 3 blocks a multiprocessor):
  // 512 tiles of 64 keys x 128 would run in two waves, the second 30% full;
  // split 3 ways they fill four waves (what the runtime's split rule
  // chooses too).
  std::vector<int32_t> sq(64, 1), sk(64, 8192);
  attnrt_plan_request r = h200DecodeRequest(sq, sk);
  Plan p = plan(r);
  expectValid(r, p);
  EXPECT_EQ(p.info.max_num_splits, 3);
  EXPECT_EQ(p.info.num_items, 3 * 512);
  EXPECT_LE(p.info.max_cta_cost * 10, 11 * p.info.total_cost / r.num_ctas);
}

TEST(Plan, OneLongSequenceIsSplitMoreThanShortOnes) {
  // One sequence of 128K keys among 15 of 2K: the long one's tiles are cut
  // into many splits, the short ones into few or none.
  std::vector<int32_t> sq(16, 1), sk(16, 2048);
  sk[3] = 131072;
  attnrt_plan_request r = h200DecodeRequest(sq, sk);
  Plan p = plan(r);
  expectValid(r, p);
  int32_t longSplits = 0, shortSplits = 0;
  for (const attnrt_work_item &w : p.items)
    (w.sequence == 3 ? longSplits : shortSplits) =
        std::max(w.sequence == 3 ? longSplits : shortSplits, w.num_splits);
  EXPECT_GE(longSplits, 16 * shortSplits);
  // Within 25% of the mean (the short tiles are cut into few pieces, each
  // costing one more).
  EXPECT_LE(p.info.max_cta_cost * 4, 5 * p.info.total_cost / r.num_ctas);
}

TEST(Plan, LargeDecodeBatchIsNotSplit) {
  // B=64, Sk=8K, Hkv=8: 512 query tiles already fill 132 blocks.
  std::vector<int32_t> sq(64, 1), sk(64, 8192);
  attnrt_plan_request r = request(sq, sk);
  r.num_kv_heads = 8;
  r.group_size = 4;
  Plan p = plan(r);
  expectValid(r, p);
  EXPECT_EQ(p.info.max_num_splits, 1);
  EXPECT_EQ(p.info.num_partials, 0);
  EXPECT_EQ(p.info.num_items, 512);
}

TEST(Plan, EmptyAndMaskedRowsStillOwnTheirOutput) {
  // Sk = 0; Sq = 0 (no rows, no item); and bottom-right causal with
  // Sq > Sk, whose first rows see no key.
  std::vector<int32_t> sq = {3, 0, 200}, sk = {0, 50, 100};
  attnrt_plan_request r = request(sq, sk);
  r.causal = 1;
  r.block_q = 16;
  r.block_k = 16;
  Plan p = plan(r);
  expectValid(r, p);
  bool emptyRange = false;
  for (const attnrt_work_item &w : p.items) {
    EXPECT_NE(w.sequence, 1);
    emptyRange |= w.k_tile_begin == w.k_tile_end;
  }
  EXPECT_TRUE(emptyRange);
}

TEST(Plan, RandomBatchesAreCoveredAndBalanced) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 300; ++trial) {
    int32_t batch = 1 + rng() % 9;
    std::vector<int32_t> sq(batch), sk(batch);
    bool decode = rng() % 2;
    for (int32_t b = 0; b < batch; ++b) {
      sk[b] = rng() % 3000;
      sq[b] = decode ? static_cast<int32_t>(rng() % 2) : rng() % 700;
    }
    attnrt_plan_request r = request(sq, sk);
    r.num_kv_heads = 1 + rng() % 4;
    r.group_size = 1 + rng() % 8;
    r.block_q = 1 + rng() % 128;
    r.block_k = 1 + rng() % 256;
    r.causal = rng() % 2;
    r.num_ctas = 1 + rng() % 200;
    r.max_splits = 1 + rng() % 40;
    r.min_split_tiles = 1 + rng() % 8;
    SCOPED_TRACE("trial " + std::to_string(trial));
    expectValid(r, plan(r));
  }
}

TEST(Plan, LongestItemsArePlacedFirst) {
  // Costs 1, 1, 1, 1, 4 on two blocks: longest first gives 4 | 1+1+1+1;
  // in index order the 4 would land on a block that already holds 2.
  std::vector<int32_t> sq = {1, 1, 1, 1, 1}, sk = {0, 0, 0, 0, 3};
  attnrt_plan_request r = request(sq, sk);
  r.block_q = 1;
  r.block_k = 1;
  r.num_ctas = 2;
  Plan p = plan(r);
  expectValid(r, p);
  EXPECT_EQ(p.info.total_cost, 8);
  EXPECT_EQ(p.info.max_cta_cost, 4);
}

TEST(Plan, ItemsOfOver65536KeyTilesAreOrderedToo) {
  // Item costs past the counting sort's range (block_k = 1).
  std::vector<int32_t> sq = {3, 1, 2}, sk = {70000, 90000, 5};
  attnrt_plan_request r = request(sq, sk);
  r.block_q = 1;
  r.block_k = 1;
  r.num_ctas = 4;
  r.max_splits = 1;
  Plan p = plan(r);
  expectValid(r, p);
  EXPECT_EQ(p.info.num_items, 6);
}

TEST(Plan, BadRequestsAreRefusedWithAMessage) {
  std::vector<int32_t> sq = {4}, sk = {8}, negative = {-1};
  attnrt_plan_request good = request(sq, sk);
  size_t bytes = 0;
  auto refused = [](attnrt_status s, const char *message) {
    EXPECT_EQ(s, ATTNRT_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(attnrt_last_error()).find(message),
              std::string::npos)
        << attnrt_last_error();
  };
  refused(attnrt_plan_workspace_size(nullptr, &bytes), "expected a request");
  attnrt_plan_request r = good;
  r.batch = 0;
  refused(attnrt_plan_workspace_size(&r, &bytes), "expected batch in");
  r = good;
  r.seq_k = negative.data();
  refused(attnrt_plan_workspace_size(&r, &bytes), "negative length");
  r = good;
  r.seq_q = nullptr;
  refused(attnrt_plan_workspace_size(&r, &bytes), "expected seq_q and seq_k");
  r = good;
  r.block_k = 0;
  refused(attnrt_plan_workspace_size(&r, &bytes), "block_q and block_k");
  r = good;
  r.num_ctas = 0;
  refused(attnrt_plan_workspace_size(&r, &bytes), "num_ctas");
  r = good;
  r.max_splits = 0;
  refused(attnrt_plan_workspace_size(&r, &bytes), "max_splits");
  r = good;
  r.group_size = 1 << 17;
  refused(attnrt_plan_workspace_size(&r, &bytes), "group_size");

  ASSERT_EQ(attnrt_plan_workspace_size(&good, &bytes), ATTNRT_OK);
  std::vector<uint64_t> workspace(bytes / 8 + 2);
  attnrt_plan_info info{};
  refused(attnrt_plan(&good, workspace.data(), bytes - 1, &info),
          "the plan needs");
  refused(attnrt_plan(&good, reinterpret_cast<char *>(workspace.data()) + 4,
                      bytes, &info),
          "8-byte aligned");
  refused(attnrt_plan(&good, nullptr, bytes, &info), "expected a workspace");
  EXPECT_EQ(attnrt_plan(&good, workspace.data(), bytes, &info), ATTNRT_OK);
}

} // namespace
