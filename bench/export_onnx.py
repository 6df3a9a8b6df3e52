#!/usr/bin/env python3
"""Exports benchmark models to ONNX for the ONNX Runtime anchor: the module
and call of each model's executable header (scripts/gen_golden.py), traced
by torch.onnx.export on one case's inputs (shapes fixed, as Attune's runs
are per case).

  export_onnx.py OUT.onnx=MODEL.mlir:case_dir ...
  export_onnx.py --mha OUT.onnx=MODEL.mlir:case_dir ...

--mha exports an attention case (inputs q, k, v [B, H, L, D]) as ONNX
Runtime's fused CPU kernel instead: the contrib op
com.microsoft.MultiHeadAttention, its query as [B, L, H D] (a transpose
and reshape in the graph, O(L H D) next to the kernel's O(L^2 H D)), key and
value in its BNSH form [B, H, L, D] as given, scale 1/sqrt(D) (the
header's).
"""
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))
import gen_golden  # noqa: E402


class Call(torch.nn.Module):
    """The header's call expression as a module over its named inputs."""

    def __init__(self, module, call, scope, names):
        super().__init__()
        self.module, self.call, self.scope, self.names = module, call, scope, names

    def forward(self, *values):
        return eval(self.call, dict(self.scope, module=self.module, **dict(zip(self.names, values))))


class MultiHeadAttention(torch.autograd.Function):
    """softmax(q k^T / sqrt(D)) v over the heads of k and v (BNSH), the
    query [B, L, H D]; exported as ORT's contrib op."""

    @staticmethod
    def forward(ctx, q3, k, v):
        b, l, _ = q3.shape
        q = q3.view(b, l, k.shape[1], -1).transpose(1, 2)
        o = torch.softmax(q @ k.transpose(-1, -2) / q.shape[-1] ** 0.5, -1) @ v
        return o.transpose(1, 2).reshape(b, l, -1)

    @staticmethod
    def symbolic(g, q3, k, v):
        heads = k.type().sizes()[1]
        return g.op("com.microsoft::MultiHeadAttention", q3, k, v, num_heads_i=heads)


class Mha(torch.nn.Module):
    def forward(self, q, k, v):
        b, h, l, d = q.shape
        return MultiHeadAttention.apply(q.transpose(1, 2).reshape(b, l, h * d), k, v)


def main():
    mha = sys.argv[1:2] == ["--mha"]
    for spec in sys.argv[1 + mha:]:
        out, rest = spec.split("=", 1)
        module, call, scope, inputs = gen_golden.load_case(*rest.rsplit(":", 1))
        names = list(inputs)
        if mha:
            torch.onnx.export(Mha(), tuple(inputs.values()), out, input_names=names,
                              opset_version=17, custom_opsets={"com.microsoft": 1})
            continue
        # Not under no_grad: there nn.TransformerEncoder takes its fused fast
        # path, which has no ONNX export.
        torch.onnx.export(Call(module, call, scope, names), tuple(inputs.values()), out,
                          input_names=names, opset_version=17)


if __name__ == "__main__":
    main()
