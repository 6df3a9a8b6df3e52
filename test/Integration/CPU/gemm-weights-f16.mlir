// torch.module: nn.ModuleDict({"a": nn.Linear(200, 333), "b": nn.Linear(333, 96), "c": nn.Linear(333, 2), "enc": nn.TransformerEncoder(nn.TransformerEncoderLayer(d_model=64, nhead=2, dim_feedforward=128, dropout=0.0, batch_first=True), num_layers=2, enable_nested_tensor=False)})
// torch.inputs: x=f32[1,130,200] y=f32[2,19,64]
// torch.inputs: x=f32[2,1,200] y=f32[1,1,64]
// torch.inputs: x=f32[1,13,200] y=f32[1,7,64]
// torch.call: (module.apply(lambda m: [p.data.copy_(p.data.half().float()) for p in m.parameters(recurse=False) if p.dim() == 2]), module["b"](torch.relu(module["a"](x))), module["c"](torch.relu(module["a"](x))), module["enc"](y))[1:]
//
// --gemm-weights=f16: every linear layer's weights packed as f16 (rounded
// to nearest even at compile time), widened to f32 in registers
// (vcvtph2ps), products accumulated in f32. The reference rounds PyTorch's
// weight matrices to f16 first, so the results agree to f32 tolerance: the
// rounding is f16's, and nothing else changes. GEMMs with an epilogue
// (ReLU), a bias init, attention's Q, K and V written as heads
// (attune-pack-head-gemms), an encoder's two layers compiled once with each
// call's panels rounded in the caller (attune-hoist-weight-preparation);
// serial, on 2 threads, and for a CPU without F16C (x86-64: libgcc's
// __extendhfsf2 widens them).
// RUN: %check-golden %s --work %t/serial --atol 3e-5 --compile-arg=--gemm-weights=f16
// RUN: %check-golden %s --work %t/parallel --atol 3e-5 --compile-arg=--gemm-weights=f16 --compile-arg=--parallel --run-arg=--threads --run-arg=2
// RUN: %check-golden %s --work %t/x86-64 --atol 3e-5 --compile-arg=--gemm-weights=f16 --compile-arg=--cpu=x86-64
// The panels are f16 constants (the layer's arrive as f16 arguments), the
// GEMM widens them with extf; no rounding is left for run time.
// RUN: attune-compile %s --weights %golden/gemm-weights-f16/weights.safetensors --cpu=icelake-server --gemm-weights=f16 --emit=linalg | FileCheck %s
// CHECK-LABEL: func.func @forward(
// CHECK:       arith.constant dense_resource<a.weight_t_p64_f16> : tensor<6x200x64xf16>
// CHECK-NOT:   arith.truncf
// CHECK:       arith.extf {{.*}}xf16> to vector<{{.*}}xf32>
// CHECK-LABEL: func.func private @forward_encoder_layer(
// CHECK-SAME:  f16>
// CHECK-NOT:   arith.truncf
// CHECK:       return
// Each panel row is widened once, as a whole vector (attune-tile-gemm's
// vector.sink_ops), not element by element after its broadcast over the
// register tile's rows.
// RUN: attune-compile %s --weights %golden/gemm-weights-f16/weights.safetensors --cpu=icelake-server --gemm-weights=f16 --emit=llvm-ir | FileCheck %s --check-prefix=WIDEN --implicit-check-not="fpext half" --implicit-check-not="fpext <1 x half>"
// WIDEN: fpext <64 x half>
//
// f16 reaches 65504: a weight beyond that is an error naming it and the
// value (a linear layer's, and a layer function's, rounded in its caller),
// as is a model whose weights are known only at run time.
// RUN: %python %S/Inputs/set-weight.py %golden/gemm-weights-f16/weights.safetensors %t/big-a.safetensors a.weight 5 -70000
// RUN: not attune-compile %s --weights %t/big-a.safetensors --gemm-weights=f16 -o %t/x.so 2>&1 | FileCheck %s --check-prefix=RANGE-A
// RANGE-A: gemm-weights-f16.mlir:[[@LINE+50]]:{{[0-9]+}}: error: f16 weight panels (--gemm-weights=f16): weight 'a.weight' holds -70000, beyond f16's range (largest finite value 65504); --gemm-weights=bf16 keeps f32's range
// RUN: %python %S/Inputs/set-weight.py %golden/gemm-weights-f16/weights.safetensors %t/big-l.safetensors enc.layers.1.linear2.weight 3 65520
// RUN: not attune-compile %s --weights %t/big-l.safetensors --gemm-weights=f16 -o %t/x.so 2>&1 | FileCheck %s --check-prefix=RANGE-L
// RANGE-L: error: f16 weight panels (--gemm-weights=f16): weight 'enc.layers.1.linear2.weight' holds 65520, beyond f16's range
// 65504 itself (and 65519, which rounds to it) is f16's.
// RUN: %python %S/Inputs/set-weight.py %golden/gemm-weights-f16/weights.safetensors %t/max.safetensors enc.layers.1.linear2.weight 3 65519
// RUN: attune-compile %s --weights %t/max.safetensors --gemm-weights=f16 -o %t/max.so
//
// External weights are rounded when the model loads (with their packing,
// by the library's weight preparation: attune-prepare-weights-at-load): the
// library records which (metadata `weight-f16`), and the runtime checks
// their range at load, before it prepares them. Only the preparation reads
// the GEMM weights (`weight-prepared`); the biases are read as they are.
// RUN: %check-golden %s --work %t/external --atol 3e-5 --compile-arg=--gemm-weights=f16 --compile-arg=--weights-external
// RUN: strings %t/external/gemm-weights-f16.so | FileCheck %s --check-prefix=RECORDS
// RECORDS:      weight attune_weight_0 a.weight f32 2 333 200
// RECORDS-NEXT: weight-f16
// RECORDS-NEXT: weight-prepared
// RECORDS-NEXT: weight attune_weight_1 a.bias f32 1 333
// RECORDS-NEXT: weight attune_weight_2 b.weight f32 2 96 333
// RECORDS-NEXT: weight-f16
// RECORDS-NEXT: weight-prepared
// RECORDS:      weight attune_weight_4 c.weight f32 2 2 333
// RECORDS-NEXT: weight-f16
// RECORDS-NEXT: weight-prepared
// RECORDS:      weight attune_weight_6 enc.layers.0.self_attn.in_proj_weight f32 2 192 64
// RECORDS-NEXT: weight-f16
// RECORDS-NEXT: weight-prepared
// RECORDS:      prepare-weights attune_weight_0
// RECORDS-NEXT: prepare-weights attune_weight_1
// RECORDS-NEXT: prepare-weights attune_weight_2
// RUN: not attune-run %t/external/gemm-weights-f16.so --weights %t/big-l.safetensors --input x=%golden/gemm-weights-f16/case0/x.npy --input y=%golden/gemm-weights-f16/case0/y.npy 2>&1 | FileCheck %s --check-prefix=LOAD
// LOAD: error: {{.*}}gemm-weights-f16.so: weight 'enc.layers.1.linear2.weight' holds 65520 in {{.*}}big-l.safetensors, beyond f16's range (largest finite value 65504): the model stores it as f16 (compiled with --gemm-weights=f16; bf16 keeps f32's range)
// RUN: attune-run %t/external/gemm-weights-f16.so --weights %t/max.safetensors --input x=%golden/gemm-weights-f16/case0/x.npy --input y=%golden/gemm-weights-f16/case0/y.npy
//
// With the heads' GEMM (attune-pack-head-gemms: a head of the panel's
// width, as on AVX2), the layer's Q/K/V panels are rounded in the callers
// too, not at each call.
// RUN: attune-compile %s --weights %golden/gemm-weights-f16/weights.safetensors --cpu=znver3 --gemm-weights=f16 --emit=linalg | FileCheck %s --check-prefix=HEADS
// HEADS-LABEL: func.func private @forward_encoder_layer(
// HEADS-SAME:  tensor<2x64x32xf16>, %{{.*}}: tensor<2x64x32xf16>, %{{.*}}: tensor<2x64x32xf16>
// HEADS-NOT:   arith.truncf
// HEADS:       return

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
