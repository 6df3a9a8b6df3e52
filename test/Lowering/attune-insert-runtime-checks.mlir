// RUN: attune-opt %s --convert-attune-to-linalg --attune-insert-runtime-checks | FileCheck %s

// Before the kernel: its operands' extents are checked against the loop
// ranges, with the attune op's location in the message.
// CHECK-LABEL: func @add
// CHECK: cf.assert %{{.*}}, "{{.*}}attune-insert-runtime-checks.mlir:9:8: input shapes disagree: dimension #0 of input/output operand #{{[0-9]}} is incompatible with inferred dimension size"
// CHECK: linalg.generic
func.func @add(%a: tensor<?x8xf32>, %b: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %0 = attune.add %a, %b : (tensor<?x8xf32>, tensor<?x8xf32>) -> tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}

// Negative case: no check inside kernel bodies (the embedding clamps its ids).
// CHECK-LABEL: func @embedding
// CHECK: linalg.generic
// CHECK: tensor.extract
// CHECK-NOT: cf.assert
// CHECK: linalg.yield
func.func @embedding(%ids: tensor<4xi64>, %t: tensor<10x8xf32>) -> tensor<4x8xf32> {
  %0 = attune.embedding %ids, %t : (tensor<4xi64>, tensor<10x8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}
