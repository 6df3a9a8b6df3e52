// RUN: attune-opt %s --pass-pipeline='builtin.module(attune-vulkan-pipeline{stage=spirv})' | attune-opt --attune-serialize-spirv | FileCheck %s
// RUN: not attune-opt %s --attune-serialize-spirv 2>&1 | FileCheck %s --check-prefix=NOABI

// Each converted kernel becomes a public byte array with its size recorded
// in the kernel table; no device module is left.
// CHECK:     attune.vulkan.kernels = [{buffers = 2 : i64, entry = "relu_kernel", loc = "attune-serialize-spirv.mlir:{{[0-9]+}}:8", module = "relu_kernel", push_constants = {{[0-9]+}} : i64, spirv_bytes = [[BYTES:[0-9]+]] : i64, spirv_symbol = "attune_vk_spirv_relu_kernel", subgroup = 0 : i64, workgroup = array<i32: 64, 1, 1>}]
// CHECK-NOT: gpu.module
// CHECK-NOT: spirv.module
// CHECK:     llvm.mlir.global external constant @attune_vk_spirv_relu_kernel("\03\02#\07{{.*}}") {addr_space = 0 : i32, alignment = 4 : i64}
// NOABI: error: has no attune.vulkan.kernels attribute; run attune-vulkan-abi first
func.func @relu(%x: tensor<?x64xf32>) -> tensor<?x64xf32> {
  %y = attune.activation <relu> %x : tensor<?x64xf32>
  return %y : tensor<?x64xf32>
}
