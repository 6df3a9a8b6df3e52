// RUN: attune-opt %s --convert-attune-to-linalg --attune-select-cpu-tiling=cpu=icelake-server --attune-pack-head-gemms | FileCheck %s

// A projection that only attention heads read (slices of whole heads, split
// and transposed to [B, H, L, 64]) becomes one GEMM per slice on packed
// 64-column panels, each writing its heads [B, H, L, 64] directly: no
// transposing copies of the output (the one transpose left packs the
// run-time weight), the bias broadcast onto the heads' layout.
// CHECK-LABEL: func.func @qkv_heads
// CHECK:       linalg.transpose ins(%{{.*}} : tensor<384x64xf32>)
// CHECK:       linalg.transpose ins(%{{.*}} : tensor<6x64x64xf32>) outs(%{{.*}} : tensor<6x64x64xf32>) permutation = [0, 2, 1]
// CHECK-COUNT-3: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]{{.*}} outs(%{{.*}} : tensor<?x2x?x64xf32>) attrs = {attune.gemm, attune.tiling = #attune.gemm_tiling<panel = 64
// CHECK-NOT:   linalg.transpose
// CHECK:       return %{{.*}}, %{{.*}}, %{{.*}} : tensor<?x2x?x64xf32>, tensor<?x2x?x64xf32>, tensor<?x2x?x64xf32>
func.func @qkv_heads(%x: tensor<?x?x64xf32>, %w: tensor<384x64xf32>, %b: tensor<384xf32>) -> (tensor<?x2x?x64xf32>, tensor<?x2x?x64xf32>, tensor<?x2x?x64xf32>) {
  %y = attune.linear %x, %w, %b : (tensor<?x?x64xf32>, tensor<384x64xf32>, tensor<384xf32>) -> tensor<?x?x384xf32>
  %q = attune.slice %y {axis = -1 : i64, offset = 0 : i64, size = 128 : i64} : (tensor<?x?x384xf32>) -> tensor<?x?x128xf32>
  %k = attune.slice %y {axis = -1 : i64, offset = 128 : i64, size = 128 : i64} : (tensor<?x?x384xf32>) -> tensor<?x?x128xf32>
  %v = attune.slice %y {axis = -1 : i64, offset = 256 : i64, size = 128 : i64} : (tensor<?x?x384xf32>) -> tensor<?x?x128xf32>
  %qh = attune.split_heads %q {num_heads = 2 : i64} : (tensor<?x?x128xf32>) -> tensor<?x2x?x64xf32>
  %kh = attune.split_heads %k {num_heads = 2 : i64} : (tensor<?x?x128xf32>) -> tensor<?x2x?x64xf32>
  %vh = attune.split_heads %v {num_heads = 2 : i64} : (tensor<?x?x128xf32>) -> tensor<?x2x?x64xf32>
  return %qh, %kh, %vh : tensor<?x2x?x64xf32>, tensor<?x2x?x64xf32>, tensor<?x2x?x64xf32>
}

// The projection is also read whole: it stays one GEMM (packed later by
// attune-pack-gemms), 4 loops.
// CHECK-LABEL: func.func @qkv_other_use
// CHECK:       linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "reduction"]{{.*}} attrs = {attune.gemm
// CHECK:       linalg.transpose ins(%{{.*}} : tensor<?x?x2x64xf32>)
func.func @qkv_other_use(%x: tensor<?x?x64xf32>, %w: tensor<256x64xf32>) -> (tensor<?x2x?x64xf32>, tensor<?x?x256xf32>) {
  %y = attune.linear %x, %w : (tensor<?x?x64xf32>, tensor<256x64xf32>) -> tensor<?x?x256xf32>
  %q = attune.slice %y {axis = -1 : i64, offset = 0 : i64, size = 128 : i64} : (tensor<?x?x256xf32>) -> tensor<?x?x128xf32>
  %qh = attune.split_heads %q {num_heads = 2 : i64} : (tensor<?x?x128xf32>) -> tensor<?x2x?x64xf32>
  return %qh, %y : tensor<?x2x?x64xf32>, tensor<?x?x256xf32>
}
