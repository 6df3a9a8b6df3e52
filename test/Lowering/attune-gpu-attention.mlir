// RUN: attune-opt %s --attune-gpu-attention --split-input-file | FileCheck %s --check-prefixes=CHECK,SHARED
// RUN: attune-opt %s --attune-gpu-attention=shared-memory-bytes=0 --split-input-file | FileCheck %s --check-prefixes=CHECK,ROW
// RUN: attune-opt %s --attune-gpu-attention=subgroup-size=4 --split-input-file | FileCheck %s --check-prefixes=CHECK,SUBGROUP

// With shared memory (the default 16 KiB: 32 keys of 8 + 2 floats): a
// launch of 64-row query tiles per (b, h); the key tiles the query tile can
// see (causal: up to its last row) are staged into workgroup memory between
// two barriers (stand-in calls until bufferization is done), each
// invocation loading every 64th element, zero past the visible keys; rows
// past Lq load but do not compute; each row masks the keys of a tile it
// cannot see to -inf; one exp per score.
// SHARED-LABEL: func.func @causal
// SHARED:         cf.assert {{.*}}the batch of the keys differs from the queries'
// SHARED:         %[[OUT:.*]] = memref.alloc(%{{.*}}, %{{.*}}) : memref<?x4x?x2xf32>
// SHARED:         gpu.launch blocks(%[[T:.*]], %[[H:.*]], %[[B:.*]]) in (%{{.*}} = %{{.*}}, %{{.*}} = %c4, %{{.*}} = %{{.*}}) threads(%[[TX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c64, %{{.*}} = %c1, %{{.*}} = %c1)
// SHARED:           %[[KS:.*]] = memref.alloc() : memref<32x8xf32, #spirv.storage_class<Workgroup>>
// SHARED:           %[[VS:.*]] = memref.alloc() : memref<32x2xf32, #spirv.storage_class<Workgroup>>
// SHARED:           scf.for %[[J0:.*]] = %{{.*}} to %{{.*}} step %c32{{.*}} iter_args({{.*}}) -> (f32, f32, f32, f32)
// SHARED:             call @__attune_gpu_barrier()
// SHARED:             scf.for %{{.*}} = %[[TX]] to %c256 step %c64
// SHARED:               memref.store %{{.*}}, %[[KS]]
// SHARED:             scf.for %{{.*}} = %[[TX]] to %c64{{.*}} step %c64
// SHARED:               memref.store %{{.*}}, %[[VS]]
// SHARED:             call @__attune_gpu_barrier()
// SHARED:             scf.if
// SHARED:               scf.for
// SHARED:                 scf.for
// SHARED:                   memref.load %[[KS]]
// SHARED:                 arith.select %{{.*}}, %{{.*}}, %cst
// SHARED:                 math.exp
// SHARED-NOT:             math.exp
// SHARED:                 memref.load %[[VS]]
// SHARED:           scf.if
// SHARED:             memref.store %{{.*}}, %[[OUT]][%[[B]], %[[H]], %{{.*}}, %{{.*}}]
// SHARED:           gpu.terminator
// SHARED:         bufferization.to_tensor %[[OUT]] restrict writable
// SHARED:       func.func private @__attune_gpu_barrier()

// Without shared memory: one parallel loop over query rows; the key loop
// carries the running max, the sum and one accumulator per value dim;
// causal bounds the key range.
// ROW-LABEL: func.func @causal
// ROW:         cf.assert {{.*}}the batch of the keys differs from the queries'
// ROW:         %[[Q:.*]] = bufferization.to_buffer %arg0 read_only : tensor<?x4x?x8xf32> to memref<?x4x?x8xf32>
// ROW:         %[[OUT:.*]] = memref.alloc(%{{.*}}, %{{.*}}) : memref<?x4x?x2xf32>
// ROW:         scf.parallel (%[[B:.*]], %[[H:.*]], %[[I:.*]]) =
// ROW:           %[[KVH:.*]] = arith.divui %[[H]], %c2
// ROW:           %[[NEXT:.*]] = arith.addi %{{.*}}, %c1
// ROW:           %[[END:.*]] = arith.minsi %{{.*}}, %[[NEXT]]
// ROW:           scf.for %{{.*}} = %c0{{.*}} to %[[END]] step %c1{{.*}} iter_args({{.*}}) -> (f32, f32, f32, f32)
// ROW:             scf.for
// ROW:               memref.load %[[Q]][%[[B]], %[[H]], %[[I]], %{{.*}}]
// ROW:               math.fma
// ROW:             math.exp
// ROW-NOT:         math.exp
// ROW:             scf.yield
// ROW:           memref.store %{{.*}}, %[[OUT]][%[[B]], %[[H]], %[[I]], %{{.*}}]
// ROW:           memref.store %{{.*}}, %[[OUT]][%[[B]], %[[H]], %[[I]], %{{.*}}]
// ROW:         bufferization.to_tensor %[[OUT]] restrict writable

// A subgroup per row (subgroup-size=4): workgroups of 4 lanes, one query
// row (b, h, i) each; lane t holds query dims t and t + 4 in registers for
// the key loop, loads the same dims of each key row (clamped, zero past
// D), and the partial dot products are summed across the subgroup (a
// stand-in call until bufferization); (m, l) and the lane's one output
// accumulator (dim t of Dv = 2) are updated with one exp per score; lanes
// past Dv do not store.
// SUBGROUP-LABEL: func.func @causal
// SUBGROUP:         %[[Q:.*]] = bufferization.to_buffer %arg0
// SUBGROUP:         %[[OUT:.*]] = memref.alloc(%{{.*}}, %{{.*}}) : memref<?x4x?x2xf32>
// SUBGROUP:         gpu.launch blocks(%[[I:.*]], %[[H:.*]], %[[B:.*]]) in (%{{.*}} = %{{.*}}, %{{.*}} = %c4{{.*}}, %{{.*}} = %{{.*}}) threads(%[[LANE:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c4, %{{.*}} = %c1, %{{.*}} = %c1)
// SUBGROUP:           %[[D0:.*]] = arith.addi %[[LANE]], %c0
// SUBGROUP:           %[[C0:.*]] = arith.minui %[[D0]], %c7
// SUBGROUP:           memref.load %[[Q]][%[[B]], %[[H]], %[[I]], %[[C0]]]
// SUBGROUP:           %[[D1:.*]] = arith.addi %[[LANE]], %c4
// SUBGROUP:           %[[C1:.*]] = arith.minui %[[D1]], %c7
// SUBGROUP:           memref.load %[[Q]][%[[B]], %[[H]], %[[I]], %[[C1]]]
// SUBGROUP:           scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args({{.*}}) -> (f32, f32, f32)
// SUBGROUP:             memref.load %{{.*}}[%[[B]], %{{.*}}, %[[J]], %{{.*}}] : memref<?x2x?x8xf32>
// SUBGROUP:             math.fma
// SUBGROUP:             memref.load %{{.*}}[%[[B]], %{{.*}}, %[[J]], %{{.*}}] : memref<?x2x?x8xf32>
// SUBGROUP:             %[[PART:.*]] = math.fma
// SUBGROUP:             func.call @__attune_gpu_subgroup_add(%[[PART]]) : (f32) -> f32
// SUBGROUP:             math.exp
// SUBGROUP-NOT:         math.exp
// SUBGROUP:             memref.load %{{.*}}[%[[B]], %{{.*}}, %[[J]], %{{.*}}] : memref<?x2x?x2xf32>
// SUBGROUP:             scf.yield
// SUBGROUP:           %[[DV:.*]] = arith.addi %[[LANE]], %c0
// SUBGROUP:           %[[IN:.*]] = arith.cmpi ult, %[[DV]], %c2
// SUBGROUP:           scf.if %[[IN]]
// SUBGROUP:             memref.store %{{.*}}, %[[OUT]][%[[B]], %[[H]], %[[I]], %{{.*}}]
// SUBGROUP:           gpu.terminator
// SUBGROUP:       func.func private @__attune_gpu_subgroup_add(f32) -> f32
func.func @causal(%q: tensor<?x4x?x8xf32>, %k: tensor<?x2x?x8xf32>, %v: tensor<?x2x?x2xf32>) -> tensor<?x4x?x2xf32> {
  %o = attune.attention %q, %k, %v {causal} : (tensor<?x4x?x8xf32>, tensor<?x2x?x8xf32>, tensor<?x2x?x2xf32>) -> tensor<?x4x?x2xf32>
  return %o : tensor<?x4x?x2xf32>
}

// -----

// Key lengths bound the loop; a window sets its start; the bias is read
// per score.
// CHECK-LABEL: func.func @masked
// SHARED:        gpu.launch
// SUBGROUP:      gpu.launch
// ROW:           scf.parallel
// CHECK:           memref.load %{{.*}}[%{{.*}}] : memref<?xi64>
// CHECK:           arith.maxsi
// CHECK:           scf.for
// SUBGROUP:           func.call @__attune_gpu_subgroup_add
// SUBGROUP-NEXT:      arith.mulf
// CHECK:             memref.load %{{.*}} : memref<4x3x5xf32>
func.func @masked(%q: tensor<?x4x3x8xf32>, %k: tensor<?x4x5x8xf32>, %v: tensor<?x4x5x8xf32>, %len: tensor<?xi64>, %bias: tensor<4x3x5xf32>) -> tensor<?x4x3x8xf32> {
  %o = attune.attention %q, %k, %v key_lengths(%len) bias(%bias) {window = 2 : i64} : (tensor<?x4x3x8xf32>, tensor<?x4x5x8xf32>, tensor<?x4x5x8xf32>, tensor<?xi64>, tensor<4x3x5xf32>) -> tensor<?x4x3x8xf32>
  return %o : tensor<?x4x3x8xf32>
}

// -----

// Queries at offsets (a generation step over a cache of 48 positions): row
// i of batch b is at key position offsets[b] + i, read from the offsets in
// the kernel; causal stops its key loop there (min with 48, then with the
// position + 1), so a step reads the keys written so far, not the cache.
// CHECK-LABEL: func.func @offsets
// SHARED:        gpu.launch blocks(%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %[[B:[a-z0-9_]+]]) in
// SUBGROUP:      gpu.launch
// ROW:           scf.parallel (%[[B:[a-z0-9_]+]], %{{.*}}, %{{.*}}) =
// SHARED:          memref.load %{{.*}}[%[[B]]] : memref<?xi64>
// ROW:             memref.load %{{.*}}[%[[B]]] : memref<?xi64>
// SUBGROUP:        memref.load %{{.*}}[%{{.*}}] : memref<?xi64>
// CHECK:           arith.index_cast
// CHECK:           arith.minsi
// CHECK:           scf.for
func.func @offsets(%q: tensor<?x4x?x8xf32>, %k: tensor<?x4x48x8xf32>, %v: tensor<?x4x48x8xf32>, %offsets: tensor<?xi64>) -> tensor<?x4x?x8xf32> {
  %o = attune.attention %q, %k, %v query_offsets(%offsets) {causal} : (tensor<?x4x?x8xf32>, tensor<?x4x48x8xf32>, tensor<?x4x48x8xf32>, tensor<?xi64>) -> tensor<?x4x?x8xf32>
  return %o : tensor<?x4x?x8xf32>
}

// -----

// Hard selection and returned weights keep the plain lowering.
// CHECK-LABEL: func.func @hard
// CHECK:         attune.attention
// CHECK-NOT:     scf.parallel
// CHECK-NOT:     gpu.launch
func.func @hard(%q: tensor<1x1x3x8xf32>, %k: tensor<1x1x5x8xf32>, %v: tensor<1x1x5x8xf32>) -> (tensor<1x1x3x8xf32>, tensor<1x1x3x5xf32>) {
  %o, %w = attune.attention %q, %k, %v {selection = #attune.selection<hard>, return_weights} : (tensor<1x1x3x8xf32>, tensor<1x1x5x8xf32>, tensor<1x1x5x8xf32>) -> (tensor<1x1x3x8xf32>, tensor<1x1x3x5xf32>)
  return %o, %w : tensor<1x1x3x8xf32>, tensor<1x1x3x5xf32>
}

// -----

// Causal linear attention: phi(q) and phi(k) as element-wise kernels, then
// one scf.parallel over output columns (b, h, e), each running over the
// positions with its D running sums s[d] and z[d] as loop-carried values
// (2 x 16 here); the key head of query head h is h / 2.
// CHECK-LABEL: func @linear_causal
// CHECK:       linalg.generic
// CHECK:       linalg.generic
// CHECK:       scf.parallel (%[[B:.*]], %[[H:.*]], %[[E:.*]]) = {{.*}} to (%{{.*}}, %c4{{.*}}, %c16{{.*}})
// CHECK:         %[[KVH:.*]] = arith.divui %[[H]], %c2
// CHECK:         scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args({{.*}}) -> (f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)
// CHECK:           memref.load %{{.*}}[%[[B]], %[[KVH]], %[[I]], %[[E]]]
// CHECK-COUNT-32:  math.fma
// CHECK:           arith.divf
// CHECK:           memref.store %{{.*}}, %{{.*}}[%[[B]], %[[H]], %[[I]], %[[E]]]
// CHECK-NOT:   scf.for
func.func @linear_causal(%q: tensor<2x4x70x16xf32>, %k: tensor<2x2x70x16xf32>) -> tensor<2x4x70x16xf32> {
  %0 = attune.linear_attention %q, %k, %k {causal}
      : (tensor<2x4x70x16xf32>, tensor<2x2x70x16xf32>, tensor<2x2x70x16xf32>) -> tensor<2x4x70x16xf32>
  return %0 : tensor<2x4x70x16xf32>
}

// -----

// Local + global attention: the positions checked on the device (a
// deferred check), then the per-row kernel whatever the profile: a row
// first learns whether its position is a global token (a loop over the
// G = 3 positions; then it runs over every key), runs over its key range,
// then over the global keys outside that range.
// CHECK-LABEL: func @local_global
// CHECK:       call @attune_vk_check
// CHECK:       scf.parallel
// CHECK:         scf.for %{{.*}} = %{{.*}} to %c3{{.*}} iter_args(%{{.*}} = %false) -> (i1)
// CHECK:         scf.for
// CHECK:         scf.for %{{.*}} = %{{.*}} to %c3
// CHECK:           scf.if
// CHECK-NOT:   gpu.barrier
func.func @local_global(%q: tensor<1x4x?x64xf32>, %k: tensor<1x2x?x64xf32>, %g: tensor<1x3xi64>) -> tensor<1x4x?x64xf32> {
  %0 = attune.attention %q, %k, %k globals(%g) {window = 8 : i64}
      : (tensor<1x4x?x64xf32>, tensor<1x2x?x64xf32>, tensor<1x2x?x64xf32>, tensor<1x3xi64>) -> tensor<1x4x?x64xf32>
  return %0 : tensor<1x4x?x64xf32>
}

// -----

// Sparse attention: the per-row kernel whatever the profile; a row runs
// over its key range block by block (blocks of 32), and only the blocks the
// layout shows it (the block test reads the head for a split layout: heads
// alternate the factors, head mod 2) run their keys.
// CHECK-LABEL: func @sparse
// CHECK:       scf.parallel
// CHECK:         scf.for {{.*}} -> (f32
// CHECK:           arith.remui %{{.*}}, %c2
// CHECK:           scf.if %{{.*}} -> (f32
// CHECK:             scf.for
// CHECK-NOT:   gpu.barrier
func.func @sparse(%q: tensor<1x4x?x64xf32>, %k: tensor<1x2x?x64xf32>) -> tensor<1x4x?x64xf32> {
  %0 = attune.attention %q, %k, %k {causal, sparse = #attune.sparse<block = 32, local = 2, stride = 2, split = true>}
      : (tensor<1x4x?x64xf32>, tensor<1x2x?x64xf32>, tensor<1x2x?x64xf32>) -> tensor<1x4x?x64xf32>
  return %0 : tensor<1x4x?x64xf32>
}

// -----

// A dilated window: the per-row kernel whatever the profile, its key loop
// starting on the row's grid ((p - lo) mod 3 past lo) and stepping by 3.
// CHECK-LABEL: func @dilated
// CHECK:       scf.parallel
// CHECK:         arith.remsi %{{.*}}, %c3
// CHECK:         scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c3{{.*}} -> (f32
// CHECK-NOT:   gpu.barrier
func.func @dilated(%q: tensor<1x4x?x64xf32>, %k: tensor<1x2x?x64xf32>) -> tensor<1x4x?x64xf32> {
  %0 = attune.attention %q, %k, %k {causal, window = 8 : i64, dilation = 3 : i64}
      : (tensor<1x4x?x64xf32>, tensor<1x2x?x64xf32>, tensor<1x2x?x64xf32>) -> tensor<1x4x?x64xf32>
  return %0 : tensor<1x4x?x64xf32>
}
