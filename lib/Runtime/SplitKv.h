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

/// A persistent tail-splitting kernel's num_splits (KernelAbi.h): whole
/// items, or the balanced tail (the last wave's key tiles dealt to every
/// block in equal contiguous shares).
inline constexpr int64_t kWholeItems = 1, kBalancedTail = 2;

/// A persistent tail-splitting launch of `items` work items of `keyTiles`
/// key tiles on `slots` resident blocks, as `splits` (kWholeItems or
/// kBalancedTail) asks: its blocks, and the tail items the kernel deals by
/// keys (items mod blocks, as it counts them; 0 for whole items).
struct TailLaunch {
  int64_t blocks = 0, tailItems = 0;
};
inline TailLaunch tailLaunch(int64_t items, int64_t splits, int64_t slots) {
  if (items <= 0 || slots <= 0)
    return {};
  TailLaunch t;
  if (splits < kBalancedTail) {
    t.blocks = std::min(items, slots);
    return t;
  }
  t.blocks = slots;
  t.tailItems = items % slots;
  return t;
}

/// Whether the kernel's 32-bit numbering holds the balanced tail: the
/// tail's key tiles times the blocks below 2^31.
inline bool balancedTailFits(int64_t tailItems, int64_t keyTiles,
                             int64_t blocks) {
  return tailItems >= 0 && keyTiles >= 0 && blocks > 0 &&
         tailItems <= INT32_MAX / std::max<int64_t>(keyTiles, 1) &&
         tailItems * keyTiles <= INT32_MAX / blocks;
}

/// In key tiles, what a tail segment costs beyond its keys (its queries,
/// the pipeline's fill, the epilogue), and what merging one other
/// segment's record (block_q rows of Dv + 8 floats, from L2) costs.
inline constexpr double kTailSplitTiles = 2.0;
inline constexpr double kTailMergeTiles = 0.5;

/// The tail mode of a persistent launch of `items` work items of
/// `keyTiles` key tiles on `slots` resident blocks: kBalancedTail when a
/// block's share of the tail (ceil(T keyTiles / slots) tiles, plus
/// kTailSplitTiles, plus kTailMergeTiles for each of the about slots / T
/// other shares of an item it may merge) is shorter than a whole item,
/// kWholeItems otherwise.
inline int64_t chooseTailSplits(int64_t items, int64_t keyTiles,
                                int64_t slots) {
  if (items <= 0 || slots <= 0 || keyTiles < 2)
    return kWholeItems;
  int64_t tail = items % slots;
  if (tail == 0 || !balancedTailFits(tail, keyTiles, slots))
    return kWholeItems;
  int64_t share = (tail * keyTiles + slots - 1) / slots;
  int64_t shares = (slots + tail - 1) / tail;
  double time = static_cast<double>(share) + kTailSplitTiles +
                kTailMergeTiles * static_cast<double>(shares);
  return time < static_cast<double>(keyTiles) ? kBalancedTail : kWholeItems;
}

} // namespace attnc::rt

#endif // ATTNC_LIB_RUNTIME_SPLITKV_H
