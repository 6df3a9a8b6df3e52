// torch.module: ref.GPT(vocab=97, d_model=64, heads=4, layers=2, positions=48)
// torch.inputs: tokens=i64[1,5]{3,97}, lengths=i64[1]{5,6}
// torch.inputs: tokens=i64[3,7]{3,97}, lengths=i64[3]{1,8}
// torch.inputs: tokens=i64[2,1]{3,97}, lengths=i64[2]{1,2}
// torch.generate: ref.greedy(module, tokens, lengths, max_new_tokens=24, eos=93, pad=0)
// torch.logits: ref.forced_logits(module, tokens, lengths, generated)
// attune.generate: --max-new-tokens 24 --eos 93 --pad 0
//
// A GPT-2-shaped decoder-only language model (scripts/attune_ref.py's
// ref.GPT): token embedding + learned positions, 2 pre-norm blocks (causal
// self-attention with 4 heads of 16, GELU-tanh MLP of 256), a final layer
// norm and the LM head tied to the token embedding; vocabulary 97, 48
// positions. `@step` is its generation step (docs/design.md, "Generation"):
// the prompt runs once (positions 0, lengths = the prompt lengths), then
// one token per step; each layer's keys and values go into its cache
// [B, 4, 48, 16] in place (attune.cache_write), and attention reads the
// cache up to each query's position (query_offsets, causal). The logits
// are those of each sequence's last token (attune.select_last).
//
// The IR is scripts/gen_generation_mlir.py gpt --vocab 97 --d-model 64 --heads 4
// --layers 2 --positions 48 --ff 256 (any size: bench/models/gpt2_generate.mlir).
//
//   attune-compile examples/gpt_generate.mlir --weights W.safetensors -o gpt.so
//   attune-run gpt.so --generate --input tokens=prompt.npy --max-new-tokens 24 --eos 93

module {
  func.func @step(%tokens: tensor<?x?xi64> {attune.name = "tokens"},
      %positions: tensor<?xi64> {attune.name = "positions"},
      %lengths: tensor<?xi64> {attune.name = "lengths"},
      %k0: tensor<?x4x48x16xf32> {attune.state = "k0"},
      %v0: tensor<?x4x48x16xf32> {attune.state = "v0"},
      %k1: tensor<?x4x48x16xf32> {attune.state = "k1"},
      %v1: tensor<?x4x48x16xf32> {attune.state = "v1"})
      -> (tensor<?x97xf32> {attune.name = "logits"},
          tensor<?x4x48x16xf32> {attune.state = "k0"},
          tensor<?x4x48x16xf32> {attune.state = "v0"},
          tensor<?x4x48x16xf32> {attune.state = "k1"},
          tensor<?x4x48x16xf32> {attune.state = "v1"})
      attributes {attune.generation_step} {
    %wte = attune.weight "wte.weight" : tensor<97x64xf32>
    %wpe = attune.weight "wpe.weight" : tensor<48x64xf32>
    %tok = attune.embedding %tokens, %wte : (tensor<?x?xi64>, tensor<97x64xf32>) -> tensor<?x?x64xf32>
    %x0 = attune.positional_encoding <learned> %tok, %wpe offsets(%positions) : (tensor<?x?x64xf32>, tensor<48x64xf32>, tensor<?xi64>) -> tensor<?x?x64xf32>
    %g1_0 = attune.weight "h.0.ln_1.weight" : tensor<64xf32>
    %b1_0 = attune.weight "h.0.ln_1.bias" : tensor<64xf32>
    %wqkv0 = attune.weight "h.0.attn.c_attn.weight" : tensor<192x64xf32>
    %bqkv0 = attune.weight "h.0.attn.c_attn.bias" : tensor<192xf32>
    %wo0 = attune.weight "h.0.attn.c_proj.weight" : tensor<64x64xf32>
    %bo0 = attune.weight "h.0.attn.c_proj.bias" : tensor<64xf32>
    %g2_0 = attune.weight "h.0.ln_2.weight" : tensor<64xf32>
    %b2_0 = attune.weight "h.0.ln_2.bias" : tensor<64xf32>
    %wfc0 = attune.weight "h.0.mlp.c_fc.weight" : tensor<256x64xf32>
    %bfc0 = attune.weight "h.0.mlp.c_fc.bias" : tensor<256xf32>
    %wpr0 = attune.weight "h.0.mlp.c_proj.weight" : tensor<64x256xf32>
    %bpr0 = attune.weight "h.0.mlp.c_proj.bias" : tensor<64xf32>
    %n1_0 = attune.layer_norm %x0 weight(%g1_0) bias(%b1_0) : (tensor<?x?x64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<?x?x64xf32>
    %qkv0 = attune.linear %n1_0, %wqkv0, %bqkv0 : (tensor<?x?x64xf32>, tensor<192x64xf32>, tensor<192xf32>) -> tensor<?x?x192xf32>
    %qs0 = attune.slice %qkv0 {axis = -1 : i64, offset = 0 : i64, size = 64 : i64} : (tensor<?x?x192xf32>) -> tensor<?x?x64xf32>
    %qh0 = attune.split_heads %qs0 {num_heads = 4 : i64} : (tensor<?x?x64xf32>) -> tensor<?x4x?x16xf32>
    %ks0 = attune.slice %qkv0 {axis = -1 : i64, offset = 64 : i64, size = 64 : i64} : (tensor<?x?x192xf32>) -> tensor<?x?x64xf32>
    %kh0 = attune.split_heads %ks0 {num_heads = 4 : i64} : (tensor<?x?x64xf32>) -> tensor<?x4x?x16xf32>
    %vs0 = attune.slice %qkv0 {axis = -1 : i64, offset = 128 : i64, size = 64 : i64} : (tensor<?x?x192xf32>) -> tensor<?x?x64xf32>
    %vh0 = attune.split_heads %vs0 {num_heads = 4 : i64} : (tensor<?x?x64xf32>) -> tensor<?x4x?x16xf32>
    %kc0 = attune.cache_write %k0, %kh0, %positions : (tensor<?x4x48x16xf32>, tensor<?x4x?x16xf32>, tensor<?xi64>) -> tensor<?x4x48x16xf32>
    %vc0 = attune.cache_write %v0, %vh0, %positions : (tensor<?x4x48x16xf32>, tensor<?x4x?x16xf32>, tensor<?xi64>) -> tensor<?x4x48x16xf32>
    %a0 = attune.attention %qh0, %kc0, %vc0 query_offsets(%positions) {causal} : (tensor<?x4x?x16xf32>, tensor<?x4x48x16xf32>, tensor<?x4x48x16xf32>, tensor<?xi64>) -> tensor<?x4x?x16xf32>
    %m0 = attune.merge_heads %a0 : (tensor<?x4x?x16xf32>) -> tensor<?x?x64xf32>
    %o0 = attune.linear %m0, %wo0, %bo0 : (tensor<?x?x64xf32>, tensor<64x64xf32>, tensor<64xf32>) -> tensor<?x?x64xf32>
    %r0 = attune.add %x0, %o0 : (tensor<?x?x64xf32>, tensor<?x?x64xf32>) -> tensor<?x?x64xf32>
    %n2_0 = attune.layer_norm %r0 weight(%g2_0) bias(%b2_0) : (tensor<?x?x64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<?x?x64xf32>
    %f0 = attune.linear %n2_0, %wfc0, %bfc0 {activation = #attune.activation<gelu_tanh>} : (tensor<?x?x64xf32>, tensor<256x64xf32>, tensor<256xf32>) -> tensor<?x?x256xf32>
    %p0 = attune.linear %f0, %wpr0, %bpr0 : (tensor<?x?x256xf32>, tensor<64x256xf32>, tensor<64xf32>) -> tensor<?x?x64xf32>
    %x1 = attune.add %r0, %p0 : (tensor<?x?x64xf32>, tensor<?x?x64xf32>) -> tensor<?x?x64xf32>
    %g1_1 = attune.weight "h.1.ln_1.weight" : tensor<64xf32>
    %b1_1 = attune.weight "h.1.ln_1.bias" : tensor<64xf32>
    %wqkv1 = attune.weight "h.1.attn.c_attn.weight" : tensor<192x64xf32>
    %bqkv1 = attune.weight "h.1.attn.c_attn.bias" : tensor<192xf32>
    %wo1 = attune.weight "h.1.attn.c_proj.weight" : tensor<64x64xf32>
    %bo1 = attune.weight "h.1.attn.c_proj.bias" : tensor<64xf32>
    %g2_1 = attune.weight "h.1.ln_2.weight" : tensor<64xf32>
    %b2_1 = attune.weight "h.1.ln_2.bias" : tensor<64xf32>
    %wfc1 = attune.weight "h.1.mlp.c_fc.weight" : tensor<256x64xf32>
    %bfc1 = attune.weight "h.1.mlp.c_fc.bias" : tensor<256xf32>
    %wpr1 = attune.weight "h.1.mlp.c_proj.weight" : tensor<64x256xf32>
    %bpr1 = attune.weight "h.1.mlp.c_proj.bias" : tensor<64xf32>
    %n1_1 = attune.layer_norm %x1 weight(%g1_1) bias(%b1_1) : (tensor<?x?x64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<?x?x64xf32>
    %qkv1 = attune.linear %n1_1, %wqkv1, %bqkv1 : (tensor<?x?x64xf32>, tensor<192x64xf32>, tensor<192xf32>) -> tensor<?x?x192xf32>
    %qs1 = attune.slice %qkv1 {axis = -1 : i64, offset = 0 : i64, size = 64 : i64} : (tensor<?x?x192xf32>) -> tensor<?x?x64xf32>
    %qh1 = attune.split_heads %qs1 {num_heads = 4 : i64} : (tensor<?x?x64xf32>) -> tensor<?x4x?x16xf32>
    %ks1 = attune.slice %qkv1 {axis = -1 : i64, offset = 64 : i64, size = 64 : i64} : (tensor<?x?x192xf32>) -> tensor<?x?x64xf32>
    %kh1 = attune.split_heads %ks1 {num_heads = 4 : i64} : (tensor<?x?x64xf32>) -> tensor<?x4x?x16xf32>
    %vs1 = attune.slice %qkv1 {axis = -1 : i64, offset = 128 : i64, size = 64 : i64} : (tensor<?x?x192xf32>) -> tensor<?x?x64xf32>
    %vh1 = attune.split_heads %vs1 {num_heads = 4 : i64} : (tensor<?x?x64xf32>) -> tensor<?x4x?x16xf32>
    %kc1 = attune.cache_write %k1, %kh1, %positions : (tensor<?x4x48x16xf32>, tensor<?x4x?x16xf32>, tensor<?xi64>) -> tensor<?x4x48x16xf32>
    %vc1 = attune.cache_write %v1, %vh1, %positions : (tensor<?x4x48x16xf32>, tensor<?x4x?x16xf32>, tensor<?xi64>) -> tensor<?x4x48x16xf32>
    %a1 = attune.attention %qh1, %kc1, %vc1 query_offsets(%positions) {causal} : (tensor<?x4x?x16xf32>, tensor<?x4x48x16xf32>, tensor<?x4x48x16xf32>, tensor<?xi64>) -> tensor<?x4x?x16xf32>
    %m1 = attune.merge_heads %a1 : (tensor<?x4x?x16xf32>) -> tensor<?x?x64xf32>
    %o1 = attune.linear %m1, %wo1, %bo1 : (tensor<?x?x64xf32>, tensor<64x64xf32>, tensor<64xf32>) -> tensor<?x?x64xf32>
    %r1 = attune.add %x1, %o1 : (tensor<?x?x64xf32>, tensor<?x?x64xf32>) -> tensor<?x?x64xf32>
    %n2_1 = attune.layer_norm %r1 weight(%g2_1) bias(%b2_1) : (tensor<?x?x64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<?x?x64xf32>
    %f1 = attune.linear %n2_1, %wfc1, %bfc1 {activation = #attune.activation<gelu_tanh>} : (tensor<?x?x64xf32>, tensor<256x64xf32>, tensor<256xf32>) -> tensor<?x?x256xf32>
    %p1 = attune.linear %f1, %wpr1, %bpr1 : (tensor<?x?x256xf32>, tensor<64x256xf32>, tensor<64xf32>) -> tensor<?x?x64xf32>
    %x2 = attune.add %r1, %p1 : (tensor<?x?x64xf32>, tensor<?x?x64xf32>) -> tensor<?x?x64xf32>
    %gf = attune.weight "ln_f.weight" : tensor<64xf32>
    %bf = attune.weight "ln_f.bias" : tensor<64xf32>
    %nf = attune.layer_norm %x2 weight(%gf) bias(%bf) : (tensor<?x?x64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<?x?x64xf32>
    %last = attune.select_last %nf, %lengths : (tensor<?x?x64xf32>, tensor<?xi64>) -> tensor<?x64xf32>
    %logits = attune.linear %last, %wte : (tensor<?x64xf32>, tensor<97x64xf32>) -> tensor<?x97xf32>
    return %logits, %kc0, %vc0, %kc1, %vc1
        : tensor<?x97xf32>, tensor<?x4x48x16xf32>, tensor<?x4x48x16xf32>, tensor<?x4x48x16xf32>, tensor<?x4x48x16xf32>
  }
}
