//===- plan_bench.cpp - host time of attnrt_plan --------------------------===//
//
// The serving issue asks that planning a batch of 256 sequences take well
// under a millisecond on the CPU. Each case checks the plan's coverage (every
// visible key tile of every query tile planned once) before it is timed.
//
//===----------------------------------------------------------------------===//

#include "attnc/Runtime/attnrt_plan.h"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

namespace {

struct Batch {
  std::vector<int32_t> sq, sk;
  attnrt_plan_request request{};
  std::vector<uint64_t> workspace;
  size_t bytes = 0;
};

/// 256 sequences with keys of 100 to 8000; one query row each (decode) or
/// as many as keys (prefill). Hq=32, Hkv=8, H200: 132 SMs.
Batch makeBatch(bool decode) {
  Batch b;
  std::mt19937 rng(1);
  for (int i = 0; i < 256; ++i) {
    b.sk.push_back(100 + static_cast<int32_t>(rng() % 7901));
    b.sq.push_back(decode ? 1 : b.sk.back());
  }
  attnrt_plan_request &r = b.request;
  r.batch = 256;
  r.num_kv_heads = 8;
  r.group_size = 4;
  r.seq_q = b.sq.data();
  r.seq_k = b.sk.data();
  r.block_q = decode ? 64 : 128;
  r.block_k = 128;
  r.causal = 1;
  r.num_ctas = 132;
  r.max_splits = 64;
  r.min_split_tiles = 4;
  if (attnrt_plan_workspace_size(&r, &b.bytes) != ATTNRT_OK)
    std::abort();
  b.workspace.resize(b.bytes / 8 + 1);
  return b;
}

/// Sum over query tiles of the key tiles they read, in closed form.
int64_t expectedKeyTiles(const attnrt_plan_request &r) {
  int64_t tiles = 0;
  for (int32_t b = 0; b < r.batch; ++b) {
    int64_t rows = int64_t(r.seq_q[b]) * r.group_size;
    for (int64_t t = 0; t * r.block_q < rows; ++t) {
      int64_t lastRow = std::min(rows, (t + 1) * r.block_q) - 1;
      int64_t lastKey = lastRow / r.group_size + r.seq_k[b] - r.seq_q[b];
      tiles += lastKey < 0 ? 0 : lastKey / r.block_k + 1;
    }
  }
  return tiles * r.num_kv_heads;
}

void checkPlan(Batch &b) {
  attnrt_plan_info info{};
  if (attnrt_plan(&b.request, b.workspace.data(), b.bytes, &info) != ATTNRT_OK) {
    std::fprintf(stderr, "plan failed: %s\n", attnrt_last_error());
    std::abort();
  }
  if (info.total_cost - info.num_items != expectedKeyTiles(b.request)) {
    std::fprintf(stderr, "plan does not cover the batch's key tiles\n");
    std::abort();
  }
}

void planBatch(benchmark::State &state) {
  Batch b = makeBatch(state.range(0) == 1);
  checkPlan(b);
  attnrt_plan_info info{};
  for (auto _ : state) {
    attnrt_plan(&b.request, b.workspace.data(), b.bytes, &info);
    benchmark::DoNotOptimize(info);
  }
  state.counters["items"] = info.num_items;
  state.counters["splits"] = info.max_num_splits;
}

} // namespace

BENCHMARK(planBatch)->Arg(0)->ArgName("prefill")->Unit(benchmark::kMicrosecond);
BENCHMARK(planBatch)->Arg(1)->ArgName("decode")->Unit(benchmark::kMicrosecond);
BENCHMARK_MAIN();
