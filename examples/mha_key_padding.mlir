// torch.module: nn.MultiheadAttention(64, 4, batch_first=True)
// torch.inputs: x=f32[3,12,64], lengths=i64[3]{1,13}
// torch.call: module(x, x, x, key_padding_mask=torch.arange(x.shape[1])[None, :] >= lengths[:, None], need_weights=False)[0]
//
// torch.nn.MultiheadAttention, self-attention with a key_padding_mask given as
// per-batch valid lengths. x [B, L, 64], lengths [B] -> [B, L, 64].

module {
  func.func @forward(%x: tensor<?x?x64xf32> {attune.name = "x"}, %lengths: tensor<?xi64> {attune.name = "lengths"}) -> tensor<?x?x64xf32> {
    %w = attune.weight "in_proj_weight" : tensor<192x64xf32>
    %b = attune.weight "in_proj_bias" : tensor<192xf32>
    %wo = attune.weight "out_proj.weight" : tensor<64x64xf32>
    %bo = attune.weight "out_proj.bias" : tensor<64xf32>
    %y = attune.multi_head_attention %x, %x, %x in_proj_weight(%w) in_proj_bias(%b)
        out_proj_weight(%wo) out_proj_bias(%bo) key_lengths(%lengths) {num_heads = 4 : i64}
        : (tensor<?x?x64xf32>, tensor<?x?x64xf32>, tensor<?x?x64xf32>, tensor<192x64xf32>, tensor<192xf32>, tensor<64x64xf32>, tensor<64xf32>, tensor<?xi64>) -> tensor<?x?x64xf32>
    return %y : tensor<?x?x64xf32>
  }
}
