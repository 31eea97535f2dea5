"""GPU check that attnc runs strided layouts in place (no copy).

Runs on the GPU machine: python3 bench/layout_check.py BUILD_GPU_DIR. For a few
conformance artifacts it runs the same random inputs in four layouts:
  dense  [B, H, S, D] contiguous q, k, v, out;
  bshd   [B, S, H, D].transpose(1, 2) views of q, k, v and out (PyTorch's
         common layout; the kernel reads and writes them in place);
  packed [tokens, H, D] (B = 1) viewed as [1, H, tokens, D];
  padded rows of D + 16 elements (q, k, v sliced from wider tensors).
Each output is compared with a float64 reference (error at most 1.25 x that of
a naive implementation in the input precision) and must equal the dense run
bit for bit (the layout changes addresses only). Prints PASS/FAIL per case and
a summary line.
"""
import math
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import attnc  # noqa: E402

DEV = "cuda"
DTYPES = {"bf16": torch.bfloat16, "f16": torch.float16}

# artifact: (hq, hkv, d, dtype, mask)
CASES = {
    "none_d64_f16_gqa4": (8, 2, 64, "f16", "none"),
    "causal_d128_bf16_gqa4": (8, 2, 128, "bf16", "causal"),
    "causal_tl_d128_bf16_gqa1": (8, 8, 128, "bf16", "causal_tl"),
    "window_d64_bf16_gqa4": (8, 2, 64, "bf16", "window"),
}


def visible(mask, sq, sk):
    i = torch.arange(sq, device=DEV)[:, None]
    j = torch.arange(sk, device=DEV)[None, :]
    ip = i + sk - sq
    if mask == "none":
        return torch.ones(sq, sk, dtype=torch.bool, device=DEV)
    if mask == "causal":
        return j <= ip
    if mask == "causal_tl":
        return j <= i
    return (ip - 100 <= j) & (j <= ip)  # window:100,0 (bottom right)


def reference(q, k, v, vis, dtype):
    """float64 and naive (S and P rounded to dtype) outputs, [B, H, Sq, Dv]."""
    B, H, Sq, D = q.shape
    g = H // k.shape[1]
    kk = k.repeat_interleave(g, dim=1)
    vv = v.repeat_interleave(g, dim=1)
    s = (q.double() @ kk.double().transpose(-1, -2)) / math.sqrt(D)
    s = s.masked_fill(~vis, float("-inf"))
    ref = torch.softmax(s, -1).nan_to_num(0.0) @ vv.double()
    sn = ((q.float() @ kk.float().transpose(-1, -2)) / math.sqrt(D)).to(dtype).float()
    sn = sn.masked_fill(~vis, float("-inf"))
    pn = torch.softmax(sn, -1).nan_to_num(0.0).to(dtype)
    naive = (pn.float() @ vv.float()).to(dtype)
    return ref, naive


def rel(x, ref):
    return ((x.double() - ref).norm() / ref.norm().clamp_min(1e-30)).item()


def layouts(q, k, v, dv):
    """(name, q, k, v, out) views holding the same values as the dense q, k, v."""
    B, H, Sq, D = q.shape
    Hkv, Sk = k.shape[1], k.shape[2]
    out = []
    bshd = lambda t: t.transpose(1, 2).contiguous().transpose(1, 2)  # noqa: E731
    o = torch.empty(B, Sq, H, dv, device=DEV, dtype=q.dtype).transpose(1, 2)
    out.append(("bshd", bshd(q), bshd(k), bshd(v), o))
    if B == 1:
        # [tokens, H, D] -> [1, H, tokens, D]
        packed = lambda t: t[0].transpose(0, 1).contiguous().transpose(0, 1)[None]  # noqa: E731
        o = torch.empty(Sq, H, dv, device=DEV, dtype=q.dtype).transpose(0, 1)[None]
        out.append(("packed", packed(q), packed(k), packed(v), o))

    def padded(t):
        wide = torch.zeros(*t.shape[:3], t.shape[3] + 16, device=DEV, dtype=t.dtype)
        wide[..., :t.shape[3]] = t
        return wide[..., :t.shape[3]]
    o = torch.empty(B, H, Sq, dv + 16, device=DEV, dtype=q.dtype)[..., :dv]
    out.append(("padded", padded(q), padded(k), padded(v), o))
    return out


def main():
    build = sys.argv[1]
    torch.manual_seed(0)
    passed = failed = 0
    for name, (hq, hkv, d, dt, mask) in CASES.items():
        dtype = DTYPES[dt]
        kernel = attnc.Kernel(os.path.join(build, "artifacts", name + ".attnc"))
        for (b, sq, sk) in ((2, 257, 263), (1, 1000, 1000), (1, 77, 1031)):
            q = torch.randn(b, hq, sq, d, device=DEV).to(dtype)
            k = torch.randn(b, hkv, sk, d, device=DEV).to(dtype)
            v = torch.randn(b, hkv, sk, d, device=DEV).to(dtype)
            ref, naive = reference(q, k, v, visible(mask, sq, sk), dtype)
            bound = 1.25 * rel(naive, ref) + 1e-6
            dense, _ = kernel(q, k, v)
            for lname, ql, kl, vl, ol in [("dense", q, k, v, None)] + layouts(q, k, v, d):
                assert lname == "dense" or not ql.is_contiguous()
                if ol is not None:
                    ol.fill_(float("nan"))
                got, _ = kernel(ql, kl, vl, out=ol)
                torch.cuda.synchronize()
                err = rel(got, ref)
                same = torch.equal(got, dense)
                ok = err <= bound and math.isfinite(err) and same
                tag = "PASS" if ok else "FAIL"
                print(f"{tag} {name} b={b} sq={sq} sk={sk} {lname}: err {err:.3e} "
                      f"(bound {bound:.3e}), equal to dense: {same}, "
                      f"q strides {tuple(ql.stride())}")
                passed += ok
                failed += not ok
    print(f"layout check: {passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
