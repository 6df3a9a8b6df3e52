// RUN: attune-opt %s --split-input-file --attune-outline-layers | FileCheck %s

!x = tensor<?x?x4xf32>

// Three encoder layers of one shape, each with its own weights, become one
// private function (every operand an argument, the weights marked
// attune.weight) called per layer with that layer's operands; the layer of
// another shape (other attributes) stays where it is.
// CHECK-LABEL: func.func @stack
// CHECK-SAME:  (%[[X:.*]]: tensor<?x?x4xf32>, %[[LEN:.*]]: tensor<?xi64>)
// CHECK-DAG:   %[[A:.*]] = arith.constant dense<1.000000e+00> : tensor<12x4xf32>
// CHECK-DAG:   %[[B:.*]] = arith.constant dense<2.000000e+00> : tensor<12x4xf32>
// CHECK-DAG:   %[[C:.*]] = arith.constant dense<3.000000e+00> : tensor<12x4xf32>
// CHECK:       %[[H0:.*]] = call @stack_encoder_layer(%[[X]], %[[A]], {{.*}}, %[[LEN]]) :
// CHECK:       %[[H1:.*]] = call @stack_encoder_layer(%[[H0]], %[[B]], {{.*}}, %[[LEN]]) :
// CHECK:       %[[H2:.*]] = attune.encoder_layer %[[H1]] {{.*}}causal
// CHECK:       %[[H3:.*]] = call @stack_encoder_layer(%[[H2]], %[[C]], {{.*}}, %[[LEN]]) :
// CHECK:       return %[[H3]]
// CHECK:       func.func private @stack_encoder_layer(%[[LX:.*]]: tensor<?x?x4xf32>, %[[LW:.*]]: tensor<12x4xf32> {attune.weight}, %{{.*}}: tensor<12xf32> {attune.weight},
// CHECK-SAME:  %[[LL:[^:]*]]: tensor<?xi64>) -> tensor<?x?x4xf32>
// CHECK-NEXT:  %[[R:.*]] = attune.encoder_layer %[[LX]] self_attn(%[[LW]], {{.*}} key_lengths(%[[LL]]) {num_heads = 2 : i64}
// CHECK-NEXT:  return %[[R]]
// CHECK-NOT:   func.func
func.func @stack(%x: !x, %len: tensor<?xi64>) -> !x {
  %w0 = arith.constant dense<1.0> : tensor<12x4xf32>
  %w1 = arith.constant dense<2.0> : tensor<12x4xf32>
  %w2 = arith.constant dense<3.0> : tensor<12x4xf32>
  %b = arith.constant dense<0.5> : tensor<12xf32>
  %o = arith.constant dense<0.25> : tensor<4x4xf32>
  %v = arith.constant dense<1.0> : tensor<4xf32>
  %l1 = arith.constant dense<0.125> : tensor<8x4xf32>
  %lb = arith.constant dense<0.0> : tensor<8xf32>
  %l2 = arith.constant dense<0.125> : tensor<4x8xf32>
  %h0 = attune.encoder_layer %x self_attn(%w0, %b, %o, %v) linear1(%l1, %lb) linear2(%l2, %v)
      norm1(%v, %v) norm2(%v, %v) key_lengths(%len) {num_heads = 2 : i64}
      : (!x, tensor<12x4xf32>, tensor<12xf32>, tensor<4x4xf32>, tensor<4xf32>,
         tensor<8x4xf32>, tensor<8xf32>, tensor<4x8xf32>, tensor<4xf32>,
         tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<?xi64>) -> !x
  %h1 = attune.encoder_layer %h0 self_attn(%w1, %b, %o, %v) linear1(%l1, %lb) linear2(%l2, %v)
      norm1(%v, %v) norm2(%v, %v) key_lengths(%len) {num_heads = 2 : i64}
      : (!x, tensor<12x4xf32>, tensor<12xf32>, tensor<4x4xf32>, tensor<4xf32>,
         tensor<8x4xf32>, tensor<8xf32>, tensor<4x8xf32>, tensor<4xf32>,
         tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<?xi64>) -> !x
  %h2 = attune.encoder_layer %h1 self_attn(%w1, %b, %o, %v) linear1(%l1, %lb) linear2(%l2, %v)
      norm1(%v, %v) norm2(%v, %v) key_lengths(%len) {num_heads = 2 : i64, causal}
      : (!x, tensor<12x4xf32>, tensor<12xf32>, tensor<4x4xf32>, tensor<4xf32>,
         tensor<8x4xf32>, tensor<8xf32>, tensor<4x8xf32>, tensor<4xf32>,
         tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<?xi64>) -> !x
  %h3 = attune.encoder_layer %h2 self_attn(%w2, %b, %o, %v) linear1(%l1, %lb) linear2(%l2, %v)
      norm1(%v, %v) norm2(%v, %v) key_lengths(%len) {num_heads = 2 : i64}
      : (!x, tensor<12x4xf32>, tensor<12xf32>, tensor<4x4xf32>, tensor<4xf32>,
         tensor<8x4xf32>, tensor<8xf32>, tensor<4x8xf32>, tensor<4xf32>,
         tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<?xi64>) -> !x
  return %h3 : !x
}

// -----

!x = tensor<?x?x4xf32>

// Which operands are weights is part of the computation: a layer whose
// in-projection is an argument of the model is not outlined with one whose
// in-projection is a constant; a lone layer stays as it is.
// CHECK-LABEL: func.func @not_layers
// CHECK-NOT:   call
// CHECK-COUNT-2: attune.encoder_layer
// CHECK-NOT:   func.func private
func.func @not_layers(%x: !x, %w: tensor<12x4xf32>) -> !x {
  %b = arith.constant dense<0.5> : tensor<12xf32>
  %o = arith.constant dense<0.25> : tensor<4x4xf32>
  %v = arith.constant dense<1.0> : tensor<4xf32>
  %l1 = arith.constant dense<0.125> : tensor<8x4xf32>
  %lb = arith.constant dense<0.0> : tensor<8xf32>
  %l2 = arith.constant dense<0.125> : tensor<4x8xf32>
  %h0 = attune.encoder_layer %x self_attn(%w, %b, %o, %v) linear1(%l1, %lb) linear2(%l2, %v)
      norm1(%v, %v) norm2(%v, %v) {num_heads = 2 : i64}
      : (!x, tensor<12x4xf32>, tensor<12xf32>, tensor<4x4xf32>, tensor<4xf32>,
         tensor<8x4xf32>, tensor<8xf32>, tensor<4x8xf32>, tensor<4xf32>,
         tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> !x
  %w1 = arith.constant dense<2.0> : tensor<12x4xf32>
  %h1 = attune.encoder_layer %h0 self_attn(%w1, %b, %o, %v) linear1(%l1, %lb) linear2(%l2, %v)
      norm1(%v, %v) norm2(%v, %v) {num_heads = 2 : i64}
      : (!x, tensor<12x4xf32>, tensor<12xf32>, tensor<4x4xf32>, tensor<4xf32>,
         tensor<8x4xf32>, tensor<8xf32>, tensor<4x8xf32>, tensor<4xf32>,
         tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> !x
  return %h1 : !x
}
