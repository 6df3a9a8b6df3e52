#!/usr/bin/env python3
"""Exports benchmark models to ONNX for the ONNX Runtime anchor: the module
and call of each model's executable header (scripts/gen_golden.py), traced
by torch.onnx.export on one case's inputs (shapes fixed, as Attune's runs
are per case).

  export_onnx.py OUT.onnx=MODEL.mlir:case_dir ...
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


def main():
    for spec in sys.argv[1:]:
        out, rest = spec.split("=", 1)
        module, call, scope, inputs = gen_golden.load_case(*rest.rsplit(":", 1))
        names = list(inputs)
        # Not under no_grad: there nn.TransformerEncoder takes its fused fast
        # path, which has no ONNX export.
        torch.onnx.export(Call(module, call, scope, names), tuple(inputs.values()), out,
                          input_names=names, opset_version=17)


if __name__ == "__main__":
    main()
