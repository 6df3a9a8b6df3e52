#!/usr/bin/env python3
"""Compiles a model with attune-compile, runs every golden case with
attune-run and compares each output (attune-run --expect).

  check_golden.py MODEL.mlir --golden DIR --bin BUILD/bin --work TMP [--atol X] [--rtol X]
                 [--compile-arg ARG]... [--run-arg ARG]... [--runner 'CMD ARGS']

Exits non-zero if compilation fails or any output is outside tolerance.

A generation model (manifest lines `generated` and `forced`, see
gen_golden.py) is run with `attune-run --generate` and the header's
`// attune.generate:` options: its tokens must be the reference's, except
that a row may turn away where the reference's top-2 logit margin is below
atol (a near tie that rounding may decide either way; the row is not
compared after it); then, under teacher forcing (--force the reference's
tokens), the logits that chose each token up to the row's eos must be
within atol + rtol * |expected|.
"""
import argparse
import re
import shlex
import subprocess
import sys
from pathlib import Path


def main():
    p = argparse.ArgumentParser()
    p.add_argument("model")
    p.add_argument("--golden", required=True)
    p.add_argument("--bin", required=True)
    p.add_argument("--work", required=True)
    p.add_argument("--atol", default="1e-4")
    p.add_argument("--rtol", default="0")
    p.add_argument("--compile-arg", action="append", default=[])
    p.add_argument("--run-arg", action="append", default=[])
    p.add_argument("--runner", default="",
                   help="a command prefix for attune-run, e.g. "
                        "'qemu-x86_64 -cpu Haswell'")
    args = p.parse_args()

    name = Path(args.model).stem
    golden = Path(args.golden) / name
    manifest = golden / "manifest.txt"
    if not manifest.exists():
        sys.exit(f"check_golden: no golden data for {name} in {args.golden}")
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    library = work / f"{name}.so"
    compile_cmd = [f"{args.bin}/attune-compile", args.model, "-o", str(library),
                   *args.compile_arg]
    if "attune.weight" in Path(args.model).read_text():
        compile_cmd += ["--weights", str(golden / "weights.safetensors")]
    print("$", " ".join(compile_cmd), flush=True)
    if subprocess.call(compile_cmd) != 0:
        sys.exit(1)

    options = None
    for line in Path(args.model).read_text().splitlines():
        m = re.match(r"\s*//\s*attune\.generate:\s*(.*)$", line)
        if m:
            options = shlex.split(m.group(1))
    if options is not None:
        sys.exit(check_generation(args, library, golden, manifest, options))

    cases = {}
    order = []
    for line in manifest.read_text().splitlines():
        kind, *rest = line.split()
        if kind == "case":
            order.append(rest[0])
            cases[rest[0]] = []
        elif kind == "input":
            cases[order[-1]] += ["--input", f"{rest[0]}={golden / rest[1]}"]
        elif kind == "output":
            cases[order[-1]] += ["--expect", f"{rest[0]}={golden / rest[1]}"]
    failed = False
    for case in order:
        cmd = [*args.runner.split(), f"{args.bin}/attune-run", str(library),
               *cases[case],
               "--atol", args.atol, "--rtol", args.rtol, *args.run_arg]
        print(f"# case {case}", flush=True)
        if subprocess.call(cmd) != 0:
            failed = True
    sys.exit(1 if failed else 0)


def check_generation(args, library, golden, manifest, options):
    import numpy as np
    eos, pad = [], 0
    for i, o in enumerate(options):
        if o == "--eos":
            eos += [int(x) for x in options[i + 1].split(",")]
        elif o == "--pad":
            pad = int(options[i + 1])
    atol, rtol = float(args.atol), float(args.rtol)
    cases, order = {}, []
    for line in manifest.read_text().splitlines():
        kind, *rest = line.split()
        if kind == "case":
            order.append(rest[0])
            cases[rest[0]] = {"inputs": []}
        elif kind == "input":
            cases[order[-1]]["inputs"] += ["--input", f"{rest[0]}={golden / rest[1]}"]
        elif kind in ("generated", "forced"):
            cases[order[-1]][kind] = golden / rest[1]
    failed = False
    for case in order:
        c = cases[case]
        out = Path(args.work) / case
        forced_out = Path(args.work) / f"{case}-forced"
        base = [*args.runner.split(), f"{args.bin}/attune-run", str(library),
                "--generate", *c["inputs"], *options, *args.run_arg]
        print(f"# case {case}", flush=True)
        for cmd in (base + ["--output-dir", str(out)],
                    base + ["--force", str(c["generated"]), "--save-logits",
                            "--output-dir", str(forced_out)]):
            print("$", " ".join(cmd), flush=True)
            if subprocess.call(cmd) != 0:
                failed = True
                break
        else:
            expected = np.load(c["generated"])
            got = np.load(out / "tokens.npy")
            ref_logits = np.load(c["forced"])
            logits = np.load(forced_out / "logits.npy")
            for b in range(expected.shape[0]):
                row = list(expected[b])
                end = next((i + 1 for i, t in enumerate(row) if t in eos), len(row))
                # Tokens: equal, or turning away at a near tie.
                mine = list(got[b]) if b < got.shape[0] else []
                for t in range(end):
                    if t < len(mine) and mine[t] == row[t]:
                        continue
                    top2 = np.sort(ref_logits[b, t])[-2:]
                    margin = float(top2[1] - top2[0])
                    if margin < atol:
                        print(f"sequence {b}: step {t} takes {mine[t] if t < len(mine) else None} "
                              f"where PyTorch takes {row[t]}, a near tie (margin {margin:.2e})")
                    else:
                        print(f"sequence {b}: step {t}: token {mine[t] if t < len(mine) else None}, "
                              f"expected {row[t]} (top-2 margin {margin:.2e} > atol {atol})")
                        failed = True
                    break
                else:
                    rest = mine[end:]
                    if any(x != pad for x in rest):
                        print(f"sequence {b}: tokens after its end {rest}, expected pad {pad}")
                        failed = True
                # Logits under teacher forcing, up to the row's end.
                diff = np.abs(logits[b, :end] - ref_logits[b, :end])
                bound = atol + rtol * np.abs(ref_logits[b, :end])
                worst = float(diff.max()) if diff.size else 0.0
                ok = bool((diff <= bound).all())
                print(f"sequence {b}: {end} token(s); "
                      f"forced logits max |diff| {worst:.3e} "
                      f"({'ok' if ok else 'FAIL'}, atol {atol:g})")
                failed |= not ok
    return 1 if failed else 0


if __name__ == "__main__":
    main()
