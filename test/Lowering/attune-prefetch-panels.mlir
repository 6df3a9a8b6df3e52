// RUN: attune-opt %s --attune-prefetch-panels --split-input-file | FileCheck %s

// A GEMM's full register tiles after bufferization: rows of a 128-row cache
// tile in steps of 4, each a k loop over one 128-step k tile of panel %nb.
// The k loop is unrolled by 8 and prefetches (into L2: locality 2) one line
// of the next slice per 8 steps through a flat view of the panels, clamped
// to the buffer (48 x 768 x 64 floats, minus one line); the mark is dropped.
// CHECK-LABEL: func @panel_loop
// CHECK:         %[[FLAT:.*]] = memref.collapse_shape %{{.*}} {{\[\[}}0, 1, 2]] : memref<48x768x64xf32> into memref<2359296xf32>
// CHECK:         scf.for %[[M:.*]] = %c0 to %{{.*}} step %c4
// CHECK:           scf.for %[[K:.*]] = %c0 to %c128 step %c8 iter_args
// CHECK:             %[[T:.*]] = arith.divui %[[M]], %c4
// CHECK:             %[[L:.*]] = arith.divui %[[K]], %c8
// CHECK:             %[[AT:.*]] = arith.minui %{{.*}}, %c2359280
// CHECK:             memref.prefetch %[[FLAT]][%[[AT]]], read, locality<2>, data : memref<2359296xf32>
// CHECK-COUNT-8:     vector.transfer_read %{{.*}} : memref<48x768x64xf32>, vector<64xf32>
// CHECK-NOT:         memref.prefetch
// CHECK:           }
// CHECK-NOT:     attune.panel_k_loop
func.func @panel_loop(%a: memref<128x768xf32>, %rows: index, %nb: index, %k0: index) -> vector<64xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c128 = arith.constant 128 : index
  %pad = arith.constant 0.0 : f32
  %zero = arith.constant dense<0.0> : vector<64xf32>
  %panels = memref.alloc() : memref<48x768x64xf32>
  %r = scf.for %m = %c0 to %rows step %c4 iter_args(%o = %zero) -> (vector<64xf32>) {
    %acc = scf.for %k = %c0 to %c128 step %c1 iter_args(%s = %o) -> (vector<64xf32>) {
      %kk = affine.apply affine_map<()[s0, s1] -> (s0 + s1)>()[%k0, %k]
      %b = vector.transfer_read %panels[%nb, %kk, %c0], %pad {in_bounds = [true]} : memref<48x768x64xf32>, vector<64xf32>
      %x = memref.load %a[%m, %kk] : memref<128x768xf32>
      %xb = vector.broadcast %x : f32 to vector<64xf32>
      %f = vector.fma %b, %xb, %s : vector<64xf32>
      scf.yield %f : vector<64xf32>
    } {attune.panel_k_loop}
    scf.yield %acc : vector<64xf32>
  }
  memref.dealloc %panels : memref<48x768x64xf32>
  return %r : vector<64xf32>
}

// -----

// A k tile of a dynamic number of steps: not unrolled, one prefetch per
// step (the same line for 8 steps running).
// CHECK-LABEL: func @dynamic_k
// CHECK:         scf.for %{{.*}} = %c0 to %{{.*}} step %c1 iter_args
// CHECK:           memref.prefetch %{{.*}}, read, locality<2>, data : memref<65536xf32>
// CHECK-COUNT-1:   vector.transfer_read
// CHECK:           scf.yield
func.func @dynamic_k(%panels: memref<8x128x64xf32>, %rows: index, %kn: index) -> vector<64xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %pad = arith.constant 0.0 : f32
  %zero = arith.constant dense<0.0> : vector<64xf32>
  %r = scf.for %m = %c0 to %rows step %c4 iter_args(%o = %zero) -> (vector<64xf32>) {
    %acc = scf.for %k = %c0 to %kn step %c1 iter_args(%s = %o) -> (vector<64xf32>) {
      %b = vector.transfer_read %panels[%c1, %k, %c0], %pad {in_bounds = [true]} : memref<8x128x64xf32>, vector<64xf32>
      %f = arith.addf %b, %s : vector<64xf32>
      scf.yield %f : vector<64xf32>
    } {attune.panel_k_loop}
    scf.yield %acc : vector<64xf32>
  }
  return %r : vector<64xf32>
}

// -----

// Negative cases: a marked loop that reads no [N/W, K, W] panel (here a
// rank-2 weight), and an unmarked loop over a panel, get no prefetch; the
// mark is dropped all the same.
// CHECK-LABEL: func @no_panel
// CHECK-NOT:     memref.prefetch
// CHECK-NOT:     attune.panel_k_loop
// CHECK:         return
func.func @no_panel(%w: memref<128x64xf32>, %panels: memref<8x128x64xf32>, %rows: index) -> vector<64xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c128 = arith.constant 128 : index
  %pad = arith.constant 0.0 : f32
  %zero = arith.constant dense<0.0> : vector<64xf32>
  %r = scf.for %m = %c0 to %rows step %c4 iter_args(%o = %zero) -> (vector<64xf32>) {
    %acc = scf.for %k = %c0 to %c128 step %c1 iter_args(%s = %o) -> (vector<64xf32>) {
      %b = vector.transfer_read %w[%k, %c0], %pad {in_bounds = [true]} : memref<128x64xf32>, vector<64xf32>
      %f = arith.addf %b, %s : vector<64xf32>
      scf.yield %f : vector<64xf32>
    } {attune.panel_k_loop}
    %acc2 = scf.for %k = %c0 to %c128 step %c1 iter_args(%s = %acc) -> (vector<64xf32>) {
      %b = vector.transfer_read %panels[%c1, %k, %c0], %pad {in_bounds = [true]} : memref<8x128x64xf32>, vector<64xf32>
      %f = arith.addf %b, %s : vector<64xf32>
      scf.yield %f : vector<64xf32>
    }
    scf.yield %acc2 : vector<64xf32>
  }
  return %r : vector<64xf32>
}

// -----

// The register tiles' accumulators: each 4 x 64 tile is loaded before its
// k loop and stored after it (here 4 rows of one panel of the panel-major
// [1, N/64, M, 64] output tile, rows along dim 2). Each 8-step slot of the
// k loop also prefetches, into L1 (locality 3), one line of the next
// register tile's accumulators: 16 slots, 4 rows of 4 lines, row m + 4 +
// slot / 4 (the last row of the tile at most), column 16 (slot mod 4).
// CHECK-LABEL: func @accumulators
// CHECK:         scf.for %[[M:.*]] = %c0 to %c128 step %c4
// CHECK:           %[[V:.*]] = memref.subview %[[TILE:.*]][0, 0, %[[M]], 0] [1, 1, 4, 64]
// CHECK:           scf.for %[[K:.*]] = %c0 to %c128 step %c8 iter_args
// CHECK:             memref.prefetch %{{.*}}, read, locality<2>, data : memref<65536xf32>
// CHECK:             %[[SLOT:.*]] = arith.divui %[[K]], %c8
// CHECK:             %[[R:.*]] = arith.divui %[[SLOT]], %c4
// CHECK:             %[[NEXT:.*]] = arith.addi %[[M]], %c4
// CHECK:             %[[ROW:.*]] = arith.addi %[[NEXT]], %[[R]]
// CHECK:             %[[LAST:.*]] = arith.minui %[[ROW]], %c127
// CHECK:             %[[L:.*]] = arith.remui %[[SLOT]], %c4
// CHECK:             %[[COL:.*]] = arith.muli %[[L]], %c16
// CHECK:             memref.prefetch %[[TILE]][%c0, %c0, %[[LAST]], %[[COL]]], read, locality<3>, data
// CHECK-NOT:         memref.prefetch
// CHECK:           }
// CHECK:           vector.transfer_write %{{.*}}, %[[V]]
func.func @accumulators(%panels: memref<8x128x64xf32>, %tile: memref<1x1x128x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c128 = arith.constant 128 : index
  %pad = arith.constant 0.0 : f32
  scf.for %m = %c0 to %c128 step %c4 {
    %v = memref.subview %tile[0, 0, %m, 0] [1, 1, 4, 64] [1, 1, 1, 1] : memref<1x1x128x64xf32> to memref<1x1x4x64xf32, strided<[8192, 8192, 64, 1], offset: ?>>
    %a = vector.transfer_read %v[%c0, %c0, %c0, %c0], %pad {in_bounds = [true, true, true, true]} : memref<1x1x4x64xf32, strided<[8192, 8192, 64, 1], offset: ?>>, vector<1x1x4x64xf32>
    %acc = scf.for %k = %c0 to %c128 step %c1 iter_args(%s = %a) -> (vector<1x1x4x64xf32>) {
      %b = vector.transfer_read %panels[%c1, %k, %c0], %pad {in_bounds = [true]} : memref<8x128x64xf32>, vector<64xf32>
      %bb = vector.broadcast %b : vector<64xf32> to vector<1x1x4x64xf32>
      %f = arith.addf %bb, %s : vector<1x1x4x64xf32>
      scf.yield %f : vector<1x1x4x64xf32>
    } {attune.panel_k_loop}
    vector.transfer_write %acc, %v[%c0, %c0, %c0, %c0] {in_bounds = [true, true, true, true]} : vector<1x1x4x64xf32>, memref<1x1x4x64xf32, strided<[8192, 8192, 64, 1], offset: ?>>
  }
  return
}
