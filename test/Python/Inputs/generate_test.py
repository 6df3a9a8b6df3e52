"""Model.generate: the examples' generation models from Python against
their PyTorch references (the golden tokens) and against attune-run.

  generate_test.py GPT.so GPT_GOLDEN SEQ2SEQ.so SEQ2SEQ_GOLDEN BEAM_DIR [DEVICE]

BEAM_DIR holds attune-run's beam search on GPT_GOLDEN's case1 (--beam 3
--n-best 2 --eos 93 --max-new-tokens 24 --output-dir) on the same device.
"""
import sys

import numpy as np
import torch

import attune

gpt_path, gpt_golden, s2s_path, s2s_golden, beam_dir = sys.argv[1:6]
device = sys.argv[6] if len(sys.argv) > 6 else "cpu"
gpt = attune.load(gpt_path, device=device)
print(gpt)
prompt = np.load(f"{gpt_golden}/case1/tokens.npy")
lengths = np.load(f"{gpt_golden}/case1/lengths.npy")
expected = np.load(f"{gpt_golden}/case1/generated.npy")

# Greedy, a batch of prompts of different lengths: PyTorch's tokens, and
# the same again (the caches of the first generation reused).
for run in ("first", "again"):
    tokens = gpt.generate(prompt, lengths, max_new_tokens=24, eos=93)
    print(f"greedy {run}: {tokens.shape} {tokens.dtype} equal "
          f"{np.array_equal(tokens, expected)}")
# Lists and torch tensors are prompts too; one eos id or several.
print("lists and torch:", np.array_equal(
    gpt.generate(prompt.tolist(), torch.tensor(lengths), max_new_tokens=24,
                 eos=[93]), expected))

# Streaming: the callback sees every token of every sequence as it is
# chosen; a true result stops the generation after that step.
seen = {}
gpt.generate(prompt, lengths, max_new_tokens=24, eos=93,
             on_token=lambda b, s, t: seen.setdefault(b, []).append(t))


def row(b):
    """Sequence b's tokens up to and including its eos."""
    r = expected[b].tolist()
    return r[:r.index(93) + 1] if 93 in r else r


print("streamed:", sorted(seen) == list(range(len(expected))) and
      all(seen[b] == row(b) for b in seen))
stopped = gpt.generate(prompt, lengths, max_new_tokens=24, eos=93,
                       on_token=lambda b, s, t: s == 2)
print("stopped after step 2:", stopped.shape,
      np.array_equal(stopped, expected[:, :3]))


def bad_callback(b, s, t):
    raise KeyError("from the callback")


try:
    gpt.generate(prompt, lengths, max_new_tokens=24, on_token=bad_callback)
    print("callback error: not raised")
except KeyError as e:
    print("callback error:", e)

# Sampling: the same seed, the same tokens; top-k 1 is greedy.
a = gpt.generate(prompt, lengths, max_new_tokens=12, temperature=30,
                 top_k=20, seed=7)
b = gpt.generate(prompt, lengths, max_new_tokens=12, temperature=30,
                 top_k=20, seed=7)
g = gpt.generate(prompt, lengths, max_new_tokens=12, temperature=2, top_k=1)
print("seeded:", np.array_equal(a, b), "top-1 greedy:",
      np.array_equal(g, gpt.generate(prompt, lengths, max_new_tokens=12)))

# Beam search: attune-run's hypotheses and scores (the same device's).
tokens, scores = gpt.generate(prompt, lengths, max_new_tokens=24, eos=93,
                              beam=3, n_best=2, return_scores=True)
print("beam:", tokens.shape, scores.shape,
      np.array_equal(tokens, np.load(f"{beam_dir}/tokens.npy")),
      np.allclose(scores, np.load(f"{beam_dir}/scores.npy"), rtol=0,
                  atol=1e-5))

# An encoder-decoder: the source through the encoder's inputs, <bos> as the
# prompt.
s2s = attune.load(s2s_path, device=device)
src = np.load(f"{s2s_golden}/case1/src.npy")
src_lengths = np.load(f"{s2s_golden}/case1/src_lengths.npy")
out = s2s.generate(np.ones((src.shape[0], 1), np.int64), max_new_tokens=30,
                   eos=45, encoder_inputs=(src, src_lengths))
print("seq2seq:", np.array_equal(out, np.load(f"{s2s_golden}/case1/generated.npy")))

# Errors a user meets, with the runtime's message.
for what, call in [
        ("pad", lambda: gpt.generate(prompt, lengths, pad=-1)),
        ("capacity", lambda: gpt.generate(np.full((1, 40), 7), max_new_tokens=10)),
        ("float prompt", lambda: gpt.generate(prompt.astype(np.float32))),
        ("encoder inputs", lambda: s2s.generate(np.ones((1, 1), np.int64))),
]:
    try:
        call()
        print(f"{what}: no error")
    except attune.AttuneError as e:
        print(f"{what}: {e}")
