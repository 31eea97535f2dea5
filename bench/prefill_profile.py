"""One prefill launch per case for a profiler (ncu) to capture:
python3 bench/prefill_profile.py BUILD_GPU_DIR [D:S:mask ...] (the standard
shapes of bench/bench.py: bf16, B*S = 16384 tokens, H = 2048/D; artifacts
bench_d{D}_{mask}.attnc; documents and block masks as bench.py builds them).
Each case runs twice (a warm launch, then the one
to capture: ncu --launch-skip 1 per case). Checks nothing; bench/bench.py
checks and times the same cases. PEER=cudnn runs PyTorch SDPA on its cuDNN
backend instead (masks none and causal), for ncu's view of cuDNN's kernel
(its grid, block, registers, shared memory, tensor-pipe use) beside attnc's."""
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import attnc  # noqa: E402
from bench import block_table, documents  # noqa: E402

build = sys.argv[1]
for case in sys.argv[2:] or ["128:16384:none"]:
    D, S, mask = case.split(":")
    D, S = int(D), int(S)
    B, H = max(1, 16384 // S), 2048 // D
    q, k, v = (torch.randn(B, H, S, D, device="cuda", dtype=torch.bfloat16) for _ in range(3))
    if os.environ.get("PEER") == "cudnn":
        if mask not in ("none", "causal"):
            sys.exit(f"PEER=cudnn: mask {mask} is not SDPA's (none or causal)")
        from torch.nn.attention import SDPBackend, sdpa_kernel
        with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
            for _ in range(2):
                torch.nn.functional.scaled_dot_product_attention(
                    q, k, v, is_causal=(mask == "causal"))
        torch.cuda.synchronize()
        continue
    kern = attnc.Kernel(os.path.join(build, "artifacts", f"bench_d{D}_{mask}.attnc"))
    extra = {}
    if mask == "document":
        docs = torch.tensor(documents(S))
        extra["cu_seqlens"] = torch.tensor([0] + docs.cumsum(0).tolist(), dtype=torch.int32,
                                           device="cuda")
    if mask == "blocksparse":
        extra["block_mask"] = block_table(S).to(torch.int8)[None, None].contiguous()
    for _ in range(2):
        kern(q, k, v, **extra)
    torch.cuda.synchronize()
