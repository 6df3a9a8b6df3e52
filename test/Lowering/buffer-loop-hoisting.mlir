// RUN: attune-opt %s --attune-cpu-pipeline=cpu=icelake-server --mlir-print-ir-after=buffer-loop-hoisting -o /dev/null 2>&1 | FileCheck %s

// attune-cpu-pipeline runs buffer-loop-hoisting right after bufferization:
// tiled attention's per-key-tile scratch (the 64 x 64 probability tile) is
// allocated once before the loops, not once per key tile; the running max,
// sum and accumulator, which the key loop updates in place, are allocated
// there too, so the key loop allocates nothing. (128 queries: a query count
// that is not static also has the dynamic form, chosen at run time for
// fewer than 16 queries.)
// CHECK-LABEL: IR Dump After BufferLoopHoistingPass
// CHECK:       memref.alloc() {{.*}} : memref<64x64xf32>
// CHECK:       scf.for %{{.*}} = %c0 to %c2
// CHECK:         scf.for %{{.*}} step %c64 {
// CHECK:           scf.for %{{.*}} step %c64 {
// CHECK-NOT:         memref.alloc
// CHECK:       return
func.func @forward(%q: tensor<1x2x128x64xf32>, %k: tensor<1x2x?x64xf32>, %v: tensor<1x2x?x64xf32>) -> tensor<1x2x128x64xf32> {
  %o = attune.attention %q, %k, %v : (tensor<1x2x128x64xf32>, tensor<1x2x?x64xf32>, tensor<1x2x?x64xf32>) -> tensor<1x2x128x64xf32>
  return %o : tensor<1x2x128x64xf32>
}
