// RUN: attune-opt %s --attune-split-accumulators=cpu=znver4 --split-input-file | FileCheck %s
// RUN: attune-opt %s --attune-split-accumulators=cpu=sapphirerapids --split-input-file | FileCheck %s --check-prefix=SPR
// RUN: not attune-opt %s --attune-split-accumulators=cpu=pentium-ultra --split-input-file -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD

// One row of a 16-column panel (768 -> 16 at M = 1): one FMA chain. The Zen 4
// keeps 4 chains in flight (1 zmm FMA per cycle, latency 4): the loop runs
// in steps of 4, copy c of the body at k + c on its own accumulator (the
// first from the init, the others from zero), the copies added in a tree
// after it. Sapphire Rapids (2 FMAs per cycle): 8 copies. The mark goes.
// CHECK-LABEL: func @row_one_vector
// CHECK-DAG:     %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : vector<1x16xf32>
// CHECK-DAG:     %[[C4:.*]] = arith.constant 4 : index
// CHECK:         %[[P:.*]]:4 = scf.for %[[K:.*]] = %c0 to %c256 step %[[C4]]
// CHECK-SAME:        iter_args(%[[A0:.*]] = %[[INIT:[^,]*]], %[[A1:.*]] = %[[ZERO]], %[[A2:.*]] = %[[ZERO]], %[[A3:.*]] = %[[ZERO]])
// CHECK:           %[[X0:.*]] = memref.load %{{.*}}[%c0, %[[K]]]
// CHECK:           %[[E0:.*]] = vector.extract %[[A0]][0]
// CHECK:           %[[F0:.*]] = vector.fma %{{.*}}, %{{.*}}, %[[E0]]
// CHECK:           %[[Y0:.*]] = vector.broadcast %[[F0]]
// CHECK:           %[[K1:.*]] = arith.addi %[[K]], %c1
// CHECK:           memref.load %{{.*}}[%c0, %[[K1]]]
// CHECK:           vector.extract %[[A1]][0]
// CHECK:           %[[K2:.*]] = arith.addi %[[K]], %c2
// CHECK:           vector.extract %[[A2]][0]
// CHECK:           %[[K3:.*]] = arith.addi %[[K]], %c3
// CHECK:           vector.extract %[[A3]][0]
// CHECK:           scf.yield %[[Y0]], %{{.*}}, %{{.*}}, %{{.*}} :
// CHECK:         }
// CHECK-NOT:     attune.row_k_loop
// CHECK:         %[[S01:.*]] = arith.addf %[[P]]#0, %[[P]]#1
// CHECK:         %[[S23:.*]] = arith.addf %[[P]]#2, %[[P]]#3
// CHECK:         %[[S:.*]] = arith.addf %[[S01]], %[[S23]]
// CHECK:         return %[[S]]
// SPR-LABEL: func @row_one_vector
// SPR:         %{{.*}}:8 = scf.for %{{.*}} = %c0 to %c256 step %c8{{[_0-9]*}} iter_args
// SPR-COUNT-7:   arith.addf
// SPR-NOT:       arith.addf
// SPR:         return
func.func @row_one_vector(%a: memref<1x768xf32>, %panels: memref<1x768x16xf32>, %init: vector<1x16xf32>) -> vector<1x16xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %pad = arith.constant 0.0 : f32
  %r = scf.for %k = %c0 to %c256 step %c1 iter_args(%acc = %init) -> (vector<1x16xf32>) {
    %x = memref.load %a[%c0, %k] : memref<1x768xf32>
    %w = vector.transfer_read %panels[%c0, %k, %c0], %pad {in_bounds = [true]} : memref<1x768x16xf32>, vector<16xf32>
    %xb = vector.broadcast %x : f32 to vector<16xf32>
    %e = vector.extract %acc[0] : vector<16xf32> from vector<1x16xf32>
    %f = vector.fma %w, %xb, %e : vector<16xf32>
    %y = vector.broadcast %f : vector<16xf32> to vector<1x16xf32>
    scf.yield %y : vector<1x16xf32>
  } {attune.row_k_loop}
  return %r : vector<1x16xf32>
}

// -----

// A register tile of 2 rows of a 16-column panel (M = 2, 3), in a k loop
// that attune-prefetch-panels unrolled by 8 (here two steps shown): its
// rows' vectors split from the accumulator and joined back element by
// element, as the vector lowering leaves them. Two chains: 2 copies on the
// Zen 4, 4 on Sapphire Rapids.
// CHECK-LABEL: func @panel_two_rows
// CHECK:         %[[P:.*]]:2 = scf.for %{{.*}} = %c0 to %c64 step %c16
// CHECK-SAME:        -> (vector<2x16xf32>, vector<2x16xf32>)
// CHECK-COUNT-8:   vector.fma
// CHECK-NOT:       vector.fma
// CHECK:         }
// CHECK-NOT:     attune.panel_k_loop
// CHECK:         %[[S:.*]] = arith.addf %[[P]]#0, %[[P]]#1 : vector<2x16xf32>
// CHECK:         return %[[S]]
// SPR-LABEL: func @panel_two_rows
// SPR:         %{{.*}}:4 = scf.for %{{.*}} = %c0 to %c64 step %c32
// SPR-SAME:        -> (vector<2x16xf32>, vector<2x16xf32>, vector<2x16xf32>, vector<2x16xf32>)
func.func @panel_two_rows(%a: memref<2x768xf32>, %w: vector<16xf32>, %init: vector<2x16xf32>) -> vector<2x16xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  %r = scf.for %k = %c0 to %c64 step %c8 iter_args(%acc = %init) -> (vector<2x16xf32>) {
    %x0 = memref.load %a[%c0, %k] : memref<2x768xf32>
    %x1 = memref.load %a[%c1, %k] : memref<2x768xf32>
    %b0 = vector.broadcast %x0 : f32 to vector<16xf32>
    %b1 = vector.broadcast %x1 : f32 to vector<16xf32>
    %e0 = vector.extract %acc[0] : vector<16xf32> from vector<2x16xf32>
    %e1 = vector.extract %acc[1] : vector<16xf32> from vector<2x16xf32>
    %f0 = vector.fma %w, %b0, %e0 : vector<16xf32>
    %f1 = vector.fma %w, %b1, %e1 : vector<16xf32>
    %g0 = vector.fma %w, %b1, %f0 : vector<16xf32>
    %g1 = vector.fma %w, %b0, %f1 : vector<16xf32>
    %s0:16 = vector.to_elements %g0 : vector<16xf32>
    %s1:16 = vector.to_elements %g1 : vector<16xf32>
    %j = vector.from_elements %s0#0, %s0#1, %s0#2, %s0#3, %s0#4, %s0#5, %s0#6, %s0#7, %s0#8, %s0#9, %s0#10, %s0#11, %s0#12, %s0#13, %s0#14, %s0#15, %s1#0, %s1#1, %s1#2, %s1#3, %s1#4, %s1#5, %s1#6, %s1#7, %s1#8, %s1#9, %s1#10, %s1#11, %s1#12, %s1#13, %s1#14, %s1#15 : vector<2x16xf32>
    scf.yield %j : vector<2x16xf32>
  } {attune.panel_k_loop}
  return %r : vector<2x16xf32>
}

// -----

// A k tile of unknown length (K mod the k tile, the last one): the main loop
// runs the multiple of 4 steps, the original loop the rest from the sum.
// And bf16 dot products (vdpbf16ps) accumulate as FMAs do.
// CHECK-LABEL: func @dynamic_trip_bf16_dot
// CHECK:         %[[SPAN:.*]] = arith.subi %[[N:.*]], %c0
// CHECK:         %[[WIDE:.*]] = arith.divsi %[[SPAN]], %c4
// CHECK:         %[[STEPS:.*]] = arith.muli %[[WIDE]], %c4
// CHECK:         %[[END:.*]] = arith.addi %c0{{.*}}, %[[STEPS]]
// CHECK:         %[[P:.*]]:4 = scf.for %{{.*}} = %c0 to %[[END]] step %c4
// CHECK-COUNT-4:   x86vector.avx512.dot
// CHECK:         }
// CHECK:         arith.addf
// CHECK:         arith.addf
// CHECK:         %[[S:.*]] = arith.addf
// CHECK:         %[[R:.*]] = scf.for %{{.*}} = %[[END]] to %[[N]] step %c1 iter_args(%{{.*}} = %[[S]])
// CHECK-COUNT-1:   x86vector.avx512.dot
// CHECK:         }
// CHECK-NOT:     attune.row_k_loop
// CHECK:         return %[[R]]
func.func @dynamic_trip_bf16_dot(%n: index, %a: vector<32xbf16>, %panels: memref<384x32xbf16>, %init: vector<16xf32>) -> vector<16xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pad = arith.constant 0.0 : bf16
  %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %init) -> (vector<16xf32>) {
    %w = vector.transfer_read %panels[%k, %c0], %pad {in_bounds = [true]} : memref<384x32xbf16>, vector<32xbf16>
    %d = x86vector.avx512.dot %acc, %a, %w : vector<32xbf16> -> vector<16xf32>
    scf.yield %d : vector<16xf32>
  } {attune.row_k_loop}
  return %r : vector<16xf32>
}

// -----

// Left as they are (the marks dropped): a row of a 64-column panel has 4
// chains, enough on the Zen 4 (on Sapphire Rapids: 2 copies); a loop of
// fewer than 2 x 4 steps; an accumulator that is also a factor, one whose
// lanes come back in another order, one that is stored in the loop; and a
// loop without a mark.
// CHECK-LABEL: func @left_as_is
// CHECK-NOT:     arith.addf
// CHECK-NOT:     attune.row_k_loop
// CHECK-NOT:     attune.panel_k_loop
// CHECK:         return
// SPR-LABEL: func @left_as_is
// SPR:         scf.for %{{.*}} = %c0 to %c256 step %c2{{[_0-9]*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (vector<64xf32>, vector<64xf32>)
// SPR:         arith.addf
// SPR-NOT:     arith.addf
// SPR:         return
func.func @left_as_is(%x: f32, %w16: vector<16xf32>, %w64: vector<64xf32>, %init16: vector<16xf32>, %init64: vector<64xf32>, %out: memref<16xf32>) -> (vector<64xf32>, vector<16xf32>, vector<16xf32>, vector<2x16xf32>, vector<16xf32>, vector<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %c256 = arith.constant 256 : index
  %xb16 = vector.broadcast %x : f32 to vector<16xf32>
  %xb64 = vector.broadcast %x : f32 to vector<64xf32>
  %wide = scf.for %k = %c0 to %c256 step %c1 iter_args(%acc = %init64) -> (vector<64xf32>) {
    %f = vector.fma %w64, %xb64, %acc : vector<64xf32>
    scf.yield %f : vector<64xf32>
  } {attune.row_k_loop}
  %short = scf.for %k = %c0 to %c6 step %c1 iter_args(%acc = %init16) -> (vector<16xf32>) {
    %f = vector.fma %w16, %xb16, %acc : vector<16xf32>
    scf.yield %f : vector<16xf32>
  } {attune.row_k_loop}
  %factor = scf.for %k = %c0 to %c256 step %c1 iter_args(%acc = %init16) -> (vector<16xf32>) {
    %f = vector.fma %acc, %xb16, %acc : vector<16xf32>
    scf.yield %f : vector<16xf32>
  } {attune.row_k_loop}
  %pair = vector.from_elements %x, %x, %x, %x, %x, %x, %x, %x, %x, %x, %x, %x, %x, %x, %x, %x, %x, %x, %x, %x, %x, %x, %x, %x, %x, %x, %x, %x, %x, %x, %x, %x : vector<2x16xf32>
  %swapped = scf.for %k = %c0 to %c256 step %c1 iter_args(%acc = %pair) -> (vector<2x16xf32>) {
    %e0 = vector.extract %acc[0] : vector<16xf32> from vector<2x16xf32>
    %e1 = vector.extract %acc[1] : vector<16xf32> from vector<2x16xf32>
    %f0 = vector.fma %w16, %xb16, %e0 : vector<16xf32>
    %s0:16 = vector.to_elements %f0 : vector<16xf32>
    %s1:16 = vector.to_elements %e1 : vector<16xf32>
    %j = vector.from_elements %s1#0, %s1#1, %s1#2, %s1#3, %s1#4, %s1#5, %s1#6, %s1#7, %s1#8, %s1#9, %s1#10, %s1#11, %s1#12, %s1#13, %s1#14, %s1#15, %s0#0, %s0#1, %s0#2, %s0#3, %s0#4, %s0#5, %s0#6, %s0#7, %s0#8, %s0#9, %s0#10, %s0#11, %s0#12, %s0#13, %s0#14, %s0#15 : vector<2x16xf32>
    scf.yield %j : vector<2x16xf32>
  } {attune.panel_k_loop}
  %stored = scf.for %k = %c0 to %c256 step %c1 iter_args(%acc = %init16) -> (vector<16xf32>) {
    %f = vector.fma %w16, %xb16, %acc : vector<16xf32>
    vector.transfer_write %f, %out[%c0] {in_bounds = [true]} : vector<16xf32>, memref<16xf32>
    scf.yield %f : vector<16xf32>
  } {attune.row_k_loop}
  %unmarked = scf.for %k = %c0 to %c256 step %c1 iter_args(%acc = %init16) -> (vector<16xf32>) {
    %f = vector.fma %w16, %xb16, %acc : vector<16xf32>
    scf.yield %f : vector<16xf32>
  }
  return %wide, %short, %factor, %swapped, %stored, %unmarked : vector<64xf32>, vector<16xf32>, vector<16xf32>, vector<2x16xf32>, vector<16xf32>, vector<16xf32>
}

// BAD: --cpu=pentium-ultra: no machine model for this CPU
