// RUN: attune-opt %s --attune-cpu-pipeline=parallel=true | FileCheck %s
// RUN: attune-opt %s --attune-cpu-pipeline | FileCheck %s --check-prefix=SERIAL

// With parallel=true the parallel dims run as OpenMP worksharing loops.
// CHECK-LABEL: llvm.func @forward
// CHECK: omp.parallel
// CHECK: omp.wsloop
// SERIAL-LABEL: llvm.func @forward
// SERIAL-NOT: omp.
func.func @forward(%x: tensor<?x64xf32>, %w: tensor<128x64xf32>) -> tensor<?x128xf32> {
  %0 = attune.linear %x, %w : (tensor<?x64xf32>, tensor<128x64xf32>) -> tensor<?x128xf32>
  %1 = attune.activation <gelu> %0 : tensor<?x128xf32>
  return %1 : tensor<?x128xf32>
}
