#!/usr/bin/env python3
"""Seeded mutation fuzzing for "never a crash": takes the functions of the
round-trip corpus, mutates tensor extents (to ?, 0, 1, small numbers) and i64
attributes (negative, huge), and runs each variant through verification,
--attune-decompose, --convert-attune-to-linalg and --attune-cpu-pipeline.
A mutated model may be rejected (exit 1 with a diagnostic); an exit by signal
or any other code is a failure.

  fuzz_verifiers.py ATTUNE_OPT CORPUS.mlir SEED COUNT
"""
import random, re, subprocess, sys
from pathlib import Path
opt_path, corpus = sys.argv[1], sys.argv[2]
src = Path(corpus).read_text()
funcs = re.findall(r"(func\.func @\w+\(.*?\n\}\n)", src, re.S)
rng = random.Random(int(sys.argv[3]))
opt = opt_path
crashes = 0
N = int(sys.argv[4])
for it in range(N):
    f = rng.choice(funcs)
    def mut_dim(m):
        return rng.choice(["?", "1", "0", "2", "3", "7", "16", "64", m.group(0)])
    def mut_int(m):
        return m.group(1) + str(rng.choice([0, 1, -1, 2, -2, 3, 4, 5, 64, 2**31, 2**62, -2**62]))
    g = f
    for _ in range(rng.randint(1, 4)):
        choice = rng.random()
        if choice < 0.5:
            dims = list(re.finditer(r"(?<=[<x])(\d+|\?)(?=x)", g))
            if dims:
                d = rng.choice(dims)
                g = g[:d.start()] + mut_dim(d) + g[d.end():]
        else:
            ints = list(re.finditer(r"(= )(-?\d+)(?= : i64)", g))
            if ints:
                d = rng.choice(ints)
                g = g[:d.start()] + mut_int(d) + g[d.end():]
    for flags in (["--verify-diagnostics=false"], ["--attune-decompose"], ["--attune-decompose", "--convert-attune-to-linalg"], ["--attune-cpu-pipeline"]):
        flags = [x for x in flags if not x.startswith("--verify")]
        p = subprocess.run([opt, "-", *flags], input=g, capture_output=True, text=True, timeout=60)
        if p.returncode < 0 or p.returncode > 1:
            crashes += 1
            print("CRASH", p.returncode, flags)
            print(g)
            print(p.stderr[-600:])
            break
print("done", N, "crashes", crashes)
sys.exit(1 if crashes else 0)
