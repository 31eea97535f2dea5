//===- KernelAbi.h - the kernel parameter table -----------------*- C++ -*-===//
//
// The one table of a generated attention kernel's parameters: their names,
// kinds and order. The kernel builder (convert-attn-to-gpu) reads its
// arguments by these indices, the runtime packs its launch from them, the
// artifact manifest spells them (`params`, `abi_version`), and a CI test
// checks the Python wrapper's ctypes struct against attnrt_attention_args.
// Plain C++, no MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_ARTIFACT_KERNELABI_H
#define ATTNC_ARTIFACT_KERNELABI_H

#include <string>

namespace attnc::abi {

/// Bumped whenever a parameter is added, removed, reordered or changes kind;
/// the runtime refuses artifacts of another version.
inline constexpr int kVersion = 8;

/// How a parameter travels to the kernel.
enum class ParamKind {
  /// A 64-bit device address.
  Pointer,
  /// A 64-bit signed integer.
  I64,
  /// A 128-byte CUtensorMap passed by value (__grid_constant__), built by the
  /// runtime with cuTensorMapEncodeTiled when the manifest says the kernel
  /// reads its tiles by TMA (`tensor_maps`), zero otherwise (see
  /// kTensorMapBoxWidth).
  TensorMap,
};

/// The parameters in launch order. Strides are in elements, of the
/// [B, H, S, D] view of each tensor (the innermost stride is 1). With a
/// paged cache (manifest `page_size` > 0), k and v are pages [num_pages,
/// page_size, Hkv, D]: their "B" stride is the page stride and their "S"
/// stride the row stride within a page; key j of sequence b is row j mod
/// page_size of page page_table[b * max_pages + j / page_size] (ids clamped
/// into [0, num_pages)), and seq_k = max_pages * page_size. kv_lens [B]
/// (int32) holds each sequence's key count, clamped to [0, seq_k]. With an
/// fp8 cache (manifest `reads_kv_scales`), k and v hold float8 e4m3fn codes
/// (strides in elements = bytes) and kv_scales [2, Hkv] (f32) their scales:
/// key element x of KV head h stands for x * kv_scales[h], value element x
/// for x * kv_scales[Hkv + h]. A ragged batch (manifest
/// `reads_cu_seqlens_q`): `batch` is the number of sequences N, q and o hold
/// seq_q packed rows in their batch entry 0 (lse [1, Hq, seq_q]), and
/// sequence n's rows are [cu_seqlens_q[n], cu_seqlens_q[n + 1]) (int32,
/// clamped into [0, seq_q], an end below its start an empty sequence); with
/// `reads_cu_seqlens_k` its keys likewise in k and v's batch entry 0 by
/// cu_seqlens_k (seq_k packed rows), else in a cache of N sequences.
/// A split_kv kernel given a work list (`plan` non-null: a device copy of
/// an attnrt_plan workspace, attnrt_plan.h) runs item i of the list in
/// block i (blocks past the list's items do nothing) instead of the work
/// unit its block index names; an item with num_splits > 1 writes its
/// partial rows to record `partial` of the scratch (planRecordFloats), and
/// the combine kernel's block i merges the splits of item i when it is a
/// split 0.
enum Param : unsigned {
  Q,
  K,
  V,
  O,
  Lse,
  SeqIds,
  CuSeqlens,
  BlockMask,
  AlibiSlopes,
  Batch,
  SeqQ,
  SeqK,
  NumCuSeqlens,
  BlockMaskB,
  BlockMaskH,
  QStrideB,
  QStrideH,
  QStrideS,
  KStrideB,
  KStrideH,
  KStrideS,
  VStrideB,
  VStrideH,
  VStrideS,
  OStrideB,
  OStrideH,
  OStrideS,
  NumSplits,
  Scratch,
  KvLens,
  PageTable,
  MaxPages,
  NumPages,
  KvScales,
  CuSeqlensQ,
  CuSeqlensK,
  Plan,
  QMap,
  KMap,
  VMap,
  NumParams
};

/// One row of the table.
struct ParamInfo {
  const char *name;
  ParamKind kind;
};

/// The table, indexed by Param.
inline constexpr ParamInfo kParams[NumParams] = {
    {"q", ParamKind::Pointer},
    {"k", ParamKind::Pointer},
    {"v", ParamKind::Pointer},
    {"o", ParamKind::Pointer},
    {"lse", ParamKind::Pointer},
    {"seq_ids", ParamKind::Pointer},
    {"cu_seqlens", ParamKind::Pointer},
    {"block_mask", ParamKind::Pointer},
    {"alibi_slopes", ParamKind::Pointer},
    {"batch", ParamKind::I64},
    {"seq_q", ParamKind::I64},
    {"seq_k", ParamKind::I64},
    {"num_cu_seqlens", ParamKind::I64},
    {"block_mask_b", ParamKind::I64},
    {"block_mask_h", ParamKind::I64},
    {"q_stride_b", ParamKind::I64},
    {"q_stride_h", ParamKind::I64},
    {"q_stride_s", ParamKind::I64},
    {"k_stride_b", ParamKind::I64},
    {"k_stride_h", ParamKind::I64},
    {"k_stride_s", ParamKind::I64},
    {"v_stride_b", ParamKind::I64},
    {"v_stride_h", ParamKind::I64},
    {"v_stride_s", ParamKind::I64},
    {"o_stride_b", ParamKind::I64},
    {"o_stride_h", ParamKind::I64},
    {"o_stride_s", ParamKind::I64},
    {"num_splits", ParamKind::I64},
    {"scratch", ParamKind::Pointer},
    {"kv_lens", ParamKind::Pointer},
    {"page_table", ParamKind::Pointer},
    {"max_pages", ParamKind::I64},
    {"num_pages", ParamKind::I64},
    {"kv_scales", ParamKind::Pointer},
    {"cu_seqlens_q", ParamKind::Pointer},
    {"cu_seqlens_k", ParamKind::Pointer},
    {"plan", ParamKind::Pointer},
    {"q_map", ParamKind::TensorMap},
    {"k_map", ParamKind::TensorMap},
    {"v_map", ParamKind::TensorMap},
};

/// The TMA tensor maps of a `tensor_maps` kernel: q, k and v each as a
/// rank-4 tensor {D, S, H, B} (innermost first; element strides of the
/// [B, H, S] dimensions as the stride parameters give them, the head dim
/// contiguous), boxes of kTensorMapBoxWidth columns by block_q (q) or
/// block_k (k, v) rows of one head, 128-byte swizzle, out-of-bounds
/// elements read as zero. The kernel loads a tile as ceil(D / 64) boxes.
/// A paged cache's k and v are {D, page_size, H, num_pages} with boxes of
/// min(page_size, block_k) rows (a page, or a key tile of a larger page).
inline constexpr int kTensorMapBoxWidth = 64;

/// The parameter names joined by ',' (the manifest's `params`).
inline std::string paramList() {
  std::string s;
  for (unsigned i = 0; i < NumParams; ++i)
    s += (i ? "," : "") + std::string(kParams[i].name);
  return s;
}

/// The launch grid rule (the manifest's `grid`): one block per (query tile,
/// key split, KV group of packed query heads, batch entry). A tile holds
/// block_q rows of gqa_pack query heads each (block_q / gqa_pack query
/// positions); without split_kv, num_splits is 1. In a ragged batch seq_q
/// here is the longest sequence's query rows (the launch's max_seqlen_q)
/// and batch the number of sequences.
inline constexpr const char *kGrid =
    "ceil(seq_q*gqa_pack/block_q)*num_splits,num_q_heads/gqa_pack,batch";

/// A persistent artifact's grid: (min(work items, blocks resident at once
/// on the device), 1, 1), the work items being the kGrid blocks (one
/// launch per block of kGrid when the device cannot be read). Block i runs
/// items i, i + blocks, ... of them (x fastest), so that any grid covers
/// each item once.
inline constexpr const char *kPersistentGrid =
    "min(ceil(seq_q/block_q)*num_q_heads*batch,resident_blocks),1,1";

/// The combine kernel of a split_kv artifact (same parameters): blocks of
/// 32 * kCombineRowsPerBlock threads, one block per output row, grid
/// batch * num_q_heads * seq_q (since version 8). With a work list
/// (`plan`): plan_items blocks of each kernel, one per work item (blocks
/// past the plan's items do nothing), a warp per row of the item's tile,
/// kCombineRowsPerBlock rows at a time.
inline constexpr const char *kCombineKernel = "attnc_combine";
inline constexpr int kCombineRowsPerBlock = 4;

/// Scratch of a launch with num_splits > 1 (f32, caller-owned): partial
/// outputs [num_splits, B, Hq, Sq, Dv], normalised, then partial LSEs
/// [num_splits, B, Hq, Sq] (natural log, -inf for a split with no key).
inline constexpr int64_t scratchFloats(int64_t splits, int64_t batch,
                                       int64_t heads, int64_t seqQ,
                                       int64_t valueHeadDim) {
  return splits * batch * heads * seqQ * (valueHeadDim + 1);
}

/// A persistent kernel with tail splits (manifest `tail_splits`) given
/// num_splits 2 deals the key tiles of the items of its last, part-filled
/// wave (T = items mod blocks of them, every item when there are fewer than
/// its blocks) to all its blocks in equal contiguous shares: block l takes
/// tiles [l W / blocks, (l + 1) W / blocks) of the tail's W = T * key tiles,
/// after its whole items l, l + blocks, ...; the last share of an item to
/// finish merges the others and writes its rows. It runs on every resident
/// block. num_splits 0 or 1: every item whole. With a tail, its scratch
/// holds a u32 counter per (tail item, warp of the block: threads / 32),
/// which the runtime zeroes before each launch, padded to a multiple of 4,
/// then two records of tailRecordFloats per block (its shares of one or two
/// items): the consumer threads' partial states (row maxima, sums and
/// unnormalised accumulators, f32).
inline constexpr int64_t tailRecordFloats(int64_t blockQ,
                                          int64_t valueHeadDim) {
  return blockQ * (valueHeadDim + 8);
}
inline constexpr int64_t tailScratchFloats(int64_t tailItems, int64_t blocks,
                                           int64_t threads, int64_t blockQ,
                                           int64_t valueHeadDim) {
  return tailItems == 0
             ? 0
             : (tailItems * (threads / 32) + 3) / 4 * 4 +
                   2 * blocks * tailRecordFloats(blockQ, valueHeadDim);
}

/// With a work list, the scratch holds one record per partial slot of the
/// plan (attnrt_work_item::partial): the tile's block_q packed rows of Dv
/// normalised partial outputs, then their block_q LSEs (f32).
inline constexpr int64_t planRecordFloats(int64_t blockQ,
                                          int64_t valueHeadDim) {
  return blockQ * (valueHeadDim + 1);
}

} // namespace attnc::abi

#endif // ATTNC_ARTIFACT_KERNELABI_H
