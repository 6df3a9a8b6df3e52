"""Checks sampled rows of a causal attention output against a float64 NumPy
reference and the run's peak resident memory against a bound.

  check_attention_rows.py DIR TIME_LOG MAX_FACTOR
DIR holds q.npy, k.npy, v.npy and output0.npy ([B, H, L, D]); TIME_LOG has
"peak-kb N" from GNU time. The bound is MAX_FACTOR x the bytes of q, k, v and
the output together.
"""
import re
import sys

import numpy as np

d, log, factor = sys.argv[1], sys.argv[2], float(sys.argv[3])
q, k, v = (np.load(f"{d}/{n}.npy", mmap_mode="r") for n in "qkv")
o = np.load(f"{d}/output0.npy", mmap_mode="r")
L, D = q.shape[2], q.shape[3]
worst = 0.0
for h in (0, q.shape[1] - 1):
    for i in (0, 1, 63, 64, 4095, L // 2 + 7, L - 1):
        s = (k[0, h, : i + 1].astype(np.float64) @ q[0, h, i].astype(np.float64)) / np.sqrt(D)
        w = np.exp(s - s.max())
        ref = (w / w.sum()) @ v[0, h, : i + 1].astype(np.float64)
        worst = max(worst, float(np.abs(ref - o[0, h, i]).max()))
peak = int(re.search(r"peak-kb (\d+)", open(log).read()).group(1)) * 1024
budget = factor * (q.nbytes + k.nbytes + v.nbytes + o.nbytes)
print(f"max |err| {worst:.2e}; peak {peak / 2**20:.0f} MiB, budget {budget / 2**20:.0f} MiB")
sys.exit(0 if worst < 1e-5 and peak < budget else 1)
