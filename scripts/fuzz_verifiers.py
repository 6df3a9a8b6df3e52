#!/usr/bin/env python3
"""Seeded mutation testing for "never a crash": takes chunks of the
project's .mlir files (split at `// -----`), mutates them and runs each
mutant through attune-opt (verification; --attune-decompose and
--convert-attune-to-linalg; --attune-cpu-pipeline) and, with --compile,
attune-compile --emit=llvm-ir. A mutant may be rejected (exit 1 with a
diagnostic); an exit by signal, any other exit code or a run over 60 s is a
failure, printed with the mutant.

Mutations (1 to 3 per mutant): tensor extents (to ?, 0, 1, small and large
numbers), i64 attribute values (negative, huge), any number, element types;
delete, duplicate or swap lines; delete, duplicate or swap tokens.

  fuzz_verifiers.py ATTUNE_OPT SEED COUNT CORPUS... [--compile ATTUNE_COMPILE]
                    [--jobs N]
CORPUS: .mlir files or directories (searched recursively).
"""
import argparse
import random
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

TYPES = ["f32", "f16", "bf16", "f64", "i1", "i32", "i64", "index"]
NUMBERS = ["0", "1", "-1", "2", "3", "7", "64", "4096", "2147483648",
           "4611686018427387904", "-4611686018427387904", "0.0", "-0.5",
           "1.0e+30", "nan"]


def chunks(paths):
    out = []
    for p in paths:
        p = Path(p)
        files = sorted(p.glob("**/*.mlir")) if p.is_dir() else [p]
        for f in files:
            for c in f.read_text().split("// -----"):
                if "attune." in c and "func.func" in c:
                    out.append(c)
    return out


def mutate(text, rng):
    for _ in range(rng.randint(1, 3)):
        kind = rng.randrange(10)
        if kind == 0:  # a tensor extent
            dims = list(re.finditer(r"(?<=[<x])(\d+|\?)(?=x)", text))
            if dims:
                d = rng.choice(dims)
                v = rng.choice(["?", "0", "1", "2", "3", "7", "16", "64", "100000"])
                text = text[:d.start()] + v + text[d.end():]
        elif kind == 1:  # an i64 attribute
            ints = list(re.finditer(r"(= )(-?\d+)(?= : i64)", text))
            if ints:
                d = rng.choice(ints)
                v = rng.choice([0, 1, -1, 2, -2, 3, 4, 5, 64, 2**31, 2**62, -2**62])
                text = text[:d.start()] + d.group(1) + str(v) + text[d.end():]
        elif kind == 2:  # any number
            nums = list(re.finditer(r"(?<![\w%#.])-?\d+(\.\d+)?(e[+-]?\d+)?(?![\w.])", text))
            if nums:
                d = rng.choice(nums)
                text = text[:d.start()] + rng.choice(NUMBERS) + text[d.end():]
        elif kind == 3:  # an element type
            types = list(re.finditer(r"(?<=x)(f32|f16|bf16|i32|i64)(?=>)", text))
            if types:
                d = rng.choice(types)
                text = text[:d.start()] + rng.choice(TYPES) + text[d.end():]
        elif kind in (4, 5, 6):  # lines
            lines = text.split("\n")
            i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
            if kind == 4:
                del lines[i]
            elif kind == 5:
                lines.insert(i, lines[j])
            else:
                lines[i], lines[j] = lines[j], lines[i]
            text = "\n".join(lines)
        else:  # tokens
            toks = list(re.finditer(r"\S+", text))
            if len(toks) < 2:
                continue
            a, b = rng.choice(toks), rng.choice(toks)
            if kind == 7:
                text = text[:a.start()] + text[a.end():]
            elif kind == 8:
                text = text[:a.start()] + b.group(0) + " " + text[a.start():]
            else:
                if a.start() > b.start():
                    a, b = b, a
                if a.end() <= b.start():
                    text = (text[:a.start()] + b.group(0) + text[a.end():b.start()]
                            + a.group(0) + text[b.end():])
    return text


def run_one(args, text):
    """None, or a description of the failure."""
    commands = [[args.opt, "-"],
                [args.opt, "-", "--attune-decompose", "--convert-attune-to-linalg"],
                [args.opt, "-", "--attune-cpu-pipeline"]]
    if args.compile:
        commands.append([args.compile, "-", "--emit=llvm-ir", "-o", "/dev/null"])
    for cmd in commands:
        try:
            p = subprocess.run(cmd, input=text, capture_output=True, text=True,
                               timeout=60)
        except subprocess.TimeoutExpired:
            return f"timeout: {' '.join(cmd[1:])}"
        if p.returncode < 0 or p.returncode > 1:
            return f"exit {p.returncode}: {' '.join(cmd[1:])}\n{p.stderr[-800:]}"
        if p.returncode == 1 and cmd is commands[0]:
            return None  # rejected at verification: the later stages would too
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("opt")
    ap.add_argument("seed", type=int)
    ap.add_argument("count", type=int)
    ap.add_argument("corpus", nargs="+")
    ap.add_argument("--compile")
    ap.add_argument("--jobs", type=int, default=1)
    args = ap.parse_args()
    corpus = chunks(args.corpus)
    rng = random.Random(args.seed)
    mutants = [mutate(rng.choice(corpus), rng) for _ in range(args.count)]
    failures = 0
    with ThreadPoolExecutor(args.jobs) as pool:
        for text, result in zip(mutants, pool.map(lambda t: run_one(args, t), mutants)):
            if result:
                failures += 1
                if failures <= 5:
                    print("FAILURE", result)
                    print(text)
    print("done", args.count, "crashes", failures)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
