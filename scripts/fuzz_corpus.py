#!/usr/bin/env python3
"""Generates the seed corpora of the libFuzzer targets (test/Fuzz) into
OUT/<target>/, so that no binary blob lives in the repository:

  npy          small arrays of every dtype .npy files carry (f32, f16, bf16
               as '|V2', i32, i64), 0-d to 3-d, C order
  safetensors  files of one and several tensors of every dtype
  metadata     the metadata text of artifacts compiled here (CPU, Vulkan,
               external weights), cut out of the libraries
  ir           every function of the project's .mlir tests and examples,
               one per file (split at `// -----`)
  onnx         exports of small PyTorch modules (encoder and decoder layers,
               attention with masks, LSTM, GRU, a GPT block) at opsets 14
               and 17, and the malformed models of the importer's tests

  fuzz_corpus.py SOURCE_ROOT ATTUNE_COMPILE OUT
"""
import json
import re
import struct
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np


def npy_seeds(out):
    rng = np.random.default_rng(0)
    arrays = {
        "f32_2x3": rng.standard_normal((2, 3)).astype("<f4"),
        "f16_4": rng.standard_normal(4).astype("<f2"),
        "bf16_2x2": rng.integers(0, 2**16, (2, 2), dtype=np.uint16).view("V2"),
        "i32_3": np.arange(3, dtype="<i4"),
        "i64_1x2x2": np.arange(4, dtype="<i8").reshape(1, 2, 2),
        "f32_scalar": np.array(1.5, dtype="<f4"),
        "f32_empty": np.zeros((0, 3), dtype="<f4"),
    }
    for name, a in arrays.items():
        np.save(out / f"{name}.npy", a)


def safetensors(tensors):
    header, data = {}, b""
    for name, (dtype, shape, raw) in tensors.items():
        header[name] = {"dtype": dtype, "shape": shape,
                        "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    text = json.dumps(header).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    return struct.pack("<Q", len(text)) + text + data


def safetensors_seeds(out):
    f32 = np.arange(6, dtype="<f4").tobytes()
    (out / "one.safetensors").write_bytes(
        safetensors({"w": ("F32", [2, 3], f32)}))
    (out / "all-dtypes.safetensors").write_bytes(safetensors({
        "a": ("F32", [2], np.ones(2, "<f4").tobytes()),
        "b": ("F16", [2, 1], np.ones(2, "<f2").tobytes()),
        "c": ("BF16", [3], b"\x80\x3f" * 3),
        "d": ("I64", [1], np.ones(1, "<i8").tobytes()),
        "e": ("I32", [], np.ones(1, "<i4").tobytes()),
    }))
    meta = safetensors({"x": ("F32", [1], np.ones(1, "<f4").tobytes())})
    (out / "metadata.safetensors").write_bytes(meta.replace(
        b'{"x"', b'{"__metadata__":{"format":"pt"},"x"', 1))


def metadata_seeds(root, compiler, out):
    models = [("linear", root / "test/Integration/CPU/linear.mlir", []),
              ("elementwise-vk", root / "test/Integration/CPU/elementwise.mlir",
               ["--target=cpu,vulkan"]),
              ("embedding", root / "test/Integration/CPU/embedding.mlir", [])]
    with tempfile.TemporaryDirectory() as tmp:
        for name, model, flags in models:
            lib = Path(tmp) / f"{name}.so"
            weights = []
            if "attune.weight" in model.read_text():
                w = Path(tmp) / f"{name}.safetensors"
                # Zero weights of the right shapes are enough to compile.
                shapes = re.findall(r'attune\.weight "([^"]+)" : tensor<([0-9x]+)xf32>',
                                    model.read_text())
                w.write_bytes(safetensors({
                    n: ("F32", [int(d) for d in s.split("x")],
                        np.zeros([int(d) for d in s.split("x")], "<f4").tobytes())
                    for n, s in shapes}))
                weights = ["--weights", str(w), "--weights-external"]
            r = subprocess.run([compiler, str(model), "-o", str(lib), *flags, *weights],
                               capture_output=True, text=True)
            if r.returncode != 0:
                sys.exit(f"fuzz_corpus: cannot compile {model}: {r.stderr}")
            blob = lib.read_bytes()
            start = blob.find(b"attune-model ")
            end = blob.find(b"\nend\n", start)
            if start < 0 or end < 0:
                sys.exit(f"fuzz_corpus: no metadata in {lib}")
            (out / f"{name}.txt").write_bytes(blob[start:end + 5])


def ir_seeds(root, out):
    files = sorted((root / "test").glob("**/*.mlir")) + sorted((root / "examples").glob("*.mlir"))
    n = 0
    for f in files:
        for i, chunk in enumerate(f.read_text().split("// -----")):
            if "attune." not in chunk:
                continue
            (out / f"{f.stem}-{i}.mlir").write_text(chunk)
            n += 1
    return n


def onnx_seeds(root, out):
    import torch
    import torch.nn as nn
    sys.path.insert(0, str(root / "test" / "Frontend" / "onnx" / "Inputs"))
    import modules
    torch.manual_seed(0)
    x = torch.randn(2, 5, 16)
    cases = {
        "encoder": (nn.TransformerEncoderLayer(16, 2, 32, dropout=0.0,
                                               batch_first=True), (x,)),
        "decoder": (nn.TransformerDecoderLayer(16, 2, 32, dropout=0.0,
                                               batch_first=True), (x, x)),
        "lstm": (nn.LSTM(16, 8, num_layers=2, bidirectional=True,
                         batch_first=True), (x,)),
        "gru": (nn.GRU(16, 8, batch_first=True), (x,)),
        "gpt": (modules.GPT(vocab=20, dim=16, heads=2, layers=1, max_len=8),
                (torch.randint(0, 20, (2, 5)),)),
    }
    for name, (module, inputs) in cases.items():
        for opset in (14, 17):
            torch.onnx.export(module.eval(), inputs,
                              str(out / f"{name}-{opset}.onnx"),
                              opset_version=opset)
    subprocess.run([sys.executable, str(root / "test" / "Frontend" / "onnx" /
                                        "Inputs" / "bad_models.py"), str(out)],
                   check=True)


def main():
    root, compiler, out = Path(sys.argv[1]), sys.argv[2], Path(sys.argv[3])
    dirs = {t: out / t for t in ("npy", "safetensors", "metadata", "ir", "onnx")}
    for d in dirs.values():
        d.mkdir(parents=True, exist_ok=True)
    npy_seeds(dirs["npy"])
    safetensors_seeds(dirs["safetensors"])
    metadata_seeds(root, compiler, dirs["metadata"])
    n = ir_seeds(root, dirs["ir"])
    onnx_seeds(root, dirs["onnx"])
    print(f"fuzz_corpus: seeds in {out} ({n} IR functions)")


if __name__ == "__main__":
    main()
