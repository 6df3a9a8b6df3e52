// RUN: attune-opt %s --split-input-file --attune-unroll-repeat | FileCheck %s

// Three iterations in a row, each with its own weights (the prefix with
// {i} replaced), a value from outside (the shared bias) read by all, and
// two carried values.
// CHECK-LABEL: func.func @stack
// CHECK-SAME:  (%[[X:.*]]: tensor<?x8xf32>, %[[Y:.*]]: tensor<?x8xf32>, %[[B:.*]]: tensor<8xf32>)
// CHECK:       %[[W0:.*]] = attune.weight "layers.0.weight" : tensor<8x8xf32>
// CHECK:       %[[H0:.*]] = attune.linear %[[X]], %[[W0]], %[[B]]
// CHECK:       %[[S0:.*]] = attune.add %[[H0]], %[[Y]]
// CHECK:       %[[W1:.*]] = attune.weight "layers.1.weight" : tensor<8x8xf32>
// CHECK:       %[[H1:.*]] = attune.linear %[[S0]], %[[W1]], %[[B]]
// CHECK:       %[[S1:.*]] = attune.add %[[H1]], %[[H0]]
// CHECK:       %[[W2:.*]] = attune.weight "layers.2.weight" : tensor<8x8xf32>
// CHECK:       %[[H2:.*]] = attune.linear %[[S1]], %[[W2]], %[[B]]
// CHECK:       %[[S2:.*]] = attune.add %[[H2]], %[[H1]]
// CHECK:       return %[[S2]], %[[H2]]
// CHECK-NOT:   attune.repeat
func.func @stack(%x: tensor<?x8xf32>, %y: tensor<?x8xf32>, %b: tensor<8xf32>) -> (tensor<?x8xf32>, tensor<?x8xf32>) {
  %r:2 = attune.repeat %x, %y {count = 3 : i64, prefix = "layers.{i}."}
      : (tensor<?x8xf32>, tensor<?x8xf32>) -> (tensor<?x8xf32>, tensor<?x8xf32>) {
  ^bb0(%h: tensor<?x8xf32>, %prev: tensor<?x8xf32>):
    %w = attune.weight "weight" : tensor<8x8xf32>
    %l = attune.linear %h, %w, %b : (tensor<?x8xf32>, tensor<8x8xf32>, tensor<8xf32>) -> tensor<?x8xf32>
    %s = attune.add %l, %prev : (tensor<?x8xf32>, tensor<?x8xf32>) -> tensor<?x8xf32>
    attune.yield %s, %l : tensor<?x8xf32>, tensor<?x8xf32>
  }
  return %r#0, %r#1 : tensor<?x8xf32>, tensor<?x8xf32>
}

// -----

// Nested: the outer prefix comes first; {i} may appear more than once.
// CHECK-LABEL: func.func @nested
// CHECK:       attune.weight "blocks.0.sub.0.0.w"
// CHECK:       attune.weight "blocks.0.sub.1.1.w"
// CHECK:       attune.weight "blocks.1.sub.0.0.w"
// CHECK:       attune.weight "blocks.1.sub.1.1.w"
// CHECK-NOT:   attune.weight
func.func @nested(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %r = attune.repeat %x {count = 2 : i64, prefix = "blocks.{i}."} : (tensor<?x4xf32>) -> tensor<?x4xf32> {
  ^bb0(%h: tensor<?x4xf32>):
    %s = attune.repeat %h {count = 2 : i64, prefix = "sub.{i}.{i}."} : (tensor<?x4xf32>) -> tensor<?x4xf32> {
    ^bb0(%g: tensor<?x4xf32>):
      %w = attune.weight "w" : tensor<4x4xf32>
      %l = attune.linear %g, %w : (tensor<?x4xf32>, tensor<4x4xf32>) -> tensor<?x4xf32>
      attune.yield %l : tensor<?x4xf32>
    }
    attune.yield %s : tensor<?x4xf32>
  }
  return %r : tensor<?x4xf32>
}

// -----

// A body that yields its argument unchanged passes the inits through.
// CHECK-LABEL: func.func @identity
// CHECK-SAME:  (%[[X:.*]]: tensor<2xf32>)
// CHECK-NEXT:  return %[[X]]
func.func @identity(%x: tensor<2xf32>) -> tensor<2xf32> {
  %r = attune.repeat %x {count = 4 : i64, prefix = "l{i}."} : (tensor<2xf32>) -> tensor<2xf32> {
  ^bb0(%h: tensor<2xf32>):
    attune.yield %h : tensor<2xf32>
  }
  return %r : tensor<2xf32>
}
