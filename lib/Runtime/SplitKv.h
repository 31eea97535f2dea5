//===- SplitKv.h - how many key splits a split_kv launch uses ---*- C++ -*-===//
//
// Internal to attnrt, header-only so that unit tests call it directly. The
// rule is flash-decoding's wave-quantisation rule (as in FlashAttention's
// num_splits_heuristic, written from its description): a launch of
// `blocks` thread blocks on `slots` resident-block slots (SMs times blocks
// per SM) runs in ceil(blocks * S / slots) waves when each block is split
// S ways; take the smallest S whose last wave is nearly as full as the best
// S can make it, with every split holding at least one key tile. Decode is
// memory-bound, so a launch whose blocks are all resident at once with at
// least three a multiprocessor is not split: its blocks stream their keys
// side by side and a split only adds partials and the combine (H200, D=64
// B=64: 512 blocks on 660 slots, 249.8-250.1 us unsplit against 266.0 with
// the wave rule's splits; bench/RESULTS.md, eighth session run 3). With
// fewer a multiprocessor a block's own latency shows (the paged fp8 kernel
// at B=64, 3 a multiprocessor: 456 us unsplit, 327 with 3 splits).
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_LIB_RUNTIME_SPLITKV_H
#define ATTNC_LIB_RUNTIME_SPLITKV_H

#include <algorithm>
#include <cstdint>

namespace attnc::rt {

/// The most splits the runtime chooses (a caller may ask for more).
inline constexpr int64_t kMaxAutoSplits = 128;

/// The slots the split count plans with: `slots` resident-block slots of
/// `sms` multiprocessors, at most `blocksPerSm` a multiprocessor when that is
/// positive (the manifest's split_blocks_per_sm: the blocks that keep a
/// multiprocessor's loads in flight; more only add splits).
inline int64_t splitSlots(int64_t slots, int64_t sms, int64_t blocksPerSm) {
  if (blocksPerSm <= 0 || sms <= 0)
    return slots;
  return std::min(slots, sms * blocksPerSm);
}

/// Splits for `blocks` thread blocks of `keyTiles` key tiles each on `slots`
/// resident-block slots of `sms` multiprocessors (all positive).
inline int64_t chooseNumSplits(int64_t blocks, int64_t keyTiles, int64_t slots,
                               int64_t sms) {
  if (blocks <= 0 || keyTiles <= 1 || slots <= 0)
    return 1;
  // Enough blocks for several full waves: splitting only adds the combine.
  if (blocks >= 4 * slots)
    return 1;
  // One wave of at least three blocks a multiprocessor streams at full rate.
  if (blocks <= slots && blocks >= 3 * sms)
    return 1;
  int64_t most = std::min(kMaxAutoSplits, keyTiles);
  auto efficiency = [&](int64_t s) {
    double waves = static_cast<double>(blocks) * s / slots;
    return waves / static_cast<double>(static_cast<int64_t>(waves) +
                                       (waves > static_cast<int64_t>(waves)));
  };
  double best = 0;
  for (int64_t s = 1; s <= most; ++s)
    best = std::max(best, efficiency(s));
  for (int64_t s = 1; s <= most; ++s)
    if (efficiency(s) >= 0.95 * best)
      return s;
  return 1;
}

/// The most splits of a persistent kernel's tail items (KernelAbi.h, tail
/// splits): the runtime's choice and a caller's num_splits.
inline constexpr int64_t kMaxTailSplits = 16;

/// A persistent tail-splitting launch of `items` work items in `splits`
/// splits on `slots` resident blocks: its blocks (the items of the last,
/// part-filled wave, or every item when there are fewer than `slots`, run
/// as `splits` items each, on as many blocks as are resident), and the
/// tail items the kernel splits (items mod blocks, as it counts them).
struct TailLaunch {
  int64_t blocks = 0, tailItems = 0;
};
inline TailLaunch tailLaunch(int64_t items, int64_t splits, int64_t slots) {
  if (items <= 0 || slots <= 0)
    return {};
  int64_t last = items >= slots ? items % slots : items;
  TailLaunch t;
  t.blocks = std::min(items + (std::max<int64_t>(splits, 1) - 1) * last, slots);
  t.tailItems = items % t.blocks;
  return t;
}

/// In key tiles, what splitting a tail item costs beyond its share of the
/// keys: loading its queries and filling the pipeline, and for the merging
/// split, reading each other split's partial state (a record of block_q
/// rows of Dv + 8 floats, from L2).
inline constexpr double kTailSplitTiles = 2.0;
inline constexpr double kTailMergeTiles = 0.5;

/// Splits for the tail of a persistent launch of `items` work items of
/// `keyTiles` key tiles each on `slots` resident blocks: the count whose
/// tail (the most split items a block runs, each keyTiles / s tiles plus
/// kTailSplitTiles, then the merge of s - 1 records) is shortest, 1 when
/// nothing beats the whole items' keyTiles; at most kMaxTailSplits, every
/// split at least two key tiles.
inline int64_t chooseTailSplits(int64_t items, int64_t keyTiles,
                                int64_t slots) {
  if (items <= 0 || slots <= 0 || keyTiles < 4)
    return 1;
  int64_t last = items >= slots ? items % slots : items;
  if (last == 0)
    return 1;
  int64_t most = std::min(kMaxTailSplits, keyTiles / 2);
  // The kernel numbers the split items in 32 bits.
  if (items > INT32_MAX - most * slots)
    return 1;
  int64_t best = 1;
  double bestTime = static_cast<double>(keyTiles);
  for (int64_t s = 2; s <= most; ++s) {
    int64_t rounds = (s * last + slots - 1) / slots;
    double time = static_cast<double>(rounds) *
                      (static_cast<double>(keyTiles) / s + kTailSplitTiles) +
                  kTailMergeTiles * static_cast<double>(s - 1);
    if (time < bestTime) {
      best = s;
      bestTime = time;
    }
  }
  return best;
}

} // namespace attnc::rt

#endif // ATTNC_LIB_RUNTIME_SPLITKV_H
