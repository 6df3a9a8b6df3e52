#!/usr/bin/env python3
"""The generation benchmark: a GPT-2-small-sized decoder-only model
(bench/models/gpt2_generate.mlir: 12 layers, d 768, 12 heads, vocabulary
50,257, 2,048 positions, f32 weights on every side), greedy, batch 1,
Attune (attune-run --generate) against PyTorch eager with a key/value cache
(bench/generate_torch.py) and ONNX Runtime running the exported decoding
step with past key/value inputs (export_generate_onnx.py, generate_ort.js),
in the same run, 1 and 2 threads.

  /usr/bin/python3 bench/generate.py [--build build] [--prompt 128] [--new 128]
      [--contexts 128,512,1024,2039] [--threads 1,2] [--repetitions 2]
      [--only-contexts]

Tables: tokens/s for prompt + new tokens (Attune's tokens must be
PyTorch's); the time per step at each context (a prompt of that length,
then 8 steps: the last context 2,039 fills the 2,048 positions) next to the
memory-bandwidth bound (the bytes a step reads, weights and cache, over a
read-bandwidth probe's measure in the same run), with the no-cache loop
(the whole prefix re-run per token) at the middle context to show what the
cache saves. Not a test.
"""
import argparse
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
from run import cpu_model, openblas_core  # noqa: E402  (one definition)
MODEL = ROOT / "bench/models/gpt2_generate.mlir"


def model_positions():
    """The learned positions of MODEL (its header's module): the caches'
    capacity and the longest context."""
    return int(re.search(r"positions=(\d+)\)", MODEL.read_text()).group(1))


def sh(cmd, env=None):
    return subprocess.run(cmd, check=True, capture_output=True, text=True,
                          env=env).stdout


def attune(bin_dir, lib, prompt, new, threads, out_dir=None, extra=()):
    """attune-run --generate (with `threads`, unless None, and `extra`
    options): times, and the process's peak resident memory (bytes, from
    wait4's rusage)."""
    cmd = [str(bin_dir / "attune-run"), str(lib), "--generate", "--input",
           f"tokens={prompt}", "--max-new-tokens", str(new), *extra]
    if threads is not None:
        cmd += ["--threads", str(threads)]
    if out_dir:
        cmd += ["--output-dir", str(out_dir)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
    text = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode:
        sys.exit(f"attune-run failed ({proc.returncode}): {' '.join(cmd)}")
    m = re.search(r"in ([\d.]+) ms: .*first token ([\d.]+) ms \(prefill\), then "
                  r"([\d.]+) ms per step", text)
    total, prefill, step = map(float, m.groups())
    result = {"total_ms": total, "prefill_ms": prefill, "step_ms": step,
              "peak_rss": usage.ru_maxrss * 1024}
    # With --bench N in `extra`: the same generation again in the process.
    m = re.search(r"then \d+ generation\(s\): first token min ([\d.]+) ms, "
                  r"median ([\d.]+) ms", text)
    if m:
        result["warm_prefill_ms"] = tuple(map(float, m.groups()))
    return result


def torch_run(weights, prompt, new, threads, cache=True, out=None):
    cmd = [sys.executable, str(ROOT / "bench/generate_torch.py"), str(MODEL),
           str(weights), str(prompt), "--new", str(new), "--threads", str(threads)]
    if not cache:
        cmd.append("--no-cache")
    if out:
        cmd += ["--tokens-out", str(out)]
    env = dict(os.environ, OMP_NUM_THREADS=str(threads),
               OPENBLAS_CORETYPE=openblas_core())
    return json.loads(sh(cmd, env).strip().splitlines()[-1])


def read_bandwidth(work):
    """The best single-thread read bandwidth (bytes/s) of bench/stream_probe.c,
    a STREAM-like sum over 1 GiB, compiled here for this CPU."""
    probe = work / "stream_probe"
    sh(["cc", "-O3", "-march=native", "-o", str(probe), str(ROOT / "bench/stream_probe.c")])
    return float(sh([str(probe), "1024"]).strip()) * 1e9


def tensor_bytes(weights_path):
    """The bytes of each tensor of a safetensors file, from its header."""
    import struct
    with open(weights_path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n))
    return {k: v["data_offsets"][1] - v["data_offsets"][0]
            for k, v in header.items() if k != "__metadata__"}


def weight_and_cache_bytes(weights_path, capacity, layers=12, heads=12,
                           head_dim=64):
    """The weights (each once) and the caches at the model's capacity."""
    return (sum(tensor_bytes(weights_path).values())
            + layers * 2 * heads * capacity * head_dim * 4)


def bytes_per_token(weights_path, context, layers=12, heads=12, head_dim=64):
    """What a decoding step must read at `context`: every weight once (the
    tied embedding as the LM head; the position table contributes a row)
    and the keys and values of every layer up to the context."""
    weights = sum(n for k, n in tensor_bytes(weights_path).items()
                  if k != "wpe.weight")
    cache = layers * 2 * heads * context * head_dim * 4
    return weights + cache


def ort_run(onnx, prompt, new, threads, out=None):
    """ONNX Runtime's greedy loop (generate_ort.js) on the exported step."""
    cmd = ["node", str(ROOT / "bench/generate_ort.js"), str(onnx), str(prompt),
           "--new", str(new), "--threads", str(threads)]
    if out:
        cmd += ["--tokens-out", str(out)]
    return json.loads(sh(cmd).strip().splitlines()[-1])


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--build", default="build")
    p.add_argument("--prompt", type=int, default=128)
    p.add_argument("--new", type=int, default=128)
    p.add_argument("--contexts", default="128,512,1024,2039")
    p.add_argument("--threads", default="1,2")
    p.add_argument("--repetitions", type=int, default=2)
    p.add_argument("--only-contexts", action="store_true",
                   help="only the table over contexts")
    a = p.parse_args()
    build = (ROOT / a.build).resolve()
    bin_dir = build / "bin"
    work = build / "bench/generate"
    work.mkdir(parents=True, exist_ok=True)
    data = work / "gpt2_generate"
    # Made again when the model is newer (another size).
    if (not (data / "weights.safetensors").exists()
            or (data / "weights.safetensors").stat().st_mtime < MODEL.stat().st_mtime):
        print("making the weights (PyTorch, seeded)", flush=True)
        sh([sys.executable, str(ROOT / "scripts/gen_golden.py"), "--out", str(work),
            str(MODEL)])
    weights = data / "weights.safetensors"
    libs = {}
    for variant, flags in (("serial", []), ("parallel", ["--parallel"])):
        libs[variant] = work / f"gpt2_{variant}.so"
        # Recompiled when the model or the compiler is newer than the library.
        newest = max(MODEL.stat().st_mtime, (bin_dir / "attune-compile").stat().st_mtime)
        if not libs[variant].exists() or libs[variant].stat().st_mtime < newest:
            print(f"compiling ({variant})", flush=True)
            sh([str(bin_dir / "attune-compile"), str(MODEL), "--weights", str(weights),
                "-o", str(libs[variant]), *flags])
    # ONNX Runtime, when installed (scripts/install-deps.sh --bench): the
    # decoding step with past keys and values, exported from the same module.
    onnx = work / "gpt2_step.onnx"
    have_ort = (build / "ort/node_modules/onnxruntime-node/package.json").exists()
    if have_ort and (not onnx.exists() or onnx.stat().st_mtime < weights.stat().st_mtime):
        print("exporting the decoding step to ONNX", flush=True)
        sh([sys.executable, str(ROOT / "bench/export_generate_onnx.py"), str(MODEL),
            str(weights), str(onnx)])
    if not have_ort:
        print("note: no ONNX Runtime anchor (scripts/install-deps.sh --bench installs it)",
              file=sys.stderr)
    rng = np.random.default_rng(0)
    prompts = {}
    for n in sorted({a.prompt, *map(int, a.contexts.split(","))}):
        prompts[n] = work / f"prompt{n}.npy"
        np.save(prompts[n], rng.integers(0, 50257, (1, n), dtype=np.int64))

    print(f"CPU: {cpu_model()}; OpenBLAS kernels (PyTorch): {openblas_core()}")
    if a.only_contexts:
        a.threads = ""
    if a.threads:
        print(f"\nGPT-2-small-sized generation, prompt {a.prompt}, {a.new} new tokens, "
              f"greedy, batch 1 (best of {a.repetitions}):\n")
        print("| threads | Attune tokens/s | PyTorch (KV cache) tokens/s | ratio | "
              "ONNX Runtime (past KV) tokens/s | ratio | "
              "Attune prefill / step ms | PyTorch prefill / step ms | "
              "ORT prefill / step ms | same tokens |")
        print("|---|---|---|---|---|---|---|---|---|---|")
    for threads in (map(int, a.threads.split(",")) if a.threads else []):
        lib = libs["serial" if threads == 1 else "parallel"]
        best_a = best_t = best_o = None
        faster = lambda r, b: r if b is None or r["total_ms"] < b["total_ms"] else b
        for r in range(a.repetitions):
            best_a = faster(attune(bin_dir, lib, prompts[a.prompt], a.new, threads,
                                   work / "attune_out"), best_a)
            best_t = faster(torch_run(weights, prompts[a.prompt], a.new, threads,
                                      out=work / "torch_tokens.npy"), best_t)
            if have_ort:
                best_o = faster(ort_run(onnx, prompts[a.prompt], a.new, threads,
                                        out=work / "ort_tokens.json"), best_o)
        mine = np.load(work / "attune_out/tokens.npy")
        same = bool((mine == np.load(work / "torch_tokens.npy")).all())
        if have_ort:
            same &= json.loads((work / "ort_tokens.json").read_text()) == mine[0].tolist()
        ta = a.new / best_a["total_ms"] * 1e3
        tt = a.new / best_t["total_ms"] * 1e3
        to = a.new / best_o["total_ms"] * 1e3 if best_o else None
        ort_cells = (f"{to:.1f} | {ta / to:.2f}" if to else "- | -")
        ort_times = (f"{best_o['prefill_ms']:.0f} / {best_o['step_ms']:.1f}" if best_o else "-")
        print(f"| {threads} | {ta:.1f} | {tt:.1f} | {ta / tt:.2f} | {ort_cells} | "
              f"{best_a['prefill_ms']:.0f} / {best_a['step_ms']:.1f} | "
              f"{best_t['prefill_ms']:.0f} / {best_t['step_ms']:.1f} | {ort_times} | "
              f"{same} |", flush=True)
        warm = attune(bin_dir, lib, prompts[a.prompt], a.new, threads,
                      extra=("--bench", "3"))["warm_prefill_ms"]
        print(f"\n(Attune's prefill again in the process, `attune-run --bench 3`: "
              f"min {warm[0]:.0f} ms, median {warm[1]:.0f} ms; the table's prefills "
              "are each process's first, whose buffers fault in)", flush=True)
        peak = best_a["peak_rss"]
        base = weight_and_cache_bytes(weights, model_positions())
        print(f"\n(Attune's peak resident memory, {threads} thread(s): {peak / 1e6:.0f} MB, "
              f"{peak / base:.2f}x the weights and caches, {base / 1e6:.0f} MB; the "
              "step's activations come on top)\n", flush=True)

    contexts = list(map(int, a.contexts.split(",")))
    longest = model_positions() - 9
    if max(contexts) > longest:
        sys.exit(f"--contexts: {max(contexts)} is longer than {longest}, the longest "
                 f"prompt that 8 more steps fit in {model_positions()} positions")
    mid = contexts[len(contexts) // 2]
    bandwidth = read_bandwidth(work)
    print(f"\nTime per step (ms) at each context, 1 thread (a prompt of that length, "
          f"then 8 steps); the bound is the bytes a step reads (weights and cache) over "
          f"the read bandwidth measured now, {bandwidth / 1e9:.1f} GB/s (1 thread):\n")
    print("| context | Attune | bound | Attune / bound | PyTorch (KV cache) | ratio | "
          "PyTorch without a cache |")
    print("|---|---|---|---|---|---|---|")
    for c in contexts:
        ra = min((attune(bin_dir, libs["serial"], prompts[c], 9, 1)
                  for _ in range(a.repetitions)), key=lambda r: r["step_ms"])
        rt = min((torch_run(weights, prompts[c], 9, 1) for _ in range(a.repetitions)),
                 key=lambda r: r["step_ms"])
        nc = (f"{torch_run(weights, prompts[c], 3, 1, cache=False)['step_ms']:.1f}"
              if c == mid else "")
        bound = bytes_per_token(weights, c) / bandwidth * 1e3
        print(f"| {c} | {ra['step_ms']:.1f} | {bound:.1f} | {ra['step_ms'] / bound:.2f} | "
              f"{rt['step_ms']:.1f} | {rt['step_ms'] / ra['step_ms']:.2f} | {nc} |", flush=True)


if __name__ == "__main__":
    main()
