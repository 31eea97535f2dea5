"""fp8 KV decode under bf16 queries of extreme and mixed magnitudes, checked
against float64 (no timing).

Runs on the GPU machine: python3 bench/fp8_query_range.py BUILD_GPU_DIR
(the bench_decode_d128_fp8 artifact: Hq=32, Hkv=8, D=128, GQA packing puts
the four query heads of a KV head in one tile's rows). The kernel scales each
warp's queries by a power of two into f16 for an f16 Q K^T (docs/gpu.md):
this script gives the heads of one tile magnitudes up to 2^40 apart, and
whole batches near bf16's range ends, and compares every (batch, head) row
with a float64 reference on the dequantised keys and values. A row passes
if its relative error is within 1.25x that of a naive bf16 implementation
or within 2^-8 (a bf16 output's rounding); the script exits 1 if any fails.
"""
import math
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import attnc  # noqa: E402

DEV = "cuda"
HQ, HKV, D = 32, 8, 128


def quantize(x):
    scale = x.float().abs().amax(dim=(0, 2, 3)) / 448
    codes = (x.float() / scale.view(1, HKV, 1, 1)).to(torch.float8_e4m3fn)
    return codes, scale


def check(kern, name, q, k8, v8, scales):
    kd = k8.double() * scales[0].double().view(1, HKV, 1, 1)
    vd = v8.double() * scales[1].double().view(1, HKV, 1, 1)
    o = kern(q, k8, v8, kv_scales=scales)[0]
    torch.cuda.synchronize()
    g = HQ // HKV
    worst, failed = 0.0, 0
    for b in range(q.shape[0]):
        for h in range(HQ):
            qh = q[b, h].double()
            s = (qh @ kd[b, h // g].T) / math.sqrt(D)
            ref = torch.softmax(s, dim=-1) @ vd[b, h // g]
            sb = ((q[b, h].float() @ kd[b, h // g].float().T) / math.sqrt(D)).bfloat16().float()
            naive = torch.softmax(sb, dim=-1).bfloat16().float() @ vd[b, h // g].bfloat16().float()
            norm = ref.norm().item()
            err = ((o[b, h].double() - ref).norm() / norm).item()
            naive_err = ((naive.double() - ref).norm() / norm).item()
            ok = math.isfinite(err) and (err <= 1.25 * naive_err or err <= 2 ** -8)
            worst = max(worst, err)
            if not ok:
                failed += 1
                print(f"{name} b={b} h={h} |q|max={q[b, h].abs().max().item():.3g} "
                      f"err={err:.2e} naive_bf16={naive_err:.2e} FAIL")
    print(f"{name}: {q.shape[0] * HQ} rows, worst relative error {worst:.2e}, "
          f"{failed} failed", flush=True)
    return failed


def main():
    build = sys.argv[1]
    kern = attnc.Kernel(os.path.join(build, "artifacts", "bench_decode_d128_fp8.attnc"))
    torch.manual_seed(0)
    B, Sk = 3, 1001
    k8, ks = quantize(torch.randn(B, HKV, Sk, D, device=DEV))
    v8, vs = quantize(torch.randn(B, HKV, Sk, D, device=DEV))
    scales = torch.stack([ks, vs]).contiguous()
    q = torch.randn(B, HQ, 1, D, device=DEV)
    failed = 0
    # The four heads of each KV group (one tile) 2^-20, 1, 2^20 and 3e-2 apart,
    # then whole batches scaled toward each end of bf16's range.
    group = torch.tensor([2.0 ** -20, 1.0, 2.0 ** 20, 3e-2], device=DEV).repeat(HKV)
    cases = [("mixed heads", q * group.view(1, HQ, 1, 1)),
             ("all 2^-100", q * 2.0 ** -100),
             ("all 2^60", q * 2.0 ** 60),
             ("one row 2^100, rest 1", q.clone())]
    cases[3][1][:, 1] *= 2.0 ** 100
    for name, x in cases:
        failed += check(kern, name, x.bfloat16(), k8, v8, scales)
    print("fp8 query range:", "PASS" if failed == 0 else f"FAIL ({failed} rows)")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
