"""One decode launch per case for a profiler (ncu) to capture:
python3 bench/decode_profile.py BUILD_GPU_DIR [B:Sk ...] (Hq=32, Hkv=8,
D=128, bf16; artifact $ARTIFACT, default bench_decode_d128_none; an
artifact whose name holds "fp8" gets fp8 e4m3 keys and values with unit
scales, one whose name holds "paged16" pages of 16 rows in a shuffled order
with kv_lens, as in bench/decode_bench.py). With PEERS=1 each case also
launches cuDNN's SDPA once on the same bf16 tensors (before any fp8 or page
conversion), to profile side by side. Checks nothing; run
bench/decode_bench.py for checked timings."""
import os
import sys

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import attnc  # noqa: E402

build = sys.argv[1]
name = os.environ.get("ARTIFACT", "bench_decode_d128_none")
kern = attnc.Kernel(os.path.join(build, "artifacts", name + ".attnc"))
for case in sys.argv[2:] or ["1:131072"]:
    B, Sk = (int(x) for x in case.split(":"))
    q = torch.randn(B, 32, 1, 128, device="cuda", dtype=torch.bfloat16)
    k = torch.randn(B, 8, Sk, 128, device="cuda", dtype=torch.bfloat16)
    v = torch.randn(B, 8, Sk, 128, device="cuda", dtype=torch.bfloat16)
    if os.environ.get("PEERS") == "1":
        with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
            F.scaled_dot_product_attention(q, k, v, enable_gqa=True)
        torch.cuda.synchronize()
    extra = {}
    if "fp8" in name:
        k, v = k.to(torch.float8_e4m3fn), v.to(torch.float8_e4m3fn)
        extra["kv_scales"] = torch.ones(2, 8, device="cuda")
    if "paged16" in name:
        pages = B * Sk // 16
        perm = torch.randperm(pages, device="cuda")

        def paged(x):
            logical = x.view(torch.uint8).transpose(1, 2).reshape(pages, 16, 8, -1)
            out = torch.empty_like(logical)
            out[perm] = logical
            return out.view(x.dtype)
        k, v = paged(k), paged(v)
        extra["kv_lens"] = torch.full((B,), Sk, dtype=torch.int32, device="cuda")
        extra["page_table"] = perm.view(B, Sk // 16).to(torch.int32).contiguous()
    kern(q, k, v, **extra)
    torch.cuda.synchronize()
