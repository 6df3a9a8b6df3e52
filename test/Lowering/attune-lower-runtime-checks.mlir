// RUN: attune-opt %s --attune-lower-runtime-checks | FileCheck %s

// CHECK: llvm.mlir.global external @attune_check_handler(#llvm.zero) {{.*}} : !llvm.ptr
// CHECK-LABEL: llvm.func @f
// CHECK:      llvm.cond_br %{{.*}}, ^[[OK:.*]], ^[[FAIL:.*]]
// CHECK:      ^[[OK]]:
// CHECK-NEXT:   llvm.return
// CHECK:      ^[[FAIL]]:
// CHECK:        llvm.mlir.addressof @attune_check_message_0
// CHECK:        %[[H:.*]] = llvm.load %{{.*}} : !llvm.ptr -> !llvm.ptr
// CHECK-NEXT:   llvm.call %[[H]](%{{.*}}) : !llvm.ptr, (!llvm.ptr) -> ()
// CHECK-NEXT:   llvm.unreachable
// CHECK-NOT: cf.assert
llvm.func @f(%ok: i1) {
  cf.assert %ok, "model.mlir:1:1: input shapes disagree"
  llvm.return
}
