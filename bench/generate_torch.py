#!/usr/bin/env python3
"""PyTorch anchors for generation: greedy decoding of scripts/attune_ref.py's
ref.GPT written the usual way with a key/value cache (past keys and values
concatenated each step, torch.nn.functional.scaled_dot_product_attention
where this PyTorch has it), and the same loop without a cache (the whole
prefix re-run per token).

  generate_torch.py MODEL.mlir WEIGHTS.safetensors PROMPT.npy --new N
      [--threads T] [--no-cache] [--repetitions R] [--tokens-out FILE.npy]

Prints one JSON line: {"prefill_ms", "step_ms", "total_ms", "tokens"} with
each time the best over the repetitions; the tokens are those of the last
repetition. Not a test.
"""
import argparse
import json
import re
import sys
import time
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))
import attune_ref as ref  # noqa: E402


def load_safetensors(path):
    import struct
    data = Path(path).read_bytes()
    n = struct.unpack("<Q", data[:8])[0]
    header = json.loads(data[8:8 + n])
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        a, b = info["data_offsets"]
        dtype = {"F32": np.float32, "I64": np.int64}[info["dtype"]]
        out[name] = torch.from_numpy(
            np.frombuffer(data, dtype=dtype, count=(b - a) // np.dtype(dtype).itemsize,
                          offset=8 + n + a).reshape(info["shape"]).copy())
    return out


def block_step(block, x, past, heads):
    """One block over x [1, T, E] with the cache `past` (k, v [1, H, t, D]
    or None): the new x and cache."""
    b, t, e = x.shape
    q, k, v = block.attn.c_attn(block.ln_1(x)).split(e, dim=-1)
    split = lambda y: y.view(b, t, heads, e // heads).transpose(1, 2)
    q, k, v = split(q), split(k), split(v)
    if past is not None:
        k = torch.cat([past[0], k], dim=2)
        v = torch.cat([past[1], v], dim=2)
    if hasattr(torch.nn.functional, "scaled_dot_product_attention"):
        a = torch.nn.functional.scaled_dot_product_attention(
            q, k, v, is_causal=past is None and t > 1)
    else:
        s = q @ k.transpose(-1, -2) / (e // heads) ** 0.5
        if t > 1:
            s = s + torch.triu(torch.full((t, k.shape[2]), float("-inf")),
                               k.shape[2] - t + 1)
        a = torch.softmax(s, -1) @ v
    x = x + block.attn.c_proj(a.transpose(1, 2).reshape(b, t, e))
    h = torch.nn.functional.gelu(block.mlp.c_fc(block.ln_2(x)), approximate="tanh")
    return x + block.mlp.c_proj(h), (k, v)


def generate_cached(model, prompt, new):
    """Greedy with a cache: (tokens, prefill seconds, seconds per step)."""
    past = [None] * len(model.h)
    tokens = prompt[0].tolist()
    ids = prompt
    start = time.perf_counter()
    steps = []
    for s in range(new):
        t0 = time.perf_counter()
        offset = len(tokens) - ids.shape[1]
        x = model.wte(ids) + model.wpe(torch.arange(offset, offset + ids.shape[1]))[None]
        for i, block in enumerate(model.h):
            x, past[i] = block_step(block, x, past[i], model.heads)
        logits = model.ln_f(x[:, -1]) @ model.wte.weight.t()
        token = int(torch.argmax(logits[0]))
        tokens.append(token)
        ids = torch.tensor([[token]])
        steps.append(time.perf_counter() - t0)
    prefill = steps[0]
    per_step = sum(steps[1:]) / max(1, len(steps) - 1)
    return tokens[prompt.shape[1]:], prefill, per_step, time.perf_counter() - start


def generate_uncached(model, prompt, new):
    tokens = prompt[0].tolist()
    start = time.perf_counter()
    steps = []
    for _ in range(new):
        t0 = time.perf_counter()
        token = int(torch.argmax(model(torch.tensor([tokens]))[0, -1]))
        tokens.append(token)
        steps.append(time.perf_counter() - t0)
    return (tokens[prompt.shape[1]:], steps[0],
            sum(steps[1:]) / max(1, len(steps) - 1), time.perf_counter() - start)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("model")
    p.add_argument("weights")
    p.add_argument("prompt")
    p.add_argument("--new", type=int, required=True)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--no-cache", action="store_true")
    p.add_argument("--repetitions", type=int, default=1)
    p.add_argument("--tokens-out")
    a = p.parse_args()
    torch.set_num_threads(a.threads)
    header = Path(a.model).read_text()
    expr = re.search(r"//\s*torch\.module:\s*(.*)", header).group(1)
    model = eval(expr, {"ref": ref, "torch": torch})
    model.load_state_dict(load_safetensors(a.weights))
    model.eval()
    prompt = torch.from_numpy(np.load(a.prompt))
    best = None
    with torch.no_grad():
        for _ in range(a.repetitions):
            run = (generate_uncached if a.no_cache else generate_cached)(model, prompt, a.new)
            if best is None or run[3] < best[3]:
                best = run
    tokens, prefill, step, total = best
    if a.tokens_out:
        np.save(a.tokens_out, np.array([tokens], dtype=np.int64))
    print(json.dumps({"prefill_ms": prefill * 1e3, "step_ms": step * 1e3,
                      "total_ms": total * 1e3, "tokens": len(tokens)}))


if __name__ == "__main__":
    main()
