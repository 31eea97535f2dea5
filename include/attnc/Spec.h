//===- Spec.h - one-line attention specs ------------------------*- C++ -*-===//
//
// An attention case described without IR, as attnc-run and attnc take it:
//   "b=2 hq=8 hkv=2 sq=1000 sk=1000 d=64 dtype=bf16 mask=causal softcap=30"
// Plain C++ (no MLIR): the runtime and its runner use it too.
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_SPEC_H
#define ATTNC_SPEC_H

#include "attnc/Mask/MaskSemantics.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace attnc {

/// The largest sizes a spec accepts: the runtime's grid limits (65535 batch
/// entries and heads), positions below 2^31, head dims up to 65536.
inline constexpr int64_t kMaxBatch = 65535;
inline constexpr int64_t kMaxHeads = 65535;
inline constexpr int64_t kMaxSeqLen = 2147483647;
inline constexpr int64_t kMaxHeadDim = 65536;

/// Element types of attention inputs.
enum class ElementType { BF16, F16, F32 };

/// "bf16", "f16" or "f32".
const char *elementTypeName(ElementType t);

/// A complete attention case. Keys of the spec text and their defaults:
///   b=1 hq=1 hkv=<hq> sq=<required unless a document mask gives it>
///   sk=<sq> d=64 dv=<d> dtype=bf16 scale=<1/sqrt(d)> mask=none
///   softcap=<off> alibi=<off; "alibi" or "alibi=1" turns it on> lse=1
/// mask: none | causal[:top_left|:bottom_right]
///     | window:LEFT,RIGHT[:top_left|:bottom_right]
///     | prefix:N[:top_left|:bottom_right]
///     | document:LEN,LEN,...[:causal]   (sq = sk = sum of LEN, cu_seqlens)
///     | blocksparse:BQ,BK,DENSITY        (seeded random block mask)
struct AttentionSpec {
  int64_t b = 1, hq = 1, hkv = 1, sq = 0, sk = 0, d = 64, dv = 64;
  ElementType dtype = ElementType::BF16;
  std::optional<double> scale;
  mask::MaskSpec mask;
  /// Document lengths of a document mask, packed in order.
  std::vector<int64_t> documentLengths;
  /// Fraction of visible blocks of a block-sparse mask.
  double blockDensity = 0.5;
  /// A block-sparse mask's grid per batch entry (per sequence of a ragged
  /// batch) and per query head (`block_mask=b`, `h` or `bh`: block_mask
  /// [b, hq, ., .] with different random blocks in each), else one grid
  /// shared by all (`block_mask=1`, the default).
  bool blockMaskPerBatch = false, blockMaskPerHead = false;
  std::optional<double> softcap;
  /// ALiBi with the standard slopes 2^(-8 (h + 1) / hq).
  bool alibi = false;
  /// Whether the log-sum-exp is produced.
  bool lse = true;
  /// A decode step (`decode=1`): GPU targets compile the decode kernel
  /// (query heads of a KV group packed into a tile, key range split over
  /// thread blocks), fast for a query length of a few rows, correct for any.
  bool decode = false;
  /// Per-sequence KV lengths (`kv_lens=1`): a kv_lens [B] i32 operand; batch
  /// entry b has only its first kv_lens[b] keys (a padded KV cache). The
  /// harness draws the lengths from the seed (the first sequence full, the
  /// second of one key, one empty when B >= 4).
  bool kvLens = false;
  /// A paged KV cache (`paged=P`, page size P, implies kv_lens): key and
  /// value are pages [num_pages, P, Hkv, D] found through a page table
  /// [B, sk / P]; sk must be a multiple of P. The harness scatters the keys
  /// into shuffled pages, the third sequence sharing the first one's first
  /// page, with one page that no sequence uses.
  int64_t pageSize = 0;
  /// An fp8 e4m3 KV cache (`kv_dtype=fp8`): key and value in float8 e4m3fn
  /// with per-head scales (a kv_scales [2, Hkv] f32 operand). The harness
  /// quantises the generated keys and values with the scale max|x| / 448 of
  /// each head; the reference sees the dequantised values.
  bool kvFp8 = false;
  /// A ragged batch (`ragged=1`, or `ragged=Q:K,Q:K,...` with each
  /// sequence's query and key lengths): the b sequences' query rows are
  /// packed into one [Tq, Hq, D] tensor with cu_seqlens_q offsets, and their
  /// keys likewise with cu_seqlens_k, or (with kv_lens=1 or paged=P) held in
  /// a cache of b sequences whose kv_lens are the key lengths. sq and sk are
  /// the longest lengths (with a list they default to its maxima). Lengths
  /// drawn from the seed follow kv_lens=1 for the keys, and each sequence
  /// has ceil(K * sq / sk) query rows.
  bool ragged = false;
  std::vector<std::pair<int64_t, int64_t>> raggedLengths;

  /// The scale in effect: `scale` or 1/sqrt(d).
  double effectiveScale() const;
};

/// Parses spec text into `spec`. Returns false with a message naming the
/// offending key and value in `error`.
///
/// Tokens are separated by white space; each is KEY=VALUE or the bare word
/// `alibi`. Parsing starts from the defaults above, and `spec` is assigned
/// only on success (it is left untouched on failure). A key given twice is
/// an error ("duplicate key 'sq'"); `alibi alibi=0` counts as a duplicate.
/// Sizes must be positive integers, scale and softcap finite and positive,
/// alibi and lse 0 or 1, and hq a multiple of hkv. Document lengths may be 0
/// (empty documents) but must sum to a positive total; a document mask sets
/// sq = sk = that total, and an sq or sk given as well must equal it.
bool parseSpec(const std::string &text, AttentionSpec &spec,
               std::string &error);

/// Parses the --sizes text of attnc and attnc-run (the sizes of an IR's
/// dynamic dims) into `sizes`: spec syntax with sq optional; b, sq and sk
/// that the text does not give are 0 (not given). Empty text gives the
/// default spec with b = sq = sk = 0. `sizes` is assigned only on success;
/// the error is parseSpec's.
bool parseSizes(const std::string &text, AttentionSpec &sizes,
                std::string &error);

/// Prints a spec in the canonical form parseSpec reads back: every size
/// (b hq hkv sq sk d dv), dtype, scale only when set, mask (the alignment only
/// when top_left), softcap only when set, `alibi` when on, and lse. Doubles
/// use the shortest decimal text that reads back exactly. A Custom mask prints
/// as `mask=custom`, which parseSpec rejects (custom masks live in IR).
std::string printSpec(const AttentionSpec &spec);

/// The standard ALiBi slopes for `heads` heads: 2^(-8 (h + 1) / heads).
std::vector<double> standardAlibiSlopes(int64_t heads);

} // namespace attnc

#endif // ATTNC_SPEC_H
