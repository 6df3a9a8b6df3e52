#!/usr/bin/env python3
"""Writes the generation step of a GPT-2-shaped decoder-only model (the
architecture of scripts/attune_ref.py's ref.GPT, state_dict keys as Hugging
Face's GPT-2) in the attune dialect, for any size:

  gen_gpt_mlir.py --vocab 50257 --d-model 768 --heads 12 --layers 12 \\
      --positions 1024 [--ff 3072] [--capacity N] > model.mlir

The step takes tokens [B, T], positions [B], lengths [B] and each layer's
key and value caches [B, H, C, D] (C = --capacity, default --positions;
0 = a capacity given at run time), and returns the logits of each row's
last token and the caches, written in place (docs/design.md,
"Generation"). The first lines are the module's PyTorch header.
"""
import argparse


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
    p.add_argument("--vocab", type=int, required=True)
    p.add_argument("--d-model", type=int, required=True)
    p.add_argument("--heads", type=int, required=True)
    p.add_argument("--layers", type=int, required=True)
    p.add_argument("--positions", type=int, required=True)
    p.add_argument("--ff", type=int)
    p.add_argument("--capacity", type=int)
    p.add_argument("--header", action="append", default=[],
                   help="a line to put first (repeat), e.g. the torch header")
    a = p.parse_args()
    if a.d_model % a.heads:
        p.error(f"--d-model {a.d_model} is not divisible by --heads {a.heads}")
    print(generate(a.vocab, a.d_model, a.heads, a.layers, a.positions,
                   a.ff or 4 * a.d_model,
                   a.positions if a.capacity is None else a.capacity,
                   a.header), end="")


if __name__ == "__main__":
    main()
