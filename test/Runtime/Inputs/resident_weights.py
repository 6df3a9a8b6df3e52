"""Opens a model on the CPU through libattune_runtime.so and prints how much
of the library's read-only data (its compiled-in weights) is resident in
this process right after the open, from /proc/self/smaps: the runtime maps
those pages at open rather than fault them in during the first run.

  resident_weights.py LIBDIR MODEL.so

Prints 'read-only data: SIZE KiB, resident R KiB (P %)' for the library's
largest read-only, non-executable mapping.
"""
import ctypes
import os
import re
import sys

from runtime_ctypes import check as check_status, load

libdir, model_path = sys.argv[1:3]
rt = load(libdir)


def check(status):
    check_status(rt, status)


device = ctypes.c_void_p()
check(rt.attune_device_open(b"cpu", ctypes.byref(device)))
model = ctypes.c_void_p()
check(rt.attune_model_open_on(model_path.encode(), None, device,
                              ctypes.byref(model)))

# smaps: a header line per mapping ("start-end perms offset dev inode path"),
# then "Key: value kB" lines.
real = os.path.realpath(model_path)
header = re.compile(r"^[0-9a-f]+-[0-9a-f]+ (\S+) \S+ \S+ \S+\s*(.*)$")
best = None  # the largest read-only mapping of the library: {Size:, Rss:}
current = None
with open("/proc/self/smaps") as smaps:
    for line in smaps:
        if m := header.match(line):
            perms, path = m.groups()
            current = {} if path == real and perms == "r--p" else None
            continue
        key, *value = line.split()
        if current is not None and key in ("Size:", "Rss:"):
            current[key] = int(value[0])
            if key == "Rss:" and (best is None or current["Size:"] > best["Size:"]):
                best = current
if best is None:
    sys.exit(f"error: no read-only mapping of {real} in /proc/self/smaps")
size, rss = best["Size:"], best["Rss:"]
print(f"read-only data: {size} KiB, resident {rss} KiB ({100 * rss // size} %)")
rt.attune_model_close(model)
rt.attune_device_close(device)
