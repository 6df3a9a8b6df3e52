// torch.module: nn.TransformerEncoderLayer(d_model=768, nhead=12, dim_feedforward=3072, dropout=0.0, batch_first=True)
// torch.inputs: src=f32[1,128,768]
// torch.inputs: src=f32[1,512,768]
// torch.inputs: src=f32[8,128,768]
// torch.call: module(src)
//
// Benchmark: a BERT-base-sized encoder layer (post-norm, relu).

module {
  func.func @forward(%src: tensor<?x?x768xf32> {attune.name = "src"}) -> tensor<?x?x768xf32> {
    %w1 = attune.weight "self_attn.in_proj_weight" : tensor<2304x768xf32>
    %w2 = attune.weight "self_attn.in_proj_bias" : tensor<2304xf32>
    %w3 = attune.weight "self_attn.out_proj.weight" : tensor<768x768xf32>
    %w4 = attune.weight "self_attn.out_proj.bias" : tensor<768xf32>
    %w5 = attune.weight "linear1.weight" : tensor<3072x768xf32>
    %w6 = attune.weight "linear1.bias" : tensor<3072xf32>
    %w7 = attune.weight "linear2.weight" : tensor<768x3072xf32>
    %w8 = attune.weight "linear2.bias" : tensor<768xf32>
    %w9 = attune.weight "norm1.weight" : tensor<768xf32>
    %w10 = attune.weight "norm1.bias" : tensor<768xf32>
    %w11 = attune.weight "norm2.weight" : tensor<768xf32>
    %w12 = attune.weight "norm2.bias" : tensor<768xf32>
    %y = attune.encoder_layer %src
        self_attn(%w1, %w2, %w3, %w4) linear1(%w5, %w6) linear2(%w7, %w8)
        norm1(%w9, %w10) norm2(%w11, %w12) {num_heads = 12 : i64}
        : (tensor<?x?x768xf32>, tensor<2304x768xf32>, tensor<2304xf32>, tensor<768x768xf32>, tensor<768xf32>,
           tensor<3072x768xf32>, tensor<3072xf32>, tensor<768x3072xf32>, tensor<768xf32>,
           tensor<768xf32>, tensor<768xf32>, tensor<768xf32>, tensor<768xf32>) -> tensor<?x?x768xf32>
    return %y : tensor<?x?x768xf32>
  }
}
