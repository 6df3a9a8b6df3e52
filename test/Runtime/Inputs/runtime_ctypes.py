"""What the runtime tests' ctypes scripts share: libattune_runtime.so with
the return types they use, attune_generate_options, a status check, a
tensor over a NumPy array, an f32 safetensors writer and one run of an
entry with one f32 input and one f32 output."""
import ctypes
import json
import struct
import sys
from pathlib import Path

import numpy as np

# attune_token_callback, attune_generate_options, attune_tensor_info and
# the dtype codes (runtime.h), as the Python module mirrors them (its source
# tree's copy: the scripts run without the build's PYTHONPATH).
sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "python"))
from attune import (_DTYPES as DTYPES,  # noqa: E402
                    _GenerateOptions as Options, _TensorInfo as TensorInfo,
                    _TokenCallback as CALLBACK)


def load(libdir):
    """libattune_runtime.so (RTLD_LOCAL, as ctypes loads it) with the return
    and argument types of the functions the scripts call."""
    rt = ctypes.CDLL(f"{libdir}/libattune_runtime.so")
    rt.attune_status_message.restype = ctypes.c_char_p
    rt.attune_status_message.argtypes = [ctypes.c_void_p]
    rt.attune_status_free.argtypes = [ctypes.c_void_p]
    rt.attune_tensor_data.restype = ctypes.c_void_p
    rt.attune_tensor_data.argtypes = [ctypes.c_void_p]
    rt.attune_tensor_shape.restype = ctypes.POINTER(ctypes.c_int64)
    rt.attune_tensor_shape.argtypes = [ctypes.c_void_p]
    rt.attune_tensor_rank.restype = ctypes.c_size_t
    rt.attune_tensor_rank.argtypes = [ctypes.c_void_p]
    rt.attune_tensor_num_elements.restype = ctypes.c_size_t
    rt.attune_tensor_free.argtypes = [ctypes.c_void_p]
    rt.attune_model_input.restype = TensorInfo
    for name in ["attune_device_open", "attune_model_open",
                 "attune_model_open_with_weights", "attune_model_open_on",
                 "attune_tensor_wrap", "attune_tensor_create",
                 "attune_model_run", "attune_model_generate"]:
        getattr(rt, name).restype = ctypes.c_void_p
    return rt


def check(rt, status):
    """Exits with the status's message where there is one."""
    if status:
        sys.exit("error: " + rt.attune_status_message(status).decode())


def write_safetensors(path, tensors):
    """Writes `tensors` (name -> array) as F32 safetensors."""
    header, offset, blobs = {}, 0, []
    for name, a in tensors.items():
        blob = np.ascontiguousarray(a, dtype=np.float32).tobytes()
        header[name] = {"dtype": "F32", "shape": list(a.shape),
                        "data_offsets": [offset, offset + len(blob)]}
        offset += len(blob)
        blobs.append(blob)
    text = json.dumps(header).encode()
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))


def wrap(rt, array):
    """A runtime tensor over `array` (which must outlive it)."""
    t = ctypes.c_void_p()
    shape = (ctypes.c_int64 * array.ndim)(*array.shape)
    check(rt, rt.attune_tensor_wrap(DTYPES[array.dtype], array.ndim, shape,
                                    array.ctypes.data_as(ctypes.c_void_p),
                                    ctypes.byref(t)))
    return t


def run_one(rt, model, x):
    """Entry 0 of `model` on the f32 array `x`: its one output, copied."""
    x = np.ascontiguousarray(x, dtype=np.float32)  # outlives the tensor
    t = wrap(rt, x)
    inputs = (ctypes.c_void_p * 1)(t)
    outputs = (ctypes.c_void_p * 1)()
    check(rt, rt.attune_model_run(model, ctypes.c_size_t(0), inputs,
                                  ctypes.c_size_t(1), outputs,
                                  ctypes.c_size_t(1)))
    out = ctypes.c_void_p(outputs[0])
    dims = rt.attune_tensor_shape(out)
    y = np.ctypeslib.as_array(
        ctypes.cast(rt.attune_tensor_data(out), ctypes.POINTER(ctypes.c_float)),
        shape=tuple(dims[i] for i in range(rt.attune_tensor_rank(out)))).copy()
    rt.attune_tensor_free(t)
    rt.attune_tensor_free(out)
    return y
