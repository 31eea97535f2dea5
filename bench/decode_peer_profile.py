"""One decode launch of attnc and one of cuDNN's SDPA on the same tensors, for a profiler
(ncu) to capture every kernel of each: python3 bench/decode_peer_profile.py BUILD_GPU_DIR
[B:Sk] (Hq=32, Hkv=8, D=128, bf16; artifact bench_decode_d128_none). Each system runs
three times (the profiler skips the first); torch.cuda.nvtx ranges name them. Checks
nothing; run bench/decode_bench.py for checked timings."""
import os
import sys

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import attnc  # noqa: E402

build = sys.argv[1]
B, Sk = (int(x) for x in (sys.argv[2] if len(sys.argv) > 2 else "1:16384").split(":"))
kern = attnc.Kernel(os.path.join(build, "artifacts", "bench_decode_d128_none.attnc"))
q = torch.randn(B, 32, 1, 128, device="cuda", dtype=torch.bfloat16)
k = torch.randn(B, 8, Sk, 128, device="cuda", dtype=torch.bfloat16)
v = torch.randn(B, 8, Sk, 128, device="cuda", dtype=torch.bfloat16)
for _ in range(3):
    kern(q, k, v)
torch.cuda.synchronize()
with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
    for _ in range(3):
        F.scaled_dot_product_attention(q, k, v, enable_gqa=True)
torch.cuda.synchronize()
