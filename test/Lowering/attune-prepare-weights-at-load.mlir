// RUN: attune-opt %s --split-input-file --verify-diagnostics --attune-prepare-weights-at-load | FileCheck %s

// Two entries pack the same external weight alike (expand, transpose into
// panels): the packing moves into @attune_prepare_weights_0, computed and
// stored once (the transpose writes into the global), and both entries read
// the packed global. The bias, read as
// it is (views only), stays a read of its weight in the entries. The weight
// only the preparation reads is listed on the module; the bias is not.
// CHECK:       module attributes {attune.prepared_only_weights = ["w"], attune.weight_preparations = {{\[\[}}"attune_weight_0"]]}
// CHECK-LABEL: func.func @prefill
// CHECK-NOT:   linalg.transpose
// CHECK-NOT:   @attune_weight_0
// CHECK-DAG:   %[[P:.*]] = memref.get_global @attune_prepared_0 : memref<2x3x2xf32>
// CHECK-DAG:   %[[PT:.*]] = bufferization.to_tensor %[[P]] restrict : memref<2x3x2xf32> to tensor<2x3x2xf32>
// CHECK-DAG:   memref.get_global @attune_weight_1 : memref<4xf32>
// CHECK:       linalg.generic {{.*}} ins(%{{.*}}, %[[PT]], %{{.*}} :
// CHECK-LABEL: func.func @step
// CHECK-NOT:   linalg.transpose
// CHECK:       memref.get_global @attune_prepared_0 : memref<2x3x2xf32>
// CHECK-LABEL: func.func @attune_prepare_weights_0()
// CHECK:       %[[W:.*]] = memref.get_global @attune_weight_0 : memref<4x3xf32>
// CHECK:       %[[WT:.*]] = bufferization.to_tensor %[[W]] restrict
// CHECK:       %[[E:.*]] = tensor.expand_shape %[[WT]]
// CHECK:       %[[G:.*]] = memref.get_global @attune_prepared_0
// CHECK:       %[[GT:.*]] = bufferization.to_tensor %[[G]] restrict writable
// CHECK:       %[[T:.*]] = linalg.transpose ins(%[[E]] : tensor<2x2x3xf32>) outs(%[[GT]] : tensor<2x3x2xf32>)
// CHECK:       bufferization.materialize_in_destination %[[T]] in writable %[[G]]
// CHECK-NOT:   materialize_in_destination
// CHECK:       return
// CHECK:       memref.global "private" @attune_prepared_0 : memref<2x3x2xf32> = uninitialized {alignment = 64 : i64}
// CHECK-NOT:   @attune_prepared_1
memref.global @attune_weight_0 : memref<4x3xf32> = uninitialized {alignment = 64 : i64, attune.weight_name = "w"}
memref.global @attune_weight_1 : memref<4xf32> = uninitialized {alignment = 64 : i64, attune.weight_name = "b"}
#in = affine_map<(m, p, k, j) -> (m, k)>
#w = affine_map<(m, p, k, j) -> (p, k, j)>
#b = affine_map<(m, p, k, j) -> (p, j)>
#out = affine_map<(m, p, k, j) -> (m, p, j)>
func.func @prefill(%x: tensor<5x3xf32>) -> (tensor<5x2x2xf32>, tensor<4xf32>) {
  %0 = memref.get_global @attune_weight_0 : memref<4x3xf32>
  %w = bufferization.to_tensor %0 restrict : memref<4x3xf32> to tensor<4x3xf32>
  %1 = memref.get_global @attune_weight_1 : memref<4xf32>
  %b = bufferization.to_tensor %1 restrict : memref<4xf32> to tensor<4xf32>
  %e = tensor.expand_shape %w [[0, 1], [2]] output_shape [2, 2, 3] : tensor<4x3xf32> into tensor<2x2x3xf32>
  %empty = tensor.empty() : tensor<2x3x2xf32>
  %p = linalg.transpose ins(%e : tensor<2x2x3xf32>) outs(%empty : tensor<2x3x2xf32>) permutation = [0, 2, 1]
  %bp = tensor.expand_shape %b [[0, 1]] output_shape [2, 2] : tensor<4xf32> into tensor<2x2xf32>
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<5x2x2xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%init : tensor<5x2x2xf32>) -> tensor<5x2x2xf32>
  %y = linalg.generic {indexing_maps = [#in, #w, #b, #out],
                       iterator_types = ["parallel", "parallel", "reduction", "parallel"]}
      ins(%x, %p, %bp : tensor<5x3xf32>, tensor<2x3x2xf32>, tensor<2x2xf32>)
      outs(%fill : tensor<5x2x2xf32>) {
  ^bb0(%a: f32, %c: f32, %d: f32, %acc: f32):
    %m = arith.mulf %a, %c : f32
    %s = arith.addf %acc, %m : f32
    %t = arith.addf %s, %d : f32
    linalg.yield %t : f32
  } -> tensor<5x2x2xf32>
  return %y, %b : tensor<5x2x2xf32>, tensor<4xf32>
}
func.func @step(%x: tensor<1x3xf32>) -> tensor<2x3x2xf32> {
  %0 = memref.get_global @attune_weight_0 : memref<4x3xf32>
  %w = bufferization.to_tensor %0 restrict : memref<4x3xf32> to tensor<4x3xf32>
  %e = tensor.expand_shape %w [[0, 1], [2]] output_shape [2, 2, 3] : tensor<4x3xf32> into tensor<2x2x3xf32>
  %empty = tensor.empty() : tensor<2x3x2xf32>
  %p = linalg.transpose ins(%e : tensor<2x2x3xf32>) outs(%empty : tensor<2x3x2xf32>) permutation = [0, 2, 1]
  return %p : tensor<2x3x2xf32>
}

// -----

// One preparation per group of weights prepared together: the runtime
// reads a group's weights, runs its function and releases them before the
// next group's. @attune_weight_0 feeds two packed values (its two halves),
// both in preparation 0; @attune_weight_1 is preparation 1.
// CHECK:       attune.weight_preparations = {{\[\[}}"attune_weight_0"], ["attune_weight_1"]]
// CHECK-LABEL: func.func @two
// CHECK-NOT:   linalg.transpose
// CHECK-LABEL: func.func @attune_prepare_weights_0()
// CHECK-NOT:   @attune_weight_1
// CHECK:       memref.get_global @attune_weight_0
// CHECK-NOT:   @attune_weight_1
// CHECK:       linalg.transpose
// CHECK-NOT:   @attune_weight_1
// CHECK:       linalg.transpose
// CHECK-NOT:   @attune_weight_1
// CHECK:       return
// CHECK-LABEL: func.func @attune_prepare_weights_1()
// CHECK-NOT:   @attune_weight_0
// CHECK:       memref.get_global @attune_weight_1
// CHECK-NOT:   @attune_weight_0
// CHECK:       linalg.transpose
// CHECK-NOT:   @attune_weight_0
// CHECK:       return
memref.global @attune_weight_0 : memref<4x2xf32> = uninitialized {alignment = 64 : i64, attune.weight_name = "w0"}
memref.global @attune_weight_1 : memref<4x2xf32> = uninitialized {alignment = 64 : i64, attune.weight_name = "w1"}
func.func @two() -> (tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x4xf32>) {
  %0 = memref.get_global @attune_weight_0 : memref<4x2xf32>
  %w0 = bufferization.to_tensor %0 restrict : memref<4x2xf32> to tensor<4x2xf32>
  %1 = memref.get_global @attune_weight_1 : memref<4x2xf32>
  %w1 = bufferization.to_tensor %1 restrict : memref<4x2xf32> to tensor<4x2xf32>
  %top = tensor.extract_slice %w0[0, 0] [2, 2] [1, 1] : tensor<4x2xf32> to tensor<2x2xf32>
  %bottom = tensor.extract_slice %w0[2, 0] [2, 2] [1, 1] : tensor<4x2xf32> to tensor<2x2xf32>
  %e = tensor.empty() : tensor<2x2xf32>
  %t0 = linalg.transpose ins(%top : tensor<2x2xf32>) outs(%e : tensor<2x2xf32>) permutation = [1, 0]
  %t1 = linalg.transpose ins(%bottom : tensor<2x2xf32>) outs(%e : tensor<2x2xf32>) permutation = [1, 0]
  %e4 = tensor.empty() : tensor<2x4xf32>
  %t2 = linalg.transpose ins(%w1 : tensor<4x2xf32>) outs(%e4 : tensor<2x4xf32>) permutation = [1, 0]
  return %t0, %t1, %t2 : tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x4xf32>
}

// -----

// Bound weights (constants) fold at compile time: nothing to prepare, no
// function.
// CHECK-LABEL: func.func @bound
// CHECK:       linalg.transpose
// CHECK-NOT:   attune_prepare_weights
func.func @bound() -> tensor<3x4xf32> {
  %w = arith.constant dense<1.0> : tensor<4x3xf32>
  %empty = tensor.empty() : tensor<3x4xf32>
  %t = linalg.transpose ins(%w : tensor<4x3xf32>) outs(%empty : tensor<3x4xf32>) permutation = [1, 0]
  return %t : tensor<3x4xf32>
}

// -----

// A computation that also reads an input is not the weights' alone: it
// stays.
// CHECK-LABEL: func.func @mixed
// CHECK:       linalg.add
// CHECK-NOT:   attune_prepare_weights
memref.global @attune_weight_0 : memref<4xf32> = uninitialized {alignment = 64 : i64, attune.weight_name = "w"}
func.func @mixed(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = memref.get_global @attune_weight_0 : memref<4xf32>
  %w = bufferization.to_tensor %0 restrict : memref<4xf32> to tensor<4xf32>
  %empty = tensor.empty() : tensor<4xf32>
  %y = linalg.add ins(%w, %x : tensor<4xf32>, tensor<4xf32>) outs(%empty : tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// The preparations' names are the runtime's contract: a module that already
// uses one is refused.
module {
  // expected-error @below {{attune-prepare-weights-at-load: the symbol @attune_prepare_weights_3 takes a name the preparation uses (attune_prepare_weights_N)}}
  func.func @attune_prepare_weights_3() {
    return
  }
}
