// torch.module: nn.TransformerEncoderLayer(d_model=64, nhead=4, dim_feedforward=128, dropout=0.0, activation="gelu", norm_first=True, batch_first=True).half()
// torch.inputs: src=f16[2,16,64]
// torch.inputs: src=f16[1,5,64]
// torch.call: ref.in_f32(module)(src.float())
//
// examples/encoder_prenorm_gelu.mlir with f16 weights and activations: the
// layer decomposes and fuses as in f32, then every op computes in f32 and
// rounds its result to f16 (about ten roundings on the way), against
// PyTorch's f32 layer on the same f16 weights and input. Tolerance 4 eps of
// f16 (2^-8), on both counts.
// RUN: %check-golden %s --work %t --atol 0.00390625 --rtol 0.00390625

module {
  func.func @forward(%src: tensor<?x?x64xf16> {attune.name = "src"}) -> tensor<?x?x64xf16> {
    %w1 = attune.weight "self_attn.in_proj_weight" : tensor<192x64xf16>
    %w2 = attune.weight "self_attn.in_proj_bias" : tensor<192xf16>
    %w3 = attune.weight "self_attn.out_proj.weight" : tensor<64x64xf16>
    %w4 = attune.weight "self_attn.out_proj.bias" : tensor<64xf16>
    %w5 = attune.weight "linear1.weight" : tensor<128x64xf16>
    %w6 = attune.weight "linear1.bias" : tensor<128xf16>
    %w7 = attune.weight "linear2.weight" : tensor<64x128xf16>
    %w8 = attune.weight "linear2.bias" : tensor<64xf16>
    %w9 = attune.weight "norm1.weight" : tensor<64xf16>
    %w10 = attune.weight "norm1.bias" : tensor<64xf16>
    %w11 = attune.weight "norm2.weight" : tensor<64xf16>
    %w12 = attune.weight "norm2.bias" : tensor<64xf16>
    %y = attune.encoder_layer %src
        self_attn(%w1, %w2, %w3, %w4) linear1(%w5, %w6) linear2(%w7, %w8)
        norm1(%w9, %w10) norm2(%w11, %w12) {num_heads = 4 : i64, norm_first, activation = #attune.activation<gelu>}
        : (tensor<?x?x64xf16>, tensor<192x64xf16>, tensor<192xf16>, tensor<64x64xf16>, tensor<64xf16>,
           tensor<128x64xf16>, tensor<128xf16>, tensor<64x128xf16>, tensor<64xf16>,
           tensor<64xf16>, tensor<64xf16>, tensor<64xf16>, tensor<64xf16>) -> tensor<?x?x64xf16>
    return %y : tensor<?x?x64xf16>
  }
}
