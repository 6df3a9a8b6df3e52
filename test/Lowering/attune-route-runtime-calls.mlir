// RUN: attune-opt %s --attune-route-runtime-calls --split-input-file --verify-diagnostics | FileCheck %s

// Calls of malloc and free call internal functions that call through the
// exported hooks; the hooks start as libc's functions (the fallback without
// the runtime), whose declarations stay.
// CHECK-LABEL: llvm.func @malloc(i64) -> !llvm.ptr
// CHECK:       llvm.func @free(!llvm.ptr)
// CHECK-LABEL: llvm.func @buffer(%{{.*}}: i64)
// CHECK:         %[[P:.*]] = llvm.call @attune_cpu_malloc(%{{.*}}) : (i64) -> !llvm.ptr
// CHECK:         llvm.call @attune_cpu_free(%[[P]]) : (!llvm.ptr) -> ()
// CHECK-LABEL: llvm.mlir.global external @attune_cpu_malloc_hook() {{.*}} : !llvm.ptr {
// CHECK:         %[[LIBC:.*]] = llvm.mlir.addressof @malloc : !llvm.ptr
// CHECK:         llvm.return %[[LIBC]] : !llvm.ptr
// CHECK-LABEL: llvm.func internal @attune_cpu_malloc(%{{.*}}: i64) -> !llvm.ptr
// CHECK:         %[[SLOT:.*]] = llvm.mlir.addressof @attune_cpu_malloc_hook : !llvm.ptr
// CHECK:         %[[FN:.*]] = llvm.load %[[SLOT]] : !llvm.ptr -> !llvm.ptr
// CHECK:         %[[M:.*]] = llvm.call %[[FN]](%{{.*}}) : !llvm.ptr, (i64) -> !llvm.ptr
// CHECK:         llvm.return %[[M]] : !llvm.ptr
// CHECK-LABEL: llvm.mlir.global external @attune_cpu_free_hook()
// CHECK:         llvm.mlir.addressof @free : !llvm.ptr
// CHECK-LABEL: llvm.func internal @attune_cpu_free(%{{.*}}: !llvm.ptr)
// CHECK:         %[[FSLOT:.*]] = llvm.mlir.addressof @attune_cpu_free_hook : !llvm.ptr
// CHECK:         %[[F:.*]] = llvm.load %[[FSLOT]] : !llvm.ptr -> !llvm.ptr
// CHECK:         llvm.call %[[F]](%{{.*}}) : !llvm.ptr, (!llvm.ptr) -> ()
// CHECK:         llvm.return
llvm.func @malloc(i64) -> !llvm.ptr
llvm.func @free(!llvm.ptr)
llvm.func @buffer(%n: i64) {
  %p = llvm.call @malloc(%n) : (i64) -> !llvm.ptr
  llvm.call @free(%p) : (!llvm.ptr) -> ()
  llvm.return
}

// -----

// A module that allocates nothing is left alone.
// CHECK-LABEL: llvm.func @pure
// CHECK-NOT:   attune_cpu
llvm.func @pure(%x: f32) -> f32 {
  llvm.return %x : f32
}

// -----

// A module that already has a symbol of the runtime's name is an error.
llvm.func @malloc(i64) -> !llvm.ptr
// expected-error @+1 {{attune-route-runtime-calls: the module already defines 'attune_cpu_malloc'}}
llvm.func @attune_cpu_malloc(i64) -> !llvm.ptr

// -----

// So is a module that already has a symbol of a hook's name.
llvm.func @free(!llvm.ptr)
// expected-error @+1 {{attune-route-runtime-calls: the module already defines 'attune_cpu_free_hook'}}
llvm.mlir.global external @attune_cpu_free_hook() : !llvm.ptr

// -----

// The Vulkan host code's calls into the runtime go through slots that start
// null; their declarations go, so the library needs no runtime symbol.
// CHECK-LABEL: llvm.func @host(%{{.*}}: i64)
// CHECK:         %[[B:.*]] = llvm.call @attune_vk_alloc(%{{.*}}) : (i64) -> !llvm.ptr
// CHECK:         llvm.call @attune_vk_dispatch_call(%{{.*}}) : (i64) -> ()
// CHECK:         llvm.call @attune_vk_free(%[[B]]) : (!llvm.ptr) -> ()
// CHECK-LABEL: llvm.mlir.global external @attune_vk_alloc_hook() {{.*}} : !llvm.ptr {
// CHECK:         %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK:         llvm.return %[[NULL]] : !llvm.ptr
// CHECK-LABEL: llvm.func internal @attune_vk_alloc(
// CHECK-LABEL: llvm.mlir.global external @attune_vk_free_hook()
// CHECK-LABEL: llvm.mlir.global external @attune_vk_dispatch_hook()
// CHECK-NOT:   llvm.func @_mlir_
llvm.func @_mlir_memref_to_llvm_alloc(i64) -> !llvm.ptr
llvm.func @_mlir_memref_to_llvm_free(!llvm.ptr)
llvm.func @_mlir_ciface_attune_vk_dispatch(i64)
llvm.func @host(%n: i64) {
  %p = llvm.call @_mlir_memref_to_llvm_alloc(%n) : (i64) -> !llvm.ptr
  llvm.call @_mlir_ciface_attune_vk_dispatch(%n) : (i64) -> ()
  llvm.call @_mlir_memref_to_llvm_free(%p) : (!llvm.ptr) -> ()
  llvm.return
}
