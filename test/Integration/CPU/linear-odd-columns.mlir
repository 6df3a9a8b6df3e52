// torch.module: nn.ModuleDict({"a": nn.Linear(200, 333), "b": nn.Linear(333, 97), "c": nn.Linear(97, 45), "d": nn.Linear(45, 7, bias=False), "enc": nn.TransformerEncoder(nn.TransformerEncoderLayer(d_model=36, nhead=4, dim_feedforward=70, dropout=0.0, batch_first=True), num_layers=2, enable_nested_tensor=False)})
// torch.inputs: x=f32[1,300,200] y=f32[1,300,36]
// torch.inputs: x=f32[3,130,200] y=f32[2,19,36]
// torch.inputs: x=f32[2,5,200] y=f32[1,1,36]
// torch.call: (module["d"](module["c"](torch.nn.functional.gelu(module["b"](torch.relu(module["a"](x)))))), module["enc"](y))
//
// GEMMs whose N is no multiple of the register tile's width (64 or 32):
// the last weight panel is zero-padded and the GEMM computes whole panels
// (attune-pack-gemms), instead of falling back to a plain contraction 40x
// slower. A ReLU epilogue after 200 -> 333 (a panel-major intermediate),
// GELU after 333 -> 97 (row-major), a bias init after 97 -> 45, no bias
// after 45 -> 7; and an nn.TransformerEncoder of d_model 36 (Q, K, V of
// 108 columns, a feed-forward of 70): its two layers compiled once, each
// call's weights padded and packed at compile time
// (attune-hoist-weight-preparation), or at run time with
// --weights-external. Serial, on 2 threads and with external weights,
// against PyTorch.
// RUN: %check-golden %s --work %t/serial --atol 2e-5
// RUN: %check-golden %s --work %t/parallel --atol 2e-5 --compile-arg=--parallel --run-arg=--threads --run-arg=2
// RUN: %check-golden %s --work %t/external --atol 2e-5 --compile-arg=--weights-external
// Other targets' tiles (attune-select-cpu-tiling's model; every project
// machine runs these ISAs): AVX2's 2 x 32 register tiles, SSE's 2 x 16
// ones (Zen 4's k tiles of 64, AVX-512 code: linear-odd-columns-znver4.test).
// RUN: %check-golden %s --work %t/haswell --atol 2e-5 --compile-arg=--cpu=haswell
// RUN: %check-golden %s --work %t/sse --atol 2e-5 --compile-arg=--cpu=x86-64-v2
// The padding happens once, on the constants: no tensor.pad is left in the
// entry point or the compiled layer, which receives Q, K and V's weights as
// two zero-padded panels of 64 columns and their bias as 128 floats.
// RUN: attune-compile %s --weights %golden/linear-odd-columns/weights.safetensors --cpu=icelake-server --emit=linalg | FileCheck %s
// CHECK-LABEL: func.func @forward(
// CHECK-NOT:   tensor.pad
// CHECK-LABEL: func.func private @forward_encoder_layer(
// CHECK-SAME:  tensor<2x36x64xf32>, %{{.*}}: tensor<128xf32>
// CHECK-NOT:   tensor.pad
// CHECK:       return

func.func @forward(%x: tensor<?x?x200xf32> {attune.name = "x"}, %y: tensor<?x?x36xf32> {attune.name = "y"})
    -> (tensor<?x?x7xf32>, tensor<?x?x36xf32>) {
  %wa = attune.weight "a.weight" : tensor<333x200xf32>
  %ba = attune.weight "a.bias" : tensor<333xf32>
  %wb = attune.weight "b.weight" : tensor<97x333xf32>
  %bb = attune.weight "b.bias" : tensor<97xf32>
  %wc = attune.weight "c.weight" : tensor<45x97xf32>
  %bc = attune.weight "c.bias" : tensor<45xf32>
  %wd = attune.weight "d.weight" : tensor<7x45xf32>
  %h = attune.linear %x, %wa, %ba {activation = #attune.activation<relu>} : (tensor<?x?x200xf32>, tensor<333x200xf32>, tensor<333xf32>) -> tensor<?x?x333xf32>
  %g = attune.linear %h, %wb, %bb {activation = #attune.activation<gelu>} : (tensor<?x?x333xf32>, tensor<97x333xf32>, tensor<97xf32>) -> tensor<?x?x97xf32>
  %c = attune.linear %g, %wc, %bc : (tensor<?x?x97xf32>, tensor<45x97xf32>, tensor<45xf32>) -> tensor<?x?x45xf32>
  %d = attune.linear %c, %wd : (tensor<?x?x45xf32>, tensor<7x45xf32>) -> tensor<?x?x7xf32>
  %e = attune.repeat %y {count = 2 : i64, prefix = "enc.layers.{i}."}
      : (tensor<?x?x36xf32>) -> tensor<?x?x36xf32> {
  ^bb0(%s: tensor<?x?x36xf32>):
    %w1 = attune.weight "self_attn.in_proj_weight" : tensor<108x36xf32>
    %w2 = attune.weight "self_attn.in_proj_bias" : tensor<108xf32>
    %w3 = attune.weight "self_attn.out_proj.weight" : tensor<36x36xf32>
    %w4 = attune.weight "self_attn.out_proj.bias" : tensor<36xf32>
    %w5 = attune.weight "linear1.weight" : tensor<70x36xf32>
    %w6 = attune.weight "linear1.bias" : tensor<70xf32>
    %w7 = attune.weight "linear2.weight" : tensor<36x70xf32>
    %w8 = attune.weight "linear2.bias" : tensor<36xf32>
    %w9 = attune.weight "norm1.weight" : tensor<36xf32>
    %w10 = attune.weight "norm1.bias" : tensor<36xf32>
    %w11 = attune.weight "norm2.weight" : tensor<36xf32>
    %w12 = attune.weight "norm2.bias" : tensor<36xf32>
    %o = attune.encoder_layer %s
        self_attn(%w1, %w2, %w3, %w4) linear1(%w5, %w6) linear2(%w7, %w8)
        norm1(%w9, %w10) norm2(%w11, %w12) {num_heads = 4 : i64}
        : (tensor<?x?x36xf32>, tensor<108x36xf32>, tensor<108xf32>, tensor<36x36xf32>, tensor<36xf32>,
           tensor<70x36xf32>, tensor<70xf32>, tensor<36x70xf32>, tensor<36xf32>,
           tensor<36xf32>, tensor<36xf32>, tensor<36xf32>, tensor<36xf32>) -> tensor<?x?x36xf32>
    attune.yield %o : tensor<?x?x36xf32>
  }
  return %d, %e : tensor<?x?x7xf32>, tensor<?x?x36xf32>
}
