// RUN: attune-opt %s --attune-prefetch-panels=cpu=sapphirerapids --split-input-file | FileCheck %s
// RUN: attune-opt %s --attune-prefetch-panels=cpu=znver4 --split-input-file | FileCheck %s --check-prefix=ZEN4
// RUN: not attune-opt %s --attune-prefetch-panels=cpu=pentium-ultra --split-input-file -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD

// A GEMM's full register tiles after bufferization: rows of a 128-row cache
// tile in steps of 4, each a k loop over one 128-step k tile of panel %nb.
// The k loop is unrolled by 8 and prefetches (into L2: locality 2) one line
// of the next slice per 8 steps through a flat view of the panels: the
// tile's first line, clamped so that all 16 of its lines are in the buffer
// (48 x 768 x 64 floats, minus 16 lines), plus one line per slot; the mark
// is dropped.
// ZEN4-LABEL: func @panel_loop
// ZEN4:         memref.prefetch
// CHECK-LABEL: func @panel_loop
// CHECK:         %[[FLAT:.*]] = memref.collapse_shape %{{.*}} {{\[\[}}0, 1, 2]] : memref<48x768x64xf32> into memref<2359296xf32>
// CHECK:         scf.for %[[M:.*]] = %c0 to %{{.*}} step %c4
// CHECK:           scf.for %[[K:.*]] = %c0 to %c128 step %c8 iter_args
// CHECK:             %[[T:.*]] = arith.divui %[[M]], %c4
// CHECK:             %[[FIRST:.*]] = arith.minui %{{.*}}, %c2359040
// CHECK:             %[[L:.*]] = arith.divui %[[K]], %c8
// CHECK:             %[[LINE:.*]] = arith.muli %[[L]], %c16
// CHECK:             %[[AT:.*]] = arith.addi %[[FIRST]], %[[LINE]]
// CHECK:             memref.prefetch %[[FLAT]][%[[AT]]], read, locality<2>, data : memref<2359296xf32>
// CHECK-COUNT-8:     vector.transfer_read %{{.*}} : memref<48x768x64xf32>, vector<64xf32>
// CHECK-NOT:         memref.prefetch
// CHECK:           } {attune.panel_k_loop}
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
// mark stays all the same (attune-split-accumulators drops it).
// CHECK-LABEL: func @no_panel
// CHECK-NOT:     memref.prefetch
// CHECK:         } {attune.panel_k_loop}
// CHECK-NOT:     memref.prefetch
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
// register tile's accumulators. Its rows are one run of 16 lines, so slot s
// fetches line s of the run from row min(m + 4, 128 - 4), through a view of
// the tile with its rows flattened; the clamp is computed before the k loop.
// CHECK-LABEL: func @accumulators
// CHECK:         %[[ROWS:.*]] = memref.collapse_shape %[[TILE:.*]] {{\[\[}}0], [1], [2, 3]] : memref<1x1x128x64xf32> into memref<1x1x8192xf32>
// CHECK:         scf.for %[[M:.*]] = %c0 to %c128 step %c4
// CHECK:           %[[V:.*]] = memref.subview %[[TILE]][0, 0, %[[M]], 0] [1, 1, 4, 64]
// CHECK:           %[[NEXT:.*]] = arith.addi %[[M]], %c4
// CHECK:           %[[FIRST:.*]] = arith.minui %[[NEXT]], %c124
// CHECK:           %[[START:.*]] = arith.muli %[[FIRST]], %c64
// CHECK:           scf.for %[[K:.*]] = %c0 to %c128 step %c8 iter_args
// CHECK:             memref.prefetch %{{.*}}, read, locality<2>, data : memref<65536xf32>
// CHECK:             %[[AT:.*]] = arith.addi %[[START]], %{{.*}}
// CHECK:             memref.prefetch %[[ROWS]][%c0, %c0, %[[AT]]], read, locality<3>, data
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

// -----

// Row-major accumulators ([1, M, N/64, 64], rows along dim 1, 768 floats
// apart): slot s fetches row min(m + 4, M - 4) + s floordiv 4, line s mod 4
// of it. The register tile reads its 4 rows of A [1, M, 768] as 4 x 1
// vectors at the panel's k index: the next tile's rows of A (4 x 128 floats
// of the k tile: 32 lines) come in 2 lines per slot, line s floordiv 2 of
// rows 2 (s mod 2) and 2 (s mod 2) + 1 after the next tile's first,
// min(m + 4, M - 4).
// CHECK-LABEL: func @next_rows
// CHECK:         scf.for %[[M:.*]] = %c0 to %{{.*}} step %c4
// CHECK:           %[[LAST:.*]] = arith.subi %{{.*}}, %c4
// CHECK:           %[[NEXT:.*]] = arith.addi %[[M]], %c4
// CHECK:           %[[FIRST:.*]] = arith.minui %[[NEXT]], %[[LAST]]
// CHECK:           %[[ALAST:.*]] = arith.subi %{{.*}}, %c4
// CHECK:           %[[ANEXT:.*]] = arith.addi %[[M]], %c4
// CHECK:           %[[AFIRST:.*]] = arith.minui %[[ANEXT]], %[[ALAST]]
// CHECK:           scf.for %[[K:.*]] = %c0 to %c128 step %c8 iter_args
// CHECK:             %[[SLOT:.*]] = arith.divui %[[K]], %c8
// CHECK:             memref.prefetch %{{.*}}, read, locality<2>, data : memref<65536xf32>
// CHECK:             %[[DOWN:.*]] = arith.divui %[[SLOT]], %c4
// CHECK:             %[[ROW:.*]] = arith.addi %[[FIRST]], %[[DOWN]]
// CHECK:             %[[L:.*]] = arith.remui %[[SLOT]], %c4
// CHECK:             %[[COL:.*]] = arith.muli %[[L]], %c16
// CHECK:             memref.prefetch %[[TILE:.*]][%c0, %[[ROW]], %c0, %[[COL]]], read, locality<3>, data : memref<1x?x1x64xf32>
// CHECK:             %[[PAIR:.*]] = arith.divui %[[SLOT]], %c2
// CHECK:             %[[KOFF:.*]] = arith.muli %[[PAIR]], %c16
// CHECK:             %[[KA:.*]] = arith.addi %{{.*}}, %[[KOFF]]
// CHECK:             %[[HALF:.*]] = arith.remui %[[SLOT]], %c2
// CHECK:             %[[HOFF:.*]] = arith.muli %[[HALF]], %c2
// CHECK:             %[[R0:.*]] = arith.addi %[[AFIRST]], %[[HOFF]]
// CHECK:             memref.prefetch %[[A:.*]][%c0, %[[R0]], %[[KA]]], read, locality<3>, data : memref<1x?x768xf32>
// CHECK:             %[[R1:.*]] = arith.addi %[[R0]], %c1
// CHECK:             memref.prefetch %[[A]][%c0, %[[R1]], %[[KA]]], read, locality<3>, data : memref<1x?x768xf32>
// CHECK-NOT:         memref.prefetch
// CHECK:           }
func.func @next_rows(%a: memref<1x?x768xf32>, %panels: memref<8x128x64xf32>, %tile: memref<1x?x1x64xf32>, %rows: index, %k0: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c128 = arith.constant 128 : index
  %pad = arith.constant 0.0 : f32
  scf.for %m = %c0 to %rows step %c4 {
    %v = memref.subview %tile[0, %m, 0, 0] [1, 4, 1, 64] [1, 1, 1, 1] : memref<1x?x1x64xf32> to memref<1x4x1x64xf32, strided<[?, 64, 64, 1], offset: ?>>
    %init = vector.transfer_read %v[%c0, %c0, %c0, %c0], %pad {in_bounds = [true, true, true, true]} : memref<1x4x1x64xf32, strided<[?, 64, 64, 1], offset: ?>>, vector<1x4x1x64xf32>
    %acc = scf.for %k = %c0 to %c128 step %c1 iter_args(%s = %init) -> (vector<1x4x1x64xf32>) {
      %kk = affine.apply affine_map<()[s0, s1] -> (s0 + s1)>()[%k0, %k]
      %x = vector.transfer_read %a[%c0, %m, %kk], %pad {in_bounds = [true, true, true]} : memref<1x?x768xf32>, vector<1x4x1xf32>
      %b = vector.transfer_read %panels[%c1, %kk, %c0], %pad {in_bounds = [true]} : memref<8x128x64xf32>, vector<64xf32>
      %x0 = vector.extract %x[0, 0, 0] : f32 from vector<1x4x1xf32>
      %xb = vector.broadcast %x0 : f32 to vector<64xf32>
      %bb = vector.broadcast %b : vector<64xf32> to vector<1x4x1x64xf32>
      %xbb = vector.broadcast %xb : vector<64xf32> to vector<1x4x1x64xf32>
      %f = vector.fma %bb, %xbb, %s : vector<1x4x1x64xf32>
      scf.yield %f : vector<1x4x1x64xf32>
    } {attune.panel_k_loop}
    vector.transfer_write %acc, %v[%c0, %c0, %c0, %c0] {in_bounds = [true, true, true, true]} : vector<1x4x1x64xf32>, memref<1x4x1x64xf32, strided<[?, 64, 64, 1], offset: ?>>
  }
  return
}

// -----

// A k tile of 256 steps: its 32 slots reach 8 rows, more than the view's 4,
// so the cache tile may not have them all; each slot's row is clamped to
// the last instead (and A's rows are not prefetched: none is read here).
// CHECK-LABEL: func @long_k_tile
// CHECK:         scf.for %[[M:.*]] = %c0 to %c128 step %c4
// CHECK:           scf.for %[[K:.*]] = %c0 to %c256 step %c8 iter_args
// CHECK:             %[[SLOT:.*]] = arith.divui %[[K]], %c8
// CHECK:             memref.prefetch %{{.*}}, read, locality<2>, data : memref<65536xf32>
// CHECK:             %[[DOWN:.*]] = arith.divui %[[SLOT]], %c4
// CHECK:             %[[NEXT:.*]] = arith.addi %[[M]], %c4
// CHECK:             %[[ROW:.*]] = arith.addi %[[NEXT]], %[[DOWN]]
// CHECK:             %[[LAST:.*]] = arith.minui %[[ROW]], %c127
// CHECK:             memref.prefetch %{{.*}}[%c0, %c0, %[[LAST]], %{{.*}}], read, locality<3>, data
// CHECK-NOT:         memref.prefetch
// CHECK:           }
func.func @long_k_tile(%panels: memref<4x256x64xf32>, %tile: memref<1x1x128x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %pad = arith.constant 0.0 : f32
  scf.for %m = %c0 to %c128 step %c4 {
    %v = memref.subview %tile[0, 0, %m, 0] [1, 1, 4, 64] [1, 1, 1, 1] : memref<1x1x128x64xf32> to memref<1x1x4x64xf32, strided<[8192, 8192, 64, 1], offset: ?>>
    %a = vector.transfer_read %v[%c0, %c0, %c0, %c0], %pad {in_bounds = [true, true, true, true]} : memref<1x1x4x64xf32, strided<[8192, 8192, 64, 1], offset: ?>>, vector<1x1x4x64xf32>
    %acc = scf.for %k = %c0 to %c256 step %c1 iter_args(%s = %a) -> (vector<1x1x4x64xf32>) {
      %b = vector.transfer_read %panels[%c1, %k, %c0], %pad {in_bounds = [true]} : memref<4x256x64xf32>, vector<64xf32>
      %bb = vector.broadcast %b : vector<64xf32> to vector<1x1x4x64xf32>
      %f = arith.addf %bb, %s : vector<1x1x4x64xf32>
      scf.yield %f : vector<1x1x4x64xf32>
    } {attune.panel_k_loop}
    vector.transfer_write %acc, %v[%c0, %c0, %c0, %c0] {in_bounds = [true, true, true, true]} : vector<1x1x4x64xf32>, memref<1x1x4x64xf32, strided<[8192, 8192, 64, 1], offset: ?>>
  }
  return
}

// -----

// The k loop of one row (attune.row_k_loop: the last rows of a cache tile,
// all of a decoding step's) on bf16 panels: each k step prefetches its
// row of the next k tile, 128 rows ahead in the flat panel buffer (clamped
// to the last row), 64 bf16 = two lines; no unrolling. On f32 panels
// nothing changes (measured slower with it). On the Zen 4, whose hardware
// prefetcher keeps up with the 16-bit panels, neither
// (CpuTarget::prefetchHalfRows; a decoding step was 1.06-1.45x slower with
// the prefetches); its register tiles' prefetches stay. The marks stay for
// attune-split-accumulators.
// ZEN4-LABEL: func @row_loop_bf16
// ZEN4-NOT:     memref.prefetch
// ZEN4:         } {attune.row_k_loop}
// ZEN4:         return
// BAD: --cpu=pentium-ultra: no machine model for this CPU
// CHECK-LABEL: func @row_loop_bf16
// CHECK:         %[[FLAT:.*]] = memref.collapse_shape %{{.*}} {{\[\[}}0, 1, 2]] : memref<48x768x64xbf16> into memref<2359296xbf16>
// CHECK:         scf.for %[[K:.*]] = %c0 to %c128 step %c1 iter_args
// CHECK:           %[[AHEAD:.*]] = arith.addi %{{.*}}, %c128
// CHECK:           %[[ROW:.*]] = arith.muli %[[AHEAD]], %c64
// CHECK:           %[[AT:.*]] = arith.minui %[[ROW]], %c2359232
// CHECK:           memref.prefetch %[[FLAT]][%[[AT]]], read, locality<2>, data
// CHECK:           %[[AT2:.*]] = arith.addi %[[AT]], %c32
// CHECK:           memref.prefetch %[[FLAT]][%[[AT2]]], read, locality<2>, data
// CHECK-NOT:       memref.prefetch
// CHECK:         } {attune.row_k_loop}
func.func @row_loop_bf16(%a: memref<1x768xf32>, %nb: index, %k0: index) -> vector<64xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  %pad = arith.constant 0.0 : bf16
  %zero = arith.constant dense<0.0> : vector<64xf32>
  %panels = memref.alloc() : memref<48x768x64xbf16>
  %acc = scf.for %k = %c0 to %c128 step %c1 iter_args(%s = %zero) -> (vector<64xf32>) {
    %kk = affine.apply affine_map<()[s0, s1] -> (s0 + s1)>()[%k0, %k]
    %b = vector.transfer_read %panels[%nb, %kk, %c0], %pad {in_bounds = [true]} : memref<48x768x64xbf16>, vector<64xbf16>
    %bw = arith.extf %b : vector<64xbf16> to vector<64xf32>
    %x = memref.load %a[%c0, %kk] : memref<1x768xf32>
    %xb = vector.broadcast %x : f32 to vector<64xf32>
    %f = vector.fma %bw, %xb, %s : vector<64xf32>
    scf.yield %f : vector<64xf32>
  } {attune.row_k_loop}
  memref.dealloc %panels : memref<48x768x64xbf16>
  return %acc : vector<64xf32>
}

// CHECK-LABEL: func @row_loop_f32
// CHECK-NOT:     memref.prefetch
// CHECK:         } {attune.row_k_loop}
// CHECK:         return
func.func @row_loop_f32(%a: memref<1x768xf32>, %nb: index, %k0: index) -> vector<64xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  %pad = arith.constant 0.0 : f32
  %zero = arith.constant dense<0.0> : vector<64xf32>
  %panels = memref.alloc() : memref<48x768x64xf32>
  %acc = scf.for %k = %c0 to %c128 step %c1 iter_args(%s = %zero) -> (vector<64xf32>) {
    %kk = affine.apply affine_map<()[s0, s1] -> (s0 + s1)>()[%k0, %k]
    %b = vector.transfer_read %panels[%nb, %kk, %c0], %pad {in_bounds = [true]} : memref<48x768x64xf32>, vector<64xf32>
    %x = memref.load %a[%c0, %kk] : memref<1x768xf32>
    %xb = vector.broadcast %x : f32 to vector<64xf32>
    %f = vector.fma %b, %xb, %s : vector<64xf32>
    scf.yield %f : vector<64xf32>
  } {attune.row_k_loop}
  memref.dealloc %panels : memref<48x768x64xf32>
  return %acc : vector<64xf32>
}
