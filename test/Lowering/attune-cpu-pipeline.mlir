// RUN: attune-opt %s --attune-cpu-pipeline=cpu=icelake-server | FileCheck %s

// The whole pipeline ends in the LLVM dialect with C wrappers for the runtime;
// heap buffers come from the runtime's allocator, libc's without it.
// CHECK-NOT: attune.
// CHECK-NOT: linalg.
// CHECK-LABEL: llvm.func @forward
// CHECK: llvm.call @attune_cpu_malloc
// CHECK-LABEL: llvm.func @_mlir_ciface_forward
// CHECK-LABEL: llvm.mlir.global external @attune_cpu_malloc_hook()
// CHECK:         llvm.mlir.addressof @malloc
// CHECK-LABEL: llvm.func internal @attune_cpu_malloc
func.func @forward(%x: tensor<?x?x64xf32>, %w: tensor<192x64xf32>, %b: tensor<192xf32>,
                   %wo: tensor<64x64xf32>) -> tensor<?x?x64xf32> {
  %0 = attune.multi_head_attention %x, %x, %x in_proj_weight(%w) in_proj_bias(%b) out_proj_weight(%wo)
      {num_heads = 4 : i64, causal}
      : (tensor<?x?x64xf32>, tensor<?x?x64xf32>, tensor<?x?x64xf32>, tensor<192x64xf32>, tensor<192xf32>,
         tensor<64x64xf32>) -> tensor<?x?x64xf32>
  return %0 : tensor<?x?x64xf32>
}
