// RUN: attune-opt %s --split-input-file --convert-attune-to-linalg --attune-select-cpu-tiling=cpu=icelake-server --attune-vectorize-rows --attune-tile-gemm --attune-finish-cpu-kernels | FileCheck %s

// A softmax's row kernels after the schedule: the module mark goes; the
// row max becomes a tree of halvings (vector<32>, 16, ..., 1) instead of
// one reduction; exp becomes a polynomial (no math.exp left); the row sum's
// reduction gets reassoc.
// CHECK-NOT:   attune.cpu_kernels
// CHECK-LABEL: func.func @softmax
// CHECK-NOT:   vector.reduction <maximumf>
// CHECK:       arith.maximumf {{.*}} : vector<32xf32>
// CHECK:       arith.maximumf {{.*}} : vector<16xf32>
// CHECK-NOT:   math.exp
// CHECK:       vector.reduction <add>, {{.*}} fastmath<reassoc> : vector<64xf32> into f32
// CHECK-NOT:   attune.
func.func @softmax(%x: tensor<?x64xf32>) -> tensor<?x64xf32> {
  %y = attune.softmax %x {axis = -1 : i64} : tensor<?x64xf32>
  return %y : tensor<?x64xf32>
}

// -----

// Without CPU kernels (nothing marked, nothing vectorized) nothing changes:
// a scalar exp stays.
// CHECK-LABEL: func.func @short_softmax
// CHECK:       math.exp {{.*}} : f32
func.func @short_softmax(%x: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %y = attune.softmax %x {axis = -1 : i64} : tensor<?x8xf32>
  return %y : tensor<?x8xf32>
}
