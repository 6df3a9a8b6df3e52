// RUN: attune-opt %s --split-input-file --attune-free-after-last-use | FileCheck %s

// Ownership-based deallocation frees at the block's end; each dealloc moves
// to right after the last op that uses its buffer, so the next buffer of the
// same size can take its place.
// CHECK-LABEL: func @straight_line
// CHECK:       %[[A:.*]] = memref.alloc() : memref<64xf32>
// CHECK-NEXT:  linalg.fill ins(%{{.*}} : f32) outs(%[[A]] : memref<64xf32>)
// CHECK-NEXT:  linalg.copy ins(%[[A]] : memref<64xf32>) outs(%{{.*}} : memref<64xf32>)
// CHECK-NEXT:  memref.dealloc %[[A]] : memref<64xf32>
// CHECK-NEXT:  %[[B:.*]] = memref.alloc() : memref<64xf32>
// CHECK-NEXT:  linalg.fill ins(%{{.*}} : f32) outs(%[[B]] : memref<64xf32>)
// CHECK-NEXT:  linalg.copy ins(%[[B]] : memref<64xf32>) outs(%{{.*}} : memref<64xf32>)
// CHECK-NEXT:  memref.dealloc %[[B]] : memref<64xf32>
// CHECK-NEXT:  return
func.func @straight_line(%c: f32, %out: memref<64xf32>, %out2: memref<64xf32>) {
  %a = memref.alloc() : memref<64xf32>
  linalg.fill ins(%c : f32) outs(%a : memref<64xf32>)
  linalg.copy ins(%a : memref<64xf32>) outs(%out : memref<64xf32>)
  %b = memref.alloc() : memref<64xf32>
  linalg.fill ins(%c : f32) outs(%b : memref<64xf32>)
  linalg.copy ins(%b : memref<64xf32>) outs(%out2 : memref<64xf32>)
  memref.dealloc %a : memref<64xf32>
  memref.dealloc %b : memref<64xf32>
  return
}

// -----

// A view's uses count (here a reshape, then a subview of it read inside a
// loop): the dealloc goes after the loop, the last op in the block that
// reads the buffer.
// CHECK-LABEL: func @views_and_regions
// CHECK:       %[[A:.*]] = memref.alloc() : memref<8x8xf32>
// CHECK:       memref.collapse_shape %[[A]]
// CHECK:       scf.for
// CHECK:         memref.subview
// CHECK:         memref.load
// CHECK:       }
// CHECK-NEXT:  memref.dealloc %[[A]] : memref<8x8xf32>
// CHECK-NEXT:  %[[B:.*]] = memref.alloc() : memref<64xf32>
func.func @views_and_regions(%c: f32, %out: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %a = memref.alloc() : memref<8x8xf32>
  linalg.fill ins(%c : f32) outs(%a : memref<8x8xf32>)
  %flat = memref.collapse_shape %a [[0, 1]] : memref<8x8xf32> into memref<64xf32>
  scf.for %i = %c0 to %c8 step %c1 {
    %row = memref.subview %flat[%i] [8] [1] : memref<64xf32> to memref<8xf32, strided<[1], offset: ?>>
    %v = memref.load %row[%c0] : memref<8xf32, strided<[1], offset: ?>>
    memref.store %v, %out[%i] : memref<8xf32>
  }
  %b = memref.alloc() : memref<64xf32>
  linalg.fill ins(%c : f32) outs(%b : memref<64xf32>)
  memref.dealloc %a : memref<8x8xf32>
  memref.dealloc %b : memref<64xf32>
  return
}

// -----

// A buffer an scf.if yields (as the padded-or-not inputs of tiled
// attention): the if's result is a view too, so the dealloc follows its
// last use.
// CHECK-LABEL: func @yielded
// CHECK:       %[[A:.*]] = memref.alloc() : memref<64xf32>
// CHECK:       %[[R:.*]] = scf.if
// CHECK:       linalg.copy ins(%[[R]] : memref<64xf32>)
// CHECK-NEXT:  memref.dealloc %[[A]] : memref<64xf32>
// CHECK-NEXT:  return
func.func @yielded(%p: i1, %c: f32, %other: memref<64xf32>, %out: memref<64xf32>) {
  %a = memref.alloc() : memref<64xf32>
  linalg.fill ins(%c : f32) outs(%a : memref<64xf32>)
  %r = scf.if %p -> memref<64xf32> {
    scf.yield %a : memref<64xf32>
  } else {
    scf.yield %other : memref<64xf32>
  }
  %b = memref.alloc() : memref<64xf32>
  linalg.fill ins(%c : f32) outs(%b : memref<64xf32>)
  linalg.copy ins(%r : memref<64xf32>) outs(%out : memref<64xf32>)
  memref.dealloc %b : memref<64xf32>
  memref.dealloc %a : memref<64xf32>
  return
}

// -----

// Padded or not (tiled attention's operand when its length may not be a
// multiple of the tile): an scf.if yields the buffer itself or a fresh
// padded copy, and the deallocation pipeline frees the if's result under
// the negated condition (its ownership), so only ever the copy. That
// dealloc is a use of the buffer, not another free of it: the buffer's own
// dealloc still follows its last use. Under any other condition (here the
// same one, which would free the buffer itself) it stays.
// CHECK-LABEL: func @padded_copy_freed
// CHECK:       %[[A:.*]] = memref.alloc(%{{.*}}) : memref<?xf32>
// CHECK:       %[[R:.*]] = scf.if
// CHECK:       linalg.copy ins(%[[R]] : memref<?xf32>)
// CHECK:       scf.if %{{.*}} {
// CHECK-NEXT:    memref.dealloc
// CHECK-NEXT:  }
// CHECK-NEXT:  memref.dealloc %[[A]] : memref<?xf32>
// CHECK-NEXT:  %[[B:.*]] = memref.alloc() : memref<64xf32>
func.func @padded_copy_freed(%n: index, %c: f32, %out: memref<?xf32>) {
  %c64 = arith.constant 64 : index
  %a = memref.alloc(%n) : memref<?xf32>
  linalg.fill ins(%c : f32) outs(%a : memref<?xf32>)
  %aligned = arith.cmpi eq, %n, %c64 : index
  %r = scf.if %aligned -> memref<?xf32> {
    scf.yield %a : memref<?xf32>
  } else {
    %p = memref.alloc(%c64) : memref<?xf32>
    memref.copy %a, %p : memref<?xf32> to memref<?xf32>
    scf.yield %p : memref<?xf32>
  }
  linalg.copy ins(%r : memref<?xf32>) outs(%out : memref<?xf32>)
  %owned = arith.cmpi ne, %n, %c64 : index
  %base, %offset, %size, %stride = memref.extract_strided_metadata %r : memref<?xf32> -> memref<f32>, index, index, index
  scf.if %owned {
    memref.dealloc %base : memref<f32>
  }
  %b = memref.alloc() : memref<64xf32>
  linalg.fill ins(%c : f32) outs(%b : memref<64xf32>)
  memref.dealloc %b : memref<64xf32>
  memref.dealloc %a : memref<?xf32>
  return
}

// CHECK-LABEL: func @maybe_freed_itself
// CHECK:       %[[A:.*]] = memref.alloc(%{{.*}}) : memref<?xf32>
// CHECK:       memref.dealloc %{{.*}} : memref<64xf32>
// CHECK-NEXT:  memref.dealloc %[[A]] : memref<?xf32>
// CHECK-NEXT:  return
func.func @maybe_freed_itself(%n: index, %c: f32, %out: memref<?xf32>) {
  %c64 = arith.constant 64 : index
  %a = memref.alloc(%n) : memref<?xf32>
  linalg.fill ins(%c : f32) outs(%a : memref<?xf32>)
  %aligned = arith.cmpi eq, %n, %c64 : index
  %r = scf.if %aligned -> memref<?xf32> {
    scf.yield %a : memref<?xf32>
  } else {
    %p = memref.alloc(%c64) : memref<?xf32>
    memref.copy %a, %p : memref<?xf32> to memref<?xf32>
    scf.yield %p : memref<?xf32>
  }
  linalg.copy ins(%r : memref<?xf32>) outs(%out : memref<?xf32>)
  %base, %offset, %size, %stride = memref.extract_strided_metadata %r : memref<?xf32> -> memref<f32>, index, index, index
  scf.if %aligned {
    memref.dealloc %base : memref<f32>
  }
  %b = memref.alloc() : memref<64xf32>
  linalg.fill ins(%c : f32) outs(%b : memref<64xf32>)
  memref.dealloc %b : memref<64xf32>
  memref.dealloc %a : memref<?xf32>
  return
}

// -----

// A loop that carries the buffer: its result is a view, used after the loop.
// CHECK-LABEL: func @iter_arg
// CHECK:       %[[A:.*]] = memref.alloc() : memref<64xf32>
// CHECK:       %[[R:.*]] = scf.for
// CHECK:       linalg.copy ins(%[[R]] : memref<64xf32>)
// CHECK-NEXT:  memref.dealloc %[[A]] : memref<64xf32>
func.func @iter_arg(%c: f32, %out: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %a = memref.alloc() : memref<64xf32>
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%t = %a) -> memref<64xf32> {
    linalg.fill ins(%c : f32) outs(%t : memref<64xf32>)
    scf.yield %t : memref<64xf32>
  }
  %b = memref.alloc() : memref<64xf32>
  linalg.fill ins(%c : f32) outs(%b : memref<64xf32>)
  linalg.copy ins(%r : memref<64xf32>) outs(%out : memref<64xf32>)
  memref.dealloc %b : memref<64xf32>
  memref.dealloc %a : memref<64xf32>
  return
}

// -----

// Negative cases. A buffer that a view of is returned keeps its place (and
// is not freed here at all); a conditional dealloc (ownership known only at
// run time) stays where the deallocation pipeline put it; and so does a
// dealloc where a view of the same buffer is freed too.
// CHECK-LABEL: func @stays
// CHECK:       %[[A:.*]] = memref.alloc() : memref<64xf32>
// CHECK:       %[[B:.*]] = memref.alloc() : memref<64xf32>
// CHECK:       %[[C:.*]] = memref.alloc() : memref<64xf32>
// CHECK:       %[[V:.*]] = memref.subview %[[C]]
// CHECK:       linalg.fill
// CHECK:       linalg.fill
// CHECK:       scf.if %{{.*}} {
// CHECK-NEXT:    memref.dealloc %[[B]] : memref<64xf32>
// CHECK-NEXT:  }
// CHECK-NEXT:  memref.dealloc %[[C]] : memref<64xf32>
// CHECK-NEXT:  memref.dealloc %[[V]]
// CHECK-NEXT:  return %[[A]]
func.func @stays(%p: i1, %c: f32) -> memref<64xf32> {
  %a = memref.alloc() : memref<64xf32>
  %b = memref.alloc() : memref<64xf32>
  %cc = memref.alloc() : memref<64xf32>
  %v = memref.subview %cc[0] [32] [1] : memref<64xf32> to memref<32xf32, strided<[1]>>
  linalg.fill ins(%c : f32) outs(%a : memref<64xf32>)
  linalg.fill ins(%c : f32) outs(%b : memref<64xf32>)
  scf.if %p {
    memref.dealloc %b : memref<64xf32>
  }
  memref.dealloc %cc : memref<64xf32>
  memref.dealloc %v : memref<32xf32, strided<[1]>>
  return %a : memref<64xf32>
}

// -----

// A buffer whose address is taken as an integer (as the deallocation
// pipeline does to compare buffers at run time) keeps its dealloc in place.
// CHECK-LABEL: func @address_taken
// CHECK:       %[[A:.*]] = memref.alloc() : memref<64xf32>
// CHECK:       memref.extract_aligned_pointer_as_index %[[A]]
// CHECK:       linalg.fill
// CHECK-NEXT:  memref.dealloc %[[A]] : memref<64xf32>
// CHECK-NEXT:  return
func.func @address_taken(%c: f32, %b: memref<64xf32>) -> index {
  %a = memref.alloc() : memref<64xf32>
  linalg.fill ins(%c : f32) outs(%a : memref<64xf32>)
  %p = memref.extract_aligned_pointer_as_index %a : memref<64xf32> -> index
  linalg.fill ins(%c : f32) outs(%b : memref<64xf32>)
  memref.dealloc %a : memref<64xf32>
  return %p : index
}
