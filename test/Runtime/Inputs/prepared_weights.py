"""External weights prepared at load (attune-prepare-weights-at-load),
through libattune_runtime.so from ctypes:

  prepared_weights.py LIBDIR MODEL.so WORKDIR

MODEL.so is Inputs/big-linear.mlir compiled with --weights-external and no
weights file. Writes two weights files A and B (same names and shapes,
other values) and checks, against NumPy:
- A: the output; the anonymous memory the open adds stays below 1.5x the
  16 MiB weight (the packed copy is kept, the unpacked one released); the
  weight globals' pages advised huge (where the kernel has huge pages);
- a second open with A shares the first one's weights; one with B while
  A's are open is refused;
- B, after both handles are closed: the output (prepared again from B's
  values, into the memory released before).
Prints one 'ok: ...' line per check.
"""
import ctypes
import os
import sys

import numpy as np

from runtime_ctypes import check as check_status, load, run_one, write_safetensors

libdir, model_path, work = sys.argv[1:4]
N = 2048
rt = load(libdir)


def check(status):
    check_status(rt, status)


def rss_anon_kib():
    for line in open("/proc/self/status"):
        if line.startswith("RssAnon:"):
            return int(line.split()[1])
    sys.exit("error: no RssAnon in /proc/self/status")


def open_model(weights):
    model = ctypes.c_void_p()
    status = rt.attune_model_open_with_weights(
        model_path.encode(), weights.encode(), ctypes.byref(model))
    return model, status


rng = np.random.default_rng(0)
files = {}
for key in "AB":
    w = (rng.standard_normal((N, N)) * 0.02).astype(np.float32)
    b = rng.standard_normal(N).astype(np.float32)
    files[key] = (f"{work}/{key}.safetensors", w, b)
    write_safetensors(files[key][0], {"w": w, "b": b})
x = rng.standard_normal((3, N)).astype(np.float32)


def run_and_check(model, key):
    y = run_one(rt, model, x)
    _, w, b = files[key]
    expected = x.astype(np.float64) @ w.T.astype(np.float64) + b
    err = float(np.abs(y - expected).max())
    if err > 1e-4:
        sys.exit(f"error: weights {key}: max |err| = {err}")
    return err


before = rss_anon_kib()
first, status = open_model(files["A"][0])
check(status)
added = (rss_anon_kib() - before) * 1024
weight_bytes = N * N * 4
print(f"ok: A max |err| = {run_and_check(first, 'A'):.1e}")
if added > 1.5 * weight_bytes:
    sys.exit(f"error: the open added {added / 2**20:.1f} MiB of anonymous "
             f"memory for a {weight_bytes / 2**20:.0f} MiB weight: the "
             "unpacked weight was not released")
print("ok: the unpacked weight's memory is released")
# The weight globals' pages are advised huge (MADV_HUGEPAGE: the kernel's
# VmFlags 'hg' on the mapping holding its middle), whether or not the
# kernel then finds 2 MiB pages for them.
if os.path.isdir("/sys/kernel/mm/transparent_hugepage"):
    model_lib = ctypes.CDLL(model_path)
    middle = ctypes.addressof(
        ctypes.c_char.in_dll(model_lib, "attune_weight_0")) + weight_bytes // 2
    flags = None
    with open("/proc/self/smaps") as f:
        inside = False
        for line in f:
            head = line.split()[0]
            if "-" in head and all(c in "0123456789abcdef-" for c in head):
                lo, hi = (int(v, 16) for v in head.split("-"))
                inside = lo <= middle < hi
            elif inside and line.startswith("VmFlags:"):
                flags = line.split()[1:]
                break
    if flags is None or "hg" not in flags:
        sys.exit(f"error: the weight global's mapping has VmFlags {flags}: "
                 "not advised huge (MADV_HUGEPAGE)")
    print("ok: huge pages advised for the weight globals")
else:
    print("ok: no transparent huge pages in this kernel")
second, status = open_model(files["A"][0])
check(status)
print(f"ok: second open, A max |err| = {run_and_check(second, 'A'):.1e}")
other, status = open_model(files["B"][0])
if not status:
    sys.exit("error: a second weights file was accepted while A is open")
print("ok: refused: " + rt.attune_status_message(status).decode().split(": ", 1)[1])
rt.attune_status_free(ctypes.c_void_p(status))
rt.attune_model_close(first)
rt.attune_model_close(second)
third, status = open_model(files["B"][0])
check(status)
print(f"ok: B max |err| = {run_and_check(third, 'B'):.1e}")
rt.attune_model_close(third)
