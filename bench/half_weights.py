#!/usr/bin/env python3
"""Half-precision GEMM weights on the generation bench model (issue 28):
speed and accuracy of `--gemm-weights=bf16`, `--gemm-weights=f16` and
`--gemm-compute=bf16` (bf16 weights and activations, "bf16c") against f32
weights, in one run.

  /usr/bin/python3 bench/half_weights.py [--build build] [--prompt 128]
      [--new 64] [--rounds 2]

Works in BUILD/bench/generate (bench/generate.py's directory: its model
weights and prompts are reused, made there if missing). Compiles
bench/models/gpt2_generate.mlir four times (--parallel: the same library
serves 1 and 2 threads) and prints:

- per decoding step (ms) and prefill (ms) for each weight type, rounds
  alternating between the types, on 1 and 2 threads; the speedup is f32's
  step over the half type's step, per round;
- accuracy under teacher forcing (every type fed f32's greedy tokens): per
  step, the largest logit change divided by the step's largest |logit|
  (its maximum over the steps, and at the prefill), the relative L2 error,
  and how often the argmax is f32's;
- the format's own error: PyTorch (scripts/attune_ref.py's GPT, f32
  arithmetic) with the linear layers' weights and the tied LM head rounded
  to the same type, over the same tokens: Attune's half-weight logits must
  be those within f32 rounding, which shows the error is the format's, not
  the kernels'.

Not a test.
"""
import argparse
import json
import os
import platform
import re
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import torch

ROOT = Path(__file__).resolve().parent.parent
MODEL = ROOT / "bench/models/gpt2_generate.mlir"
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(ROOT / "bench"))
import attune_ref as ref  # noqa: E402
from generate_torch import load_safetensors  # noqa: E402

TYPES = ("f32", "bf16", "f16", "bf16c")
# Each type's attune-compile flag.
FLAGS = {"f32": "--gemm-weights=f32", "bf16": "--gemm-weights=bf16",
         "f16": "--gemm-weights=f16", "bf16c": "--gemm-compute=bf16"}


def run(cmd):
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"failed ({proc.returncode}): {' '.join(map(str, cmd))}\n{proc.stderr}")
    return proc.stdout + proc.stderr


def generate(bin_dir, lib, prompt, new, threads, extra=()):
    out = run([bin_dir / "attune-run", lib, "--generate", "--input", f"tokens={prompt}",
               "--max-new-tokens", str(new), "--threads", str(threads), *extra])
    m = re.search(r"first token ([\d.]+) ms \(prefill\), then ([\d.]+) ms per step", out)
    if not m:
        sys.exit(f"no timing in attune-run's output:\n{out}")
    return float(m.group(1)), float(m.group(2))


def torch_logits(model, tokens, dtype):
    """Logits [T, V] of `tokens` [1, T] with the linear layers' weights and
    the LM head rounded to `dtype` (None: f32), as Attune's
    --gemm-weights packs them (the embedding gathers stay f32); "bf16c":
    the inputs of those GEMMs rounded to bf16 as well (--gemm-compute)."""
    if dtype == "bf16c":
        rounded = lambda t: t.bfloat16().float()  # noqa: E731
        head = model.wte.weight
        return ref.bf16_gemms(lambda: torch_logits_with(
            model, tokens, lambda x: torch.matmul(rounded(x), rounded(head).t())))
    state = {k: v.clone() for k, v in model.state_dict().items()}
    with torch.no_grad():
        if dtype is not None:
            for name, p in model.named_parameters():
                if p.dim() == 2 and not name.startswith(("wte", "wpe")):
                    p.copy_(p.to(dtype).float())
        head = model.wte.weight if dtype is None else model.wte.weight.to(dtype).float()
        logits = torch_logits_with(model, tokens, lambda x: torch.matmul(x, head.t()))
    model.load_state_dict(state)
    return logits


def torch_logits_with(model, tokens, lm_head):
    """Logits [T, V] of `tokens` [1, T], the LM head `lm_head(x)`."""
    with torch.no_grad():
        b, t = tokens.shape
        x = model.wte(tokens) + model.wpe(torch.arange(t))[None]
        for block in model.h:
            q, k, v = block.attn.c_attn(block.ln_1(x)).chunk(3, dim=-1)
            split = lambda y: y.reshape(b, t, model.heads, -1).transpose(1, 2)  # noqa: E731
            a = ref.attention(split(q), split(k), split(v), causal=True)
            x = x + block.attn.c_proj(a.transpose(1, 2).reshape(b, t, -1))
            h = torch.nn.functional.gelu(block.mlp.c_fc(block.ln_2(x)), approximate="tanh")
            x = x + block.mlp.c_proj(h)
        return lm_head(model.ln_f(x))[0].numpy()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--build", default="build")
    p.add_argument("--prompt", type=int, default=128)
    p.add_argument("--new", type=int, default=64)
    p.add_argument("--rounds", type=int, default=2)
    a = p.parse_args()
    build = Path(a.build).resolve()
    bin_dir = build / "bin"
    work = build / "bench/generate"
    weights = work / "gpt2_generate/weights.safetensors"
    prompt = work / f"prompt{a.prompt}.npy"
    if not weights.exists() or not prompt.exists():
        sys.exit(f"no {weights} or {prompt}: run bench/generate.py first")
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo")
                if l.startswith("model name")), platform.processor())
    print(f"CPU: {cpu}; {os.cpu_count()} cores")

    libs = {}
    for t in TYPES:
        libs[t] = work / f"gpt2_weights_{t}.so"
        newest = max(MODEL.stat().st_mtime, (bin_dir / "attune-compile").stat().st_mtime)
        if not libs[t].exists() or libs[t].stat().st_mtime < newest:
            start = time.time()
            run([bin_dir / "attune-compile", MODEL, "--weights", weights, "--parallel",
                 FLAGS[t], "-o", libs[t]])
            print(f"compiled {FLAGS[t]} in {time.time() - start:.0f} s "
                  f"({libs[t].stat().st_size / 1e6:.0f} MB)", flush=True)

    print(f"\nprompt {a.prompt}, {a.new} new tokens, batch 1; ms (prefill / per step)")
    for threads in (1, 2):
        rows = {t: [] for t in TYPES}
        for _ in range(a.rounds):
            for t in TYPES:
                rows[t].append(generate(bin_dir, libs[t], prompt, a.new, threads))
        for t in TYPES:
            cells = ", ".join(f"{pf:.0f} / {st:.1f}" for pf, st in rows[t])
            speed = "" if t == "f32" else "  faster per step: " + ", ".join(
                f"{f[1] / h[1]:.2f}x" for f, h in zip(rows["f32"], rows[t]))
            print(f"  {threads} thread(s) {t:>4}: {cells}{speed}", flush=True)

    # Accuracy: every type fed f32's greedy tokens.
    out = {t: work / f"half_weights_{t}" for t in TYPES}
    generate(bin_dir, libs["f32"], prompt, a.new, 2,
             ["--output-dir", out["f32"], "--save-logits"])
    forced = out["f32"] / "tokens.npy"
    for t in TYPES[1:]:
        generate(bin_dir, libs[t], prompt, a.new, 2,
                 ["--force", forced, "--output-dir", out[t], "--save-logits"])
    logits = {t: np.load(out[t] / "logits.npy")[0] for t in TYPES}
    ref32 = logits["f32"]
    tokens = torch.from_numpy(np.concatenate(
        [np.load(prompt), np.load(forced)[:, :-1]], axis=1))
    header = MODEL.read_text()
    model = eval(re.search(r"//\s*torch\.module:\s*(.*)", header).group(1),
                 {"ref": ref, "torch": torch})
    model.load_state_dict(load_safetensors(weights))
    model.eval()
    torch.set_num_threads(2)
    steps = slice(a.prompt - 1, a.prompt - 1 + a.new)
    print(f"\naccuracy against f32 weights (teacher-forced, {a.new} steps; "
          f"largest |logit| {np.abs(ref32).max():.1f}, rms {np.sqrt((ref32 ** 2).mean()):.1f})")
    t32 = torch_logits(model, tokens, None)[steps]
    print(f"  f32: Attune against PyTorch, max |diff| {np.abs(ref32 - t32).max():.2e}")
    for t in TYPES[1:]:
        d = np.abs(logits[t] - ref32)
        rel = d.max(axis=1) / np.abs(ref32).max(axis=1)
        l2 = np.linalg.norm(logits[t] - ref32, axis=1) / np.linalg.norm(ref32, axis=1)
        same = (logits[t].argmax(1) == ref32.argmax(1)).mean()
        rounded = torch_logits(model, tokens, {"bf16": torch.bfloat16,
                                               "f16": torch.float16,
                                               "bf16c": "bf16c"}[t])[steps]
        print(f"  {t:>4}: max |diff| / max |logit| {rel.max():.4f} (prefill {rel[0]:.4f}, "
              f"median {np.median(rel):.4f}); relative L2 {l2.max():.4f}; argmax "
              f"kept {same * 100:.0f} %; against PyTorch with {t}-rounded weights: "
              f"max |diff| {np.abs(logits[t] - rounded).max():.2e}", flush=True)
        if t == "bf16c":
            # Rounding activations makes the result sensitive to f32 noise:
            # an input that differs in its last bit may round to the next
            # bf16. PyTorch against itself with the position embeddings
            # scaled by 1 + 2^-23 shows how far that alone moves the logits.
            saved = model.wpe.weight.detach().clone()
            with torch.no_grad():
                model.wpe.weight.mul_(1 + 2 ** -23)
            noisy = torch_logits(model, tokens, "bf16c")[steps]
            with torch.no_grad():
                model.wpe.weight.copy_(saved)
            print(f"        PyTorch bf16c against itself with f32 noise in one input: "
                  f"max |diff| {np.abs(noisy - rounded).max():.2e}", flush=True)


if __name__ == "__main__":
    main()
