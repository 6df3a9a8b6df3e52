"""Generations one after another in one process (libattune_runtime.so
through ctypes), on a decoder-only model with large caches and a short
prompt:

  cache_reuse.py LIBDIR MODEL.so GOLDEN_DIR

A generation's caches go back to the buffer cache when it ends and the
next generation's come from there, zeroed: the clearing writes only the
pages the last one touched, so that the second generation faults in no
page of its caches (writing them whole faulted in all of them). Checks,
one line each: the tokens of three generations are PyTorch's; the page
faults of the second and third, against the caches' pages; a kept cache
handed out by attune_tensor_create is zero, after a generation (pages
untouched, dropped) and after the caller wrote every byte of it (pages
held, written).
"""
import ctypes
import resource
import sys

import numpy as np

from runtime_ctypes import CALLBACK, Options, check as check_status, load, wrap

libdir, model_path, golden = sys.argv[1:4]
rt = load(libdir)


def check(status):
    check_status(rt, status)


def faults():
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt


model = ctypes.c_void_p()
check(rt.attune_model_open(model_path.encode(), ctypes.byref(model)))

info = rt.attune_model_input(model, 0, 3)  # the first cache, [?, H, C, D]
cache_shape = [1] + [info.shape[d] for d in range(1, info.rank)]
caches = rt.attune_model_num_inputs(model, 0) - 3
cache_pages = caches * int(np.prod(cache_shape)) * 4 // 4096

prompt = np.load(f"{golden}/case0/tokens.npy")
lengths = np.load(f"{golden}/case0/lengths.npy")
expected = np.load(f"{golden}/case0/generated.npy")


def generate():
    o = Options(max_new_tokens=expected.shape[1], pad_id=0,
                on_token=CALLBACK(0), length_penalty=1.0)
    tokens = ctypes.c_void_p()
    p, l = wrap(rt, prompt), wrap(rt, lengths)
    check(rt.attune_model_generate(model, p, l, ctypes.byref(o),
                                   ctypes.byref(tokens), None, None))
    rt.attune_tensor_free(p)
    rt.attune_tensor_free(l)
    n = int(np.prod(expected.shape))
    out = np.ctypeslib.as_array(
        ctypes.cast(rt.attune_tensor_data(tokens),
                    ctypes.POINTER(ctypes.c_int64)), shape=(n,)).copy()
    rt.attune_tensor_free(tokens)
    return bool((out.reshape(expected.shape) == expected).all())


def kept_cache():
    """A zeroed tensor of a cache's shape (a kept cache's block) and its
    elements."""
    t = ctypes.c_void_p()
    shape = (ctypes.c_int64 * len(cache_shape))(*cache_shape)
    check(rt.attune_tensor_create(0, len(cache_shape), shape, ctypes.byref(t)))
    data = np.ctypeslib.as_array(
        ctypes.cast(rt.attune_tensor_data(t), ctypes.POINTER(ctypes.c_float)),
        shape=(int(np.prod(cache_shape)),))
    return t, data


equal = [generate()]
for run in ("second", "third"):
    before = faults()
    equal.append(generate())
    n = faults() - before
    print(f"{run} generation: %s" % (
        "ok" if n < cache_pages // 8 else
        f"FAILED: {n} page faults (the caches: {cache_pages} pages)"))
print("tokens equal:", equal)

t, data = kept_cache()
print("kept cache zero after a generation:", bool((data == 0).all()))
data[:] = 1.0
rt.attune_tensor_free(t)
t, data = kept_cache()
print("kept cache zero after every byte written:", bool((data == 0).all()))
rt.attune_tensor_free(t)
print("then tokens equal:", generate())
rt.attune_model_close(model)
