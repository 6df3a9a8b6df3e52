// RUN: attune-opt %s --split-input-file --attune-omp-schedule | FileCheck %s
// RUN: attune-opt %s --split-input-file "--attune-omp-schedule=schedule=static chunk=4" | FileCheck %s --check-prefix=STATIC
// RUN: attune-opt %s --split-input-file "--attune-omp-schedule=schedule=runtime" | FileCheck %s --check-prefix=RUNTIME
// RUN: not attune-opt %s --split-input-file "--attune-omp-schedule=schedule=fair" 2>&1 | FileCheck %s --check-prefix=KIND
// RUN: not attune-opt %s --split-input-file "--attune-omp-schedule=schedule=runtime chunk=2" 2>&1 | FileCheck %s --check-prefix=BADCHUNK

// A worksharing loop that ends its parallel region: the schedule, and no
// barrier of its own (the region's end joins the threads).
// CHECK-LABEL: func.func @last_in_region
// CHECK: omp.parallel
// CHECK-NEXT: omp.wsloop nowait schedule(guided) {
// CHECK-NEXT: omp.loop_nest
// STATIC-LABEL: func.func @last_in_region
// STATIC: %[[CHUNK:.*]] = arith.constant 4 : index
// STATIC: omp.wsloop nowait schedule(static = %[[CHUNK]] : index) {
// RUNTIME-LABEL: func.func @last_in_region
// RUNTIME: omp.wsloop nowait schedule(runtime) {
// KIND: error: attune-omp-schedule: unknown schedule 'fair'; expected static, dynamic, guided or runtime
// BADCHUNK: error: attune-omp-schedule: chunk 2 with schedule 'runtime'; expected a positive chunk, or 0 for the runtime's default (always 0 with runtime)
func.func @last_in_region(%buf: memref<?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1.0 : f32
  omp.parallel {
    omp.wsloop {
      omp.loop_nest (%i) : index = (%c0) to (%n) step (%c1) {
        memref.store %one, %buf[%i] : memref<?xf32>
        omp.yield
      }
    }
    omp.terminator
  }
  return
}

// -----

// Two loops in one region: the first keeps its barrier (the second may
// read what it wrote), the last drops it.
// CHECK-LABEL: func.func @two_loops
// CHECK: omp.wsloop schedule(guided) {
// CHECK: omp.wsloop nowait schedule(guided) {
func.func @two_loops(%a: memref<?xf32>, %b: memref<?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1.0 : f32
  omp.parallel {
    omp.wsloop {
      omp.loop_nest (%i) : index = (%c0) to (%n) step (%c1) {
        memref.store %one, %a[%i] : memref<?xf32>
        omp.yield
      }
    }
    omp.wsloop {
      omp.loop_nest (%i) : index = (%c0) to (%n) step (%c1) {
        %x = memref.load %a[%i] : memref<?xf32>
        memref.store %x, %b[%i] : memref<?xf32>
        omp.yield
      }
    }
    omp.terminator
  }
  return
}
