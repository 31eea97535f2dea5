//===- RegisterSplit.h - setmaxnreg split of a wgmma block ------*- C++ -*-===//
//
// The registers of a warp-specialised block: ptxas starts every thread with
// the same count (65536 / (threads x blocks a multiprocessor), down to a
// multiple of 8), and setmaxnreg then moves registers between the producer
// warpgroup and the consumer warpgroups within that pool. A split asking for
// more than the pool does not fail: setmaxnreg.inc waits for registers that
// never come, and the block hangs. Free of MLIR (unit-tested).
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_KERNEL_REGISTERSPLIT_H
#define ATTNC_KERNEL_REGISTERSPLIT_H

#include <algorithm>
#include <cstdint>

namespace attnc {

/// Registers a thread of a block of `threads` starts with when `blocks`
/// blocks share a multiprocessor's 65536 (ptxas's allocation unit: 8).
inline int64_t launchRegisters(int64_t threads, int64_t blocks) {
  return std::min<int64_t>(255, 65536 / (threads * blocks)) / 8 * 8;
}

/// The registers a block of `consumerGroups` consumer warpgroups and one
/// producer warpgroup starts with.
inline int64_t blockRegisterPool(int64_t consumerGroups, int64_t blocks) {
  int64_t threads = 128 * (consumerGroups + 1);
  return launchRegisters(threads, blocks) * threads;
}

/// The registers a consumer thread may take after setmaxnreg beside
/// `consumerGroups` consumer warpgroups and one producer warpgroup keeping
/// `producer`: the block's pool less the producer's, a multiple of 8, at
/// most 240.
inline int64_t consumerRegisters(int64_t consumerGroups, int64_t blocks,
                                 int64_t producer) {
  int64_t each = (blockRegisterPool(consumerGroups, blocks) - 128 * producer) /
                 (128 * consumerGroups) / 8 * 8;
  return std::min<int64_t>(240, each);
}

/// True when the split fits the block's pool (every setmaxnreg.inc can be
/// granted).
inline bool fitsRegisterPool(int64_t consumerGroups, int64_t blocks,
                             int64_t producer, int64_t consumer) {
  return 128 * (consumerGroups * consumer + producer) <=
         blockRegisterPool(consumerGroups, blocks);
}

} // namespace attnc

#endif // ATTNC_KERNEL_REGISTERSPLIT_H
