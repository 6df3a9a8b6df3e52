// RUN: attune-opt %s --split-input-file --attune-bind-weights=file=%golden/linear/weights.safetensors --verify-diagnostics | FileCheck %s

// CHECK-LABEL: func @bound
// CHECK-NEXT: %[[W:.*]] = arith.constant dense_resource<weight> : tensor<8x16xf32>
// CHECK-NEXT: %[[B:.*]] = arith.constant dense_resource<bias> : tensor<8xf32>
// CHECK-NEXT: attune.linear %{{.*}}, %[[W]], %[[B]]
// CHECK-NOT: attune.weight
// CHECK: dialect_resources
// CHECK: weight: "0x40000000
func.func @bound(%x: tensor<2x16xf32>) -> tensor<2x8xf32> {
  %w = attune.weight "weight" : tensor<8x16xf32>
  %b = attune.weight "bias" : tensor<8xf32>
  %0 = attune.linear %x, %w, %b : (tensor<2x16xf32>, tensor<8x16xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

func.func @mismatches() {
  // expected-error @+1 {{'attune.weight' op weight 'weight' has shape [8, 16] in}}
  %w = attune.weight "weight" : tensor<16x8xf32>
  // expected-error @+1 {{'attune.weight' op weight 'bias' has dtype F32 in}}
  %b = attune.weight "bias" : tensor<8xf16>
  // expected-error @+1 {{'attune.weight' op weight 'weights' is not in}}
  %c = attune.weight "weights" : tensor<8x16xf32>
  return
}
