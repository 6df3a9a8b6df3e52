"""Independent PyTorch references for Attune's golden data.

Written naively and on purpose differently from Attune's kernels: masks are
materialized as boolean [Lq, Lk] tensors, grouped-query heads are repeated,
softmax is torch.softmax. Model headers call these as `ref.<name>(...)`.
"""
import math

import torch


def sinusoidal_positions(length, dim, offset=0):
    """PE[pos, 2i] = sin(pos / 10000^(2i/d)), PE[pos, 2i+1] = cos(...), in
    float32 as the PyTorch tutorial computes it."""
    position = torch.arange(offset, offset + length, dtype=torch.float32)[:, None]
    div_term = torch.exp(torch.arange(0, dim, 2).float() * (-math.log(10000.0) / dim))
    pe = torch.zeros(length, dim)
    pe[:, 0::2] = torch.sin(position * div_term)
    pe[:, 1::2] = torch.cos(position * div_term)[:, : dim // 2]
    return pe


def visibility(lq, lk, causal=False, align="top_left", window=None, offset=None,
               dilation=1):
    """Boolean [lq, lk]: key j visible to query i (at key position
    offset + i when an offset is given). A dilated window (Longformer)
    holds the keys p - t d (and p + t d without causal) for t < window."""
    i = torch.arange(lq)[:, None]
    j = torch.arange(lk)[None, :]
    p = i + (lk - lq) if align == "bottom_right" else i
    if offset is not None:
        p = i + offset
    vis = torch.ones(lq, lk, dtype=torch.bool)
    if causal:
        vis &= j <= p
    if window is not None:
        near = torch.zeros(lq, lk, dtype=torch.bool)
        for t in range(window):
            near |= (p - j) == t * dilation
            if not causal:
                near |= (j - p) == t * dilation
        vis &= near
    return vis


def sparse_layout(lq, lk, heads, layout, align="top_left", offset=None):
    """Boolean [heads, lq, lk] of #attune.sparse<...> (`layout`: a dict with
    block and any of local, stride, fixed, summary, global, split), written
    from Child et al.'s and BigBird's definitions one block pair at a time."""
    block = layout["block"]
    local, stride = layout.get("local", 0), layout.get("stride", 0)
    fixed, summary = layout.get("fixed", 0), layout.get("summary", 0)
    global_blocks, split = layout.get("global", 0), layout.get("split", False)
    vis = torch.zeros(heads, lq, lk, dtype=torch.bool)
    for h in range(heads):
        first = not split or h % 2 == 0
        second = not split or h % 2 == 1
        for i in range(lq):
            p = i + (lk - lq) if align == "bottom_right" else i
            if offset is not None:
                p = i + offset
            qb = p // block  # floor, also for negative positions
            for j in range(lk):
                kb = j // block
                dist = abs(qb - kb)
                seen = False
                if local and first and dist < local:
                    seen = True
                if stride and second and dist % stride == 0:
                    seen = True
                if fixed and first and qb // fixed == kb // fixed:
                    seen = True
                if summary and second and kb % fixed >= fixed - summary:
                    seen = True
                if global_blocks and (qb < global_blocks or kb < global_blocks):
                    seen = True
                vis[h, i, j] = seen
    return vis


def key_padding(lengths, lk):
    """Boolean [B, lk]: key j of batch b is valid."""
    return torch.arange(lk)[None, :] < lengths[:, None]


def attention(q, k, v, causal=False, align="top_left", window=None, lengths=None,
              bias=None, scale=None, score="scaled_dot", hard=False,
              return_weights=False, query_offsets=None, global_indices=None,
              sparse=None, dilation=1, _offset=None):
    b, h, lq, d = q.shape
    hk, lk = k.shape[1], k.shape[2]
    if query_offsets is not None:
        # Each batch row on its own: its queries sit at query_offsets[i] + t.
        rows = [attention(q[i:i + 1], k[i:i + 1], v[i:i + 1], causal, align, window,
                          None if lengths is None else lengths[i:i + 1],
                          None if bias is None else bias, scale, score, hard,
                          return_weights, None, sparse=sparse,
                          dilation=dilation, _offset=int(query_offsets[i]))
                for i in range(b)]
        if return_weights:
            return tuple(torch.cat(parts) for parts in zip(*rows))
        return torch.cat(rows)
    k = k.repeat_interleave(h // hk, dim=1)
    v = v.repeat_interleave(h // hk, dim=1)
    factor = 1.0 if score == "dot" else (scale if scale is not None else 1.0 / math.sqrt(d))
    s = torch.matmul(q, k.transpose(-1, -2)) * factor
    if bias is not None:
        s = s + bias
    vis = visibility(lq, lk, causal, align, window, _offset, dilation)[None, None].expand(
        b, h, lq, lk)
    if global_indices is not None:
        # Longformer: a global token sees every key and is seen by every
        # query; the causal and padding conditions still hold.
        is_global = torch.zeros(b, lk, dtype=torch.bool)
        is_global.scatter_(1, global_indices.long(), True)
        p = torch.arange(lq) + ((lk - lq) if align == "bottom_right" else 0)
        query_global = torch.zeros(b, lq, dtype=torch.bool)
        inside = (p >= 0) & (p < lk)
        query_global[:, inside] = is_global[:, p[inside]]
        either = query_global[:, :, None] | is_global[:, None, :]
        base = visibility(lq, lk, causal, align, None, _offset)[None]
        vis = vis | (base & either)[:, None].expand(b, h, lq, lk)
    if sparse is not None:
        vis = vis & sparse_layout(lq, lk, h, sparse, align, _offset)[None]
    if lengths is not None:
        vis = vis & key_padding(lengths, lk)[:, None, None, :]
    s = s.masked_fill(~vis, float("-inf"))
    if hard:
        idx = torch.argmax(s, dim=-1, keepdim=True)  # first maximum
        w = torch.zeros_like(s).scatter_(-1, idx, 1.0)
        w = torch.where(vis.any(-1, keepdim=True), w, torch.zeros_like(w))
    else:
        w = torch.softmax(s, dim=-1)
        w = torch.nan_to_num(w, nan=0.0)  # rows with no visible key
    out = torch.matmul(w, v)
    return (out, w) if return_weights else out


def bf16_attention(q, k, v, scale=None, **kwargs):
    """The oracle of --attention-compute=bf16: attention whose two
    contractions read bf16 operands, the queries scaled before they are
    rounded (nearest even), the keys and values rounded as they are, the
    scores, softmax and sums in f32 (`attention`'s other arguments as
    given). The probabilities the value product reads are rounded too, but
    relative to each key tile's running maximum, which no whole-row
    reference reproduces: that rounding (at most 2^-9 of each weight) is
    what the tolerance covers."""
    rounded = lambda t: t.bfloat16().float()
    factor = scale if scale is not None else 1.0 / math.sqrt(q.shape[-1])
    return attention(rounded(q * factor), rounded(k), rounded(v), scale=1.0,
                     **kwargs)


def linear_attention(q, k, v, causal=False, lengths=None, eps=1e-6, state=None):
    """Linear attention (Katharopoulos et al. 2020), materialized: the
    [Lq, Lk] matrix of phi(q_i).phi(k_j), phi = elu + 1, masked and summed
    as written in the paper. With `state` (kv [B, Hk, D, Dv], ksum
    [B, Hk, D]) the state's keys come first; returns (out, kv', ksum')."""
    b, h, lq, d = q.shape
    hk, lk = k.shape[1], k.shape[2]
    fq = torch.nn.functional.elu(q.double()) + 1
    fk = torch.nn.functional.elu(k.double()) + 1
    vd = v.double()
    valid = torch.ones(b, lk, dtype=torch.bool)
    if lengths is not None:
        valid = key_padding(lengths, lk)
    vis = valid[:, None, None, :].expand(b, h, lq, lk)
    if causal:
        vis = vis & visibility(lq, lk, causal=True)[None, None]
    w = torch.matmul(fq, fk.repeat_interleave(h // hk, dim=1).transpose(-1, -2))
    w = torch.where(vis, w, torch.zeros_like(w))
    num = torch.matmul(w, vd.repeat_interleave(h // hk, dim=1))
    den = w.sum(-1)
    if state is not None:
        kv, ksum = (s.double() for s in state)
        num = num + torch.matmul(fq, kv.repeat_interleave(h // hk, dim=1))
        den = den + torch.matmul(fq, ksum.repeat_interleave(h // hk, dim=1)[..., None])[..., 0]
    den = den + eps
    out = torch.where(den[..., None] == 0, torch.zeros_like(num), num / den[..., None])
    out = out.to(q.dtype)
    if state is None:
        return out
    fkv = fk * valid[:, None, :, None]
    kv = kv + torch.matmul(fkv.transpose(-1, -2), vd)
    ksum = ksum + fkv.sum(2)
    return out, kv.float(), ksum.float()


def cache_write(cache, update, positions):
    """cache [B, H, C, D] with update [B, H, T, D] written at row b's
    positions[b] .. positions[b] + T."""
    out = cache.clone()
    t = update.shape[2]
    for b in range(cache.shape[0]):
        p = int(positions[b])
        out[b, :, p:p + t] = update[b]
    return out


def select_last(x, lengths):
    """x[b, lengths[b] - 1] for each row b."""
    return torch.stack([x[b, int(lengths[b]) - 1] for b in range(x.shape[0])])


def learned_positions(x, table, offsets):
    """x [B, L, E] + table[offsets[b] + l]."""
    idx = offsets[:, None] + torch.arange(x.shape[1])[None, :]
    return x + table[idx]


def mask(scores, lengths=None, causal=False, align="top_left", window=None):
    lq, lk = scores.shape[-2], scores.shape[-1]
    vis = visibility(lq, lk, causal, align, window)
    vis = vis.expand(scores.shape)
    if lengths is not None:
        pad = key_padding(lengths, lk)
        pad = pad.reshape(pad.shape[0], *([1] * (scores.dim() - 2)), lk)
        vis = vis & pad
    return scores.masked_fill(~vis, float("-inf"))


def softmax(x, dim=-1):
    """Softmax where an all -inf slice gives zeros."""
    return torch.nan_to_num(torch.softmax(x, dim=dim), nan=0.0)


def layer_norm(x, weight=None, bias=None, eps=1e-5, normalized_rank=1):
    shape = x.shape[-normalized_rank:]
    return torch.nn.functional.layer_norm(x, shape, weight, bias, eps)


def seq2seq(score, query, keys, values, weights=(), lengths=None,
            return_weights=False):
    """Luong dot/general/location and Bahdanau additive attention."""
    if score == "dot":
        s = torch.bmm(query, keys.transpose(1, 2))
    elif score == "general":
        (w,) = weights
        s = torch.bmm(query, torch.matmul(keys, w.t()).transpose(1, 2))
    elif score == "additive":
        w1, w2, v = weights[:3]
        pq = torch.matmul(query, w1.t())
        if len(weights) == 4:
            pq = pq + weights[3]
        pk = torch.matmul(keys, w2.t())
        e = torch.tanh(pq[:, :, None, :] + pk[:, None, :, :])
        s = torch.matmul(e, v.t())[..., 0]
    elif score == "location":
        w = weights[0]
        s = torch.matmul(query, w.t())
        if len(weights) == 2:
            s = s + weights[1]
    else:
        raise ValueError(score)
    if lengths is not None:
        s = s.masked_fill(~key_padding(lengths, s.shape[-1])[:, None, :], float("-inf"))
    w = softmax(s, -1)
    ctx = torch.bmm(w, values)
    return (ctx, w) if return_weights else ctx


def in_f32(value):
    """The f32 oracle of a half-precision op: a tensor widened to f32
    (exactly), or a copy of a module with its parameters widened. The
    golden outputs of half-precision models are computed this way and left
    unrounded; the tolerance of their tests covers the one rounding of each
    result to its storage type."""
    if isinstance(value, torch.nn.Module):
        import copy
        return copy.deepcopy(value).float()
    return value.float()


# ---------------------------------------------------------------------------
# Generation (examples/*_generate.mlir): naive loops that recompute the whole
# prefix every step, no cache.

class GPT(torch.nn.Module):
    """A GPT-2-shaped decoder-only language model: token embedding + learned
    positions, pre-norm blocks (causal self-attention, GELU-tanh MLP), a
    final layer norm, the LM head tied to the token embedding. state_dict
    keys as Hugging Face's GPT-2 (with nn.Linear [out, in] layouts)."""

    def __init__(self, vocab, d_model, heads, layers, positions, ff=None):
        super().__init__()
        nn = torch.nn
        self.heads = heads
        self.wte = nn.Embedding(vocab, d_model)
        self.wpe = nn.Embedding(positions, d_model)
        self.h = nn.ModuleList()
        for _ in range(layers):
            block = nn.Module()
            block.ln_1 = nn.LayerNorm(d_model)
            block.attn = nn.Module()
            block.attn.c_attn = nn.Linear(d_model, 3 * d_model)
            block.attn.c_proj = nn.Linear(d_model, d_model)
            block.ln_2 = nn.LayerNorm(d_model)
            block.mlp = nn.Module()
            block.mlp.c_fc = nn.Linear(d_model, ff or 4 * d_model)
            block.mlp.c_proj = nn.Linear(ff or 4 * d_model, d_model)
            self.h.append(block)
        self.ln_f = nn.LayerNorm(d_model)

    def forward(self, tokens):
        """Logits [B, T, V] of every position of `tokens` [B, T]."""
        b, t = tokens.shape
        x = self.wte(tokens) + self.wpe(torch.arange(t))[None]
        for block in self.h:
            q, k, v = block.attn.c_attn(block.ln_1(x)).chunk(3, dim=-1)
            split = lambda y: y.reshape(b, t, self.heads, -1).transpose(1, 2)
            a = attention(split(q), split(k), split(v), causal=True)
            x = x + block.attn.c_proj(a.transpose(1, 2).reshape(b, t, -1))
            h = torch.nn.functional.gelu(block.mlp.c_fc(block.ln_2(x)),
                                         approximate="tanh")
            x = x + block.mlp.c_proj(h)
        return torch.matmul(self.ln_f(x), self.wte.weight.t())


def greedy(model, prompts, lengths, max_new_tokens, eos, pad):
    """Greedy decoding of a decoder-only model, one sequence at a time,
    re-running the whole prefix for every token. `prompts` [B, T] (int64;
    sequence b's prompt is prompts[b, :lengths[b]]). Returns the new tokens
    [B, N] (int64), each row ending at its first `eos` (included) and padded
    with `pad`; N is the longest row."""
    return _greedy(_prefix_scorers(model, prompts, lengths), max_new_tokens,
                   eos, pad)


def _prefix_scorers(model, prompts, lengths):
    """Per sequence b of a decoder-only model, the function from its new
    tokens to the logits after them: the whole prefix re-run."""
    def scorer(b):
        prefix = prompts[b, : int(lengths[b])].tolist()
        return lambda tokens: model(torch.tensor([prefix + tokens]))[0, -1]
    return [scorer(b) for b in range(prompts.shape[0])]


def _seq2seq_scorers(model, src, src_lengths, bos):
    """The same for an encoder-decoder (ref.Seq2SeqTransformer or
    ref.Seq2SeqRNN) from <bos>: the source encoded once per sequence, the
    decoder re-run from <bos> for every token."""
    def scorer(b):
        one = src[b:b + 1, : int(src_lengths[b])]
        if isinstance(model, Seq2SeqRNN):
            return lambda tokens: rnn_logits(model, one, bos, tokens)[-1]
        memory = model.encode(one, src_lengths[b:b + 1])
        return lambda tokens: model.decode(torch.tensor([[bos] + tokens]), memory,
                                           src_lengths[b:b + 1])[0, -1]
    return [scorer(b) for b in range(src.shape[0])]


def _greedy(scorers, max_new_tokens, eos, pad):
    """Greedy decoding with `scorers[b](tokens)`, the logits after sequence
    b's new `tokens`: the first maximum each step, until an eos (included)
    or the limit. Returns [B, N] int64 padded with `pad`."""
    eos = {eos} if isinstance(eos, int) else set(eos)
    rows = []
    for next_logits in scorers:
        new = []
        for _ in range(max_new_tokens):
            token = int(torch.argmax(next_logits(new)))  # the first maximum
            new.append(token)
            if token in eos:
                break
        rows.append(new)
    width = max(len(r) for r in rows)
    return torch.tensor([r + [pad] * (width - len(r)) for r in rows],
                        dtype=torch.int64)


def forced_logits(model, prompts, lengths, tokens):
    """Teacher forcing: the logits [B, N, V] that choose each of `tokens`
    [B, N] after sequence b's prompt and the tokens before it. (Rows past a
    sequence's eos follow its padding; the tests compare up to the eos.)"""
    b, n = tokens.shape
    rows = []
    for i in range(b):
        seq = prompts[i, : int(lengths[i])].tolist() + tokens[i].tolist()
        logits = model(torch.tensor([seq]))[0]
        start = int(lengths[i]) - 1
        rows.append(logits[start: start + n])
    return torch.stack(rows)


def beam_search(model, prompts, lengths, beam, max_new_tokens, eos, pad,
                length_penalty=1.0, num_return=1):
    """Beam search of a decoder-only model (ref.GPT) from prompts [B, T]
    (row b: prompts[b, :lengths[b]]); see _beam."""
    return _beam(_prefix_scorers(model, prompts, lengths), beam,
                 max_new_tokens, eos, pad, length_penalty, num_return)


def beam_search_seq2seq(model, src, src_lengths, bos, beam, max_new_tokens, eos,
                        pad, length_penalty=1.0, num_return=1):
    """Beam search of an encoder-decoder (ref.Seq2SeqTransformer or
    ref.Seq2SeqRNN) from <bos>; see _beam."""
    return _beam(_seq2seq_scorers(model, src, src_lengths, bos), beam,
                 max_new_tokens, eos, pad, length_penalty, num_return)


def _beam(scorers, beam, max_new_tokens, eos, pad, length_penalty, num_return):
    """Beam search as attune_model_generate defines it (runtime/core/
    Generate.cpp), naively: `scorers[b](tokens)` re-runs sequence b's whole
    prefix for the logits after its new `tokens`. Per step, the 2K best
    continuations (summed log probability in float64; ties: the lower beam,
    then the lower id) of the live beams; one ending in eos among the first
    K finishes with score logprob / ((5 + len) / 6)^length_penalty, the
    others fill the next K beams; a sequence is done with K finished
    hypotheses, or at the limit (its live beams finish). Returns (tokens
    [B, R, N] int64 padded with `pad`, scores [B, R])."""
    eos = {eos} if isinstance(eos, int) else set(eos)
    lp = lambda n: ((5.0 + n) / 6.0) ** length_penalty
    results = []
    for next_logits in scorers:
        live = [([], 0.0)]
        finished = []
        for step in range(max_new_tokens):
            candidates = []
            for k, (tokens, logprob) in enumerate(live):
                logp = torch.log_softmax(next_logits(tokens).double(), -1)
                for v in range(logp.shape[0]):
                    candidates.append((logprob + float(logp[v]), k, v))
            candidates.sort(key=lambda c: (-c[0], c[1], c[2]))
            beams = []
            for c, (logprob, k, v) in enumerate(candidates[: 2 * beam]):
                if len(beams) == beam:
                    break
                tokens = live[k][0] + [v]
                if v in eos:
                    if c < beam:
                        finished.append((tokens, logprob / lp(len(tokens))))
                    continue
                beams.append((tokens, logprob))
            if len(finished) >= beam or not beams or step + 1 == max_new_tokens:
                if len(finished) < beam or not beams:
                    finished += [(t, lp_ / lp(len(t))) for t, lp_ in beams]
                break
            live = beams
        finished.sort(key=lambda h: -h[1])  # stable: earlier finished first
        results.append(finished[:num_return])
    width = max(len(t) for r in results for t, _ in r)
    tokens = torch.tensor([[t + [pad] * (width - len(t)) for t, _ in r] for r in results],
                          dtype=torch.int64)
    scores = torch.tensor([[s for _, s in r] for r in results], dtype=torch.float64)
    return tokens, scores


class Seq2SeqTransformer(torch.nn.Module):
    """An nn.Transformer translation model as the PyTorch tutorial writes
    it: token embeddings scaled by sqrt(d_model), sinusoidal positions,
    nn.Transformer (post-norm, relu, final norms; batch first), a linear
    generator. `encode(src, src_lengths)` is the memory; `decode(tgt,
    memory, src_lengths)` the logits of every target position (causal
    target mask, source padding masked)."""

    def __init__(self, src_vocab, tgt_vocab, d_model, heads, layers, ff):
        super().__init__()
        nn = torch.nn
        self.d_model = d_model
        self.src_embed = nn.Embedding(src_vocab, d_model)
        self.tgt_embed = nn.Embedding(tgt_vocab, d_model)
        self.transformer = nn.Transformer(d_model, heads, layers, layers, ff, dropout=0.0,
                                          batch_first=True)
        self.generator = nn.Linear(d_model, tgt_vocab)

    def embed(self, table, ids):
        x = table(ids) * math.sqrt(self.d_model)
        return x + sinusoidal_positions(ids.shape[1], self.d_model)[None]

    def encode(self, src, src_lengths):
        pad = ~key_padding(src_lengths, src.shape[1])
        return self.transformer.encoder(self.embed(self.src_embed, src),
                                        src_key_padding_mask=pad)

    def decode(self, tgt, memory, src_lengths):
        t = tgt.shape[1]
        causal = torch.triu(torch.full((t, t), float("-inf")), 1)
        pad = ~key_padding(src_lengths, memory.shape[1])
        out = self.transformer.decoder(self.embed(self.tgt_embed, tgt), memory,
                                       tgt_mask=causal, memory_key_padding_mask=pad)
        return self.generator(out)


def greedy_seq2seq(model, src, src_lengths, bos, max_new_tokens, eos, pad):
    """Greedy decoding of an encoder-decoder from <bos>, one sequence at a
    time, the decoder re-run over the whole prefix for every token. Returns
    the new tokens [B, N] (int64), each row ending at its first eos
    (included), padded with `pad`."""
    return _greedy(_seq2seq_scorers(model, src, src_lengths, bos),
                   max_new_tokens, eos, pad)


def forced_logits_seq2seq(model, src, src_lengths, bos, tokens):
    """Teacher forcing for an encoder-decoder: the logits [B, N, V] that
    choose each of `tokens` [B, N] after <bos> and the tokens before it."""
    rows = []
    for b in range(src.shape[0]):
        n = int(src_lengths[b])
        memory = model.encode(src[b:b + 1, :n], src_lengths[b:b + 1])
        seq = [bos] + tokens[b].tolist()
        rows.append(model.decode(torch.tensor([seq[:-1]]), memory, src_lengths[b:b + 1])[0])
    return torch.stack(rows)


class Seq2SeqRNN(torch.nn.Module):
    """The classic RNN encoder-decoder with attention: a GRU encoder over
    the source embeddings; a GRU decoder cell started from the encoder's
    state after the last source token; scores over the encoder outputs,
    `additive` (Bahdanau et al. 2015: e_j = v^T tanh(W1 s_{t-1} + b + W2 h_j),
    the context of the previous state is fed to the cell with the target
    embedding) or `general` (Luong et al. 2015: the cell runs on the
    embedding first, e_j = s_t^T Wa h_j); output W_out tanh(W_c [c; s_t]).
    Padding of the source is masked."""

    def __init__(self, src_vocab, tgt_vocab, embed, hidden, attention):
        super().__init__()
        nn = torch.nn
        self.attention = attention
        self.src_embed = nn.Embedding(src_vocab, embed)
        self.encoder = nn.GRU(embed, hidden, batch_first=True)
        self.tgt_embed = nn.Embedding(tgt_vocab, embed)
        if attention == "additive":
            self.W1 = nn.Linear(hidden, hidden)
            self.W2 = nn.Linear(hidden, hidden, bias=False)
            self.v = nn.Linear(hidden, 1, bias=False)
            self.cell = nn.GRUCell(embed + hidden, hidden)
        else:
            self.Wa = nn.Linear(hidden, hidden, bias=False)
            self.cell = nn.GRUCell(embed, hidden)
        self.Wc = nn.Linear(2 * hidden, hidden)
        self.out = nn.Linear(hidden, tgt_vocab)

    def encode(self, src):
        """One unpadded source [1, S]: its outputs and last state."""
        outputs, h = self.encoder(self.src_embed(src))
        return outputs, h[0]

    def attend(self, s, outputs):
        if self.attention == "additive":
            weights = (self.W1.weight, self.W2.weight, self.v.weight, self.W1.bias)
        else:
            weights = (self.Wa.weight,)
        return seq2seq(self.attention, s[:, None], outputs, outputs, weights)[:, 0]

    def step(self, token, s, outputs):
        """(logits [1, V], next state) for the previous token [1]."""
        e = self.tgt_embed(token)
        if self.attention == "additive":
            c = self.attend(s, outputs)
            s = self.cell(torch.cat([e, c], -1), s)
        else:
            s = self.cell(e, s)
            c = self.attend(s, outputs)
        return self.out(torch.tanh(self.Wc(torch.cat([c, s], -1)))), s


def forced_luong(model, src, src_lengths, tgt_in):
    """Teacher forcing for a Luong (general) Seq2SeqRNN, one source at a time
    (unpadded) and one step at a time: the decoder fed `tgt_in` [B, T].
    Returns (logits [B, T, V], attention weights [B, T, S]) (weights past a
    source's length are 0)."""
    logits, maps = [], []
    for b in range(src.shape[0]):
        n = int(src_lengths[b])
        outputs, s = model.encode(src[b:b + 1, :n])
        rows, weights = [], []
        for t in range(tgt_in.shape[1]):
            s = model.cell(model.tgt_embed(tgt_in[b:b + 1, t]), s)
            c, w = seq2seq("general", s[:, None], outputs, outputs,
                           (model.Wa.weight,), return_weights=True)
            rows.append(model.out(torch.tanh(model.Wc(torch.cat([c[:, 0], s], -1))))[0])
            weights.append(torch.nn.functional.pad(w[0, 0], (0, src.shape[1] - n)))
        logits.append(torch.stack(rows))
        maps.append(torch.stack(weights))
    return torch.stack(logits), torch.stack(maps)


def rnn_logits(model, src, bos, tokens):
    """The logits after <bos> and each of `tokens`, the decoder re-run from
    <bos> (naively) for the last one: [len(tokens) + 1, V]."""
    outputs, s = model.encode(src)
    rows = []
    for token in [bos] + tokens:
        logits, s = model.step(torch.tensor([token]), s, outputs)
        rows.append(logits[0])
    return torch.stack(rows)


def greedy_rnn(model, src, src_lengths, bos, max_new_tokens, eos, pad):
    """Greedy decoding of Seq2SeqRNN from <bos>, one source at a time
    (unpadded), the decoder re-run from <bos> for every token. Returns the
    new tokens [B, N] padded with `pad` after each row's eos."""
    return _greedy(_seq2seq_scorers(model, src, src_lengths, bos),
                   max_new_tokens, eos, pad)


def forced_logits_rnn(model, src, src_lengths, bos, tokens):
    """Teacher forcing for Seq2SeqRNN: [B, N, V]."""
    return torch.stack([
        rnn_logits(model, src[b:b + 1, : int(src_lengths[b])], bos, tokens[b].tolist()[:-1])
        for b in range(src.shape[0])])


def bf16_gemms(fn):
    """The oracle of --gemm-compute=bf16: `fn()` evaluated with both
    operands of every linear layer (input and weight) rounded to bf16
    (nearest even) and the products summed in f32, the bias added in f32.
    It patches torch.nn.functional.linear, which nn.Linear and
    F.multi_head_attention_forward's projections call; PyTorch's fused fast
    paths (nn.TransformerEncoderLayer's and nn.MultiheadAttention's in eval
    mode) do not, so a model checked this way keeps them off (an activation
    given as a function, batch_first=False)."""
    functional = torch.nn.functional
    linear = functional.linear
    rounded = lambda t: t.bfloat16().float()
    functional.linear = lambda x, w, b=None: linear(rounded(x), rounded(w), b)
    try:
        return fn()
    finally:
        functional.linear = linear
