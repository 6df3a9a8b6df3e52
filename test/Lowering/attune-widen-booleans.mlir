// RUN: attune-opt %s --convert-attune-to-linalg --attune-widen-booleans --split-input-file | FileCheck %s

// A mask computed by one kernel, reshaped, and read by another: stored as
// i32 0 or 1, compared with 0 where it is read.
// CHECK-LABEL: func @mask_between_kernels
// CHECK: %[[E:.*]] = tensor.empty(%{{.*}}) : tensor<?x?xi32>
// CHECK: %[[M:.*]] = linalg.generic {{.*}} outs(%[[E]] : tensor<?x?xi32>)
// CHECK: %[[B:.*]] = arith.cmpi eq
// CHECK: %[[W:.*]] = arith.extui %[[B]] : i1 to i32
// CHECK: linalg.yield %[[W]] : i32
// CHECK: %[[X:.*]] = tensor.expand_shape %[[M]] {{.*}} : tensor<?x?xi32> into tensor<?x?x1xi32>
// CHECK: linalg.generic {{.*}} ins(%[[X]], %{{.*}}, %{{.*}} : tensor<?x?x1xi32>, tensor<f32>, tensor<?x?x4xf32>)
// CHECK: ^bb0(%[[IN:.*]]: i32, %[[F:.*]]: f32, %[[A:.*]]: f32, %{{.*}}: f32):
// CHECK: %[[BIT:.*]] = arith.cmpi ne, %[[IN]], %c0_i32 : i32
// CHECK: arith.select %[[BIT]], %[[F]], %[[A]] : f32
// CHECK-NOT: xi1>
func.func @mask_between_kernels(%ids: tensor<?x?xi64>, %x: tensor<?x?x4xf32>) -> tensor<?x?x4xf32> {
  %pad = arith.constant dense<0> : tensor<i64>
  %fill = arith.constant dense<-1.0> : tensor<f32>
  %m = attune.compare <eq> %ids, %pad : (tensor<?x?xi64>, tensor<i64>) -> tensor<?x?xi1>
  %m3 = attune.expand_dims %m {axis = 2 : i64} : (tensor<?x?xi1>) -> tensor<?x?x1xi1>
  %y = attune.select %m3, %fill, %x : (tensor<?x?x1xi1>, tensor<f32>, tensor<?x?x4xf32>) -> tensor<?x?x4xf32>
  return %y : tensor<?x?x4xf32>
}

// -----

// A constant mask becomes an i32 constant.
// CHECK-LABEL: func @constant_mask
// CHECK: arith.constant dense<[1, 0, 1]> : tensor<3xi32>
// CHECK: arith.cmpi ne
func.func @constant_mask(%x: tensor<?x3xf32>) -> tensor<?x3xf32> {
  %m = arith.constant dense<[true, false, true]> : tensor<3xi1>
  %z = arith.constant dense<0.0> : tensor<f32>
  %y = attune.select %m, %x, %z : (tensor<3xi1>, tensor<?x3xf32>, tensor<f32>) -> tensor<?x3xf32>
  return %y : tensor<?x3xf32>
}

// -----

// A boolean input becomes an i32 argument (the runtime widens the caller's
// bytes), read as != 0.
// CHECK-LABEL: func @bool_input
// CHECK-SAME: (%[[M:.*]]: tensor<?x?xi32>, %{{.*}}: tensor<?x?xf32>) -> tensor<?x?xf32>
// CHECK: linalg.generic {{.*}} ins(%[[M]] : tensor<?x?xi32>)
// CHECK: arith.cmpi ne
func.func @bool_input(%m: tensor<?x?xi1>, %x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %b = attune.mask_bias %m : tensor<?x?xi1> to tensor<?x?xf32>
  %y = attune.add %x, %b : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  return %y : tensor<?x?xf32>
}

// -----

// A boolean output leaves as i32 (the runtime narrows it back to bytes).
// CHECK-LABEL: func @bool_result
// CHECK-SAME: -> tensor<4xi32>
// CHECK: arith.extui
// CHECK: return %{{.*}} : tensor<4xi32>
func.func @bool_result(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xi1> {
  %m = attune.compare <lt> %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  return %m : tensor<4xi1>
}

// -----

// Two functions in one module, each with a constant mask (the pass runs on
// one after the other).
// CHECK-LABEL: func @first
// CHECK: arith.constant dense<[1, 0]> : tensor<2xi32>
// CHECK-LABEL: func @second
// CHECK: arith.constant dense<[0, 1]> : tensor<2xi32>
func.func @first(%x: tensor<2xf32>) -> tensor<2xf32> {
  %m = arith.constant dense<[true, false]> : tensor<2xi1>
  %y = attune.select %m, %x, %x : (tensor<2xi1>, tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %y : tensor<2xf32>
}
func.func @second(%x: tensor<2xf32>) -> tensor<2xf32> {
  %m = arith.constant dense<[false, true]> : tensor<2xi1>
  %z = arith.constant dense<0.0> : tensor<f32>
  %y = attune.select %m, %x, %z : (tensor<2xi1>, tensor<2xf32>, tensor<f32>) -> tensor<2xf32>
  return %y : tensor<2xf32>
}
