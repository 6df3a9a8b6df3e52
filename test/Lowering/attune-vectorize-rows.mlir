// RUN: attune-opt %s --split-input-file --convert-attune-to-linalg --attune-select-cpu-tiling=cpu=icelake-server --attune-vectorize-rows | FileCheck %s
// RUN: attune-opt %s --split-input-file --convert-attune-to-linalg --attune-select-cpu-tiling=cpu=icelake-server "--attune-vectorize-rows=parallel=true" | FileCheck %s --check-prefix=PAR

// A layer norm's row kernels run one row at a time, each row one
// vector<1x64xf32>, its sums 1-D vector reductions; the module is marked
// for the kernel schedule, which lowers the rest. With parallel=true, the
// rows of a kernel outside any loop are an scf.forall.
// CHECK:       module attributes {attune.cpu_kernels}
// CHECK-LABEL: func.func @layer_norm_rows
// CHECK:       scf.for
// CHECK:         vector.transfer_read {{.*}} : tensor<1x64xf32>, vector<1x64xf32>
// CHECK:         vector.reduction <add>, {{.*}} : vector<64xf32> into f32
// CHECK-NOT:     vector.multi_reduction
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

// -----

// A row's dot product (q . k_j: the scores of a decoding step's attention):
// the products as one vector, summed by a 1-D vector reduction, not a
// multi-reduction that the kernel schedule's reduction_to_contract would
// make a contraction (lowered as one dependent scalar FMA per element).
// CHECK-LABEL: func.func @dot_rows
// CHECK:       scf.for
// CHECK:         scf.for
// CHECK:           %[[P:.*]] = arith.mulf {{.*}} : vector<1x1x64xf32>
// CHECK:           %[[V:.*]] = vector.extract %[[P]][0, 0] : vector<64xf32> from vector<1x1x64xf32>
// CHECK:           vector.reduction <add>, %[[V]], %{{.*}} : vector<64xf32> into f32
// CHECK-NOT:   vector.multi_reduction
// CHECK-NOT:   vector.contract
func.func @dot_rows(%q: tensor<?x64xf32>, %k: tensor<48x64xf32>) -> tensor<?x48xf32> {
  %s = attune.matmul %q, %k {transpose_rhs} : (tensor<?x64xf32>, tensor<48x64xf32>) -> tensor<?x48xf32>
  return %s : tensor<?x48xf32>
}
