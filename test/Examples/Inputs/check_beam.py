"""Beam search of a compiled generation model against scripts/attune_ref.py's
naive beam search (every hypothesis re-runs its prefix; an encoder-decoder
from <bos> = 1 when the case has a source), on a golden case:

  check_beam.py MODEL.mlir GOLDEN_CASE_DIR ATTUNE_RUN MODEL.so WORK
      --beam K --n-best R --max-new-tokens N --eos ID --length-penalty A
      [--run-arg ARG]...

Prints per sequence whether the R hypotheses are the reference's and the
largest score difference; exits non-zero on a mismatch.
"""
import argparse
import subprocess
import sys
from pathlib import Path

import numpy as np
import torch

root = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(root / "scripts"))
import gen_golden  # noqa: E402

p = argparse.ArgumentParser()
p.add_argument("model")
p.add_argument("case")
p.add_argument("attune_run")
p.add_argument("library")
p.add_argument("work")
p.add_argument("--beam", type=int, required=True)
p.add_argument("--n-best", type=int, required=True)
p.add_argument("--max-new-tokens", type=int, required=True)
p.add_argument("--eos", type=int, required=True)
p.add_argument("--length-penalty", type=float, required=True)
p.add_argument("--run-arg", action="append", default=[],
               help="an extra attune-run argument, e.g. --device=vulkan")
a = p.parse_args()

module_expr, _, _ = gen_golden.parse_header(a.model)
module = gen_golden.build_module(module_expr, gen_golden.header_scope())
case = Path(a.case)
ref = gen_golden.ref
if (case / "src.npy").exists():
    # An encoder-decoder: the source to the encoder, <bos> = 1.
    src = torch.from_numpy(np.load(case / "src.npy"))
    src_lengths = torch.from_numpy(np.load(case / "src_lengths.npy"))
    with torch.no_grad():
        ref_tokens, ref_scores = ref.beam_search_seq2seq(
            module, src, src_lengths, 1, a.beam, a.max_new_tokens, a.eos, 0,
            a.length_penalty, a.n_best)
    inputs = ["--input", f"src={case / 'src.npy'}",
              "--input", f"src_lengths={case / 'src_lengths.npy'}", "--bos", "1"]
else:
    prompts = torch.from_numpy(np.load(case / "tokens.npy"))
    lengths = torch.from_numpy(np.load(case / "lengths.npy"))
    with torch.no_grad():
        ref_tokens, ref_scores = ref.beam_search(
            module, prompts, lengths, a.beam, a.max_new_tokens, a.eos, 0,
            a.length_penalty, a.n_best)
    inputs = ["--input", f"tokens={case / 'tokens.npy'}",
              "--input", f"lengths={case / 'lengths.npy'}"]
cmd = [a.attune_run, a.library, "--generate", *inputs, "--beam", str(a.beam),
       "--n-best", str(a.n_best), "--max-new-tokens", str(a.max_new_tokens),
       "--eos", str(a.eos), "--length-penalty", str(a.length_penalty),
       "--output-dir", a.work, *a.run_arg]
subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
tokens = np.load(Path(a.work) / "tokens.npy")
scores = np.load(Path(a.work) / "scores.npy")
if a.n_best == 1:
    tokens, scores = tokens[:, None], scores[:, None]
failed = False
for b in range(ref_tokens.shape[0]):
    ref_t = ref_tokens[b].numpy()
    width = max(ref_t.shape[-1], tokens.shape[-1])
    pad = lambda t: np.pad(t, ((0, 0), (0, width - t.shape[-1])))
    same = bool((pad(ref_t) == pad(tokens[b])).all())
    diff = float(np.abs(scores[b] - ref_scores[b].numpy()).max())
    ok = same and diff <= 1e-4
    failed |= not ok
    print(f"sequence {b}: {a.n_best} hypotheses {'equal' if same else 'DIFFER'}, "
          f"scores max |diff| {diff:.2e} {'ok' if ok else 'FAIL'}")
    if not same:
        print("  attune:", tokens[b].tolist(), "\n  torch: ", ref_t.tolist())
sys.exit(1 if failed else 0)
