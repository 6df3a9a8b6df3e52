"""Runs a model through libattune_runtime.so loaded by Python's ctypes, which
loads it RTLD_LOCAL: nothing of the runtime is in the global scope, so a
model must get every runtime function from the runtime itself.

  ctypes_run.py LIBDIR MODEL.so DEVICE

Runs entry 0 (attention: inputs q and k) on random inputs and compares with
a NumPy reference; prints 'ok: DEVICE max |err| = E'.
"""
import ctypes
import sys

import numpy as np

from runtime_ctypes import check as check_status, load

libdir, model_path, device_spec = sys.argv[1:4]
rt = load(libdir)  # RTLD_LOCAL


def check(status):
    check_status(rt, status)


device = ctypes.c_void_p()
check(rt.attune_device_open(device_spec.encode(), ctypes.byref(device)))
model = ctypes.c_void_p()
check(rt.attune_model_open_on(model_path.encode(), None, device,
                              ctypes.byref(model)))

rng = np.random.default_rng(0)
q = rng.standard_normal((2, 2, 5, 8)).astype(np.float32)
k = rng.standard_normal((2, 2, 7, 8)).astype(np.float32)
tensors = []
for a in (q, k):
    shape = (ctypes.c_int64 * a.ndim)(*a.shape)
    t = ctypes.c_void_p()
    check(rt.attune_tensor_wrap(0, a.ndim, shape,
                                a.ctypes.data_as(ctypes.c_void_p),
                                ctypes.byref(t)))
    tensors.append(t)
inputs = (ctypes.c_void_p * 2)(*tensors)
outputs = (ctypes.c_void_p * 1)()
check(rt.attune_model_run(model, ctypes.c_size_t(0), inputs,
                          ctypes.c_size_t(2), outputs, ctypes.c_size_t(1)))
out = outputs[0]
shape = [rt.attune_tensor_shape(ctypes.c_void_p(out))[i]
         for i in range(rt.attune_tensor_rank(ctypes.c_void_p(out)))]
data = np.ctypeslib.as_array(
    ctypes.cast(rt.attune_tensor_data(ctypes.c_void_p(out)),
                ctypes.POINTER(ctypes.c_float)), shape=tuple(shape)).copy()

scores = q @ k.transpose(0, 1, 3, 2) / np.sqrt(8)
weights = np.exp(scores - scores.max(-1, keepdims=True))
weights /= weights.sum(-1, keepdims=True)
expected = weights @ k
err = float(np.abs(data - expected).max())
for t in tensors:
    rt.attune_tensor_free(t)
rt.attune_tensor_free(ctypes.c_void_p(out))
rt.attune_model_close(model)
rt.attune_device_close(device)
if err > 1e-5:
    sys.exit(f"error: max |err| = {err}")
print(f"ok: {device_spec} max |err| = {err:.1e}")
