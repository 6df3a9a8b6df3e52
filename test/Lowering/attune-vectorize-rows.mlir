// RUN: attune-opt %s --split-input-file --convert-attune-to-linalg --attune-select-cpu-tiling=cpu=icelake-server --attune-vectorize-rows | FileCheck %s
// RUN: attune-opt %s --split-input-file --convert-attune-to-linalg --attune-select-cpu-tiling=cpu=icelake-server "--attune-vectorize-rows=parallel=true" | FileCheck %s --check-prefix=PAR

// A layer norm's row kernels run one row at a time, each row one
// vector<1x64xf32>, its sums vector multi-reductions; the module is marked
// for the kernel schedule, which lowers them. With parallel=true, the rows
// of a kernel outside any loop are an scf.forall.
// CHECK:       module attributes {attune.cpu_kernels}
// CHECK-LABEL: func.func @layer_norm_rows
// CHECK:       scf.for
// CHECK:         vector.transfer_read {{.*}} : tensor<1x64xf32>, vector<1x64xf32>
// CHECK:         vector.multi_reduction <add>, {{.*}} : vector<1x64xf32> to vector<1xf32>
// CHECK-NOT:   linalg.generic
// CHECK:       return
// PAR-LABEL:   func.func @layer_norm_rows
// PAR:         scf.forall
// PAR:           vector.transfer_read {{.*}} : tensor<1x64xf32>, vector<1x64xf32>
func.func @layer_norm_rows(%x: tensor<?x64xf32>, %r: tensor<?x64xf32>) -> tensor<?x64xf32> {
  %y = attune.layer_norm %x residual(%r) : (tensor<?x64xf32>, tensor<?x64xf32>) -> tensor<?x64xf32>
  return %y : tensor<?x64xf32>
}

// -----

// Rows shorter than 16 stay linalg (scalar loops later); nothing to mark.
// CHECK-NOT:   attune.cpu_kernels
// CHECK-LABEL: func.func @short_rows
// CHECK-NOT:   vector.
// CHECK:       linalg.generic
func.func @short_rows(%x: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %y = attune.layer_norm %x : (tensor<?x8xf32>) -> tensor<?x8xf32>
  return %y : tensor<?x8xf32>
}
