"""Checks the PNG heatmaps attune-run --attention-maps wrote:

    check_heatmaps.py DIR --lq N --lk N --count N

DIR holds exactly `count` PNGs; each has the pixel size
scripts/attention_heatmap.py gives an [lq, lk] map, and is not blank: its
pixels vary (the heatmap, labels and colour bar), and the map area holds
more than a few distinct colours (a uniform or empty map would not)."""
import argparse
import sys
from pathlib import Path

import numpy as np
import matplotlib.image as mpimg

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "scripts"))
import attention_heatmap as hm  # noqa: E402


def main():
    p = argparse.ArgumentParser()
    p.add_argument("dir")
    p.add_argument("--lq", type=int, required=True)
    p.add_argument("--lk", type=int, required=True)
    p.add_argument("--count", type=int, required=True)
    args = p.parse_args()
    files = sorted(Path(args.dir).glob("*.png"))
    if len(files) != args.count:
        sys.exit(f"expected {args.count} PNGs, found {len(files)}: {[f.name for f in files]}")
    width, height = hm.figure_pixels(args.lq, args.lk)
    for f in files:
        img = mpimg.imread(f)
        if img.shape[:2] != (height, width):
            sys.exit(f"{f.name}: {img.shape[1]}x{img.shape[0]} pixels, expected {width}x{height}")
        rgb = img[..., :3]
        if rgb.std() < 0.05:
            sys.exit(f"{f.name}: blank (pixel std {rgb.std():.4f})")
        # The map area: MARGIN_X[0] from the left, MARGIN_Y[0] from the top.
        x0, y0 = hm.MARGIN_X[0], hm.MARGIN_Y[0]
        area = rgb[y0 + 2:y0 + hm.axis_pixels(args.lq) - 2,
                   x0 + 2:x0 + hm.axis_pixels(args.lk) - 2]
        colours = len(np.unique(area.reshape(-1, 3), axis=0))
        if colours < 8:
            sys.exit(f"{f.name}: the map area has {colours} colours")
    print(f"{len(files)} heatmaps of {width}x{height} pixels, none blank")


if __name__ == "__main__":
    main()
