// RUN: attune-opt %s --attune-runtime-allocator --split-input-file --verify-diagnostics | FileCheck %s

// Calls of malloc and free call the runtime's functions; the module defines
// both weakly as libc's (the fallback without the runtime); the libc
// declarations stay for those bodies.
// CHECK-LABEL: llvm.func @malloc(i64) -> !llvm.ptr
// CHECK:       llvm.func @free(!llvm.ptr)
// CHECK-LABEL: llvm.func @buffer(%{{.*}}: i64)
// CHECK:         %[[P:.*]] = llvm.call @attune_cpu_malloc(%{{.*}}) : (i64) -> !llvm.ptr
// CHECK:         llvm.call @attune_cpu_free(%[[P]]) : (!llvm.ptr) -> ()
// CHECK-LABEL: llvm.func weak @attune_cpu_malloc(%{{.*}}: i64) -> !llvm.ptr
// CHECK:         %[[M:.*]] = llvm.call @malloc(%{{.*}}) : (i64) -> !llvm.ptr
// CHECK:         llvm.return %[[M]] : !llvm.ptr
// CHECK-LABEL: llvm.func weak @attune_cpu_free(%{{.*}}: !llvm.ptr)
// CHECK:         llvm.call @free(%{{.*}}) : (!llvm.ptr) -> ()
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
// expected-error @+1 {{attune-runtime-allocator: the module already defines 'attune_cpu_malloc'}}
llvm.func @attune_cpu_malloc(i64) -> !llvm.ptr
