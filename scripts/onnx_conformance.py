#!/usr/bin/env python3
"""ONNX's own backend node tests against the importer: generates the cases
Debian's python3-onnx defines (model.onnx + input/output protobufs each),
imports and compiles every case of the claimed ops with attune-compile,
runs it with attune-run and compares every output.

  onnx_conformance.py --bin BUILD/bin --work DIR [--table OUT.md] [--jobs 2]
                      [--cases PATTERN]

A case is claimed when every op of its graph is in CLAIMED (the
`_expanded` forms, built from primitive ops, included). The cases give
axes, shapes, slice bounds and weights as graph inputs; an ahead-of-time
compiler needs them at import, so where the importer says so the case is
compiled again with every input but the first folded into the model with
the case's values, as an export would have them (noted in the table).
Each claimed case
passes, or is skipped with the importer's error (an attribute value or
dtype the op does not support: a clear import error, the reason in the
table); a case that fails (wrong numbers, a crash, a run error after a
successful compile) makes the script exit 1. --table writes the op list
and the pass/skip table (docs/onnx-conformance.md is this file).
"""
import argparse
import concurrent.futures
import os
import re
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np

# The ops the importer claims (frontend/onnx): each one's node tests pass or
# fail to import with a clear error.
CLAIMED = sorted([
    "Abs", "Add", "Cast", "Concat", "Constant", "ConstantOfShape", "Div",
    "Equal", "Erf", "Exp", "Expand", "GRU", "Gather", "Gemm", "Greater",
    "GreaterOrEqual", "Identity", "LSTM", "LayerNormalization", "Less",
    "LessOrEqual", "Log", "MatMul", "Max", "Min", "Mul", "Neg", "Pow",
    "Reciprocal", "ReduceMax", "ReduceMean", "ReduceMin", "ReduceProd",
    "ReduceSum", "Relu", "Reshape", "Shape", "Sigmoid", "Slice", "Softmax",
    "Split", "Sqrt", "Squeeze", "Sub", "Tanh", "Transpose", "Trilu",
    "Unsqueeze", "Where",
])


def generate(out):
    if (out / "node").is_dir():
        return
    code = ("import numpy as np, sys\n"
            # NumPy removed these aliases; onnx 1.12's case definitions use them.
            "np.float=float; np.int=int; np.bool=bool; np.object=object\n"
            "np.complex=complex; np.str=str\n"
            f"sys.argv=['x','generate-data','-o',{str(out)!r}]\n"
            "from onnx.backend.test import cmd_tools; cmd_tools.main()\n")
    subprocess.run([sys.executable, "-c", code], check=True,
                   capture_output=True)


def load_pb(path, elem_type):
    """The tensor in `path`, as the graph's `elem_type` says it is."""
    import onnx
    from onnx import numpy_helper
    t = onnx.TensorProto()
    t.ParseFromString(path.read_bytes())
    array = numpy_helper.to_array(t)
    if elem_type == onnx.TensorProto.BFLOAT16:
        # The cases store bf16 as uint16 bits; attune-run reads bf16 as raw
        # bits with descr '|V2' (ml_dtypes' convention).
        array = np.ascontiguousarray(array).astype(np.uint16).view("V2")
    return t.name, array


def save_npy(path, array):
    if array.dtype == np.float64:
        array = array.astype(np.float32)  # attune computes in f32
    np.save(path, array)


# The importer's messages for values it needs at import (a compiler ahead
# of time needs axes, shapes, slice bounds and weights as constants).
NEEDS_KNOWN = ("known at import", "computable at import", "constant B",
               "must be known", "a weight) must be known")


# Cases whose expected data differ from the answer Attune gives on purpose.
DEVIATIONS = {
    "test_cast_FLOAT_to_BFLOAT16":
        "ONNX 1.12's data truncate to bf16; Attune rounds to nearest even, "
        "as PyTorch's .to(torch.bfloat16) does",
}


def name_of(case):
    return case.name


def fold_inputs(model, data, names):
    """A copy of `model` with the graph inputs `names` turned into
    initializers holding the case's values."""
    import onnx
    from onnx import numpy_helper
    folded = onnx.ModelProto()
    folded.CopyFrom(model)
    keep = []
    for k, i in enumerate(model.graph.input):
        if i.name in names:
            t = onnx.TensorProto()
            t.ParseFromString((data / f"input_{k}.pb").read_bytes())
            t.name = i.name
            folded.graph.initializer.append(t)
        else:
            keep.append(i)
    del folded.graph.input[:]
    folded.graph.input.extend(keep)
    return folded


def compile_case(args, model_path, library):
    # On Vulkan, lavapipe's profile (the device the tests run on; it has
    # 16-bit storage for the f16 cases).
    profile = ["--vulkan-profile=lavapipe"] if args.target == "vulkan" else []
    return subprocess.run([f"{args.bin}/attune-compile", str(model_path), "-o",
                           str(library), f"--target={args.target}", *profile],
                          capture_output=True, text=True, timeout=300)


def run_case(case, args):
    """('pass' | 'skip' | 'fail', detail)."""
    import onnx
    model = onnx.load(str(case / "model.onnx"))
    data = case / "test_data_set_0"
    work = Path(args.work) / "runs" / case.name
    work.mkdir(parents=True, exist_ok=True)
    library = work / "model.so"
    model_path = case / "model.onnx"
    note = ""
    compile_ = compile_case(args, model_path, library)
    if compile_.returncode != 0 and any(t in compile_.stderr for t in NEEDS_KNOWN):
        # As an export would have them: every input but the first folded
        # into the model with the case's values.
        ints = {onnx.TensorProto.INT64, onnx.TensorProto.INT32}
        names = [i.name for k, i in enumerate(model.graph.input)
                 if k > 0 or i.type.tensor_type.elem_type in ints]
        model = fold_inputs(model, data, set(names))
        model_path = work / "folded.onnx"
        onnx.save(model, str(model_path))
        note = "constant " + ", ".join(names)
        compile_ = compile_case(args, model_path, library)
    if compile_.returncode != 0:
        message = compile_.stderr.strip().splitlines()
        message = message[0] if message else f"exit {compile_.returncode}"
        if compile_.returncode < 0 or "error:" not in compile_.stderr:
            return "fail", f"attune-compile crashed: {message}"
        # The importer's or the compiler's message without the file's path.
        message = re.sub(r"^error: \S*\.onnx: ", "", message)
        return "skip", re.sub(r"^loc\(.*\): error: ", "", message)
    cmd = [f"{args.bin}/attune-run", str(library), "--atol", "1e-5", "--rtol",
           "1e-5", f"--device={args.target}"]
    original = onnx.load(str(case / "model.onnx"), load_external_data=False)
    kept = {i.name for i in model.graph.input}
    for k, i in enumerate(original.graph.input):
        if i.name not in kept:
            continue
        _, value = load_pb(data / f"input_{k}.pb", i.type.tensor_type.elem_type)
        save_npy(work / f"in{k}.npy", value)
        cmd += ["--input", f"{i.name}={work / f'in{k}.npy'}"]
    for k, out in enumerate(model.graph.output):
        _, value = load_pb(data / f"output_{k}.pb", out.type.tensor_type.elem_type)
        save_npy(work / f"out{k}.npy", value)
        cmd += ["--expect", f"{out.name}={work / f'out{k}.npy'}"]
    run = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    if run.returncode != 0 and name_of(case) in DEVIATIONS:
        return "deviation", DEVIATIONS[name_of(case)]
    contradiction = re.search(r"input '(\w+)' has shape (\[[^]]*\]), expected "
                              r"(\[[^]]*\])", run.stdout + run.stderr)
    if run.returncode != 0 and contradiction:
        # A case whose data contradicts its own model's input shape (the
        # runtime checks inputs against the model).
        return "skip", (f"the case's data for '{contradiction.group(1)}' has "
                        f"shape {contradiction.group(2)}, its model says "
                        f"{contradiction.group(3)}")
    if run.returncode != 0:
        lines = (run.stdout + run.stderr).strip().splitlines()
        bad = [l for l in lines if "FAIL" in l or "error" in l]
        return "fail", (bad or lines or ["no output"])[0]
    return "pass", note


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--bin", required=True)
    p.add_argument("--work", required=True)
    p.add_argument("--table")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    p.add_argument("--cases", default="", help="a regex on case names")
    p.add_argument("--target", default="cpu", choices=["cpu", "vulkan"],
                   help="compile for and run on this target")
    args = p.parse_args()
    import onnx
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    generate(work / "data")
    cases = []
    for case in sorted((work / "data" / "node").iterdir()):
        if args.cases and not re.search(args.cases, case.name):
            continue
        model = onnx.load(str(case / "model.onnx"), load_external_data=False)
        ops = {n.op_type for n in model.graph.node}
        if ops and ops <= set(CLAIMED):
            cases.append((case, ops))
    results = {}
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        futures = {pool.submit(run_case, case, args): (case, ops)
                   for case, ops in cases}
        for f in concurrent.futures.as_completed(futures):
            case, ops = futures[f]
            try:
                results[case.name] = (f.result(), ops)
            except Exception as e:  # a timeout or an unreadable case
                results[case.name] = (("fail", str(e)), ops)
    counts = defaultdict(lambda: defaultdict(int))  # op -> status -> cases
    rows = []
    failed = 0
    for name in sorted(results):
        (status, detail), ops = results[name]
        for op in ops:
            counts[op][status] += 1
        failed += status == "fail"
        rows.append((name, status, detail))
        if status != "pass":
            print(f"{status}: {name}: {detail}")
    total = defaultdict(int)
    for name, status, _ in rows:
        total[status] += 1
    print(f"onnx node tests: {total['pass']} passed, {total['skip']} skipped, "
          f"{total['fail']} failed ({len(rows)} cases of {len(CLAIMED)} ops)")
    if args.table:
        where = ("CPU" if args.target == "cpu" else
                 "Vulkan device (lavapipe, `--vulkan-profile=lavapipe`)")
        test = ("conformance.test" if args.target == "cpu" else
                "conformance-vulkan.test")
        lines = [
            "# ONNX conformance: the backend node tests"
            + ("" if args.target == "cpu" else " on Vulkan"),
            "",
            "Generated by `scripts/onnx_conformance.py"
            + ("" if args.target == "cpu" else " --target vulkan")
            + "` (run by `make test`:",
            f"`test/Frontend/onnx/{test}`) from the node tests Debian's",
            "python3-onnx 1.12 defines. Every case whose graph uses only the ops",
            f"below is imported and compiled with `attune-compile` and run on the",
            f"{where} with `attune-run` (atol = rtol = 1e-5). A case passes, or is",
            "skipped because the importer refuses it with the error shown (an",
            "attribute value, a dtype or a form the op does not support, or data",
            "that contradict the case's own model), or is a known deviation",
            "(listed with the reason); none fails.",
            "",
            "Claimed ops: " + ", ".join(f"`{op}`" for op in CLAIMED) + ".",
            "",
            f"Totals: {total['pass']} passed, {total['skip']} skipped, "
            f"{total['deviation']} known deviation(s), {total['fail']} failed.",
            "",
            "| op | cases | passed | skipped | deviation |",
            "|---|---|---|---|---|",
        ]
        for op in CLAIMED:
            c = counts[op]
            lines.append(f"| {op} | {sum(c.values())} | {c['pass']} | "
                         f"{c['skip']} | {c['deviation']} |")
        lines += ["", "| case | result | reason |", "|---|---|---|"]
        for name, status, detail in rows:
            lines.append(f"| {name} | {status} | {detail.replace('|', '/')} |")
        Path(args.table).write_text("\n".join(lines) + "\n")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
