//===- plan_fuzzer.cpp - libFuzzer target: the work planner ---------------===//
//
// Any request decoded from the input (up to 8 sequences of up to 255 query
// and 2047 key positions, odd tile sizes, block counts and split limits) must
// be planned or refused with a message, never crash; a plan must hold what
// the kernels rely on: its count, items in range and longest first, each
// query tile's splits 0..n-1 once, covering its visible key tiles in order,
// and partial records numbered densely.
//
//===----------------------------------------------------------------------===//

#include "attnc/Runtime/attnrt_plan.h"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

// The runtime's error recorder (lib/Runtime/attnrt.cpp), which this target
// does not link: messages are dropped.
namespace attnc::rt {
attnrt_status fail(attnrt_status status, std::string) { return status; }
} // namespace attnc::rt

namespace {

/// Reads the input a byte at a time; zeros once it runs out.
struct Reader {
  const uint8_t *data;
  size_t size;
  int32_t byte() { return size ? (--size, *data++) : 0; }
  int32_t word() { return byte() | byte() << 8; }
};

void check(bool property) {
  if (!property)
    std::abort();
}

/// Key tiles query tile t of sequence b must read, by brute force over its
/// rows (as test/Unit/PlanTest.cpp counts them).
int32_t visibleKeyTiles(const attnrt_plan_request &r, int32_t b, int32_t t) {
  int64_t sq = r.seq_q[b], sk = r.seq_k[b], rows = sq * r.group_size;
  int64_t last = -1;
  for (int64_t row = int64_t(t) * r.block_q;
       row < std::min<int64_t>(rows, int64_t(t + 1) * r.block_q); ++row) {
    int64_t p = row / r.group_size;
    last = std::max(last, r.causal ? std::min(sk - 1, p + sk - sq) : sk - 1);
  }
  return static_cast<int32_t>(last < 0 ? 0 : last / r.block_k + 1);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  Reader in{data, size};
  attnrt_plan_request r{};
  r.batch = in.byte() % 9; // 0 is refused
  r.num_kv_heads = in.byte() % 5;
  r.group_size = in.byte() % 9;
  std::vector<int32_t> sq(r.batch), sk(r.batch);
  for (int32_t b = 0; b < r.batch; ++b) {
    sq[b] = in.word() % 256 - (in.byte() == 255); // -1 is refused
    sk[b] = in.word() % 2048;
  }
  r.seq_q = sq.data();
  r.seq_k = sk.data();
  r.block_q = in.byte() % 130;
  r.block_k = in.word() % 300;
  r.causal = in.byte() % 2;
  r.num_ctas = in.word() % 1100;
  r.max_splits = in.byte() % 140;
  r.min_split_tiles = in.byte() % 10;

  size_t bytes = 0;
  if (attnrt_plan_workspace_size(&r, &bytes) != ATTNRT_OK)
    return 0;
  std::vector<uint64_t> workspace(bytes / 8 + 1);
  attnrt_plan_info info{};
  check(attnrt_plan(&r, workspace.data(), bytes, &info) == ATTNRT_OK);
  auto *words = reinterpret_cast<const int32_t *>(workspace.data());
  check(words[0] == info.num_items);
  check(info.items_offset == ATTNRT_PLAN_ITEMS_OFFSET);
  check(ATTNRT_PLAN_ITEMS_OFFSET +
            size_t(info.num_items) * sizeof(attnrt_work_item) <=
        bytes);
  auto *items = reinterpret_cast<const attnrt_work_item *>(
      reinterpret_cast<const char *>(workspace.data()) +
      ATTNRT_PLAN_ITEMS_OFFSET);

  std::map<std::tuple<int32_t, int32_t, int32_t>,
           std::vector<attnrt_work_item>>
      byTile;
  std::set<int32_t> partials;
  int64_t previous = INT64_MAX, total = 0;
  for (int32_t i = 0; i < info.num_items; ++i) {
    const attnrt_work_item &w = items[i];
    check(w.sequence >= 0 && w.sequence < r.batch);
    check(w.kv_head >= 0 && w.kv_head < r.num_kv_heads);
    check(w.num_splits >= 1 && w.num_splits <= r.max_splits);
    check(w.split >= 0 && w.split < w.num_splits);
    check(w.num_splits == 1 ? w.partial == -1
                            : partials.insert(w.partial).second);
    int64_t cost = int64_t(w.k_tile_end) - w.k_tile_begin + 1;
    check(cost <= previous); // longest first
    previous = cost;
    total += cost;
    byTile[{w.sequence, w.kv_head, w.q_tile}].push_back(w);
  }
  check(total == info.total_cost);
  check(int32_t(partials.size()) == info.num_partials);
  check(partials.empty() || (*partials.begin() == 0 &&
                             *partials.rbegin() == info.num_partials - 1));
  size_t tiles = 0;
  for (int32_t b = 0; b < r.batch; ++b) {
    int32_t qTiles = static_cast<int32_t>(
        (int64_t(sq[b]) * r.group_size + r.block_q - 1) / r.block_q);
    for (int32_t t = 0; t < qTiles; ++t) {
      const int32_t visible = visibleKeyTiles(r, b, t);
      for (int32_t h = 0; h < r.num_kv_heads; ++h, ++tiles) {
        auto it = byTile.find({b, h, t});
        check(it != byTile.end());
        std::vector<attnrt_work_item> splits = it->second;
        std::sort(splits.begin(), splits.end(),
                  [](auto &x, auto &y) { return x.split < y.split; });
        int32_t next = 0;
        for (size_t s = 0; s < splits.size(); ++s) {
          check(splits[s].split == int32_t(s));
          check(splits[s].num_splits == int32_t(splits.size()));
          check(splits[s].k_tile_begin == next);
          check(splits[s].k_tile_end >= next);
          next = splits[s].k_tile_end;
        }
        check(next == visible);
      }
    }
  }
  check(byTile.size() == tiles);
  return 0;
}
