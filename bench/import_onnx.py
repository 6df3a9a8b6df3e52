#!/usr/bin/env python3
"""Imported against hand-written: each bench model's PyTorch module
(its header) exported to ONNX with dynamic batch and length, compiled with
`attune-compile MODEL.onnx`, and timed next to the hand-written attune model
compiled with the same flags, on the same inputs, in alternating rounds
(attune-run --bench; min over rounds), and next to ONNX Runtime running the
same .onnx file on the same inputs (compare_ort.js, when
scripts/install-deps.sh --bench installed it). Also times the import alone
(attune-import, weights included) of each export.

  /usr/bin/python3 bench/import_onnx.py [--build build] [--rounds 3] [--runs 20]
                   [--models encoder_layer,encoder_12_layers,decoder_step] [--threads 1]

Not a test: numbers depend on the machine's load.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import torch

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
import gen_golden  # noqa: E402


def bench(build, library, inputs, runs, threads):
    cmd = [f"{build}/bin/attune-run", str(library), "--bench", str(runs),
           "--threads", str(threads)]
    for name, path in inputs:
        cmd += ["--input", f"{name}={path}"]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    m = re.search(r"min ([\d.]+) ms", out)
    if not m:
        sys.exit(f"import_onnx: no timing in: {out}")
    return float(m.group(1))


def ort(onnx_path, case_dir, ort_node, runs, threads):
    """ONNX Runtime's best time (ms) on the same .onnx and inputs."""
    out = subprocess.run(
        ["node", str(ROOT / "bench" / "compare_ort.js"), "--threads", str(threads),
         "--repetitions", str(runs), f"m={onnx_path}:{case_dir}"],
        check=True, capture_output=True, text=True,
        env=dict(os.environ, ORT_NODE=str(ort_node))).stdout
    return json.loads(out)["m"]["min_ms"]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--build", default=str(ROOT / "build"))
    p.add_argument("--models", default="encoder_layer,encoder_12_layers,decoder_step")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--runs", type=int, default=20)
    p.add_argument("--threads", type=int, default=1)
    args = p.parse_args()
    work = Path(tempfile.mkdtemp(prefix="attune-import-bench-"))
    compile_args = [] if args.threads == 1 else ["--parallel"]
    ort_node = Path(args.build) / "ort" / "node_modules" / "onnxruntime-node"
    if not (ort_node / "package.json").exists():
        print("note: no ONNX Runtime (scripts/install-deps.sh --bench installs it)",
              file=sys.stderr)
        ort_node = None
    print("| model | shape | import s | hand-written ms | imported ms | "
          "imported / hand-written | ORT ms (same .onnx) | ORT / imported |")
    print("|---|---|---|---|---|---|---|---|")
    for name in args.models.split(","):
        model = ROOT / "bench" / "models" / f"{name}.mlir"
        module_expr, input_sets, call = gen_golden.parse_header(model)
        scope = gen_golden.header_scope()
        module = gen_golden.build_module(module_expr, scope)
        specs = input_sets[0]
        names = [s[0] for s in specs]
        generator = torch.Generator().manual_seed(0)
        example = [gen_golden.make_input(s, generator) for s in specs]

        class Call(torch.nn.Module):
            def __init__(self, inner):
                super().__init__()
                self.inner = inner

            def forward(self, *xs):
                return eval(call, dict(scope, module=self.inner,
                                       **dict(zip(names, xs))))

        onnx_path = work / f"{name}.onnx"
        dyn = {n: {0: "B", 1: f"L{i}"} for i, n in enumerate(names)}
        dyn["output"] = {0: "B", 1: "L0"}
        torch.onnx.export(Call(module).eval(), tuple(example), str(onnx_path),
                          opset_version=17, input_names=names,
                          output_names=["output"], dynamic_axes=dyn)
        # The hand-written model binds the module's keys; the export's are
        # the wrapper's ("inner." + key).
        weights = work / f"{name}.safetensors"
        gen_golden.save_safetensors(module.state_dict(), weights)
        start = time.perf_counter()
        subprocess.run([f"{args.build}/bin/attune-import", str(onnx_path), "-o",
                        str(work / f"{name}.imported.mlir"), "--weights-out",
                        str(work / f"{name}.imported.safetensors")], check=True)
        import_s = time.perf_counter() - start
        hand = work / f"{name}.hand.so"
        imported = work / f"{name}.imported.so"
        subprocess.run([f"{args.build}/bin/attune-compile", str(model), "--weights",
                        str(weights), "-o", str(hand), *compile_args], check=True)
        subprocess.run([f"{args.build}/bin/attune-compile", str(onnx_path), "-o",
                        str(imported), *compile_args], check=True)
        for k, specs in enumerate(input_sets):
            generator = torch.Generator().manual_seed(k)
            inputs = []
            case_dir = work / f"{name}.{k}"
            case_dir.mkdir()
            for s in specs:
                path = case_dir / f"{s[0]}.npy"
                np.save(path, gen_golden.to_numpy(gen_golden.make_input(s, generator)))
                inputs.append((s[0], path))
            sides = ["hand", "imported"] + (["ort"] if ort_node else [])
            best = {side: float("inf") for side in sides}
            for r in range(args.rounds):
                order = sides[r % len(sides):] + sides[:r % len(sides)]
                for side in order:
                    if side == "ort":
                        best[side] = min(best[side], ort(onnx_path, case_dir, ort_node,
                                                         args.runs, args.threads))
                        continue
                    lib = hand if side == "hand" else imported
                    best[side] = min(best[side], bench(args.build, lib, inputs,
                                                       args.runs, args.threads))
            shape = " ".join(f"{s[0]}{list(s[2])}" for s in specs)
            ort_cols = (f"{best['ort']:.2f} | {best['ort'] / best['imported']:.2f}"
                        if ort_node else "- | -")
            print(f"| {name} | {shape} | {import_s:.2f} | {best['hand']:.2f} | "
                  f"{best['imported']:.2f} | {best['imported'] / best['hand']:.3f} | "
                  f"{ort_cols} |", flush=True)


if __name__ == "__main__":
    main()
