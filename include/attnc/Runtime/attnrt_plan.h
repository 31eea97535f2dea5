/*===- attnrt_plan.h - host-side work planning -------------------*- C -*-===*\
|*                                                                            *|
|* Plan, then run: from a batch's lengths on the host, a balanced work list   *|
|* for a split-KV attention kernel, written into a caller-owned workspace.    *|
|* The split-KV (decode) kernels run a plan's items when a launch passes it   *|
|* (attnrt_attention_args::plan). Plan version 1.                            *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef ATTNC_RUNTIME_ATTNRT_PLAN_H
#define ATTNC_RUNTIME_ATTNRT_PLAN_H

#include "attnc/Runtime/attnrt.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ATTNRT_PLAN_VERSION 1
/* Where a workspace's items start (bytes). */
#define ATTNRT_PLAN_ITEMS_OFFSET 8

/* The batch to plan. Work is counted in tiles: the query rows of one KV
 * head's group (group_size query heads packed row-major by position, so row
 * r is query position r / group_size) are cut into tiles of block_q rows,
 * keys into tiles of block_k. */
typedef struct attnrt_plan_request {
  int32_t batch;        /* sequences, >= 1 */
  int32_t num_kv_heads; /* >= 1 */
  int32_t group_size;   /* query heads per KV head, >= 1 */
  const int32_t *seq_q; /* [batch] query lengths, >= 0 */
  const int32_t *seq_k; /* [batch] key lengths, >= 0 */
  int32_t block_q, block_k; /* >= 1 */
  /* Bottom-right causal: query position i sees keys j <= i + Sk - Sq, so
   * later query tiles read more key tiles (and plan cost follows). */
  int32_t causal;
  int32_t num_ctas;        /* thread blocks resident at once, >= 1 */
  int32_t max_splits;      /* most KV splits of one query tile, >= 1 */
  int32_t min_split_tiles; /* fewest key tiles in a split, >= 1 */
} attnrt_plan_request;

/* One thread block's work: key tiles [k_tile_begin, k_tile_end) of query
 * tile q_tile of (sequence, kv_head). With num_splits > 1 the kernel writes
 * a partial output and LSE to slot `partial` and a combine step merges the
 * splits; with num_splits == 1 it writes the output itself (partial = -1).
 * An empty key range (Sk = 0, or rows that see no key) still owns its
 * output rows. */
typedef struct attnrt_work_item {
  int32_t sequence, kv_head, q_tile;
  int32_t k_tile_begin, k_tile_end;
  int32_t split, num_splits;
  int32_t partial;
} attnrt_work_item;

/* What a plan holds. The workspace starts with num_items (int32), then, at
 * byte items_offset (ATTNRT_PLAN_ITEMS_OFFSET), the attnrt_work_items in
 * launch order: one thread block per item, longest first, so that the
 * GPU, starting blocks in index order as resident slots free up, schedules
 * them as LPT does on num_ctas blocks. Costs are in key tiles plus one per
 * item; max_cta_cost is the busiest of num_ctas blocks under that greedy
 * schedule (at most the mean load plus one item). */
typedef struct attnrt_plan_info {
  int32_t num_items;
  int32_t num_partials;   /* partial-output slots the combine step reads */
  int32_t max_num_splits; /* the most splits any query tile got */
  size_t items_offset;
  int64_t total_cost;
  int64_t max_cta_cost;   /* the busiest thread block's cost */
} attnrt_plan_info;

/* Fills `request` for launches of `artifact` (a split_kv artifact) with
 * `args`' batch and heads: num_kv_heads = num_q_heads / gqa_pack and
 * group_size = gqa_pack (the kernel's grid rows and packed heads), the
 * manifest's block_q and block_k, causal = 0, num_ctas = the kernel's
 * thread blocks resident at once on the current device (this reads the
 * device: ATTNRT_ERROR_NO_DEVICE without one), max_splits = 128 and
 * min_split_tiles = 1. seq_q and seq_k are left NULL for the caller, who
 * may change any field: the kernel splits the key tiles its mask shows in
 * the proportions the plan gives, so causal and the costs only steer the
 * balance, never the result. */
attnrt_status attnrt_plan_request_init(const attnrt_artifact *artifact,
                                       const attnrt_attention_args *args,
                                       attnrt_plan_request *request);

/* Workspace bytes enough for any plan of `request` (it depends on the
 * lengths, not their order). */
attnrt_status attnrt_plan_workspace_size(const attnrt_plan_request *request,
                                         size_t *bytes);

/* Plans `request` into `workspace` (8-byte aligned, workspace_size bytes).
 * Deterministic; allocates only host memory for the duration of the call. */
attnrt_status attnrt_plan(const attnrt_plan_request *request, void *workspace,
                          size_t workspace_size, attnrt_plan_info *info);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* ATTNC_RUNTIME_ATTNRT_PLAN_H */
