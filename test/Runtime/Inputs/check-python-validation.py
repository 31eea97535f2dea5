"""The Python wrapper's argument checks, without a GPU or torch.

A stand-in tensor class carries what the checks read (dtype, device, shape,
stride()); each case breaks one thing and must raise AttncError naming the
argument; the well-formed call must pass. Prints one line per case.
"""
import sys

sys.path.insert(0, sys.argv[1])
import attnc  # noqa: E402


class Device:
    def __init__(self, type_, index=0):
        self.type, self.index = type_, index

    def __eq__(self, other):
        return (self.type, self.index) == (other.type, other.index)

    def __repr__(self):
        return f"{self.type}:{self.index}"


class Dtype:
    def __init__(self, name):
        self.name = name

    def __eq__(self, other):
        return self.name == other.name

    def __str__(self):
        return self.name

    __repr__ = __str__


BF16, F16, F32, I32, I64, U8 = (Dtype("torch." + n) for n in
                                ("bfloat16", "float16", "float32", "int32", "int64", "uint8"))


class T:
    """A stand-in tensor: dense unless `strides` is given."""

    def __init__(self, shape, dtype=BF16, device=Device("cuda"), strides=None):
        self.shape, self.dtype, self.device = tuple(shape), dtype, device
        if strides is None:
            strides, acc = [], 1
            for n in reversed(shape):
                strides.insert(0, acc)
                acc *= n
        self._strides = tuple(strides)

    def stride(self):
        return self._strides


MANIFEST = {"dtype": "bf16", "num_q_heads": "8", "num_kv_heads": "2", "head_dim": "64",
            "value_head_dim": "64", "reads_lse": "1", "reads_seq_ids": "0",
            "reads_cu_seqlens": "0", "reads_block_mask": "1", "reads_alibi_slopes": "0",
            "mask_block_q": "64", "mask_block_k": "64"}


def good():
    return dict(q=T((2, 8, 100, 64)), k=T((2, 2, 120, 64)), v=T((2, 2, 120, 64)),
                out=T((2, 8, 100, 64)), lse=T((2, 8, 100), F32),
                block_mask=T((1, 8, 2, 2), U8))


def check(manifest, args, name, changes):
    """validate_arguments on `args` with `changes`; prints the outcome."""
    args.update(changes)
    try:
        attnc.validate_arguments(manifest, **args)
        print(f"{name}: ok")
    except attnc.AttncError as e:
        print(f"{name}: AttncError: {e}")


def run(name, **changes):
    check(MANIFEST, good(), name, changes)


run("valid")
run("bshd views", q=T((2, 8, 100, 64), strides=(51200, 64, 512, 1)))
run("f16 given to a bf16 kernel", q=T((2, 8, 100, 64), F16))
run("k of another dtype", k=T((2, 2, 120, 64), F16))
run("out of another dtype", out=T((2, 8, 100, 64), F32))
run("q on the CPU", q=T((2, 8, 100, 64), device=Device("cpu")))
run("v on another GPU", v=T((2, 2, 120, 64), device=Device("cuda", 1)))
run("k with another batch", k=T((3, 2, 120, 64)))
run("v with another length", v=T((2, 2, 121, 64)))
run("wrong head count", q=T((2, 4, 100, 64)))
run("out of the wrong shape", out=T((2, 8, 99, 64)))
run("lse as bf16", lse=T((2, 8, 100)))
run("lse strided", lse=T((2, 8, 100), F32, strides=(1600, 200, 2)))
run("block mask missing", block_mask=None)
run("block mask of the wrong shape", block_mask=T((1, 8, 3, 2), U8))
run("block mask of int64", block_mask=T((1, 8, 2, 2), I64))
run("seq_ids the artifact does not read", seq_ids=T((2, 120), I32))
run("lse left to the call", lse=None)
run("kv_lens the artifact does not read", kv_lens=T((2,), I32))
run("page_table the artifact does not read", page_table=T((2, 8), I32))

# A paged cache: pages [num_pages, page_size, Hkv, D], page_table [B, max_pages],
# kv_lens [B].
PAGED = dict(MANIFEST, reads_block_mask="0", reads_kv_lens="1", page_size="16")


def paged():
    return dict(q=T((2, 8, 1, 64)), k=T((9, 16, 2, 64)), v=T((9, 16, 2, 64)),
                lse=T((2, 8, 1), F32), kv_lens=T((2,), I32), page_table=T((2, 4), I32))


def run_paged(name, **changes):
    check(PAGED, paged(), name, changes)


run_paged("paged valid")
run_paged("paged without kv_lens", kv_lens=None)
run_paged("kv_lens as int64", kv_lens=T((2,), I64))
run_paged("kv_lens of the wrong batch", kv_lens=T((3,), I32))
run_paged("paged without page_table", page_table=None)
run_paged("page_table as int64", page_table=T((2, 4), I64))
run_paged("page_table of the wrong batch", page_table=T((3, 4), I32))
run_paged("page_table of rank 1", page_table=T((8,), I32))
run_paged("page_table on the CPU", page_table=T((2, 4), I32, device=Device("cpu")))
run_paged("pages of another size", k=T((9, 8, 2, 64)))
run_paged("v pages not k's", v=T((10, 16, 2, 64)))
run_paged("dense k given to a paged artifact", k=T((2, 2, 64, 64)), v=T((2, 2, 64, 64)))

# An fp8 cache: k and v are float8 e4m3fn codes, kv_scales float32 [2, Hkv].
FP8 = dict(PAGED, reads_kv_scales="1")
E4M3 = Dtype("torch.float8_e4m3fn")


def run_fp8(name, **changes):
    args = paged()
    args.update(k=T((9, 16, 2, 64), E4M3), v=T((9, 16, 2, 64), E4M3), kv_scales=T((2, 2), F32))
    check(FP8, args, name, changes)


run_fp8("fp8 valid")
run_fp8("fp8 k given as bf16", k=T((9, 16, 2, 64)))
run_fp8("fp8 without kv_scales", kv_scales=None)
run_fp8("kv_scales of the wrong shape", kv_scales=T((2, 8), F32))
run_fp8("kv_scales as bf16", kv_scales=T((2, 2)))
run_paged("kv_scales the artifact does not read", kv_scales=T((2, 2), F32))

# Ragged batches are refused by an artifact that does not take one.
run("cu_seqlens_q the artifact does not read", cu_seqlens_q=T((3,), I32))
run("cu_seqlens_k the artifact does not read", cu_seqlens_k=T((3,), I32))
run("max_seqlen_q given to a non-ragged artifact", max_seqlen_q=64)

# A ragged batch of N = 3 sequences with packed keys: q [Tq, Hq, D],
# k and v [Tk, Hkv, D], cu_seqlens_q/k int32 [N + 1], out [Tq, Hq, Dv],
# lse [Hq, Tq].
RAGGED = dict(MANIFEST, reads_block_mask="0", reads_cu_seqlens_q="1", reads_cu_seqlens_k="1")


def ragged():
    return dict(q=T((300, 8, 64)), k=T((360, 2, 64)), v=T((360, 2, 64)),
                out=T((300, 8, 64)), lse=T((8, 300), F32), cu_seqlens_q=T((4,), I32),
                cu_seqlens_k=T((4,), I32), max_seqlen_q=128)


def run_ragged(name, **changes):
    check(RAGGED, ragged(), name, changes)


run_ragged("ragged valid")
# q, k and v as views of one packed qkv tensor [T, Hq + 2 Hkv, D].
run_ragged("ragged qkv views", q=T((300, 8, 64), strides=(768, 64, 1)),
           k=T((300, 2, 64), strides=(768, 64, 1)), v=T((300, 2, 64), strides=(768, 64, 1)))
run_ragged("ragged outputs left to the call, max_seqlen_q 0", out=None, lse=None,
           max_seqlen_q=0)
run_ragged("ragged q of rank 4", q=T((1, 8, 300, 64)))
run_ragged("packed k of rank 4", k=T((1, 2, 360, 64)))
run_ragged("packed v of rank 4", v=T((1, 2, 360, 64)))
run_ragged("ragged without cu_seqlens_q", cu_seqlens_q=None)
run_ragged("packed keys without cu_seqlens_k", cu_seqlens_k=None)
run_ragged("cu_seqlens_q as int64", cu_seqlens_q=T((4,), I64))
run_ragged("cu_seqlens_k as int64", cu_seqlens_k=T((4,), I64))
run_ragged("cu_seqlens_q of rank 2", cu_seqlens_q=T((1, 4), I32))
run_ragged("cu_seqlens_q of one entry", cu_seqlens_q=T((1,), I32), cu_seqlens_k=T((1,), I32))
run_ragged("cu_seqlens_q strided", cu_seqlens_q=T((4,), I32, strides=(2,)))
run_ragged("cu_seqlens_q on the CPU", cu_seqlens_q=T((4,), I32, device=Device("cpu")))
run_ragged("cu_seqlens_k on another GPU", cu_seqlens_k=T((4,), I32, device=Device("cuda", 1)))
run_ragged("cu_seqlens_k of another length", cu_seqlens_k=T((5,), I32))
run_ragged("ragged wrong head count", q=T((300, 4, 64)))
run_ragged("ragged wrong head dim", q=T((300, 8, 128)))
run_ragged("packed k of another head count", k=T((360, 4, 64)))
run_ragged("packed k of another head dim", k=T((360, 2, 32)))
run_ragged("packed v not k's rows", v=T((359, 2, 64)))
run_ragged("ragged out of the wrong shape", out=T((299, 8, 64)))
run_ragged("ragged out as [B, Hq, Sq, Dv]", out=T((1, 8, 300, 64)))
run_ragged("ragged lse as [1, Hq, Tq]", lse=T((1, 8, 300), F32))
run_ragged("max_seqlen_q past Tq", max_seqlen_q=301)
run_ragged("max_seqlen_q negative", max_seqlen_q=-1)
run_ragged("max_seqlen_q as a float", max_seqlen_q=128.0)
run_ragged("kv_lens given to packed keys", kv_lens=T((3,), I32))

# A ragged batch over a paged cache of its N = 3 sequences: kv_lens [N],
# page_table [N, max_pages], no cu_seqlens_k.
RAGGED_PAGED = dict(MANIFEST, reads_block_mask="0", reads_cu_seqlens_q="1", reads_kv_lens="1",
                    page_size="16")


def run_ragged_paged(name, **changes):
    args = dict(q=T((300, 8, 64)), k=T((9, 16, 2, 64)), v=T((9, 16, 2, 64)),
                lse=T((8, 300), F32), kv_lens=T((3,), I32), page_table=T((3, 4), I32),
                cu_seqlens_q=T((4,), I32), max_seqlen_q=128)
    check(RAGGED_PAGED, args, name, changes)


run_ragged_paged("ragged paged valid")
run_ragged_paged("ragged cache given cu_seqlens_k", cu_seqlens_k=T((4,), I32))
run_ragged_paged("ragged kv_lens of another batch", kv_lens=T((2,), I32))
run_ragged_paged("ragged page_table of another batch", page_table=T((2, 4), I32))
run_ragged_paged("ragged cache given packed keys", k=T((144, 2, 64)), v=T((144, 2, 64)))

# A ragged batch over a contiguous cache [N, Hkv, Sk, D].
RAGGED_CACHE = dict(MANIFEST, reads_block_mask="0", reads_cu_seqlens_q="1", reads_kv_lens="1")


def run_ragged_cache(name, **changes):
    args = dict(q=T((300, 8, 64)), k=T((3, 2, 120, 64)), v=T((3, 2, 120, 64)),
                lse=T((8, 300), F32), kv_lens=T((3,), I32), cu_seqlens_q=T((4,), I32))
    check(RAGGED_CACHE, args, name, changes)


run_ragged_cache("ragged cache valid")
run_ragged_cache("ragged cache of another batch", k=T((2, 2, 120, 64)), v=T((2, 2, 120, 64)))

# A work list (Kernel.plan) on a split_kv artifact; a stand-in WorkList with
# the attributes the checks read (its batch and device buffer).
DECODE = dict(MANIFEST, reads_block_mask="0", split_kv="1", gqa_pack="4")


def work_list(batch=2, device=Device("cuda")):
    w = object.__new__(attnc.WorkList)
    w.batch, w.buffer = batch, T((1024,), U8, device=device)
    return w


def run_plan(name, manifest=DECODE, **changes):
    args = dict(q=T((2, 8, 1, 64)), k=T((2, 2, 120, 64)), v=T((2, 2, 120, 64)),
                lse=T((2, 8, 1), F32), plan=work_list())
    check(manifest, args, name, changes)


run_plan("plan valid")
run_plan("plan on a kernel without split_kv", manifest=dict(DECODE, split_kv="0"))
run_plan("plan that is not a WorkList", plan=object())
run_plan("plan with num_splits", num_splits=4)
run_plan("plan on another GPU", plan=work_list(device=Device("cuda", 1)))
run_plan("plan of another batch", plan=work_list(batch=3))

# Which manifests make a call ask attnrt_scratch_size for scratch.
for name, manifest in [("plain", {"split_kv": "0", "tail_splits": "0"}),
                       ("older artifact", {"split_kv": "0"}),
                       ("split_kv", {"split_kv": "1"}),
                       ("tail splits", {"split_kv": "0", "tail_splits": "1"}),
                       ("short kernel", {"split_kv": "0", "tail_splits": "0",
                                         "short_kernel_max_seq": "1024"}),
                       ("no short kernel", {"split_kv": "0", "short_kernel_max_seq": "0"})]:
    print(f"needs scratch, {name}: {attnc.needs_scratch(manifest)}")
