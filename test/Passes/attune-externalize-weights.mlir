// RUN: attune-opt %s --attune-externalize-weights --split-input-file --verify-diagnostics | FileCheck %s

// One global per name; one read-only view per function.
// CHECK:      memref.global @attune_weight_0 : memref<4xf32> = uninitialized {alignment = 64 : i64, attune.weight_name = "a.weight"}
// CHECK-NEXT: memref.global @attune_weight_1 : memref<2x4xf32> = uninitialized {alignment = 64 : i64, attune.weight_name = "b.weight"}
// CHECK-LABEL: func @f
// CHECK-NEXT: %[[G1:.*]] = memref.get_global @attune_weight_1 : memref<2x4xf32>
// CHECK-NEXT: %[[B:.*]] = bufferization.to_tensor %[[G1]] restrict
// CHECK-NEXT: %[[G0:.*]] = memref.get_global @attune_weight_0 : memref<4xf32>
// CHECK-NEXT: %[[A:.*]] = bufferization.to_tensor %[[G0]] restrict
// CHECK-NEXT: attune.add %{{.*}}, %[[A]]
// CHECK-NEXT: attune.add %{{.*}}, %[[A]]
// CHECK-NEXT: attune.add %{{.*}}, %[[B]]
// CHECK-NOT: attune.weight
// CHECK-LABEL: func @g
// CHECK: memref.get_global @attune_weight_0
func.func @f(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %a = attune.weight "a.weight" : tensor<4xf32>
  %b = attune.weight "b.weight" : tensor<2x4xf32>
  %a2 = attune.weight "a.weight" : tensor<4xf32>
  %0 = attune.add %x, %a : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %1 = attune.add %0, %a2 : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %2 = attune.add %1, %b : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  return %2 : tensor<2x4xf32>
}
func.func @g(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = attune.weight "a.weight" : tensor<4xf32>
  %0 = attune.add %x, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @conflict() {
  %a = attune.weight "w" : tensor<4xf32>
  // expected-error @+1 {{'attune.weight' op weight 'w' is declared 'tensor<8xf32>' here and with another type elsewhere}}
  %b = attune.weight "w" : tensor<8xf32>
  return
}
