// torch.module: ref.GPT(vocab=50257, d_model=768, heads=12, layers=12, positions=2048)
// torch.inputs: tokens=i64[1,128]{0,50257}, lengths=i64[1]{128,129}
// torch.generate: ref.greedy(module, tokens, lengths, max_new_tokens=4, eos=-1, pad=0)
// torch.logits: ref.forced_logits(module, tokens, lengths, generated)
// attune.generate: --max-new-tokens 4 --pad 0
//
// GPT-2 small's shape with twice its 1,024 learned positions, so that
// bench/generate.py times steps at contexts up to 2,048: written by
// scripts/gen_generation_mlir.py gpt --vocab 50257 --d-model 768 --heads 12 --layers 12 --positions 2048

module {
  func.func @step(%tokens: tensor<?x?xi64> {attune.name = "tokens"},
      %positions: tensor<?xi64> {attune.name = "positions"},
      %lengths: tensor<?xi64> {attune.name = "lengths"},
      %k0: tensor<?x12x2048x64xf32> {attune.state = "k0"},
      %v0: tensor<?x12x2048x64xf32> {attune.state = "v0"},
      %k1: tensor<?x12x2048x64xf32> {attune.state = "k1"},
      %v1: tensor<?x12x2048x64xf32> {attune.state = "v1"},
      %k2: tensor<?x12x2048x64xf32> {attune.state = "k2"},
      %v2: tensor<?x12x2048x64xf32> {attune.state = "v2"},
      %k3: tensor<?x12x2048x64xf32> {attune.state = "k3"},
      %v3: tensor<?x12x2048x64xf32> {attune.state = "v3"},
      %k4: tensor<?x12x2048x64xf32> {attune.state = "k4"},
      %v4: tensor<?x12x2048x64xf32> {attune.state = "v4"},
      %k5: tensor<?x12x2048x64xf32> {attune.state = "k5"},
      %v5: tensor<?x12x2048x64xf32> {attune.state = "v5"},
      %k6: tensor<?x12x2048x64xf32> {attune.state = "k6"},
      %v6: tensor<?x12x2048x64xf32> {attune.state = "v6"},
      %k7: tensor<?x12x2048x64xf32> {attune.state = "k7"},
      %v7: tensor<?x12x2048x64xf32> {attune.state = "v7"},
      %k8: tensor<?x12x2048x64xf32> {attune.state = "k8"},
      %v8: tensor<?x12x2048x64xf32> {attune.state = "v8"},
      %k9: tensor<?x12x2048x64xf32> {attune.state = "k9"},
      %v9: tensor<?x12x2048x64xf32> {attune.state = "v9"},
      %k10: tensor<?x12x2048x64xf32> {attune.state = "k10"},
      %v10: tensor<?x12x2048x64xf32> {attune.state = "v10"},
      %k11: tensor<?x12x2048x64xf32> {attune.state = "k11"},
      %v11: tensor<?x12x2048x64xf32> {attune.state = "v11"})
      -> (tensor<?x50257xf32> {attune.name = "logits"},
          tensor<?x12x2048x64xf32> {attune.state = "k0"},
          tensor<?x12x2048x64xf32> {attune.state = "v0"},
          tensor<?x12x2048x64xf32> {attune.state = "k1"},
          tensor<?x12x2048x64xf32> {attune.state = "v1"},
          tensor<?x12x2048x64xf32> {attune.state = "k2"},
          tensor<?x12x2048x64xf32> {attune.state = "v2"},
          tensor<?x12x2048x64xf32> {attune.state = "k3"},
          tensor<?x12x2048x64xf32> {attune.state = "v3"},
          tensor<?x12x2048x64xf32> {attune.state = "k4"},
          tensor<?x12x2048x64xf32> {attune.state = "v4"},
          tensor<?x12x2048x64xf32> {attune.state = "k5"},
          tensor<?x12x2048x64xf32> {attune.state = "v5"},
          tensor<?x12x2048x64xf32> {attune.state = "k6"},
          tensor<?x12x2048x64xf32> {attune.state = "v6"},
          tensor<?x12x2048x64xf32> {attune.state = "k7"},
          tensor<?x12x2048x64xf32> {attune.state = "v7"},
          tensor<?x12x2048x64xf32> {attune.state = "k8"},
          tensor<?x12x2048x64xf32> {attune.state = "v8"},
          tensor<?x12x2048x64xf32> {attune.state = "k9"},
          tensor<?x12x2048x64xf32> {attune.state = "v9"},
          tensor<?x12x2048x64xf32> {attune.state = "k10"},
          tensor<?x12x2048x64xf32> {attune.state = "v10"},
          tensor<?x12x2048x64xf32> {attune.state = "k11"},
          tensor<?x12x2048x64xf32> {attune.state = "v11"})
      attributes {attune.generation_step} {
    %wte = attune.weight "wte.weight" : tensor<50257x768xf32>
    %wpe = attune.weight "wpe.weight" : tensor<2048x768xf32>
    %tok = attune.embedding %tokens, %wte : (tensor<?x?xi64>, tensor<50257x768xf32>) -> tensor<?x?x768xf32>
    %x0 = attune.positional_encoding <learned> %tok, %wpe offsets(%positions) : (tensor<?x?x768xf32>, tensor<2048x768xf32>, tensor<?xi64>) -> tensor<?x?x768xf32>
    %g1_0 = attune.weight "h.0.ln_1.weight" : tensor<768xf32>
    %b1_0 = attune.weight "h.0.ln_1.bias" : tensor<768xf32>
    %wqkv0 = attune.weight "h.0.attn.c_attn.weight" : tensor<2304x768xf32>
    %bqkv0 = attune.weight "h.0.attn.c_attn.bias" : tensor<2304xf32>
    %wo0 = attune.weight "h.0.attn.c_proj.weight" : tensor<768x768xf32>
    %bo0 = attune.weight "h.0.attn.c_proj.bias" : tensor<768xf32>
    %g2_0 = attune.weight "h.0.ln_2.weight" : tensor<768xf32>
    %b2_0 = attune.weight "h.0.ln_2.bias" : tensor<768xf32>
    %wfc0 = attune.weight "h.0.mlp.c_fc.weight" : tensor<3072x768xf32>
    %bfc0 = attune.weight "h.0.mlp.c_fc.bias" : tensor<3072xf32>
    %wpr0 = attune.weight "h.0.mlp.c_proj.weight" : tensor<768x3072xf32>
    %bpr0 = attune.weight "h.0.mlp.c_proj.bias" : tensor<768xf32>
    %n1_0 = attune.layer_norm %x0 weight(%g1_0) bias(%b1_0) : (tensor<?x?x768xf32>, tensor<768xf32>, tensor<768xf32>) -> tensor<?x?x768xf32>
    %qkv0 = attune.linear %n1_0, %wqkv0, %bqkv0 : (tensor<?x?x768xf32>, tensor<2304x768xf32>, tensor<2304xf32>) -> tensor<?x?x2304xf32>
    %qs0 = attune.slice %qkv0 {axis = -1 : i64, offset = 0 : i64, size = 768 : i64} : (tensor<?x?x2304xf32>) -> tensor<?x?x768xf32>
    %qh0 = attune.split_heads %qs0 {num_heads = 12 : i64} : (tensor<?x?x768xf32>) -> tensor<?x12x?x64xf32>
    %ks0 = attune.slice %qkv0 {axis = -1 : i64, offset = 768 : i64, size = 768 : i64} : (tensor<?x?x2304xf32>) -> tensor<?x?x768xf32>
    %kh0 = attune.split_heads %ks0 {num_heads = 12 : i64} : (tensor<?x?x768xf32>) -> tensor<?x12x?x64xf32>
    %vs0 = attune.slice %qkv0 {axis = -1 : i64, offset = 1536 : i64, size = 768 : i64} : (tensor<?x?x2304xf32>) -> tensor<?x?x768xf32>
    %vh0 = attune.split_heads %vs0 {num_heads = 12 : i64} : (tensor<?x?x768xf32>) -> tensor<?x12x?x64xf32>
    %kc0 = attune.cache_write %k0, %kh0, %positions : (tensor<?x12x2048x64xf32>, tensor<?x12x?x64xf32>, tensor<?xi64>) -> tensor<?x12x2048x64xf32>
    %vc0 = attune.cache_write %v0, %vh0, %positions : (tensor<?x12x2048x64xf32>, tensor<?x12x?x64xf32>, tensor<?xi64>) -> tensor<?x12x2048x64xf32>
    %a0 = attune.attention %qh0, %kc0, %vc0 query_offsets(%positions) {causal} : (tensor<?x12x?x64xf32>, tensor<?x12x2048x64xf32>, tensor<?x12x2048x64xf32>, tensor<?xi64>) -> tensor<?x12x?x64xf32>
    %m0 = attune.merge_heads %a0 : (tensor<?x12x?x64xf32>) -> tensor<?x?x768xf32>
    %o0 = attune.linear %m0, %wo0, %bo0 : (tensor<?x?x768xf32>, tensor<768x768xf32>, tensor<768xf32>) -> tensor<?x?x768xf32>
    %r0 = attune.add %x0, %o0 : (tensor<?x?x768xf32>, tensor<?x?x768xf32>) -> tensor<?x?x768xf32>
    %n2_0 = attune.layer_norm %r0 weight(%g2_0) bias(%b2_0) : (tensor<?x?x768xf32>, tensor<768xf32>, tensor<768xf32>) -> tensor<?x?x768xf32>
    %f0 = attune.linear %n2_0, %wfc0, %bfc0 {activation = #attune.activation<gelu_tanh>} : (tensor<?x?x768xf32>, tensor<3072x768xf32>, tensor<3072xf32>) -> tensor<?x?x3072xf32>
    %p0 = attune.linear %f0, %wpr0, %bpr0 : (tensor<?x?x3072xf32>, tensor<768x3072xf32>, tensor<768xf32>) -> tensor<?x?x768xf32>
    %x1 = attune.add %r0, %p0 : (tensor<?x?x768xf32>, tensor<?x?x768xf32>) -> tensor<?x?x768xf32>
    %g1_1 = attune.weight "h.1.ln_1.weight" : tensor<768xf32>
    %b1_1 = attune.weight "h.1.ln_1.bias" : tensor<768xf32>
    %wqkv1 = attune.weight "h.1.attn.c_attn.weight" : tensor<2304x768xf32>
    %bqkv1 = attune.weight "h.1.attn.c_attn.bias" : tensor<2304xf32>
    %wo1 = attune.weight "h.1.attn.c_proj.weight" : tensor<768x768xf32>
    %bo1 = attune.weight "h.1.attn.c_proj.bias" : tensor<768xf32>
    %g2_1 = attune.weight "h.1.ln_2.weight" : tensor<768xf32>
    %b2_1 = attune.weight "h.1.ln_2.bias" : tensor<768xf32>
    %wfc1 = attune.weight "h.1.mlp.c_fc.weight" : tensor<3072x768xf32>
    %bfc1 = attune.weight "h.1.mlp.c_fc.bias" : tensor<3072xf32>
    %wpr1 = attune.weight "h.1.mlp.c_proj.weight" : tensor<768x3072xf32>
    %bpr1 = attune.weight "h.1.mlp.c_proj.bias" : tensor<768xf32>
    %n1_1 = attune.layer_norm %x1 weight(%g1_1) bias(%b1_1) : (tensor<?x?x768xf32>, tensor<768xf32>, tensor<768xf32>) -> tensor<?x?x768xf32>
    %qkv1 = attune.linear %n1_1, %wqkv1, %bqkv1 : (tensor<?x?x768xf32>, tensor<2304x768xf32>, tensor<2304xf32>) -> tensor<?x?x2304xf32>
    %qs1 = attune.slice %qkv1 {axis = -1 : i64, offset = 0 : i64, size = 768 : i64} : (tensor<?x?x2304xf32>) -> tensor<?x?x768xf32>
    %qh1 = attune.split_heads %qs1 {num_heads = 12 : i64} : (tensor<?x?x768xf32>) -> tensor<?x12x?x64xf32>
    %ks1 = attune.slice %qkv1 {axis = -1 : i64, offset = 768 : i64, size = 768 : i64} : (tensor<?x?x2304xf32>) -> tensor<?x?x768xf32>
    %kh1 = attune.split_heads %ks1 {num_heads = 12 : i64} : (tensor<?x?x768xf32>) -> tensor<?x12x?x64xf32>
    %vs1 = attune.slice %qkv1 {axis = -1 : i64, offset = 1536 : i64, size = 768 : i64} : (tensor<?x?x2304xf32>) -> tensor<?x?x768xf32>
    %vh1 = attune.split_heads %vs1 {num_heads = 12 : i64} : (tensor<?x?x768xf32>) -> tensor<?x12x?x64xf32>
    %kc1 = attune.cache_write %k1, %kh1, %positions : (tensor<?x12x2048x64xf32>, tensor<?x12x?x64xf32>, tensor<?xi64>) -> tensor<?x12x2048x64xf32>
    %vc1 = attune.cache_write %v1, %vh1, %positions : (tensor<?x12x2048x64xf32>, tensor<?x12x?x64xf32>, tensor<?xi64>) -> tensor<?x12x2048x64xf32>
    %a1 = attune.attention %qh1, %kc1, %vc1 query_offsets(%positions) {causal} : (tensor<?x12x?x64xf32>, tensor<?x12x2048x64xf32>, tensor<?x12x2048x64xf32>, tensor<?xi64>) -> tensor<?x12x?x64xf32>
    %m1 = attune.merge_heads %a1 : (tensor<?x12x?x64xf32>) -> tensor<?x?x768xf32>
    %o1 = attune.linear %m1, %wo1, %bo1 : (tensor<?x?x768xf32>, tensor<768x768xf32>, tensor<768xf32>) -> tensor<?x?x768xf32>
    %r1 = attune.add %x1, %o1 : (tensor<?x?x768xf32>, tensor<?x?x768xf32>) -> tensor<?x?x768xf32>
    %n2_1 = attune.layer_norm %r1 weight(%g2_1) bias(%b2_1) : (tensor<?x?x768xf32>, tensor<768xf32>, tensor<768xf32>) -> tensor<?x?x768xf32>
    %f1 = attune.linear %n2_1, %wfc1, %bfc1 {activation = #attune.activation<gelu_tanh>} : (tensor<?x?x768xf32>, tensor<3072x768xf32>, tensor<3072xf32>) -> tensor<?x?x3072xf32>
    %p1 = attune.linear %f1, %wpr1, %bpr1 : (tensor<?x?x3072xf32>, tensor<768x3072xf32>, tensor<768xf32>) -> tensor<?x?x768xf32>
    %x2 = attune.add %r1, %p1 : (tensor<?x?x768xf32>, tensor<?x?x768xf32>) -> tensor<?x?x768xf32>
    %g1_2 = attune.weight "h.2.ln_1.weight" : tensor<768xf32>
    %b1_2 = attune.weight "h.2.ln_1.bias" : tensor<768xf32>
    %wqkv2 = attune.weight "h.2.attn.c_attn.weight" : tensor<2304x768xf32>
    %bqkv2 = attune.weight "h.2.attn.c_attn.bias" : tensor<2304xf32>
    %wo2 = attune.weight "h.2.attn.c_proj.weight" : tensor<768x768xf32>
    %bo2 = attune.weight "h.2.attn.c_proj.bias" : tensor<768xf32>
    %g2_2 = attune.weight "h.2.ln_2.weight" : tensor<768xf32>
    %b2_2 = attune.weight "h.2.ln_2.bias" : tensor<768xf32>
    %wfc2 = attune.weight "h.2.mlp.c_fc.weight" : tensor<3072x768xf32>
    %bfc2 = attune.weight "h.2.mlp.c_fc.bias" : tensor<3072xf32>
    %wpr2 = attune.weight "h.2.mlp.c_proj.weight" : tensor<768x3072xf32>
    %bpr2 = attune.weight "h.2.mlp.c_proj.bias" : tensor<768xf32>
    %n1_2 = attune.layer_norm %x2 weight(%g1_2) bias(%b1_2) : (tensor<?x?x768xf32>, tensor<768xf32>, tensor<768xf32>) -> tensor<?x?x768xf32>
    %qkv2 = attune.linear %n1_2, %wqkv2, %bqkv2 : (tensor<?x?x768xf32>, tensor<2304x768xf32>, tensor<2304xf32>) -> tensor<?x?x2304xf32>
    %qs2 = attune.slice %qkv2 {axis = -1 : i64, offset = 0 : i64, size = 768 : i64} : (tensor<?x?x2304xf32>) -> tensor<?x?x768xf32>
    %qh2 = attune.split_heads %qs2 {num_heads = 12 : i64} : (tensor<?x?x768xf32>) -> tensor<?x12x?x64xf32>
    %ks2 = attune.slice %qkv2 {axis = -1 : i64, offset = 768 : i64, size = 768 : i64} : (tensor<?x?x2304xf32>) -> tensor<?x?x768xf32>
    %kh2 = attune.split_heads %ks2 {num_heads = 12 : i64} : (tensor<?x?x768xf32>) -> tensor<?x12x?x64xf32>
    %vs2 = attune.slice %qkv2 {axis = -1 : i64, offset = 1536 : i64, size = 768 : i64} : (tensor<?x?x2304xf32>) -> tensor<?x?x768xf32>
    %vh2 = attune.split_heads %vs2 {num_heads = 12 : i64} : (tensor<?x?x768xf32>) -> tensor<?x12x?x64xf32>
    %kc2 = attune.cache_write %k2, %kh2, %positions : (tensor<?x12x2048x64xf32>, tensor<?x12x?x64xf32>, tensor<?xi64>) -> tensor<?x12x2048x64xf32>
    %vc2 = attune.cache_write %v2, %vh2, %positions : (tensor<?x12x2048x64xf32>, tensor<?x12x?x64xf32>, tensor<?xi64>) -> tensor<?x12x2048x64xf32>
    %a2 = attune.attention %qh2, %kc2, %vc2 query_offsets(%positions) {causal} : (tensor<?x12x?x64xf32>, tensor<?x12x2048x64xf32>, tensor<?x12x2048x64xf32>, tensor<?xi64>) -> tensor<?x12x?x64xf32>
    %m2 = attune.merge_heads %a2 : (tensor<?x12x?x64xf32>) -> tensor<?x?x768xf32>
    %o2 = attune.linear %m2, %wo2, %bo2 : (tensor<?x?x768xf32>, tensor<768x768xf32>, tensor<768xf32>) -> tensor<?x?x768xf32>
    %r2 = attune.add %x2, %o2 : (tensor<?x?x768xf32>, tensor<?x?x768xf32>) -> tensor<?x?x768xf32>
    %n2_2 = attune.layer_norm %r2 weight(%g2_2) bias(%b2_2) : (tensor<?x?x768xf32>, tensor<768xf32>, tensor<768xf32>) -> tensor<?x?x768xf32>
    %f2 = attune.linear %n2_2, %wfc2, %bfc2 {activation = #attune.activation<gelu_tanh>} : (tensor<?x?x768xf32>, tensor<3072x768xf32>, tensor<3072xf32>) -> tensor<?x?x3072xf32>
    %p2 = attune.linear %f2, %wpr2, %bpr2 : (tensor<?x?x3072xf32>, tensor<768x3072xf32>, tensor<768xf32>) -> tensor<?x?x768xf32>
    %x3 = attune.add %r2, %p2 : (tensor<?x?x768xf32>, tensor<?x?x768xf32>) -> tensor<?x?x768xf32>
    %g1_3 = attune.weight "h.3.ln_1.weight" : tensor<768xf32>
    %b1_3 = attune.weight "h.3.ln_1.bias" : tensor<768xf32>
    %wqkv3 = attune.weight "h.3.attn.c_attn.weight" : tensor<2304x768xf32>
    %bqkv3 = attune.weight "h.3.attn.c_attn.bias" : tensor<2304xf32>
    %wo3 = attune.weight "h.3.attn.c_proj.weight" : tensor<768x768xf32>
    %bo3 = attune.weight "h.3.attn.c_proj.bias" : tensor<768xf32>
    %g2_3 = attune.weight "h.3.ln_2.weight" : tensor<768xf32>
    %b2_3 = attune.weight "h.3.ln_2.bias" : tensor<768xf32>
    %wfc3 = attune.weight "h.3.mlp.c_fc.weight" : tensor<3072x768xf32>
    %bfc3 = attune.weight "h.3.mlp.c_fc.bias" : tensor<3072xf32>
    %wpr3 = attune.weight "h.3.mlp.c_proj.weight" : tensor<768x3072xf32>
    %bpr3 = attune.weight "h.3.mlp.c_proj.bias" : tensor<768xf32>
    %n1_3 = attune.layer_norm %x3 weight(%g1_3) bias(%b1_3) : (tensor<?x?x768xf32>, tensor<768xf32>, tensor<768xf32>) -> tensor<?x?x768xf32>
    %qkv3 = attune.linear %n1_3, %wqkv3, %bqkv3 : (tensor<?x?x768xf32>, tensor<2304x768xf32>, tensor<2304xf32>) -> tensor<?x?x2304xf32>
    %qs3 = attune.slice %qkv3 {axis = -1 : i64, offset = 0 : i64, size = 768 : i64} : (tensor<?x?x2304xf32>) -> tensor<?x?x768xf32>
    %qh3 = attune.split_heads %qs3 {num_heads = 12 : i64} : (tensor<?x?x768xf32>) -> tensor<?x12x?x64xf32>
    %ks3 = attune.slice %qkv3 {axis = -1 : i64, offset = 768 : i64, size = 768 : i64} : (tensor<?x?x2304xf32>) -> tensor<?x?x768xf32>
    %kh3 = attune.split_heads %ks3 {num_heads = 12 : i64} : (tensor<?x?x768xf32>) -> tensor<?x12x?x64xf32>
    %vs3 = attune.slice %qkv3 {axis = -1 : i64, offset = 1536 : i64, size = 768 : i64} : (tensor<?x?x2304xf32>) -> tensor<?x?x768xf32>
    %vh3 = attune.split_heads %vs3 {num_heads = 12 : i64} : (tensor<?x?x768xf32>) -> tensor<?x12x?x64xf32>
    %kc3 = attune.cache_write %k3, %kh3, %positions : (tensor<?x12x2048x64xf32>, tensor<?x12x?x64xf32>, tensor<?xi64>) -> tensor<?x12x2048x64xf32>
    %vc3 = attune.cache_write %v3, %vh3, %positions : (tensor<?x12x2048x64xf32>, tensor<?x12x?x64xf32>, tensor<?xi64>) -> tensor<?x12x2048x64xf32>
    %a3 = attune.attention %qh3, %kc3, %vc3 query_offsets(%positions) {causal} : (tensor<?x12x?x64xf32>, tensor<?x12x2048x64xf32>, tensor<?x12x2048x64xf32>, tensor<?xi64>) -> tensor<?x12x?x64xf32>
    %m3 = attune.merge_heads %a3 : (tensor<?x12x?x64xf32>) -> tensor<?x?x768xf32>
    %o3 = attune.linear %m3, %wo3, %bo3 : (tensor<?x?x768xf32>, tensor<768x768xf32>, tensor<768xf32>) -> tensor<?x?x768xf32>
    %r3 = attune.add %x3, %o3 : (tensor<?x?x768xf32>, tensor<?x?x768xf32>) -> tensor<?x?x768xf32>
    %n2_3 = attune.layer_norm %r3 weight(%g2_3) bias(%b2_3) : (tensor<?x?x768xf32>, tensor<768xf32>, tensor<768xf32>) -> tensor<?x?x768xf32>
    %f3 = attune.linear %n2_3, %wfc3, %bfc3 {activation = #attune.activation<gelu_tanh>} : (tensor<?x?x768xf32>, tensor<3072x768xf32>, tensor<3072xf32>) -> tensor<?x?x3072xf32>
    %p3 = attune.linear %f3, %wpr3, %bpr3 : (tensor<?x?x3072xf32>, tensor<768x3072xf32>, tensor<768xf32>) -> tensor<?x?x768xf32>
    %x4 = attune.add %r3, %p3 : (tensor<?x?x768xf32>, tensor<?x?x768xf32>) -> tensor<?x?x768xf32>
    %g1_4 = attune.weight "h.4.ln_1.weight" : tensor<768xf32>
    %b1_4 = attune.weight "h.4.ln_1.bias" : tensor<768xf32>
    %wqkv4 = attune.weight "h.4.attn.c_attn.weight" : tensor<2304x768xf32>
    %bqkv4 = attune.weight "h.4.attn.c_attn.bias" : tensor<2304xf32>
    %wo4 = attune.weight "h.4.attn.c_proj.weight" : tensor<768x768xf32>
    %bo4 = attune.weight "h.4.attn.c_proj.bias" : tensor<768xf32>
    %g2_4 = attune.weight "h.4.ln_2.weight" : tensor<768xf32>
    %b2_4 = attune.weight "h.4.ln_2.bias" : tensor<768xf32>
    %wfc4 = attune.weight "h.4.mlp.c_fc.weight" : tensor<3072x768xf32>
    %bfc4 = attune.weight "h.4.mlp.c_fc.bias" : tensor<3072xf32>
    %wpr4 = attune.weight "h.4.mlp.c_proj.weight" : tensor<768x3072xf32>
    %bpr4 = attune.weight "h.4.mlp.c_proj.bias" : tensor<768xf32>
    %n1_4 = attune.layer_norm %x4 weight(%g1_4) bias(%b1_4) : (tensor<?x?x768xf32>, tensor<768xf32>, tensor<768xf32>) -> tensor<?x?x768xf32>
    %qkv4 = attune.linear %n1_4, %wqkv4, %bqkv4 : (tensor<?x?x768xf32>, tensor<2304x768xf32>, tensor<2304xf32>) -> tensor<?x?x2304xf32>
    %qs4 = attune.slice %qkv4 {axis = -1 : i64, offset = 0 : i64, size = 768 : i64} : (tensor<?x?x2304xf32>) -> tensor<?x?x768xf32>
    %qh4 = attune.split_heads %qs4 {num_heads = 12 : i64} : (tensor<?x?x768xf32>) -> tensor<?x12x?x64xf32>
    %ks4 = attune.slice %qkv4 {axis = -1 : i64, offset = 768 : i64, size = 768 : i64} : (tensor<?x?x2304xf32>) -> tensor<?x?x768xf32>
    %kh4 = attune.split_heads %ks4 {num_heads = 12 : i64} : (tensor<?x?x768xf32>) -> tensor<?x12x?x64xf32>
    %vs4 = attune.slice %qkv4 {axis = -1 : i64, offset = 1536 : i64, size = 768 : i64} : (tensor<?x?x2304xf32>) -> tensor<?x?x768xf32>
    %vh4 = attune.split_heads %vs4 {num_heads = 12 : i64} : (tensor<?x?x768xf32>) -> tensor<?x12x?x64xf32>
    %kc4 = attune.cache_write %k4, %kh4, %positions : (tensor<?x12x2048x64xf32>, tensor<?x12x?x64xf32>, tensor<?xi64>) -> tensor<?x12x2048x64xf32>
    %vc4 = attune.cache_write %v4, %vh4, %positions : (tensor<?x12x2048x64xf32>, tensor<?x12x?x64xf32>, tensor<?xi64>) -> tensor<?x12x2048x64xf32>
    %a4 = attune.attention %qh4, %kc4, %vc4 query_offsets(%positions) {causal} : (tensor<?x12x?x64xf32>, tensor<?x12x2048x64xf32>, tensor<?x12x2048x64xf32>, tensor<?xi64>) -> tensor<?x12x?x64xf32>
    %m4 = attune.merge_heads %a4 : (tensor<?x12x?x64xf32>) -> tensor<?x?x768xf32>
    %o4 = attune.linear %m4, %wo4, %bo4 : (tensor<?x?x768xf32>, tensor<768x768xf32>, tensor<768xf32>) -> tensor<?x?x768xf32>
    %r4 = attune.add %x4, %o4 : (tensor<?x?x768xf32>, tensor<?x?x768xf32>) -> tensor<?x?x768xf32>
    %n2_4 = attune.layer_norm %r4 weight(%g2_4) bias(%b2_4) : (tensor<?x?x768xf32>, tensor<768xf32>, tensor<768xf32>) -> tensor<?x?x768xf32>
    %f4 = attune.linear %n2_4, %wfc4, %bfc4 {activation = #attune.activation<gelu_tanh>} : (tensor<?x?x768xf32>, tensor<3072x768xf32>, tensor<3072xf32>) -> tensor<?x?x3072xf32>
    %p4 = attune.linear %f4, %wpr4, %bpr4 : (tensor<?x?x3072xf32>, tensor<768x3072xf32>, tensor<768xf32>) -> tensor<?x?x768xf32>
    %x5 = attune.add %r4, %p4 : (tensor<?x?x768xf32>, tensor<?x?x768xf32>) -> tensor<?x?x768xf32>
    %g1_5 = attune.weight "h.5.ln_1.weight" : tensor<768xf32>
    %b1_5 = attune.weight "h.5.ln_1.bias" : tensor<768xf32>
    %wqkv5 = attune.weight "h.5.attn.c_attn.weight" : tensor<2304x768xf32>
    %bqkv5 = attune.weight "h.5.attn.c_attn.bias" : tensor<2304xf32>
    %wo5 = attune.weight "h.5.attn.c_proj.weight" : tensor<768x768xf32>
    %bo5 = attune.weight "h.5.attn.c_proj.bias" : tensor<768xf32>
    %g2_5 = attune.weight "h.5.ln_2.weight" : tensor<768xf32>
    %b2_5 = attune.weight "h.5.ln_2.bias" : tensor<768xf32>
    %wfc5 = attune.weight "h.5.mlp.c_fc.weight" : tensor<3072x768xf32>
    %bfc5 = attune.weight "h.5.mlp.c_fc.bias" : tensor<3072xf32>
    %wpr5 = attune.weight "h.5.mlp.c_proj.weight" : tensor<768x3072xf32>
    %bpr5 = attune.weight "h.5.mlp.c_proj.bias" : tensor<768xf32>
    %n1_5 = attune.layer_norm %x5 weight(%g1_5) bias(%b1_5) : (tensor<?x?x768xf32>, tensor<768xf32>, tensor<768xf32>) -> tensor<?x?x768xf32>
    %qkv5 = attune.linear %n1_5, %wqkv5, %bqkv5 : (tensor<?x?x768xf32>, tensor<2304x768xf32>, tensor<2304xf32>) -> tensor<?x?x2304xf32>
    %qs5 = attune.slice %qkv5 {axis = -1 : i64, offset = 0 : i64, size = 768 : i64} : (tensor<?x?x2304xf32>) -> tensor<?x?x768xf32>
    %qh5 = attune.split_heads %qs5 {num_heads = 12 : i64} : (tensor<?x?x768xf32>) -> tensor<?x12x?x64xf32>
    %ks5 = attune.slice %qkv5 {axis = -1 : i64, offset = 768 : i64, size = 768 : i64} : (tensor<?x?x2304xf32>) -> tensor<?x?x768xf32>
    %kh5 = attune.split_heads %ks5 {num_heads = 12 : i64} : (tensor<?x?x768xf32>) -> tensor<?x12x?x64xf32>
    %vs5 = attune.slice %qkv5 {axis = -1 : i64, offset = 1536 : i64, size = 768 : i64} : (tensor<?x?x2304xf32>) -> tensor<?x?x768xf32>
    %vh5 = attune.split_heads %vs5 {num_heads = 12 : i64} : (tensor<?x?x768xf32>) -> tensor<?x12x?x64xf32>
    %kc5 = attune.cache_write %k5, %kh5, %positions : (tensor<?x12x2048x64xf32>, tensor<?x12x?x64xf32>, tensor<?xi64>) -> tensor<?x12x2048x64xf32>
    %vc5 = attune.cache_write %v5, %vh5, %positions : (tensor<?x12x2048x64xf32>, tensor<?x12x?x64xf32>, tensor<?xi64>) -> tensor<?x12x2048x64xf32>
    %a5 = attune.attention %qh5, %kc5, %vc5 query_offsets(%positions) {causal} : (tensor<?x12x?x64xf32>, tensor<?x12x2048x64xf32>, tensor<?x12x2048x64xf32>, tensor<?xi64>) -> tensor<?x12x?x64xf32>
    %m5 = attune.merge_heads %a5 : (tensor<?x12x?x64xf32>) -> tensor<?x?x768xf32>
    %o5 = attune.linear %m5, %wo5, %bo5 : (tensor<?x?x768xf32>, tensor<768x768xf32>, tensor<768xf32>) -> tensor<?x?x768xf32>
    %r5 = attune.add %x5, %o5 : (tensor<?x?x768xf32>, tensor<?x?x768xf32>) -> tensor<?x?x768xf32>
    %n2_5 = attune.layer_norm %r5 weight(%g2_5) bias(%b2_5) : (tensor<?x?x768xf32>, tensor<768xf32>, tensor<768xf32>) -> tensor<?x?x768xf32>
    %f5 = attune.linear %n2_5, %wfc5, %bfc5 {activation = #attune.activation<gelu_tanh>} : (tensor<?x?x768xf32>, tensor<3072x768xf32>, tensor<3072xf32>) -> tensor<?x?x3072xf32>
    %p5 = attune.linear %f5, %wpr5, %bpr5 : (tensor<?x?x3072xf32>, tensor<768x3072xf32>, tensor<768xf32>) -> tensor<?x?x768xf32>
    %x6 = attune.add %r5, %p5 : (tensor<?x?x768xf32>, tensor<?x?x768xf32>) -> tensor<?x?x768xf32>
    %g1_6 = attune.weight "h.6.ln_1.weight" : tensor<768xf32>
    %b1_6 = attune.weight "h.6.ln_1.bias" : tensor<768xf32>
    %wqkv6 = attune.weight "h.6.attn.c_attn.weight" : tensor<2304x768xf32>
    %bqkv6 = attune.weight "h.6.attn.c_attn.bias" : tensor<2304xf32>
    %wo6 = attune.weight "h.6.attn.c_proj.weight" : tensor<768x768xf32>
    %bo6 = attune.weight "h.6.attn.c_proj.bias" : tensor<768xf32>
    %g2_6 = attune.weight "h.6.ln_2.weight" : tensor<768xf32>
    %b2_6 = attune.weight "h.6.ln_2.bias" : tensor<768xf32>
    %wfc6 = attune.weight "h.6.mlp.c_fc.weight" : tensor<3072x768xf32>
    %bfc6 = attune.weight "h.6.mlp.c_fc.bias" : tensor<3072xf32>
    %wpr6 = attune.weight "h.6.mlp.c_proj.weight" : tensor<768x3072xf32>
    %bpr6 = attune.weight "h.6.mlp.c_proj.bias" : tensor<768xf32>
    %n1_6 = attune.layer_norm %x6 weight(%g1_6) bias(%b1_6) : (tensor<?x?x768xf32>, tensor<768xf32>, tensor<768xf32>) -> tensor<?x?x768xf32>
    %qkv6 = attune.linear %n1_6, %wqkv6, %bqkv6 : (tensor<?x?x768xf32>, tensor<2304x768xf32>, tensor<2304xf32>) -> tensor<?x?x2304xf32>
    %qs6 = attune.slice %qkv6 {axis = -1 : i64, offset = 0 : i64, size = 768 : i64} : (tensor<?x?x2304xf32>) -> tensor<?x?x768xf32>
    %qh6 = attune.split_heads %qs6 {num_heads = 12 : i64} : (tensor<?x?x768xf32>) -> tensor<?x12x?x64xf32>
    %ks6 = attune.slice %qkv6 {axis = -1 : i64, offset = 768 : i64, size = 768 : i64} : (tensor<?x?x2304xf32>) -> tensor<?x?x768xf32>
    %kh6 = attune.split_heads %ks6 {num_heads = 12 : i64} : (tensor<?x?x768xf32>) -> tensor<?x12x?x64xf32>
    %vs6 = attune.slice %qkv6 {axis = -1 : i64, offset = 1536 : i64, size = 768 : i64} : (tensor<?x?x2304xf32>) -> tensor<?x?x768xf32>
    %vh6 = attune.split_heads %vs6 {num_heads = 12 : i64} : (tensor<?x?x768xf32>) -> tensor<?x12x?x64xf32>
    %kc6 = attune.cache_write %k6, %kh6, %positions : (tensor<?x12x2048x64xf32>, tensor<?x12x?x64xf32>, tensor<?xi64>) -> tensor<?x12x2048x64xf32>
    %vc6 = attune.cache_write %v6, %vh6, %positions : (tensor<?x12x2048x64xf32>, tensor<?x12x?x64xf32>, tensor<?xi64>) -> tensor<?x12x2048x64xf32>
    %a6 = attune.attention %qh6, %kc6, %vc6 query_offsets(%positions) {causal} : (tensor<?x12x?x64xf32>, tensor<?x12x2048x64xf32>, tensor<?x12x2048x64xf32>, tensor<?xi64>) -> tensor<?x12x?x64xf32>
    %m6 = attune.merge_heads %a6 : (tensor<?x12x?x64xf32>) -> tensor<?x?x768xf32>
    %o6 = attune.linear %m6, %wo6, %bo6 : (tensor<?x?x768xf32>, tensor<768x768xf32>, tensor<768xf32>) -> tensor<?x?x768xf32>
    %r6 = attune.add %x6, %o6 : (tensor<?x?x768xf32>, tensor<?x?x768xf32>) -> tensor<?x?x768xf32>
    %n2_6 = attune.layer_norm %r6 weight(%g2_6) bias(%b2_6) : (tensor<?x?x768xf32>, tensor<768xf32>, tensor<768xf32>) -> tensor<?x?x768xf32>
    %f6 = attune.linear %n2_6, %wfc6, %bfc6 {activation = #attune.activation<gelu_tanh>} : (tensor<?x?x768xf32>, tensor<3072x768xf32>, tensor<3072xf32>) -> tensor<?x?x3072xf32>
    %p6 = attune.linear %f6, %wpr6, %bpr6 : (tensor<?x?x3072xf32>, tensor<768x3072xf32>, tensor<768xf32>) -> tensor<?x?x768xf32>
    %x7 = attune.add %r6, %p6 : (tensor<?x?x768xf32>, tensor<?x?x768xf32>) -> tensor<?x?x768xf32>
    %g1_7 = attune.weight "h.7.ln_1.weight" : tensor<768xf32>
    %b1_7 = attune.weight "h.7.ln_1.bias" : tensor<768xf32>
    %wqkv7 = attune.weight "h.7.attn.c_attn.weight" : tensor<2304x768xf32>
    %bqkv7 = attune.weight "h.7.attn.c_attn.bias" : tensor<2304xf32>
    %wo7 = attune.weight "h.7.attn.c_proj.weight" : tensor<768x768xf32>
    %bo7 = attune.weight "h.7.attn.c_proj.bias" : tensor<768xf32>
    %g2_7 = attune.weight "h.7.ln_2.weight" : tensor<768xf32>
    %b2_7 = attune.weight "h.7.ln_2.bias" : tensor<768xf32>
    %wfc7 = attune.weight "h.7.mlp.c_fc.weight" : tensor<3072x768xf32>
    %bfc7 = attune.weight "h.7.mlp.c_fc.bias" : tensor<3072xf32>
    %wpr7 = attune.weight "h.7.mlp.c_proj.weight" : tensor<768x3072xf32>
    %bpr7 = attune.weight "h.7.mlp.c_proj.bias" : tensor<768xf32>
    %n1_7 = attune.layer_norm %x7 weight(%g1_7) bias(%b1_7) : (tensor<?x?x768xf32>, tensor<768xf32>, tensor<768xf32>) -> tensor<?x?x768xf32>
    %qkv7 = attune.linear %n1_7, %wqkv7, %bqkv7 : (tensor<?x?x768xf32>, tensor<2304x768xf32>, tensor<2304xf32>) -> tensor<?x?x2304xf32>
    %qs7 = attune.slice %qkv7 {axis = -1 : i64, offset = 0 : i64, size = 768 : i64} : (tensor<?x?x2304xf32>) -> tensor<?x?x768xf32>
    %qh7 = attune.split_heads %qs7 {num_heads = 12 : i64} : (tensor<?x?x768xf32>) -> tensor<?x12x?x64xf32>
    %ks7 = attune.slice %qkv7 {axis = -1 : i64, offset = 768 : i64, size = 768 : i64} : (tensor<?x?x2304xf32>) -> tensor<?x?x768xf32>
    %kh7 = attune.split_heads %ks7 {num_heads = 12 : i64} : (tensor<?x?x768xf32>) -> tensor<?x12x?x64xf32>
    %vs7 = attune.slice %qkv7 {axis = -1 : i64, offset = 1536 : i64, size = 768 : i64} : (tensor<?x?x2304xf32>) -> tensor<?x?x768xf32>
    %vh7 = attune.split_heads %vs7 {num_heads = 12 : i64} : (tensor<?x?x768xf32>) -> tensor<?x12x?x64xf32>
    %kc7 = attune.cache_write %k7, %kh7, %positions : (tensor<?x12x2048x64xf32>, tensor<?x12x?x64xf32>, tensor<?xi64>) -> tensor<?x12x2048x64xf32>
    %vc7 = attune.cache_write %v7, %vh7, %positions : (tensor<?x12x2048x64xf32>, tensor<?x12x?x64xf32>, tensor<?xi64>) -> tensor<?x12x2048x64xf32>
    %a7 = attune.attention %qh7, %kc7, %vc7 query_offsets(%positions) {causal} : (tensor<?x12x?x64xf32>, tensor<?x12x2048x64xf32>, tensor<?x12x2048x64xf32>, tensor<?xi64>) -> tensor<?x12x?x64xf32>
    %m7 = attune.merge_heads %a7 : (tensor<?x12x?x64xf32>) -> tensor<?x?x768xf32>
    %o7 = attune.linear %m7, %wo7, %bo7 : (tensor<?x?x768xf32>, tensor<768x768xf32>, tensor<768xf32>) -> tensor<?x?x768xf32>
    %r7 = attune.add %x7, %o7 : (tensor<?x?x768xf32>, tensor<?x?x768xf32>) -> tensor<?x?x768xf32>
    %n2_7 = attune.layer_norm %r7 weight(%g2_7) bias(%b2_7) : (tensor<?x?x768xf32>, tensor<768xf32>, tensor<768xf32>) -> tensor<?x?x768xf32>
    %f7 = attune.linear %n2_7, %wfc7, %bfc7 {activation = #attune.activation<gelu_tanh>} : (tensor<?x?x768xf32>, tensor<3072x768xf32>, tensor<3072xf32>) -> tensor<?x?x3072xf32>
    %p7 = attune.linear %f7, %wpr7, %bpr7 : (tensor<?x?x3072xf32>, tensor<768x3072xf32>, tensor<768xf32>) -> tensor<?x?x768xf32>
    %x8 = attune.add %r7, %p7 : (tensor<?x?x768xf32>, tensor<?x?x768xf32>) -> tensor<?x?x768xf32>
    %g1_8 = attune.weight "h.8.ln_1.weight" : tensor<768xf32>
    %b1_8 = attune.weight "h.8.ln_1.bias" : tensor<768xf32>
    %wqkv8 = attune.weight "h.8.attn.c_attn.weight" : tensor<2304x768xf32>
    %bqkv8 = attune.weight "h.8.attn.c_attn.bias" : tensor<2304xf32>
    %wo8 = attune.weight "h.8.attn.c_proj.weight" : tensor<768x768xf32>
    %bo8 = attune.weight "h.8.attn.c_proj.bias" : tensor<768xf32>
    %g2_8 = attune.weight "h.8.ln_2.weight" : tensor<768xf32>
    %b2_8 = attune.weight "h.8.ln_2.bias" : tensor<768xf32>
    %wfc8 = attune.weight "h.8.mlp.c_fc.weight" : tensor<3072x768xf32>
    %bfc8 = attune.weight "h.8.mlp.c_fc.bias" : tensor<3072xf32>
    %wpr8 = attune.weight "h.8.mlp.c_proj.weight" : tensor<768x3072xf32>
    %bpr8 = attune.weight "h.8.mlp.c_proj.bias" : tensor<768xf32>
    %n1_8 = attune.layer_norm %x8 weight(%g1_8) bias(%b1_8) : (tensor<?x?x768xf32>, tensor<768xf32>, tensor<768xf32>) -> tensor<?x?x768xf32>
    %qkv8 = attune.linear %n1_8, %wqkv8, %bqkv8 : (tensor<?x?x768xf32>, tensor<2304x768xf32>, tensor<2304xf32>) -> tensor<?x?x2304xf32>
    %qs8 = attune.slice %qkv8 {axis = -1 : i64, offset = 0 : i64, size = 768 : i64} : (tensor<?x?x2304xf32>) -> tensor<?x?x768xf32>
    %qh8 = attune.split_heads %qs8 {num_heads = 12 : i64} : (tensor<?x?x768xf32>) -> tensor<?x12x?x64xf32>
    %ks8 = attune.slice %qkv8 {axis = -1 : i64, offset = 768 : i64, size = 768 : i64} : (tensor<?x?x2304xf32>) -> tensor<?x?x768xf32>
    %kh8 = attune.split_heads %ks8 {num_heads = 12 : i64} : (tensor<?x?x768xf32>) -> tensor<?x12x?x64xf32>
    %vs8 = attune.slice %qkv8 {axis = -1 : i64, offset = 1536 : i64, size = 768 : i64} : (tensor<?x?x2304xf32>) -> tensor<?x?x768xf32>
    %vh8 = attune.split_heads %vs8 {num_heads = 12 : i64} : (tensor<?x?x768xf32>) -> tensor<?x12x?x64xf32>
    %kc8 = attune.cache_write %k8, %kh8, %positions : (tensor<?x12x2048x64xf32>, tensor<?x12x?x64xf32>, tensor<?xi64>) -> tensor<?x12x2048x64xf32>
    %vc8 = attune.cache_write %v8, %vh8, %positions : (tensor<?x12x2048x64xf32>, tensor<?x12x?x64xf32>, tensor<?xi64>) -> tensor<?x12x2048x64xf32>
    %a8 = attune.attention %qh8, %kc8, %vc8 query_offsets(%positions) {causal} : (tensor<?x12x?x64xf32>, tensor<?x12x2048x64xf32>, tensor<?x12x2048x64xf32>, tensor<?xi64>) -> tensor<?x12x?x64xf32>
    %m8 = attune.merge_heads %a8 : (tensor<?x12x?x64xf32>) -> tensor<?x?x768xf32>
    %o8 = attune.linear %m8, %wo8, %bo8 : (tensor<?x?x768xf32>, tensor<768x768xf32>, tensor<768xf32>) -> tensor<?x?x768xf32>
    %r8 = attune.add %x8, %o8 : (tensor<?x?x768xf32>, tensor<?x?x768xf32>) -> tensor<?x?x768xf32>
    %n2_8 = attune.layer_norm %r8 weight(%g2_8) bias(%b2_8) : (tensor<?x?x768xf32>, tensor<768xf32>, tensor<768xf32>) -> tensor<?x?x768xf32>
    %f8 = attune.linear %n2_8, %wfc8, %bfc8 {activation = #attune.activation<gelu_tanh>} : (tensor<?x?x768xf32>, tensor<3072x768xf32>, tensor<3072xf32>) -> tensor<?x?x3072xf32>
    %p8 = attune.linear %f8, %wpr8, %bpr8 : (tensor<?x?x3072xf32>, tensor<768x3072xf32>, tensor<768xf32>) -> tensor<?x?x768xf32>
    %x9 = attune.add %r8, %p8 : (tensor<?x?x768xf32>, tensor<?x?x768xf32>) -> tensor<?x?x768xf32>
    %g1_9 = attune.weight "h.9.ln_1.weight" : tensor<768xf32>
    %b1_9 = attune.weight "h.9.ln_1.bias" : tensor<768xf32>
    %wqkv9 = attune.weight "h.9.attn.c_attn.weight" : tensor<2304x768xf32>
    %bqkv9 = attune.weight "h.9.attn.c_attn.bias" : tensor<2304xf32>
    %wo9 = attune.weight "h.9.attn.c_proj.weight" : tensor<768x768xf32>
    %bo9 = attune.weight "h.9.attn.c_proj.bias" : tensor<768xf32>
    %g2_9 = attune.weight "h.9.ln_2.weight" : tensor<768xf32>
    %b2_9 = attune.weight "h.9.ln_2.bias" : tensor<768xf32>
    %wfc9 = attune.weight "h.9.mlp.c_fc.weight" : tensor<3072x768xf32>
    %bfc9 = attune.weight "h.9.mlp.c_fc.bias" : tensor<3072xf32>
    %wpr9 = attune.weight "h.9.mlp.c_proj.weight" : tensor<768x3072xf32>
    %bpr9 = attune.weight "h.9.mlp.c_proj.bias" : tensor<768xf32>
    %n1_9 = attune.layer_norm %x9 weight(%g1_9) bias(%b1_9) : (tensor<?x?x768xf32>, tensor<768xf32>, tensor<768xf32>) -> tensor<?x?x768xf32>
    %qkv9 = attune.linear %n1_9, %wqkv9, %bqkv9 : (tensor<?x?x768xf32>, tensor<2304x768xf32>, tensor<2304xf32>) -> tensor<?x?x2304xf32>
    %qs9 = attune.slice %qkv9 {axis = -1 : i64, offset = 0 : i64, size = 768 : i64} : (tensor<?x?x2304xf32>) -> tensor<?x?x768xf32>
    %qh9 = attune.split_heads %qs9 {num_heads = 12 : i64} : (tensor<?x?x768xf32>) -> tensor<?x12x?x64xf32>
    %ks9 = attune.slice %qkv9 {axis = -1 : i64, offset = 768 : i64, size = 768 : i64} : (tensor<?x?x2304xf32>) -> tensor<?x?x768xf32>
    %kh9 = attune.split_heads %ks9 {num_heads = 12 : i64} : (tensor<?x?x768xf32>) -> tensor<?x12x?x64xf32>
    %vs9 = attune.slice %qkv9 {axis = -1 : i64, offset = 1536 : i64, size = 768 : i64} : (tensor<?x?x2304xf32>) -> tensor<?x?x768xf32>
    %vh9 = attune.split_heads %vs9 {num_heads = 12 : i64} : (tensor<?x?x768xf32>) -> tensor<?x12x?x64xf32>
    %kc9 = attune.cache_write %k9, %kh9, %positions : (tensor<?x12x2048x64xf32>, tensor<?x12x?x64xf32>, tensor<?xi64>) -> tensor<?x12x2048x64xf32>
    %vc9 = attune.cache_write %v9, %vh9, %positions : (tensor<?x12x2048x64xf32>, tensor<?x12x?x64xf32>, tensor<?xi64>) -> tensor<?x12x2048x64xf32>
    %a9 = attune.attention %qh9, %kc9, %vc9 query_offsets(%positions) {causal} : (tensor<?x12x?x64xf32>, tensor<?x12x2048x64xf32>, tensor<?x12x2048x64xf32>, tensor<?xi64>) -> tensor<?x12x?x64xf32>
    %m9 = attune.merge_heads %a9 : (tensor<?x12x?x64xf32>) -> tensor<?x?x768xf32>
    %o9 = attune.linear %m9, %wo9, %bo9 : (tensor<?x?x768xf32>, tensor<768x768xf32>, tensor<768xf32>) -> tensor<?x?x768xf32>
    %r9 = attune.add %x9, %o9 : (tensor<?x?x768xf32>, tensor<?x?x768xf32>) -> tensor<?x?x768xf32>
    %n2_9 = attune.layer_norm %r9 weight(%g2_9) bias(%b2_9) : (tensor<?x?x768xf32>, tensor<768xf32>, tensor<768xf32>) -> tensor<?x?x768xf32>
    %f9 = attune.linear %n2_9, %wfc9, %bfc9 {activation = #attune.activation<gelu_tanh>} : (tensor<?x?x768xf32>, tensor<3072x768xf32>, tensor<3072xf32>) -> tensor<?x?x3072xf32>
    %p9 = attune.linear %f9, %wpr9, %bpr9 : (tensor<?x?x3072xf32>, tensor<768x3072xf32>, tensor<768xf32>) -> tensor<?x?x768xf32>
    %x10 = attune.add %r9, %p9 : (tensor<?x?x768xf32>, tensor<?x?x768xf32>) -> tensor<?x?x768xf32>
    %g1_10 = attune.weight "h.10.ln_1.weight" : tensor<768xf32>
    %b1_10 = attune.weight "h.10.ln_1.bias" : tensor<768xf32>
    %wqkv10 = attune.weight "h.10.attn.c_attn.weight" : tensor<2304x768xf32>
    %bqkv10 = attune.weight "h.10.attn.c_attn.bias" : tensor<2304xf32>
    %wo10 = attune.weight "h.10.attn.c_proj.weight" : tensor<768x768xf32>
    %bo10 = attune.weight "h.10.attn.c_proj.bias" : tensor<768xf32>
    %g2_10 = attune.weight "h.10.ln_2.weight" : tensor<768xf32>
    %b2_10 = attune.weight "h.10.ln_2.bias" : tensor<768xf32>
    %wfc10 = attune.weight "h.10.mlp.c_fc.weight" : tensor<3072x768xf32>
    %bfc10 = attune.weight "h.10.mlp.c_fc.bias" : tensor<3072xf32>
    %wpr10 = attune.weight "h.10.mlp.c_proj.weight" : tensor<768x3072xf32>
    %bpr10 = attune.weight "h.10.mlp.c_proj.bias" : tensor<768xf32>
    %n1_10 = attune.layer_norm %x10 weight(%g1_10) bias(%b1_10) : (tensor<?x?x768xf32>, tensor<768xf32>, tensor<768xf32>) -> tensor<?x?x768xf32>
    %qkv10 = attune.linear %n1_10, %wqkv10, %bqkv10 : (tensor<?x?x768xf32>, tensor<2304x768xf32>, tensor<2304xf32>) -> tensor<?x?x2304xf32>
    %qs10 = attune.slice %qkv10 {axis = -1 : i64, offset = 0 : i64, size = 768 : i64} : (tensor<?x?x2304xf32>) -> tensor<?x?x768xf32>
    %qh10 = attune.split_heads %qs10 {num_heads = 12 : i64} : (tensor<?x?x768xf32>) -> tensor<?x12x?x64xf32>
    %ks10 = attune.slice %qkv10 {axis = -1 : i64, offset = 768 : i64, size = 768 : i64} : (tensor<?x?x2304xf32>) -> tensor<?x?x768xf32>
    %kh10 = attune.split_heads %ks10 {num_heads = 12 : i64} : (tensor<?x?x768xf32>) -> tensor<?x12x?x64xf32>
    %vs10 = attune.slice %qkv10 {axis = -1 : i64, offset = 1536 : i64, size = 768 : i64} : (tensor<?x?x2304xf32>) -> tensor<?x?x768xf32>
    %vh10 = attune.split_heads %vs10 {num_heads = 12 : i64} : (tensor<?x?x768xf32>) -> tensor<?x12x?x64xf32>
    %kc10 = attune.cache_write %k10, %kh10, %positions : (tensor<?x12x2048x64xf32>, tensor<?x12x?x64xf32>, tensor<?xi64>) -> tensor<?x12x2048x64xf32>
    %vc10 = attune.cache_write %v10, %vh10, %positions : (tensor<?x12x2048x64xf32>, tensor<?x12x?x64xf32>, tensor<?xi64>) -> tensor<?x12x2048x64xf32>
    %a10 = attune.attention %qh10, %kc10, %vc10 query_offsets(%positions) {causal} : (tensor<?x12x?x64xf32>, tensor<?x12x2048x64xf32>, tensor<?x12x2048x64xf32>, tensor<?xi64>) -> tensor<?x12x?x64xf32>
    %m10 = attune.merge_heads %a10 : (tensor<?x12x?x64xf32>) -> tensor<?x?x768xf32>
    %o10 = attune.linear %m10, %wo10, %bo10 : (tensor<?x?x768xf32>, tensor<768x768xf32>, tensor<768xf32>) -> tensor<?x?x768xf32>
    %r10 = attune.add %x10, %o10 : (tensor<?x?x768xf32>, tensor<?x?x768xf32>) -> tensor<?x?x768xf32>
    %n2_10 = attune.layer_norm %r10 weight(%g2_10) bias(%b2_10) : (tensor<?x?x768xf32>, tensor<768xf32>, tensor<768xf32>) -> tensor<?x?x768xf32>
    %f10 = attune.linear %n2_10, %wfc10, %bfc10 {activation = #attune.activation<gelu_tanh>} : (tensor<?x?x768xf32>, tensor<3072x768xf32>, tensor<3072xf32>) -> tensor<?x?x3072xf32>
    %p10 = attune.linear %f10, %wpr10, %bpr10 : (tensor<?x?x3072xf32>, tensor<768x3072xf32>, tensor<768xf32>) -> tensor<?x?x768xf32>
    %x11 = attune.add %r10, %p10 : (tensor<?x?x768xf32>, tensor<?x?x768xf32>) -> tensor<?x?x768xf32>
    %g1_11 = attune.weight "h.11.ln_1.weight" : tensor<768xf32>
    %b1_11 = attune.weight "h.11.ln_1.bias" : tensor<768xf32>
    %wqkv11 = attune.weight "h.11.attn.c_attn.weight" : tensor<2304x768xf32>
    %bqkv11 = attune.weight "h.11.attn.c_attn.bias" : tensor<2304xf32>
    %wo11 = attune.weight "h.11.attn.c_proj.weight" : tensor<768x768xf32>
    %bo11 = attune.weight "h.11.attn.c_proj.bias" : tensor<768xf32>
    %g2_11 = attune.weight "h.11.ln_2.weight" : tensor<768xf32>
    %b2_11 = attune.weight "h.11.ln_2.bias" : tensor<768xf32>
    %wfc11 = attune.weight "h.11.mlp.c_fc.weight" : tensor<3072x768xf32>
    %bfc11 = attune.weight "h.11.mlp.c_fc.bias" : tensor<3072xf32>
    %wpr11 = attune.weight "h.11.mlp.c_proj.weight" : tensor<768x3072xf32>
    %bpr11 = attune.weight "h.11.mlp.c_proj.bias" : tensor<768xf32>
    %n1_11 = attune.layer_norm %x11 weight(%g1_11) bias(%b1_11) : (tensor<?x?x768xf32>, tensor<768xf32>, tensor<768xf32>) -> tensor<?x?x768xf32>
    %qkv11 = attune.linear %n1_11, %wqkv11, %bqkv11 : (tensor<?x?x768xf32>, tensor<2304x768xf32>, tensor<2304xf32>) -> tensor<?x?x2304xf32>
    %qs11 = attune.slice %qkv11 {axis = -1 : i64, offset = 0 : i64, size = 768 : i64} : (tensor<?x?x2304xf32>) -> tensor<?x?x768xf32>
    %qh11 = attune.split_heads %qs11 {num_heads = 12 : i64} : (tensor<?x?x768xf32>) -> tensor<?x12x?x64xf32>
    %ks11 = attune.slice %qkv11 {axis = -1 : i64, offset = 768 : i64, size = 768 : i64} : (tensor<?x?x2304xf32>) -> tensor<?x?x768xf32>
    %kh11 = attune.split_heads %ks11 {num_heads = 12 : i64} : (tensor<?x?x768xf32>) -> tensor<?x12x?x64xf32>
    %vs11 = attune.slice %qkv11 {axis = -1 : i64, offset = 1536 : i64, size = 768 : i64} : (tensor<?x?x2304xf32>) -> tensor<?x?x768xf32>
    %vh11 = attune.split_heads %vs11 {num_heads = 12 : i64} : (tensor<?x?x768xf32>) -> tensor<?x12x?x64xf32>
    %kc11 = attune.cache_write %k11, %kh11, %positions : (tensor<?x12x2048x64xf32>, tensor<?x12x?x64xf32>, tensor<?xi64>) -> tensor<?x12x2048x64xf32>
    %vc11 = attune.cache_write %v11, %vh11, %positions : (tensor<?x12x2048x64xf32>, tensor<?x12x?x64xf32>, tensor<?xi64>) -> tensor<?x12x2048x64xf32>
    %a11 = attune.attention %qh11, %kc11, %vc11 query_offsets(%positions) {causal} : (tensor<?x12x?x64xf32>, tensor<?x12x2048x64xf32>, tensor<?x12x2048x64xf32>, tensor<?xi64>) -> tensor<?x12x?x64xf32>
    %m11 = attune.merge_heads %a11 : (tensor<?x12x?x64xf32>) -> tensor<?x?x768xf32>
    %o11 = attune.linear %m11, %wo11, %bo11 : (tensor<?x?x768xf32>, tensor<768x768xf32>, tensor<768xf32>) -> tensor<?x?x768xf32>
    %r11 = attune.add %x11, %o11 : (tensor<?x?x768xf32>, tensor<?x?x768xf32>) -> tensor<?x?x768xf32>
    %n2_11 = attune.layer_norm %r11 weight(%g2_11) bias(%b2_11) : (tensor<?x?x768xf32>, tensor<768xf32>, tensor<768xf32>) -> tensor<?x?x768xf32>
    %f11 = attune.linear %n2_11, %wfc11, %bfc11 {activation = #attune.activation<gelu_tanh>} : (tensor<?x?x768xf32>, tensor<3072x768xf32>, tensor<3072xf32>) -> tensor<?x?x3072xf32>
    %p11 = attune.linear %f11, %wpr11, %bpr11 : (tensor<?x?x3072xf32>, tensor<768x3072xf32>, tensor<768xf32>) -> tensor<?x?x768xf32>
    %x12 = attune.add %r11, %p11 : (tensor<?x?x768xf32>, tensor<?x?x768xf32>) -> tensor<?x?x768xf32>
    %gf = attune.weight "ln_f.weight" : tensor<768xf32>
    %bf = attune.weight "ln_f.bias" : tensor<768xf32>
    %nf = attune.layer_norm %x12 weight(%gf) bias(%bf) : (tensor<?x?x768xf32>, tensor<768xf32>, tensor<768xf32>) -> tensor<?x?x768xf32>
    %last = attune.select_last %nf, %lengths : (tensor<?x?x768xf32>, tensor<?xi64>) -> tensor<?x768xf32>
    %logits = attune.linear %last, %wte : (tensor<?x768xf32>, tensor<50257x768xf32>) -> tensor<?x50257xf32>
    return %logits, %kc0, %vc0, %kc1, %vc1, %kc2, %vc2, %kc3, %vc3, %kc4, %vc4, %kc5, %vc5, %kc6, %vc6, %kc7, %vc7, %kc8, %vc8, %kc9, %vc9, %kc10, %vc10, %kc11, %vc11
        : tensor<?x50257xf32>, tensor<?x12x2048x64xf32>, tensor<?x12x2048x64xf32>, tensor<?x12x2048x64xf32>, tensor<?x12x2048x64xf32>, tensor<?x12x2048x64xf32>, tensor<?x12x2048x64xf32>, tensor<?x12x2048x64xf32>, tensor<?x12x2048x64xf32>, tensor<?x12x2048x64xf32>, tensor<?x12x2048x64xf32>, tensor<?x12x2048x64xf32>, tensor<?x12x2048x64xf32>, tensor<?x12x2048x64xf32>, tensor<?x12x2048x64xf32>, tensor<?x12x2048x64xf32>, tensor<?x12x2048x64xf32>, tensor<?x12x2048x64xf32>, tensor<?x12x2048x64xf32>, tensor<?x12x2048x64xf32>, tensor<?x12x2048x64xf32>, tensor<?x12x2048x64xf32>, tensor<?x12x2048x64xf32>, tensor<?x12x2048x64xf32>, tensor<?x12x2048x64xf32>
  }
}
