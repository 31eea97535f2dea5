#!/usr/bin/env python3
"""How much of the work a tiled attention kernel computes is visible pairs.

A prefill kernel computes whole (query tile x key tile) blocks: for each query
tile, every key tile from the first to the last one holding a visible pair of
any of its rows (attnc's closed-form bounds, which windows, causal, prefix-LM
and cu_seqlens documents take). The visible pairs over the computed ones bound
what a mask can reach against attention whose tiles are all visible; comparing
two masks at the same number of visible pairs (bench.py --match) the ratio of
their fractions bounds the ratio of their rates, whatever the kernel's speed
per tile. Counted exactly with numpy, no GPU.

Usage: /usr/bin/python3 bench/tile_geometry.py [options] MASK ...
  MASK: causal | none | window:LEFT (bottom-right, right = 0) | prefix:P |
        document | document_nc (without the causal mask inside each document;
        lengths drawn from S/16 to S/2 as bench.py draws them,
        `--draws N` draws with numpy's seeded generator, or `--docs a,b,..`)
  --seq S (8192), --block-q BQ (128), --block-k BK (128),
  --rows R: rows that share a key range (default BQ; 64 models a consumer
        warpgroup taking its own key range inside a 128-row tile),
  --match: also causal attention with as many visible pairs a head (the
        shorter S that bench.py --match picks) and the ratio of fractions.
  --check: the closed forms below, for scripts/test.sh.
"""

import argparse
import sys

import numpy as np


def row_intervals(mask, S, docs=None):
    """[lo, hi) of the keys each query row sees (Sq = Sk = S)."""
    r = np.arange(S, dtype=np.int64)
    if mask == "none":
        return np.zeros(S, np.int64), np.full(S, S, np.int64)
    if mask == "causal":
        return np.zeros(S, np.int64), r + 1
    kind, _, arg = mask.partition(":")
    if kind == "window":
        return np.maximum(r - int(arg), 0), r + 1
    if kind == "prefix":
        return np.zeros(S, np.int64), np.maximum(r + 1, int(arg))
    if kind == "document":
        starts = np.repeat(np.cumsum([0] + docs[:-1]), docs)
        return starts, r + 1
    if kind == "document_nc":
        bounds = np.cumsum([0] + docs)
        return np.repeat(bounds[:-1], docs), np.repeat(bounds[1:], docs)
    raise ValueError(f"unknown mask {mask!r}")


def fraction(mask, S, bk, rows, docs=None):
    """(visible pairs, computed pairs) for one head: ranges of `rows` query
    rows on key tiles of `bk`."""
    lo, hi = row_intervals(mask, S, docs)
    visible = int((hi - lo).sum())
    computed = 0
    for r0 in range(0, S, rows):
        r1 = min(r0 + rows, S)
        first = lo[r0:r1].min() // bk
        last = -(-hi[r0:r1].max() // bk)  # ceil
        # A partial last query tile still computes all its rows.
        computed += rows * (last - first) * bk
    return visible, computed


def draw_docs(S, rng):
    docs, left = [], S
    while left > 0:
        n = min(left, int(rng.integers(S // 16, S // 2)))
        docs.append(n)
        left -= n
    return docs


def matched_causal_seq(pairs):
    """The S whose causal visible pairs, S (S + 1) / 2, are nearest `pairs`."""
    s = int((2 * pairs) ** 0.5)
    return min((s - 1, s, s + 1), key=lambda x: abs(x * (x + 1) // 2 - pairs))


def report(mask, args):
    S, bq, bk, rows = args.seq, args.block_q, args.block_k, args.rows or args.block_q
    if mask.startswith("document"):
        rng = np.random.default_rng(1)
        draws = ([[int(x) for x in args.docs.split(",")]] if args.docs
                 else [draw_docs(S, rng) for _ in range(args.draws)])
        fr = [fraction(mask, S, bk, rows, d) for d in draws]
        vis = sum(v for v, _ in fr) / len(fr)
        f = float(np.mean([v / c for v, c in fr]))
        label = f"{mask} ({len(draws)} draw{'s' if len(draws) > 1 else ''})"
    else:
        vis, comp = fraction(mask, S, bk, rows)
        f = vis / comp
        label = mask
    line = (f"{label:24s} S={S} tiles {bq}x{bk} rows {rows}: "
            f"visible/computed {f:.4f}")
    if args.match:
        sc = matched_causal_seq(int(vis))
        cv, cc = fraction("causal", sc, bk, rows)
        line += (f"; causal S={sc} {cv / cc:.4f}; ratio {f / (cv / cc):.4f}")
    print(line)
    return f


def check():
    """Closed forms (exit 1 on a mismatch)."""
    bad = total = 0

    def expect(name, got, want):
        nonlocal bad, total
        ok = abs(got - want) < 1e-12
        bad += not ok
        total += 1
        print(f"{'PASS' if ok else 'FAIL'}: {name}: {got:.6f} (closed form {want:.6f})")

    # Causal on whole tiles: T (T + 1) / 2 tiles of bq bk for S (S + 1) / 2 pairs.
    S, b = 4096, 128
    T = S // b
    v, c = fraction("causal", S, b, b)
    expect("causal 4096, 128x128", v / c, S * (S + 1) / 2 / (b * b * T * (T + 1) / 2))
    # No mask: every computed pair is visible when S is a multiple of the tiles.
    v, c = fraction("none", 2048, 128, 128)
    expect("none 2048", v / c, 1.0)
    # A 1024-key window (left 1023): row r sees min(r + 1, 1024) keys; the
    # query tile q of 128 rows computes min(q + 1, 9) key tiles of 128, a
    # range of 64 rows j (64-key tiles) min(j + 1, 17) tiles of 64.
    S = 8192
    vis = sum(min(r + 1, 1024) for r in range(S))
    v, c = fraction("window:1023", S, 128, 128)
    expect("window 1023, 128x128", v / c,
           vis / sum(128 * 128 * min(q + 1, 9) for q in range(S // 128)))
    v, c = fraction("window:1023", S, 64, 64)
    expect("window 1023, rows of 64, 64-key tiles", v / c,
           vis / sum(64 * 64 * min(j + 1, 17) for j in range(S // 64)))
    # Documents: a tile inside one document is causal's; two documents of
    # 1024 keys each on 128-key tiles are two causal heads of 1024.
    v, c = fraction("document", 2048, 128, 128, [1024, 1024])
    cv, cc = fraction("causal", 1024, 128, 128)
    expect("documents 1024 + 1024", v / c, cv / cc)
    # Without the causal mask, documents of whole tiles compute only visible pairs.
    v, c = fraction("document_nc", 2048, 128, 128, [1024, 512, 512])
    expect("non-causal documents 1024 + 512 + 512", v / c, 1.0)
    print(f"{total - bad} passed, {bad} failed")
    return 1 if bad else 0


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("masks", nargs="*")
    p.add_argument("--seq", type=int, default=8192)
    p.add_argument("--block-q", type=int, default=128)
    p.add_argument("--block-k", type=int, default=128)
    p.add_argument("--rows", type=int, default=0)
    p.add_argument("--draws", type=int, default=20)
    p.add_argument("--docs", default="")
    p.add_argument("--match", action="store_true")
    p.add_argument("--check", action="store_true")
    args = p.parse_args()
    if args.check:
        return check()
    if not args.masks:
        p.error("no mask given")
    for m in args.masks:
        report(m, args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
