"""The bytes and buffers a generation step allocates at each position
(attune_runtime_allocation_stats around attune_model_run), for a
decoder-only model whose step takes (tokens, positions, lengths, caches):

  step_allocations.py LIBDIR MODEL.so FIRST LAST

Prefills 4 tokens, then runs one-token steps at positions FIRST..LAST and
prints the (bytes, buffers) of the first, middle and last step and whether
every step allocated the same.
"""
import ctypes
import sys

import numpy as np

from runtime_ctypes import check as check_status, load, wrap

libdir, model_path, first, last = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
rt = load(libdir)


def check(status):
    check_status(rt, status)


model = ctypes.c_void_p()
check(rt.attune_model_open(model_path.encode(), ctypes.byref(model)))
caches = []
for i in range(3, rt.attune_model_num_inputs(model, 0)):
    info = rt.attune_model_input(model, 0, i)
    shape = [info.shape[d] for d in range(info.rank)]
    caches.append(np.zeros([1] + shape[1:], np.float32))


def step(tokens, position):
    arrays = [np.array([tokens], np.int64), np.array([position], np.int64),
              np.array([len(tokens)], np.int64)] + caches
    ins = [wrap(rt, a) for a in arrays]
    out = (ctypes.c_void_p * 1)()
    check(rt.attune_model_run(model, 0, (ctypes.c_void_p * len(ins))(*ins),
                              len(ins), out, 1))
    rt.attune_tensor_free(out[0])
    for t in ins:
        rt.attune_tensor_free(t)


def stats():
    b, n = ctypes.c_uint64(), ctypes.c_uint64()
    rt.attune_runtime_allocation_stats(ctypes.byref(b), ctypes.byref(n))
    return b.value, n.value


step([5] * 4, 0)
per_step = {}
for position in range(first, last + 1):
    before = stats()
    step([7], position)
    after = stats()
    per_step[position] = (after[0] - before[0], after[1] - before[1])
middle = (first + last) // 2
print(f"allocated per step (bytes, buffers) at {first}, {middle}, {last}:",
      per_step[first], per_step[middle], per_step[last])
print("the same at every position:", len(set(per_step.values())) == 1)
rt.attune_model_close(model)
