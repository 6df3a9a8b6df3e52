// RUN: attune-opt %s | attune-opt | FileCheck %s
// RUN: attune-opt %s --mlir-print-op-generic | attune-opt | FileCheck %s

// CHECK-LABEL: func @weight
// CHECK: attune.weight "encoder.layers.0.linear1.weight" : tensor<128x64xf32>
// CHECK: attune.weight "norm.bias" : tensor<64xbf16>
func.func @weight() -> (tensor<128x64xf32>, tensor<64xbf16>) {
  %0 = attune.weight "encoder.layers.0.linear1.weight" : tensor<128x64xf32>
  %1 = attune.weight "norm.bias" : tensor<64xbf16>
  return %0, %1 : tensor<128x64xf32>, tensor<64xbf16>
}

// CHECK-LABEL: func @linear
// CHECK: attune.linear %{{.*}}, %{{.*}}, %{{.*}} : (tensor<?x16x64xf32>, tensor<128x64xf32>, tensor<128xf32>) -> tensor<?x16x128xf32>
// CHECK: attune.linear %{{.*}}, %{{.*}} : (tensor<64xf16>, tensor<8x64xf16>) -> tensor<8xf16>
// CHECK: attune.linear %{{.*}}, %{{.*}}, %{{.*}} {activation = #attune.activation<gelu>} : (tensor<?x16x64xf32>, tensor<128x64xf32>, tensor<128xf32>) -> tensor<?x16x128xf32>
func.func @linear(%x: tensor<?x16x64xf32>, %w: tensor<128x64xf32>, %b: tensor<128xf32>,
                  %y: tensor<64xf16>, %w2: tensor<8x64xf16>) -> (tensor<?x16x128xf32>, tensor<8xf16>, tensor<?x16x128xf32>) {
  %0 = attune.linear %x, %w, %b : (tensor<?x16x64xf32>, tensor<128x64xf32>, tensor<128xf32>) -> tensor<?x16x128xf32>
  %1 = attune.linear %y, %w2 : (tensor<64xf16>, tensor<8x64xf16>) -> tensor<8xf16>
  %2 = attune.linear %x, %w, %b {activation = #attune.activation<gelu>} : (tensor<?x16x64xf32>, tensor<128x64xf32>, tensor<128xf32>) -> tensor<?x16x128xf32>
  return %0, %1, %2 : tensor<?x16x128xf32>, tensor<8xf16>, tensor<?x16x128xf32>
}

// A static result type may refine an inferred dynamic extent.
// CHECK-LABEL: func @linear_refined
// CHECK: -> tensor<4x8xf32>
func.func @linear_refined(%x: tensor<?x16xf32>, %w: tensor<8x16xf32>) -> tensor<4x8xf32> {
  %0 = attune.linear %x, %w : (tensor<?x16xf32>, tensor<8x16xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// CHECK-LABEL: func @matmul
// CHECK: attune.matmul %{{.*}}, %{{.*}} {transpose_rhs} : (tensor<2x4x?x16xf32>, tensor<2x4x?x16xf32>) -> tensor<2x4x?x?xf32>
// CHECK: attune.matmul %{{.*}}, %{{.*}} {transpose_lhs} : (tensor<3x5x7xf32>, tensor<5x2xf32>) -> tensor<3x7x2xf32>
// CHECK: attune.matmul %{{.*}}, %{{.*}} : (tensor<1x8x16xbf16>, tensor<4x16x2xbf16>) -> tensor<4x8x2xbf16>
func.func @matmul(%a: tensor<2x4x?x16xf32>, %b: tensor<2x4x?x16xf32>, %c: tensor<3x5x7xf32>, %d: tensor<5x2xf32>,
                  %e: tensor<1x8x16xbf16>, %f: tensor<4x16x2xbf16>) {
  %0 = attune.matmul %a, %b {transpose_rhs} : (tensor<2x4x?x16xf32>, tensor<2x4x?x16xf32>) -> tensor<2x4x?x?xf32>
  %1 = attune.matmul %c, %d {transpose_lhs} : (tensor<3x5x7xf32>, tensor<5x2xf32>) -> tensor<3x7x2xf32>
  %2 = attune.matmul %e, %f : (tensor<1x8x16xbf16>, tensor<4x16x2xbf16>) -> tensor<4x8x2xbf16>
  return
}

// CHECK-LABEL: func @shapes
// CHECK: attune.transpose %{{.*}} {permutation = array<i64: 0, 2, 1, 3>} : (tensor<?x?x4x16xf32>) -> tensor<?x4x?x16xf32>
// CHECK: attune.split_heads %{{.*}} {num_heads = 4 : i64} : (tensor<?x?x64xf32>) -> tensor<?x4x?x16xf32>
// CHECK: attune.merge_heads %{{.*}} : (tensor<?x4x?x16xf32>) -> tensor<?x?x64xf32>
// CHECK: attune.slice %{{.*}} {axis = -1 : i64, offset = 64 : i64, size = 64 : i64} : (tensor<?x?x192xf32>) -> tensor<?x?x64xf32>
// CHECK: attune.expand_dims %{{.*}} {axis = 2 : i64} : (tensor<?x?x32xf32>) -> tensor<?x?x1x32xf32>
// CHECK: attune.squeeze %{{.*}} {axis = -1 : i64} : (tensor<?x?x?x1xf32>) -> tensor<?x?x?xf32>
// CHECK: attune.concat %{{.*}}, %{{.*}} {axis = -1 : i64} : (tensor<?x?x192xf32>, tensor<?x?x64xf32>) -> tensor<?x?x256xf32>
// CHECK: attune.concat %{{.*}}, %{{.*}}, %{{.*}} {axis = 1 : i64} : (tensor<?x?x64xf32>, tensor<?x?x64xf32>, tensor<?x4x64xf32>) -> tensor<?x?x64xf32>
// CHECK: attune.concat %{{.*}}, %{{.*}} {axis = 0 : i64} : (tensor<2x3xbf16>, tensor<5x3xbf16>) -> tensor<7x3xbf16>
// CHECK: attune.concat %{{.*}} {axis = 0 : i64} : (tensor<?x?x64xf32>) -> tensor<?x?x64xf32>
func.func @shapes(%a: tensor<?x?x4x16xf32>, %b: tensor<?x?x64xf32>, %c: tensor<?x4x?x16xf32>,
                  %d: tensor<?x?x192xf32>, %e: tensor<?x?x32xf32>, %f: tensor<?x?x?x1xf32>) {
  %0 = attune.transpose %a {permutation = array<i64: 0, 2, 1, 3>} : (tensor<?x?x4x16xf32>) -> tensor<?x4x?x16xf32>
  %1 = attune.split_heads %b {num_heads = 4 : i64} : (tensor<?x?x64xf32>) -> tensor<?x4x?x16xf32>
  %2 = attune.merge_heads %c : (tensor<?x4x?x16xf32>) -> tensor<?x?x64xf32>
  %3 = attune.slice %d {axis = -1 : i64, offset = 64 : i64, size = 64 : i64} : (tensor<?x?x192xf32>) -> tensor<?x?x64xf32>
  %4 = attune.expand_dims %e {axis = 2 : i64} : (tensor<?x?x32xf32>) -> tensor<?x?x1x32xf32>
  %5 = attune.squeeze %f {axis = -1 : i64} : (tensor<?x?x?x1xf32>) -> tensor<?x?x?xf32>
  %6 = attune.concat %d, %b {axis = -1 : i64} : (tensor<?x?x192xf32>, tensor<?x?x64xf32>) -> tensor<?x?x256xf32>
  %g = tensor.empty() : tensor<3x4x64xf32>
  %gd = tensor.cast %g : tensor<3x4x64xf32> to tensor<?x4x64xf32>
  %7 = attune.concat %b, %b, %gd {axis = 1 : i64} : (tensor<?x?x64xf32>, tensor<?x?x64xf32>, tensor<?x4x64xf32>) -> tensor<?x?x64xf32>
  %h = tensor.empty() : tensor<2x3xbf16>
  %i = tensor.empty() : tensor<5x3xbf16>
  %8 = attune.concat %h, %i {axis = 0 : i64} : (tensor<2x3xbf16>, tensor<5x3xbf16>) -> tensor<7x3xbf16>
  %9 = attune.concat %b {axis = 0 : i64} : (tensor<?x?x64xf32>) -> tensor<?x?x64xf32>
  return
}

// CHECK-LABEL: func @cast
// CHECK: attune.cast %{{.*}} : tensor<?x64xf32> to tensor<?x64xf16>
// CHECK: attune.cast %{{.*}} : tensor<64x32xbf16> to tensor<64x32xf32>
// CHECK: attune.cast %{{.*}} : tensor<?xi64> to tensor<?xf32>
func.func @cast(%x: tensor<?x64xf32>, %w: tensor<64x32xbf16>, %n: tensor<?xi64>) {
  %0 = attune.cast %x : tensor<?x64xf32> to tensor<?x64xf16>
  %1 = attune.cast %w : tensor<64x32xbf16> to tensor<64x32xf32>
  %2 = attune.cast %n : tensor<?xi64> to tensor<?xf32>
  return
}

// CHECK-LABEL: func @mask_bias
// CHECK: attune.mask_bias %{{.*}} : tensor<?x?xi1> to tensor<?x?xf32>
// CHECK: attune.mask_bias %{{.*}} : tensor<2x1x1x5xi1> to tensor<2x1x1x5xf16>
func.func @mask_bias(%m: tensor<?x?xi1>, %k: tensor<2x1x1x5xi1>) {
  %0 = attune.mask_bias %m : tensor<?x?xi1> to tensor<?x?xf32>
  %1 = attune.mask_bias %k : tensor<2x1x1x5xi1> to tensor<2x1x1x5xf16>
  return
}

// CHECK-LABEL: func @math
// CHECK: attune.unary <erf> %{{.*}} : tensor<?x128xf32>
// CHECK: attune.unary <reciprocal> %{{.*}} : tensor<4xbf16>
// CHECK: attune.binary <pow> %{{.*}}, %{{.*}} : (tensor<?x128xf32>, tensor<f32>) -> tensor<?x128xf32>
// CHECK: attune.binary <max> %{{.*}}, %{{.*}} : (tensor<?x1xf32>, tensor<?x128xf32>) -> tensor<?x128xf32>
// CHECK: attune.compare <eq> %{{.*}}, %{{.*}} : (tensor<?x?xi64>, tensor<i64>) -> tensor<?x?xi1>
// CHECK: attune.compare <ge> %{{.*}}, %{{.*}} : (tensor<?x128xf32>, tensor<f32>) -> tensor<?x128xi1>
// CHECK: attune.select %{{.*}}, %{{.*}}, %{{.*}} : (tensor<?x128xi1>, tensor<?x128xf32>, tensor<f32>) -> tensor<?x128xf32>
// CHECK: attune.reduce <mean> %{{.*}} {axes = array<i64: -1>, keep_dims} : (tensor<?x128xf32>) -> tensor<?x1xf32>
// CHECK: attune.reduce <max> %{{.*}} {axes = array<i64: 0, 1>} : (tensor<?x128xf32>) -> tensor<f32>
// CHECK: attune.gather %{{.*}}, %{{.*}} {axis = 1 : i64} : (tensor<?x128xf32>, tensor<3x2xi32>) -> tensor<?x3x2xf32>
// CHECK: attune.trilu %{{.*}} {diagonal = 1 : i64, upper} : tensor<?x128xf32>
// CHECK: attune.trilu %{{.*}} {diagonal = -2 : i64} : tensor<?x128xf32>
// CHECK: attune.compare <ne> %{{.*}}, %{{.*}} : (tensor<?x128xf32>, tensor<f32>) -> tensor<?x128xi1>
// CHECK: attune.cast %{{.*}} : tensor<?x128xi1> to tensor<?x128xf32>
// CHECK: attune.reshape %{{.*}} : tensor<?x128xf32> to tensor<?x2x64xf32>
// CHECK: attune.reshape %{{.*}} : tensor<?x?xi1> to tensor<?x1x?xi1>
// CHECK: attune.reshape %{{.*}} sizes(%{{.*}}) : tensor<?x128xf32> to tensor<?xf32>
// CHECK: attune.broadcast %{{.*}} sizes(%{{.*}}) : tensor<128xf32> to tensor<?x128xf32>
// CHECK: attune.select %{{.*}}, %{{.*}}, %{{.*}} : (tensor<?x?xi1>, tensor<?x?xi64>, tensor<i64>) -> tensor<?x?xi64>
// CHECK: attune.trilu %{{.*}} {diagonal = 1 : i64, upper} : tensor<?x?xi1>
func.func @math(%x: tensor<?x128xf32>, %h: tensor<4xbf16>, %s: tensor<f32>,
                %c: tensor<?x1xf32>, %ids: tensor<?x?xi64>, %pad: tensor<i64>,
                %idx: tensor<3x2xi32>) {
  %0 = attune.unary <erf> %x : tensor<?x128xf32>
  %1 = attune.unary <reciprocal> %h : tensor<4xbf16>
  %2 = attune.binary <pow> %x, %s : (tensor<?x128xf32>, tensor<f32>) -> tensor<?x128xf32>
  %3 = attune.binary <max> %c, %x : (tensor<?x1xf32>, tensor<?x128xf32>) -> tensor<?x128xf32>
  %4 = attune.compare <eq> %ids, %pad : (tensor<?x?xi64>, tensor<i64>) -> tensor<?x?xi1>
  %5 = attune.compare <ge> %x, %s : (tensor<?x128xf32>, tensor<f32>) -> tensor<?x128xi1>
  %6 = attune.select %5, %x, %s : (tensor<?x128xi1>, tensor<?x128xf32>, tensor<f32>) -> tensor<?x128xf32>
  %7 = attune.reduce <mean> %x {axes = array<i64: -1>, keep_dims} : (tensor<?x128xf32>) -> tensor<?x1xf32>
  %8 = attune.reduce <max> %x {axes = array<i64: 0, 1>} : (tensor<?x128xf32>) -> tensor<f32>
  %9 = attune.gather %x, %idx {axis = 1 : i64} : (tensor<?x128xf32>, tensor<3x2xi32>) -> tensor<?x3x2xf32>
  %10 = attune.trilu %x {upper, diagonal = 1 : i64} : tensor<?x128xf32>
  %11 = attune.trilu %x {diagonal = -2 : i64} : tensor<?x128xf32>
  %12 = attune.compare <ne> %x, %s : (tensor<?x128xf32>, tensor<f32>) -> tensor<?x128xi1>
  %13 = attune.cast %12 : tensor<?x128xi1> to tensor<?x128xf32>
  %14 = attune.reshape %x : tensor<?x128xf32> to tensor<?x2x64xf32>
  %15 = attune.reshape %4 : tensor<?x?xi1> to tensor<?x1x?xi1>
  %n = arith.constant 256 : index
  %17 = attune.reshape %x sizes(%n) : tensor<?x128xf32> to tensor<?xf32>
  %v = arith.constant dense<1.0> : tensor<128xf32>
  %18 = attune.broadcast %v sizes(%n) : tensor<128xf32> to tensor<?x128xf32>
  %16 = attune.select %4, %ids, %pad : (tensor<?x?xi1>, tensor<?x?xi64>, tensor<i64>) -> tensor<?x?xi64>
  %19 = attune.trilu %4 {upper, diagonal = 1 : i64} : tensor<?x?xi1>
  return
}

// CHECK-LABEL: func @elementwise
// CHECK: attune.activation <relu> %{{.*}} : tensor<?x128xf32>
// CHECK: attune.activation <gelu> %{{.*}} : tensor<?x128xf32>
// CHECK: attune.activation <gelu_tanh> %{{.*}} : tensor<?x128xf32>
// CHECK: attune.activation <tanh> %{{.*}} : tensor<?x128xf32>
// CHECK: attune.activation <sigmoid> %{{.*}} : tensor<?x128xf32>
// CHECK: attune.activation <silu> %{{.*}} : tensor<?x128xf32>
// CHECK: attune.scale %{{.*}} {factor = 8.000000e+00 : f64} : tensor<?x128xf32>
// CHECK: attune.softmax %{{.*}} : tensor<?x128xf32>
// CHECK: attune.softmax %{{.*}} {axis = 0 : i64} : tensor<?x128xf32>
// CHECK: attune.add %{{.*}}, %{{.*}} : (tensor<?x128xf32>, tensor<128xf32>) -> tensor<?x128xf32>
// CHECK: attune.mul %{{.*}}, %{{.*}} : (tensor<4x1x8xf32>, tensor<3x1xf32>) -> tensor<4x3x8xf32>
func.func @elementwise(%x: tensor<?x128xf32>, %b: tensor<128xf32>, %p: tensor<4x1x8xf32>, %q: tensor<3x1xf32>) {
  %0 = attune.activation <relu> %x : tensor<?x128xf32>
  %1 = attune.activation <gelu> %x : tensor<?x128xf32>
  %2 = attune.activation <gelu_tanh> %x : tensor<?x128xf32>
  %3 = attune.activation <tanh> %x : tensor<?x128xf32>
  %4 = attune.activation <sigmoid> %x : tensor<?x128xf32>
  %5 = attune.activation <silu> %x : tensor<?x128xf32>
  %6 = attune.scale %x {factor = 8.0 : f64} : tensor<?x128xf32>
  %7 = attune.softmax %x : tensor<?x128xf32>
  %8 = attune.softmax %x {axis = 0 : i64} : tensor<?x128xf32>
  %9 = attune.add %x, %b : (tensor<?x128xf32>, tensor<128xf32>) -> tensor<?x128xf32>
  %10 = attune.mul %p, %q : (tensor<4x1x8xf32>, tensor<3x1xf32>) -> tensor<4x3x8xf32>
  return
}

// CHECK-LABEL: func @layer_norm
// CHECK: attune.layer_norm %{{.*}} weight(%{{.*}}) bias(%{{.*}}) : (tensor<?x16x64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<?x16x64xf32>
// CHECK: attune.layer_norm %{{.*}} {epsilon = 9.9999999999999995E-7 : f64, normalized_rank = 2 : i64} : (tensor<?x16x64xf32>) -> tensor<?x16x64xf32>
// CHECK: attune.layer_norm %{{.*}} bias(%{{.*}}) : (tensor<?x16x64xf32>, tensor<64xf32>) -> tensor<?x16x64xf32>
// CHECK: attune.layer_norm %{{.*}} residual(%{{.*}}) weight(%{{.*}}) bias(%{{.*}}) : (tensor<?x16x64xf32>, tensor<?x16x64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<?x16x64xf32>
// CHECK: attune.layer_norm %{{.*}} residual(%{{.*}}) : (tensor<?x16x64xf32>, tensor<?x16x64xf32>) -> tensor<?x16x64xf32>
func.func @layer_norm(%x: tensor<?x16x64xf32>, %g: tensor<64xf32>, %b: tensor<64xf32>) {
  %0 = attune.layer_norm %x weight(%g) bias(%b) : (tensor<?x16x64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<?x16x64xf32>
  %1 = attune.layer_norm %x {epsilon = 1.0e-6 : f64, normalized_rank = 2 : i64} : (tensor<?x16x64xf32>) -> tensor<?x16x64xf32>
  %2 = attune.layer_norm %x bias(%b) : (tensor<?x16x64xf32>, tensor<64xf32>) -> tensor<?x16x64xf32>
  %3 = attune.layer_norm %x residual(%0) weight(%g) bias(%b) : (tensor<?x16x64xf32>, tensor<?x16x64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<?x16x64xf32>
  %4 = attune.layer_norm %x residual(%1) : (tensor<?x16x64xf32>, tensor<?x16x64xf32>) -> tensor<?x16x64xf32>
  return
}

// CHECK-LABEL: func @embeddings
// CHECK: attune.embedding %{{.*}}, %{{.*}} : (tensor<?x?xi64>, tensor<1000x64xf32>) -> tensor<?x?x64xf32>
// CHECK: attune.embedding %{{.*}}, %{{.*}} : (tensor<7xi32>, tensor<1000x64xf32>) -> tensor<7x64xf32>
// CHECK: attune.positional_encoding <sinusoidal> %{{.*}} : (tensor<?x?x64xf32>) -> tensor<?x?x64xf32>
// CHECK: attune.positional_encoding <learned> %{{.*}}, %{{.*}} {offset = 3 : i64} : (tensor<?x?x64xf32>, tensor<512x64xf32>) -> tensor<?x?x64xf32>
// CHECK: attune.positional_encoding <learned> %{{.*}}, %{{.*}} offsets(%{{.*}}) : (tensor<?x?x64xf32>, tensor<512x64xf32>, tensor<?xi64>) -> tensor<?x?x64xf32>
// CHECK: attune.positional_encoding <sinusoidal> %{{.*}} offsets(%{{.*}}) : (tensor<?x?x64xf32>, tensor<?xi32>) -> tensor<?x?x64xf32>
func.func @embeddings(%ids: tensor<?x?xi64>, %ids32: tensor<7xi32>, %t: tensor<1000x64xf32>,
                      %x: tensor<?x?x64xf32>, %pe: tensor<512x64xf32>, %pos: tensor<?xi64>,
                      %pos32: tensor<?xi32>) {
  %0 = attune.embedding %ids, %t : (tensor<?x?xi64>, tensor<1000x64xf32>) -> tensor<?x?x64xf32>
  %1 = attune.embedding %ids32, %t : (tensor<7xi32>, tensor<1000x64xf32>) -> tensor<7x64xf32>
  %2 = attune.positional_encoding <sinusoidal> %x : (tensor<?x?x64xf32>) -> tensor<?x?x64xf32>
  %3 = attune.positional_encoding <learned> %x, %pe {offset = 3 : i64} : (tensor<?x?x64xf32>, tensor<512x64xf32>) -> tensor<?x?x64xf32>
  %4 = attune.positional_encoding <learned> %x, %pe offsets(%pos) : (tensor<?x?x64xf32>, tensor<512x64xf32>, tensor<?xi64>) -> tensor<?x?x64xf32>
  %5 = attune.positional_encoding <sinusoidal> %x offsets(%pos32) : (tensor<?x?x64xf32>, tensor<?xi32>) -> tensor<?x?x64xf32>
  return
}

// CHECK-LABEL: func @attention
// CHECK: attune.attention %{{.*}}, %{{.*}}, %{{.*}} : (tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>) -> tensor<2x8x16x64xf32>
// CHECK: attune.attention %{{.*}}, %{{.*}}, %{{.*}} key_lengths(%{{.*}}) {causal} : (tensor<?x8x?x64xf32>, tensor<?x2x?x64xf32>, tensor<?x2x?x32xf32>, tensor<?xi64>) -> tensor<?x8x?x32xf32>
// CHECK: attune.attention %{{.*}}, %{{.*}}, %{{.*}} {align = #attune.align<bottom_right>, causal, window = 4 : i64} : (tensor<2x8x4x64xf32>, tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>) -> tensor<2x8x4x64xf32>
// CHECK: attune.attention %{{.*}}, %{{.*}}, %{{.*}} {return_weights, selection = #attune.selection<hard>} : (tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>) -> (tensor<2x8x16x64xf32>, tensor<2x8x16x16xf32>)
// CHECK: attune.attention %{{.*}}, %{{.*}}, %{{.*}} bias(%{{.*}}) {score = #attune.score<dot>} : (tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>, tensor<8x16x16xf32>) -> tensor<2x8x16x64xf32>
// CHECK: attune.attention %{{.*}}, %{{.*}}, %{{.*}} {scale = 1.250000e-01 : f64} : (tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>) -> tensor<2x8x16x64xf32>
// CHECK: attune.attention %{{.*}}, %{{.*}}, %{{.*}} key_lengths(%{{.*}}) query_offsets(%{{.*}}) {causal} : (tensor<?x8x?x64xf32>, tensor<?x2x?x64xf32>, tensor<?x2x?x32xf32>, tensor<?xi64>, tensor<?xi64>) -> tensor<?x8x?x32xf32>
func.func @attention(%q: tensor<2x8x16x64xf32>, %dq: tensor<?x8x?x64xf32>, %dk: tensor<?x2x?x64xf32>,
                     %dv: tensor<?x2x?x32xf32>, %len: tensor<?xi64>, %q4: tensor<2x8x4x64xf32>,
                     %bias: tensor<8x16x16xf32>) {
  %0 = attune.attention %q, %q, %q : (tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>) -> tensor<2x8x16x64xf32>
  %1 = attune.attention %dq, %dk, %dv key_lengths(%len) {causal}
      : (tensor<?x8x?x64xf32>, tensor<?x2x?x64xf32>, tensor<?x2x?x32xf32>, tensor<?xi64>) -> tensor<?x8x?x32xf32>
  %2 = attune.attention %q4, %q, %q {causal, align = #attune.align<bottom_right>, window = 4 : i64}
      : (tensor<2x8x4x64xf32>, tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>) -> tensor<2x8x4x64xf32>
  %3:2 = attune.attention %q, %q, %q {selection = #attune.selection<hard>, return_weights}
      : (tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>) -> (tensor<2x8x16x64xf32>, tensor<2x8x16x16xf32>)
  %4 = attune.attention %q, %q, %q bias(%bias) {score = #attune.score<dot>}
      : (tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>, tensor<8x16x16xf32>) -> tensor<2x8x16x64xf32>
  %5 = attune.attention %q, %q, %q {scale = 0.125 : f64}
      : (tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>) -> tensor<2x8x16x64xf32>
  %6 = attune.attention %dq, %dk, %dv key_lengths(%len) query_offsets(%len) {causal}
      : (tensor<?x8x?x64xf32>, tensor<?x2x?x64xf32>, tensor<?x2x?x32xf32>, tensor<?xi64>, tensor<?xi64>) -> tensor<?x8x?x32xf32>
  return
}

// CHECK-LABEL: func @attention_globals
// CHECK: attune.attention %{{.*}}, %{{.*}}, %{{.*}} key_lengths(%{{.*}}) globals(%{{.*}}) {causal, window = 256 : i64} : (tensor<?x8x?x64xf32>, tensor<?x2x?x64xf32>, tensor<?x2x?x32xf32>, tensor<?xi64>, tensor<?x16xi32>) -> tensor<?x8x?x32xf32>
// CHECK: attune.attention %{{.*}}, %{{.*}}, %{{.*}} globals(%{{.*}}) {window = 2 : i64} : (tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>, tensor<2x2xi64>) -> tensor<2x8x16x64xf32>
func.func @attention_globals(%q: tensor<2x8x16x64xf32>, %dq: tensor<?x8x?x64xf32>, %dk: tensor<?x2x?x64xf32>,
                             %dv: tensor<?x2x?x32xf32>, %len: tensor<?xi64>, %g: tensor<?x16xi32>) {
  %0 = attune.attention %dq, %dk, %dv key_lengths(%len) globals(%g) {causal, window = 256 : i64}
      : (tensor<?x8x?x64xf32>, tensor<?x2x?x64xf32>, tensor<?x2x?x32xf32>, tensor<?xi64>, tensor<?x16xi32>) -> tensor<?x8x?x32xf32>
  %c = arith.constant dense<[[0, 15], [3, 7]]> : tensor<2x2xi64>
  %1 = attune.attention %q, %q, %q globals(%c) {window = 2 : i64}
      : (tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>, tensor<2x2xi64>) -> tensor<2x8x16x64xf32>
  return
}

// CHECK-LABEL: func @attention_sparse
// CHECK: attune.attention %{{.*}}, %{{.*}}, %{{.*}} key_lengths(%{{.*}}) {causal, sparse = #attune.sparse<block = 64, local = 4, stride = 4>} : (tensor<?x8x?x64xf32>, tensor<?x2x?x64xf32>, tensor<?x2x?x32xf32>, tensor<?xi64>) -> tensor<?x8x?x32xf32>
// CHECK: attune.attention %{{.*}}, %{{.*}}, %{{.*}} {sparse = #attune.sparse<block = 16, fixed = 8, summary = 2, global = 1, split = true>} : (tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>) -> tensor<2x8x16x64xf32>
func.func @attention_sparse(%q: tensor<2x8x16x64xf32>, %dq: tensor<?x8x?x64xf32>, %dk: tensor<?x2x?x64xf32>,
                            %dv: tensor<?x2x?x32xf32>, %len: tensor<?xi64>) {
  %0 = attune.attention %dq, %dk, %dv key_lengths(%len) {causal, sparse = #attune.sparse<block = 64, local = 4, stride = 4>}
      : (tensor<?x8x?x64xf32>, tensor<?x2x?x64xf32>, tensor<?x2x?x32xf32>, tensor<?xi64>) -> tensor<?x8x?x32xf32>
  %1 = attune.attention %q, %q, %q {sparse = #attune.sparse<block = 16, fixed = 8, summary = 2, global = 1, split = true>}
      : (tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>) -> tensor<2x8x16x64xf32>
  return
}

// CHECK-LABEL: func @attention_dilated
// CHECK: attune.attention %{{.*}}, %{{.*}}, %{{.*}} {causal, dilation = 4 : i64, window = 8 : i64} : (tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>) -> tensor<2x8x16x64xf32>
func.func @attention_dilated(%q: tensor<2x8x16x64xf32>) {
  %0 = attune.attention %q, %q, %q {causal, window = 8 : i64, dilation = 4 : i64}
      : (tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>) -> tensor<2x8x16x64xf32>
  return
}

// CHECK-LABEL: func @linear_attention
// CHECK: attune.linear_attention %{{.*}}, %{{.*}}, %{{.*}} : (tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>) -> tensor<2x8x16x64xf32>
// CHECK: attune.linear_attention %{{.*}}, %{{.*}}, %{{.*}} key_lengths(%{{.*}}) {causal, eps = 0.000000e+00 : f64} : (tensor<?x8x?x64xf32>, tensor<?x2x?x64xf32>, tensor<?x2x?x32xf32>, tensor<?xi64>) -> tensor<?x8x?x32xf32>
// CHECK: attune.linear_attention %{{.*}}, %{{.*}}, %{{.*}} state(%{{.*}}, %{{.*}}) {causal} : (tensor<?x8x?x64xf32>, tensor<?x2x?x64xf32>, tensor<?x2x?x32xf32>, tensor<?x2x64x32xf32>, tensor<?x2x64xf32>) -> (tensor<?x8x?x32xf32>, tensor<?x2x64x32xf32>, tensor<?x2x64xf32>)
// CHECK: attune.linear_attention %{{.*}}, %{{.*}}, %{{.*}} state(%{{.*}}, %{{.*}}) : (tensor<2x8x16x64xbf16>, tensor<2x8x16x64xbf16>, tensor<2x8x16x64xbf16>, tensor<2x8x64x64xf32>, tensor<2x8x64xf32>) -> (tensor<2x8x16x64xbf16>, tensor<2x8x64x64xf32>, tensor<2x8x64xf32>)
func.func @linear_attention(%q: tensor<2x8x16x64xf32>, %dq: tensor<?x8x?x64xf32>, %dk: tensor<?x2x?x64xf32>,
                            %dv: tensor<?x2x?x32xf32>, %len: tensor<?xi64>, %kv: tensor<?x2x64x32xf32>,
                            %z: tensor<?x2x64xf32>, %h: tensor<2x8x16x64xbf16>, %hkv: tensor<2x8x64x64xf32>,
                            %hz: tensor<2x8x64xf32>) {
  %0 = attune.linear_attention %q, %q, %q : (tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>) -> tensor<2x8x16x64xf32>
  %1 = attune.linear_attention %dq, %dk, %dv key_lengths(%len) {causal, eps = 0.0}
      : (tensor<?x8x?x64xf32>, tensor<?x2x?x64xf32>, tensor<?x2x?x32xf32>, tensor<?xi64>) -> tensor<?x8x?x32xf32>
  %2:3 = attune.linear_attention %dq, %dk, %dv state(%kv, %z) {causal}
      : (tensor<?x8x?x64xf32>, tensor<?x2x?x64xf32>, tensor<?x2x?x32xf32>, tensor<?x2x64x32xf32>, tensor<?x2x64xf32>)
      -> (tensor<?x8x?x32xf32>, tensor<?x2x64x32xf32>, tensor<?x2x64xf32>)
  %3:3 = attune.linear_attention %h, %h, %h state(%hkv, %hz)
      : (tensor<2x8x16x64xbf16>, tensor<2x8x16x64xbf16>, tensor<2x8x16x64xbf16>, tensor<2x8x64x64xf32>, tensor<2x8x64xf32>)
      -> (tensor<2x8x16x64xbf16>, tensor<2x8x64x64xf32>, tensor<2x8x64xf32>)
  return
}

// CHECK-LABEL: func @generation_state
// CHECK: attune.cache_write %{{.*}}, %{{.*}}, %{{.*}} : (tensor<?x4x128x16xf32>, tensor<?x4x?x16xf32>, tensor<?xi64>) -> tensor<?x4x128x16xf32>
// CHECK: attune.cache_write %{{.*}}, %{{.*}}, %{{.*}} : (tensor<2x4x?x16xbf16>, tensor<2x4x1x16xbf16>, tensor<2xi32>) -> tensor<2x4x?x16xbf16>
// CHECK: attune.select_last %{{.*}}, %{{.*}} : (tensor<?x?x64xf32>, tensor<?xi64>) -> tensor<?x64xf32>
// CHECK: attune.select_last %{{.*}}, %{{.*}} : (tensor<2x5xf16>, tensor<2xi32>) -> tensor<2xf16>
// CHECK: attune.overwrite %{{.*}}, %{{.*}} : (tensor<?x64xf32>, tensor<2x64xf32>) -> tensor<2x64xf32>
func.func @generation_state(%c: tensor<?x4x128x16xf32>, %u: tensor<?x4x?x16xf32>, %pos: tensor<?xi64>,
                            %hc: tensor<2x4x?x16xbf16>, %hu: tensor<2x4x1x16xbf16>, %pos32: tensor<2xi32>,
                            %x: tensor<?x?x64xf32>, %y: tensor<2x5xf16>,
                            %h: tensor<?x64xf32>, %h2: tensor<2x64xf32>) {
  %0 = attune.cache_write %c, %u, %pos : (tensor<?x4x128x16xf32>, tensor<?x4x?x16xf32>, tensor<?xi64>) -> tensor<?x4x128x16xf32>
  %1 = attune.cache_write %hc, %hu, %pos32 : (tensor<2x4x?x16xbf16>, tensor<2x4x1x16xbf16>, tensor<2xi32>) -> tensor<2x4x?x16xbf16>
  %2 = attune.select_last %x, %pos : (tensor<?x?x64xf32>, tensor<?xi64>) -> tensor<?x64xf32>
  %3 = attune.select_last %y, %pos32 : (tensor<2x5xf16>, tensor<2xi32>) -> tensor<2xf16>
  %4 = attune.overwrite %h, %h2 : (tensor<?x64xf32>, tensor<2x64xf32>) -> tensor<2x64xf32>
  return
}

// The generation contract (docs/design.md): a step takes tokens, positions,
// lengths and its states and returns the logits and the states.
// CHECK-LABEL: func @step
// CHECK-SAME: attune.state = "k"
// CHECK-SAME: attributes {attune.generation_step}
func.func @step(%t: tensor<?x?xi64> {attune.name = "tokens"}, %p: tensor<?xi64>, %l: tensor<?xi32>,
                %k: tensor<?x4x32x16xf32> {attune.state = "k"})
    -> (tensor<?x10xf32>, tensor<?x4x32x16xf32> {attune.state = "k"})
    attributes {attune.generation_step} {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %t, %c0 : tensor<?x?xi64>
  %logits = tensor.empty(%n) : tensor<?x10xf32>
  return %logits, %k : tensor<?x10xf32>, tensor<?x4x32x16xf32>
}

// CHECK-LABEL: func @mask
// CHECK: attune.mask %{{.*}} key_lengths(%{{.*}}) : (tensor<?x1x?xf32>, tensor<?xi32>) -> tensor<?x1x?xf32>
// CHECK: attune.mask %{{.*}} {causal, window = 2 : i64} : (tensor<8x8xf32>) -> tensor<8x8xf32>
func.func @mask(%s: tensor<?x1x?xf32>, %len: tensor<?xi32>, %t: tensor<8x8xf32>) {
  %0 = attune.mask %s key_lengths(%len) : (tensor<?x1x?xf32>, tensor<?xi32>) -> tensor<?x1x?xf32>
  %1 = attune.mask %t {causal, window = 2 : i64} : (tensor<8x8xf32>) -> tensor<8x8xf32>
  return
}

// CHECK-LABEL: func @multi_head_attention
// CHECK: attune.multi_head_attention %[[X:.*]], %[[X]], %[[X]] in_proj_weight(%{{.*}}) in_proj_bias(%{{.*}}) out_proj_weight(%{{.*}}) out_proj_bias(%{{.*}}) key_lengths(%{{.*}}) {causal, num_heads = 4 : i64}
// CHECK: attune.multi_head_attention %{{.*}}, %{{.*}}, %{{.*}} q_proj_weight(%{{.*}}) k_proj_weight(%{{.*}}) v_proj_weight(%{{.*}}) out_proj_weight(%{{.*}}) bias(%{{.*}}) {num_heads = 4 : i64, num_kv_heads = 2 : i64}
func.func @multi_head_attention(%x: tensor<?x?x64xf32>, %w: tensor<192x64xf32>, %b: tensor<192xf32>,
                                %wo: tensor<64x64xf32>, %bo: tensor<64xf32>, %len: tensor<?xi64>,
                                %q: tensor<2x5x64xf32>, %m: tensor<2x7x48xf32>, %wq: tensor<64x64xf32>,
                                %wk: tensor<32x48xf32>, %wv: tensor<32x48xf32>, %bias: tensor<5x7xf32>) {
  %0 = attune.multi_head_attention %x, %x, %x in_proj_weight(%w) in_proj_bias(%b)
      out_proj_weight(%wo) out_proj_bias(%bo) key_lengths(%len) {num_heads = 4 : i64, causal}
      : (tensor<?x?x64xf32>, tensor<?x?x64xf32>, tensor<?x?x64xf32>, tensor<192x64xf32>, tensor<192xf32>,
         tensor<64x64xf32>, tensor<64xf32>, tensor<?xi64>) -> tensor<?x?x64xf32>
  %1 = attune.multi_head_attention %q, %m, %m q_proj_weight(%wq) k_proj_weight(%wk) v_proj_weight(%wv)
      out_proj_weight(%wo) bias(%bias) {num_heads = 4 : i64, num_kv_heads = 2 : i64}
      : (tensor<2x5x64xf32>, tensor<2x7x48xf32>, tensor<2x7x48xf32>, tensor<64x64xf32>, tensor<32x48xf32>,
         tensor<32x48xf32>, tensor<64x64xf32>, tensor<5x7xf32>) -> tensor<2x5x64xf32>
  return
}

// CHECK-LABEL: func @seq2seq_attention
// CHECK: attune.seq2seq_attention <dot> %{{.*}}, %{{.*}}, %{{.*}} key_lengths(%{{.*}}) : (tensor<?x1x48xf32>, tensor<?x?x48xf32>, tensor<?x?x48xf32>, tensor<?xi64>) -> tensor<?x1x48xf32>
// CHECK: attune.seq2seq_attention <general> %{{.*}}, %{{.*}}, %{{.*}} weights(%{{.*}})
// CHECK: attune.seq2seq_attention <additive> %{{.*}}, %{{.*}}, %{{.*}} weights(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) {return_weights}
// CHECK-SAME: -> (tensor<?x1x48xf32>, tensor<?x1x?xf32>)
// CHECK: attune.seq2seq_attention <location> %{{.*}}, %{{.*}}, %{{.*}} weights(%{{.*}}, %{{.*}})
// CHECK-SAME: -> tensor<2x1x48xf32>
func.func @seq2seq_attention(%s: tensor<?x1x48xf32>, %s32: tensor<?x1x32xf32>, %h: tensor<?x?x48xf32>,
                             %len: tensor<?xi64>, %wg: tensor<32x48xf32>, %w1: tensor<40x32xf32>,
                             %w2: tensor<40x48xf32>, %v: tensor<1x40xf32>, %b: tensor<40xf32>,
                             %s2: tensor<2x1x32xf32>, %h2: tensor<2x10x48xf32>, %wl: tensor<10x32xf32>,
                             %bl: tensor<10xf32>) {
  %0 = attune.seq2seq_attention <dot> %s, %h, %h key_lengths(%len)
      : (tensor<?x1x48xf32>, tensor<?x?x48xf32>, tensor<?x?x48xf32>, tensor<?xi64>) -> tensor<?x1x48xf32>
  %1 = attune.seq2seq_attention <general> %s32, %h, %h weights(%wg)
      : (tensor<?x1x32xf32>, tensor<?x?x48xf32>, tensor<?x?x48xf32>, tensor<32x48xf32>) -> tensor<?x1x48xf32>
  %2:2 = attune.seq2seq_attention <additive> %s32, %h, %h weights(%w1, %w2, %v, %b) {return_weights}
      : (tensor<?x1x32xf32>, tensor<?x?x48xf32>, tensor<?x?x48xf32>, tensor<40x32xf32>, tensor<40x48xf32>,
         tensor<1x40xf32>, tensor<40xf32>) -> (tensor<?x1x48xf32>, tensor<?x1x?xf32>)
  %3 = attune.seq2seq_attention <location> %s2, %h2, %h2 weights(%wl, %bl)
      : (tensor<2x1x32xf32>, tensor<2x10x48xf32>, tensor<2x10x48xf32>, tensor<10x32xf32>, tensor<10xf32>)
      -> tensor<2x1x48xf32>
  return
}

// CHECK-LABEL: func @blocks
// CHECK: attune.feed_forward %{{.*}} linear1(%{{.*}}, %{{.*}}) linear2(%{{.*}}, %{{.*}}) {activation = #attune.activation<gelu>}
// CHECK: attune.feed_forward %{{.*}} linear1(%{{.*}}) linear2(%{{.*}}) :
// CHECK: attune.encoder_layer %{{.*}} self_attn(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) linear1(%{{.*}}, %{{.*}}) linear2(%{{.*}}, %{{.*}}) norm1(%{{.*}}, %{{.*}}) norm2(%{{.*}}, %{{.*}}) {num_heads = 4 : i64}
// CHECK: attune.encoder_layer %{{.*}} key_lengths(%{{.*}}) {activation = #attune.activation<gelu>, causal, epsilon = 9.9999999999999995E-7 : f64, norm_first, num_heads = 4 : i64}
// CHECK: attune.decoder_layer %{{.*}}, %{{.*}} self_attn({{.*}}) cross_attn({{.*}}) linear1({{.*}}) linear2({{.*}}) norm1({{.*}}) norm2({{.*}}) norm3({{.*}}) tgt_key_lengths(%{{.*}}) memory_key_lengths(%{{.*}}) {causal, num_heads = 4 : i64}
func.func @blocks(%x: tensor<?x?x64xf32>, %m: tensor<?x?x64xf32>, %ipw: tensor<192x64xf32>, %ipb: tensor<192xf32>,
                  %opw: tensor<64x64xf32>, %v64: tensor<64xf32>, %w1: tensor<128x64xf32>, %b1: tensor<128xf32>,
                  %w2: tensor<64x128xf32>, %len: tensor<?xi64>) {
  %0 = attune.feed_forward %x linear1(%w1, %b1) linear2(%w2, %v64) {activation = #attune.activation<gelu>}
      : (tensor<?x?x64xf32>, tensor<128x64xf32>, tensor<128xf32>, tensor<64x128xf32>, tensor<64xf32>) -> tensor<?x?x64xf32>
  %1 = attune.feed_forward %x linear1(%w1) linear2(%w2)
      : (tensor<?x?x64xf32>, tensor<128x64xf32>, tensor<64x128xf32>) -> tensor<?x?x64xf32>
  %2 = attune.encoder_layer %x self_attn(%ipw, %ipb, %opw, %v64) linear1(%w1, %b1) linear2(%w2, %v64)
      norm1(%v64, %v64) norm2(%v64, %v64) {num_heads = 4 : i64}
      : (tensor<?x?x64xf32>, tensor<192x64xf32>, tensor<192xf32>, tensor<64x64xf32>, tensor<64xf32>,
         tensor<128x64xf32>, tensor<128xf32>, tensor<64x128xf32>, tensor<64xf32>,
         tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<?x?x64xf32>
  %3 = attune.encoder_layer %x self_attn(%ipw, %ipb, %opw, %v64) linear1(%w1, %b1) linear2(%w2, %v64)
      norm1(%v64, %v64) norm2(%v64, %v64) key_lengths(%len)
      {num_heads = 4 : i64, norm_first, causal, activation = #attune.activation<gelu>, epsilon = 1.0e-6 : f64}
      : (tensor<?x?x64xf32>, tensor<192x64xf32>, tensor<192xf32>, tensor<64x64xf32>, tensor<64xf32>,
         tensor<128x64xf32>, tensor<128xf32>, tensor<64x128xf32>, tensor<64xf32>,
         tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<?xi64>) -> tensor<?x?x64xf32>
  %4 = attune.decoder_layer %x, %m self_attn(%ipw, %ipb, %opw, %v64) cross_attn(%ipw, %ipb, %opw, %v64)
      linear1(%w1, %b1) linear2(%w2, %v64) norm1(%v64, %v64) norm2(%v64, %v64) norm3(%v64, %v64)
      tgt_key_lengths(%len) memory_key_lengths(%len) {num_heads = 4 : i64, causal}
      : (tensor<?x?x64xf32>, tensor<?x?x64xf32>,
         tensor<192x64xf32>, tensor<192xf32>, tensor<64x64xf32>, tensor<64xf32>,
         tensor<192x64xf32>, tensor<192xf32>, tensor<64x64xf32>, tensor<64xf32>,
         tensor<128x64xf32>, tensor<128xf32>, tensor<64x128xf32>, tensor<64xf32>,
         tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>,
         tensor<?xi64>, tensor<?xi64>) -> tensor<?x?x64xf32>
  return
}

// CHECK-LABEL: func @recurrent
// CHECK: attune.rnn %{{.*}} weights(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) {hidden_size = 32 : i64} : {{.*}} -> (tensor<?x?x32xf32>, tensor<1x?x32xf32>)
// CHECK: attune.rnn %{{.*}} weights(%{{.*}}, %{{.*}}) initial_h(%{{.*}}) {has_biases = false, hidden_size = 32 : i64, nonlinearity = #attune.activation<relu>}
// CHECK: attune.lstm %{{.*}} weights({{.*}}) initial_h(%{{.*}}) initial_c(%{{.*}}) {hidden_size = 32 : i64, num_layers = 2 : i64} : {{.*}} -> (tensor<?x?x32xf32>, tensor<2x?x32xf32>, tensor<2x?x32xf32>)
// CHECK: attune.gru %{{.*}} weights({{.*}}) {bidirectional, hidden_size = 32 : i64} : {{.*}} -> (tensor<?x?x64xf32>, tensor<2x?x32xf32>)
func.func @recurrent(%x: tensor<?x?x16xf32>, %rih: tensor<32x16xf32>, %rhh: tensor<32x32xf32>, %rb: tensor<32xf32>,
                     %h1: tensor<1x?x32xf32>, %lih0: tensor<128x16xf32>, %lhh: tensor<128x32xf32>, %lb: tensor<128xf32>,
                     %lih1: tensor<128x32xf32>, %h2: tensor<2x?x32xf32>, %gih: tensor<96x16xf32>,
                     %ghh: tensor<96x32xf32>, %gb: tensor<96xf32>) {
  %0:2 = attune.rnn %x weights(%rih, %rhh, %rb, %rb) {hidden_size = 32 : i64}
      : (tensor<?x?x16xf32>, tensor<32x16xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<32xf32>)
      -> (tensor<?x?x32xf32>, tensor<1x?x32xf32>)
  %1:2 = attune.rnn %x weights(%rih, %rhh) initial_h(%h1)
      {hidden_size = 32 : i64, has_biases = false, nonlinearity = #attune.activation<relu>}
      : (tensor<?x?x16xf32>, tensor<32x16xf32>, tensor<32x32xf32>, tensor<1x?x32xf32>)
      -> (tensor<?x?x32xf32>, tensor<1x?x32xf32>)
  %2:3 = attune.lstm %x weights(%lih0, %lhh, %lb, %lb, %lih1, %lhh, %lb, %lb) initial_h(%h2) initial_c(%h2)
      {hidden_size = 32 : i64, num_layers = 2 : i64}
      : (tensor<?x?x16xf32>, tensor<128x16xf32>, tensor<128x32xf32>, tensor<128xf32>, tensor<128xf32>,
         tensor<128x32xf32>, tensor<128x32xf32>, tensor<128xf32>, tensor<128xf32>,
         tensor<2x?x32xf32>, tensor<2x?x32xf32>) -> (tensor<?x?x32xf32>, tensor<2x?x32xf32>, tensor<2x?x32xf32>)
  %3:2 = attune.gru %x weights(%gih, %ghh, %gb, %gb, %gih, %ghh, %gb, %gb) {hidden_size = 32 : i64, bidirectional}
      : (tensor<?x?x16xf32>, tensor<96x16xf32>, tensor<96x32xf32>, tensor<96xf32>, tensor<96xf32>,
         tensor<96x16xf32>, tensor<96x32xf32>, tensor<96xf32>, tensor<96xf32>)
      -> (tensor<?x?x64xf32>, tensor<2x?x32xf32>)
  return
}

// CHECK-LABEL: func @cells
// CHECK: attune.rnn_cell %{{.*}}, %{{.*}} weights(%{{.*}}, %{{.*}}) : (tensor<?x16xf32>, tensor<?x32xf32>, tensor<32x16xf32>, tensor<32x32xf32>) -> tensor<?x32xf32>
// CHECK: attune.lstm_cell %{{.*}}, %{{.*}}, %{{.*}} weights(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : {{.*}} -> (tensor<?x32xf32>, tensor<?x32xf32>)
// CHECK: attune.gru_cell %{{.*}}, %{{.*}} weights(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : {{.*}} -> tensor<?x32xf32>
func.func @cells(%x: tensor<?x16xf32>, %h: tensor<?x32xf32>, %rih: tensor<32x16xf32>, %rhh: tensor<32x32xf32>,
                 %lih: tensor<128x16xf32>, %lhh: tensor<128x32xf32>, %lb: tensor<128xf32>,
                 %gih: tensor<96x16xf32>, %ghh: tensor<96x32xf32>, %gb: tensor<96xf32>) {
  %0 = attune.rnn_cell %x, %h weights(%rih, %rhh)
      : (tensor<?x16xf32>, tensor<?x32xf32>, tensor<32x16xf32>, tensor<32x32xf32>) -> tensor<?x32xf32>
  %1:2 = attune.lstm_cell %x, %h, %h weights(%lih, %lhh, %lb, %lb)
      : (tensor<?x16xf32>, tensor<?x32xf32>, tensor<?x32xf32>, tensor<128x16xf32>, tensor<128x32xf32>,
         tensor<128xf32>, tensor<128xf32>) -> (tensor<?x32xf32>, tensor<?x32xf32>)
  %2 = attune.gru_cell %x, %h weights(%gih, %ghh, %gb, %gb)
      : (tensor<?x16xf32>, tensor<?x32xf32>, tensor<96x16xf32>, tensor<96x32xf32>, tensor<96xf32>, tensor<96xf32>)
      -> tensor<?x32xf32>
  return
}

// CHECK-LABEL: func @repeat
// CHECK:       %[[R:.*]]:2 = attune.repeat %{{.*}}, %{{.*}} {count = 12 : i64, prefix = "layers.{i}."} : (tensor<?x?x64xf32>, tensor<?xi64>) -> (tensor<?x?x64xf32>, tensor<?xi64>) {
// CHECK-NEXT:  ^bb0(%[[H:.*]]: tensor<?x?x64xf32>, %[[L:.*]]: tensor<?xi64>):
// CHECK-NEXT:    %[[W:.*]] = attune.weight "linear.weight" : tensor<64x64xf32>
// CHECK-NEXT:    %[[O:.*]] = attune.linear %[[H]], %[[W]]
// CHECK-NEXT:    attune.yield %[[O]], %[[L]] : tensor<?x?x64xf32>, tensor<?xi64>
// CHECK-NEXT:  }
func.func @repeat(%x: tensor<?x?x64xf32>, %len: tensor<?xi64>) -> tensor<?x?x64xf32> {
  %r:2 = attune.repeat %x, %len {count = 12 : i64, prefix = "layers.{i}."}
      : (tensor<?x?x64xf32>, tensor<?xi64>) -> (tensor<?x?x64xf32>, tensor<?xi64>) {
  ^bb0(%h: tensor<?x?x64xf32>, %l: tensor<?xi64>):
    %w = attune.weight "linear.weight" : tensor<64x64xf32>
    %o = attune.linear %h, %w : (tensor<?x?x64xf32>, tensor<64x64xf32>) -> tensor<?x?x64xf32>
    attune.yield %o, %l : tensor<?x?x64xf32>, tensor<?xi64>
  }
  return %r#0 : tensor<?x?x64xf32>
}
