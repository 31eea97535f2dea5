"""fp8-cache decode variants side by side (B=64 Sk=8K and B=1 Sk=128K, Hq=32,
Hkv=8, D=128): DIR/fp8sweep/*.attnc, named DTYPE_... (bf16 or f16 queries;
fp8_... for an fp8 cache). Each output is checked on 3 (batch, head) pairs
against float64 (the fp8 ones on the dequantised values) before it is timed,
as in bench/decode_bench.py. Usage: python3 bench/fp8_variants.py DIR
"""
import glob
import math
import os
import sys

import torch
from triton.testing import do_bench

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from decode_bench import DEV, D, HKV, HQ, attnc, reference  # noqa: E402


def main():
    build = sys.argv[1]
    for B, Sk in [(64, 8192), (1, 131072)]:
        torch.manual_seed(0)
        k32 = torch.randn(B, HKV, Sk, D, device=DEV)
        v32 = torch.randn(B, HKV, Sk, D, device=DEV)
        q32 = torch.randn(B, HQ, 1, D, device=DEV)
        pairs = [(0, 0), (0, HQ - 1), (B - 1, 5)]
        for path in sorted(glob.glob(os.path.join(build, "fp8sweep", "*.attnc"))):
            name = os.path.basename(path)[:-6]
            dtype = torch.float16 if "f16_" in name and "bf16" not in name else torch.bfloat16
            q, k, v = q32.to(dtype), k32.to(dtype), v32.to(dtype)
            kern = attnc.Kernel(path)
            if name.startswith("fp8"):
                ks = k32.abs().amax(dim=(0, 2, 3)) / 448
                vs = v32.abs().amax(dim=(0, 2, 3)) / 448
                k8 = (k32 / ks.view(1, HKV, 1, 1)).to(torch.float8_e4m3fn)
                v8 = (v32 / vs.view(1, HKV, 1, 1)).to(torch.float8_e4m3fn)
                scales = torch.stack([ks, vs]).contiguous()
                kd = (k8.float() * ks.view(1, HKV, 1, 1)).double()
                vd = (v8.float() * vs.view(1, HKV, 1, 1)).double()
                ref, naive = reference(q, kd, vd, pairs, kd.to(dtype), vd.to(dtype))
                f = lambda: kern(q, k8, v8, kv_scales=scales)[0]  # noqa: E731
                bytes_ = 2 * B * HKV * Sk * D
            else:
                ref, naive = reference(q, k, v, pairs)
                f = lambda: kern(q, k, v)[0]  # noqa: E731
                bytes_ = 4 * B * HKV * Sk * D
            o = f()
            torch.cuda.synchronize()
            got = torch.stack([o[b, h] for b, h in pairs])
            err = ((got.double() - ref).norm() / ref.norm()).item()
            bar = 1.25 * ((naive.double() - ref).norm() / ref.norm()).item() + 1e-6
            if not (err <= bar and math.isfinite(err)):
                print(f"B={B} Sk={Sk} {name:28s} CHECK FAILED err={err:.2e} bar={bar:.2e}", flush=True)
                continue
            ms = do_bench(f, warmup=50, rep=300, return_mode="median")
            print(f"B={B} Sk={Sk} {name:28s} {ms * 1000:8.1f} us  KV {bytes_ / ms / 1e6:5.0f} GB/s"
                  f"  err={err:.2e} (bar {bar:.2e})", flush=True)


if __name__ == "__main__":
    main()
