#!/usr/bin/env python3
"""A sweep of linear-layer shapes against OpenBLAS, looking for cliffs
(issue 28: "GEMMs of any shape at full speed ... never a fallback").

  /usr/bin/python3 bench/gemm_sweep.py [--build build] [--threads 1]
      [--k 65,257,768,1023,3072] [--n 1,17,63,129,768,1000,2047,4099]
      [--m 1,2,3,...] [--static] [--compile-arg=--gemm-weights=bf16]
      [--min-ratio 0.9]

bench/run.py times the issue's rows (three layer shapes, three vocabulary
widths, five M); this times the shapes around and between them: K and N
odd, prime, just under and just over the register and cache tiles, M from
1 to a few hundred, each a `y = x W^T + b` model (bench/models'
linear_KxN with other K and N) compiled once per (K, N) with the M
dynamic (with --static: once per (M, K, N), M a compile-time constant, as
a decoding step or an ONNX graph of fixed shape has it), timed by
attune-bench in one process with OpenBLAS's sgemm of the same M, K, N,
randomly interleaved (each the fastest single run).

Prints, per (K, N), Attune's and OpenBLAS's GFLOP/s and their ratio per M,
then the shapes below --min-ratio (default 0.9) and the ten slowest by
ratio. A shape that fell off a cliff (a scalar or plain-contraction
fallback) shows as a ratio far below its neighbours'. Exits 0 either way:
a benchmark, not a test. Works in BUILD/bench/sweep.
"""
import argparse
import json
import os
import struct
import subprocess
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
from run import cpu_model, openblas_core  # noqa: E402  (one definition of each)

DEFAULT_K = "65,257,768,1023,3072"
DEFAULT_N = "1,17,63,129,768,1000,2047,4099"
DEFAULT_M = "1,2,3,4,5,7,8,9,15,16,17,31,33,64,100,128,255,512"

MODEL = """\
// A bench/gemm_sweep.py shape: nn.Linear({k}, {n}), M {m_text}.
func.func @forward(%x: tensor<1x{m}x{k}xf32> {{attune.name = "x"}}) -> tensor<1x{m}x{n}xf32> {{
  %w = attune.weight "weight" : tensor<{n}x{k}xf32>
  %b = attune.weight "bias" : tensor<{n}xf32>
  %y = attune.linear %x, %w, %b : (tensor<1x{m}x{k}xf32>, tensor<{n}x{k}xf32>, tensor<{n}xf32>) -> tensor<1x{m}x{n}xf32>
  return %y : tensor<1x{m}x{n}xf32>
}}
"""


def save_safetensors(tensors, path):
    """f32 tensors as a safetensors file (the format's header: JSON of each
    tensor's dtype, shape and byte range, padded to 8 bytes)."""
    header, offset = {}, 0
    for name, a in tensors.items():
        header[name] = {"dtype": "F32", "shape": list(a.shape),
                        "data_offsets": [offset, offset + a.nbytes]}
        offset += a.nbytes
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for a in tensors.values():
            f.write(np.ascontiguousarray(a, dtype=np.float32).tobytes())


def ints(text):
    return [int(v) for v in text.split(",") if v]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--build", default=str(ROOT / "build"))
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--k", default=DEFAULT_K, help="input widths")
    p.add_argument("--n", default=DEFAULT_N, help="output widths")
    p.add_argument("--m", default=DEFAULT_M, help="rows (the dynamic dimension)")
    p.add_argument("--static", action="store_true",
                   help="compile each M as a static shape (one library per M)")
    p.add_argument("--compile-arg", action="append", default=[],
                   help="an extra attune-compile flag, e.g. --compile-arg=--gemm-weights=bf16")
    p.add_argument("--min-ratio", type=float, default=0.9,
                   help="list the shapes whose OpenBLAS / Attune time is below this")
    p.add_argument("--min-time", default="0.05",
                   help="Google Benchmark's minimum seconds per case (a bare number: 1.7 reads no unit)")
    p.add_argument("--repetitions", type=int, default=3)
    args = p.parse_args()

    bin_dir = Path(args.build) / "bin"
    if not (bin_dir / "attune-bench").exists():
        sys.exit("attune-bench is not built: install libbenchmark-dev libopenblas-dev, "
                 "then `ninja -C build attune-bench`")
    work = Path(args.build) / "bench" / "sweep"
    work.mkdir(parents=True, exist_ok=True)
    ks, ns, ms = ints(args.k), ints(args.n), ints(args.m)
    env = dict(os.environ, OPENBLAS_CORETYPE=openblas_core())
    print(f"CPU: {cpu_model()}")
    print(f"OpenBLAS kernels: {env['OPENBLAS_CORETYPE']}; {args.threads} thread(s)"
          + ("; M static" if args.static else "; M dynamic")
          + (f"; attune-compile {' '.join(args.compile_arg)}" if args.compile_arg else ""))
    rng = np.random.default_rng(0)
    inputs = {}
    rows = []  # (m, k, n, attune ms, openblas ms)
    for k in ks:
        for m in ms:
            x = work / f"x_{m}x{k}.npy"
            if not x.exists():
                np.save(x, rng.standard_normal((1, m, k), dtype=np.float32))
            inputs[m, k] = x
        for n in ns:
            stem = f"linear_{k}x{n}"
            weights = work / f"{stem}.safetensors"
            save_safetensors({"weight": rng.standard_normal((n, k), dtype=np.float32) / k**0.5,
                              "bias": rng.standard_normal(n, dtype=np.float32)}, weights)
            libs = {}
            for m in (ms if args.static else [None]):
                name = stem if m is None else f"{stem}_m{m}"
                model, lib = work / f"{name}.mlir", work / f"{name}.so"
                model.write_text(MODEL.format(k=k, n=n, m="?" if m is None else m,
                                              m_text="dynamic" if m is None else "static"))
                subprocess.run([str(bin_dir / "attune-compile"), str(model), "--weights",
                                str(weights), "-o", str(lib),
                                *(["--parallel"] if args.threads > 1 else []),
                                *args.compile_arg], check=True)
                libs[m] = lib
            cmd = [str(bin_dir / "attune-bench"), "--threads", str(args.threads),
                   "--benchmark_format=json", f"--benchmark_min_time={args.min_time}",
                   f"--benchmark_repetitions={args.repetitions}",
                   "--benchmark_enable_random_interleaving=true"]
            for m in ms:
                lib = libs[m if args.static else None]
                cmd += ["--model", f"m{m}={lib}:{inputs[m, k]}", "--sgemm", f"m{m}={m},{k},{n}"]
            out = subprocess.run(cmd, env=env, check=True, capture_output=True, text=True).stdout
            best = {}
            for b in json.loads(out)["benchmarks"]:
                if b.get("run_type") != "iteration":
                    continue
                tool, name = b["run_name"].split("/")[:2]
                key = (tool, int(name[1:]))
                best[key] = min(best.get(key, float("inf")), b["best_ms"])
            print(f"\nK = {k}, N = {n}: GFLOP/s Attune / OpenBLAS (ratio = OpenBLAS ms / Attune ms)")
            print("|    M |  Attune |  OpenBLAS | ratio |")
            print("|------|---------|-----------|-------|")
            for m in ms:
                a, o = best[("attune", m)], best[("openblas", m)]
                flop = 2.0 * m * k * n / 1e6  # per ms -> GFLOP/s
                print(f"| {m:4d} | {flop / a:7.1f} | {flop / o:9.1f} | {o / a:5.2f} |")
                rows.append((m, k, n, a, o))
            sys.stdout.flush()
    slow = sorted((r for r in rows if r[4] / r[3] < args.min_ratio), key=lambda r: r[4] / r[3])
    print(f"\n{len(rows)} shapes; {len(slow)} below {args.min_ratio}x OpenBLAS"
          + (":" if slow else "."))
    for m, k, n, a, o in slow:
        print(f"  M = {m}, K = {k}, N = {n}: Attune {a * 1e3:.1f} us, OpenBLAS {o * 1e3:.1f} us, "
              f"{o / a:.2f}x")
    print("the ten lowest ratios:")
    for m, k, n, a, o in sorted(rows, key=lambda r: r[4] / r[3])[:10]:
        print(f"  M = {m}, K = {k}, N = {n}: Attune {a * 1e3:.1f} us, OpenBLAS {o * 1e3:.1f} us, "
              f"{o / a:.2f}x")


if __name__ == "__main__":
    main()
