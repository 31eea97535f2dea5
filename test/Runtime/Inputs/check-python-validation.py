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
