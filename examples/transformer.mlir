// torch.module: nn.Transformer(d_model=64, nhead=4, num_encoder_layers=2, num_decoder_layers=2, dim_feedforward=128, dropout=0.0, batch_first=True)
// torch.inputs: src=f32[2,10,64], tgt=f32[2,6,64]
// torch.call: module(src, tgt, tgt_mask=nn.Transformer.generate_square_subsequent_mask(tgt.shape[1]))
//
// torch.nn.Transformer: 2 encoder and 2 decoder layers (d_model 64, 4 heads,
// feed-forward 128) with the final encoder and decoder norms; the full forward
// pass with a causal target mask. src [B, Ls, 64], tgt [B, Lt, 64] -> [B, Lt, 64].

module {
  func.func @forward(%src: tensor<?x?x64xf32> {attune.name = "src"}, %tgt: tensor<?x?x64xf32> {attune.name = "tgt"}) -> tensor<?x?x64xf32> {
    %w1 = attune.weight "encoder.layers.0.self_attn.in_proj_weight" : tensor<192x64xf32>
    %w2 = attune.weight "encoder.layers.0.self_attn.in_proj_bias" : tensor<192xf32>
    %w3 = attune.weight "encoder.layers.0.self_attn.out_proj.weight" : tensor<64x64xf32>
    %w4 = attune.weight "encoder.layers.0.self_attn.out_proj.bias" : tensor<64xf32>
    %w5 = attune.weight "encoder.layers.0.linear1.weight" : tensor<128x64xf32>
    %w6 = attune.weight "encoder.layers.0.linear1.bias" : tensor<128xf32>
    %w7 = attune.weight "encoder.layers.0.linear2.weight" : tensor<64x128xf32>
    %w8 = attune.weight "encoder.layers.0.linear2.bias" : tensor<64xf32>
    %w9 = attune.weight "encoder.layers.0.norm1.weight" : tensor<64xf32>
    %w10 = attune.weight "encoder.layers.0.norm1.bias" : tensor<64xf32>
    %w11 = attune.weight "encoder.layers.0.norm2.weight" : tensor<64xf32>
    %w12 = attune.weight "encoder.layers.0.norm2.bias" : tensor<64xf32>
    %e0 = attune.encoder_layer %src
        self_attn(%w1, %w2, %w3, %w4) linear1(%w5, %w6) linear2(%w7, %w8)
        norm1(%w9, %w10) norm2(%w11, %w12) {num_heads = 4 : i64}
        : (tensor<?x?x64xf32>, tensor<192x64xf32>, tensor<192xf32>, tensor<64x64xf32>, tensor<64xf32>,
           tensor<128x64xf32>, tensor<128xf32>, tensor<64x128xf32>, tensor<64xf32>,
           tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<?x?x64xf32>
    %w13 = attune.weight "encoder.layers.1.self_attn.in_proj_weight" : tensor<192x64xf32>
    %w14 = attune.weight "encoder.layers.1.self_attn.in_proj_bias" : tensor<192xf32>
    %w15 = attune.weight "encoder.layers.1.self_attn.out_proj.weight" : tensor<64x64xf32>
    %w16 = attune.weight "encoder.layers.1.self_attn.out_proj.bias" : tensor<64xf32>
    %w17 = attune.weight "encoder.layers.1.linear1.weight" : tensor<128x64xf32>
    %w18 = attune.weight "encoder.layers.1.linear1.bias" : tensor<128xf32>
    %w19 = attune.weight "encoder.layers.1.linear2.weight" : tensor<64x128xf32>
    %w20 = attune.weight "encoder.layers.1.linear2.bias" : tensor<64xf32>
    %w21 = attune.weight "encoder.layers.1.norm1.weight" : tensor<64xf32>
    %w22 = attune.weight "encoder.layers.1.norm1.bias" : tensor<64xf32>
    %w23 = attune.weight "encoder.layers.1.norm2.weight" : tensor<64xf32>
    %w24 = attune.weight "encoder.layers.1.norm2.bias" : tensor<64xf32>
    %e1 = attune.encoder_layer %e0
        self_attn(%w13, %w14, %w15, %w16) linear1(%w17, %w18) linear2(%w19, %w20)
        norm1(%w21, %w22) norm2(%w23, %w24) {num_heads = 4 : i64}
        : (tensor<?x?x64xf32>, tensor<192x64xf32>, tensor<192xf32>, tensor<64x64xf32>, tensor<64xf32>,
           tensor<128x64xf32>, tensor<128xf32>, tensor<64x128xf32>, tensor<64xf32>,
           tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<?x?x64xf32>
    %w25 = attune.weight "encoder.norm.weight" : tensor<64xf32>
    %w26 = attune.weight "encoder.norm.bias" : tensor<64xf32>
    %memory = attune.layer_norm %e1 weight(%w25) bias(%w26) : (tensor<?x?x64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<?x?x64xf32>
    %w27 = attune.weight "decoder.layers.0.self_attn.in_proj_weight" : tensor<192x64xf32>
    %w28 = attune.weight "decoder.layers.0.self_attn.in_proj_bias" : tensor<192xf32>
    %w29 = attune.weight "decoder.layers.0.self_attn.out_proj.weight" : tensor<64x64xf32>
    %w30 = attune.weight "decoder.layers.0.self_attn.out_proj.bias" : tensor<64xf32>
    %w31 = attune.weight "decoder.layers.0.multihead_attn.in_proj_weight" : tensor<192x64xf32>
    %w32 = attune.weight "decoder.layers.0.multihead_attn.in_proj_bias" : tensor<192xf32>
    %w33 = attune.weight "decoder.layers.0.multihead_attn.out_proj.weight" : tensor<64x64xf32>
    %w34 = attune.weight "decoder.layers.0.multihead_attn.out_proj.bias" : tensor<64xf32>
    %w35 = attune.weight "decoder.layers.0.linear1.weight" : tensor<128x64xf32>
    %w36 = attune.weight "decoder.layers.0.linear1.bias" : tensor<128xf32>
    %w37 = attune.weight "decoder.layers.0.linear2.weight" : tensor<64x128xf32>
    %w38 = attune.weight "decoder.layers.0.linear2.bias" : tensor<64xf32>
    %w39 = attune.weight "decoder.layers.0.norm1.weight" : tensor<64xf32>
    %w40 = attune.weight "decoder.layers.0.norm1.bias" : tensor<64xf32>
    %w41 = attune.weight "decoder.layers.0.norm2.weight" : tensor<64xf32>
    %w42 = attune.weight "decoder.layers.0.norm2.bias" : tensor<64xf32>
    %w43 = attune.weight "decoder.layers.0.norm3.weight" : tensor<64xf32>
    %w44 = attune.weight "decoder.layers.0.norm3.bias" : tensor<64xf32>
    %d0 = attune.decoder_layer %tgt, %memory
        self_attn(%w27, %w28, %w29, %w30) cross_attn(%w31, %w32, %w33, %w34)
        linear1(%w35, %w36) linear2(%w37, %w38)
        norm1(%w39, %w40) norm2(%w41, %w42) norm3(%w43, %w44) {num_heads = 4 : i64, causal}
        : (tensor<?x?x64xf32>, tensor<?x?x64xf32>,
           tensor<192x64xf32>, tensor<192xf32>, tensor<64x64xf32>, tensor<64xf32>,
           tensor<192x64xf32>, tensor<192xf32>, tensor<64x64xf32>, tensor<64xf32>,
           tensor<128x64xf32>, tensor<128xf32>, tensor<64x128xf32>, tensor<64xf32>,
           tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<?x?x64xf32>
    %w45 = attune.weight "decoder.layers.1.self_attn.in_proj_weight" : tensor<192x64xf32>
    %w46 = attune.weight "decoder.layers.1.self_attn.in_proj_bias" : tensor<192xf32>
    %w47 = attune.weight "decoder.layers.1.self_attn.out_proj.weight" : tensor<64x64xf32>
    %w48 = attune.weight "decoder.layers.1.self_attn.out_proj.bias" : tensor<64xf32>
    %w49 = attune.weight "decoder.layers.1.multihead_attn.in_proj_weight" : tensor<192x64xf32>
    %w50 = attune.weight "decoder.layers.1.multihead_attn.in_proj_bias" : tensor<192xf32>
    %w51 = attune.weight "decoder.layers.1.multihead_attn.out_proj.weight" : tensor<64x64xf32>
    %w52 = attune.weight "decoder.layers.1.multihead_attn.out_proj.bias" : tensor<64xf32>
    %w53 = attune.weight "decoder.layers.1.linear1.weight" : tensor<128x64xf32>
    %w54 = attune.weight "decoder.layers.1.linear1.bias" : tensor<128xf32>
    %w55 = attune.weight "decoder.layers.1.linear2.weight" : tensor<64x128xf32>
    %w56 = attune.weight "decoder.layers.1.linear2.bias" : tensor<64xf32>
    %w57 = attune.weight "decoder.layers.1.norm1.weight" : tensor<64xf32>
    %w58 = attune.weight "decoder.layers.1.norm1.bias" : tensor<64xf32>
    %w59 = attune.weight "decoder.layers.1.norm2.weight" : tensor<64xf32>
    %w60 = attune.weight "decoder.layers.1.norm2.bias" : tensor<64xf32>
    %w61 = attune.weight "decoder.layers.1.norm3.weight" : tensor<64xf32>
    %w62 = attune.weight "decoder.layers.1.norm3.bias" : tensor<64xf32>
    %d1 = attune.decoder_layer %d0, %memory
        self_attn(%w45, %w46, %w47, %w48) cross_attn(%w49, %w50, %w51, %w52)
        linear1(%w53, %w54) linear2(%w55, %w56)
        norm1(%w57, %w58) norm2(%w59, %w60) norm3(%w61, %w62) {num_heads = 4 : i64, causal}
        : (tensor<?x?x64xf32>, tensor<?x?x64xf32>,
           tensor<192x64xf32>, tensor<192xf32>, tensor<64x64xf32>, tensor<64xf32>,
           tensor<192x64xf32>, tensor<192xf32>, tensor<64x64xf32>, tensor<64xf32>,
           tensor<128x64xf32>, tensor<128xf32>, tensor<64x128xf32>, tensor<64xf32>,
           tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<?x?x64xf32>
    %w63 = attune.weight "decoder.norm.weight" : tensor<64xf32>
    %w64 = attune.weight "decoder.norm.bias" : tensor<64xf32>
    %y = attune.layer_norm %d1 weight(%w63) bias(%w64) : (tensor<?x?x64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<?x?x64xf32>
    return %y : tensor<?x?x64xf32>
  }
}
