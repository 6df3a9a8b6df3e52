// torch.module: nn.MultiheadAttention(64, 4, batch_first=True)
// torch.inputs: x=f32[2,10,64]
// torch.inputs: x=f32[1,3,64]
// torch.call: module(x, x, x, need_weights=False)[0]
//
// torch.nn.MultiheadAttention as self-attention: embed 64, 4 heads, packed
// in_proj_weight. x [B, L, 64] -> [B, L, 64]; B, L dynamic.

module {
  func.func @forward(%x: tensor<?x?x64xf32> {attune.name = "x"}) -> tensor<?x?x64xf32> {
    %w = attune.weight "in_proj_weight" : tensor<192x64xf32>
    %b = attune.weight "in_proj_bias" : tensor<192xf32>
    %wo = attune.weight "out_proj.weight" : tensor<64x64xf32>
    %bo = attune.weight "out_proj.bias" : tensor<64xf32>
    %y = attune.multi_head_attention %x, %x, %x in_proj_weight(%w) in_proj_bias(%b)
        out_proj_weight(%wo) out_proj_bias(%bo) {num_heads = 4 : i64}
        : (tensor<?x?x64xf32>, tensor<?x?x64xf32>, tensor<?x?x64xf32>, tensor<192x64xf32>, tensor<192xf32>, tensor<64x64xf32>, tensor<64xf32>) -> tensor<?x?x64xf32>
    return %y : tensor<?x?x64xf32>
  }
}
