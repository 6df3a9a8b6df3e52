"""Checks the per-step attention maps of attune-run --generate
--attention-maps for a Seq2SeqRNN example against PyTorch:

    check_generation_maps.py MODEL.mlir --golden DIR --case caseN
                             --forced FORCED.npy --maps MAP.npy [--bos 1]
                             [--eos ID]

The module is the header's (gen_golden's build_module: the golden weights);
each source runs unpadded, the decoder fed <bos> then the forced tokens one
step at a time; the weights of the step's attention (Bahdanau: over the
previous state, before the cell; Luong: over the new state) must equal the
map's row for that step (f32, max abs error <= --atol). With --eos, a
sequence's steps end at its first eos (beam search's hypotheses end
there); its rows after that must be zero."""
import argparse
import sys
from pathlib import Path

import numpy as np
import torch

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "scripts"))
import attune_ref as ref  # noqa: E402
import gen_golden  # noqa: E402


def main():
    p = argparse.ArgumentParser()
    p.add_argument("model")
    p.add_argument("--golden", required=True)
    p.add_argument("--case", required=True)
    p.add_argument("--forced", required=True)
    p.add_argument("--maps", required=True)
    p.add_argument("--bos", type=int, default=1)
    p.add_argument("--atol", type=float, default=1e-5)
    p.add_argument("--eos", type=int)
    args = p.parse_args()
    module_expr, _, _ = gen_golden.parse_header(args.model)
    model = gen_golden.build_module(module_expr, gen_golden.header_scope())
    case = Path(args.golden) / args.case
    src = torch.from_numpy(np.load(case / "src.npy"))
    lengths = np.load(case / "src_lengths.npy")
    forced = np.load(args.forced)
    maps = np.load(args.maps)
    if model.attention == "additive":
        weights = (model.W1.weight, model.W2.weight, model.v.weight, model.W1.bias)
    else:
        weights = (model.Wa.weight,)
    worst = 0.0
    with torch.no_grad():
        for b in range(src.shape[0]):
            n = int(lengths[b])
            outputs, s = model.encode(src[b:b + 1, :n])
            steps = forced.shape[1]
            if args.eos is not None and args.eos in forced[b].tolist():
                steps = forced[b].tolist().index(args.eos) + 1
                worst = max(worst, float(np.abs(maps[b, steps:]).max(initial=0.0)))
            for t, token in enumerate([args.bos] + list(forced[b, :steps - 1])):
                e = model.tgt_embed(torch.tensor([int(token)]))
                if model.attention == "additive":
                    _, w = ref.seq2seq("additive", s[:, None], outputs, outputs, weights,
                                       return_weights=True)
                    c = torch.bmm(w, outputs)[:, 0]
                    s = model.cell(torch.cat([e, c], -1), s)
                else:
                    s = model.cell(e, s)
                    _, w = ref.seq2seq("general", s[:, None], outputs, outputs, weights,
                                       return_weights=True)
                row = maps[b, t]
                worst = max(worst, float(np.abs(row[:n] - w[0, 0].numpy()).max()),
                            float(np.abs(row[n:]).max()) if row.shape[0] > n else 0.0)
    print(f"per-step attention maps: {maps.shape[0]} sequences x {maps.shape[1]} steps, "
          f"max |err| = {worst:.3g} (atol {args.atol})")
    sys.exit(0 if worst <= args.atol else 1)


if __name__ == "__main__":
    main()
