#!/usr/bin/python3
"""Draws attention maps as PNG heatmaps (attune-run --attention-maps DIR).

    attention_heatmap.py --dir DIR [--query-tokens Q.npy] [--key-tokens K.npy]
                         [--vocab FILE] NAME...

Each NAME is an output of a model compiled with attune-compile
--attention-maps, read from DIR/NAME.npy: attn.<site> holds the weights
[B, H, Lq, Lk] (or [B, Lq, Lk] for a seq2seq attention), attn.<site>.mean
their head average [B, Lq, Lk]. For each batch element b and head h the
picture DIR/<site>[.b<b>].head<h>.png (and DIR/<site>[.b<b>].mean.png, or
DIR/<site>[.b<b>].png for a map without heads) shows the weights with the
keys along x and the queries along y, a colour bar (0 to the largest
weight), and a title naming the site and head. With token ids ([B, L]
integer .npy) the axes show them, as strings when --vocab gives one token
per line (line number = id).

The pixel size depends only on (Lq, Lk) (figure_pixels): cells of 24 px up
to 32 tokens along an axis, the axis 768 px beyond, plus fixed margins for
the labels, title and colour bar. Uses Debian's python3-matplotlib (Agg).
"""
import argparse
import sys
from pathlib import Path

import numpy as np

DPI = 100
CELL = 24          # pixels per token up to MAX_CELLS tokens
MAX_CELLS = 32
MARGIN_X = (150, 140)  # left (query labels), right (colour bar)
MARGIN_Y = (70, 130)   # top (title), bottom (key labels)
PREFIX, MEAN = "attn.", ".mean"


def axis_pixels(n):
    """Pixels along an axis of n tokens: CELL each, at most MAX_CELLS cells."""
    return CELL * min(max(n, 1), MAX_CELLS)


def figure_pixels(lq, lk):
    """(width, height) in pixels of the picture of an [lq, lk] map."""
    return (MARGIN_X[0] + axis_pixels(lk) + MARGIN_X[1],
            MARGIN_Y[0] + axis_pixels(lq) + MARGIN_Y[1])


def labels(ids, vocab):
    """Tick labels for token ids: vocabulary strings, else the ids."""
    out = []
    for t in ids:
        t = int(t)
        out.append(vocab[t] if vocab is not None and 0 <= t < len(vocab) else str(t))
    return out


def draw(weights, title, path, qlabels, klabels):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    lq, lk = weights.shape
    width, height = figure_pixels(lq, lk)
    # (+ 1e-3: matplotlib truncates inches * dpi, and 5.06 * 100 is 505.99..)
    fig = plt.figure(figsize=((width + 1e-3) / DPI, (height + 1e-3) / DPI), dpi=DPI)
    ax = fig.add_axes([MARGIN_X[0] / width, MARGIN_Y[1] / height,
                       axis_pixels(lk) / width, axis_pixels(lq) / height])
    top = float(weights.max()) if weights.size and weights.max() > 0 else 1.0
    image = ax.imshow(weights, cmap="viridis", vmin=0.0, vmax=top,
                      aspect="auto", interpolation="nearest")
    ax.set_title(title, fontsize=10)
    ax.set_xlabel("keys")
    ax.set_ylabel("queries")
    for axis, n, names, setter in ((ax.xaxis, lk, klabels, ax.set_xticks),
                                   (ax.yaxis, lq, qlabels, ax.set_yticks)):
        step = max(1, (n + MAX_CELLS - 1) // MAX_CELLS)
        ticks = list(range(0, n, step))
        setter(ticks)
        shown = [names[i] if names is not None and i < len(names) else str(i)
                 for i in ticks]
        if axis is ax.xaxis:
            ax.set_xticklabels(shown, rotation=90, fontsize=8)
        else:
            ax.set_yticklabels(shown, fontsize=8)
    bar = fig.add_axes([(MARGIN_X[0] + axis_pixels(lk) + 20) / width,
                        MARGIN_Y[1] / height, 15 / width,
                        axis_pixels(lq) / height])
    fig.colorbar(image, cax=bar)
    fig.savefig(path, dpi=DPI)
    plt.close(fig)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--dir", required=True)
    p.add_argument("--query-tokens")
    p.add_argument("--key-tokens")
    p.add_argument("--vocab")
    p.add_argument("names", nargs="+")
    args = p.parse_args()
    out = Path(args.dir)
    vocab = None
    if args.vocab:
        vocab = Path(args.vocab).read_text().split("\n")
    def token_ids(path):
        if not path:
            return None
        ids = np.load(path)
        if ids.dtype.kind not in "iu" or ids.ndim not in (1, 2):
            sys.exit(f"attention_heatmap: {path}: expected token ids, [B, L] or "
                     f"[L] integers, got {ids.dtype} {list(ids.shape)}")
        return ids

    qtok, ktok = token_ids(args.query_tokens), token_ids(args.key_tokens)
    for name in args.names:
        w = np.load(out / f"{name}.npy").astype(np.float32)
        site = name[len(PREFIX):] if name.startswith(PREFIX) else name
        mean = site.endswith(MEAN) and w.ndim == 3
        if mean:
            site = site[:-len(MEAN)]
        if w.ndim == 3:
            w = w[:, None]
            heads = [None]
        elif w.ndim == 4:
            heads = list(range(w.shape[1]))
        else:
            sys.exit(f"attention_heatmap: {name}: expected [B, H, Lq, Lk] or "
                     f"[B, Lq, Lk] weights, got shape {list(w.shape)}")
        batch, lq, lk = w.shape[0], w.shape[2], w.shape[3]

        def axis_labels(tokens, length, b, what):
            """Labels for batch element b's axis, or None (positions)."""
            if tokens is None:
                return None
            row = tokens[min(b, tokens.shape[0] - 1)] if tokens.ndim == 2 else tokens
            if row.shape[-1] != length:
                print(f"attention_heatmap: {name}: {what} tokens have length "
                      f"{row.shape[-1]}, the map {length}: positions shown",
                      file=sys.stderr)
                return None
            return labels(row, vocab)

        for b in range(batch):
            qlabels = axis_labels(qtok, lq, b, "query")
            klabels = axis_labels(ktok, lk, b, "key")
            stem = site + (f".b{b}" if batch > 1 else "")
            for i, h in enumerate(heads):
                if h is None:
                    what, file = ("head average", f"{stem}.mean.png") if mean \
                        else ("weights", f"{stem}.png")
                else:
                    what, file = f"head {h}", f"{stem}.head{h}.png"
                title = f"{site}: {what}" + (f" (batch {b})" if batch > 1 else "")
                draw(w[b, i], title, out / file, qlabels, klabels)
                print(f"attention map {out / file}")


if __name__ == "__main__":
    main()
