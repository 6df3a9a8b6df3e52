// RUN: attune-opt %s --split-input-file --verify-diagnostics --attune-drop-state-results | FileCheck %s

// A state result that is its argument's buffer (directly, through a cast,
// or carried unchanged through a loop that writes it row by row) goes: the
// caller's buffer holds the new value. The step marker goes with it.
// CHECK-LABEL: func @step
// CHECK-SAME:  (%{{.*}}: memref<?xi64>, %[[K:.*]]: memref<?x2x8x4xf32>, %[[V:.*]]: memref<?x2x8x4xf32>) -> memref<?x7xf32> {
// CHECK-NOT:   attune.generation_step
// CHECK:       return %{{.*}} : memref<?x7xf32>
func.func @step(%p: memref<?xi64>, %k: memref<?x2x8x4xf32> {attune.state = "k"},
                %v: memref<?x2x8x4xf32> {attune.state = "v"})
    -> (memref<?x7xf32>, memref<?x2x8x4xf32> {attune.state = "k"}, memref<?x2x8x4xf32> {attune.state = "v"}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %b = memref.dim %k, %c0 : memref<?x2x8x4xf32>
  %logits = memref.alloc(%b) : memref<?x7xf32>
  %k1 = scf.for %i = %c0 to %b step %c1 iter_args(%acc = %k) -> (memref<?x2x8x4xf32>) {
    scf.yield %acc : memref<?x2x8x4xf32>
  }
  %v1 = memref.cast %v : memref<?x2x8x4xf32> to memref<?x2x8x4xf32>
  return %logits, %k1, %v1 : memref<?x7xf32>, memref<?x2x8x4xf32>, memref<?x2x8x4xf32>
}

// -----

// A state bufferization had to copy (its old value was read after the
// write): an error, never a silent copy per token.
// expected-error @+1 {{'func.func' op cannot update the state 'k' in place: its result is not the argument's buffer (is the old value read after it is written?)}}
func.func @copied(%k: memref<2x8xf32> {attune.state = "k"})
    -> (memref<2x8xf32>, memref<2x8xf32> {attune.state = "k"}) {
  %new = memref.alloc() : memref<2x8xf32>
  memref.copy %k, %new : memref<2x8xf32> to memref<2x8xf32>
  return %k, %new : memref<2x8xf32>, memref<2x8xf32>
}

// -----

// expected-error @+1 {{'func.func' op returns the state 'q', which no argument is}}
func.func @unknown(%k: memref<2x8xf32> {attune.state = "k"})
    -> (memref<2x8xf32> {attune.state = "q"}) {
  return %k : memref<2x8xf32>
}
