// torch.module: nn.ModuleDict({"a": nn.Linear(200, 333), "b": nn.Linear(333, 96), "c": nn.Linear(333, 2), "enc": nn.TransformerEncoder(nn.TransformerEncoderLayer(d_model=64, nhead=2, dim_feedforward=128, dropout=0.0, batch_first=True), num_layers=2, enable_nested_tensor=False)})
// torch.inputs: x=f32[1,130,200] y=f32[2,19,64]
// torch.inputs: x=f32[2,1,200] y=f32[1,1,64]
// torch.inputs: x=f32[1,13,200] y=f32[1,7,64]
// torch.call: (module.apply(lambda m: [p.data.copy_(p.data.bfloat16().float()) for p in m.parameters(recurse=False) if p.dim() == 2]), module["b"](torch.relu(module["a"](x))), module["c"](torch.relu(module["a"](x))), module["enc"](y))[1:]
//
// --gemm-weights=bf16: every linear layer's weights packed as bf16 (rounded
// to nearest even at compile time), widened to f32 in registers, products
// accumulated in f32. The reference rounds PyTorch's weight matrices to
// bf16 first, so the results agree to f32 tolerance: the rounding is
// bf16's, and nothing else changes. GEMMs with an epilogue (ReLU), a bias
// init, attention's Q, K and V written as heads (attune-pack-head-gemms),
// an encoder's two layers compiled once with each call's panels rounded in
// the caller (attune-hoist-weight-preparation), and with external weights
// the rounding at run time; serial and on 2 threads.
// RUN: %check-golden %s --work %t/serial --atol 3e-5 --compile-arg=--gemm-weights=bf16
// RUN: %check-golden %s --work %t/parallel --atol 3e-5 --compile-arg=--gemm-weights=bf16 --compile-arg=--parallel --run-arg=--threads --run-arg=2
// RUN: %check-golden %s --work %t/external --atol 3e-5 --compile-arg=--gemm-weights=bf16 --compile-arg=--weights-external
// The panels are bf16 constants (the layer's arrive as bf16 arguments), the
// GEMM widens them by a shift; no rounding is left for run time. On
// 512-bit vectors the panels are k-pairs (widen_pairs: a shift and a mask
// widen a panel row's pairs; K = 200 as 100 pairs); on AVX2 one weight per
// 16-bit lane (a vpmovzxwd and a shift). The golden runs above take
// whichever the host has; bf16-without-avx512bf16.test runs the AVX2 form.
// RUN: attune-compile %s --weights %golden/gemm-weights-bf16/weights.safetensors --cpu=icelake-server --gemm-weights=bf16 --emit=linalg | FileCheck %s
// RUN: attune-compile %s --weights %golden/gemm-weights-bf16/weights.safetensors --cpu=haswell --gemm-weights=bf16 --emit=linalg | FileCheck %s --check-prefix=AVX2
// AVX2:        arith.constant dense_resource<a.weight_t_p24_bf16> : tensor<14x200x24xbf16>
// CHECK-LABEL: func.func @forward(
// CHECK:       arith.constant dense_resource<a.weight_t_p64x2_bf16> : tensor<6x100x64x2xbf16>
// CHECK-NOT:   arith.truncf
// CHECK:       arith.shli
// CHECK-LABEL: func.func private @forward_encoder_layer(
// CHECK-SAME:  bf16>
// CHECK-NOT:   arith.truncf
// CHECK:       return
// Anything but f32, bf16 or f16 is refused.
// RUN: not attune-compile %s --gemm-weights=f8 -o %t/x.so 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: error: --gemm-weights=f8: expected f32, bf16 or f16

func.func @forward(%x: tensor<?x?x200xf32> {attune.name = "x"}, %y: tensor<?x?x64xf32> {attune.name = "y"})
    -> (tensor<?x?x96xf32>, tensor<?x?x2xf32>, tensor<?x?x64xf32>) {
  %wa = attune.weight "a.weight" : tensor<333x200xf32>
  %ba = attune.weight "a.bias" : tensor<333xf32>
  %wb = attune.weight "b.weight" : tensor<96x333xf32>
  %bb = attune.weight "b.bias" : tensor<96xf32>
  %h = attune.linear %x, %wa, %ba {activation = #attune.activation<relu>} : (tensor<?x?x200xf32>, tensor<333x200xf32>, tensor<333xf32>) -> tensor<?x?x333xf32>
  %g = attune.linear %h, %wb, %bb : (tensor<?x?x333xf32>, tensor<96x333xf32>, tensor<96xf32>) -> tensor<?x?x96xf32>
  %wc = attune.weight "c.weight" : tensor<2x333xf32>
  %bc = attune.weight "c.bias" : tensor<2xf32>
  %c = attune.linear %h, %wc, %bc : (tensor<?x?x333xf32>, tensor<2x333xf32>, tensor<2xf32>) -> tensor<?x?x2xf32>
  %e = attune.repeat %y {count = 2 : i64, prefix = "enc.layers.{i}."}
      : (tensor<?x?x64xf32>) -> tensor<?x?x64xf32> {
  ^bb0(%s: tensor<?x?x64xf32>):
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
    %o = attune.encoder_layer %s
        self_attn(%w1, %w2, %w3, %w4) linear1(%w5, %w6) linear2(%w7, %w8)
        norm1(%w9, %w10) norm2(%w11, %w12) {num_heads = 2 : i64}
        : (tensor<?x?x64xf32>, tensor<192x64xf32>, tensor<192xf32>, tensor<64x64xf32>, tensor<64xf32>,
           tensor<128x64xf32>, tensor<128xf32>, tensor<64x128xf32>, tensor<64xf32>,
           tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<?x?x64xf32>
    attune.yield %o : tensor<?x?x64xf32>
  }
  return %g, %c, %e : tensor<?x?x96xf32>, tensor<?x?x2xf32>, tensor<?x?x64xf32>
}
