// torch.module: nn.ModuleDict({"self_attn": nn.MultiheadAttention(64, 4, batch_first=True), "cross": nn.MultiheadAttention(64, 4, batch_first=True)})
// torch.inputs: x=f32[2,10,64], memory=f32[2,13,64], lengths=i64[2]{1,14}
// torch.inputs: x=f32[1,70,64], memory=f32[1,150,64], lengths=i64[1]{100,151}
// torch.call: (lambda m, x, memory, causal, pad: (m.self_attn(x, x, x, attn_mask=causal, need_weights=False)[0], m.cross(x, memory, memory, key_padding_mask=pad, need_weights=False)[0], m.self_attn(x, x, x, attn_mask=causal, average_attn_weights=False)[1], m.self_attn(x, x, x, attn_mask=causal)[1], m.cross(x, memory, memory, key_padding_mask=pad, average_attn_weights=False)[1], m.cross(x, memory, memory, key_padding_mask=pad)[1]))(module, x, memory, nn.Transformer.generate_square_subsequent_mask(x.shape[1]), torch.arange(memory.shape[1])[None, :] >= lengths[:, None])
//
// attune-compile --attention-maps: a causal self-attention and a padded
// cross-attention (torch.nn.MultiheadAttention) return their outputs, then
// each site's weights per head and their head average, which must equal
// PyTorch's need_weights=True with average_attn_weights=False and True.
// The outputs keep the fused kernels' answers (the sites take the
// materialized form). The second case's lengths span several tiles.
// RUN: %check-golden %s --work %t --atol 1e-5 --compile-arg=--attention-maps
// RUN: attune-run %t/attention_maps.so --info | FileCheck %s
// CHECK: output output0: f32[?, ?, 64]
// CHECK: output output1: f32[?, ?, 64]
// CHECK: output attn.self_attn: f32[?, 4, ?, ?]
// CHECK: output attn.self_attn.mean: f32[?, ?, ?]
// CHECK: output attn.cross: f32[?, 4, ?, ?]
// CHECK: output attn.cross.mean: f32[?, ?, ?]

module {
  func.func @forward(%x: tensor<?x?x64xf32> {attune.name = "x"}, %memory: tensor<?x?x64xf32> {attune.name = "memory"},
                     %lengths: tensor<?xi64> {attune.name = "lengths"}) -> (tensor<?x?x64xf32>, tensor<?x?x64xf32>) {
    %w = attune.weight "self_attn.in_proj_weight" : tensor<192x64xf32>
    %b = attune.weight "self_attn.in_proj_bias" : tensor<192xf32>
    %wo = attune.weight "self_attn.out_proj.weight" : tensor<64x64xf32>
    %bo = attune.weight "self_attn.out_proj.bias" : tensor<64xf32>
    %y = attune.multi_head_attention %x, %x, %x in_proj_weight(%w) in_proj_bias(%b)
        out_proj_weight(%wo) out_proj_bias(%bo) {num_heads = 4 : i64, causal}
        : (tensor<?x?x64xf32>, tensor<?x?x64xf32>, tensor<?x?x64xf32>, tensor<192x64xf32>, tensor<192xf32>, tensor<64x64xf32>, tensor<64xf32>) -> tensor<?x?x64xf32>
    %cw = attune.weight "cross.in_proj_weight" : tensor<192x64xf32>
    %cb = attune.weight "cross.in_proj_bias" : tensor<192xf32>
    %cwo = attune.weight "cross.out_proj.weight" : tensor<64x64xf32>
    %cbo = attune.weight "cross.out_proj.bias" : tensor<64xf32>
    %z = attune.multi_head_attention %x, %memory, %memory in_proj_weight(%cw) in_proj_bias(%cb)
        out_proj_weight(%cwo) out_proj_bias(%cbo) key_lengths(%lengths) {num_heads = 4 : i64}
        : (tensor<?x?x64xf32>, tensor<?x?x64xf32>, tensor<?x?x64xf32>, tensor<192x64xf32>, tensor<192xf32>, tensor<64x64xf32>, tensor<64xf32>, tensor<?xi64>) -> tensor<?x?x64xf32>
    return %y, %z : tensor<?x?x64xf32>, tensor<?x?x64xf32>
  }
}
