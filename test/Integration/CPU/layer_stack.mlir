// torch.module: nn.ModuleList([nn.TransformerEncoderLayer(d_model=32, nhead=4, dim_feedforward=64, dropout=0.0, batch_first=True), nn.TransformerEncoderLayer(d_model=32, nhead=4, dim_feedforward=64, dropout=0.0, batch_first=True, norm_first=True, activation="gelu"), nn.TransformerEncoderLayer(d_model=32, nhead=4, dim_feedforward=64, dropout=0.0, batch_first=True)])
// torch.inputs: x=f32[2,9,32]
// torch.inputs: x=f32[1,17,32]
// torch.call: module[2](module[0](module[1](module[0](x))))
//
// A stack of layers as a model spells it out: four encoder layers of one
// shape, three of them the same computation (post-norm, relu) with layer 0's
// weights twice and layer 2's once, one different (pre-norm, gelu) between
// them. attune-outline-layers compiles the three as one function called
// three times, each call with its layer's weights prepared at compile time
// (attune-hoist-weight-preparation), and leaves the different one inline ...
// RUN: attune-compile %s --weights %golden/layer_stack/weights.safetensors --emit=attune | FileCheck %s
// CHECK-LABEL: func.func @forward
// CHECK:       call @forward_encoder_layer(
// CHECK-NOT:   call
// CHECK:       activation = #attune.activation<gelu>
// CHECK:       call @forward_encoder_layer(
// CHECK-NOT:   gelu
// CHECK:       call @forward_encoder_layer(
// CHECK:       func.func private @forward_encoder_layer(
// CHECK-NOT:   gelu
// CHECK:       return
// ... the compiled layer reads weights packed at compile time: its GEMM
// weights arrive as arguments already packed into panels (Q, K and V's
// 3 x 32 x 32), and no transpose of a weight is left in it ...
// RUN: attune-compile %s --weights %golden/layer_stack/weights.safetensors --cpu=icelake-server --emit=linalg | FileCheck %s --check-prefix=LINALG
// LINALG-LABEL: func.func private @forward_encoder_layer(
// LINALG-SAME:  tensor<3x32x32xf32>
// LINALG-NOT:   linalg.transpose ins(%arg
// LINALG:       return
// ... and the result is PyTorch's.
// RUN: %check-golden %s --work %t --atol 2e-5

func.func @forward(%x: tensor<?x?x32xf32> {attune.name = "x"}) -> tensor<?x?x32xf32> {
  %w0_0 = attune.weight "0.self_attn.in_proj_weight" : tensor<96x32xf32>
  %w0_1 = attune.weight "0.self_attn.in_proj_bias" : tensor<96xf32>
  %w0_2 = attune.weight "0.self_attn.out_proj.weight" : tensor<32x32xf32>
  %w0_3 = attune.weight "0.self_attn.out_proj.bias" : tensor<32xf32>
  %w0_4 = attune.weight "0.linear1.weight" : tensor<64x32xf32>
  %w0_5 = attune.weight "0.linear1.bias" : tensor<64xf32>
  %w0_6 = attune.weight "0.linear2.weight" : tensor<32x64xf32>
  %w0_7 = attune.weight "0.linear2.bias" : tensor<32xf32>
  %w0_8 = attune.weight "0.norm1.weight" : tensor<32xf32>
  %w0_9 = attune.weight "0.norm1.bias" : tensor<32xf32>
  %w0_10 = attune.weight "0.norm2.weight" : tensor<32xf32>
  %w0_11 = attune.weight "0.norm2.bias" : tensor<32xf32>
  %w1_0 = attune.weight "1.self_attn.in_proj_weight" : tensor<96x32xf32>
  %w1_1 = attune.weight "1.self_attn.in_proj_bias" : tensor<96xf32>
  %w1_2 = attune.weight "1.self_attn.out_proj.weight" : tensor<32x32xf32>
  %w1_3 = attune.weight "1.self_attn.out_proj.bias" : tensor<32xf32>
  %w1_4 = attune.weight "1.linear1.weight" : tensor<64x32xf32>
  %w1_5 = attune.weight "1.linear1.bias" : tensor<64xf32>
  %w1_6 = attune.weight "1.linear2.weight" : tensor<32x64xf32>
  %w1_7 = attune.weight "1.linear2.bias" : tensor<32xf32>
  %w1_8 = attune.weight "1.norm1.weight" : tensor<32xf32>
  %w1_9 = attune.weight "1.norm1.bias" : tensor<32xf32>
  %w1_10 = attune.weight "1.norm2.weight" : tensor<32xf32>
  %w1_11 = attune.weight "1.norm2.bias" : tensor<32xf32>
  %w2_0 = attune.weight "2.self_attn.in_proj_weight" : tensor<96x32xf32>
  %w2_1 = attune.weight "2.self_attn.in_proj_bias" : tensor<96xf32>
  %w2_2 = attune.weight "2.self_attn.out_proj.weight" : tensor<32x32xf32>
  %w2_3 = attune.weight "2.self_attn.out_proj.bias" : tensor<32xf32>
  %w2_4 = attune.weight "2.linear1.weight" : tensor<64x32xf32>
  %w2_5 = attune.weight "2.linear1.bias" : tensor<64xf32>
  %w2_6 = attune.weight "2.linear2.weight" : tensor<32x64xf32>
  %w2_7 = attune.weight "2.linear2.bias" : tensor<32xf32>
  %w2_8 = attune.weight "2.norm1.weight" : tensor<32xf32>
  %w2_9 = attune.weight "2.norm1.bias" : tensor<32xf32>
  %w2_10 = attune.weight "2.norm2.weight" : tensor<32xf32>
  %w2_11 = attune.weight "2.norm2.bias" : tensor<32xf32>
  %h0 = attune.encoder_layer %x
      self_attn(%w0_0, %w0_1, %w0_2, %w0_3) linear1(%w0_4, %w0_5) linear2(%w0_6, %w0_7)
      norm1(%w0_8, %w0_9) norm2(%w0_10, %w0_11) {num_heads = 4 : i64}
      : (tensor<?x?x32xf32>, tensor<96x32xf32>, tensor<96xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<64x32xf32>, tensor<64xf32>, tensor<32x64xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>) -> tensor<?x?x32xf32>
  %h1 = attune.encoder_layer %h0
      self_attn(%w1_0, %w1_1, %w1_2, %w1_3) linear1(%w1_4, %w1_5) linear2(%w1_6, %w1_7)
      norm1(%w1_8, %w1_9) norm2(%w1_10, %w1_11) {num_heads = 4 : i64, norm_first, activation = #attune.activation<gelu>}
      : (tensor<?x?x32xf32>, tensor<96x32xf32>, tensor<96xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<64x32xf32>, tensor<64xf32>, tensor<32x64xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>) -> tensor<?x?x32xf32>
  %h2 = attune.encoder_layer %h1
      self_attn(%w0_0, %w0_1, %w0_2, %w0_3) linear1(%w0_4, %w0_5) linear2(%w0_6, %w0_7)
      norm1(%w0_8, %w0_9) norm2(%w0_10, %w0_11) {num_heads = 4 : i64}
      : (tensor<?x?x32xf32>, tensor<96x32xf32>, tensor<96xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<64x32xf32>, tensor<64xf32>, tensor<32x64xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>) -> tensor<?x?x32xf32>
  %h3 = attune.encoder_layer %h2
      self_attn(%w2_0, %w2_1, %w2_2, %w2_3) linear1(%w2_4, %w2_5) linear2(%w2_6, %w2_7)
      norm1(%w2_8, %w2_9) norm2(%w2_10, %w2_11) {num_heads = 4 : i64}
      : (tensor<?x?x32xf32>, tensor<96x32xf32>, tensor<96xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<64x32xf32>, tensor<64xf32>, tensor<32x64xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>) -> tensor<?x?x32xf32>
  return %h3 : tensor<?x?x32xf32>
}
