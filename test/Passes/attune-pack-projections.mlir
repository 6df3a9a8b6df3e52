// RUN: attune-opt %s --split-input-file --attune-pack-projections="explain=true" --verify-diagnostics | FileCheck %s

!x = tensor<?x5x4xf32>

// Q, K and V written as three linears of one input (K without a bias): one
// linear over the weights concatenated along the output dim (K's bias packed
// as zeros), sliced back into the three projections.
// CHECK-LABEL: func @qkv
// CHECK-SAME: (%[[X:.*]]: tensor<?x5x4xf32>)
// CHECK-DAG:  %[[W:.*]] = arith.constant dense_resource<[[WKEY:.*]]> : tensor<6x4xf32>
// CHECK-DAG:  %[[B:.*]] = arith.constant dense_resource<[[BKEY:.*]]> : tensor<6xf32>
// CHECK:      %[[P:.*]] = attune.linear %[[X]], %[[W]], %[[B]] : (tensor<?x5x4xf32>, tensor<6x4xf32>, tensor<6xf32>) -> tensor<?x5x6xf32>
// CHECK-NEXT: %[[Q:.*]] = attune.slice %[[P]] {axis = 2 : i64, offset = 0 : i64, size = 2 : i64}
// CHECK-NEXT: %[[K:.*]] = attune.slice %[[P]] {axis = 2 : i64, offset = 2 : i64, size = 2 : i64}
// CHECK-NEXT: %[[V:.*]] = attune.slice %[[P]] {axis = 2 : i64, offset = 4 : i64, size = 2 : i64}
// CHECK-NEXT: return %[[Q]], %[[K]], %[[V]]
// The packed data, rows of q then k then v (f32 little-endian; 1.0 is
// 0x3F800000, 2.0 0x40000000, 3.0 0x40400000, 0.5 0x3F000000), after the
// blob's 4-byte alignment header; the bias has q's 0.5s, zeros for k, v's 3.0s.
// CHECK:      [[WKEY]]: "0x08000000{{0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F00000040000000400000004000000040000000400000004000000040000000400000404000004040000040400000404000004040000040400000404000004040}}"
// CHECK:      [[BKEY]]: "0x08000000{{0000003F0000003F00000000000000000000404000004040}}"
func.func @qkv(%x: !x) -> (tensor<?x5x2xf32>, tensor<?x5x2xf32>, tensor<?x5x2xf32>) {
  %wq = arith.constant dense<1.0> : tensor<2x4xf32>
  %bq = arith.constant dense<0.5> : tensor<2xf32>
  %wk = arith.constant dense<2.0> : tensor<2x4xf32>
  %wv = arith.constant dense<3.0> : tensor<2x4xf32>
  %bv = arith.constant dense<3.0> : tensor<2xf32>
  // expected-remark @+1 {{packed 3 projections of one input into one GEMM (6 output features)}}
  %q = attune.linear %x, %wq, %bq : (!x, tensor<2x4xf32>, tensor<2xf32>) -> tensor<?x5x2xf32>
  %k = attune.linear %x, %wk : (!x, tensor<2x4xf32>) -> tensor<?x5x2xf32>
  %v = attune.linear %x, %wv, %bv : (!x, tensor<2x4xf32>, tensor<2xf32>) -> tensor<?x5x2xf32>
  return %q, %k, %v : tensor<?x5x2xf32>, tensor<?x5x2xf32>, tensor<?x5x2xf32>
}

// -----

// Weights that are not bound yet stay separate.
// CHECK-LABEL: func @unbound
// CHECK-COUNT-2: attune.linear
func.func @unbound(%x: tensor<3x4xf32>) -> (tensor<3x2xf32>, tensor<3x2xf32>) {
  %wq = attune.weight "q.weight" : tensor<2x4xf32>
  %wk = attune.weight "k.weight" : tensor<2x4xf32>
  // expected-remark @+1 {{not packed with the other projections of its input: the weights are not bound yet (packing runs on constants, after attune-bind-weights)}}
  %q = attune.linear %x, %wq : (tensor<3x4xf32>, tensor<2x4xf32>) -> tensor<3x2xf32>
  %k = attune.linear %x, %wk : (tensor<3x4xf32>, tensor<2x4xf32>) -> tensor<3x2xf32>
  return %q, %k : tensor<3x2xf32>, tensor<3x2xf32>
}

// -----

// Weights passed in at run time, and a linear with an activation epilogue.
// CHECK-LABEL: func @runtime_weights
// CHECK-COUNT-2: attune.linear
// CHECK-LABEL: func @epilogue
// CHECK-COUNT-2: attune.linear
func.func @runtime_weights(%x: tensor<3x4xf32>, %wq: tensor<2x4xf32>, %wk: tensor<2x4xf32>) -> (tensor<3x2xf32>, tensor<3x2xf32>) {
  // expected-remark @+1 {{not packed with the other projections of its input: a weight is not a compile-time constant (weights loaded at run time would be copied on every run)}}
  %q = attune.linear %x, %wq : (tensor<3x4xf32>, tensor<2x4xf32>) -> tensor<3x2xf32>
  %k = attune.linear %x, %wk : (tensor<3x4xf32>, tensor<2x4xf32>) -> tensor<3x2xf32>
  return %q, %k : tensor<3x2xf32>, tensor<3x2xf32>
}
func.func @epilogue(%x: tensor<3x4xf32>) -> (tensor<3x2xf32>, tensor<3x2xf32>) {
  %wq = arith.constant dense<1.0> : tensor<2x4xf32>
  %wk = arith.constant dense<2.0> : tensor<2x4xf32>
  %q = attune.linear %x, %wq : (tensor<3x4xf32>, tensor<2x4xf32>) -> tensor<3x2xf32>
  // expected-remark @+1 {{not packed with the other projections of its input: it has an activation}}
  %k = attune.linear %x, %wk {activation = #attune.activation<relu>} : (tensor<3x4xf32>, tensor<2x4xf32>) -> tensor<3x2xf32>
  return %q, %k : tensor<3x2xf32>, tensor<3x2xf32>
}

// -----

// Linears of different inputs are no group.
// CHECK-LABEL: func @different_inputs
// CHECK-COUNT-2: attune.linear
func.func @different_inputs(%x: tensor<3x4xf32>, %y: tensor<3x4xf32>) -> (tensor<3x2xf32>, tensor<3x2xf32>) {
  %w = arith.constant dense<1.0> : tensor<2x4xf32>
  %q = attune.linear %x, %w : (tensor<3x4xf32>, tensor<2x4xf32>) -> tensor<3x2xf32>
  %k = attune.linear %y, %w : (tensor<3x4xf32>, tensor<2x4xf32>) -> tensor<3x2xf32>
  return %q, %k : tensor<3x2xf32>, tensor<3x2xf32>
}
