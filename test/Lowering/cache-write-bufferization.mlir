// RUN: attune-opt %s --convert-attune-to-linalg="check-indices=1 defer-checks=1" --attune-mark-writable-args --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" --split-input-file | FileCheck %s
// RUN: attune-opt %s --convert-attune-to-linalg="check-indices=1 defer-checks=1" --attune-mark-writable-args --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" --attune-drop-state-results --split-input-file -verify-diagnostics | FileCheck %s --check-prefix=DROP

// On Vulkan (deferred checks) attune.cache_write stays through the
// conversion, after its capacity check (a device flag for attune_vk_check),
// and one-shot bufferization writes it in place (Vulkan/
// CacheWriteBufferization.cpp): an scf.parallel over the update [B, H, T, D]
// stores each element at row positions[b] + t of the cache argument's own
// buffer, skipping rows outside [0, capacity); no allocation, no copy.
// CHECK-LABEL: func.func @step
// CHECK-SAME:      %[[CACHE:[a-z0-9_]+]]: memref<?x2x8x4xf32>
// CHECK-SAME:      %[[UPDATE:[a-z0-9_]+]]: memref<?x2x?x4xf32>
// CHECK-SAME:      %[[POS:[a-z0-9_]+]]: memref<?xi64>
// CHECK:         call @attune_vk_check
// CHECK-NOT:     memref.copy
// CHECK:         scf.parallel (%[[B:.*]], %[[H:.*]], %[[T:.*]], %[[D:.*]]) =
// CHECK:           %[[P:.*]] = memref.load %[[POS]][%[[B]]]
// CHECK:           %[[FIRST:.*]] = arith.index_cast %[[P]]
// CHECK:           %[[ROW:.*]] = arith.addi %[[FIRST]], %[[T]]
// CHECK:           scf.if
// CHECK:             %[[X:.*]] = memref.load %[[UPDATE]][%[[B]], %[[H]], %[[T]], %[[D]]]
// CHECK:             memref.store %[[X]], %[[CACHE]][%[[B]], %[[H]], %[[ROW]], %[[D]]]
// CHECK-NOT:     memref.copy
// CHECK:         return %[[CACHE]]
// With attune-drop-state-results the result goes: the caller's buffer holds
// the new cache.
// DROP-LABEL: func.func @step
// DROP-SAME:     %{{.*}}: memref<?xi64>) {
// DROP:          return{{$}}
func.func @step(%k: tensor<?x2x8x4xf32> {attune.state = "k"}, %u: tensor<?x2x?x4xf32>, %p: tensor<?xi64>)
    -> (tensor<?x2x8x4xf32> {attune.state = "k"}) {
  %r = attune.cache_write %k, %u, %p : (tensor<?x2x8x4xf32>, tensor<?x2x?x4xf32>, tensor<?xi64>) -> tensor<?x2x8x4xf32>
  return %r : tensor<?x2x8x4xf32>
}

// -----

// The old cache read after the write: bufferization must copy it, and
// attune-drop-state-results rejects the step instead of copying a cache per
// token.
// CHECK-LABEL: func.func @reads_old
// CHECK:         memref.copy
// DROP-NOT:   func.func @reads_old
// expected-error @+1 {{cannot update the state 'k' in place}}
func.func @reads_old(%k: tensor<?x2x8x4xf32> {attune.state = "k"}, %u: tensor<?x2x?x4xf32>, %p: tensor<?xi64>)
    -> (tensor<?x2x8x4xf32> {attune.state = "k"}, tensor<?x2x8x4xf32>) {
  %r = attune.cache_write %k, %u, %p : (tensor<?x2x8x4xf32>, tensor<?x2x?x4xf32>, tensor<?xi64>) -> tensor<?x2x8x4xf32>
  %old = attune.add %k, %k : (tensor<?x2x8x4xf32>, tensor<?x2x8x4xf32>) -> tensor<?x2x8x4xf32>
  return %r, %old : tensor<?x2x8x4xf32>, tensor<?x2x8x4xf32>
}
