// torch.module: nn.TransformerEncoder(nn.TransformerEncoderLayer(d_model=32, nhead=4, dim_feedforward=64, dropout=0.0, batch_first=True), num_layers=3, enable_nested_tensor=False)
// torch.inputs: x=f32[2,7,32]
// torch.inputs: x=f32[1,12,32]
// torch.call: module(x)
//
// nn.TransformerEncoder's three layers written once: attune.repeat names
// each iteration's weights by nn.TransformerEncoder's keys
// (layers.{i}.self_attn.in_proj_weight, ...). The driver spells the layers
// out with their weights, and attune-outline-layers compiles them once ...
// RUN: attune-compile %s --weights %golden/repeat/weights.safetensors --emit=attune | FileCheck %s
// CHECK-LABEL: func.func @forward
// CHECK-COUNT-3: call @forward_encoder_layer(
// CHECK-NOT:   attune.repeat
// CHECK:       func.func private @forward_encoder_layer(
// ... and the result is PyTorch's.
// RUN: %check-golden %s --work %t --atol 2e-5
// A weight missing from the file is reported by its full name, at the
// weight in the body.
// RUN: not attune-compile %s --weights %golden/concat/weights.safetensors -o %t/x.so 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: repeat.mlir:[[@LINE+6]]:11: error: 'attune.weight' op weight 'layers.0.self_attn.in_proj_weight' is not in

func.func @forward(%x: tensor<?x?x32xf32> {attune.name = "x"}) -> tensor<?x?x32xf32> {
  %y = attune.repeat %x {count = 3 : i64, prefix = "layers.{i}."}
      : (tensor<?x?x32xf32>) -> tensor<?x?x32xf32> {
  ^bb0(%h: tensor<?x?x32xf32>):
    %w1 = attune.weight "self_attn.in_proj_weight" : tensor<96x32xf32>
    %w2 = attune.weight "self_attn.in_proj_bias" : tensor<96xf32>
    %w3 = attune.weight "self_attn.out_proj.weight" : tensor<32x32xf32>
    %w4 = attune.weight "self_attn.out_proj.bias" : tensor<32xf32>
    %w5 = attune.weight "linear1.weight" : tensor<64x32xf32>
    %w6 = attune.weight "linear1.bias" : tensor<64xf32>
    %w7 = attune.weight "linear2.weight" : tensor<32x64xf32>
    %w8 = attune.weight "linear2.bias" : tensor<32xf32>
    %w9 = attune.weight "norm1.weight" : tensor<32xf32>
    %w10 = attune.weight "norm1.bias" : tensor<32xf32>
    %w11 = attune.weight "norm2.weight" : tensor<32xf32>
    %w12 = attune.weight "norm2.bias" : tensor<32xf32>
    %o = attune.encoder_layer %h
        self_attn(%w1, %w2, %w3, %w4) linear1(%w5, %w6) linear2(%w7, %w8)
        norm1(%w9, %w10) norm2(%w11, %w12) {num_heads = 4 : i64}
        : (tensor<?x?x32xf32>, tensor<96x32xf32>, tensor<96xf32>, tensor<32x32xf32>, tensor<32xf32>,
           tensor<64x32xf32>, tensor<64xf32>, tensor<32x64xf32>, tensor<32xf32>,
           tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>) -> tensor<?x?x32xf32>
    attune.yield %o : tensor<?x?x32xf32>
  }
  return %y : tensor<?x?x32xf32>
}
