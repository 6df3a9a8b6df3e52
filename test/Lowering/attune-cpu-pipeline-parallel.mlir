// RUN: attune-opt %s "--attune-cpu-pipeline=parallel=true cpu=icelake-server" | FileCheck %s
// RUN: attune-opt %s "--attune-cpu-pipeline=parallel=true omp-schedule=static cpu=icelake-server" | FileCheck %s --check-prefix=STATIC
// RUN: attune-opt %s "--attune-cpu-pipeline=parallel=true cpu=znver4" | FileCheck %s --check-prefix=STATIC
// RUN: attune-opt %s "--attune-cpu-pipeline=parallel=true cpu=znver5" | FileCheck %s --check-prefix=STATIC
// RUN: attune-opt %s "--attune-cpu-pipeline=parallel=true omp-schedule=guided cpu=znver4" | FileCheck %s
// RUN: attune-opt %s --attune-cpu-pipeline=cpu=icelake-server | FileCheck %s --check-prefix=SERIAL

// With parallel=true the GEMM's column tiles (each with its GELU epilogue)
// run as one OpenMP worksharing loop, and the residual add's vectorized rows
// as another (two parallel regions in all), each with the target's schedule
// (guided on icelake-server, static on znver4 and znver5: measured,
// CpuTarget);
// omp-schedule picks one.
// CHECK-LABEL: llvm.func @forward
// CHECK: omp.parallel
// CHECK: omp.wsloop nowait schedule(guided)
// CHECK: omp.parallel
// CHECK: omp.wsloop nowait schedule(guided)
// CHECK-NOT: omp.parallel
// STATIC-LABEL: llvm.func @forward
// STATIC-COUNT-2: omp.wsloop nowait schedule(static)
// SERIAL-LABEL: llvm.func @forward
// SERIAL-NOT: omp.
func.func @forward(%x: tensor<?x64xf32>, %w: tensor<512x64xf32>, %s: tensor<?x512xf32>) -> tensor<?x512xf32> {
  %0 = attune.linear %x, %w : (tensor<?x64xf32>, tensor<512x64xf32>) -> tensor<?x512xf32>
  %1 = attune.activation <gelu> %0 : tensor<?x512xf32>
  %2 = attune.add %1, %s : (tensor<?x512xf32>, tensor<?x512xf32>) -> tensor<?x512xf32>
  return %2 : tensor<?x512xf32>
}
