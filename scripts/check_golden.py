#!/usr/bin/env python3
"""Compiles a model with attune-compile, runs every golden case with
attune-run and compares each output (attune-run --expect).

  check_golden.py MODEL.mlir --golden DIR --bin BUILD/bin --work TMP [--atol X] [--rtol X]
                 [--compile-arg ARG]... [--run-arg ARG]... [--runner 'CMD ARGS']

Exits non-zero if compilation fails or any output is outside tolerance.
"""
import argparse
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


if __name__ == "__main__":
    main()
