// torch.module: ref.GPT(vocab=2048, d_model=256, heads=4, layers=4, positions=320)
// torch.inputs: tokens=i64[1,256]{0,2048}, lengths=i64[1]{256,257}
// torch.generate: ref.greedy(module, tokens, lengths, max_new_tokens=4, eos=-1, pad=0)
// torch.logits: ref.forced_logits(module, tokens, lengths, generated)
// attune.generate: --max-new-tokens 4 --pad 0
//
// The Vulkan generation benchmark's model (bench/generate_vulkan.py): the
// examples/gpt_generate.mlir family at a size lavapipe runs in seconds, with
// room for a prompt of 256 and 32 new tokens. Written by
// scripts/gen_generation_mlir.py gpt --vocab 2048 --d-model 256 --heads 4 --layers 4 --positions 320 --ff 1024
module {
  func.func @step(%tokens: tensor<?x?xi64> {attune.name = "tokens"},
      %positions: tensor<?xi64> {attune.name = "positions"},
      %lengths: tensor<?xi64> {attune.name = "lengths"},
      %k0: tensor<?x4x320x64xf32> {attune.state = "k0"},
      %v0: tensor<?x4x320x64xf32> {attune.state = "v0"},
      %k1: tensor<?x4x320x64xf32> {attune.state = "k1"},
      %v1: tensor<?x4x320x64xf32> {attune.state = "v1"},
      %k2: tensor<?x4x320x64xf32> {attune.state = "k2"},
      %v2: tensor<?x4x320x64xf32> {attune.state = "v2"},
      %k3: tensor<?x4x320x64xf32> {attune.state = "k3"},
      %v3: tensor<?x4x320x64xf32> {attune.state = "v3"})
      -> (tensor<?x2048xf32> {attune.name = "logits"},
          tensor<?x4x320x64xf32> {attune.state = "k0"},
          tensor<?x4x320x64xf32> {attune.state = "v0"},
          tensor<?x4x320x64xf32> {attune.state = "k1"},
          tensor<?x4x320x64xf32> {attune.state = "v1"},
          tensor<?x4x320x64xf32> {attune.state = "k2"},
          tensor<?x4x320x64xf32> {attune.state = "v2"},
          tensor<?x4x320x64xf32> {attune.state = "k3"},
          tensor<?x4x320x64xf32> {attune.state = "v3"})
      attributes {attune.generation_step} {
    %wte = attune.weight "wte.weight" : tensor<2048x256xf32>
    %wpe = attune.weight "wpe.weight" : tensor<320x256xf32>
    %tok = attune.embedding %tokens, %wte : (tensor<?x?xi64>, tensor<2048x256xf32>) -> tensor<?x?x256xf32>
    %x0 = attune.positional_encoding <learned> %tok, %wpe offsets(%positions) : (tensor<?x?x256xf32>, tensor<320x256xf32>, tensor<?xi64>) -> tensor<?x?x256xf32>
    %g1_0 = attune.weight "h.0.ln_1.weight" : tensor<256xf32>
    %b1_0 = attune.weight "h.0.ln_1.bias" : tensor<256xf32>
    %wqkv0 = attune.weight "h.0.attn.c_attn.weight" : tensor<768x256xf32>
    %bqkv0 = attune.weight "h.0.attn.c_attn.bias" : tensor<768xf32>
    %wo0 = attune.weight "h.0.attn.c_proj.weight" : tensor<256x256xf32>
    %bo0 = attune.weight "h.0.attn.c_proj.bias" : tensor<256xf32>
    %g2_0 = attune.weight "h.0.ln_2.weight" : tensor<256xf32>
    %b2_0 = attune.weight "h.0.ln_2.bias" : tensor<256xf32>
    %wfc0 = attune.weight "h.0.mlp.c_fc.weight" : tensor<1024x256xf32>
    %bfc0 = attune.weight "h.0.mlp.c_fc.bias" : tensor<1024xf32>
    %wpr0 = attune.weight "h.0.mlp.c_proj.weight" : tensor<256x1024xf32>
    %bpr0 = attune.weight "h.0.mlp.c_proj.bias" : tensor<256xf32>
    %n1_0 = attune.layer_norm %x0 weight(%g1_0) bias(%b1_0) : (tensor<?x?x256xf32>, tensor<256xf32>, tensor<256xf32>) -> tensor<?x?x256xf32>
    %qkv0 = attune.linear %n1_0, %wqkv0, %bqkv0 : (tensor<?x?x256xf32>, tensor<768x256xf32>, tensor<768xf32>) -> tensor<?x?x768xf32>
    %qs0 = attune.slice %qkv0 {axis = -1 : i64, offset = 0 : i64, size = 256 : i64} : (tensor<?x?x768xf32>) -> tensor<?x?x256xf32>
    %qh0 = attune.split_heads %qs0 {num_heads = 4 : i64} : (tensor<?x?x256xf32>) -> tensor<?x4x?x64xf32>
    %ks0 = attune.slice %qkv0 {axis = -1 : i64, offset = 256 : i64, size = 256 : i64} : (tensor<?x?x768xf32>) -> tensor<?x?x256xf32>
    %kh0 = attune.split_heads %ks0 {num_heads = 4 : i64} : (tensor<?x?x256xf32>) -> tensor<?x4x?x64xf32>
    %vs0 = attune.slice %qkv0 {axis = -1 : i64, offset = 512 : i64, size = 256 : i64} : (tensor<?x?x768xf32>) -> tensor<?x?x256xf32>
    %vh0 = attune.split_heads %vs0 {num_heads = 4 : i64} : (tensor<?x?x256xf32>) -> tensor<?x4x?x64xf32>
    %kc0 = attune.cache_write %k0, %kh0, %positions : (tensor<?x4x320x64xf32>, tensor<?x4x?x64xf32>, tensor<?xi64>) -> tensor<?x4x320x64xf32>
    %vc0 = attune.cache_write %v0, %vh0, %positions : (tensor<?x4x320x64xf32>, tensor<?x4x?x64xf32>, tensor<?xi64>) -> tensor<?x4x320x64xf32>
    %a0 = attune.attention %qh0, %kc0, %vc0 query_offsets(%positions) {causal} : (tensor<?x4x?x64xf32>, tensor<?x4x320x64xf32>, tensor<?x4x320x64xf32>, tensor<?xi64>) -> tensor<?x4x?x64xf32>
    %m0 = attune.merge_heads %a0 : (tensor<?x4x?x64xf32>) -> tensor<?x?x256xf32>
    %o0 = attune.linear %m0, %wo0, %bo0 : (tensor<?x?x256xf32>, tensor<256x256xf32>, tensor<256xf32>) -> tensor<?x?x256xf32>
    %r0 = attune.add %x0, %o0 : (tensor<?x?x256xf32>, tensor<?x?x256xf32>) -> tensor<?x?x256xf32>
    %n2_0 = attune.layer_norm %r0 weight(%g2_0) bias(%b2_0) : (tensor<?x?x256xf32>, tensor<256xf32>, tensor<256xf32>) -> tensor<?x?x256xf32>
    %f0 = attune.linear %n2_0, %wfc0, %bfc0 {activation = #attune.activation<gelu_tanh>} : (tensor<?x?x256xf32>, tensor<1024x256xf32>, tensor<1024xf32>) -> tensor<?x?x1024xf32>
    %p0 = attune.linear %f0, %wpr0, %bpr0 : (tensor<?x?x1024xf32>, tensor<256x1024xf32>, tensor<256xf32>) -> tensor<?x?x256xf32>
    %x1 = attune.add %r0, %p0 : (tensor<?x?x256xf32>, tensor<?x?x256xf32>) -> tensor<?x?x256xf32>
    %g1_1 = attune.weight "h.1.ln_1.weight" : tensor<256xf32>
    %b1_1 = attune.weight "h.1.ln_1.bias" : tensor<256xf32>
    %wqkv1 = attune.weight "h.1.attn.c_attn.weight" : tensor<768x256xf32>
    %bqkv1 = attune.weight "h.1.attn.c_attn.bias" : tensor<768xf32>
    %wo1 = attune.weight "h.1.attn.c_proj.weight" : tensor<256x256xf32>
    %bo1 = attune.weight "h.1.attn.c_proj.bias" : tensor<256xf32>
    %g2_1 = attune.weight "h.1.ln_2.weight" : tensor<256xf32>
    %b2_1 = attune.weight "h.1.ln_2.bias" : tensor<256xf32>
    %wfc1 = attune.weight "h.1.mlp.c_fc.weight" : tensor<1024x256xf32>
    %bfc1 = attune.weight "h.1.mlp.c_fc.bias" : tensor<1024xf32>
    %wpr1 = attune.weight "h.1.mlp.c_proj.weight" : tensor<256x1024xf32>
    %bpr1 = attune.weight "h.1.mlp.c_proj.bias" : tensor<256xf32>
    %n1_1 = attune.layer_norm %x1 weight(%g1_1) bias(%b1_1) : (tensor<?x?x256xf32>, tensor<256xf32>, tensor<256xf32>) -> tensor<?x?x256xf32>
    %qkv1 = attune.linear %n1_1, %wqkv1, %bqkv1 : (tensor<?x?x256xf32>, tensor<768x256xf32>, tensor<768xf32>) -> tensor<?x?x768xf32>
    %qs1 = attune.slice %qkv1 {axis = -1 : i64, offset = 0 : i64, size = 256 : i64} : (tensor<?x?x768xf32>) -> tensor<?x?x256xf32>
    %qh1 = attune.split_heads %qs1 {num_heads = 4 : i64} : (tensor<?x?x256xf32>) -> tensor<?x4x?x64xf32>
    %ks1 = attune.slice %qkv1 {axis = -1 : i64, offset = 256 : i64, size = 256 : i64} : (tensor<?x?x768xf32>) -> tensor<?x?x256xf32>
    %kh1 = attune.split_heads %ks1 {num_heads = 4 : i64} : (tensor<?x?x256xf32>) -> tensor<?x4x?x64xf32>
    %vs1 = attune.slice %qkv1 {axis = -1 : i64, offset = 512 : i64, size = 256 : i64} : (tensor<?x?x768xf32>) -> tensor<?x?x256xf32>
    %vh1 = attune.split_heads %vs1 {num_heads = 4 : i64} : (tensor<?x?x256xf32>) -> tensor<?x4x?x64xf32>
    %kc1 = attune.cache_write %k1, %kh1, %positions : (tensor<?x4x320x64xf32>, tensor<?x4x?x64xf32>, tensor<?xi64>) -> tensor<?x4x320x64xf32>
    %vc1 = attune.cache_write %v1, %vh1, %positions : (tensor<?x4x320x64xf32>, tensor<?x4x?x64xf32>, tensor<?xi64>) -> tensor<?x4x320x64xf32>
    %a1 = attune.attention %qh1, %kc1, %vc1 query_offsets(%positions) {causal} : (tensor<?x4x?x64xf32>, tensor<?x4x320x64xf32>, tensor<?x4x320x64xf32>, tensor<?xi64>) -> tensor<?x4x?x64xf32>
    %m1 = attune.merge_heads %a1 : (tensor<?x4x?x64xf32>) -> tensor<?x?x256xf32>
    %o1 = attune.linear %m1, %wo1, %bo1 : (tensor<?x?x256xf32>, tensor<256x256xf32>, tensor<256xf32>) -> tensor<?x?x256xf32>
    %r1 = attune.add %x1, %o1 : (tensor<?x?x256xf32>, tensor<?x?x256xf32>) -> tensor<?x?x256xf32>
    %n2_1 = attune.layer_norm %r1 weight(%g2_1) bias(%b2_1) : (tensor<?x?x256xf32>, tensor<256xf32>, tensor<256xf32>) -> tensor<?x?x256xf32>
    %f1 = attune.linear %n2_1, %wfc1, %bfc1 {activation = #attune.activation<gelu_tanh>} : (tensor<?x?x256xf32>, tensor<1024x256xf32>, tensor<1024xf32>) -> tensor<?x?x1024xf32>
    %p1 = attune.linear %f1, %wpr1, %bpr1 : (tensor<?x?x1024xf32>, tensor<256x1024xf32>, tensor<256xf32>) -> tensor<?x?x256xf32>
    %x2 = attune.add %r1, %p1 : (tensor<?x?x256xf32>, tensor<?x?x256xf32>) -> tensor<?x?x256xf32>
    %g1_2 = attune.weight "h.2.ln_1.weight" : tensor<256xf32>
    %b1_2 = attune.weight "h.2.ln_1.bias" : tensor<256xf32>
    %wqkv2 = attune.weight "h.2.attn.c_attn.weight" : tensor<768x256xf32>
    %bqkv2 = attune.weight "h.2.attn.c_attn.bias" : tensor<768xf32>
    %wo2 = attune.weight "h.2.attn.c_proj.weight" : tensor<256x256xf32>
    %bo2 = attune.weight "h.2.attn.c_proj.bias" : tensor<256xf32>
    %g2_2 = attune.weight "h.2.ln_2.weight" : tensor<256xf32>
    %b2_2 = attune.weight "h.2.ln_2.bias" : tensor<256xf32>
    %wfc2 = attune.weight "h.2.mlp.c_fc.weight" : tensor<1024x256xf32>
    %bfc2 = attune.weight "h.2.mlp.c_fc.bias" : tensor<1024xf32>
    %wpr2 = attune.weight "h.2.mlp.c_proj.weight" : tensor<256x1024xf32>
    %bpr2 = attune.weight "h.2.mlp.c_proj.bias" : tensor<256xf32>
    %n1_2 = attune.layer_norm %x2 weight(%g1_2) bias(%b1_2) : (tensor<?x?x256xf32>, tensor<256xf32>, tensor<256xf32>) -> tensor<?x?x256xf32>
    %qkv2 = attune.linear %n1_2, %wqkv2, %bqkv2 : (tensor<?x?x256xf32>, tensor<768x256xf32>, tensor<768xf32>) -> tensor<?x?x768xf32>
    %qs2 = attune.slice %qkv2 {axis = -1 : i64, offset = 0 : i64, size = 256 : i64} : (tensor<?x?x768xf32>) -> tensor<?x?x256xf32>
    %qh2 = attune.split_heads %qs2 {num_heads = 4 : i64} : (tensor<?x?x256xf32>) -> tensor<?x4x?x64xf32>
    %ks2 = attune.slice %qkv2 {axis = -1 : i64, offset = 256 : i64, size = 256 : i64} : (tensor<?x?x768xf32>) -> tensor<?x?x256xf32>
    %kh2 = attune.split_heads %ks2 {num_heads = 4 : i64} : (tensor<?x?x256xf32>) -> tensor<?x4x?x64xf32>
    %vs2 = attune.slice %qkv2 {axis = -1 : i64, offset = 512 : i64, size = 256 : i64} : (tensor<?x?x768xf32>) -> tensor<?x?x256xf32>
    %vh2 = attune.split_heads %vs2 {num_heads = 4 : i64} : (tensor<?x?x256xf32>) -> tensor<?x4x?x64xf32>
    %kc2 = attune.cache_write %k2, %kh2, %positions : (tensor<?x4x320x64xf32>, tensor<?x4x?x64xf32>, tensor<?xi64>) -> tensor<?x4x320x64xf32>
    %vc2 = attune.cache_write %v2, %vh2, %positions : (tensor<?x4x320x64xf32>, tensor<?x4x?x64xf32>, tensor<?xi64>) -> tensor<?x4x320x64xf32>
    %a2 = attune.attention %qh2, %kc2, %vc2 query_offsets(%positions) {causal} : (tensor<?x4x?x64xf32>, tensor<?x4x320x64xf32>, tensor<?x4x320x64xf32>, tensor<?xi64>) -> tensor<?x4x?x64xf32>
    %m2 = attune.merge_heads %a2 : (tensor<?x4x?x64xf32>) -> tensor<?x?x256xf32>
    %o2 = attune.linear %m2, %wo2, %bo2 : (tensor<?x?x256xf32>, tensor<256x256xf32>, tensor<256xf32>) -> tensor<?x?x256xf32>
    %r2 = attune.add %x2, %o2 : (tensor<?x?x256xf32>, tensor<?x?x256xf32>) -> tensor<?x?x256xf32>
    %n2_2 = attune.layer_norm %r2 weight(%g2_2) bias(%b2_2) : (tensor<?x?x256xf32>, tensor<256xf32>, tensor<256xf32>) -> tensor<?x?x256xf32>
    %f2 = attune.linear %n2_2, %wfc2, %bfc2 {activation = #attune.activation<gelu_tanh>} : (tensor<?x?x256xf32>, tensor<1024x256xf32>, tensor<1024xf32>) -> tensor<?x?x1024xf32>
    %p2 = attune.linear %f2, %wpr2, %bpr2 : (tensor<?x?x1024xf32>, tensor<256x1024xf32>, tensor<256xf32>) -> tensor<?x?x256xf32>
    %x3 = attune.add %r2, %p2 : (tensor<?x?x256xf32>, tensor<?x?x256xf32>) -> tensor<?x?x256xf32>
    %g1_3 = attune.weight "h.3.ln_1.weight" : tensor<256xf32>
    %b1_3 = attune.weight "h.3.ln_1.bias" : tensor<256xf32>
    %wqkv3 = attune.weight "h.3.attn.c_attn.weight" : tensor<768x256xf32>
    %bqkv3 = attune.weight "h.3.attn.c_attn.bias" : tensor<768xf32>
    %wo3 = attune.weight "h.3.attn.c_proj.weight" : tensor<256x256xf32>
    %bo3 = attune.weight "h.3.attn.c_proj.bias" : tensor<256xf32>
    %g2_3 = attune.weight "h.3.ln_2.weight" : tensor<256xf32>
    %b2_3 = attune.weight "h.3.ln_2.bias" : tensor<256xf32>
    %wfc3 = attune.weight "h.3.mlp.c_fc.weight" : tensor<1024x256xf32>
    %bfc3 = attune.weight "h.3.mlp.c_fc.bias" : tensor<1024xf32>
    %wpr3 = attune.weight "h.3.mlp.c_proj.weight" : tensor<256x1024xf32>
    %bpr3 = attune.weight "h.3.mlp.c_proj.bias" : tensor<256xf32>
    %n1_3 = attune.layer_norm %x3 weight(%g1_3) bias(%b1_3) : (tensor<?x?x256xf32>, tensor<256xf32>, tensor<256xf32>) -> tensor<?x?x256xf32>
    %qkv3 = attune.linear %n1_3, %wqkv3, %bqkv3 : (tensor<?x?x256xf32>, tensor<768x256xf32>, tensor<768xf32>) -> tensor<?x?x768xf32>
    %qs3 = attune.slice %qkv3 {axis = -1 : i64, offset = 0 : i64, size = 256 : i64} : (tensor<?x?x768xf32>) -> tensor<?x?x256xf32>
    %qh3 = attune.split_heads %qs3 {num_heads = 4 : i64} : (tensor<?x?x256xf32>) -> tensor<?x4x?x64xf32>
    %ks3 = attune.slice %qkv3 {axis = -1 : i64, offset = 256 : i64, size = 256 : i64} : (tensor<?x?x768xf32>) -> tensor<?x?x256xf32>
    %kh3 = attune.split_heads %ks3 {num_heads = 4 : i64} : (tensor<?x?x256xf32>) -> tensor<?x4x?x64xf32>
    %vs3 = attune.slice %qkv3 {axis = -1 : i64, offset = 512 : i64, size = 256 : i64} : (tensor<?x?x768xf32>) -> tensor<?x?x256xf32>
    %vh3 = attune.split_heads %vs3 {num_heads = 4 : i64} : (tensor<?x?x256xf32>) -> tensor<?x4x?x64xf32>
    %kc3 = attune.cache_write %k3, %kh3, %positions : (tensor<?x4x320x64xf32>, tensor<?x4x?x64xf32>, tensor<?xi64>) -> tensor<?x4x320x64xf32>
    %vc3 = attune.cache_write %v3, %vh3, %positions : (tensor<?x4x320x64xf32>, tensor<?x4x?x64xf32>, tensor<?xi64>) -> tensor<?x4x320x64xf32>
    %a3 = attune.attention %qh3, %kc3, %vc3 query_offsets(%positions) {causal} : (tensor<?x4x?x64xf32>, tensor<?x4x320x64xf32>, tensor<?x4x320x64xf32>, tensor<?xi64>) -> tensor<?x4x?x64xf32>
    %m3 = attune.merge_heads %a3 : (tensor<?x4x?x64xf32>) -> tensor<?x?x256xf32>
    %o3 = attune.linear %m3, %wo3, %bo3 : (tensor<?x?x256xf32>, tensor<256x256xf32>, tensor<256xf32>) -> tensor<?x?x256xf32>
    %r3 = attune.add %x3, %o3 : (tensor<?x?x256xf32>, tensor<?x?x256xf32>) -> tensor<?x?x256xf32>
    %n2_3 = attune.layer_norm %r3 weight(%g2_3) bias(%b2_3) : (tensor<?x?x256xf32>, tensor<256xf32>, tensor<256xf32>) -> tensor<?x?x256xf32>
    %f3 = attune.linear %n2_3, %wfc3, %bfc3 {activation = #attune.activation<gelu_tanh>} : (tensor<?x?x256xf32>, tensor<1024x256xf32>, tensor<1024xf32>) -> tensor<?x?x1024xf32>
    %p3 = attune.linear %f3, %wpr3, %bpr3 : (tensor<?x?x1024xf32>, tensor<256x1024xf32>, tensor<256xf32>) -> tensor<?x?x256xf32>
    %x4 = attune.add %r3, %p3 : (tensor<?x?x256xf32>, tensor<?x?x256xf32>) -> tensor<?x?x256xf32>
    %gf = attune.weight "ln_f.weight" : tensor<256xf32>
    %bf = attune.weight "ln_f.bias" : tensor<256xf32>
    %nf = attune.layer_norm %x4 weight(%gf) bias(%bf) : (tensor<?x?x256xf32>, tensor<256xf32>, tensor<256xf32>) -> tensor<?x?x256xf32>
    %last = attune.select_last %nf, %lengths : (tensor<?x?x256xf32>, tensor<?xi64>) -> tensor<?x256xf32>
    %logits = attune.linear %last, %wte : (tensor<?x256xf32>, tensor<2048x256xf32>) -> tensor<?x2048xf32>
    return %logits, %kc0, %vc0, %kc1, %vc1, %kc2, %vc2, %kc3, %vc3
        : tensor<?x2048xf32>, tensor<?x4x320x64xf32>, tensor<?x4x320x64xf32>, tensor<?x4x320x64xf32>, tensor<?x4x320x64xf32>, tensor<?x4x320x64xf32>, tensor<?x4x320x64xf32>, tensor<?x4x320x64xf32>, tensor<?x4x320x64xf32>
  }
}
