// torch.module: nn.TransformerEncoderLayer(d_model=64, nhead=4, dim_feedforward=128, dropout=0.0, batch_first=True)
// torch.inputs: src=f32[2,16,64]
// torch.inputs: src=f32[1,5,64]
// torch.call: module(src)
//
// torch.nn.TransformerEncoderLayer, post-norm (the default) with relu:
// d_model 64, 4 heads, feed-forward 128. src [B, L, 64] -> [B, L, 64]; B, L dynamic.

module {
  func.func @forward(%src: tensor<?x?x64xf32> {attune.name = "src"}) -> tensor<?x?x64xf32> {
    %w1 = attune.weight "self_attn.in_proj_weight" : tensor<192x64xf32>
    %w2 = attune.weight "self_attn.in_proj_bias" : tensor<192xf32>
    %w3 = attune.weight "self_attn.out_proj.weight" : tensor<64x64xf32>
    %w4 = attune.weight "self_attn.out_proj.bias" : tensor<64xf32>
    %w5 = attune.weight "linear1.weight" : tensor<128x64xf32>
    %w6 = attune.weight "linear1.bias" : tensor<128xf32>
    %w7 = attune.weight "linear2.weight" : tensor<64x128xf32>
    %w8 = attune.weight "linear2.bias" : tensor<64xf32>
    %w9 = attune.weight "norm1.weight" : tensor<64xf32>
    %w10 = attune.weight "norm1.bias" : tensor<64xf32>
    %w11 = attune.weight "norm2.weight" : tensor<64xf32>
    %w12 = attune.weight "norm2.bias" : tensor<64xf32>
    %y = attune.encoder_layer %src
        self_attn(%w1, %w2, %w3, %w4) linear1(%w5, %w6) linear2(%w7, %w8)
        norm1(%w9, %w10) norm2(%w11, %w12) {num_heads = 4 : i64}
        : (tensor<?x?x64xf32>, tensor<192x64xf32>, tensor<192xf32>, tensor<64x64xf32>, tensor<64xf32>,
           tensor<128x64xf32>, tensor<128xf32>, tensor<64x128xf32>, tensor<64xf32>,
           tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<?x?x64xf32>
    return %y : tensor<?x?x64xf32>
  }
}
