// RUN: attune-opt %s --split-input-file --attune-tile-attention="tile-q=32 tile-k=16 min-length=64" | FileCheck %s

// Batch, heads and query tiles, then a key loop whose upper bound is cut by
// causality (the last query of the tile + 1) and the padding length; the
// running max / sum / accumulator are its iter_args. No [Lq, Lk] tensor.
// CHECK-LABEL: func @causal
// CHECK:       scf.for %[[B:.*]] = %{{.*}} to %{{.*}} step
// CHECK:         scf.for %[[H:.*]] = %{{.*}} to %{{.*}} step
// CHECK:           %[[LEN:.*]] = arith.index_cast
// CHECK:           scf.for %[[I0:.*]] = %{{.*}} to %{{.*}} step %c32
// CHECK:             %[[TQ:.*]] = arith.minsi %c32
// CHECK:             %[[HI0:.*]] = arith.minsi %{{.*}}, %[[LEN]]
// CHECK:             %[[HI:.*]] = arith.minsi %[[HI0]]
// CHECK:             scf.for %{{.*}} = %{{.*}} to %[[HI]] step %c16 iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (tensor<?xf32>, tensor<?xf32>, tensor<?x64xf32>)
// CHECK:               arith.maximumf
// CHECK:               math.exp
// CHECK:               scf.yield
// CHECK:             arith.divf
// CHECK:             tensor.insert_slice
// CHECK-NOT: tensor<?x12x?x?xf32>
func.func @causal(%q: tensor<?x12x?x64xf32>, %k: tensor<?x12x?x64xf32>, %v: tensor<?x12x?x64xf32>,
                  %len: tensor<?xi32>) -> tensor<?x12x?x64xf32> {
  %o = attune.attention %q, %k, %v key_lengths(%len) {causal}
      : (tensor<?x12x?x64xf32>, tensor<?x12x?x64xf32>, tensor<?x12x?x64xf32>, tensor<?xi32>) -> tensor<?x12x?x64xf32>
  return %o : tensor<?x12x?x64xf32>
}

// -----

// A sliding window also raises the loop's lower bound.
// CHECK-LABEL: func @window
// CHECK: %[[LO:.*]] = arith.maxsi
// CHECK: scf.for %{{.*}} = %[[LO]] to
func.func @window(%q: tensor<1x2x128x16xf32>) -> tensor<1x2x128x16xf32> {
  %o = attune.attention %q, %q, %q {window = 8 : i64}
      : (tensor<1x2x128x16xf32>, tensor<1x2x128x16xf32>, tensor<1x2x128x16xf32>) -> tensor<1x2x128x16xf32>
  return %o : tensor<1x2x128x16xf32>
}

// -----

// Negative cases: short static sequences keep the plain form (the cost rule),
// and hard selection or the weights result need the full scores.
// CHECK-LABEL: func @untouched
// CHECK-NOT: scf.for
// CHECK: attune.attention
// CHECK: attune.attention {{.*}}selection = #attune.selection<hard>
// CHECK: attune.attention {{.*}}return_weights
func.func @untouched(%s: tensor<1x2x32x16xf32>, %l: tensor<1x2x128x16xf32>)
    -> (tensor<1x2x32x16xf32>, tensor<1x2x128x16xf32>, tensor<1x2x128x16xf32>) {
  %0 = attune.attention %s, %s, %s : (tensor<1x2x32x16xf32>, tensor<1x2x32x16xf32>, tensor<1x2x32x16xf32>) -> tensor<1x2x32x16xf32>
  %1 = attune.attention %l, %l, %l {selection = #attune.selection<hard>}
      : (tensor<1x2x128x16xf32>, tensor<1x2x128x16xf32>, tensor<1x2x128x16xf32>) -> tensor<1x2x128x16xf32>
  %2:2 = attune.attention %l, %l, %l {return_weights}
      : (tensor<1x2x128x16xf32>, tensor<1x2x128x16xf32>, tensor<1x2x128x16xf32>) -> (tensor<1x2x128x16xf32>, tensor<1x2x128x128xf32>)
  return %0, %1, %2#0 : tensor<1x2x32x16xf32>, tensor<1x2x128x16xf32>, tensor<1x2x128x16xf32>
}
