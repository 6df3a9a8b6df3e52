"""The Python module's own test: a PyTorch user's flow (a module compiled
with attune.compile, called with NumPy arrays and torch tensors at two
shapes), an ONNX file, attune.load, and the errors a user meets.

  module_test.py WORK [DEVICE]
"""
import sys

import numpy as np
import torch
import torch.nn as nn

import attune

work = sys.argv[1]
device = sys.argv[2] if len(sys.argv) > 2 else "cpu"
target = "vulkan" if device.startswith("vulkan") else "cpu"
atol = 3e-5 if target == "vulkan" else 2e-5
torch.manual_seed(0)
layer = nn.TransformerEncoderLayer(64, 4, 128, dropout=0.0, batch_first=True)
layer.eval()
src = torch.randn(2, 16, 64)
model = attune.compile(layer, example_inputs=(src,),
                       dynamic_axes={"src": {0: "B", 1: "L"}}, target=target,
                       output=f"{work}/layer.so")
print(model)
assert model.input_names == ["src"] and model.output_names == ["output"]
assert model.inputs[0]["shape"] == (None, None, 64), model.inputs

with torch.no_grad():
    for shape in [(2, 16, 64), (3, 5, 64)]:
        x = torch.randn(*shape)
        expected = layer(x).numpy()
        for given in (x.numpy(), x):  # NumPy and torch
            got = model(given)
            err = np.abs(got - expected).max()
            assert got.shape == expected.shape and err <= atol, (shape, err)
            print(f"module {list(shape)} {type(given).__module__}: max |err| = {err:.2e} ok")
        got = model(src=x.numpy())
        assert np.abs(got - expected).max() <= atol

# From an ONNX file (the one the module went through), and attune.load.
attune.export_onnx(layer, (src,), f"{work}/layer.onnx", input_names=["src"],
                   output_names=["out"],
                   dynamic_axes={"src": {0: "B", 1: "L"}, "out": {0: "B", 1: "L"}})
from_file = attune.compile(f"{work}/layer.onnx", target=target)
assert from_file.output_names == ["out"]
loaded = attune.load(f"{work}/layer.so", device=device)
with torch.no_grad():
    x = torch.randn(1, 7, 64)
    expected = layer(x).numpy()
for m in (from_file, loaded):
    err = np.abs(m(x) - expected).max()
    assert err <= atol, err
print("onnx file and attune.load: ok")

# A bool input (a key_padding_mask) as NumPy bools (on Vulkan the runtime
# widens them to i32 as it uploads them).
mha = nn.MultiheadAttention(64, 4, batch_first=True).eval()

class Masked(nn.Module):
    def __init__(self):
        super().__init__()
        self.mha = mha

    def forward(self, x, mask):
        return self.mha(x, x, x, key_padding_mask=mask, need_weights=False)[0]

masked = Masked().eval()
mask = torch.zeros(2, 16, dtype=torch.bool)
mask[0, 11:] = True
mask[1, 3] = True
m = attune.compile(masked, example_inputs=(src, mask),
                   dynamic_axes={"x": {0: "B", 1: "L"}, "mask": {0: "B", 1: "L"}},
                   target=target, device=device)
assert m.inputs[1]["dtype"] == np.dtype("bool"), m.inputs
with torch.no_grad():
    want = masked(src, mask).numpy()
err = np.abs(m(src.numpy(), mask.numpy()) - want).max()
assert err <= atol, err
print(f"bool mask: max |err| = {err:.2e} ok")

# Errors: each an AttuneError with the message, the model usable after.
def expect_error(fn, text):
    try:
        fn()
    except attune.AttuneError as e:
        assert text in str(e), str(e)
        print("error:", str(e).splitlines()[0])
        return
    raise AssertionError(f"no error (expected '{text}')")

expect_error(lambda: model(np.zeros((2, 16, 32), np.float32)), "input 'src'")
expect_error(lambda: model(tgt=src.numpy()), "unknown input 'tgt'")
expect_error(lambda: model(), "missing input(s): src")
expect_error(lambda: model(np.zeros((2, 16, 64), np.int8)), "dtype int8")
expect_error(lambda: attune.compile(f"{work}/missing.onnx"), "missing.onnx")
expect_error(lambda: attune.load(f"{work}/missing.so"), "missing.so")
assert np.abs(model(x) - expected).max() <= atol
print("errors: ok")
