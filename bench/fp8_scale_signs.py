#!/usr/bin/env python3
"""fp8 KV caches whose per-head scales are negative, zero or tiny, on the
GPU machine.

The wgmma kernel over fp8 codes under bf16 queries multiplies its rows of Q
by the keys' scale's sign and keeps the scores raw through the row maximum,
its weights exp2(s * factor - ref) with factor = scale log2(e) |key scale|
2^-e at least the smallest normal f32 (FlashKernel.cpp, rawScores). This
checks those edges against float64: KV head h's key scale is one of
-1/64, 0, 1/64, -2^-40, 1/64, 2^-130 (subnormal), -1/32, 1/16 and its value
scale one of 1/64, -1/64, ... (negative on odd heads).

Usage: fp8_scale_signs.py BUILD_GPU_DIR
Runs each of BUILD_GPU_DIR/artifacts/bench_cache_d128_causal_fp8*.attnc that
exists (the wgmma kernel contiguous and in pages of 16 rows, the mma.sync
kernel) through the Python wrapper at B=3 SQ=200 SK=1000 (kv_lens 1000, 1,
537; bottom-right causal), Hq=32 Hkv=8 D=128, against the float64 reference
of the dequantized cache over every head: the output's relative Frobenius
error must be within 1.25 x a naive bf16 implementation's plus 1e-3 (its
per-head errors are printed for the edge heads). Prints PASS/FAIL a kernel
and a summary line; exits 1 on a failure or when no artifact is there.
"""
import math
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import attnc  # noqa: E402

DEV = "cuda"
HQ, HKV, D = 32, 8, 128
G = HQ // HKV
B, SQ, SK = 3, 200, 1000
LENS = [1000, 1, 537]
K_SCALES = [-1 / 64, 0.0, 1 / 64, -2.0**-40, 1 / 64, 2.0**-130, -1 / 32, 1 / 16]
V_SCALES = [(-1) ** h / 64 for h in range(HKV)]


def main():
    build = sys.argv[1]
    torch.manual_seed(3)
    q = torch.randn(B, HQ, SQ, D, device=DEV, dtype=torch.bfloat16)
    codes = [torch.randn(B, HKV, SK, D, device=DEV).clamp(-400, 400).mul(40)
             .clamp(-448, 448).to(torch.float8_e4m3fn) for _ in range(2)]
    k8, v8 = codes
    scales = torch.tensor([K_SCALES, V_SCALES], device=DEV, dtype=torch.float32)
    # Dequantized (exact in float64), rows past each length unused.
    kd = k8.double() * scales[0].double()[None, :, None, None]
    vd = v8.double() * scales[1].double()[None, :, None, None]
    kv_lens = torch.tensor(LENS, dtype=torch.int32, device=DEV)
    ref = torch.zeros(B, HQ, SQ, D, device=DEV, dtype=torch.float64)
    naive = torch.zeros_like(ref)
    for b, L in enumerate(LENS):
        i = torch.arange(SQ, device=DEV)[:, None]
        j = torch.arange(L, device=DEV)[None, :]
        visible = j <= i + L - SQ
        for h in range(HQ):
            kh, vh = kd[b, h // G, :L], vd[b, h // G, :L]
            s = (q[b, h].double() @ kh.T) / math.sqrt(D)
            s = s.masked_fill(~visible, float("-inf"))
            p = torch.softmax(s, dim=-1).nan_to_num(0.0)  # rows seeing no key
            ref[b, h] = p @ vh
            sb = ((q[b, h] @ kh.bfloat16().T).float() / math.sqrt(D)).bfloat16().float()
            sb = sb.masked_fill(~visible, float("-inf"))
            pb = torch.softmax(sb, dim=-1).nan_to_num(0.0).bfloat16()
            naive[b, h] = (pb @ vh.bfloat16()).double()

    def rel(a, r):
        return ((a.double() - r).norm() / r.norm().clamp(min=1e-300)).item()

    naive_err = rel(naive, ref)
    failed = passed = 0
    for name in ["bench_cache_d128_causal_fp8", "bench_cache_d128_causal_fp8_paged16",
                 "bench_cache_d128_causal_fp8_mma"]:
        path = os.path.join(build, "artifacts", name + ".attnc")
        if not os.path.exists(path):
            continue
        kern = attnc.Kernel(path)
        out = torch.full((B, HQ, SQ, D), float("nan"), device=DEV, dtype=torch.bfloat16)
        if name.endswith("paged16"):
            P = 16  # pages of 16 rows, in order
            per = (SK + P - 1) // P
            kp = torch.zeros(B * per, P, HKV, D, device=DEV, dtype=torch.uint8)
            vp = torch.zeros_like(kp)
            for b in range(B):
                for n in range(per):
                    rows = slice(n * P, min(SK, (n + 1) * P))
                    cnt = rows.stop - rows.start
                    kp[b * per + n, :cnt] = k8.view(torch.uint8)[b, :, rows].transpose(0, 1)
                    vp[b * per + n, :cnt] = v8.view(torch.uint8)[b, :, rows].transpose(0, 1)
            table = torch.arange(B * per, device=DEV, dtype=torch.int32).view(B, per)
            kern(q, kp.view(torch.float8_e4m3fn), vp.view(torch.float8_e4m3fn), out=out,
                 kv_lens=kv_lens, page_table=table, kv_scales=scales)
        else:
            kern(q, k8, v8, out=out, kv_lens=kv_lens, kv_scales=scales)
        torch.cuda.synchronize()
        err = rel(out, ref)
        ok = bool(torch.isfinite(out).all()) and err <= 1.25 * naive_err + 1e-3
        heads = " ".join(
            f"h{h}({K_SCALES[h // G]:+.3g}):{rel(out[:, h], ref[:, h]):.2e}"
            for h in range(0, HQ, G))
        print(f"{'PASS' if ok else 'FAIL'} {name}: rel error {err:.3e} "
              f"(naive bf16 {naive_err:.3e}); by KV head {heads}", flush=True)
        passed += ok
        failed += not ok
    print(f"fp8 scale signs: {passed} passed, {failed} failed")
    return 1 if failed or not passed else 0


if __name__ == "__main__":
    sys.exit(main())
