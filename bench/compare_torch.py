#!/usr/bin/env python3
"""Times PyTorch on benchmark models: the module and call of each model's
executable header (scripts/gen_golden.py), on the same .npy inputs Attune
gets. Prints JSON: {"NAME": {"min_ms": .., "median_ms": ..}}.

  compare_torch.py --threads N --repetitions R NAME=MODEL.mlir:case_dir ...
"""
import argparse
import json
import os
import sys
import time
from pathlib import Path


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--repetitions", type=int, default=10)
    p.add_argument("--seconds", type=float, default=0.0,
                   help="after the repetitions, more timed runs until they add up to this "
                        "many seconds (as long as attune-bench times Attune)")
    p.add_argument("cases", nargs="+")
    args = p.parse_args()
    # PyTorch 1.13's GEMMs are OpenBLAS's (Debian's pthread build), whose
    # own pool ignores torch.set_num_threads and takes every core: a
    # "1-thread" nn.Linear otherwise runs on 2 threads (measured 3.1 ms
    # against 5.9 ms for 128x768x3072). OpenBLAS reads its thread count
    # when it is loaded, so set it before importing torch.
    os.environ["OPENBLAS_NUM_THREADS"] = str(args.threads)
    os.environ["OMP_NUM_THREADS"] = str(args.threads)
    global torch, gen_golden
    import torch
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))
    import gen_golden
    torch.set_num_threads(args.threads)
    results = {}
    for spec in args.cases:
        name, rest = spec.split("=", 1)
        module, call, scope, inputs = gen_golden.load_case(*rest.rsplit(":", 1))
        env = dict(scope, module=module, **inputs)
        times = []
        with torch.no_grad():
            r = 0
            while r < args.repetitions + 2 or sum(times) < args.seconds * 1e3:
                start = time.perf_counter()
                eval(call, env)
                if r >= 2:
                    times.append((time.perf_counter() - start) * 1e3)
                r += 1
        times.sort()
        results[name] = {"min_ms": times[0], "median_ms": times[len(times) // 2]}
    json.dump(results, sys.stdout, indent=1)


if __name__ == "__main__":
    main()
