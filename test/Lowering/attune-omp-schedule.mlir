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

// -----

// A region whose one loop's trip count is dynamic: the region runs when the
// loop has more than one iteration, else the same loop as a plain scf.for
// on the calling thread.
// CHECK-LABEL: func.func @serial_copy
// CHECK-SAME:    (%[[BUF:.*]]: memref<?xf32>, %[[N:.*]]: index)
// CHECK-DAG:   %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:   %[[C2:.*]] = arith.constant 2 : index
// CHECK:       %[[EXTENT:.*]] = arith.subi %[[N]], %[[C0]] : index
// CHECK:       %[[SEVERAL:.*]] = arith.cmpi sgt, %[[EXTENT]], %[[C2]] : index
// CHECK:       scf.if %[[SEVERAL]] {
// CHECK-NEXT:    omp.parallel {
// CHECK-NEXT:      arith.constant 3.0
// CHECK-NEXT:      omp.wsloop nowait schedule(guided) {
// CHECK-NEXT:        omp.loop_nest (%{{.*}}) : index = (%[[C0]]) to (%[[N]]) step (%[[C2]]) {
// CHECK:         omp.terminator
// CHECK-NEXT:    }
// CHECK-NEXT:  } else {
// CHECK-NEXT:    %[[ROW:.*]] = arith.constant 3.0
// CHECK-NEXT:    scf.for %[[I:.*]] = %[[C0]] to %[[N]] step %[[C2]] {
// CHECK-NEXT:      memref.store %[[ROW]], %[[BUF]][%[[I]]] : memref<?xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:  }
// CHECK-NOT:   omp.
// CHECK:       return
func.func @serial_copy(%buf: memref<?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  omp.parallel {
    %row = arith.constant 3.0 : f32
    omp.wsloop {
      omp.loop_nest (%i) : index = (%c0) to (%n) step (%c2) {
        memref.store %row, %buf[%i] : memref<?xf32>
        omp.yield
      }
    }
    omp.terminator
  }
  return
}

// -----

// Two loops, one with a second dimension: several iterations if either
// dynamic extent is more than its step; the plain copy runs both loops in
// order, the barrier between them dropped (one thread).
// CHECK-LABEL: func.func @serial_two_loops
// CHECK:       %[[A:[0-9]+]] = arith.cmpi sgt
// CHECK:       %[[B:[0-9]+]] = arith.cmpi sgt
// CHECK:       %[[AB:[0-9]+]] = arith.ori %[[A]], %[[B]] : i1
// CHECK:       %[[C:[0-9]+]] = arith.cmpi sgt
// CHECK:       %[[ABC:[0-9]+]] = arith.ori %[[AB]], %[[C]] : i1
// CHECK:       scf.if %[[ABC]] {
// CHECK:         omp.parallel
// CHECK:       } else {
// CHECK-NEXT:    scf.for
// CHECK-NEXT:      scf.for
// CHECK-NEXT:        memref.store
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    scf.for
// CHECK-NEXT:      memref.load
// CHECK-NEXT:      memref.store
// CHECK-NEXT:    }
// CHECK-NEXT:  }
func.func @serial_two_loops(%a: memref<?x?xf32>, %b: memref<?xf32>, %n: index, %m: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1.0 : f32
  omp.parallel {
    omp.wsloop {
      omp.loop_nest (%i, %j) : index = (%c0, %c0) to (%n, %m) step (%c1, %c1) {
        memref.store %one, %a[%i, %j] : memref<?x?xf32>
        omp.yield
      }
    }
    omp.barrier
    omp.wsloop {
      omp.loop_nest (%i) : index = (%c0) to (%n) step (%c1) {
        %x = memref.load %a[%i, %c0] : memref<?x?xf32>
        memref.store %x, %b[%i] : memref<?xf32>
        omp.yield
      }
    }
    omp.terminator
  }
  return
}

// -----

// A loop whose constant bounds give it several iterations always runs in
// parallel; so does a loop whose bounds are computed inside the region.
// CHECK-LABEL: func.func @always_parallel
// CHECK-NOT:   scf.if
// CHECK-NOT:   if(
// CHECK:       omp.parallel {
// CHECK:       omp.parallel {
// CHECK-NOT:   scf.if
// CHECK:       return
func.func @always_parallel(%a: memref<?x4xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %one = arith.constant 1.0 : f32
  omp.parallel {
    omp.wsloop {
      omp.loop_nest (%i, %j) : index = (%c0, %c0) to (%n, %c4) step (%c1, %c1) {
        memref.store %one, %a[%i, %j] : memref<?x4xf32>
        omp.yield
      }
    }
    omp.terminator
  }
  omp.parallel {
    %m = arith.addi %n, %c1 : index
    omp.wsloop {
      omp.loop_nest (%i) : index = (%c0) to (%m) step (%c1) {
        memref.store %one, %a[%i, %c0] : memref<?x4xf32>
        omp.yield
      }
    }
    omp.terminator
  }
  return
}

// -----

// A region with an OpenMP construct besides its loops is not copied: it
// gets if(...), running on the calling thread alone (libomp's serialized
// region) when its loop has one iteration.
// CHECK-LABEL: func.func @masked
// CHECK:       %[[SEVERAL:.*]] = arith.cmpi sgt
// CHECK-NOT:   scf.if
// CHECK:       omp.parallel if(%[[SEVERAL]]) {
// CHECK:         omp.masked
func.func @masked(%a: memref<?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1.0 : f32
  omp.parallel {
    omp.masked {
      memref.store %one, %a[%c0] : memref<?xf32>
      omp.terminator
    }
    omp.wsloop {
      omp.loop_nest (%i) : index = (%c0) to (%n) step (%c1) {
        memref.store %one, %a[%i] : memref<?xf32>
        omp.yield
      }
    }
    omp.terminator
  }
  return
}
