// torch.module: nn.TransformerDecoderLayer(d_model=64, nhead=4, dim_feedforward=128, dropout=0.0, batch_first=True)
// torch.inputs: tgt=f32[2,7,64], memory=f32[2,11,64]
// torch.inputs: tgt=f32[1,1,64], memory=f32[1,4,64]
// torch.inputs: tgt=f32[1,1,64], memory=f32[1,40,64]
// torch.inputs: tgt=f32[3,2,64], memory=f32[3,50,64]
// torch.call: module(tgt, memory, tgt_mask=nn.Transformer.generate_square_subsequent_mask(tgt.shape[1]))
//
// torch.nn.TransformerDecoderLayer (post-norm, relu) with a causal target mask:
// d_model 64, 4 heads, feed-forward 128. tgt [B, Lt, 64], memory [B, Ls, 64] ->
// [B, Lt, 64]; B, Lt, Ls dynamic. The second and third cases are decoding
// steps; in the last two, the cross-attention's K and V projections are
// absorbed into the queries on CPU (attune-absorb-kv-projections).

module {
  func.func @forward(%tgt: tensor<?x?x64xf32> {attune.name = "tgt"}, %memory: tensor<?x?x64xf32> {attune.name = "memory"}) -> tensor<?x?x64xf32> {
    %w1 = attune.weight "self_attn.in_proj_weight" : tensor<192x64xf32>
    %w2 = attune.weight "self_attn.in_proj_bias" : tensor<192xf32>
    %w3 = attune.weight "self_attn.out_proj.weight" : tensor<64x64xf32>
    %w4 = attune.weight "self_attn.out_proj.bias" : tensor<64xf32>
    %w5 = attune.weight "multihead_attn.in_proj_weight" : tensor<192x64xf32>
    %w6 = attune.weight "multihead_attn.in_proj_bias" : tensor<192xf32>
    %w7 = attune.weight "multihead_attn.out_proj.weight" : tensor<64x64xf32>
    %w8 = attune.weight "multihead_attn.out_proj.bias" : tensor<64xf32>
    %w9 = attune.weight "linear1.weight" : tensor<128x64xf32>
    %w10 = attune.weight "linear1.bias" : tensor<128xf32>
    %w11 = attune.weight "linear2.weight" : tensor<64x128xf32>
    %w12 = attune.weight "linear2.bias" : tensor<64xf32>
    %w13 = attune.weight "norm1.weight" : tensor<64xf32>
    %w14 = attune.weight "norm1.bias" : tensor<64xf32>
    %w15 = attune.weight "norm2.weight" : tensor<64xf32>
    %w16 = attune.weight "norm2.bias" : tensor<64xf32>
    %w17 = attune.weight "norm3.weight" : tensor<64xf32>
    %w18 = attune.weight "norm3.bias" : tensor<64xf32>
    %y = attune.decoder_layer %tgt, %memory
        self_attn(%w1, %w2, %w3, %w4) cross_attn(%w5, %w6, %w7, %w8)
        linear1(%w9, %w10) linear2(%w11, %w12)
        norm1(%w13, %w14) norm2(%w15, %w16) norm3(%w17, %w18) {num_heads = 4 : i64, causal}
        : (tensor<?x?x64xf32>, tensor<?x?x64xf32>,
           tensor<192x64xf32>, tensor<192xf32>, tensor<64x64xf32>, tensor<64xf32>,
           tensor<192x64xf32>, tensor<192xf32>, tensor<64x64xf32>, tensor<64xf32>,
           tensor<128x64xf32>, tensor<128xf32>, tensor<64x128xf32>, tensor<64xf32>,
           tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<?x?x64xf32>
    return %y : tensor<?x?x64xf32>
  }
}
