#!/usr/bin/env python3
"""Random attention specs (docs/attnc-run.md's spec grammar) for
scripts/spec-sweep.sh: python3 scripts/random-specs.py SEED COUNT prints COUNT
lines, the same ones for the same SEED. They cover the head dims, dtypes,
GQA groups, every mask (both alignments, windows with a right side, empty
documents, block grids per batch entry or head), soft-capping, ALiBi, scales,
the LSE switch, and the serving operands (kv_lens, pages of 8 to 128 rows,
fp8 caches, ragged batches with empty and one-row sequences, decode), with
sizes around the 64- and 128-row tiles. Some are refused by a GPU target
(f32, head dims that are not a multiple of 16, fp8 on sm_80): those must be
refused with a message, never crash."""
import random
import sys


def spec(rng):
    t = {}
    hkv = rng.choice([1, 1, 2, 3])
    t["b"] = rng.choice([1, 2, 3, 4])
    t["hq"] = hkv * rng.choice([1, 1, 2, 3, 4])
    t["hkv"] = hkv
    d = rng.choice([16, 32, 48, 64, 64, 80, 96, 112, 128, 128, 128, 160, 192,
                    256, 256, 40, 8])
    t["d"] = d
    if rng.random() < 0.1:
        t["dv"] = rng.choice([16, 32, 64, 128, 256, d])
    t["dtype"] = rng.choice(["bf16", "bf16", "bf16", "f16", "f16", "f32"])
    sq = rng.choice([1, 2, 7, 16, 63, 64, 65, 127, 128, 129, 200, 255, 300])
    t["sq"] = sq
    t["sk"] = rng.choice([sq, sq, 1, 17, 64, 128, 129, 256, 300, 400])
    mask = rng.choice(["none", "causal", "causal:top_left", "window", "prefix",
                       "document", "blocksparse"])
    if mask == "window":
        mask = (f"window:{rng.choice([0, 1, 5, 31, 64, 100, 1000])},"
                f"{rng.choice([0, 0, 3, 17, 64])}" + rng.choice(["", ":top_left"]))
    elif mask == "prefix":
        mask = f"prefix:{rng.choice([0, 1, 16, 100, 1000])}" + rng.choice(["", ":top_left"])
    elif mask == "document":
        lens = [rng.choice([0, 1, 5, 30, 64, 100, 129]) for _ in range(rng.randint(1, 5))]
        if sum(lens) == 0:
            lens[0] = 7
        mask = "document:" + ",".join(map(str, lens)) + rng.choice(["", ":causal"])
        del t["sq"], t["sk"]
    elif mask == "blocksparse":
        mask = (f"blocksparse:{rng.choice([8, 16, 32, 64, 128, 3])},"
                f"{rng.choice([8, 16, 32, 64, 128, 5])},{rng.choice([0, 0.3, 0.5, 1])}")
        if rng.random() < 0.3:
            t["block_mask"] = rng.choice(["b", "h", "bh"])
    t["mask"] = mask
    if rng.random() < 0.2:
        t["softcap"] = rng.choice([5, 30, 50.5])
    if rng.random() < 0.15:
        t["alibi"] = 1
    if rng.random() < 0.1:
        t["scale"] = rng.choice([0.01, 0.5, 2.0])
    if rng.random() < 0.2:
        t["lse"] = 0
    if not mask.startswith("document") and rng.random() < 0.45:
        kind = rng.random()
        if kind < 0.3:
            t["kv_lens"] = 1
        elif kind < 0.55:
            page = rng.choice([8, 16, 32, 64, 128])
            t["paged"] = page
            t["sk"] = max(page, t["sk"] // page * page)
        elif kind < 0.75:
            if rng.random() < 0.5:
                t["ragged"] = 1
            else:
                t["ragged"] = ",".join(
                    f"{rng.choice([0, 1, 5, 64, 129, 200])}:{rng.choice([0, 1, 17, 64, 130, 300])}"
                    for _ in range(rng.randint(1, 4)))
                del t["sq"], t["sk"], t["b"]
        else:
            t["decode"] = 1
            t["sq"] = 1
            if rng.random() < 0.5:
                t["kv_lens"] = 1
        if rng.random() < 0.35:
            t["kv_dtype"] = "fp8"
    return " ".join(f"{k}={v}" for k, v in t.items())


def main():
    rng = random.Random(int(sys.argv[1]))
    for _ in range(int(sys.argv[2])):
        print(spec(rng))


if __name__ == "__main__":
    main()
