#!/usr/bin/env python3
"""Writes generation models in the attune dialect (docs/design.md,
"Generation"), for any size:

  gen_generation_mlir.py gpt --vocab 50257 --d-model 768 --heads 12 \\
      --layers 12 --positions 1024 [--ff 3072] [--capacity N] > model.mlir
  gen_generation_mlir.py transformer --vocab 101 --src-vocab 89 \\
      --d-model 64 --heads 4 --layers 2 --ff 128 --capacity 40 > model.mlir
  gen_generation_mlir.py rnn --vocab 61 --src-vocab 53 --embed 24 \\
      --hidden 32 --attention additive|general > model.mlir

`gpt`: the generation step of a GPT-2-shaped decoder-only model
(scripts/attune_ref.py's ref.GPT; state_dict keys as Hugging Face's GPT-2):
tokens [B, T], positions [B], lengths [B] and each layer's key and value
caches [B, H, C, D] (C = --capacity, default --positions; 0 = a capacity
given at run time) -> the logits of each row's last token and the caches,
written in place.

`transformer`: an nn.Transformer-shaped encoder-decoder
(ref.Seq2SeqTransformer: token embeddings scaled by sqrt(d), sinusoidal
positions, post-norm relu layers, final norms, a generator): `@encode`
(src [B, S], src_lengths [B]) -> its contexts, the memory's cross-attention
keys and values of every decoder layer [B, H, S, D] and the source lengths;
`@step` runs the decoder over them with its self-attention caches.
`rnn`: the classic GRU encoder-decoder with Bahdanau (additive) or Luong
(general) attention (ref.Seq2SeqRNN): the decoder's hidden state is the
generation state, initialized by the encoder.
--header lines go first (the module's PyTorch header).
"""
import argparse
import math


def tensor(*shape, e="f32"):
    return "tensor<" + "x".join(str(x) for x in shape) + "x" + e + ">"


def transformer(vocab, src_vocab, d_model, heads, layers, ff, capacity, header=()):
    E, H, V, FF = d_model, heads, vocab, ff
    D = E // H
    C = "?" if capacity == 0 else capacity
    t = tensor
    X, HT = t("?", "?", E), t("?", H, "?", D)
    cache, mem = t("?", H, C, D), t("?", H, "?", D)
    out = list(header)
    w = out.append
    scale = math.sqrt(E)
    w("module {")
    # The encoder: memory, then each decoder layer's cross-attention keys
    # and values of it, projected once per sequence.
    contexts = [f"{kv}mem{l}" for l in range(layers) for kv in "kv"]
    results = [f'{mem} {{attune.context = "{c}"}}' for c in contexts]
    results.append('tensor<?xi64> {attune.context = "src_lengths"}')
    w('  func.func @encode(%src: tensor<?x?xi64> {attune.name = "src"},\n'
      '      %src_lengths: tensor<?xi64> {attune.name = "src_lengths"})\n'
      "      -> (" + ",\n          ".join(results) + ")\n"
      "      attributes {attune.generation_encoder} {")
    w(f'    %semb = attune.weight "src_embed.weight" : {t(src_vocab, E)}')
    w(f"    %se = attune.embedding %src, %semb : (tensor<?x?xi64>, {t(src_vocab, E)}) -> {X}")
    w(f"    %ss = attune.scale %se {{factor = {scale!r} : f64}} : {X}")
    w(f"    %x0 = attune.positional_encoding <sinusoidal> %ss : ({X}) -> {X}")
    x = "%x0"
    for l in range(layers):
        p = f"transformer.encoder.layers.{l}."
        names = [("a", "self_attn.in_proj_weight", (3 * E, E)), ("b", "self_attn.in_proj_bias", (3 * E,)),
                 ("c", "self_attn.out_proj.weight", (E, E)), ("d", "self_attn.out_proj.bias", (E,)),
                 ("e", "linear1.weight", (FF, E)), ("f", "linear1.bias", (FF,)),
                 ("g", "linear2.weight", (E, FF)), ("h", "linear2.bias", (E,)),
                 ("i", "norm1.weight", (E,)), ("j", "norm1.bias", (E,)),
                 ("k", "norm2.weight", (E,)), ("m", "norm2.bias", (E,))]
        for v, key, shape in names:
            w(f'    %e{v}{l} = attune.weight "{p}{key}" : {t(*shape)}')
        types = ", ".join(t(*shape) for _, _, shape in names)
        w(f"    %x{l + 1} = attune.encoder_layer {x}\n"
          f"        self_attn(%ea{l}, %eb{l}, %ec{l}, %ed{l}) linear1(%ee{l}, %ef{l})"
          f" linear2(%eg{l}, %eh{l})\n"
          f"        norm1(%ei{l}, %ej{l}) norm2(%ek{l}, %em{l}) key_lengths(%src_lengths)"
          f" {{num_heads = {H} : i64}}\n"
          f"        : ({X}, {types}, tensor<?xi64>) -> {X}")
        x = f"%x{l + 1}"
    w(f'    %eng = attune.weight "transformer.encoder.norm.weight" : {t(E)}')
    w(f'    %enb = attune.weight "transformer.encoder.norm.bias" : {t(E)}')
    w(f"    %memory = attune.layer_norm {x} weight(%eng) bias(%enb) : ({X}, {t(E)}, {t(E)}) -> {X}")
    for l in range(layers):
        p = f"transformer.decoder.layers.{l}.multihead_attn."
        w(f'    %cw{l} = attune.weight "{p}in_proj_weight" : {t(3 * E, E)}')
        w(f'    %cb{l} = attune.weight "{p}in_proj_bias" : {t(3 * E)}')
        for i, kv in ((1, "k"), (2, "v")):
            w(f"    %{kv}w{l} = attune.slice %cw{l} {{axis = 0 : i64, offset = {i * E} : i64,"
              f" size = {E} : i64}} : ({t(3 * E, E)}) -> {t(E, E)}")
            w(f"    %{kv}b{l} = attune.slice %cb{l} {{axis = 0 : i64, offset = {i * E} : i64,"
              f" size = {E} : i64}} : ({t(3 * E)}) -> {t(E)}")
            w(f"    %{kv}p{l} = attune.linear %memory, %{kv}w{l}, %{kv}b{l}"
              f" : ({X}, {t(E, E)}, {t(E)}) -> {X}")
            w(f"    %{kv}mem{l} = attune.split_heads %{kv}p{l} {{num_heads = {H} : i64}}"
              f" : ({X}) -> {mem}")
    w(f"    return {', '.join('%' + c for c in contexts)}, %src_lengths")
    w(f"        : {', '.join([mem] * len(contexts))}, tensor<?xi64>")
    w("  }")

    # The step.
    args = ['%tokens: tensor<?x?xi64> {attune.name = "tokens"}',
            '%positions: tensor<?xi64> {attune.name = "positions"}',
            '%lengths: tensor<?xi64> {attune.name = "lengths"}']
    args += [f'%{c}: {mem} {{attune.context = "{c}"}}' for c in contexts]
    args.append('%src_lengths: tensor<?xi64> {attune.context = "src_lengths"}')
    states = [f"{kv}{l}" for l in range(layers) for kv in "kv"]
    args += [f'%{s_}: {cache} {{attune.state = "{s_}"}}' for s_ in states]
    results = [f'{t("?", V)} {{attune.name = "logits"}}']
    results += [f'{cache} {{attune.state = "{s_}"}}' for s_ in states]
    w("  func.func @step(" + ",\n      ".join(args) + ")\n      -> ("
      + ",\n          ".join(results) + ")\n      attributes {attune.generation_step} {")
    w(f'    %temb = attune.weight "tgt_embed.weight" : {t(V, E)}')
    w(f"    %te = attune.embedding %tokens, %temb : (tensor<?x?xi64>, {t(V, E)}) -> {X}")
    w(f"    %ts = attune.scale %te {{factor = {scale!r} : f64}} : {X}")
    w(f"    %y0 = attune.positional_encoding <sinusoidal> %ts offsets(%positions)"
      f" : ({X}, tensor<?xi64>) -> {X}")
    y, written = "%y0", []
    for l in range(layers):
        p = f"transformer.decoder.layers.{l}."

        def weight(var, key, *shape):
            w(f'    %{var}{l} = attune.weight "{p}{key}" : {t(*shape)}')
        weight("sw", "self_attn.in_proj_weight", 3 * E, E)
        weight("sb", "self_attn.in_proj_bias", 3 * E)
        weight("so", "self_attn.out_proj.weight", E, E)
        weight("sob", "self_attn.out_proj.bias", E)
        weight("cw", "multihead_attn.in_proj_weight", 3 * E, E)
        weight("cb", "multihead_attn.in_proj_bias", 3 * E)
        weight("co", "multihead_attn.out_proj.weight", E, E)
        weight("cob", "multihead_attn.out_proj.bias", E)
        weight("l1", "linear1.weight", FF, E)
        weight("l1b", "linear1.bias", FF)
        weight("l2", "linear2.weight", E, FF)
        weight("l2b", "linear2.bias", E)
        for n in (1, 2, 3):
            weight(f"n{n}w", f"norm{n}.weight", E)
            weight(f"n{n}b", f"norm{n}.bias", E)
        w(f"    %qkv{l} = attune.linear {y}, %sw{l}, %sb{l}"
          f" : ({X}, {t(3 * E, E)}, {t(3 * E)}) -> {t('?', '?', 3 * E)}")
        for i, n in enumerate("qkv"):
            w(f"    %{n}s{l} = attune.slice %qkv{l} {{axis = -1 : i64, offset = {i * E} : i64,"
              f" size = {E} : i64}} : ({t('?', '?', 3 * E)}) -> {X}")
            w(f"    %{n}h{l} = attune.split_heads %{n}s{l} {{num_heads = {H} : i64}}"
              f" : ({X}) -> {HT}")
        for kv in "kv":
            w(f"    %{kv}c{l} = attune.cache_write %{kv}{l}, %{kv}h{l}, %positions"
              f" : ({cache}, {HT}, tensor<?xi64>) -> {cache}")
            written.append(f"%{kv}c{l}")
        w(f"    %sa{l} = attune.attention %qh{l}, %kc{l}, %vc{l} query_offsets(%positions) {{causal}}"
          f" : ({HT}, {cache}, {cache}, tensor<?xi64>) -> {HT}")
        w(f"    %sm{l} = attune.merge_heads %sa{l} : ({HT}) -> {X}")
        w(f"    %sp{l} = attune.linear %sm{l}, %so{l}, %sob{l} : ({X}, {t(E, E)}, {t(E)}) -> {X}")
        w(f"    %z1_{l} = attune.layer_norm {y} residual(%sp{l}) weight(%n1w{l}) bias(%n1b{l})"
          f" : ({X}, {X}, {t(E)}, {t(E)}) -> {X}")
        w(f"    %cqw{l} = attune.slice %cw{l} {{axis = 0 : i64, offset = 0 : i64, size = {E} : i64}}"
          f" : ({t(3 * E, E)}) -> {t(E, E)}")
        w(f"    %cqb{l} = attune.slice %cb{l} {{axis = 0 : i64, offset = 0 : i64, size = {E} : i64}}"
          f" : ({t(3 * E)}) -> {t(E)}")
        w(f"    %cq{l} = attune.linear %z1_{l}, %cqw{l}, %cqb{l} : ({X}, {t(E, E)}, {t(E)}) -> {X}")
        w(f"    %cqh{l} = attune.split_heads %cq{l} {{num_heads = {H} : i64}} : ({X}) -> {HT}")
        w(f"    %ca{l} = attune.attention %cqh{l}, %kmem{l}, %vmem{l} key_lengths(%src_lengths)"
          f" : ({HT}, {mem}, {mem}, tensor<?xi64>) -> {HT}")
        w(f"    %cm{l} = attune.merge_heads %ca{l} : ({HT}) -> {X}")
        w(f"    %cp{l} = attune.linear %cm{l}, %co{l}, %cob{l} : ({X}, {t(E, E)}, {t(E)}) -> {X}")
        w(f"    %z2_{l} = attune.layer_norm %z1_{l} residual(%cp{l}) weight(%n2w{l}) bias(%n2b{l})"
          f" : ({X}, {X}, {t(E)}, {t(E)}) -> {X}")
        w(f"    %f{l} = attune.linear %z2_{l}, %l1{l}, %l1b{l} {{activation = #attune.activation<relu>}}"
          f" : ({X}, {t(FF, E)}, {t(FF)}) -> {t('?', '?', FF)}")
        w(f"    %fp{l} = attune.linear %f{l}, %l2{l}, %l2b{l}"
          f" : ({t('?', '?', FF)}, {t(E, FF)}, {t(E)}) -> {X}")
        w(f"    %y{l + 1} = attune.layer_norm %z2_{l} residual(%fp{l}) weight(%n3w{l}) bias(%n3b{l})"
          f" : ({X}, {X}, {t(E)}, {t(E)}) -> {X}")
        y = f"%y{l + 1}"
    w(f'    %dng = attune.weight "transformer.decoder.norm.weight" : {t(E)}')
    w(f'    %dnb = attune.weight "transformer.decoder.norm.bias" : {t(E)}')
    w(f"    %dn = attune.layer_norm {y} weight(%dng) bias(%dnb) : ({X}, {t(E)}, {t(E)}) -> {X}")
    w(f"    %last = attune.select_last %dn, %lengths : ({X}, tensor<?xi64>) -> {t('?', E)}")
    w(f'    %gw = attune.weight "generator.weight" : {t(V, E)}')
    w(f'    %gb = attune.weight "generator.bias" : {t(V)}')
    w(f"    %logits = attune.linear %last, %gw, %gb : ({t('?', E)}, {t(V, E)}, {t(V)}) -> {t('?', V)}")
    w(f"    return %logits, {', '.join(written)}")
    w(f"        : {t('?', V)}, {', '.join([cache] * len(written))}")
    w("  }")
    w("}")
    return "\n".join(out) + "\n"


def rnn(vocab, src_vocab, embed, hidden, attention, header=()):
    """The classic RNN encoder-decoder with attention (ref.Seq2SeqRNN): a
    GRU encoder; a GRU decoder cell whose state is the generation state
    (initialized by the encoder's last valid output, updated with
    attune.overwrite); additive (Bahdanau: the context of the previous
    state feeds the cell) or general (Luong: the cell runs first, its new
    state attends) scores; output W_out tanh(W_c [context; state])."""
    E, H, V = embed, hidden, vocab
    t = tensor
    out = list(header)
    w = out.append
    additive = attention == "additive"
    w("module {")
    w('  func.func @encode(%src: tensor<?x?xi64> {attune.name = "src"},\n'
      '      %src_lengths: tensor<?xi64> {attune.name = "src_lengths"})\n'
      f'      -> ({t("?", "?", H)} {{attune.context = "encoder"}},\n'
      '          tensor<?xi64> {attune.context = "src_lengths"},\n'
      f'          {t("?", H)} {{attune.state = "h"}})\n'
      "      attributes {attune.generation_encoder} {")
    w(f'    %semb = attune.weight "src_embed.weight" : {t(src_vocab, E)}')
    w(f"    %se = attune.embedding %src, %semb : (tensor<?x?xi64>, {t(src_vocab, E)}) -> {t('?', '?', E)}")
    for n, shape in (("weight_ih_l0", (3 * H, E)), ("weight_hh_l0", (3 * H, H)),
                     ("bias_ih_l0", (3 * H,)), ("bias_hh_l0", (3 * H,))):
        w(f'    %{n} = attune.weight "encoder.{n}" : {t(*shape)}')
    w(f"    %enc, %hn = attune.gru %se weights(%weight_ih_l0, %weight_hh_l0, %bias_ih_l0, %bias_hh_l0)"
      f" {{hidden_size = {H} : i64}}\n"
      f"        : ({t('?', '?', E)}, {t(3 * H, E)}, {t(3 * H, H)}, {t(3 * H)}, {t(3 * H)})"
      f" -> ({t('?', '?', H)}, {t(1, '?', H)})")
    w("    // The state after each source's last valid token (the GRU ran on")
    w("    // through the padding).")
    w(f"    %h0 = attune.select_last %enc, %src_lengths : ({t('?', '?', H)}, tensor<?xi64>) -> {t('?', H)}")
    w(f"    return %enc, %src_lengths, %h0 : {t('?', '?', H)}, tensor<?xi64>, {t('?', H)}")
    w("  }")
    w('  func.func @step(%tokens: tensor<?x1xi64> {attune.name = "tokens"},\n'
      '      %positions: tensor<?xi64> {attune.name = "positions"},\n'
      '      %lengths: tensor<?xi64> {attune.name = "lengths"},\n'
      f'      %enc: {t("?", "?", H)} {{attune.context = "encoder"}},\n'
      '      %src_lengths: tensor<?xi64> {attune.context = "src_lengths"},\n'
      f'      %h: {t("?", H)} {{attune.state = "h"}})\n'
      f'      -> ({t("?", V)} {{attune.name = "logits"}}, {t("?", H)} {{attune.state = "h"}})\n'
      "      attributes {attune.generation_step} {")
    w(f'    %temb = attune.weight "tgt_embed.weight" : {t(V, E)}')
    w(f"    %te = attune.embedding %tokens, %temb : (tensor<?x1xi64>, {t(V, E)}) -> {t('?', 1, E)}")
    w(f"    %e = attune.squeeze %te {{axis = 1 : i64}} : ({t('?', 1, E)}) -> {t('?', E)}")
    cell_in = E + H if additive else E
    for n, shape in (("weight_ih", (3 * H, cell_in)), ("weight_hh", (3 * H, H)),
                     ("bias_ih", (3 * H,)), ("bias_hh", (3 * H,))):
        w(f'    %c_{n} = attune.weight "cell.{n}" : {t(*shape)}')
    cell = "%c_weight_ih, %c_weight_hh, %c_bias_ih, %c_bias_hh"
    cell_types = f"{t(3 * H, cell_in)}, {t(3 * H, H)}, {t(3 * H)}, {t(3 * H)}"

    def attend(query):
        w(f"    %q = attune.expand_dims {query} {{axis = 1 : i64}} : ({t('?', H)}) -> {t('?', 1, H)}")
        if additive:
            w(f'    %w1 = attune.weight "W1.weight" : {t(H, H)}')
            w(f'    %b1 = attune.weight "W1.bias" : {t(H)}')
            w(f'    %w2 = attune.weight "W2.weight" : {t(H, H)}')
            w(f'    %v = attune.weight "v.weight" : {t(1, H)}')
            w(f"    %c3 = attune.seq2seq_attention <additive> %q, %enc, %enc weights(%w1, %w2, %v, %b1)"
              f" key_lengths(%src_lengths)\n"
              f"        : ({t('?', 1, H)}, {t('?', '?', H)}, {t('?', '?', H)}, {t(H, H)}, {t(H, H)},"
              f" {t(1, H)}, {t(H)}, tensor<?xi64>) -> {t('?', 1, H)}")
        else:
            w(f'    %wa = attune.weight "Wa.weight" : {t(H, H)}')
            w(f"    %c3 = attune.seq2seq_attention <general> %q, %enc, %enc weights(%wa)"
              f" key_lengths(%src_lengths)\n"
              f"        : ({t('?', 1, H)}, {t('?', '?', H)}, {t('?', '?', H)}, {t(H, H)},"
              f" tensor<?xi64>) -> {t('?', 1, H)}")
        w(f"    %ctx = attune.squeeze %c3 {{axis = 1 : i64}} : ({t('?', 1, H)}) -> {t('?', H)}")

    if additive:
        attend("%h")
        w(f"    %x = attune.concat %e, %ctx {{axis = -1 : i64}} : ({t('?', E)}, {t('?', H)}) -> {t('?', E + H)}")
        w(f"    %h1 = attune.gru_cell %x, %h weights({cell}) : ({t('?', E + H)}, {t('?', H)}, {cell_types}) -> {t('?', H)}")
    else:
        w(f"    %h1 = attune.gru_cell %e, %h weights({cell}) : ({t('?', E)}, {t('?', H)}, {cell_types}) -> {t('?', H)}")
        attend("%h1")
    w(f'    %wc = attune.weight "Wc.weight" : {t(H, 2 * H)}')
    w(f'    %bc = attune.weight "Wc.bias" : {t(H)}')
    w(f'    %wo = attune.weight "out.weight" : {t(V, H)}')
    w(f'    %bo = attune.weight "out.bias" : {t(V)}')
    w(f"    %cs = attune.concat %ctx, %h1 {{axis = -1 : i64}} : ({t('?', H)}, {t('?', H)}) -> {t('?', 2 * H)}")
    w(f"    %o = attune.linear %cs, %wc, %bc {{activation = #attune.activation<tanh>}}"
      f" : ({t('?', 2 * H)}, {t(H, 2 * H)}, {t(H)}) -> {t('?', H)}")
    w(f"    %logits = attune.linear %o, %wo, %bo : ({t('?', H)}, {t(V, H)}, {t(V)}) -> {t('?', V)}")
    w(f"    %hnew = attune.overwrite %h, %h1 : ({t('?', H)}, {t('?', H)}) -> {t('?', H)}")
    w(f"    return %logits, %hnew : {t('?', V)}, {t('?', H)}")
    w("  }")
    w("}")
    return "\n".join(out) + "\n"


def generate(vocab, d_model, heads, layers, positions, ff, capacity, header=()):
    E, H, V, P, FF = d_model, heads, vocab, positions, ff
    D = E // H
    C = "?" if capacity == 0 else capacity

    def t(*shape, e="f32"):
        return "tensor<" + "x".join(str(x) for x in shape) + "x" + e + ">"

    cache = t("?", H, C, D)
    X, HT = t("?", "?", E), t("?", H, "?", D)
    out = list(header)
    w = out.append
    args = ['%tokens: tensor<?x?xi64> {attune.name = "tokens"}',
            '%positions: tensor<?xi64> {attune.name = "positions"}',
            '%lengths: tensor<?xi64> {attune.name = "lengths"}']
    states = [f"{kv}{l}" for l in range(layers) for kv in "kv"]
    args += [f'%{s}: {cache} {{attune.state = "{s}"}}' for s in states]
    results = [f'{t("?", V)} {{attune.name = "logits"}}']
    results += [f'{cache} {{attune.state = "{s}"}}' for s in states]
    w("module {")
    w("  func.func @step(" + ",\n      ".join(args) + ")\n      -> ("
      + ",\n          ".join(results) + ")\n      attributes {attune.generation_step} {")
    w(f'    %wte = attune.weight "wte.weight" : {t(V, E)}')
    w(f'    %wpe = attune.weight "wpe.weight" : {t(P, E)}')
    w(f"    %tok = attune.embedding %tokens, %wte : (tensor<?x?xi64>, {t(V, E)}) -> {X}")
    w(f"    %x0 = attune.positional_encoding <learned> %tok, %wpe offsets(%positions)"
      f" : ({X}, {t(P, E)}, tensor<?xi64>) -> {X}")
    x, written = "%x0", []
    for l in range(layers):
        def weight(var, key, *shape):
            w(f'    %{var}{l} = attune.weight "h.{l}.{key}" : {t(*shape)}')
        weight("g1_", "ln_1.weight", E); weight("b1_", "ln_1.bias", E)
        weight("wqkv", "attn.c_attn.weight", 3 * E, E); weight("bqkv", "attn.c_attn.bias", 3 * E)
        weight("wo", "attn.c_proj.weight", E, E); weight("bo", "attn.c_proj.bias", E)
        weight("g2_", "ln_2.weight", E); weight("b2_", "ln_2.bias", E)
        weight("wfc", "mlp.c_fc.weight", FF, E); weight("bfc", "mlp.c_fc.bias", FF)
        weight("wpr", "mlp.c_proj.weight", E, FF); weight("bpr", "mlp.c_proj.bias", E)
        w(f"    %n1_{l} = attune.layer_norm {x} weight(%g1_{l}) bias(%b1_{l})"
          f" : ({X}, {t(E)}, {t(E)}) -> {X}")
        w(f"    %qkv{l} = attune.linear %n1_{l}, %wqkv{l}, %bqkv{l}"
          f" : ({X}, {t(3 * E, E)}, {t(3 * E)}) -> {t('?', '?', 3 * E)}")
        for i, n in enumerate("qkv"):
            w(f"    %{n}s{l} = attune.slice %qkv{l} {{axis = -1 : i64, offset = {i * E} : i64,"
              f" size = {E} : i64}} : ({t('?', '?', 3 * E)}) -> {X}")
            w(f"    %{n}h{l} = attune.split_heads %{n}s{l} {{num_heads = {H} : i64}}"
              f" : ({X}) -> {HT}")
        for kv in "kv":
            w(f"    %{kv}c{l} = attune.cache_write %{kv}{l}, %{kv}h{l}, %positions"
              f" : ({cache}, {HT}, tensor<?xi64>) -> {cache}")
            written.append(f"%{kv}c{l}")
        w(f"    %a{l} = attune.attention %qh{l}, %kc{l}, %vc{l} query_offsets(%positions) {{causal}}"
          f" : ({HT}, {cache}, {cache}, tensor<?xi64>) -> {HT}")
        w(f"    %m{l} = attune.merge_heads %a{l} : ({HT}) -> {X}")
        w(f"    %o{l} = attune.linear %m{l}, %wo{l}, %bo{l} : ({X}, {t(E, E)}, {t(E)}) -> {X}")
        w(f"    %r{l} = attune.add {x}, %o{l} : ({X}, {X}) -> {X}")
        w(f"    %n2_{l} = attune.layer_norm %r{l} weight(%g2_{l}) bias(%b2_{l})"
          f" : ({X}, {t(E)}, {t(E)}) -> {X}")
        w(f"    %f{l} = attune.linear %n2_{l}, %wfc{l}, %bfc{l}"
          f" {{activation = #attune.activation<gelu_tanh>}}"
          f" : ({X}, {t(FF, E)}, {t(FF)}) -> {t('?', '?', FF)}")
        w(f"    %p{l} = attune.linear %f{l}, %wpr{l}, %bpr{l}"
          f" : ({t('?', '?', FF)}, {t(E, FF)}, {t(E)}) -> {X}")
        w(f"    %x{l + 1} = attune.add %r{l}, %p{l} : ({X}, {X}) -> {X}")
        x = f"%x{l + 1}"
    w(f'    %gf = attune.weight "ln_f.weight" : {t(E)}')
    w(f'    %bf = attune.weight "ln_f.bias" : {t(E)}')
    w(f"    %nf = attune.layer_norm {x} weight(%gf) bias(%bf) : ({X}, {t(E)}, {t(E)}) -> {X}")
    w(f"    %last = attune.select_last %nf, %lengths : ({X}, tensor<?xi64>) -> {t('?', E)}")
    w(f"    %logits = attune.linear %last, %wte : ({t('?', E)}, {t(V, E)}) -> {t('?', V)}")
    w(f"    return %logits, {', '.join(written)}")
    w(f"        : {t('?', V)}, {', '.join([cache] * len(written))}")
    w("  }")
    w("}")
    return "\n".join(out) + "\n"


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("arch", choices=["gpt", "transformer", "rnn"])
    p.add_argument("--embed", type=int, help="rnn: the embedding size")
    p.add_argument("--hidden", type=int, help="rnn: the hidden size")
    p.add_argument("--attention", choices=["additive", "general"],
                   help="rnn: Bahdanau (additive) or Luong (general) scores")
    p.add_argument("--vocab", type=int, required=True)
    p.add_argument("--src-vocab", type=int, help="transformer: the source vocabulary")
    p.add_argument("--d-model", type=int)
    p.add_argument("--heads", type=int)
    p.add_argument("--layers", type=int)
    p.add_argument("--positions", type=int, help="gpt: the learned positions")
    p.add_argument("--ff", type=int)
    p.add_argument("--capacity", type=int)
    p.add_argument("--header", action="append", default=[],
                   help="a line to put first (repeat), e.g. the torch header")
    a = p.parse_args()
    if a.arch == "rnn":
        if None in (a.src_vocab, a.embed, a.hidden, a.attention):
            p.error("rnn needs --src-vocab, --embed, --hidden and --attention")
        print(rnn(a.vocab, a.src_vocab, a.embed, a.hidden, a.attention, a.header), end="")
        return
    if None in (a.d_model, a.heads, a.layers):
        p.error(f"{a.arch} needs --d-model, --heads and --layers")
    if a.d_model % a.heads:
        p.error(f"--d-model {a.d_model} is not divisible by --heads {a.heads}")
    ff = a.ff or 4 * a.d_model
    if a.arch == "gpt":
        if a.positions is None:
            p.error("gpt needs --positions")
        text = generate(a.vocab, a.d_model, a.heads, a.layers, a.positions, ff,
                        a.positions if a.capacity is None else a.capacity, a.header)
    else:
        if a.src_vocab is None or a.capacity is None:
            p.error("transformer needs --src-vocab and --capacity")
        text = transformer(a.vocab, a.src_vocab, a.d_model, a.heads, a.layers, ff,
                           a.capacity, a.header)
    print(text, end="")


if __name__ == "__main__":
    main()
