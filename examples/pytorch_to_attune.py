#!/usr/bin/env python3
"""A PyTorch user's whole flow: build (or load a trained) transformer,
compile it with Attune in one call, run it on NumPy arrays or torch tensors,
and compare with PyTorch, answer and speed.

  PYTHONPATH=build/python /usr/bin/python3 examples/pytorch_to_attune.py

attune.compile exports the module with torch.onnx.export (dynamic batch
and length), imports it (the attention blocks, layer norms and feed-forward
layers become attune ops, weights bound by their state_dict keys) and
compiles it for this CPU; the model object calls the runtime through ctypes.
"""
import time

import numpy as np
import torch
import torch.nn as nn

import attune

torch.manual_seed(0)
encoder = nn.TransformerEncoder(
    nn.TransformerEncoderLayer(d_model=256, nhead=8, dim_feedforward=1024,
                               dropout=0.0, batch_first=True, activation="gelu"),
    num_layers=4, enable_nested_tensor=False).eval()
# ... or: encoder.load_state_dict(torch.load("trained.pt"))

src = torch.randn(2, 128, 256)
model = attune.compile(encoder, example_inputs=(src,),
                       dynamic_axes={"src": {0: "B", 1: "L"}})
print(model)

for shape in [(2, 128, 256), (1, 37, 256)]:
    x = torch.randn(*shape)
    with torch.no_grad():
        expected = encoder(x)
    out = model(x)  # NumPy out; torch tensors or NumPy arrays in
    print(f"{list(shape)}: max |attune - pytorch| = "
          f"{np.abs(out - expected.numpy()).max():.2e}")


def best(fn, n=20):
    times = []
    for _ in range(n):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times) * 1e3


x = torch.randn(1, 128, 256)
xn = x.numpy()
with torch.no_grad():
    torch_ms = best(lambda: encoder(x))
attune_ms = best(lambda: model(xn))
print(f"[1, 128, 256], {torch.get_num_threads()} torch threads: "
      f"PyTorch {torch_ms:.2f} ms, Attune {attune_ms:.2f} ms "
      f"(Attune runs serial code unless compiled with --parallel)")
