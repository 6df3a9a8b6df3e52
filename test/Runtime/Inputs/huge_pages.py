"""Compiled-in weights in huge pages, through libattune_runtime.so from
ctypes:

  huge_pages.py write WEIGHTS.safetensors
  huge_pages.py check LIBDIR MODEL.so WEIGHTS.safetensors moved|file

`write` writes Inputs/big-linear.mlir's weights (a 16 MiB weight, seeded).
`check` opens MODEL.so (big-linear.mlir compiled with those weights in the
library), runs it against NumPy, and looks at the library's read-only data
(the read-only mappings, the file's or anonymous, just before its code) in
/proc/self/smaps: with `moved`, whole huge pages of it are anonymous memory
advised huge (MADV_HUGEPAGE, VmFlags 'hg'), the runtime's copy of the
file's pages; with `file`, all of it is still the file's. Where the kernel
has no transparent huge pages (or has them off), `moved` expects the file's
pages too and says so. Prints one 'ok: ...' line per check.
"""
import ctypes
import os
import re
import sys

import numpy as np

from runtime_ctypes import check, load, run_one, write_safetensors

N = 2048


def weights():
    rng = np.random.default_rng(7)
    w = (rng.standard_normal((N, N)) * 0.02).astype(np.float32)
    b = rng.standard_normal(N).astype(np.float32)
    return w, b


if sys.argv[1] == "write":
    write_safetensors(sys.argv[2], dict(zip("wb", weights())))
    sys.exit(0)

libdir, model_path, _, expect = sys.argv[2:6]
rt = load(libdir)
model = ctypes.c_void_p()
check(rt, rt.attune_model_open(model_path.encode(), ctypes.byref(model)))
x = np.random.default_rng(1).standard_normal((3, N)).astype(np.float32)
y = run_one(rt, model, x)
w, b = weights()
err = float(np.abs(y - (x.astype(np.float64) @ w.T.astype(np.float64) + b)).max())
if err > 1e-4:
    sys.exit(f"error: max |err| = {err}")
print(f"ok: max |err| = {err:.1e}")

# The library's read-only data: the mappings, contiguous and read-only,
# the file's or anonymous, that end where its code begins.
real = os.path.realpath(model_path)
header = re.compile(r"^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ (\d+)\s*(.*)$")
every = []  # each mapping: lo, hi, perms, file-backed, path, VmFlags
with open("/proc/self/smaps") as smaps:
    for line in smaps:
        if m := header.match(line):
            lo, hi, perms, inode, path = m.groups()
            every.append({"lo": int(lo, 16), "hi": int(hi, 16), "perms": perms,
                          "file": inode != "0", "path": path, "flags": []})
        elif line.startswith("VmFlags:") and every:
            every[-1]["flags"] = line.split()[1:]
code = next((k for k, m in enumerate(every)
             if m["path"] == real and m["perms"] == "r-xp"), None)
if code is None:
    sys.exit(f"error: no code mapping of {real} in /proc/self/smaps")
mappings = []
k = code - 1
while (k >= 0 and every[k]["hi"] == every[k + 1]["lo"] and
       every[k]["perms"] == "r--p" and every[k]["path"] in (real, "")):
    mappings.insert(0, every[k])
    k -= 1
for m in mappings:
    m["kib"] = (m["hi"] - m["lo"]) // 1024
if not mappings:
    sys.exit(f"error: no read-only mapping of {real} in /proc/self/smaps")
total = sum(m["kib"] for m in mappings)
moved = [m for m in mappings if not m["file"]]
moved_kib = sum(m["kib"] for m in moved)

mode = ""
try:
    with open("/sys/kernel/mm/transparent_hugepage/enabled") as f:
        mode = f.read()
except OSError:
    pass
if expect == "moved" and (not mode or "[never]" in mode):
    print("note: no transparent huge pages here; the file's pages stay")
    expect = "file"
if expect == "moved":
    if moved_kib < 8 * 1024 or any("hg" not in m["flags"] for m in moved):
        sys.exit(f"error: {moved_kib} of {total} KiB of read-only data "
                 f"anonymous, VmFlags {[m['flags'] for m in moved]}: "
                 "expected the 16 MiB weight's huge pages moved and advised")
    print("ok: read-only data moved to anonymous memory advised huge")
else:
    if moved:
        sys.exit(f"error: {moved_kib} of {total} KiB of read-only data "
                 "anonymous; expected the file's pages")
    print("ok: read-only data in the file's pages")
rt.attune_model_close(model)
