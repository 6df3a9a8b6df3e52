"""Writes the .npy fixtures for attune-run.test into the directory argv[1]."""
import sys
from pathlib import Path

import numpy as np

d = Path(sys.argv[1])
d.mkdir(parents=True, exist_ok=True)
x = np.arange(2 * 3 * 16, dtype="<f4").reshape(2, 3, 16) / 100
np.save(d / "good.npy", x)
np.save(d / "wrong-last-dim.npy", np.zeros((2, 3, 15), "<f4"))
np.save(d / "wrong-rank.npy", np.zeros((3, 16), "<f4"))
np.save(d / "f64.npy", x.astype("<f8"))
np.save(d / "i64.npy", x.astype("<i8"))
np.save(d / "big-endian.npy", x.astype(">f4"))
np.save(d / "fortran.npy", np.asfortranarray(x))
raw = (d / "good.npy").read_bytes()
(d / "truncated.npy").write_bytes(raw[:-10])
(d / "header-cut.npy").write_bytes(raw[:20])
# A header claiming 10^14 bytes over 384 of data (found by fuzzing: the
# reader allocated the claim before reading).
claim = raw.replace(b"(2, 3, 16)", b"(5000000, 5000000, 1)", 1)
claim = claim.replace(b" " * 11 + b"\n", b"\n", 1)  # the same header length
(d / "huge-claim.npy").write_bytes(claim)
(d / "not-npy.npy").write_bytes(b"hello, world")
y = np.ones((2, 3, 8), "<f4")
np.save(d / "ones-out.npy", y)
