// RUN: attune-opt %s --pass-pipeline='builtin.module(func.func(attune-map-to-gpu))' | FileCheck %s
// RUN: attune-opt %s --pass-pipeline='builtin.module(func.func(attune-map-to-gpu{workgroup-size=128}))' | FileCheck %s --check-prefix=WG128
// RUN: not attune-opt %s --pass-pipeline='builtin.module(func.func(attune-map-to-gpu{workgroup-size=0}))' 2>&1 | FileCheck %s --check-prefix=BAD

// A reduction in the middle dim: the parallel dims (0, 2) form one nest,
// tiled [8 x 8] (the innermost static extent is 8), the reduction runs
// inside each invocation; erf becomes a polynomial.
// CHECK-LABEL: func.func @reduce_middle
// CHECK-NOT:     math.erf
// CHECK:         scf.parallel (%{{.*}}, %{{.*}}) = {{.*}} to (%{{.*}}, %c8)
// CHECK:           scf.parallel
// CHECK:             arith.cmpi ult
// CHECK:             scf.if
// CHECK:               scf.for
// CHECK:                 memref.load %arg0
// CHECK:           } {mapping = [#gpu.loop_dim_map<processor = thread_y{{.*}}>, #gpu.loop_dim_map<processor = thread_x{{.*}}>]}
// CHECK:         } {mapping = [#gpu.loop_dim_map<processor = block_y{{.*}}>, #gpu.loop_dim_map<processor = block_x{{.*}}>]}
// WG128-LABEL: func.func @reduce_middle
// WG128:         %c16 = arith.constant 16 : index
func.func @reduce_middle(%x: memref<?x3x8xf32>, %y: memref<?x8xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>],
                  iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%x : memref<?x3x8xf32>) outs(%y : memref<?x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %e = math.erf %in : f32
    %s = arith.addf %e, %out : f32
    linalg.yield %s : f32
  }
  return
}

// Rank 0 still runs on the device: a one-iteration nest.
// CHECK-LABEL: func.func @rank0
// CHECK:         scf.parallel
// CHECK:           scf.parallel
// CHECK:             memref.store %{{.*}}, %arg0[] : memref<f32>
// CHECK:           } {mapping = [#gpu.loop_dim_map<processor = thread_x
// CHECK:         } {mapping = [#gpu.loop_dim_map<processor = block_x
func.func @rank0(%z: memref<f32>) {
  %cst = arith.constant 0.0 : f32
  linalg.fill ins(%cst : f32) outs(%z : memref<f32>)
  return
}

// Copies become kernels; rank 4 collapses its leading dims into one.
// CHECK-LABEL: func.func @copy4
// CHECK-NOT:     memref.copy
// CHECK:         scf.parallel (%{{.*}}, %{{.*}}, %{{.*}}) =
// CHECK:           scf.parallel (%{{.*}}, %{{.*}}, %{{.*}}) =
// CHECK:             memref.load %arg0
// CHECK:             memref.store {{.*}} %arg1
// CHECK:           } {mapping = [#gpu.loop_dim_map<processor = thread_z{{.*}}>, #gpu.loop_dim_map<processor = thread_y{{.*}}>, #gpu.loop_dim_map<processor = thread_x
// CHECK:         } {mapping = [#gpu.loop_dim_map<processor = block_z{{.*}}>, #gpu.loop_dim_map<processor = block_y{{.*}}>, #gpu.loop_dim_map<processor = block_x
func.func @copy4(%a: memref<?x4x?x16xf32>, %b: memref<?x4x?x16xf32>) {
  memref.copy %a, %b : memref<?x4x?x16xf32> to memref<?x4x?x16xf32>
  return
}

// BAD: error: workgroup size 0 is outside [1, 1024]
