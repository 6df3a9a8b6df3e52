// RUN: attune-opt %s --attune-vulkan-abi --split-input-file --verify-diagnostics | FileCheck %s
// RUN: not attune-opt %s --attune-vulkan-abi="push-constant-bytes=4" --split-input-file 2>&1 | FileCheck %s --check-prefix=PUSH

// Buffers become flat `memref<?xT>` bindings (i64 ones i32 pairs), every
// dynamic size/stride and scalar a push constant, the launch a runtime
// call with the buffers' base addresses; host scratch arrays move to the
// stack, at the function's entry; the private constant becomes a public global the runtime uploads.
// CHECK:      module attributes {attune.vulkan.globals = [{bytes = 1024 : i64, symbol = "attune_vk_global_0"}], attune.vulkan.kernels = [{buffers = 4 : i64, entry = "k", loc = "attune-vulkan-abi.mlir:{{[0-9]+}}:5", module = "k", push_constants = 2 : i64, subgroup = 0 : i64, workgroup = array<i32: 64, 1, 1>}]
// CHECK-LABEL: func.func @host
// CHECK-NEXT:   memref.alloca() : memref<2xi1>
// CHECK:        memref.alloc(%arg2) : memref<?x64xf32>
// CHECK-NOT:    memref.dealloc
// CHECK:        memref.get_global @attune_vk_global_0
// CHECK:        memref.extract_aligned_pointer_as_index
// CHECK:        %[[BUF:.*]] = memref.cast %{{.*}} : memref<4xi64> to memref<?xi64>
// CHECK:        %[[PC:.*]] = memref.cast %{{.*}} : memref<2xi32> to memref<?xi32>
// CHECK:        call @attune_vk_dispatch(%c0_i64, %arg2, %c1, %c1, %[[BUF]], %[[PC]])
// CHECK-NOT:    gpu.launch_func
// CHECK:      memref.global constant @attune_vk_global_0
// CHECK:      gpu.func @k(%arg0: memref<?xf32>, %arg1: memref<?xi32>, %arg2: memref<?xf32>, %arg3: memref<?xf32>, %arg4: memref<2xi32, #spirv.storage_class<PushConstant>>) kernel attributes {spirv.entry_point_abi = #spirv.entry_point_abi<workgroup_size = [64, 1, 1]>}
// CHECK-NOT:    i64
// CHECK:        gpu.return
// CHECK:      func.func private @attune_vk_dispatch(i64, index, index, index, memref<?xi64>, memref<?xi32>)
// PUSH:       error: 'gpu.func' op needs 8 bytes of push constants; the profile allows 4
module attributes {gpu.container_module} {
  func.func @host(%x: memref<?x64xf32>, %ids: memref<?xi64>, %n: index) -> memref<?x64xf32> {
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %y = memref.alloc(%n) : memref<?x64xf32>
    %flags = memref.alloc() : memref<2xi1>
    %true = arith.constant true
    %c0 = arith.constant 0 : index
    memref.store %true, %flags[%c0] : memref<2xi1>
    memref.dealloc %flags : memref<2xi1>
    %w = memref.get_global @table : memref<4x64xf32>
    gpu.launch_func @k::@k blocks in (%n, %c1, %c1) threads in (%c64, %c1, %c1)
        args(%x : memref<?x64xf32>, %ids : memref<?xi64>, %w : memref<4x64xf32>, %y : memref<?x64xf32>, %n : index)
    return %y : memref<?x64xf32>
  }
  memref.global "private" constant @table : memref<4x64xf32> = dense<1.0>
  gpu.module @k {
    gpu.func @k(%x: memref<?x64xf32>, %ids: memref<?xi64>, %w: memref<4x64xf32>, %y: memref<?x64xf32>, %n: index) kernel {
      %b = gpu.block_id x
      %t = gpu.thread_id x
      %c0 = arith.constant 0 : index
      %d = memref.dim %x, %c0 : memref<?x64xf32>
      %id64 = memref.load %ids[%b] : memref<?xi64>
      %id = arith.index_cast %id64 : i64 to index
      %v = memref.load %x[%b, %t] : memref<?x64xf32>
      %u = memref.load %w[%id, %t] : memref<4x64xf32>
      %s = arith.addf %v, %u : f32
      memref.store %s, %y[%b, %t] : memref<?x64xf32>
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  func.func @view(%x: memref<?xf32>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @k::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : memref<?xf32>)
    return
  }
  gpu.module @k {
    gpu.func @k(%x: memref<?xf32>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      // expected-error @+1 {{'memref.subview' op uses a kernel buffer; kernels may only load, store and read dims of their buffers}}
      %v = memref.subview %x[%c0] [%c1] [%c1] : memref<?xf32> to memref<?xf32, strided<[?], offset: ?>>
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  func.func @scalar(%x: f64) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @k::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : f64)
    return
  }
  gpu.module @k {
    // expected-error @+1 {{argument #0 has type 'f64'; kernel scalars must be index, i1..i32 or f32}}
    gpu.func @k(%x: f64) kernel {
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  func.func @big(%x: memref<?xf32>) {
    %c1 = arith.constant 1 : index
    %c256 = arith.constant 256 : index
    // expected-error @+1 {{has 256 invocations per workgroup; the profile allows 128}}
    gpu.launch_func @k::@k blocks in (%c1, %c1, %c1) threads in (%c256, %c1, %c1) args(%x : memref<?xf32>)
    return
  }
  gpu.module @k {
    gpu.func @k(%x: memref<?xf32>) kernel {
      gpu.return
    }
  }
}
