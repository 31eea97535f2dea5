/*===- attnrt.h - the attnc runtime C API ------------------------*- C -*-===*\
|*                                                                            *|
|* Loads attnc artifacts (PTX + cubin + manifest) and launches their kernels  *|
|* on the caller's CUDA stream. Links no MLIR; opens libcuda at run time, so  *|
|* it builds and links on machines without a GPU and says so clearly there.   *|
|* A launch allocates nothing and synchronises nothing (CUDA-graph safe).     *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef ATTNC_RUNTIME_ATTNRT_H
#define ATTNC_RUNTIME_ATTNRT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Status codes; every failing call also sets a message (attnrt_last_error). */
typedef enum attnrt_status {
  ATTNRT_OK = 0,
  ATTNRT_ERROR_INVALID_ARGUMENT = 1, /* a launch does not match the manifest */
  ATTNRT_ERROR_BAD_ARTIFACT = 2,     /* unreadable or malformed artifact */
  ATTNRT_ERROR_NO_DRIVER = 3,        /* libcuda could not be opened */
  ATTNRT_ERROR_NO_DEVICE = 4,        /* no CUDA device / no current context */
  ATTNRT_ERROR_CUDA = 5              /* a CUDA driver call failed */
} attnrt_status;

/* Element types of q, k, v and o. */
typedef enum attnrt_dtype {
  ATTNRT_BF16 = 0,
  ATTNRT_F16 = 1,
  ATTNRT_F32 = 2
} attnrt_dtype;

typedef struct attnrt_artifact attnrt_artifact;

/* The message of the last failing call on this thread ("" if none). */
const char *attnrt_last_error(void);

/* Loads an artifact from a file or from memory. */
attnrt_status attnrt_artifact_load_file(const char *path,
                                        attnrt_artifact **out);
attnrt_status attnrt_artifact_load_memory(const void *data, size_t size,
                                          attnrt_artifact **out);
void attnrt_artifact_destroy(attnrt_artifact *artifact);

/* A manifest entry by key (e.g. "spec", "target", "kernel"); NULL if absent. */
const char *attnrt_artifact_get(const attnrt_artifact *artifact,
                                const char *key);

/* One attention launch. Pointers are device pointers, 16-byte aligned. q, k,
 * v, o are [B, H, S, D] views given by their strides in elements: the
 * innermost stride must be 1 and the others multiples of 8 (16 bytes), so a
 * dense tensor, PyTorch's [B, S, H, D].transpose(1, 2) and the packed
 * [tokens, H, D] layout (B = 1) all run in place; o must not overlap itself.
 * lse is [B, Hq, Sq] f32, dense. Optional operands are NULL when the
 * artifact does not read them. */
typedef struct attnrt_attention_args {
  attnrt_dtype dtype;
  int64_t batch, num_q_heads, num_kv_heads, seq_q, seq_k, head_dim,
      value_head_dim;
  const void *q;
  const void *k;
  const void *v;
  void *o;
  float *lse;
  int64_t q_strides[4], k_strides[4], v_strides[4], o_strides[4];
  const int32_t *seq_ids;    /* [B, Sk] */
  const int32_t *cu_seqlens; /* [num_cu_seqlens] */
  int64_t num_cu_seqlens;
  const uint8_t *block_mask; /* [block_mask_b, block_mask_h, nq, nk] */
  int64_t block_mask_b, block_mask_h;
  const float *alibi_slopes; /* [Hq] */
  /* Split-KV (artifacts with split_kv = 1, the decode kernels): the number
   * of thread blocks a query tile's key range is split over, merged by a
   * combine kernel; 0 lets the runtime choose it from the batch, the
   * lengths, the kernel's occupancy and the device's SM count. It must be 0
   * or 1 for other artifacts. With more than one split the launch needs
   * caller-owned device scratch of attnrt_scratch_size bytes (16-byte
   * aligned); otherwise scratch is ignored and may be NULL. */
  int64_t num_splits;
  void *scratch;
  size_t scratch_bytes;
  /* KV caches. kv_lens [B] (artifacts with reads_kv_lens = 1): the keys of
   * each sequence, clamped to [0, seq_k]. page_table [B, max_pages] (int32,
   * artifacts with page_size > 0): k and v are then pages [num_pages,
   * page_size, Hkv, D] given by k_strides/v_strides as {page, head, row in
   * page, 1}; key j of sequence b is row j mod page_size of page
   * page_table[b][j / page_size]; seq_k must be max_pages * page_size. Page
   * ids outside [0, num_pages) are clamped (a wrong page, never outside the
   * buffers). Zero and NULL for other artifacts. */
  const int32_t *kv_lens;
  const int32_t *page_table;
  int64_t max_pages, num_pages;
  /* An fp8 cache (artifacts with reads_kv_scales = 1): k and v hold float8
   * e4m3fn codes (one byte each; strides in elements, multiples of 16 except
   * for dimensions of size 1), and kv_scales [2, Hkv] (f32) their scales:
   * key code x of KV head h stands for x * kv_scales[h], value code x for
   * x * kv_scales[Hkv + h]. NULL for other artifacts. */
  const float *kv_scales;
  /* A ragged batch (artifacts with reads_cu_seqlens_q = 1): batch is the
   * number of sequences N; q and o hold seq_q packed rows (a [tokens, H, D]
   * tensor: B = 1, any batch stride) and sequence n the rows
   * [cu_seqlens_q[n], cu_seqlens_q[n + 1]) (int32 [N + 1], device memory;
   * offsets clamped into [0, seq_q], an end below its start is an empty
   * sequence); lse is [1, Hq, seq_q]. Its keys: with reads_cu_seqlens_k = 1
   * packed the same way in k and v (seq_k rows) by cu_seqlens_k, otherwise
   * in a cache of N sequences (kv_lens, page_table). max_seqlen_q sizes the
   * grid: at least the longest sequence's query rows (rows past it are not
   * computed), at most seq_q; 0 means seq_q. NULL and 0 for other
   * artifacts. */
  const int32_t *cu_seqlens_q;
  const int32_t *cu_seqlens_k;
  int64_t max_seqlen_q;
  /* A work list (split_kv artifacts; attnrt_plan.h): plan is a device copy
   * (8-byte aligned) of an attnrt_plan workspace planned for this artifact
   * (attnrt_plan_request_init) and this batch; the kernels then run one
   * thread block per item instead of one per (query tile, split).
   * plan_items, at least the plan's num_items, sizes their grids (blocks
   * past the plan's items do nothing), and plan_partials, at least its
   * num_partials, the scratch: upper bounds let a captured CUDA graph
   * replay plans of other lengths. num_splits must be 0. NULL and 0
   * without a plan. */
  const void *plan;
  int64_t plan_items, plan_partials;
} attnrt_attention_args;

/* Checks a launch against the manifest (shapes, strides, dtype, alignment,
 * null pointers, operand presence) without touching the GPU. */
attnrt_status attnrt_validate(const attnrt_artifact *artifact,
                              const attnrt_attention_args *args);

/* Scratch bytes a launch needs (owned by the caller): 0 unless the launch
 * splits the key range (split_kv artifacts), then num_splits * batch *
 * num_q_heads * seq_q * (value_head_dim + 1) * 4. With num_splits = 0 the
 * split count is the one attnrt_launch will choose, which reads the current
 * device (ATTNRT_ERROR_NO_DEVICE without one). With a plan: plan_partials *
 * block_q * (value_head_dim + 1) * 4 (block_q of the manifest). */
attnrt_status attnrt_scratch_size(const attnrt_artifact *artifact,
                                  const attnrt_attention_args *args,
                                  size_t *bytes);

/* The number of key splits a launch with these args uses (num_splits, or
 * the runtime's choice when it is 0: this reads the current device); 1
 * with a plan, whose items carry their own splits. */
attnrt_status attnrt_num_splits(const attnrt_artifact *artifact,
                                const attnrt_attention_args *args,
                                int64_t *splits);

/* Validates, then launches on `stream` (a CUstream; NULL = default stream)
 * in the caller's current CUDA context. Loads the module on first use. */
attnrt_status attnrt_launch(attnrt_artifact *artifact,
                            const attnrt_attention_args *args, void *stream);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* ATTNC_RUNTIME_ATTNRT_H */
