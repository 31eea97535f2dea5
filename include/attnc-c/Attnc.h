/*===- Attnc.h - attnc's C API -------------------------------------*- C -*-===*\
|*                                                                            *|
|* For hosts that are not C++: the attn dialect in MLIR's C-API style        *|
|* (register it on an MlirContext, then parse or build attn IR with the      *|
|* MLIR C API), and spec-to-artifact compilation in one call.                *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef ATTNC_C_ATTNC_H
#define ATTNC_C_ATTNC_H

#include "mlir-c/IR.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* mlirGetDialectHandle__attn__(): the attn dialect, for
 * mlirDialectHandleRegisterDialect / mlirDialectHandleLoadDialect. */
MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(Attn, attn);

/* Compiles the attention a spec describes ("b=1 hq=8 hkv=2 sq=128 d=64
 * dtype=bf16 mask=causal", docs/attnc-run.md) for `target` ("sm_80" or
 * "sm_90a") and writes the artifact (PTX, cubin, manifest; docs/runtime.md)
 * to `output_path`. Returns 0 on success; otherwise non-zero with a message
 * (truncated to fit, NUL-terminated) in `error` when `error_size` > 0. Needs
 * the CUDA toolkit (CUDA_ROOT) for PTX and the cubin. */
MLIR_CAPI_EXPORTED int attncCompileSpecToArtifact(const char *spec,
                                                  const char *target,
                                                  const char *output_path,
                                                  char *error,
                                                  size_t error_size);

/*===-- Mask attributes ---------------------------------------------------===*
 * Builders for the attn mask attributes (docs/attn-dialect.md), to put on an
 * attn.attention built with the MLIR C API. `top_left` picks the alignment
 * of query row i (i' = i) instead of bottom_right (i' = i + Sk - Sq). A
 * builder whose parameters the attribute's verifier refuses (a negative
 * window, a block size that is not positive, ...) emits the verifier's
 * message as an error diagnostic on `ctx` and returns a null attribute
 * (mlirAttributeIsNull). */

/* #attn.causal or #attn.causal<top_left>. */
MLIR_CAPI_EXPORTED MlirAttribute attncCausalMaskAttrGet(MlirContext ctx,
                                                        bool top_left);
/* #attn.sliding_window<left = L, right = R[, top_left]>. */
MLIR_CAPI_EXPORTED MlirAttribute attncSlidingWindowMaskAttrGet(
    MlirContext ctx, int64_t left, int64_t right, bool top_left);
/* #attn.prefix_lm<prefix = P[, top_left]>. */
MLIR_CAPI_EXPORTED MlirAttribute attncPrefixLMMaskAttrGet(MlirContext ctx,
                                                          int64_t prefix,
                                                          bool top_left);
/* #attn.document<seq_ids> or #attn.document<cu_seqlens>, with a trailing
 * causal when `causal`. */
MLIR_CAPI_EXPORTED MlirAttribute attncDocumentMaskAttrGet(MlirContext ctx,
                                                          bool cu_seqlens,
                                                          bool causal);
/* #attn.block_sparse<block_q = BQ, block_k = BK>. */
MLIR_CAPI_EXPORTED MlirAttribute
attncBlockSparseMaskAttrGet(MlirContext ctx, int64_t block_q, int64_t block_k);

/* True when `attr` is an attn mask attribute. */
MLIR_CAPI_EXPORTED bool attncAttributeIsAMask(MlirAttribute attr);

/* The element-wise meaning of a structured mask (causal, sliding window,
 * prefix-LM): 1 when query row q sees key k for sequence lengths sq and sk,
 * 0 when it does not, -1 when `attr` is not a mask, the mask reads an
 * operand (document, block-sparse) or q, k lie outside [0, sq) x [0, sk). */
MLIR_CAPI_EXPORTED int attncMaskIsVisible(MlirAttribute attr, int64_t q,
                                          int64_t k, int64_t sq, int64_t sk);

/*===-- The attention op ---------------------------------------------------===*
 * Creates an attn.attention over q [B, Hq, Sq, D], k [B, Hkv, Sk, D] and
 * v [B, Hkv, Sk, Dv] (ranked tensors; docs/attn-dialect.md), not inserted
 * anywhere (put it in a block with mlirBlockInsertOwnedOperationBefore). The
 * output is [B, Hq, Sq, Dv] in q's element type; with `return_lse` a second
 * result [B, Hq, Sq] f32 holds the log-sum-exp of every row. `mask` may be
 * null (no mask); a document or block-sparse mask reads `mask_operand`
 * (seq_ids or cu_seqlens, or block_mask), which is null otherwise. The scale
 * is 1/sqrt(D) unless `has_scale`. An op the verifier refuses is destroyed:
 * the result is null and the message an error diagnostic on the context. */
MLIR_CAPI_EXPORTED MlirOperation attncAttentionOpCreate(
    MlirLocation loc, MlirValue q, MlirValue k, MlirValue v,
    MlirAttribute mask, MlirValue mask_operand, bool has_scale, float scale,
    bool return_lse);

/* The optional parts of an attn.attention, for
 * attncAttentionOpCreateWithOptions. Zero-initialise it (every part off),
 * then set what applies:
 * - `scale` when `has_scale` (else 1/sqrt(D)); `softcap` when `has_softcap`
 *   (s -> softcap * tanh(s / softcap));
 * - ALiBi: `num_alibi_slopes` slopes (one per query head) at `alibi_slopes`
 *   as an attribute, or `alibi_slopes_operand`, an [Hq] f32 value (not both);
 * - the KV cache (docs/serving.md): `kv_lens` [B] i32 (per-sequence key
 *   lengths), `page_table` [B, max_pages] i32 (K and V are then pages
 *   [num_pages, page_size, Hkv, D]), `kv_scales` [2, Hkv] f32 (K and V in
 *   float8 e4m3 with per-head scales); null values when absent;
 * - `decode`: the op is a decode step (attn.decode: GPU targets choose
 *   the decode kernel); `return_lse`: the log-sum-exp result;
 * - a ragged batch (docs/serving.md): `cu_seqlens_q` [N + 1] i32 (q is then
 *   [1, Hq, Tq, D], N sequences packed along Tq) with `cu_seqlens_k`
 *   [N + 1] i32 (packed keys) or `kv_lens` (a cache of N sequences); null
 *   values when absent. */
typedef struct {
  bool has_scale;
  float scale;
  bool has_softcap;
  float softcap;
  const float *alibi_slopes;
  intptr_t num_alibi_slopes;
  MlirValue alibi_slopes_operand;
  MlirValue kv_lens;
  MlirValue page_table;
  MlirValue kv_scales;
  bool decode;
  bool return_lse;
  MlirValue cu_seqlens_q;
  MlirValue cu_seqlens_k;
} AttncAttentionOptions;

/* attncAttentionOpCreate with the parts of `options` (null: none of them).
 * An op the verifier refuses is destroyed: the result is null and the
 * message an error diagnostic on the context. */
MLIR_CAPI_EXPORTED MlirOperation attncAttentionOpCreateWithOptions(
    MlirLocation loc, MlirValue q, MlirValue k, MlirValue v,
    MlirAttribute mask, MlirValue mask_operand,
    const AttncAttentionOptions *options);

/*===-- Compiling a module ------------------------------------------------===*
 * Compiles the one attn.attention of `module` (built with the functions
 * above or parsed) for `target` ("sm_80", "sm_90a") and writes the artifact
 * to `output_path`, like `attnc compile in.mlir --target=... -o ...`: the
 * manifest's default problem takes the op's static sizes, and b = 1 and
 * sq = sk = 128 where they are dynamic. The caller's module is not changed
 * (a copy is compiled). Returns 0, or non-zero with the message (the
 * compiler's diagnostics included) in `error` (`error_size` bytes, always
 * NUL-terminated). */
MLIR_CAPI_EXPORTED int attncCompileModuleToArtifact(MlirModule module,
                                                    const char *target,
                                                    const char *output_path,
                                                    char *error,
                                                    size_t error_size);

#ifdef __cplusplus
}
#endif

#endif /* ATTNC_C_ATTNC_H */
