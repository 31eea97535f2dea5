//===- AttnAttrs.td - attn mask attributes -----------------*- tablegen -*-===//
//
// The mask family of attn.attention. Each mask is a typed attribute that
// implements MaskAttrInterface; its exact meaning is in MaskSemantics.h and
// docs/attn-dialect.md.
//
//===----------------------------------------------------------------------===//

#ifndef ATTN_ATTRS
#define ATTN_ATTRS

include "mlir/IR/AttrTypeBase.td"
include "AttnDialect.td"
include "MaskInterface.td"

class Attn_MaskAttr<string name, string attrMnemonic,
                    list<string> overridden = []>
    : AttrDef<Attn_Dialect, name, [
        DeclareAttrInterfaceMethods<Attn_MaskAttrInterface, overridden>]> {
  let mnemonic = attrMnemonic;
  let hasCustomAssemblyFormat = 1;
}

def Attn_CausalMaskAttr : Attn_MaskAttr<"CausalMask", "causal"> {
  let summary = "Causal mask: query i sees key j iff j <= i'.";
  let description = [{
    `#attn.causal` (bottom-right alignment, as FlashAttention-2/3) or
    `#attn.causal<top_left>`. With i' = i + Sk - Sq (bottom_right) or i' = i
    (top_left), query i sees key j iff j <= i'. With bottom_right alignment
    and Sq > Sk the first Sq - Sk rows see no key.
  }];
  let parameters = (ins "::attnc::mask::Alignment":$alignment);
}

def Attn_SlidingWindowMaskAttr
    : Attn_MaskAttr<"SlidingWindowMask", "sliding_window"> {
  let summary = "Sliding window: query i sees key j iff i' - left <= j <= i' + right.";
  let description = [{
    `#attn.sliding_window<left = 256, right = 0>` is a causal window of 257
    keys. An optional third entry `top_left` or `bottom_right` (the default)
    picks the alignment of i'.
  }];
  let parameters = (ins "int64_t":$left, "int64_t":$right,
                        "::attnc::mask::Alignment":$alignment);
  let genVerifyDecl = 1;
}

def Attn_PrefixLMMaskAttr : Attn_MaskAttr<"PrefixLMMask", "prefix_lm"> {
  let summary = "Prefix-LM: query i sees key j iff j < prefix or j <= i'.";
  let description = [{
    `#attn.prefix_lm<prefix = 128>`, with an optional `top_left` or
    `bottom_right` (the default) alignment entry.
  }];
  let parameters = (ins "int64_t":$prefix, "::attnc::mask::Alignment":$alignment);
  let genVerifyDecl = 1;
}

def Attn_DocumentMaskAttr : Attn_MaskAttr<"DocumentMask", "document",
                                          ["getOperandName"]> {
  let summary = "Document (packed sequence) mask, driven by an operand.";
  let description = [{
    `#attn.document<seq_ids>` reads the document id of every key position
    from the `seq_ids` operand ([B, Sk], i32); `#attn.document<cu_seqlens>`
    reads document start offsets from the `cu_seqlens` operand ([N + 1], i32,
    0 first and Sk last). A trailing `causal` also requires j <= i'. Query i
    stands at key position i' = i + Sk - Sq and sees key j iff both lie in the
    same document.
  }];
  let parameters = (ins "::attnc::mask::DocumentSource":$source,
                        "bool":$causal);
}

def Attn_BlockSparseMaskAttr
    : Attn_MaskAttr<"BlockSparseMask", "block_sparse", ["getOperandName"]> {
  let summary = "Block-sparse mask, driven by a block-mask operand.";
  let description = [{
    `#attn.block_sparse<block_q = 128, block_k = 128>`: query i sees key j
    iff block_mask[b, h, i / block_q, j / block_k] != 0. The `block_mask`
    operand is i8 with shape [B or 1, Hq or 1, ceil(Sq / block_q),
    ceil(Sk / block_k)].
  }];
  let parameters = (ins "int64_t":$blockQ, "int64_t":$blockK);
  let genVerifyDecl = 1;
}


def Attn_GpuKernelAttr : AttrDef<Attn_Dialect, "GpuKernel"> {
  let mnemonic = "gpu_kernel";
  let summary = "The GPU kernel configuration of one attention: chip and launch shape.";
  let description = [{
    `#attn.gpu_kernel<chip = "sm_90a", block_q = 128, block_k = 32, warps = 4,
    m_tiles = 2, stages = 2, q_in_smem = true>` names the target chip and the
    kernel's shape: `block_q` query rows per thread block (16 per m-tile,
    `m_tiles` m-tiles per warp, so block_q = 16 * m_tiles * warps), `block_k`
    keys per key tile (a multiple of 16), `stages` shared-memory stages of
    the K/V tile ring, and whether the Q tile is staged in shared memory
    (`q_in_smem`) instead of held in registers.

    Two optional parameters shape decode kernels (printed only when set):
    `gqa_pack = g` packs the g query heads of one KV head into the rows of
    a tile (row r is query head r mod g of the group at query position
    r / g, so K and V are read once per group; g must equal Hq / Hkv and
    divide block_q), and `split_kv = true` splits each tile's key range
    over a run-time number of thread blocks whose partial outputs and LSEs
    a combine kernel merges (flash-decoding). `key_warps = w` lets w warps
    share the same rows and split each key tile between them (block_q =
    16 * m_tiles * warps / key_warps); their states merge in shared memory
    at the end.

    `wgmma = true` (sm_90a, printed only when set) computes S = Q K^T and
    O += P V with Hopper's warpgroup MMA (`wgmma.mma_async`, PTX ISA
    "Asynchronous Warpgroup Level Matrix Multiply-Accumulate") instead of
    mma.sync: each warpgroup of 4 warps owns 64 query rows (m_tiles = 1),
    Q, K and V tiles sit in shared memory in the 128-byte swizzled layout
    the wgmma descriptors read (q_in_smem = true), and decode parameters
    (gqa_pack, key_warps, split_kv) are not used. The block has one more
    warpgroup, the producer, one lane of which loads the tiles by TMA into a
    ring of `stages` stages; it gives its registers to the consumers
    (`setmaxnreg`). `persistent = true` (with wgmma, printed only when set)
    makes the grid persistent: the runtime launches as many blocks as fit
    on the device at once (at most the work items), and block i runs work
    items (query tile, head, batch entry) i, i + blocks, ... in turn, the
    producer loading the next item's Q and K/V while the consumers finish
    the last; each head's last query tiles come first.

    `tma_loads = true` (sm_90a, without wgmma, printed only when set) loads
    the K and V tiles of the mma.sync kernel by TMA (`cp.async.bulk.tensor`)
    instead of cp.async: one thread issues each tile's boxes into a ring of
    `stages` 128-byte swizzled stages, completing on one mbarrier a stage,
    and the warps read them with ldmatrix at swizzled addresses. Q stays in
    registers (q_in_smem = false); the target decides which caches it
    supports (contiguous 16-bit keys and values).

    `ping_pong = false` (with wgmma, printed only when set; true by
    default) lets the consumer warpgroups of the wgmma kernel issue their
    GEMMs whenever they are ready, instead of taking turns at named
    barriers so that one's softmax runs while another's GEMMs hold the
    tensor cores (FlashAttention-3 turns the turns off for heads wider
    than 128).

    `wide_stores = true` (printed only when set) stores O 16 bytes a lane:
    the four lanes holding a row's columns trade their pairs with shuffles
    so that each stores 8 adjacent columns, where O's head base and row
    stride are multiples of 16 bytes (checked at run time; other layouts
    take the default 4-byte stores of two columns, as the MMA accumulators
    hold them). A quarter of the store instructions, for kernels whose
    epilogue holds up the next work item (sm_90a chooses it for the
    persistent grid). A kernel that spills with it is rebuilt without it
    before a smaller configuration is tried.

    `lazy_rescale = true` (with wgmma, printed only when set) keeps a row's
    maximum, the reference of its softmax weights, until a tile's scores
    pass it by more than 8 (log2 units), so that O is rescaled only in the
    tiles where a row of the warp moved its maximum (behind a warp-uniform
    branch) instead of every tile: the weights stay below 2^8 (with the
    relative precision of weights below 1 in f32 and P's bf16/f16), and the output and LSE are those of the usual
    update. sm_90a chooses it for head dims other than 128, where the H200
    measured it faster.

    `trim_keys = true` (with wgmma, printed only when set) lets each
    consumer warpgroup narrow its P V on a boundary tile to the half of
    the key tile its 64 rows can see: where every row of the warpgroup sees
    only keys of the first half (the first block_k / 32 * 16 keys) or only
    of the second, O += P V reads only their key steps (the other weights
    are 0). S = Q K^T stays whole (see docs/gpu.md). The test is
    per warpgroup and per tile, from the first and last rows' visible keys,
    so it applies to masks whose rows see one interval of keys that moves
    forward with the row (causal, sliding windows, prefix-LM, cu_seqlens
    documents); under other masks the kernel is unchanged.

    `staged_stores = true` (with wgmma, printed only when set) writes O
    through shared memory: each warp puts its 16 rows there (rows padded by
    16 bytes, so that the accumulators' 4-byte pairs land in distinct
    banks), then its lanes store whole rows 16 bytes at a time, where O's
    head base and row stride are multiples of 16 bytes (checked at run
    time; other layouts take the 4-byte stores). Instead of 4-byte stores
    or wide_stores' shuffles; the two exclude each other. The rows take
    16 * (2 Dv + 16) bytes a consumer warp after the rest of the shared
    memory. A kernel that spills with it is rebuilt without it.

    `q_buffers = 2` (with wgmma and persistent, printed only when not 1)
    gives the persistent kernel two Q tiles in shared memory, used by its
    work items in turn: the producer loads the next item's Q as soon as it
    has issued this item's loads, instead of once the consumers' last
    S = Q K^T has released the one Q tile. It takes a second Q tile (and two
    barriers) after the rest of the shared memory.

    `blocks_per_sm = n` (with wgmma, 0 to 8, printed only when not 0) sets
    the blocks a multiprocessor the kernel is built for: ptxas's launch
    bounds (`.minnctapersm n`, so a thread starts with 65536 / (threads * n)
    registers, and every instruction must fit them) and the setmaxnreg
    split between the producer and the consumers. 0 derives it: 2 for one
    consumer warpgroup whose shared memory fits a multiprocessor twice, 1
    otherwise. The target checks that n blocks fit a multiprocessor's
    threads and shared memory.

    `chain_items = true` (printed only when set) chains a persistent
    kernel's work items across the consumers' turns: in the turn of an
    item's last P V, each consumer warpgroup also issues the next item's
    first S = Q K^T (on the other Q tile, so it needs `q_buffers = 2`) and
    carries it, completed, into the next item, which skips its own first S
    and its turn. Without it both warpgroups end an item together, and the
    epilogue and the next item's start run with the tensor cores mostly
    idle. Where the next item has no key tile, or there is none, the last
    P V takes its turn alone. It needs wgmma, persistent, `q_buffers = 2`
    and two or more consumer warpgroups taking turns (`ping_pong`); the
    target refuses it with tile tests, without a mask, over pages, fp8
    caches, kv_lens, ragged batches and trim_keys. No target chooses it
    yet.

    `exp2_fma = n` (0 to 8, printed only when not 0) computes n of every 8
    softmax weights exp2(x) of a thread with FMA-pipe arithmetic (a
    round-to-nearest split x = j + f, a degree-3 polynomial for 2^f, relative
    error below 1e-4, and 2^j from the exponent bits) instead of the
    multi-function unit's `ex2.approx`, which runs at a sixteenth of the FMA
    rate and could limit kernels whose GEMMs are short (small heads,
    soft-capped scores, which also take a `tanh.approx` a score). On the H200
    every share tried was slower (bench/RESULTS.md, 2026-12-01): no target
    chooses it.

    `attn-choose-gpu-kernel` attaches it to an `attn.attention` (as the
    `attn.gpu_kernel` attribute) from the target's hooks; lit tests and
    users may set it by hand. `convert-attn-to-gpu` reads it, and the
    artifact manifest is written from it. Structural rules are checked here;
    what a chip supports is checked by the target (a compile error naming
    the chip and the parameter).
  }];
  let parameters = (ins StringRefParameter<"the target chip">:$chip,
                        "int64_t":$blockQ, "int64_t":$blockK,
                        "int64_t":$warps, "int64_t":$mTiles,
                        "int64_t":$stages, "bool":$qInSmem,
                        "int64_t":$gqaPack, "bool":$splitKv,
                        "int64_t":$keyWarps, "bool":$wgmma,
                        "bool":$persistent, "bool":$tmaLoads,
                        "int64_t":$exp2Fma, "bool":$pingPong,
                        "bool":$wideStores, "bool":$lazyRescale,
                        "bool":$trimKeys, "bool":$stagedStores,
                        "int64_t":$qBuffers, "int64_t":$blocksPerSm,
                        "bool":$chainItems);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Threads per block (32 per warp; with wgmma, a producer warpgroup of
    /// 4 more warps loads).
    int64_t getThreads() const {
      return 32 * getWarps() + (getWgmma() ? 128 : 0);
    }
  }];
}

#endif // ATTN_ATTRS
