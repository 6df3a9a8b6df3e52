"""Hand-written PyTorch modules for the importer's tests (check_onnx.py
--import): the forms users write that nn's modules do not cover."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class GPT(nn.Module):
    """A GPT-style decoder: token embedding + learned positions, pre-norm
    blocks with a fused QKV projection split in three, 4-D heads, a causal
    mask from torch.triu applied with masked_fill, a GELU MLP, a final layer
    norm and an LM head tied to the embedding."""

    def __init__(self, vocab=100, dim=64, heads=4, layers=2, max_len=32):
        super().__init__()
        self.heads = heads
        self.wte = nn.Embedding(vocab, dim)
        self.wpe = nn.Embedding(max_len, dim)
        self.blocks = nn.ModuleList(Block(dim, heads) for _ in range(layers))
        self.ln_f = nn.LayerNorm(dim)

    def forward(self, ids):
        pos = torch.arange(ids.shape[1])
        x = self.wte(ids) + self.wpe(pos)
        for block in self.blocks:
            x = block(x)
        return self.ln_f(x) @ self.wte.weight.t()


class Block(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads = heads
        self.ln_1 = nn.LayerNorm(dim)
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.ln_2 = nn.LayerNorm(dim)
        self.fc = nn.Linear(dim, 4 * dim)
        self.fc_out = nn.Linear(4 * dim, dim)

    def forward(self, x):
        B, L, E = x.shape
        D = E // self.heads
        q, k, v = self.qkv(self.ln_1(x)).split(E, dim=-1)
        q = q.view(B, L, self.heads, D).transpose(1, 2)
        k = k.view(B, L, self.heads, D).transpose(1, 2)
        v = v.view(B, L, self.heads, D).transpose(1, 2)
        s = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(D))
        mask = torch.triu(torch.ones(L, L, dtype=torch.bool), diagonal=1)
        a = s.masked_fill(mask, float("-inf")).softmax(-1)
        y = (a @ v).transpose(1, 2).reshape(B, L, E)
        x = x + self.proj(y)
        return x + self.fc_out(F.gelu(self.fc(self.ln_2(x)), approximate="tanh"))


class SinusoidalEncoder(nn.Module):
    """Token embedding scaled by sqrt(d), a registered sinusoidal table
    sliced to the length, and an nn.TransformerEncoder."""

    def __init__(self, vocab=100, dim=64, heads=4, layers=2, max_len=64):
        super().__init__()
        self.dim = dim
        self.embed = nn.Embedding(vocab, dim)
        position = torch.arange(max_len).unsqueeze(1)
        div = torch.exp(torch.arange(0, dim, 2) * (-math.log(10000.0) / dim))
        pe = torch.zeros(max_len, dim)
        pe[:, 0::2] = torch.sin(position * div)
        pe[:, 1::2] = torch.cos(position * div)
        self.register_buffer("pe", pe)
        self.encoder = nn.TransformerEncoder(
            nn.TransformerEncoderLayer(dim, heads, 2 * dim, dropout=0.0,
                                       batch_first=True),
            layers, enable_nested_tensor=False)

    def forward(self, ids):
        x = self.embed(ids) * math.sqrt(self.dim) + self.pe[: ids.shape[1]]
        return self.encoder(x)


class GenericOps(nn.Module):
    """Ops no pattern raises, each through the importer's generic path:
    Erf, Sqrt, Exp, Log, Abs, Neg, Reciprocal, Div and Pow by tensors,
    Max/Min, Equal on token ids, Greater with a cast to float, Where, the
    reductions, Gather of columns, Trilu (of floats and of a bool mask),
    a Reshape that splits a static dim and two that merge and split the
    dynamic ones, and an Expand of a learned token to [B, L, 16].
    Inputs: x [B, L, 16] and ids [B, L] (a 0 id marks padding); L >= 3."""

    def __init__(self, dim=16):
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        self.token = nn.Parameter(torch.randn(1, 1, dim))

    def forward(self, x, ids):
        y = self.proj(x)
        a = (torch.erf(y) + torch.sqrt(y.abs() + 1) * torch.exp(-y.abs())
             - torch.log(y.abs() + 2) + torch.reciprocal(y.abs() + 1))
        b = a / (y.pow(2) + 1) + torch.pow(y.abs() + 0.5, a)
        c = torch.maximum(a, b) - torch.minimum(a, b) + (y > 0.1).float()
        pad = (ids == 0).unsqueeze(-1)
        c = torch.where(pad, torch.tensor(-1.0), c)
        s = c @ c.transpose(1, 2)
        s = torch.triu(s, diagonal=1) + torch.tril(s, diagonal=-1) * 0.5
        s = torch.where(torch.tril(s > 0.5), s, s * 0.25)
        r = (c.sum(-1, keepdim=True) + c.amax(dim=-1, keepdim=True)
             - c.amin(dim=(1, 2), keepdim=True)
             + torch.prod(c[:, :, :4] * 0.5 + 1, dim=-1, keepdim=True))
        g = c[:, :, torch.tensor([3, 0, -1])] + c.mean(dim=1, keepdim=True)[:, :, :3]
        h = c.index_select(1, torch.tensor([2, 0]))
        q = c.reshape(c.shape[0], c.shape[1], 4, 4).amax(-1)
        f = (c.reshape(-1, 16) * 2.0).reshape(c.shape[0], c.shape[1], 16)
        e = self.token.expand(x.shape[0], x.shape[1], -1)
        return torch.cat([r * c[:, :, :3] + g, s[:, :, :3], q, f[:, :, :2] + e[:, :, :2]],
                         dim=-1), h
