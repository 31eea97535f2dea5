#!/usr/bin/env python3
"""IR mutation smoke run: attnc-opt and the passes never crash on bad IR.

Takes the attn IR of the lit tests and examples, mutates it at random
(numbers, element types, deleted or repeated lines, swapped tokens), runs
attnc-opt with the attn pipelines over each mutant, and requires every run
to end with exit code 0 (accepted) or 1 (a diagnostic): a signal, an abort
or a hang (10 s) is a failure, and the mutant is saved. Seeded and bounded.

Usage: scripts/ir-mutate.py BUILD_DIR [--mutants N] [--seed S] [--out DIR]
Ends with "N passed, M failed" (one test per pipeline).
"""
import argparse
import glob
import os
import random
import re
import subprocess
import sys

PIPELINES = {
    "cpu": ["--attn-tile", "--attn-skip-masked-tiles", "--attn-decompose-online-softmax",
            "--canonicalize"],
    "gpu": ["--attn-choose-gpu-kernel=chip=sm_90a", "--attn-tile", "--attn-skip-masked-tiles",
            "--convert-attn-to-gpu"],
    "instrument": ["--attn-count-tile-steps", "--attn-decompose-online-softmax"],
}
NUMBERS = ["0", "1", "-1", "3", "7", "16", "4096", "2147483647", "2147483648",
           "9223372036854775807", "-9223372036854775808"]
TYPES = ["bf16", "f16", "f32", "f64", "i1", "i8", "i32", "i64", "index"]


def mutate(text, rng):
    lines = text.split("\n")
    kind = rng.randrange(6)
    if kind == 0:  # a number
        spots = [m.span() for m in re.finditer(r"(?<![%\w])-?\d+(?![\w.])", text)]
        if spots:
            a, b = rng.choice(spots)
            return text[:a] + rng.choice(NUMBERS) + text[b:]
    if kind == 1:  # an element type
        spots = [m.span() for m in re.finditer(r"\b(bf16|f16|f32|i1|i8|i32|index)\b", text)]
        if spots:
            a, b = rng.choice(spots)
            return text[:a] + rng.choice(TYPES) + text[b:]
    if kind == 2 and len(lines) > 1:  # delete a line
        del lines[rng.randrange(len(lines))]
        return "\n".join(lines)
    if kind == 3 and len(lines) > 1:  # repeat a line
        i = rng.randrange(len(lines))
        lines.insert(i, lines[i])
        return "\n".join(lines)
    if kind == 4:  # a dimension of a shaped type
        spots = [m.span() for m in re.finditer(r"(?<=[<x])(\?|\d+)(?=x)", text)]
        if spots:
            a, b = rng.choice(spots)
            return text[:a] + rng.choice(["?", "0", "1", "3", "17", "256", "100000"]) + text[b:]
    # swap two SSA names
    names = re.findall(r"%[a-zA-Z_][\w]*", text)
    if len(names) >= 2:
        x, y = rng.sample(sorted(set(names)), 2) if len(set(names)) >= 2 else (names[0], names[0])
        return text.replace(x, "%__tmp__").replace(y, x).replace("%__tmp__", y)
    return text


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("--mutants", type=int, default=60)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    opt = os.path.join(args.build, "bin", "attnc-opt")
    out = args.out or os.path.join(args.build, "ir-mutate")
    os.makedirs(out, exist_ok=True)
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    sources = sorted(glob.glob(os.path.join(root, "examples", "*.mlir")) +
                     glob.glob(os.path.join(root, "bench", "custom", "*.mlir")) +
                     glob.glob(os.path.join(root, "test", "Transforms", "*.mlir")) +
                     glob.glob(os.path.join(root, "test", "Dialect", "Attn", "roundtrip.mlir")))
    # Split files into their cases; keep those that hold attn ops.
    cases = []
    for path in sources:
        for chunk in open(path).read().split("// -----"):
            if "attn." in chunk:
                cases.append(chunk)
    rng = random.Random(args.seed)
    passed = failed = 0
    for name, flags in PIPELINES.items():
        crashes = 0
        for n in range(args.mutants):
            text = rng.choice(cases)
            for _ in range(rng.randint(1, 3)):
                text = mutate(text, rng)
            try:
                run = subprocess.run([opt, "-", *flags], input=text, capture_output=True,
                                     text=True, timeout=10)
                rc = run.returncode
                detail = run.stderr[-400:]
            except subprocess.TimeoutExpired:
                rc, detail = "timeout", ""
            if rc not in (0, 1):
                crashes += 1
                saved = os.path.join(out, f"{name}-{n}.mlir")
                with open(saved, "w") as f:
                    f.write(text)
                print(f"  crash ({rc}) in {name} pipeline: {saved}\n{detail}")
        if crashes:
            print(f"FAIL: {name} pipeline: {crashes} of {args.mutants} mutants crashed")
            failed += 1
        else:
            print(f"PASS: {name} pipeline: {args.mutants} mutants, no crash")
            passed += 1
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
