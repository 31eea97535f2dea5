#!/usr/bin/env python3
"""Sums ncu's per-SASS-instruction counters of one kernel by region: each loop
(a backward branch spanning more than MIN_BYTES before the last EXIT, found
in the SASS text, whose range nests with the other loops') and
the code outside every loop, with its share of the warp-stall samples, the
instructions it executed, its largest stall reasons and its opcode mix.

Usage: python3 bench/ncu_regions.py CSV [CSV ...]
CSV: `ncu -i REPORT --page source --csv --print-source sass` (what
bench/prefill-profile.sh writes as ncu.CASE.sass.csv). A region is reported
by its byte offsets from the kernel's first instruction (those of
`cuobjdump -sass`); an instruction inside nested loops counts in the
innermost. Regions with under 0.5% of the samples are left out.
"""
import collections
import csv
import re
import sys

MIN_BYTES = 0x400


def opcode(text):
    text = re.sub(r"^@!?U?P\w+\s+", "", text.strip())
    return text.split(" ")[0].split(".")[0]


def regions(path):
    rows = list(csv.reader(open(path)))
    head = rows[1]
    data = [r for r in rows[2:] if len(r) >= len(head)]
    col = {name: i for i, name in enumerate(head)}
    base = int(data[0][0], 16)
    stalls = [(i, n[len("stall_"):]) for i, n in enumerate(head)
              if n.startswith("stall_") and "Not Issued" not in n]
    # The out-of-line retry paths of the waits sit after the last EXIT and
    # jump back to their wait: not loops.
    last_exit = max(int(r[0], 16) for r in data if "EXIT" in r[col["Source"]])
    loops = []
    for r in data:
        at = int(r[0], 16)
        m = re.search(r"BRA (?:!?U?P\w+, )?0x([0-9a-f]+)", r[col["Source"]])
        if m and at < last_exit and at - int(m.group(1), 16) > MIN_BYTES:
            loops.append((int(m.group(1), 16) - base, at - base))
    # Keep ranges that nest (a range that only overlaps a larger one is a
    # jump, not a loop).
    kept = []
    for lo, hi in sorted(set(loops), key=lambda l: l[0] - l[1]):
        if all(hi < a or lo > b or (a <= lo and hi <= b) for a, b in kept):
            kept.append((lo, hi))
    loops = sorted(kept, key=lambda l: l[1] - l[0])  # innermost first
    sums = collections.defaultdict(collections.Counter)
    ops = collections.defaultdict(collections.Counter)
    total = 0
    for r in data:
        off = int(r[0], 16) - base
        name = next((f"loop {lo:x}-{hi:x}" for lo, hi in loops if lo <= off <= hi),
                    "outside loops")
        samples = int(r[col["Warp Stall Sampling (All Samples)"]] or 0)
        executed = int(r[col["Instructions Executed"]] or 0)
        total += samples
        sums[name]["samples"] += samples
        sums[name]["executed"] += executed
        sums[name]["instructions"] += 1
        for i, reason in stalls:
            sums[name]["stall " + reason] += int(r[i] or 0)
        ops[name][opcode(r[col["Source"]])] += executed
    print(f"{path}: {total} stall samples, "
          f"{sum(s['executed'] for s in sums.values()) / 1e6:.1f} M instructions executed")
    for name, s in sorted(sums.items(), key=lambda kv: -kv[1]["samples"]):
        if s["samples"] < 0.005 * total:
            continue
        reasons = sorted(((v, k[6:]) for k, v in s.items() if k.startswith("stall ")),
                         reverse=True)[:5]
        print(f"  {name}: {100 * s['samples'] / total:.1f}% of samples, "
              f"{s['executed'] / 1e6:.1f} M executed, {s['instructions']} SASS instructions")
        print("    stalls: " + ", ".join(f"{k} {100 * v / total:.1f}%" for v, k in reasons if v))
        print("    ops: " + " ".join(f"{k} {v / 1e6:.2f}M" for k, v in ops[name].most_common(8)))


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    for p in sys.argv[1:]:
        regions(p)
