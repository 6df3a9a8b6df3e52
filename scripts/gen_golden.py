#!/usr/bin/env python3
"""Generates golden data for Attune models from their executable PyTorch
headers, which are the first lines of each model file:

  // torch.module: nn.TransformerEncoderLayer(d_model=64, nhead=4, batch_first=True)
  // torch.inputs: src=f32[2,16,64]
  // torch.call: module(src)

`torch.module` is a Python expression for an nn.Module whose state_dict keys
are the weight names the model binds; `torch.inputs` lists the entry's inputs
in order (`name=dtype[dims]`, integers with a range `{lo,hi}`; repeat the line
for more input shapes: each is one case); `torch.call` evaluates to the
outputs (a tensor or a tuple) over `module` and the inputs. In scope: torch,
nn, F (torch.nn.functional), math, ref (scripts/attune_ref.py) and
sinusoidal_positions.

For model M it writes DIR/M/weights.safetensors, DIR/M/caseK/<input>.npy and
DIR/M/caseK/output<i>.npy, and DIR/M/manifest.txt:
  case K
  input NAME FILE
  output NAME FILE

A generation model (one with a generation step) has, instead of
`torch.call`, the lines

  // torch.generate: ref.greedy(module, tokens, lengths, max_new_tokens=20, eos=2, pad=0)
  // torch.logits: ref.forced_logits(module, tokens, lengths, generated)
  // attune.generate: --max-new-tokens 20 --eos 2 --pad 0

`torch.generate` evaluates to the reference's new tokens [B, N] (int64,
padded after eos); `torch.logits` to the logits that chose them [B, N, V]
under teacher forcing (`generated` is the reference's tokens);
`attune.generate` holds the attune-run options that give the same tokens.
They are saved as caseK/generated.npy and caseK/forced_logits.npy, with manifest
lines `generated tokens FILE` and `forced logits FILE`.

Seeded: the same header always gives the same data. Parameters get small
random perturbations so that, e.g., layer-norm affine terms are exercised.
"""
import argparse
import json
import math
import os
import re
import struct
import sys
from pathlib import Path

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, str(Path(__file__).resolve().parent))
import attune_ref as ref  # noqa: E402

DTYPES = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16,
          "i32": torch.int32, "i64": torch.int64, "bool": torch.bool}
SAFETENSORS_DTYPES = {torch.float32: "F32", torch.float16: "F16", torch.bfloat16: "BF16",
                      torch.int64: "I64", torch.int32: "I32"}


class HeaderError(Exception):
    pass


def parse_header(path, full=False):
    """(module, inputs, call); with `full`, also a dict of the generation
    lines (generate, logits, options) when the model has them."""
    module = call = None
    inputs = []
    generation = {}
    for line in Path(path).read_text().splitlines():
        m = re.match(r"\s*//\s*(torch|attune)\.(module|inputs|call|generate|logits):\s*(.*)$", line)
        if not m:
            continue
        owner, kind, text = m.groups()
        if owner == "attune":
            if kind == "generate":
                generation["options"] = text
            continue
        if kind == "module":
            module = text
        elif kind == "call":
            call = text
        elif kind in ("generate", "logits"):
            generation[kind] = text
        else:
            inputs.append(parse_inputs(text, path))
    if generation and set(generation) != {"generate", "logits", "options"}:
        raise HeaderError(f"{path}: a generation model needs // torch.generate:, "
                          "// torch.logits: and // attune.generate: lines")
    if module is None or (call is None and not generation) or not inputs:
        raise HeaderError(f"{path}: needs // torch.module:, // torch.inputs: and "
                          "// torch.call: (or // torch.generate:) lines")
    return (module, inputs, call, generation) if full else (module, inputs, call)


def parse_inputs(text, path):
    specs = []
    for m in re.finditer(r"(\w+)=(\w+)\[([\d,\s]*)\](?:\{(-?\d+),(-?\d+)\})?", text):
        name, dtype, dims, lo, hi = m.groups()
        if dtype not in DTYPES:
            raise HeaderError(f"{path}: input {name}: unknown dtype {dtype}")
        shape = [int(d) for d in dims.split(",") if d.strip()]
        if dtype.startswith("i") and lo is None:
            raise HeaderError(f"{path}: integer input {name} needs a range {{lo,hi}}")
        specs.append((name, dtype, shape, None if lo is None else (int(lo), int(hi))))
    if not specs:
        raise HeaderError(f"{path}: cannot parse torch.inputs: {text}")
    return specs


def save_safetensors(tensors, path):
    header, chunks, offset = {}, [], 0
    for name, t in tensors.items():
        data = to_numpy(t.cpu()).tobytes()
        header[name] = {"dtype": SAFETENSORS_DTYPES[t.dtype], "shape": list(t.shape),
                        "data_offsets": [offset, offset + len(data)]}
        chunks.append(data)
        offset += len(data)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for c in chunks:
            f.write(c)


def to_numpy(t):
    """A tensor as NumPy data for np.save. NumPy has no bfloat16: bf16 is
    saved as its raw bits with descr '|V2', as ml_dtypes' arrays are (and as
    attune-run reads and writes them)."""
    t = t.detach().contiguous()
    if t.dtype == torch.bfloat16:
        return t.view(torch.int16).numpy().view(np.dtype("V2"))
    return t.numpy()


def make_input(spec, generator):
    name, dtype, shape, rng = spec
    if dtype == "bool":
        # A mask (true hides the position): about a third set, never the
        # first position of the last dim, so that no row hides everything
        # (PyTorch gives NaN there).
        m = torch.rand(shape, generator=generator) < 0.35
        m[..., 0] = False
        return m
    if rng is not None:
        return torch.randint(rng[0], rng[1], shape, generator=generator, dtype=DTYPES[dtype])
    return torch.randn(shape, generator=generator).to(DTYPES[dtype])


def header_scope():
    """The names a header's expressions may use."""
    return {"torch": torch, "nn": nn, "F": F, "math": math, "ref": ref,
            "sinusoidal_positions": ref.sinusoidal_positions}


def build_module(module_expr, scope):
    """The header's module with the weights `generate` saves (in eval mode):
    PyTorch's initialization, seeded, then every parameter moved by seeded
    noise, so that layers PyTorch creates as copies of one (the layers of
    nn.TransformerEncoder) differ, as a trained model's do."""
    torch.manual_seed(0)
    module = eval(module_expr, scope)
    with torch.no_grad():
        for p in module.parameters():
            p.add_(0.1 * torch.randn_like(p))
    return module.eval()


def load_case(model_path, case_dir):
    """For timing a model on one generated case: the header's module with
    the weights `generate` saved (build_module), its call expression, the scope to
    evaluate it in, and the case's inputs by name, in header order."""
    module_expr, cases, call_expr = parse_header(model_path)
    scope = header_scope()
    module = build_module(module_expr, scope)
    inputs = {s[0]: torch.from_numpy(np.load(Path(case_dir) / f"{s[0]}.npy"))
              for s in cases[0]}
    return module, call_expr, scope, inputs


def generate(model_path, out_root):
    module_expr, cases, call_expr, generation = parse_header(model_path, full=True)
    name = Path(model_path).stem
    out = Path(out_root) / name
    out.mkdir(parents=True, exist_ok=True)
    scope = header_scope()
    module = build_module(module_expr, scope)
    save_safetensors(module.state_dict(), out / "weights.safetensors")
    manifest = []
    generator = torch.Generator().manual_seed(1234)
    for k, specs in enumerate(cases):
        case_dir = out / f"case{k}"
        case_dir.mkdir(exist_ok=True)
        values = {}
        manifest.append(f"case {k}")
        for spec in specs:
            values[spec[0]] = make_input(spec, generator)
            np.save(case_dir / f"{spec[0]}.npy", to_numpy(values[spec[0]]))
            manifest.append(f"input {spec[0]} case{k}/{spec[0]}.npy")
        if generation:
            with torch.no_grad():
                env = dict(scope, module=module, **values)
                tokens = eval(generation["generate"], env)
                logits = eval(generation["logits"], dict(env, generated=tokens))
            np.save(case_dir / "generated.npy", tokens.numpy())
            np.save(case_dir / "forced_logits.npy", logits.float().numpy())
            manifest.append(f"generated tokens case{k}/generated.npy")
            manifest.append(f"forced logits case{k}/forced_logits.npy")
            continue
        with torch.no_grad():
            result = eval(call_expr, dict(scope, module=module, **values))
        results = result if isinstance(result, (tuple, list)) else (result,)
        for i, r in enumerate(results):
            np.save(case_dir / f"output{i}.npy", to_numpy(r))
            manifest.append(f"output output{i} case{k}/output{i}.npy")
    (out / "manifest.txt").write_text("\n".join(manifest) + "\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", required=True, help="output directory")
    parser.add_argument("--stamp", help="file to touch when done")
    parser.add_argument("models", nargs="+")
    args = parser.parse_args()
    torch.set_num_threads(1)
    stems = {}
    for m in args.models:
        stem = Path(m).stem
        if stem in stems:
            sys.exit(f"gen_golden: error: {m} and {stems[stem]} share the name "
                     f"'{stem}'; golden data is keyed by file name")
        stems[stem] = m
    failed = False
    for m in args.models:
        try:
            generate(m, args.out)
        except HeaderError as e:
            print(f"gen_golden: error: {e}", file=sys.stderr)
            failed = True
    if failed:
        sys.exit(1)
    if args.stamp:
        Path(args.stamp).touch()


if __name__ == "__main__":
    main()
