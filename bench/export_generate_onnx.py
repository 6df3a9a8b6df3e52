#!/usr/bin/env python3
"""Exports the decoding step of a ref.GPT model (bench/models/
gpt2_generate.mlir's header, weights from its safetensors) to ONNX the way
the ONNX Runtime generation examples run it: inputs `input_ids` [1, T] and
`past_k_i`, `past_v_i` [1, H, P, D] per layer (P = 0 for the prompt);
outputs `logits` [1, V] of the last token and `present_k_i`, `present_v_i`
[1, H, P + T, D] (the past with the new keys appended), dynamic T and P.

  export_generate_onnx.py MODEL.mlir WEIGHTS.safetensors OUT.onnx
"""
import re
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
import attune_ref as ref  # noqa: E402
from generate_torch import load_safetensors  # noqa: E402


class Step(torch.nn.Module):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, input_ids, *past):
        m = self.model
        b, t = input_ids.shape
        p = past[0].shape[2]
        x = m.wte(input_ids) + m.wpe(torch.arange(t) + p)[None]
        presents = []
        for i, block in enumerate(m.h):
            e = x.shape[-1]
            h = m.heads
            q, k, v = block.attn.c_attn(block.ln_1(x)).split(e, dim=-1)
            split = lambda y: y.reshape(b, t, h, e // h).transpose(1, 2)
            q, k, v = split(q), split(k), split(v)
            k = torch.cat([past[2 * i], k], dim=2)
            v = torch.cat([past[2 * i + 1], v], dim=2)
            presents += [k, v]
            s = q @ k.transpose(-1, -2) / (e // h) ** 0.5
            # Query i (at p + i) sees keys j <= p + i.
            n = k.shape[2]
            mask = torch.arange(n)[None, :] > (torch.arange(t) + p)[:, None]
            s = s.masked_fill(mask, float("-inf"))
            a = torch.softmax(s, -1) @ v
            x = x + block.attn.c_proj(a.transpose(1, 2).reshape(b, t, e))
            x = x + block.mlp.c_proj(torch.nn.functional.gelu(
                block.mlp.c_fc(block.ln_2(x)), approximate="tanh"))
        logits = m.ln_f(x[:, -1]) @ m.wte.weight.t()
        return (logits, *presents)


def main():
    model_path, weights, out = sys.argv[1:4]
    expr = re.search(r"//\s*torch\.module:\s*(.*)", Path(model_path).read_text()).group(1)
    model = eval(expr, {"ref": ref, "torch": torch})
    model.load_state_dict(load_safetensors(weights))
    model.eval()
    layers, heads = len(model.h), model.heads
    d = model.wte.weight.shape[1] // heads
    ids = torch.zeros(1, 5, dtype=torch.int64)
    past = [torch.zeros(1, heads, 3, d) for _ in range(2 * layers)]
    names = [f"past_{kv}_{i}" for i in range(layers) for kv in "kv"]
    outs = ["logits"] + [f"present_{kv}_{i}" for i in range(layers) for kv in "kv"]
    axes = {"input_ids": {1: "T"}}
    axes.update({n: {2: "P"} for n in names})
    axes.update({n: {2: "PT"} for n in outs[1:]})
    with torch.no_grad():
        torch.onnx.export(Step(model), (ids, *past), out, input_names=["input_ids"] + names,
                          output_names=outs, dynamic_axes=axes, opset_version=17)


if __name__ == "__main__":
    main()
