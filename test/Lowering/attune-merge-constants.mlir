// RUN: attune-opt %s --attune-merge-constants --split-input-file | FileCheck %s

// Two weights bound under different names with the same bytes (layers that
// are copies of one initialization): one global is kept, both reads use it,
// with the larger alignment.
// CHECK-LABEL: module @resources
// CHECK:       memref.global "private" constant @w0 : memref<2x2xf32> = dense_resource<layer0> {alignment = 64 : i64}
// CHECK-NOT:   @w1 :
// CHECK:       memref.global "private" constant @w2
// CHECK-NOT:   @w1 :
// CHECK:       func.func @f
// CHECK-NEXT:    memref.get_global @w0
// CHECK-NEXT:    memref.get_global @w0
// CHECK-NEXT:    memref.get_global @w2
module @resources {
  memref.global "private" constant @w0 : memref<2x2xf32> = dense_resource<layer0> {alignment = 16 : i64}
  memref.global "private" constant @w1 : memref<2x2xf32> = dense_resource<layer1> {alignment = 64 : i64}
  // One byte apart from the others: kept.
  memref.global "private" constant @w2 : memref<2x2xf32> = dense_resource<layer2> {alignment = 64 : i64}
  func.func @f() -> (memref<2x2xf32>, memref<2x2xf32>, memref<2x2xf32>) {
    %0 = memref.get_global @w0 : memref<2x2xf32>
    %1 = memref.get_global @w1 : memref<2x2xf32>
    %2 = memref.get_global @w2 : memref<2x2xf32>
    return %0, %1, %2 : memref<2x2xf32>, memref<2x2xf32>, memref<2x2xf32>
  }
}

{-#
  dialect_resources: {
    builtin: {
      layer0: "0x040000000000803F0000004000004040000080C0",
      layer1: "0x040000000000803F0000004000004040000080C0",
      layer2: "0x040000000000803F0000004000004040000081C0"
    }
  }
#-}

// -----

// Inline dense constants merge like resources.
// CHECK-LABEL: module @dense
// CHECK:       memref.global "private" constant @a
// CHECK-NOT:   @b :
// CHECK:       func.func @f
// CHECK-NEXT:    memref.get_global @a
// CHECK-NEXT:    memref.get_global @a
module @dense {
  memref.global "private" constant @a : memref<3xf32> = dense<[1.0, 2.0, 3.0]>
  memref.global "private" constant @b : memref<3xf32> = dense<[1.0, 2.0, 3.0]>
  func.func @f() -> (memref<3xf32>, memref<3xf32>) {
    %0 = memref.get_global @a : memref<3xf32>
    %1 = memref.get_global @b : memref<3xf32>
    return %0, %1 : memref<3xf32>, memref<3xf32>
  }
}

// -----

// Not merged: the same bytes as another shape or element type, a mutable
// global, a public one, an uninitialized one, and splats (already one
// attribute each).
// CHECK-LABEL: module @kept
// CHECK:       @a : memref<4xf32>
// CHECK:       @shape : memref<2x2xf32>
// CHECK:       @int : memref<4xi32>
// CHECK:       @mutable : memref<4xf32>
// CHECK:       @public : memref<4xf32>
// CHECK:       @uninit : memref<4xf32>
// CHECK:       @splat0 : memref<4xf32>
// CHECK:       @splat1 : memref<4xf32>
// CHECK:       func.func @f
// CHECK-NEXT:    memref.get_global @a
// CHECK-NEXT:    memref.get_global @shape
// CHECK-NEXT:    memref.get_global @int
// CHECK-NEXT:    memref.get_global @mutable
// CHECK-NEXT:    memref.get_global @public
// CHECK-NEXT:    memref.get_global @uninit
// CHECK-NEXT:    memref.get_global @splat0
// CHECK-NEXT:    memref.get_global @splat1
module @kept {
  memref.global "private" constant @a : memref<4xf32> = dense_resource<bytes0>
  memref.global "private" constant @shape : memref<2x2xf32> = dense_resource<bytes1>
  memref.global "private" constant @int : memref<4xi32> = dense_resource<bytes2>
  memref.global "private" @mutable : memref<4xf32> = dense_resource<bytes3>
  memref.global constant @public : memref<4xf32> = dense_resource<bytes4>
  memref.global "private" @uninit : memref<4xf32> = uninitialized
  memref.global "private" constant @splat0 : memref<4xf32> = dense<1.0>
  memref.global "private" constant @splat1 : memref<4xf32> = dense<1.0>
  func.func @f() {
    %0 = memref.get_global @a : memref<4xf32>
    %1 = memref.get_global @shape : memref<2x2xf32>
    %2 = memref.get_global @int : memref<4xi32>
    %3 = memref.get_global @mutable : memref<4xf32>
    %4 = memref.get_global @public : memref<4xf32>
    %5 = memref.get_global @uninit : memref<4xf32>
    %6 = memref.get_global @splat0 : memref<4xf32>
    %7 = memref.get_global @splat1 : memref<4xf32>
    return
  }
}

{-#
  dialect_resources: {
    builtin: {
      bytes0: "0x040000000000803F0000004000004040000080C0",
      bytes1: "0x040000000000803F0000004000004040000080C0",
      bytes2: "0x040000000000803F0000004000004040000080C0",
      bytes3: "0x040000000000803F0000004000004040000080C0",
      bytes4: "0x040000000000803F0000004000004040000080C0"
    }
  }
#-}
