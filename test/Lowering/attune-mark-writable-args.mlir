// RUN: attune-opt %s --attune-mark-writable-args | FileCheck %s
// RUN: attune-opt %s --attune-mark-writable-args --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" | FileCheck %s --check-prefix=BUF

// A public function's inputs belong to the caller: not writable, so a write
// into one is a copy; a generation state is written in place. Private
// functions are left to bufferization.
// CHECK-LABEL: func @step
// CHECK-SAME:  %{{.*}}: tensor<2x4xf32> {bufferization.writable = false}
// CHECK-SAME:  %{{.*}}: tensor<2x4xf32> {attune.state = "k", bufferization.writable = true}
// CHECK-LABEL: func private @helper
// CHECK-NOT:   bufferization.writable
// BUF-LABEL:   func @step
// BUF:         %[[COPY:.*]] = memref.alloc() {{.*}} : memref<2x4xf32>
// BUF:         memref.copy %arg0, %[[COPY]]
// BUF-NOT:     memref.copy %arg1
// BUF:         memref.store %{{.*}}, %arg1[
func.func @step(%x: tensor<2x4xf32>, %k: tensor<2x4xf32> {attune.state = "k"})
    -> (tensor<2x4xf32>, tensor<2x4xf32> {attune.state = "k"}) {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1.0 : f32
  %x1 = tensor.insert %one into %x[%c0, %c0] : tensor<2x4xf32>
  %k1 = tensor.insert %one into %k[%c0, %c0] : tensor<2x4xf32>
  return %x1, %k1 : tensor<2x4xf32>, tensor<2x4xf32>
}
func.func private @helper(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  return %x : tensor<2x4xf32>
}
