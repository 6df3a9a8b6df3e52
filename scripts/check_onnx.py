#!/usr/bin/env python3
"""Exports a PyTorch module to ONNX, compiles the .onnx with attune-compile
(import and compile in one step) and checks one artifact at every given
input shape against PyTorch.

  check_onnx.py --module 'nn.TransformerEncoderLayer(64, 4, 128, dropout=0.0, batch_first=True)'
                --inputs 'src=f32[2,16,64]' --inputs 'src=f32[1,5,64]'
                --dynamic 'src=B,L' --opset 17 [--no-constant-folding]
                --bin BUILD/bin --work TMP [--atol X] [--compile-arg ARG]... [--run-arg ARG]...

The module is built as the examples' headers build theirs (gen_golden.py:
seeded initialization moved by seeded noise, eval mode) and exported with
grad enabled (under no_grad torch 1.13 takes fused fast paths that do not
export). The first --inputs set is the export's example; every set is run
through the same artifact. --dynamic names each input's dims in order
(`_` keeps a dim static); the outputs take the first input's names for the
dims they share. Exits non-zero on any failure or mismatch.
"""
import argparse
import subprocess
import sys
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
import gen_golden  # noqa: E402


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--module", required=True)
    p.add_argument("--inputs", action="append", required=True,
                   help="one shape set: 'name=f32[2,16,64] ...'")
    p.add_argument("--dynamic", action="append", default=[],
                   help="'input=D0,D1,...' dynamic dim names (_ = static)")
    p.add_argument("--opset", type=int, default=17)
    p.add_argument("--no-constant-folding", action="store_true")
    p.add_argument("--call", default=None,
                   help="Python expression over module and the inputs "
                        "(default: module(*inputs))")
    p.add_argument("--import", dest="imports", action="append", default=[],
                   help="a Python file whose definitions the --module "
                        "expression may use")
    p.add_argument("--bin", required=True)
    p.add_argument("--work", required=True)
    p.add_argument("--atol", default="2e-5")
    p.add_argument("--rtol", default="0")
    p.add_argument("--compile-arg", action="append", default=[])
    p.add_argument("--run-arg", action="append", default=[])
    p.add_argument("--export-only", action="store_true",
                   help="write WORK/model.onnx and stop")
    args = p.parse_args()

    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    scope = gen_golden.header_scope()
    for path in args.imports:
        exec(compile(Path(path).read_text(), path, "exec"), scope)
    module = gen_golden.build_module(args.module, scope)
    sets = [gen_golden.parse_inputs(text, "--inputs") for text in args.inputs]
    names = [s[0] for s in sets[0]]
    generator = torch.Generator().manual_seed(1)
    values = [[gen_golden.make_input(spec, generator) for spec in specs]
              for specs in sets]

    class Call(torch.nn.Module):
        def __init__(self, inner):
            super().__init__()
            self.inner = inner

        def forward(self, *xs):
            if args.call is None:
                return self.inner(*xs)
            return eval(args.call, dict(scope, module=self.inner,
                                        **dict(zip(names, xs))))

    wrapped = Call(module).eval()
    dynamic_axes = {}
    for spec in args.dynamic:
        name, dims = spec.split("=")
        dynamic_axes[name] = {i: d for i, d in enumerate(dims.split(","))
                              if d != "_"}
    # With grad enabled, as for the export: under no_grad torch 1.13 takes
    # fast paths (which, for one, fail on nn.MultiheadAttention(bias=False)).
    def detached(r):
        return tuple(t.detach() for t in r) if isinstance(r, tuple) else r.detach()
    expected = [detached(wrapped(*v)) for v in values]
    outputs = ["output" if not isinstance(expected[0], tuple) else
               f"output{i}" for i in range(1 if not isinstance(expected[0], tuple)
                                           else len(expected[0]))]
    if names[0] in dynamic_axes:
        first = dynamic_axes[names[0]]
        for o in outputs:
            dynamic_axes.setdefault(o, dict(first))
    model = work / "model.onnx"
    # The state_dict keys of `module`, not of the wrapper.
    torch.onnx.export(wrapped.inner if args.call is None else wrapped,
                      tuple(values[0]), str(model), opset_version=args.opset,
                      input_names=names, output_names=outputs,
                      dynamic_axes=dynamic_axes,
                      do_constant_folding=not args.no_constant_folding)

    if args.export_only:
        return
    library = work / "model.so"
    cmd = [f"{args.bin}/attune-compile", str(model), "-o", str(library),
           *args.compile_arg]
    print("$", " ".join(cmd), flush=True)
    if subprocess.call(cmd) != 0:
        sys.exit(1)

    failed = False
    for k, (vals, exp) in enumerate(zip(values, expected)):
        case = work / f"case{k}"
        case.mkdir(exist_ok=True)
        run = [f"{args.bin}/attune-run", str(library), "--atol", args.atol,
               "--rtol", args.rtol, *args.run_arg]
        for name, v in zip(names, vals):
            np.save(case / f"{name}.npy", gen_golden.to_numpy(v))
            run += ["--input", f"{name}={case / (name + '.npy')}"]
        exps = exp if isinstance(exp, tuple) else (exp,)
        for o, e in zip(outputs, exps):
            np.save(case / f"{o}.npy", gen_golden.to_numpy(e))
            run += ["--expect", f"{o}={case / (o + '.npy')}"]
        print("$", " ".join(run), flush=True)
        if subprocess.call(run) != 0:
            failed = True
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
