// torch.module: nn.ModuleDict({"a": nn.Linear(200, 334), "b": nn.Linear(334, 96), "enc": nn.TransformerEncoder(nn.TransformerEncoderLayer(d_model=64, nhead=2, dim_feedforward=128, dropout=0.0, activation=lambda t: torch.relu(t)), num_layers=2, enable_nested_tensor=False)})
// torch.inputs: x=f32[1,130,200] y=f32[2,19,64]
// torch.inputs: x=f32[2,1,200] y=f32[1,1,64]
// torch.inputs: x=f32[1,13,200] y=f32[7,1,64]
// torch.call: ref.bf16_gemms(lambda: (module["b"](torch.relu(module["a"](x))), module["enc"](y.transpose(0, 1)).transpose(0, 1)))
//
// --gemm-compute=bf16: both operands of every linear layer's GEMM rounded
// to bf16 (the weights at compile time, packed as k-pairs [N/64, K/2, 64,
// 2]; A by a row kernel in front of the GEMM), products summed in f32 by
// vdpbf16ps where the CPU has AVX512-BF16, by FMAs elsewhere. The
// reference (ref.bf16_gemms) rounds the same operands in PyTorch, so what
// is left is the order of the f32 sums, and the rare input whose f32 value
// differs in its last bits from PyTorch's and rounds to the neighbouring
// bf16 (2^-8 relative; hence atol 2e-3 on outputs of order 1). GEMMs with
// an epilogue (ReLU), a bias init, N not a multiple of the panel (334),
// attention's Q, K and V written as heads (attune-pack-head-gemms), the
// encoder's two layers compiled once, external weights; serial and on 2
// threads; and the FMA form of a CPU without AVX512-BF16 (x86-64-v3 code,
// 8 lanes: runs on any AVX2 machine).
// RUN: %check-golden %s --work %t/serial --atol 1e-2 --compile-arg=--gemm-compute=bf16
// RUN: %check-golden %s --work %t/parallel --atol 1e-2 --compile-arg=--gemm-compute=bf16 --compile-arg=--parallel --run-arg=--threads --run-arg=2
// RUN: %check-golden %s --work %t/external --atol 1e-2 --compile-arg=--gemm-compute=bf16 --compile-arg=--weights-external
// RUN: %check-golden %s --work %t/fma --atol 1e-2 --compile-arg=--gemm-compute=bf16 --compile-arg=--cpu=x86-64-v3
// The check can fail: the f32 GEMMs miss this reference by 1.7-2.8e-2.
// RUN: not %check-golden %s --work %t/f32 --atol 1e-2
// Bad flags.
// RUN: not attune-compile %s --gemm-compute=f16 -o %t/x.so 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: error: --gemm-compute=f16: expected f32 or bf16
// RUN: not attune-compile %s --gemm-compute=bf16 --gemm-weights=f16 -o %t/x.so 2>&1 | FileCheck %s --check-prefix=MIXED
// MIXED: error: --gemm-compute=bf16 stores the weights as bf16; --gemm-weights=f16 contradicts it
// RUN: not attune-compile %s --target=vulkan --gemm-compute=bf16 -o %t/x.so 2>&1 | FileCheck %s --check-prefix=VULKAN
// VULKAN: error: --gemm-compute is a CPU option; --target=vulkan computes in f32

func.func @forward(%x: tensor<?x?x200xf32> {attune.name = "x"}, %y: tensor<?x?x64xf32> {attune.name = "y"})
    -> (tensor<?x?x96xf32>, tensor<?x?x64xf32>) {
  %wa = attune.weight "a.weight" : tensor<334x200xf32>
  %ba = attune.weight "a.bias" : tensor<334xf32>
  %wb = attune.weight "b.weight" : tensor<96x334xf32>
  %bb = attune.weight "b.bias" : tensor<96xf32>
  %h = attune.linear %x, %wa, %ba {activation = #attune.activation<relu>} : (tensor<?x?x200xf32>, tensor<334x200xf32>, tensor<334xf32>) -> tensor<?x?x334xf32>
  %g = attune.linear %h, %wb, %bb : (tensor<?x?x334xf32>, tensor<96x334xf32>, tensor<96xf32>) -> tensor<?x?x96xf32>
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
  return %g, %e : tensor<?x?x96xf32>, tensor<?x?x64xf32>
}
