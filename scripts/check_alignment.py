#!/usr/bin/python3
"""The share of attention mass on a map's (anti)diagonal.

    check_alignment.py WEIGHTS.npy --lengths SRC_LENGTHS.npy
                       [--anti] [--band 1] [--min 0.7]

WEIGHTS [B, T, S] (or [B, H, T, S]: the head average is taken) are the
attention weights of T decoding steps over S source positions. For each
row b and each step t < lengths[b] (the steps that emit a source token),
the expected position is t (copy) or lengths[b] - 1 - t (--anti:
reversal); the share is the mass within +-band of it over all the mass of
those steps. Prints it; fails (exit 1) below --min."""
import argparse
import sys

import numpy as np


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("weights")
    p.add_argument("--lengths", required=True)
    p.add_argument("--anti", action="store_true")
    p.add_argument("--band", type=int, default=1)
    p.add_argument("--min", type=float, default=0.7)
    args = p.parse_args()
    w = np.load(args.weights).astype(np.float64)
    if w.ndim == 4:
        w = w.mean(1)
    lengths = np.load(args.lengths)
    near = total = 0.0
    for b in range(w.shape[0]):
        n = int(lengths[b])
        for t in range(min(n, w.shape[1])):
            expect = n - 1 - t if args.anti else t
            lo, hi = max(0, expect - args.band), min(w.shape[2], expect + args.band + 1)
            near += w[b, t, lo:hi].sum()
            total += w[b, t].sum()
    share = near / total if total else 0.0
    kind = "anti-diagonal" if args.anti else "diagonal"
    print(f"attention mass within +-{args.band} of the {kind}: {100 * share:.1f}% "
          f"(required {100 * args.min:.0f}%)")
    sys.exit(0 if share >= args.min else 1)


if __name__ == "__main__":
    main()
