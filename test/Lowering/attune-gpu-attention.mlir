// RUN: attune-opt %s --attune-gpu-attention --split-input-file | FileCheck %s

// One parallel loop over query rows; the key loop carries the running max,
// the sum and one accumulator per value dim; causal bounds the key range.
// CHECK-LABEL: func.func @causal
// CHECK:         cf.assert {{.*}}the batch of the keys differs from the queries'
// CHECK:         %[[Q:.*]] = bufferization.to_buffer %arg0 read_only : tensor<?x4x?x8xf32> to memref<?x4x?x8xf32>
// CHECK:         %[[OUT:.*]] = memref.alloc(%{{.*}}, %{{.*}}) : memref<?x4x?x2xf32>
// CHECK:         scf.parallel (%[[B:.*]], %[[H:.*]], %[[I:.*]]) =
// CHECK:           %[[KVH:.*]] = arith.divui %[[H]], %c2
// CHECK:           %[[NEXT:.*]] = arith.addi %{{.*}}, %c1
// CHECK:           %[[END:.*]] = arith.minsi %{{.*}}, %[[NEXT]]
// CHECK:           scf.for %{{.*}} = %c0{{.*}} to %[[END]] step %c1{{.*}} iter_args({{.*}}) -> (f32, f32, f32, f32)
// CHECK:             scf.for
// CHECK:               memref.load %[[Q]][%[[B]], %[[H]], %[[I]], %{{.*}}]
// CHECK:               math.fma
// CHECK:             math.exp
// CHECK-NOT:         math.exp
// CHECK:             scf.yield
// CHECK:           memref.store %{{.*}}, %[[OUT]][%[[B]], %[[H]], %[[I]], %{{.*}}]
// CHECK:           memref.store %{{.*}}, %[[OUT]][%[[B]], %[[H]], %[[I]], %{{.*}}]
// CHECK:         bufferization.to_tensor %[[OUT]] restrict writable
func.func @causal(%q: tensor<?x4x?x8xf32>, %k: tensor<?x2x?x8xf32>, %v: tensor<?x2x?x2xf32>) -> tensor<?x4x?x2xf32> {
  %o = attune.attention %q, %k, %v {causal} : (tensor<?x4x?x8xf32>, tensor<?x2x?x8xf32>, tensor<?x2x?x2xf32>) -> tensor<?x4x?x2xf32>
  return %o : tensor<?x4x?x2xf32>
}

// -----

// Key lengths bound the loop; a window sets its start; the bias is read
// per score.
// CHECK-LABEL: func.func @masked
// CHECK:         scf.parallel
// CHECK:           memref.load %{{.*}}[%{{.*}}] : memref<?xi64>
// CHECK:           arith.maxsi
// CHECK:           scf.for
// CHECK:             memref.load %{{.*}} : memref<4x3x5xf32>
func.func @masked(%q: tensor<?x4x3x8xf32>, %k: tensor<?x4x5x8xf32>, %v: tensor<?x4x5x8xf32>, %len: tensor<?xi64>, %bias: tensor<4x3x5xf32>) -> tensor<?x4x3x8xf32> {
  %o = attune.attention %q, %k, %v key_lengths(%len) bias(%bias) {window = 2 : i64} : (tensor<?x4x3x8xf32>, tensor<?x4x5x8xf32>, tensor<?x4x5x8xf32>, tensor<?xi64>, tensor<4x3x5xf32>) -> tensor<?x4x3x8xf32>
  return %o : tensor<?x4x3x8xf32>
}

// -----

// Hard selection and returned weights keep the plain lowering.
// CHECK-LABEL: func.func @hard
// CHECK:         attune.attention
// CHECK-NOT:     scf.parallel
func.func @hard(%q: tensor<1x1x3x8xf32>, %k: tensor<1x1x5x8xf32>, %v: tensor<1x1x5x8xf32>) -> (tensor<1x1x3x8xf32>, tensor<1x1x3x5xf32>) {
  %o, %w = attune.attention %q, %k, %v {selection = #attune.selection<hard>, return_weights} : (tensor<1x1x3x8xf32>, tensor<1x1x5x8xf32>, tensor<1x1x5x8xf32>) -> (tensor<1x1x3x8xf32>, tensor<1x1x3x5xf32>)
  return %o, %w : tensor<1x1x3x8xf32>, tensor<1x1x3x5xf32>
}
