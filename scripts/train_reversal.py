#!/usr/bin/python3
"""Trains a small RNN seq2seq model with Luong attention to reverse strings.

    train_reversal.py --out DIR [--steps N] [--seed S]

The model is scripts/attune_ref.py's Seq2SeqRNN (GRU encoder, GRU decoder,
general attention; embedding 32, hidden 64), the task: a word of 5 to 10
letters a..j is written backwards, then <eos>. Seeded (torch and the data),
on one thread, in well under a minute. Writes to DIR:

  weights.safetensors  the trained parameters (state_dict names)
  vocab.txt            one token per line, line number = id:
                       <pad> <bos> <eos> a b c d e f g h i j
  src.npy, src_lengths.npy, tgt_in.npy, tgt_out.npy
                       one held-out example: the source ids [1, S], its
                       length [1], the decoder's input [1, S + 1] (<bos>
                       then the reversed word: teacher forcing) and the
                       tokens each step should output (the reversed word,
                       then <eos>: the rows of the heatmap)

and prints the held-out accuracy (greedy, exact match) of 200 words. The
decoder's attention over the source should then lie on the anti-diagonal:
output step t (the (t+1)-th letter from the end) looks at source position
S - 1 - t."""
import argparse
import random
import sys
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
import attune_ref as ref  # noqa: E402
from gen_golden import save_safetensors  # noqa: E402

PAD, BOS, EOS, FIRST = 0, 1, 2, 3
LETTERS = "abcdefghij"
VOCAB = ["<pad>", "<bos>", "<eos>"] + list(LETTERS)
EMBED, HIDDEN = 32, 64


def batch(rng, size, lo=5, hi=10):
    """Sources [B, hi] (padded), lengths [B], decoder inputs and targets
    [B, hi + 1] (padded with PAD)."""
    src = torch.full((size, hi), PAD)
    tgt_in = torch.full((size, hi + 1), PAD)
    tgt_out = torch.full((size, hi + 1), PAD)
    lengths = torch.zeros(size, dtype=torch.long)
    for b in range(size):
        n = rng.randint(lo, hi)
        word = [FIRST + rng.randrange(len(LETTERS)) for _ in range(n)]
        rev = word[::-1]
        src[b, :n] = torch.tensor(word)
        tgt_in[b, :n + 1] = torch.tensor([BOS] + rev)
        tgt_out[b, :n + 1] = torch.tensor(rev + [EOS])
        lengths[b] = n
    return src, lengths, tgt_in, tgt_out


def forward(model, src, lengths, tgt_in):
    """Teacher-forced logits [B, T, V], batched: the encoder runs through the
    padding; the decoder starts from its state after each last letter."""
    outputs, _ = model.encoder(model.src_embed(src))
    s = outputs[torch.arange(src.shape[0]), lengths - 1]
    mask = torch.arange(src.shape[1])[None, :] < lengths[:, None]
    keys = model.Wa(outputs)  # s^T Wa h_j = s . (Wa h_j)
    rows = []
    for t in range(tgt_in.shape[1]):
        s = model.cell(model.tgt_embed(tgt_in[:, t]), s)
        scores = torch.einsum("bh,bsh->bs", s, keys).masked_fill(~mask, float("-inf"))
        c = torch.einsum("bs,bsh->bh", torch.softmax(scores, -1), outputs)
        rows.append(model.out(torch.tanh(model.Wc(torch.cat([c, s], -1)))))
    return torch.stack(rows, 1)


def greedy(model, word):
    src = torch.tensor([word])
    outputs, s = model.encode(src)
    token, out = BOS, []
    for _ in range(len(word) + 2):
        logits, s = model.step(torch.tensor([token]), s, outputs)
        token = int(logits.argmax())
        if token == EOS:
            break
        out.append(token)
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--out", required=True)
    p.add_argument("--steps", type=int, default=600)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args()
    torch.set_num_threads(1)
    torch.manual_seed(args.seed)
    rng = random.Random(args.seed)
    model = ref.Seq2SeqRNN(src_vocab=len(VOCAB), tgt_vocab=len(VOCAB), embed=EMBED,
                           hidden=HIDDEN, attention="general")
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    loss_fn = torch.nn.CrossEntropyLoss(ignore_index=PAD)
    for step in range(args.steps):
        src, lengths, tgt_in, tgt_out = batch(rng, 64)
        logits = forward(model, src, lengths, tgt_in)
        loss = loss_fn(logits.reshape(-1, len(VOCAB)), tgt_out.reshape(-1))
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        if step % 200 == 0 or step == args.steps - 1:
            print(f"step {step}: loss {loss.item():.4f}", flush=True)
    model.eval()
    test = random.Random(args.seed + 1)
    with torch.no_grad():
        words = [[FIRST + test.randrange(len(LETTERS)) for _ in range(test.randint(5, 10))]
                 for _ in range(200)]
        right = sum(greedy(model, w) == w[::-1] for w in words)
    print(f"held-out exact reversals: {right}/200")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    save_safetensors(model.state_dict(), out / "weights.safetensors")
    (out / "vocab.txt").write_text("\n".join(VOCAB) + "\n")
    word = [FIRST + LETTERS.index(c) for c in "hideajbgc"]
    np.save(out / "src.npy", np.array([word], dtype=np.int64))
    np.save(out / "src_lengths.npy", np.array([len(word)], dtype=np.int64))
    np.save(out / "tgt_in.npy", np.array([[BOS] + word[::-1]], dtype=np.int64))
    np.save(out / "tgt_out.npy", np.array([word[::-1] + [EOS]], dtype=np.int64))


if __name__ == "__main__":
    main()
