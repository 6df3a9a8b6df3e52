// RUN: attune-opt %s --attune-tile-gemm | FileCheck %s

// Static tile ops of tiled attention: an [M, K] x [K, N] tile contraction
// (marked attune.tile_gemm) becomes 8 x 32 register tiles of broadcast + FMA;
// row ops (attune.vectorize) are vectorized one row at a time, rank-1 ones
// (attune.vectorize_1d) whole; vector exp becomes a polynomial.
// CHECK-LABEL: func.func @tiles
// CHECK:         scf.for
// CHECK:           scf.for
// CHECK:             scf.for
// CHECK:               vector.broadcast {{.*}} : f32 to vector<32xf32>
// CHECK:               vector.fma {{.*}} : vector<32xf32>
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
