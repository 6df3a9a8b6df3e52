// RUN: attune-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(attune-epilogue-in-registers))" | FileCheck %s

// One cache tile of a GEMM with a ReLU epilogue, bufferized: k tiles of 128
// over K = 256, register tiles of 4 x 64 rows of a panel-major intermediate
// %tile (rows along dim 2) and the remaining rows one at a time, then the
// epilogue's row loop into the row-major output (rows along dim 1).
// The last k tile is peeled; there the accumulators get the ReLU in
// registers, piece by piece (one row and 16 columns: each piece's chain of
// ops before the next piece's, so that only one piece's temporaries are
// live), and go to the output (4 x 64 as vector<1x4x1x64> through a
// shape_cast); the intermediate, a buffer only this tile uses, is no longer
// stored in the last k tile, and the row loop is gone.
// CHECK-LABEL: func @relu_tile
// CHECK:         %[[OUT:.*]] = memref.subview %arg3
// CHECK:         scf.for %{{.*}} = %c0 to %c128{{.*}} step %c128 {
// CHECK:           vector.transfer_write %{{.*}} : vector<1x1x4x64xf32>
// CHECK:           vector.transfer_write %{{.*}} : vector<1x1x1x64xf32>
// CHECK:         }
// CHECK:         scf.for %[[R:.*]] = %c0 to %{{.*}} step %c4 {
// CHECK:           %[[ACC:.*]] = scf.for {{.*}} -> (vector<1x1x4x64xf32>)
// CHECK:           %[[P0:.*]] = vector.extract_strided_slice %[[ACC]] {offsets = [0, 0, 0, 0], sizes = [1, 1, 1, 16], strides = [1, 1, 1, 1]} : vector<1x1x4x64xf32> to vector<1x1x1x16xf32>
// CHECK:           %[[Z0:.*]] = vector.extract_strided_slice %{{.*}} {offsets = [0, 0, 0, 0], sizes = [1, 1, 1, 16], strides = [1, 1, 1, 1]} : vector<1x1x1x64xf32> to vector<1x1x1x16xf32>
// CHECK:           %[[Y0:.*]] = arith.maximumf %[[P0]], %[[Z0]] : vector<1x1x1x16xf32>
// CHECK:           %[[T0:.*]] = vector.insert_strided_slice %[[Y0]], %{{.*}} {offsets = [0, 0, 0, 0], strides = [1, 1, 1, 1]} : vector<1x1x1x16xf32> into vector<1x1x4x64xf32>
// CHECK:           %[[P1:.*]] = vector.extract_strided_slice %[[ACC]] {offsets = [0, 0, 0, 16]
// CHECK:           arith.maximumf %[[P1]], %{{.*}} : vector<1x1x1x16xf32>
// CHECK:           vector.insert_strided_slice %{{.*}}, %[[T0]] {offsets = [0, 0, 0, 16]
// The second row reuses the first row's pieces of the zero row.
// CHECK:           %[[P4:.*]] = vector.extract_strided_slice %[[ACC]] {offsets = [0, 0, 1, 0]
// CHECK-NEXT:      arith.maximumf %[[P4]], %[[Z0]] : vector<1x1x1x16xf32>
// CHECK-COUNT-11:  arith.maximumf {{.*}} : vector<1x1x1x16xf32>
// CHECK:           %[[Y:.*]] = vector.insert_strided_slice %{{.*}} {offsets = [0, 0, 3, 48], strides = [1, 1, 1, 1]} : vector<1x1x1x16xf32> into vector<1x1x4x64xf32>
// CHECK:           %[[S:.*]] = vector.shape_cast %[[Y]] : vector<1x1x4x64xf32> to vector<1x4x1x64xf32>
// CHECK-NOT:       vector.transfer_write %{{.*}} : vector<1x1x4x64xf32>
// CHECK:           vector.transfer_write %[[S]], %[[OUT]][%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] {{.*}} : vector<1x4x1x64xf32>
// CHECK:         }
// CHECK:         scf.for %[[R2:.*]] = %{{.*}} to %{{.*}} step %c4 {
// CHECK:           scf.for %[[I:.*]] = %c0 to
// CHECK:             %[[ACC1:.*]] = scf.for {{.*}} -> (vector<1x1x1x64xf32>)
// CHECK-COUNT-4:       arith.maximumf {{.*}} : vector<1x1x1x16xf32>
// CHECK:             %[[Y1:.*]] = vector.insert_strided_slice %{{.*}} {offsets = [0, 0, 0, 48], strides = [1, 1, 1, 1]} : vector<1x1x1x16xf32> into vector<1x1x1x64xf32>
// CHECK:             %[[ROW:.*]] = arith.addi %[[R2]], %[[I]]
// CHECK-NOT:         vector.transfer_write %{{.*}} : vector<1x1x1x64xf32>, memref<1x1x?x64xf32
// CHECK:             vector.transfer_write %[[Y1]], %[[OUT]][%{{.*}}, %[[ROW]], %{{.*}}, %{{.*}}]
// CHECK-NOT:     arith.maximumf
// CHECK:         memref.dealloc
func.func @relu_tile(%a: memref<?x256xf32>, %p: memref<256x64xf32>, %rows: index, %out0: memref<1x?x5x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %pad = arith.constant 0.0 : f32
  %zero = arith.constant dense<0.0> : vector<1x1x1x64xf32>
  %full = affine.apply affine_map<()[s0] -> ((s0 floordiv 4) * 4)>()[%rows]
  %tile = memref.alloc(%rows) : memref<1x1x?x64xf32>
  scf.for %kt = %c0 to %c256 step %c128 {
    scf.for %r = %c0 to %full step %c4 {
      %v = memref.subview %tile[0, 0, %r, 0] [1, 1, 4, 64] [1, 1, 1, 1] : memref<1x1x?x64xf32> to memref<1x1x4x64xf32, strided<[?, ?, 64, 1], offset: ?>>
      %init = vector.transfer_read %v[%c0, %c0, %c0, %c0], %pad {in_bounds = [true, true, true, true]} : memref<1x1x4x64xf32, strided<[?, ?, 64, 1], offset: ?>>, vector<1x1x4x64xf32>
      %acc = scf.for %k = %c0 to %c128 step %c1 iter_args(%s = %init) -> (vector<1x1x4x64xf32>) {
        %kk = arith.addi %kt, %k : index
        %b = vector.transfer_read %p[%kk, %c0], %pad {in_bounds = [true, true]} : memref<256x64xf32>, vector<1x64xf32>
        %bb = vector.broadcast %b : vector<1x64xf32> to vector<1x1x4x64xf32>
        %x = memref.load %a[%r, %kk] : memref<?x256xf32>
        %xb = vector.broadcast %x : f32 to vector<1x1x4x64xf32>
        %f = vector.fma %bb, %xb, %s : vector<1x1x4x64xf32>
        scf.yield %f : vector<1x1x4x64xf32>
      }
      vector.transfer_write %acc, %v[%c0, %c0, %c0, %c0] {in_bounds = [true, true, true, true]} : vector<1x1x4x64xf32>, memref<1x1x4x64xf32, strided<[?, ?, 64, 1], offset: ?>>
    }
    scf.for %r = %full to %rows step %c4 {
      %n = affine.apply affine_map<(d0)[s0] -> (s0 - d0)>(%r)[%rows]
      %v = memref.subview %tile[0, 0, %r, 0] [1, 1, %n, 64] [1, 1, 1, 1] : memref<1x1x?x64xf32> to memref<1x1x?x64xf32, strided<[?, ?, 64, 1], offset: ?>>
      scf.for %i = %c0 to %n step %c1 {
        %init = vector.transfer_read %v[%c0, %c0, %i, %c0], %pad {in_bounds = [true, true, true, true]} : memref<1x1x?x64xf32, strided<[?, ?, 64, 1], offset: ?>>, vector<1x1x1x64xf32>
        %acc = scf.for %k = %c0 to %c128 step %c1 iter_args(%s = %init) -> (vector<1x1x1x64xf32>) {
          %kk = arith.addi %kt, %k : index
          %b = vector.transfer_read %p[%kk, %c0], %pad {in_bounds = [true, true]} : memref<256x64xf32>, vector<1x64xf32>
          %bb = vector.broadcast %b : vector<1x64xf32> to vector<1x1x1x64xf32>
          %f = arith.addf %bb, %s : vector<1x1x1x64xf32>
          scf.yield %f : vector<1x1x1x64xf32>
        }
        vector.transfer_write %acc, %v[%c0, %c0, %i, %c0] {in_bounds = [true, true, true, true]} : vector<1x1x1x64xf32>, memref<1x1x?x64xf32, strided<[?, ?, 64, 1], offset: ?>>
      }
    }
  }
  %out = memref.subview %out0[0, 0, 2, 0] [1, %rows, 1, 64] [1, 1, 1, 1] : memref<1x?x5x64xf32> to memref<1x?x1x64xf32, strided<[?, 320, 64, 1], offset: 128>>
  scf.for %r = %c0 to %rows step %c1 {
    %x = vector.transfer_read %tile[%c0, %c0, %r, %c0], %pad {in_bounds = [true, true, true, true]} : memref<1x1x?x64xf32>, vector<1x1x1x64xf32>
    %y = arith.maximumf %x, %zero : vector<1x1x1x64xf32>
    vector.transfer_write %y, %out[%c0, %r, %c0, %c0] {in_bounds = [true, true, true, true]} : vector<1x1x1x64xf32>, memref<1x?x1x64xf32, strided<[?, 320, 64, 1], offset: 128>>
  }
  memref.dealloc %tile : memref<1x1x?x64xf32>
  return
}

// -----

// The same with a 24-column panel stored in chunks of 8 (attune-tile-gemm's
// 4 x 24 register tiles on 16 ymm registers): each chunk's store gets the
// epilogue, on the chunk's columns of a row operand defined outside (the
// bias: an extract_strided_slice at the chunk's column), and writes the
// output at that column.
// CHECK-LABEL: func @bias_relu_chunks
// CHECK:         scf.for %{{.*}} = %c0 to %c128{{.*}} step %c128 {
// CHECK:         scf.for %[[R:.*]] = %c0 to %{{.*}} step %c4 {
// CHECK:           %[[A:.*]]:3 = scf.for {{.*}} -> (vector<1x1x4x8xf32>, vector<1x1x4x8xf32>, vector<1x1x4x8xf32>)
// CHECK:           %[[P2:.*]] = vector.extract_strided_slice %[[A]]#2 {offsets = [0, 0, 0, 0], sizes = [1, 1, 1, 8], strides = [1, 1, 1, 1]} : vector<1x1x4x8xf32> to vector<1x1x1x8xf32>
// CHECK:           %[[B2:.*]] = vector.extract_strided_slice %arg4 {offsets = [0, 0, 0, 16], sizes = [1, 1, 1, 8], strides = [1, 1, 1, 1]}
// CHECK:           %[[S2:.*]] = arith.addf %[[P2]], %[[B2]] : vector<1x1x1x8xf32>
// CHECK:           arith.maximumf %[[S2]], %{{.*}} : vector<1x1x1x8xf32>
// CHECK-COUNT-3:   arith.maximumf {{.*}} : vector<1x1x1x8xf32>
// CHECK:           %[[Y2:.*]] = vector.insert_strided_slice %{{.*}} {offsets = [0, 0, 3, 0], strides = [1, 1, 1, 1]} : vector<1x1x1x8xf32> into vector<1x1x4x8xf32>
// CHECK:           %[[C2:.*]] = vector.shape_cast %[[Y2]] : vector<1x1x4x8xf32> to vector<1x4x1x8xf32>
// CHECK:           %[[AT16:.*]] = arith.constant 16 : index
// CHECK:           vector.transfer_write %[[C2]], %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %[[AT16]]] {{.*}} : vector<1x4x1x8xf32>
// CHECK:           vector.extract_strided_slice %arg4 {offsets = [0, 0, 0, 8]
// CHECK:           %[[AT8:.*]] = arith.constant 8 : index
// CHECK:           vector.transfer_write %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %[[AT8]]] {{.*}} : vector<1x4x1x8xf32>
// CHECK:           vector.extract_strided_slice %arg4 {offsets = [0, 0, 0, 0]
// CHECK:           %[[Z:.*]] = arith.constant 0 : index
// CHECK:           vector.transfer_write %{{.*}}, %{{.*}}[%[[Z]], %{{.*}}, %[[Z]], %[[Z]]] {{.*}} : vector<1x4x1x8xf32>
// CHECK:         }
// CHECK:         scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c4 {
// CHECK:           scf.for
// CHECK-COUNT-3:     arith.maximumf {{.*}} : vector<1x1x1x8xf32>
// CHECK-NOT:     arith.maximumf
// CHECK:         memref.dealloc
func.func @bias_relu_chunks(%a: memref<?x256xf32>, %p: memref<256x24xf32>, %rows: index, %out0: memref<1x?x5x24xf32>, %bias: vector<1x1x1x24xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %pad = arith.constant 0.0 : f32
  %zero = arith.constant dense<0.0> : vector<1x1x1x24xf32>
  %full = affine.apply affine_map<()[s0] -> ((s0 floordiv 4) * 4)>()[%rows]
  %tile = memref.alloc(%rows) : memref<1x1x?x24xf32>
  scf.for %kt = %c0 to %c256 step %c128 {
    scf.for %r = %c0 to %full step %c4 {
      %v = memref.subview %tile[0, 0, %r, 0] [1, 1, 4, 24] [1, 1, 1, 1] : memref<1x1x?x24xf32> to memref<1x1x4x24xf32, strided<[?, ?, 24, 1], offset: ?>>
      %i0 = vector.transfer_read %v[%c0, %c0, %c0, %c0], %pad {in_bounds = [true, true, true, true]} : memref<1x1x4x24xf32, strided<[?, ?, 24, 1], offset: ?>>, vector<1x1x4x8xf32>
      %i1 = vector.transfer_read %v[%c0, %c0, %c0, %c8], %pad {in_bounds = [true, true, true, true]} : memref<1x1x4x24xf32, strided<[?, ?, 24, 1], offset: ?>>, vector<1x1x4x8xf32>
      %i2 = vector.transfer_read %v[%c0, %c0, %c0, %c16], %pad {in_bounds = [true, true, true, true]} : memref<1x1x4x24xf32, strided<[?, ?, 24, 1], offset: ?>>, vector<1x1x4x8xf32>
      %acc:3 = scf.for %k = %c0 to %c128 step %c1 iter_args(%s0 = %i0, %s1 = %i1, %s2 = %i2) -> (vector<1x1x4x8xf32>, vector<1x1x4x8xf32>, vector<1x1x4x8xf32>) {
        %kk = arith.addi %kt, %k : index
        %x = memref.load %a[%r, %kk] : memref<?x256xf32>
        %xb = vector.broadcast %x : f32 to vector<1x1x4x8xf32>
        %b0 = vector.transfer_read %p[%kk, %c0], %pad {in_bounds = [true, true]} : memref<256x24xf32>, vector<1x8xf32>
        %bb0 = vector.broadcast %b0 : vector<1x8xf32> to vector<1x1x4x8xf32>
        %f0 = vector.fma %bb0, %xb, %s0 : vector<1x1x4x8xf32>
        %b1 = vector.transfer_read %p[%kk, %c8], %pad {in_bounds = [true, true]} : memref<256x24xf32>, vector<1x8xf32>
        %bb1 = vector.broadcast %b1 : vector<1x8xf32> to vector<1x1x4x8xf32>
        %f1 = vector.fma %bb1, %xb, %s1 : vector<1x1x4x8xf32>
        %b2 = vector.transfer_read %p[%kk, %c16], %pad {in_bounds = [true, true]} : memref<256x24xf32>, vector<1x8xf32>
        %bb2 = vector.broadcast %b2 : vector<1x8xf32> to vector<1x1x4x8xf32>
        %f2 = vector.fma %bb2, %xb, %s2 : vector<1x1x4x8xf32>
        scf.yield %f0, %f1, %f2 : vector<1x1x4x8xf32>, vector<1x1x4x8xf32>, vector<1x1x4x8xf32>
      }
      vector.transfer_write %acc#2, %v[%c0, %c0, %c0, %c16] {in_bounds = [true, true, true, true]} : vector<1x1x4x8xf32>, memref<1x1x4x24xf32, strided<[?, ?, 24, 1], offset: ?>>
      vector.transfer_write %acc#1, %v[%c0, %c0, %c0, %c8] {in_bounds = [true, true, true, true]} : vector<1x1x4x8xf32>, memref<1x1x4x24xf32, strided<[?, ?, 24, 1], offset: ?>>
      vector.transfer_write %acc#0, %v[%c0, %c0, %c0, %c0] {in_bounds = [true, true, true, true]} : vector<1x1x4x8xf32>, memref<1x1x4x24xf32, strided<[?, ?, 24, 1], offset: ?>>
    }
    scf.for %r = %full to %rows step %c4 {
      %n = affine.apply affine_map<(d0)[s0] -> (s0 - d0)>(%r)[%rows]
      %v = memref.subview %tile[0, 0, %r, 0] [1, 1, %n, 24] [1, 1, 1, 1] : memref<1x1x?x24xf32> to memref<1x1x?x24xf32, strided<[?, ?, 24, 1], offset: ?>>
      scf.for %i = %c0 to %n step %c1 {
        %i0 = vector.transfer_read %v[%c0, %c0, %i, %c0], %pad {in_bounds = [true, true, true, true]} : memref<1x1x?x24xf32, strided<[?, ?, 24, 1], offset: ?>>, vector<1x1x1x8xf32>
        %i1 = vector.transfer_read %v[%c0, %c0, %i, %c8], %pad {in_bounds = [true, true, true, true]} : memref<1x1x?x24xf32, strided<[?, ?, 24, 1], offset: ?>>, vector<1x1x1x8xf32>
        %i2 = vector.transfer_read %v[%c0, %c0, %i, %c16], %pad {in_bounds = [true, true, true, true]} : memref<1x1x?x24xf32, strided<[?, ?, 24, 1], offset: ?>>, vector<1x1x1x8xf32>
        %acc:3 = scf.for %k = %c0 to %c128 step %c1 iter_args(%s0 = %i0, %s1 = %i1, %s2 = %i2) -> (vector<1x1x1x8xf32>, vector<1x1x1x8xf32>, vector<1x1x1x8xf32>) {
          %kk = arith.addi %kt, %k : index
          %b0 = vector.transfer_read %p[%kk, %c0], %pad {in_bounds = [true, true]} : memref<256x24xf32>, vector<1x8xf32>
          %bb0 = vector.broadcast %b0 : vector<1x8xf32> to vector<1x1x1x8xf32>
          %f0 = arith.addf %bb0, %s0 : vector<1x1x1x8xf32>
          %b1 = vector.transfer_read %p[%kk, %c8], %pad {in_bounds = [true, true]} : memref<256x24xf32>, vector<1x8xf32>
          %bb1 = vector.broadcast %b1 : vector<1x8xf32> to vector<1x1x1x8xf32>
          %f1 = arith.addf %bb1, %s1 : vector<1x1x1x8xf32>
          %b2 = vector.transfer_read %p[%kk, %c16], %pad {in_bounds = [true, true]} : memref<256x24xf32>, vector<1x8xf32>
          %bb2 = vector.broadcast %b2 : vector<1x8xf32> to vector<1x1x1x8xf32>
          %f2 = arith.addf %bb2, %s2 : vector<1x1x1x8xf32>
          scf.yield %f0, %f1, %f2 : vector<1x1x1x8xf32>, vector<1x1x1x8xf32>, vector<1x1x1x8xf32>
        }
        vector.transfer_write %acc#2, %v[%c0, %c0, %i, %c16] {in_bounds = [true, true, true, true]} : vector<1x1x1x8xf32>, memref<1x1x?x24xf32, strided<[?, ?, 24, 1], offset: ?>>
        vector.transfer_write %acc#1, %v[%c0, %c0, %i, %c8] {in_bounds = [true, true, true, true]} : vector<1x1x1x8xf32>, memref<1x1x?x24xf32, strided<[?, ?, 24, 1], offset: ?>>
        vector.transfer_write %acc#0, %v[%c0, %c0, %i, %c0] {in_bounds = [true, true, true, true]} : vector<1x1x1x8xf32>, memref<1x1x?x24xf32, strided<[?, ?, 24, 1], offset: ?>>
      }
    }
  }
  %out = memref.subview %out0[0, 0, 2, 0] [1, %rows, 1, 24] [1, 1, 1, 1] : memref<1x?x5x24xf32> to memref<1x?x1x24xf32, strided<[?, 120, 24, 1], offset: 48>>
  scf.for %r = %c0 to %rows step %c1 {
    %x = vector.transfer_read %tile[%c0, %c0, %r, %c0], %pad {in_bounds = [true, true, true, true]} : memref<1x1x?x24xf32>, vector<1x1x1x24xf32>
    %s = arith.addf %x, %bias : vector<1x1x1x24xf32>
    %y = arith.maximumf %s, %zero : vector<1x1x1x24xf32>
    vector.transfer_write %y, %out[%c0, %r, %c0, %c0] {in_bounds = [true, true, true, true]} : vector<1x1x1x24xf32>, memref<1x?x1x24xf32, strided<[?, 120, 24, 1], offset: 48>>
  }
  memref.dealloc %tile : memref<1x1x?x24xf32>
  return
}

// -----

// Negative case: a copy between the k tiles and the row loop (side effects
// the pass does not follow) leaves both as they are.
// CHECK-LABEL: func @copy_between
// CHECK:         scf.for %{{.*}} = %c0 to %c256 step %c128
// CHECK:         memref.copy
// CHECK:         scf.for %{{.*}} = %c0 to %{{.*}} step %c1
// CHECK:           arith.maximumf
func.func @copy_between(%tile: memref<1x1x?x64xf32>, %other: memref<1x1x?x64xf32>, %rows: index, %out: memref<1x?x1x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %pad = arith.constant 0.0 : f32
  %zero = arith.constant dense<0.0> : vector<1x1x1x64xf32>
  scf.for %kt = %c0 to %c256 step %c128 {
    scf.for %r = %c0 to %rows step %c1 {
      %v = memref.subview %tile[0, 0, %r, 0] [1, 1, 1, 64] [1, 1, 1, 1] : memref<1x1x?x64xf32> to memref<1x1x1x64xf32, strided<[?, ?, 64, 1], offset: ?>>
      %s = vector.transfer_read %v[%c0, %c0, %c0, %c0], %pad {in_bounds = [true, true, true, true]} : memref<1x1x1x64xf32, strided<[?, ?, 64, 1], offset: ?>>, vector<1x1x1x64xf32>
      %f = arith.addf %s, %s : vector<1x1x1x64xf32>
      vector.transfer_write %f, %v[%c0, %c0, %c0, %c0] {in_bounds = [true, true, true, true]} : vector<1x1x1x64xf32>, memref<1x1x1x64xf32, strided<[?, ?, 64, 1], offset: ?>>
    }
  }
  memref.copy %other, %tile : memref<1x1x?x64xf32> to memref<1x1x?x64xf32>
  scf.for %r = %c0 to %rows step %c1 {
    %x = vector.transfer_read %tile[%c0, %c0, %r, %c0], %pad {in_bounds = [true, true, true, true]} : memref<1x1x?x64xf32>, vector<1x1x1x64xf32>
    %y = arith.maximumf %x, %zero : vector<1x1x1x64xf32>
    vector.transfer_write %y, %out[%c0, %r, %c0, %c0] {in_bounds = [true, true, true, true]} : vector<1x1x1x64xf32>, memref<1x?x1x64xf32>
  }
  return
}

// -----

// A tile the caller may read afterwards (a function argument): the last k
// tile still stores it, and also writes the activated rows.
// CHECK-LABEL: func @visible_tile
// CHECK:         scf.for %{{.*}} = %c0 to %c128{{.*}} step %c128 {
// CHECK-NEXT:      scf.for
// CHECK-NEXT:        memref.subview
// CHECK-NEXT:        vector.transfer_read
// CHECK-NEXT:        arith.addf
// CHECK-NEXT:        vector.transfer_write
// CHECK-NEXT:      {{^ *}}}
// CHECK-NEXT:    {{^ *}}}
// CHECK-NEXT:    scf.for %[[R:.*]] = %c0 to %{{.*}} step %c1 {
// CHECK:           vector.transfer_write %[[F:.*]], %{{.*}}[%c0, %c0, %c0, %c0]
// CHECK:           vector.extract_strided_slice %[[F]] {offsets = [0, 0, 0, 0], sizes = [1, 1, 1, 16]
// CHECK-COUNT-4:   arith.maximumf {{.*}} : vector<1x1x1x16xf32>
// CHECK:           %[[Y:.*]] = vector.insert_strided_slice %{{.*}} {offsets = [0, 0, 0, 48], strides = [1, 1, 1, 1]} : vector<1x1x1x16xf32> into vector<1x1x1x64xf32>
// CHECK:           vector.transfer_write %[[Y]], %arg3[%{{.*}}, %[[R]], %{{.*}}, %{{.*}}]
// CHECK:         }
// CHECK-NOT:     arith.maximumf
// CHECK:         return
func.func @visible_tile(%tile: memref<1x1x?x64xf32>, %unused: memref<1x1x?x64xf32>, %rows: index, %out: memref<1x?x1x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %pad = arith.constant 0.0 : f32
  %zero = arith.constant dense<0.0> : vector<1x1x1x64xf32>
  scf.for %kt = %c0 to %c256 step %c128 {
    scf.for %r = %c0 to %rows step %c1 {
      %v = memref.subview %tile[0, 0, %r, 0] [1, 1, 1, 64] [1, 1, 1, 1] : memref<1x1x?x64xf32> to memref<1x1x1x64xf32, strided<[?, ?, 64, 1], offset: ?>>
      %s = vector.transfer_read %v[%c0, %c0, %c0, %c0], %pad {in_bounds = [true, true, true, true]} : memref<1x1x1x64xf32, strided<[?, ?, 64, 1], offset: ?>>, vector<1x1x1x64xf32>
      %f = arith.addf %s, %s : vector<1x1x1x64xf32>
      vector.transfer_write %f, %v[%c0, %c0, %c0, %c0] {in_bounds = [true, true, true, true]} : vector<1x1x1x64xf32>, memref<1x1x1x64xf32, strided<[?, ?, 64, 1], offset: ?>>
    }
  }
  scf.for %r = %c0 to %rows step %c1 {
    %x = vector.transfer_read %tile[%c0, %c0, %r, %c0], %pad {in_bounds = [true, true, true, true]} : memref<1x1x?x64xf32>, vector<1x1x1x64xf32>
    %y = arith.maximumf %x, %zero : vector<1x1x1x64xf32>
    vector.transfer_write %y, %out[%c0, %r, %c0, %c0] {in_bounds = [true, true, true, true]} : vector<1x1x1x64xf32>, memref<1x?x1x64xf32>
  }
  return
}
