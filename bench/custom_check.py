"""GPU check of custom mask_fn / score_fn regions (bench/custom/*.mlir).

The MLIR-free runner cannot evaluate a region for its float64 reference, so
each custom case here carries the same predicate / score in Python. Runs on
the GPU machine: python3 bench/custom_check.py BUILD_GPU_DIR. Prints PASS/FAIL
per (case, shape) and a summary line; PASS means the output's relative
Frobenius error against float64 is <= 1.25 x that of a naive implementation
in the input precision, and the LSE matches within 1e-3 (-inf rows equal).
"""
import math
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import attnc  # noqa: E402


def band_sink(b, h, i, j, sq, sk):
    return ((j <= i) & (i < j + 20)) | (j < 5)


def strided_heads(b, h, i, j, sq, sk):
    return (j <= i) & ((h == 0) | (j % 2 == 0))


def window40(b, h, i, j, sq, sk):
    # #attn.sliding_window is bottom-right aligned: i' = i + Sk - Sq.
    ip = i + sk - sq
    return (ip - 40 <= j) & (j <= ip + 40)


def seq_ids_causal(b, h, i, j, sq, sk, ids=None):
    p = i + sk - sq
    pc = p.clamp(min=0)
    return (p >= 0) & (j <= p) & (ids[b][pc] == ids[b][j]) & (ids[b][pc] >= 0)


CASES = {
    # name: (hq, hkv, d, dtype, mask(b, h, i, j, Sq, Sk), score(s, i, j))
    "band_sink": (4, 2, 64, torch.bfloat16, band_sink, None),
    "strided_heads": (4, 2, 64, torch.float16, strided_heads, None),
    "distance_score": (4, 4, 128, torch.bfloat16, window40,
                       lambda s, i, j: 15.0 * torch.tanh(s / 15.0) - 0.05 * (i - j).abs()),
    # seq_ids and ALiBi slopes come as operands (made per shape below).
    "seq_ids_slopes": (4, 2, 64, torch.bfloat16, seq_ids_causal, "alibi"),
}


def reference(q, k, v, mask_fn, score_fn, dtype, ids=None, slopes=None):
    B, H, Sq, D = q.shape
    Hkv, Sk = k.shape[1], k.shape[2]
    i = torch.arange(Sq, device=q.device)[:, None]
    j = torch.arange(Sk, device=q.device)[None, :]
    out64 = torch.zeros(B, H, Sq, v.shape[3], dtype=torch.float64, device=q.device)
    lse64 = torch.full((B, H, Sq), float("-inf"), dtype=torch.float64, device=q.device)
    naive = torch.zeros_like(out64)
    for bi in range(B):
        for h in range(H):
            kh = h // (H // Hkv)
            vis = (mask_fn(bi, h, i, j, Sq, Sk, ids=ids) if ids is not None
                   else mask_fn(bi, h, i, j, Sq, Sk))
            bias = 0.0
            if slopes is not None:
                bias = -float(slopes[h]) * (i + Sk - Sq - j).abs()
            s = (q[bi, h].double() @ k[bi, kh].double().T) / math.sqrt(D) + bias
            if callable(score_fn):
                s = score_fn(s, i.double(), j.double())
            s = s.masked_fill(~vis, float("-inf"))
            row_any = vis.any(dim=1)
            p = torch.softmax(s, dim=-1).nan_to_num(0.0)
            out64[bi, h] = p @ v[bi, kh].double()
            lse64[bi, h] = torch.where(row_any, torch.logsumexp(s, dim=-1),
                                       torch.tensor(float("-inf"), dtype=torch.float64, device=q.device))
            # Naive in the input precision: S and P rounded to dtype.
            sn = ((q[bi, h].float() @ k[bi, kh].float().T) / math.sqrt(D))
            if slopes is not None:
                sn = sn + bias.float()
            if callable(score_fn):
                sn = score_fn(sn, i.float(), j.float())
            sn = sn.to(dtype).float().masked_fill(~vis, float("-inf"))
            pn = torch.softmax(sn, dim=-1).nan_to_num(0.0).to(dtype)
            naive[bi, h] = (pn.float() @ v[bi, kh].float()).to(dtype).double()
    return out64, lse64, naive


def rel(a, ref):
    n = ref.norm()
    return ((a.double() - ref).norm() / (n if n > 0 else 1)).item()


def main():
    build = sys.argv[1]
    passed = failed = 0
    for name, (hq, hkv, d, dtype, mask_fn, score_fn) in CASES.items():
        kernel = attnc.Kernel(os.path.join(build, "artifacts", f"custom_{name}.attnc"))
        # The last shape gives a persistent kernel's blocks several work
        # items each (its ring and barrier phases go on across them).
        for (B, Sq, Sk) in [(2, 300, 300), (1, 129, 700), (1, 1, 257), (1, 200, 77),
                            (4, 2500, 2600)]:
            torch.manual_seed(B * 1000 + Sq + Sk)
            q = torch.randn(B, hq, Sq, d, device="cuda", dtype=dtype)
            k = torch.randn(B, hkv, Sk, d, device="cuda", dtype=dtype)
            v = torch.randn(B, hkv, Sk, d, device="cuda", dtype=dtype)
            out = torch.full((B, hq, Sq, d), float("nan"), device="cuda", dtype=dtype)
            lse = torch.full((B, hq, Sq), float("nan"), device="cuda", dtype=torch.float32)
            extra, ids, slopes = {}, None, None
            if score_fn == "alibi":
                # Documents of random lengths per batch entry, a few padding
                # positions (-1) at the end.
                g = torch.Generator().manual_seed(Sk)
                ids = torch.full((B, Sk), -1, dtype=torch.int32)
                for bi in range(B):
                    pos, doc = 0, 0
                    while pos < Sk - 3:
                        n = int(torch.randint(1, max(2, Sk // 3), (1,), generator=g))
                        ids[bi, pos:min(pos + n, Sk - 3)] = doc
                        pos += n
                        doc += 1
                ids = ids.cuda()
                slopes = torch.tensor([2.0 ** (-8 * (h + 1) / hq) for h in range(hq)],
                                      dtype=torch.float32, device="cuda")
                extra = {"seq_ids": ids, "alibi_slopes": slopes}
            kernel(q, k, v, out=out, lse=lse, **extra)
            torch.cuda.synchronize()
            ref, ref_lse, naive = reference(q, k, v, mask_fn, score_fn, dtype, ids, slopes)
            err, nerr = rel(out, ref), rel(naive, ref)
            fin = torch.isfinite(ref_lse)
            lse_ok = bool(torch.equal(torch.isneginf(lse.double()), torch.isneginf(ref_lse))) and \
                (fin.sum() == 0 or (lse.double()[fin] - ref_lse[fin]).abs().max().item() <= 1e-3)
            ok = math.isfinite(err) and err <= 1.25 * nerr + 1e-6 and lse_ok
            passed += ok
            failed += not ok
            print(f"{'PASS' if ok else 'FAIL'}: {name} B={B} Sq={Sq} Sk={Sk} "
                  f"err {err:.3e} (naive {nerr:.3e}) lse {'ok' if lse_ok else 'MISMATCH'}", flush=True)
    print(f"custom: {passed} passed, {failed} failed")


if __name__ == "__main__":
    main()
