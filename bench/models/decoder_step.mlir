// torch.module: nn.TransformerDecoderLayer(d_model=768, nhead=12, dim_feedforward=3072, dropout=0.0, batch_first=True)
// torch.inputs: tgt=f32[1,1,768], memory=f32[1,512,768]
// torch.call: module(tgt, memory, tgt_mask=nn.Transformer.generate_square_subsequent_mask(tgt.shape[1]))
//
// Benchmark: one decoding step of a BERT-base-sized decoder layer (post-norm,
// relu): a target of length 1 against a memory of 512.

module {
  func.func @forward(%tgt: tensor<?x?x768xf32> {attune.name = "tgt"}, %memory: tensor<?x?x768xf32> {attune.name = "memory"}) -> tensor<?x?x768xf32> {
    %w1 = attune.weight "self_attn.in_proj_weight" : tensor<2304x768xf32>
    %w2 = attune.weight "self_attn.in_proj_bias" : tensor<2304xf32>
    %w3 = attune.weight "self_attn.out_proj.weight" : tensor<768x768xf32>
    %w4 = attune.weight "self_attn.out_proj.bias" : tensor<768xf32>
    %w5 = attune.weight "multihead_attn.in_proj_weight" : tensor<2304x768xf32>
    %w6 = attune.weight "multihead_attn.in_proj_bias" : tensor<2304xf32>
    %w7 = attune.weight "multihead_attn.out_proj.weight" : tensor<768x768xf32>
    %w8 = attune.weight "multihead_attn.out_proj.bias" : tensor<768xf32>
    %w9 = attune.weight "linear1.weight" : tensor<3072x768xf32>
    %w10 = attune.weight "linear1.bias" : tensor<3072xf32>
    %w11 = attune.weight "linear2.weight" : tensor<768x3072xf32>
    %w12 = attune.weight "linear2.bias" : tensor<768xf32>
    %w13 = attune.weight "norm1.weight" : tensor<768xf32>
    %w14 = attune.weight "norm1.bias" : tensor<768xf32>
    %w15 = attune.weight "norm2.weight" : tensor<768xf32>
    %w16 = attune.weight "norm2.bias" : tensor<768xf32>
    %w17 = attune.weight "norm3.weight" : tensor<768xf32>
    %w18 = attune.weight "norm3.bias" : tensor<768xf32>
    %y = attune.decoder_layer %tgt, %memory
        self_attn(%w1, %w2, %w3, %w4) cross_attn(%w5, %w6, %w7, %w8)
        linear1(%w9, %w10) linear2(%w11, %w12)
        norm1(%w13, %w14) norm2(%w15, %w16) norm3(%w17, %w18) {num_heads = 12 : i64, causal}
        : (tensor<?x?x768xf32>, tensor<?x?x768xf32>,
           tensor<2304x768xf32>, tensor<2304xf32>, tensor<768x768xf32>, tensor<768xf32>,
           tensor<2304x768xf32>, tensor<2304xf32>, tensor<768x768xf32>, tensor<768xf32>,
           tensor<3072x768xf32>, tensor<3072xf32>, tensor<768x3072xf32>, tensor<768xf32>,
           tensor<768xf32>, tensor<768xf32>, tensor<768xf32>, tensor<768xf32>, tensor<768xf32>, tensor<768xf32>) -> tensor<?x?x768xf32>
    return %y : tensor<?x?x768xf32>
  }
}
