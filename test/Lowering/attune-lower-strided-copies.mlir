// RUN: attune-opt %s --attune-lower-strided-copies | FileCheck %s

// CHECK-LABEL: func @strided
// CHECK-NOT: memref.copy
// CHECK: linalg.copy ins(%{{.*}} : memref<2x16xf32>) outs(%{{.*}} : memref<2x16xf32, strided<[96, 1], offset: ?>>)
func.func @strided(%src: memref<2x16xf32>, %dst: memref<2x16xf32, strided<[96, 1], offset: ?>>) {
  memref.copy %src, %dst : memref<2x16xf32> to memref<2x16xf32, strided<[96, 1], offset: ?>>
  return
}

// Negative case: contiguous copies stay memcpy-able memref.copy.
// CHECK-LABEL: func @contiguous
// CHECK: memref.copy
// CHECK-NOT: linalg.copy
func.func @contiguous(%src: memref<2x16xf32>, %dst: memref<2x16xf32>) {
  memref.copy %src, %dst : memref<2x16xf32> to memref<2x16xf32>
  return
}
