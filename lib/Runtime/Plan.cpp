//===- Plan.cpp - host-side work planning for split-KV kernels ------------===//
//
// attnrt_plan: the batch's query tiles, each split over its key tiles when
// there are too few to fill the GPU, listed longest first: one thread block
// per item, started in that order as resident slots free up, is LPT
// scheduling (the busiest block carries at most the mean load plus one
// item), which the plan simulates for its info.
//
//===----------------------------------------------------------------------===//

#include "attnc/Runtime/attnrt_plan.h"

#include "Errors.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <utility>
#include <vector>

using attnc::rt::fail;

namespace {

/// One query tile of one (sequence, KV head) and the key tiles it reads.
struct Unit {
  int32_t sequence, kvHead, qTile;
  int32_t keyTiles;
};

constexpr int64_t kMaxBatch = 1 << 20;
constexpr int64_t kMaxHeads = 1 << 16;
constexpr int64_t kMaxCtas = 1 << 20;
constexpr int64_t kMaxSplits = 1 << 10;
constexpr int64_t kMaxUnits = int64_t(1) << 28;

/// ceil(a / b) for a >= 0, b >= 1, without overflow for any b.
int64_t ceilDiv(int64_t a, int64_t b) { return a / b + (a % b != 0); }

attnrt_status badRequest(const std::string &message) {
  return fail(ATTNRT_ERROR_INVALID_ARGUMENT, "attnrt_plan: " + message);
}

attnrt_status checkRequest(const attnrt_plan_request *r) {
  if (!r)
    return badRequest("expected a request");
  auto inRange = [](int64_t v, int64_t lo, int64_t hi) {
    return v >= lo && v <= hi;
  };
  if (!inRange(r->batch, 1, kMaxBatch))
    return badRequest("expected batch in [1, 2^20], got " +
                      std::to_string(r->batch));
  if (!inRange(r->num_kv_heads, 1, kMaxHeads) ||
      !inRange(r->group_size, 1, kMaxHeads))
    return badRequest("expected num_kv_heads and group_size in [1, 2^16], "
                      "got " + std::to_string(r->num_kv_heads) + " and " +
                      std::to_string(r->group_size));
  if (!r->seq_q || !r->seq_k)
    return badRequest("expected seq_q and seq_k arrays of batch lengths");
  if (r->block_q < 1 || r->block_k < 1)
    return badRequest("expected block_q and block_k >= 1, got " +
                      std::to_string(r->block_q) + " and " +
                      std::to_string(r->block_k));
  if (!inRange(r->num_ctas, 1, kMaxCtas))
    return badRequest("expected num_ctas in [1, 2^20], got " +
                      std::to_string(r->num_ctas));
  if (!inRange(r->max_splits, 1, kMaxSplits) || r->min_split_tiles < 1)
    return badRequest("expected max_splits in [1, 1024] and min_split_tiles "
                      ">= 1, got " + std::to_string(r->max_splits) + " and " +
                      std::to_string(r->min_split_tiles));
  int64_t units = 0;
  for (int32_t b = 0; b < r->batch; ++b) {
    if (r->seq_q[b] < 0 || r->seq_k[b] < 0)
      return badRequest("sequence " + std::to_string(b) +
                        " has a negative length (seq_q " +
                        std::to_string(r->seq_q[b]) + ", seq_k " +
                        std::to_string(r->seq_k[b]) + ")");
    units += ceilDiv(int64_t(r->seq_q[b]) * r->group_size, r->block_q) *
             r->num_kv_heads;
    if (units > kMaxUnits)
      return badRequest("the batch has more than 2^28 query tiles");
  }
  return ATTNRT_OK;
}

/// Key tiles that query tile `qTile` of sequence `b` reads.
int32_t keyTilesOf(const attnrt_plan_request &r, int32_t b, int64_t qTile) {
  int64_t sq = r.seq_q[b], sk = r.seq_k[b];
  int64_t all = ceilDiv(sk, r.block_k);
  if (!r.causal)
    return static_cast<int32_t>(all);
  int64_t rows = sq * r.group_size;
  int64_t lastRow = std::min(rows, (qTile + 1) * r.block_q) - 1;
  int64_t lastKey = lastRow / r.group_size + sk - sq;
  if (lastKey < 0)
    return 0;
  return static_cast<int32_t>(std::min(all, lastKey / r.block_k + 1));
}

std::vector<Unit> unitsOf(const attnrt_plan_request &r) {
  std::vector<Unit> units;
  int64_t count = 0;
  for (int32_t b = 0; b < r.batch; ++b)
    count += ceilDiv(int64_t(r.seq_q[b]) * r.group_size, r.block_q) *
             r.num_kv_heads;
  units.reserve(count);
  for (int32_t b = 0; b < r.batch; ++b) {
    int64_t qTiles =
        ceilDiv(int64_t(r.seq_q[b]) * r.group_size, r.block_q);
    for (int32_t h = 0; h < r.num_kv_heads; ++h)
      for (int64_t t = 0; t < qTiles; ++t)
        units.push_back({b, h, static_cast<int32_t>(t), keyTilesOf(r, b, t)});
  }
  return units;
}

/// Splits of a unit with `tiles` key tiles, for split length `chunk`.
int32_t splitsOf(int64_t tiles, int64_t chunk, int64_t maxSplits) {
  return static_cast<int32_t>(
      std::clamp<int64_t>(ceilDiv(tiles, chunk), 1, maxSplits));
}

/// The loads of `ctas` thread blocks, each item going to the least loaded
/// one: a binary min-heap whose top is replaced and sifted down per item.
class LeastLoaded {
public:
  explicit LeastLoaded(int32_t ctas) : heap(static_cast<size_t>(ctas), 0) {}

  /// Adds `cost` to the least loaded block; returns that block's new load.
  int64_t add(int64_t cost) {
    const int64_t load = heap[0] + cost;
    const size_t n = heap.size();
    size_t i = 0;
    for (size_t child = 1; child < n; child = 2 * i + 1) {
      if (child + 1 < n && heap[child + 1] < heap[child])
        ++child;
      if (heap[child] >= load)
        break;
      heap[i] = heap[child];
      i = child;
    }
    heap[i] = load;
    return load;
  }

private:
  std::vector<int64_t> heap;
};

/// What an item costs beyond its key tiles when choosing splits, in key
/// tiles: its block's start (reading the item, loading Q), its epilogue and
/// its share of the combine.
constexpr int64_t kItemOverhead = 4;

/// The time the longest-first schedule of `units` cut into chunks of
/// `chunk` key tiles takes on r.num_ctas blocks (each takes the next item
/// when it is free; an item costs its tiles plus kItemOverhead), and its
/// item count.
std::pair<int64_t, int64_t> schedule(const attnrt_plan_request &r,
                                     const std::vector<Unit> &units,
                                     int64_t chunk) {
  std::vector<int64_t> costs;
  for (const Unit &u : units) {
    int32_t n = splitsOf(u.keyTiles, chunk, r.max_splits);
    for (int32_t s = 0; s < n; ++s)
      costs.push_back(int64_t(u.keyTiles) * (s + 1) / n -
                      int64_t(u.keyTiles) * s / n + kItemOverhead);
  }
  std::sort(costs.begin(), costs.end(), std::greater<int64_t>());
  LeastLoaded blocks(r.num_ctas);
  int64_t finish = 0;
  for (int64_t cost : costs)
    finish = std::max(finish, blocks.add(cost));
  return {finish, static_cast<int64_t>(costs.size())};
}

/// The split length (key tiles) of the plan: none (INT64_MAX) when the
/// query tiles fill several waves of blocks by themselves; otherwise the
/// candidate whose schedule finishes first (ties: fewer items), among the
/// longest tile cut into 1, 2, 3, 4, 6, ... pieces and the mean load per
/// block, so that neither idle blocks nor a ragged last wave is left.
int64_t chooseChunk(const attnrt_plan_request &r,
                    const std::vector<Unit> &units) {
  constexpr int64_t kWavesWithoutSplits = 4;
  if (static_cast<int64_t>(units.size()) >= kWavesWithoutSplits * r.num_ctas)
    return INT64_MAX;
  int64_t keyTiles = 0, longest = 0;
  for (const Unit &u : units) {
    keyTiles += u.keyTiles;
    longest = std::max<int64_t>(longest, u.keyTiles);
  }
  std::vector<int64_t> candidates = {ceilDiv(keyTiles, r.num_ctas)};
  for (int64_t pieces :
       {1,  2,  3,  4,  5,  6,   8,   10,  12,  16,  20,  24,  32,
        40, 48, 64, 80, 96, 128, 192, 256, 384, 512, 768, 1024})
    if (pieces <= r.max_splits)
      candidates.push_back(ceilDiv(std::max<int64_t>(longest, 1), pieces));
  int64_t best = INT64_MAX, bestFinish = INT64_MAX, bestItems = INT64_MAX;
  for (int64_t c : candidates) {
    c = std::max<int64_t>(c, r.min_split_tiles);
    auto [finish, items] = schedule(r, units, c);
    if (finish < bestFinish || (finish == bestFinish && items < bestItems)) {
      best = c;
      bestFinish = finish;
      bestItems = items;
    }
    // Enough items to balance any split further would only add combines.
    if (items > 16 * r.num_ctas)
      break;
  }
  return best;
}

/// Workspace bytes for `units`: any split length gives at most
/// min(max_splits, max(1, tiles)) items per unit.
size_t workspaceBytes(const attnrt_plan_request &r,
                      const std::vector<Unit> &units) {
  int64_t items = 0;
  for (const Unit &u : units)
    items += std::min<int64_t>(r.max_splits, std::max<int32_t>(1, u.keyTiles));
  return ATTNRT_PLAN_ITEMS_OFFSET + items * sizeof(attnrt_work_item);
}

/// Item indices by decreasing cost, ties in index order.
template <typename Cost>
std::vector<int32_t> longestFirst(const std::vector<attnrt_work_item> &items,
                                  Cost cost) {
  std::vector<int32_t> order(items.size());
  for (size_t i = 0; i < order.size(); ++i)
    order[i] = static_cast<int32_t>(i);
  std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
    return cost(items[a]) > cost(items[b]);
  });
  return order;
}

} // namespace

extern "C" attnrt_status
attnrt_plan_workspace_size(const attnrt_plan_request *request, size_t *bytes) {
  if (attnrt_status s = checkRequest(request))
    return s;
  if (!bytes)
    return badRequest("expected a place for the size");
  *bytes = workspaceBytes(*request, unitsOf(*request));
  return ATTNRT_OK;
}

extern "C" attnrt_status attnrt_plan(const attnrt_plan_request *request,
                                     void *workspace, size_t workspaceSize,
                                     attnrt_plan_info *info) {
  if (attnrt_status s = checkRequest(request))
    return s;
  const attnrt_plan_request &r = *request;
  std::vector<Unit> units = unitsOf(r);
  size_t needed = workspaceBytes(r, units);
  if (!workspace || !info)
    return badRequest("expected a workspace and a place for the plan info");
  if (reinterpret_cast<uintptr_t>(workspace) % 8 != 0)
    return badRequest("expected an 8-byte aligned workspace");
  if (workspaceSize < needed)
    return badRequest("the workspace holds " + std::to_string(workspaceSize) +
                      " bytes, the plan needs " + std::to_string(needed) +
                      " (attnrt_plan_workspace_size)");
  const int64_t chunk = chooseChunk(r, units);

  // Each unit's splits, as items: split s of n covers key tiles [tiles * s
  // / n, tiles * (s + 1) / n); partial records are numbered in unit order.
  int32_t partials = 0, maxSplits = 1;
  auto forEachItem = [&](auto &&emit) {
    partials = 0;
    for (const Unit &u : units) {
      int32_t n = splitsOf(u.keyTiles, chunk, r.max_splits);
      maxSplits = std::max(maxSplits, n);
      for (int32_t s = 0; s < n; ++s) {
        int32_t begin = static_cast<int32_t>(int64_t(u.keyTiles) * s / n);
        int32_t end = static_cast<int32_t>(int64_t(u.keyTiles) * (s + 1) / n);
        emit(attnrt_work_item{u.sequence, u.kvHead, u.qTile, begin, end, s, n,
                              n > 1 ? partials++ : -1});
      }
    }
  };
  auto cost = [](const attnrt_work_item &w) {
    return int64_t(w.k_tile_end - w.k_tile_begin) + 1;
  };
  auto *out = reinterpret_cast<attnrt_work_item *>(
      static_cast<char *>(workspace) + ATTNRT_PLAN_ITEMS_OFFSET);
  // Longest first (ties: unit order). Small costs (key tiles of ordinary
  // lengths): count the items of each cost, then write each item straight
  // into its place; otherwise sort the items, then copy them.
  int64_t numItems = 0, maxCost = 0;
  forEachItem([&](const attnrt_work_item &w) {
    ++numItems;
    maxCost = std::max(maxCost, cost(w));
  });
  if (maxCost <= (1 << 16)) {
    // next[c]: where the next item of cost maxCost - c goes.
    std::vector<int64_t> next(maxCost + 2, 0);
    forEachItem(
        [&](const attnrt_work_item &w) { ++next[maxCost - cost(w) + 1]; });
    for (size_t c = 1; c < next.size(); ++c)
      next[c] += next[c - 1];
    forEachItem(
        [&](const attnrt_work_item &w) { out[next[maxCost - cost(w)]++] = w; });
  } else {
    std::vector<attnrt_work_item> items;
    items.reserve(numItems);
    forEachItem([&](const attnrt_work_item &w) { items.push_back(w); });
    std::vector<int32_t> order = longestFirst(items, cost);
    for (size_t n = 0; n < order.size(); ++n)
      out[n] = items[order[n]];
  }
  *static_cast<int32_t *>(workspace) = static_cast<int32_t>(numItems);

  // The schedule that order gives: each item onto the least loaded block.
  LeastLoaded blocks(r.num_ctas);
  int64_t total = 0, busiest = 0;
  for (int64_t n = 0; n < numItems; ++n) {
    total += cost(out[n]);
    busiest = std::max(busiest, blocks.add(cost(out[n])));
  }

  info->num_items = static_cast<int32_t>(numItems);
  info->num_partials = partials;
  info->max_num_splits = maxSplits;
  info->items_offset = ATTNRT_PLAN_ITEMS_OFFSET;
  info->total_cost = total;
  info->max_cta_cost = busiest;
  return ATTNRT_OK;
}
