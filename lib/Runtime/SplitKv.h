//===- SplitKv.h - how many key splits a split_kv launch uses ---*- C++ -*-===//
//
// Internal to attnrt, header-only so that unit tests call it directly. The
// rule is flash-decoding's wave-quantisation rule (as in FlashAttention's
// num_splits_heuristic, written from its description): a launch of
// `blocks` thread blocks on `slots` resident-block slots (SMs times blocks
// per SM) runs in ceil(blocks * S / slots) waves when each block is split
// S ways; take the smallest S whose last wave is nearly as full as the best
// S can make it, with every split holding at least one key tile.
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_LIB_RUNTIME_SPLITKV_H
#define ATTNC_LIB_RUNTIME_SPLITKV_H

#include <algorithm>
#include <cstdint>

namespace attnc::rt {

/// The most splits the runtime chooses (a caller may ask for more).
inline constexpr int64_t kMaxAutoSplits = 128;

/// Splits for `blocks` thread blocks of `keyTiles` key tiles each on `slots`
/// resident-block slots (all positive).
inline int64_t chooseNumSplits(int64_t blocks, int64_t keyTiles,
                               int64_t slots) {
  if (blocks <= 0 || keyTiles <= 1 || slots <= 0)
    return 1;
  // Enough blocks for several full waves: splitting only adds the combine.
  if (blocks >= 4 * slots)
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

} // namespace attnc::rt

#endif // ATTNC_LIB_RUNTIME_SPLITKV_H
