// RUN: attune-opt %s --attune-cpu-kernels=cpu=icelake-server | FileCheck %s

// Static tile ops of tiled attention: an [M, K] x [K, N] tile contraction
// (marked attune.tile_gemm) becomes 4 x 64 register tiles of broadcast + FMA
// where 4 divides M and 64 divides N, else 8 x 32 (@narrow);
// row ops (attune.vectorize) are vectorized one row at a time, rank-1 ones
// (attune.vectorize_1d) whole; vector exp becomes a polynomial.
// The zero fill of the GEMM's accumulator is fused into each 4 x 64 tile and
// folds away: the k loop starts from a zero vector, nothing is filled or
// copied.
// CHECK-LABEL: func.func @tiles
// CHECK-NOT:     linalg.fill
// CHECK:         %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : vector<4x64xf32>
// CHECK:         scf.for %{{.*}} = %c0 to %c64 step %c4
// CHECK:           scf.for {{.*}} iter_args(%{{.*}} = %[[ZERO]]) -> (vector<4x64xf32>)
// CHECK:             vector.broadcast {{.*}} : f32 to vector<64xf32>
// CHECK:             vector.fma {{.*}} : vector<64xf32>
// CHECK:         scf.for
// CHECK:           vector.transfer_read {{.*}} vector<1x64xf32>
// CHECK-NOT:     math.exp
// CHECK:           math.floor {{.*}} : vector<1x64xf32>
// CHECK-NOT:     math.exp
// CHECK:         arith.maximumf {{.*}} : vector<64xf32>
// CHECK-NOT:     math.exp
// CHECK:         return
#mk = affine_map<(m, n, k) -> (m, k)>
#kn = affine_map<(m, n, k) -> (k, n)>
#mn = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
#v = affine_map<(i) -> (i)>
func.func @tiles(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>, %m: tensor<64xf32>, %n: tensor<64xf32>) -> (tensor<64x64xf32>, tensor<64x64xf32>, tensor<64xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x64xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %c = linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<64x64xf32>, tensor<64x64xf32>) outs(%z : tensor<64x64xf32>) attrs = {attune.tile_gemm} {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<64x64xf32>
  %x = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%c, %m : tensor<64x64xf32>, tensor<64xf32>) outs(%e : tensor<64x64xf32>) attrs = {attune.vectorize} {
  ^bb0(%s: f32, %mx: f32, %o: f32):
    %d = arith.subf %s, %mx : f32
    %r = math.exp %d : f32
    linalg.yield %r : f32
  } -> tensor<64x64xf32>
  %e1 = tensor.empty() : tensor<64xf32>
  %y = linalg.generic {indexing_maps = [#v, #v, #v], iterator_types = ["parallel"]}
      ins(%m, %n : tensor<64xf32>, tensor<64xf32>) outs(%e1 : tensor<64xf32>) attrs = {attune.vectorize_1d} {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %r = arith.maximumf %p, %q : f32
    linalg.yield %r : f32
  } -> tensor<64xf32>
  return %c, %x, %y : tensor<64x64xf32>, tensor<64x64xf32>, tensor<64xf32>
}

// Attention's acc' = acc exp(m - m') + p v: the rescaling (element-wise, the
// accumulator's only producer) is fused into each 4 x 64 tile, so the tile is
// read once, scaled in registers and carried into the k loop; no separate
// pass over the accumulator.
// CHECK-LABEL: func.func @rescaled
// CHECK:         scf.for %{{.*}} = %c0 to %c64 step %c4
// CHECK:           %[[ACC:.*]] = vector.transfer_read %{{.*}} : tensor<64x64xf32>, vector<4x64xf32>
// CHECK:           %[[SCALED:.*]] = arith.mulf %[[ACC]], %{{.*}} : vector<4x64xf32>
// CHECK:           scf.for {{.*}} iter_args(%{{.*}} = %[[SCALED]]) -> (vector<4x64xf32>)
// CHECK:             vector.fma {{.*}} : vector<64xf32>
// CHECK-NOT:     linalg.generic
func.func @rescaled(%p: tensor<64x64xf32>, %v: tensor<64x64xf32>, %c: tensor<64xf32>, %acc: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %s = linalg.generic {indexing_maps = [#row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%c : tensor<64xf32>) outs(%acc : tensor<64x64xf32>) attrs = {attune.vectorize} {
  ^bb0(%x: f32, %a: f32):
    %r = arith.mulf %a, %x : f32
    linalg.yield %r : f32
  } -> tensor<64x64xf32>
  %o = linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%p, %v : tensor<64x64xf32>, tensor<64x64xf32>) outs(%s : tensor<64x64xf32>) attrs = {attune.tile_gemm} {
  ^bb0(%x: f32, %y: f32, %a: f32):
    %m = arith.mulf %x, %y : f32
    %r = arith.addf %a, %m : f32
    linalg.yield %r : f32
  } -> tensor<64x64xf32>
  return %o : tensor<64x64xf32>
}

// N = 32 (or M not a multiple of 4): 8 x 32 register tiles, the zero fill
// fused the same way.
// CHECK-LABEL: func.func @narrow
// CHECK-NOT:     linalg.fill
// CHECK:         %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : vector<8x32xf32>
// CHECK:         scf.for %{{.*}} = %c0 to %c64 step %c8
// CHECK:           scf.for {{.*}} iter_args(%{{.*}} = %[[ZERO]]) -> (vector<8x32xf32>)
// CHECK:             vector.broadcast {{.*}} : f32 to vector<32xf32>
// CHECK:             vector.fma {{.*}} : vector<32xf32>
// CHECK-NOT:     attune.tile_gemm
func.func @narrow(%a: tensor<64x64xf32>, %b: tensor<64x32xf32>) -> tensor<64x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x32xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<64x32xf32>) -> tensor<64x32xf32>
  %c = linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<64x64xf32>, tensor<64x32xf32>) outs(%z : tensor<64x32xf32>) attrs = {attune.tile_gemm} {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<64x32xf32>
  return %c : tensor<64x32xf32>
}
