// RUN: attune-opt %s --attune-transpose-tiles | FileCheck %s
// RUN: attune-opt %s "--attune-transpose-tiles=parallel=true" | FileCheck %s --check-prefix=PAR

// A copy that transposes its two innermost dims runs in 16 x 16 blocks,
// each one (transposing) vector read and one vector write; the leading dims
// are loops, an scf.forall with parallel=true. The mark goes.
// CHECK-LABEL: func.func @transpose
// CHECK:       scf.for {{.*}} step %c1
// CHECK:         scf.for {{.*}} step %c1
// CHECK:           scf.for %{{.*}} = %{{.*}} to %c64 step %c16
// CHECK:             scf.for %{{.*}} = %{{.*}} to %c32 step %c16
// CHECK:               %[[T:.*]] = vector.transfer_read {{.*}} {permutation_map = #{{.*}}} : tensor<1x1x16x16xf32>, vector<1x1x16x16xf32>
// CHECK:               vector.transfer_write %[[T]], {{.*}} : vector<1x1x16x16xf32>, tensor<1x1x16x16xf32>
// CHECK-NOT:   linalg.generic
// CHECK-NOT:   attune.transpose_tiles
// PAR:         scf.forall (%{{.*}}, %{{.*}}) in (2, 2)
// PAR:           vector.transfer_read {{.*}} : tensor<1x1x16x16xf32>, vector<1x1x16x16xf32>
#in = affine_map<(b, h, i, j) -> (b, h, j, i)>
#out = affine_map<(b, h, i, j) -> (b, h, i, j)>
func.func @transpose(%k: tensor<2x2x32x64xf32>, %o: tensor<2x2x64x32xf32>) -> tensor<2x2x64x32xf32> {
  %0 = linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%k : tensor<2x2x32x64xf32>) outs(%o : tensor<2x2x64x32xf32>) attrs = {attune.transpose_tiles} {
  ^bb0(%x: f32, %y: f32):
    linalg.yield %x : f32
  } -> tensor<2x2x64x32xf32>
  return %0 : tensor<2x2x64x32xf32>
}
