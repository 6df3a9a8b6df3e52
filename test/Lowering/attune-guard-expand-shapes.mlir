// RUN: attune-opt %s --split-input-file --attune-guard-expand-shapes --verify-diagnostics | FileCheck %s

// The form MLIR 22's expand-strided-metadata crashes on
// (docs/upstream/expand-strided-metadata.mlir) is a located error.
func.func @two_dynamic(%m: memref<?xf32>, %a: index, %b: index) -> memref<?x?xf32> {
  // expected-error @+1 {{memref.expand_shape with 2 dynamic dims in reassociation group #0 ([0, 1]): MLIR 22's expand-strided-metadata would crash on it}}
  %e = memref.expand_shape %m [[0, 1]] output_shape [%a, %b] : memref<?xf32> into memref<?x?xf32>
  return %e : memref<?x?xf32>
}

// -----

// One dynamic dim per group, as the lowerings build them, passes.
// CHECK-LABEL: func.func @one_dynamic
// CHECK: memref.expand_shape
func.func @one_dynamic(%m: memref<?x64xf32>, %a: index) -> memref<?x4x16xf32> {
  %e = memref.expand_shape %m [[0], [1, 2]] output_shape [%a, 4, 16] : memref<?x64xf32> into memref<?x4x16xf32>
  return %e : memref<?x4x16xf32>
}
