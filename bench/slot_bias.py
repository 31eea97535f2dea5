"""Times one artifact through several attnc.Kernel objects, to see whether
bench.py's slots (the first attnc.Kernel of a case reading a persistent
kernel 1-4% low, bench/RESULTS.md) come from the object or from the kernel.

Runs on the GPU machine: python3 bench/slot_bias.py ARTIFACT D S [B]. Checks
every object's output against the first's (bit for bit: the same kernel), then
times objects created in order 0, 1, 2 in rotated orders over ROUNDS rounds,
with outputs allocated per call and preallocated (out=), and prints each
object's median TFLOP/s.
"""
import os
import sys

import torch
from triton.testing import do_bench

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import attnc  # noqa: E402

path, D, S = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
B = int(sys.argv[4]) if len(sys.argv) > 4 else max(1, 16384 // S)
H = 2048 // D
rounds = int(os.environ.get("ROUNDS", "7"))
torch.manual_seed(0)
q, k, v = (torch.randn(B, H, S, D, device="cuda", dtype=torch.bfloat16) for _ in range(3))
flops = 4 * B * H * D * S * S
kernels = [attnc.Kernel(path) for _ in range(3)]
ref = kernels[0](q, k, v)[0]
for i, kern in enumerate(kernels[1:], 1):
    if not torch.equal(kern(q, k, v)[0], ref):
        sys.exit(f"object {i}: output differs from object 0's")
outs = [torch.empty_like(ref) for _ in kernels]
for mode in ("allocating", "out="):
    times = [[] for _ in kernels]
    for r in range(rounds):
        order = [(r + j) % len(kernels) for j in range(len(kernels))]
        for i in order:
            kern = kernels[i]
            f = (lambda kern=kern: kern(q, k, v)) if mode == "allocating" else \
                (lambda kern=kern, i=i: kern(q, k, v, out=outs[i]))
            times[i].append(do_bench(f, warmup=50, rep=300, return_mode="median"))
    for i, t in enumerate(times):
        ms = sorted(t)[len(t) // 2]
        print(f"{os.path.basename(path)} D={D} S={S} B={B} {mode:10s} object {i}: "
              f"{flops / ms / 1e9:7.1f} TFLOP/s rounds " +
              " ".join(f"{flops / x / 1e9:.1f}" for x in t))
