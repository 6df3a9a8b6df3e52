#!/usr/bin/env python3
"""One command for the benchmark table: Attune against its anchors, in the
same run, 1 and 2 threads, best against best.

  /usr/bin/python3 bench/run.py [--build build] [--repetitions 5] [--quick] [--models attention,linear_768x768]

Steps: PyTorch makes weights and inputs from each model's header
(bench/models/*.mlir); attune-compile builds each model twice (serial for 1
thread, --parallel for more); then, in rounds, each case is timed by
attune-bench (Attune and OpenBLAS sgemm, interleaved), compare_torch.py
(PyTorch) and compare_ort.js (ONNX Runtime) back to back, in a rotating
order, and each side's number is its fastest single run over the rounds.
Ratios are anchor / Attune (> 1: Attune is faster), with the median and the
lowest of the rounds' own ratios; a last table gives each compile's wall
time and peak memory. Not a test: numbers depend on the machine's load.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def sh(cmd, env=None):
    return subprocess.run(cmd, check=True, capture_output=True, text=True, env=env).stdout


def timed_compile(cmd):
    """Runs attune-compile: its wall time (s) and peak resident memory (MiB)."""
    start = time.perf_counter()
    with tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        seconds = time.perf_counter() - start
        if proc.returncode != 0:
            err.seek(0)
            raise subprocess.CalledProcessError(proc.returncode, cmd,
                                                stderr=err.read().decode(errors="replace"))
    return seconds, usage.ru_maxrss / 1024  # ru_maxrss is in KiB on Linux


def anchor_of(case, times):
    """The anchor of `case` and its time among `times` (tool -> ms): OpenBLAS
    for the linear shapes, else the faster of PyTorch and ONNX Runtime
    (PyTorch on a tie)."""
    if case["anchor"] == "openblas":
        return "openblas", times.get("openblas")
    return min(((tool, times[tool]) for tool in ("torch", "ort") if tool in times),
               key=lambda p: p[1])


def cpu_model():
    """The CPU the tables were taken on: /proc/cpuinfo's model name, vendor,
    family and model, and the cores this process may use."""
    info = {}
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            key, _, value = line.partition(":")
            info.setdefault(key.strip(), value.strip())
    except OSError:
        return "unknown CPU"
    flags = info.get("flags", "").split()
    isa = [f for f in ("avx512f", "avx512_bf16", "amx_tile") if f in flags]
    return (f"{info.get('model name', '?')} ({info.get('vendor_id', '?')}, family "
            f"{info.get('cpu family', '?')}, model {info.get('model', '?')}; "
            f"{', '.join(isa) or 'no AVX-512'}; {len(os.sched_getaffinity(0))} cores)")


def openblas_core():
    """The OpenBLAS core type whose kernels this CPU's ISA runs best."""
    flags = set()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("flags"):
                flags = set(line.split(":", 1)[1].split())
                break
    except OSError:
        pass
    if "avx512f" in flags:
        return "Cooperlake" if "avx512_bf16" in flags else "SkylakeX"
    if "avx2" in flags:
        return "Haswell"
    return "Nehalem"


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--build", default=str(ROOT / "build"))
    p.add_argument("--repetitions", type=int, default=5,
                   help="rounds: each tool times each case once per round")
    p.add_argument("--quick", action="store_true", help="only the smallest case of each model")
    p.add_argument("--compile-arg", action="append", default=[],
                   help="an extra attune-compile flag for every model, e.g. "
                        "--compile-arg=--gemm-compute=bf16 (repeat for more)")
    p.add_argument("--threads", default="1,2")
    p.add_argument("--vulkan", action="store_true",
                   help="also time attention on the Vulkan device (lavapipe in CI): "
                        "the fused kernel against the plain lowering of the same model")
    p.add_argument("--vulkan-only", action="store_true", help="only the Vulkan table")
    p.add_argument("--models", default="",
                   help="comma-separated model names (bench/models/NAME.mlir); default: all")
    args = p.parse_args()
    build = Path(args.build)
    bin_dir = build / "bin"
    if not (bin_dir / "attune-bench").exists():
        sys.exit("attune-bench is not built: install libbenchmark-dev libopenblas-dev, "
                 "then `ninja -C build attune-bench`")
    work = build / "bench"
    # Generation models have their own benchmark (bench/generate.py).
    models = sorted(m for m in (ROOT / "bench" / "models").glob("*.mlir")
                    if "// torch.generate:" not in m.read_text())
    if args.models:
        wanted = args.models.split(",")
        unknown = sorted(set(wanted) - {m.stem for m in models})
        if unknown:
            sys.exit(f"unknown model(s) {', '.join(unknown)}; bench/models has "
                     f"{', '.join(m.stem for m in models)}")
        models = [m for m in models if m.stem in wanted]
    print(f"CPU: {cpu_model()}")
    if args.compile_arg:
        print(f"attune-compile flags: {' '.join(args.compile_arg)}")
    print("generating weights and inputs with PyTorch ...", file=sys.stderr)
    sh(["/usr/bin/python3", str(ROOT / "scripts" / "gen_golden.py"), "--out", str(work / "data"),
        *map(str, models)])

    env = dict(os.environ)
    # docs/toolchain.md: the environment's OPENBLAS_CORETYPE caps OpenBLAS at
    # AVX2, and Debian's OpenBLAS 0.3.21 takes CPUs newer than it (Emerald
    # Rapids, model 207) for a Prescott (SSE3 kernels, 5x slower): the
    # anchors (OpenBLAS, and PyTorch on it) get the best kernels the ISA runs.
    env["OPENBLAS_CORETYPE"] = openblas_core()
    print(f"OpenBLAS kernels: {env['OPENBLAS_CORETYPE']} (OPENBLAS_CORETYPE)")
    cases = []  # one dict per case: its name, anchor kind and each tool's spec
    # ONNX Runtime for the layer models, when installed (install-deps.sh
    # --bench): exported from the same headers.
    ort_node = build / "ort" / "node_modules" / "onnxruntime-node"
    if not (ort_node / "package.json").exists():
        print("note: no ONNX Runtime anchor (scripts/install-deps.sh --bench installs it)",
              file=sys.stderr)
        ort_node = None
    compiled = []  # (model (variant), wall seconds, peak RSS MiB)
    for model in models:
        stem = model.stem
        data = work / "data" / stem
        for variant, flags in (("serial", []), ("parallel", ["--parallel"])):
            compiled.append((f"{stem} ({variant})", *timed_compile(
                [str(bin_dir / "attune-compile"), str(model), "--weights",
                 str(data / "weights.safetensors"), "-o", str(work / f"{stem}.{variant}.so"),
                 *flags, *args.compile_arg])))
        manifest = (data / "manifest.txt").read_text().split("case ")[1:]
        for k, block in enumerate(manifest):
            if args.quick and k > 0:
                break
            inputs = [line.split()[2] for line in block.splitlines() if line.startswith("input")]
            case_dir = data / f"case{k}"
            shape = sh(["/usr/bin/python3", "-c",
                        f"import numpy; print(list(numpy.load('{data / inputs[0]}').shape))"]).strip()
            name = f"{stem}{shape}".replace(" ", "")
            files = ",".join(str(data / i) for i in inputs)
            case = {"name": name, "anchor": "torch", "sgemm": None, "ort": None,
                    "torch": f"{name}={model}:{case_dir}",
                    "attune": {t: f"{name}={work / f'{stem}.{v}.so'}:{files}"
                               for t, v in ((1, "serial"), (2, "parallel"))}}
            if ort_node and not stem.startswith(("linear_", "attention")):
                onnx = work / f"{name}.onnx"
                case["export"] = [f"{onnx}={model}:{case_dir}"]
                case["ort"] = f"{name}={onnx}:{case_dir}"
            if ort_node and stem == "attention":
                # ONNX Runtime's fused CPU attention kernel (the contrib op
                # com.microsoft.MultiHeadAttention; it has no causal mask).
                onnx = work / f"{name}.mha.onnx"
                case["export"] = ["--mha", f"{onnx}={model}:{case_dir}"]
                case["ort"] = f"{name}={onnx}:{case_dir}"
            if stem.startswith("linear_"):
                kk, n = stem[len("linear_"):].split("x")
                m = shape.strip("[]").split(",")[1]
                case["sgemm"] = f"{name}={m},{kk},{n}"
                case["anchor"] = "openblas"
            cases.append(case)

    if args.vulkan or args.vulkan_only:
        vulkan_table(args, bin_dir, work, models)
    if args.vulkan_only:
        return
    if any(c["ort"] for c in cases):
        print("exporting the layer models to ONNX ...", file=sys.stderr)
    for case in cases:
        if case["ort"]:
            try:
                sh(["/usr/bin/python3", str(ROOT / "bench" / "export_onnx.py"), *case["export"]])
            except subprocess.CalledProcessError as e:
                print(f"note: no ONNX Runtime time for {case['name']}: the export failed:\n"
                      f"{e.stderr.strip().splitlines()[-1]}", file=sys.stderr)
                case["ort"] = None
    for threads in map(int, args.threads.split(",")):
        # Rounds. In each round every case is timed by each of its tools in
        # turn, back to back (the tools' order rotating from case to case
        # and round to round): each tool >= 2 runs and >= 0.5 s after 2
        # warm-up runs (Attune and OpenBLAS in one attune-bench process,
        # randomly interleaved). So Attune's and its anchors' runs of one
        # case lie seconds apart and sample the same stretches of the VM's
        # drifting throughput. Each side's number is its fastest single run
        # over all rounds (best against best); the rounds' own ratios
        # (anchor / Attune within the round) are reported too, as a check
        # that the best-against-best ratio is not one lucky stretch.
        best = {}  # (tool, case name) -> fastest single run over the rounds
        round_ratios = {c["name"]: [] for c in cases}

        def time_attune(case):
            cmd = [str(bin_dir / "attune-bench"), "--threads", str(threads),
                   "--benchmark_format=json", "--benchmark_repetitions=1",
                   "--benchmark_enable_random_interleaving=true",
                   "--model", case["attune"][1 if threads == 1 else 2]]
            if case["sgemm"]:
                cmd += ["--sgemm", case["sgemm"]]
            report = json.loads(sh(cmd, env))
            # The fastest single run of the repetition (counter best_ms).
            return {b["run_name"].split("/")[0]: b["best_ms"]
                    for b in report["benchmarks"] if b.get("run_type") == "iteration"}

        def time_torch(case):
            out = json.loads(sh(["/usr/bin/python3", str(ROOT / "bench" / "compare_torch.py"),
                                 "--threads", str(threads), "--repetitions", "2",
                                 "--seconds", "0.5", case["torch"]], env))
            return {"torch": out[case["name"]]["min_ms"]}

        def time_ort(case):
            if not case["ort"]:
                return {}
            out = json.loads(sh(["node", str(ROOT / "bench" / "compare_ort.js"),
                                 "--threads", str(threads), "--repetitions", "2",
                                 "--seconds", "0.5", case["ort"]],
                                dict(env, ORT_NODE=str(ort_node))))
            return {"ort": out[case["name"]]["min_ms"]}

        timers = [time_attune, time_torch, time_ort]
        for r in range(args.repetitions):
            print(f"timing Attune, OpenBLAS, PyTorch and ONNX Runtime, {threads} thread(s), "
                  f"round {r + 1} of {args.repetitions} ...", file=sys.stderr)
            for k, case in enumerate(cases):
                times = {}
                shift = (r + k) % 3
                for timer in timers[shift:] + timers[:shift]:
                    times.update(timer(case))
                for tool, t in times.items():
                    key = (tool, case["name"])
                    best[key] = min(best.get(key, float("inf")), t)
                _, anchor = anchor_of(case, times)
                if times.get("attune") and anchor:
                    round_ratios[case["name"]].append(anchor / times["attune"])
        print(f"\n{threads} thread(s), fastest single run over {args.repetitions} rounds; in each "
              f"round each case is timed by its tools back to back, each tool >= 2 runs and "
              f">= 0.5 s after 2 warm-ups "
              f"(ratio = anchor / Attune; > 1 means Attune is faster; the layers' anchor is "
              f"the faster of PyTorch and ONNX Runtime; rounds: the median and the lowest of "
              f"the rounds' own ratios)")
        print(f"| {'case':34} | {'Attune ms':>10} | {'anchor':8} | {'anchor ms':>10} | {'ratio':>6} "
              f"| {'rounds':>11} | {'PyTorch ms':>10} | {'ORT ms':>8} |")
        print(f"|{'-' * 36}|{'-' * 12}|{'-' * 10}|{'-' * 12}|{'-' * 8}|{'-' * 13}|{'-' * 12}|{'-' * 10}|")
        for case in cases:
            name = case["name"]
            bests = {tool: t for (tool, n), t in best.items() if n == name}
            mine, pt, ort = bests.get("attune"), bests.get("torch"), bests.get("ort")
            anchor, other = anchor_of(case, bests)
            ratio = other / mine if mine and other else float("nan")
            rr = round_ratios[name]
            rounds = f"{statistics.median(rr):.2f} / {min(rr):.2f}" if rr else "-"
            ort_text = f"{ort:8.3f}" if ort is not None else f"{'-':>8}"
            print(f"| {name:34} | {mine:10.3f} | {anchor:8} | {other:10.3f} | {ratio:6.2f} "
                  f"| {rounds:>11} | {pt:10.3f} | {ort_text} |")
    print("\nattune-compile (wall time and peak resident memory of each compile)")
    print(f"| {'model':34} | {'seconds':>8} | {'peak MiB':>8} |")
    print(f"|{'-' * 36}|{'-' * 10}|{'-' * 10}|")
    for name, seconds, mib in compiled:
        print(f"| {name:34} | {seconds:8.1f} | {mib:8.0f} |")


def vulkan_table(args, bin_dir, work, models):
    """The fused attention kernels (per query row, and with key/value tiles
    in shared memory) vs the plain (scores materialized) lowering of the same
    model on the Vulkan device, alternating, best of each."""
    import re
    variants = (("row", ["--vulkan-profile=baseline,shared-attention=0"]),
                ("shared", ["--vulkan-profile=baseline,shared-attention=1"]),
                ("subgroup", ["--vulkan-profile=lavapipe,subgroup-attention=1"]),
                ("plain", ["--vulkan-fused-attention=false"]))
    rows = []
    for model in models:
        if not model.stem.startswith("attention"):
            continue
        data = work / "data" / model.stem
        libs = {}
        for variant, flags in variants:
            libs[variant] = work / f"{model.stem}.vulkan-{variant}.so"
            sh([str(bin_dir / "attune-compile"), str(model), "--target=vulkan",
                "-o", str(libs[variant]), *flags])
        blocks = (data / "manifest.txt").read_text().split("case ")[1:]
        for k, block in enumerate(blocks[:1 if args.quick else 2]):
            inputs = [line.split() for line in block.splitlines() if line.startswith("input")]
            flags = [a for _, n, f in inputs for a in ("--input", f"{n}={data / f}")]
            best = {}
            for _ in range(max(2, args.repetitions // 2)):
                for variant, _ in variants:
                    out = sh([str(bin_dir / "attune-run"), str(libs[variant]), "--device=vulkan",
                              *flags, "--bench", "3"])
                    ms = float(re.search(r"min ([0-9.]+) ms", out).group(1))
                    best[variant] = min(best.get(variant, ms), ms)
            shape = sh(["/usr/bin/python3", "-c",
                        f"import numpy; print(list(numpy.load('{data / inputs[0][2]}').shape))"]).strip()
            rows.append((f"{model.stem}{shape}".replace(" ", ""), best))
    print("\nVulkan (attune-run --device=vulkan, min of alternating rounds; ratios = plain / fused)")
    print(f"| {'case':34} | {'row ms':>9} | {'shared ms':>9} | {'subgroup ms':>11} | "
          f"{'plain ms':>9} | {'row':>5} | {'shared':>6} | {'subgroup':>8} |")
    print(f"|{'-' * 36}|{'-' * 11}|{'-' * 11}|{'-' * 13}|{'-' * 11}|{'-' * 7}|{'-' * 8}|{'-' * 10}|")
    for name, best in rows:
        print(f"| {name:34} | {best['row']:9.3f} | {best['shared']:9.3f} | {best['subgroup']:11.3f} | "
              f"{best['plain']:9.3f} | {best['plain'] / best['row']:5.2f} | "
              f"{best['plain'] / best['shared']:6.2f} | {best['plain'] / best['subgroup']:8.2f} |")


if __name__ == "__main__":
    main()
