//===- Passes.td - out of attune, to the targets -----------*- tablegen -*-===//
//
// The passes that take a model out of the attune dialect: the conversion to
// linalg (AttuneToLinalg/), the CPU code generation (CPU/), the Vulkan
// kernels and host code (Vulkan/) and the model's interface to the runtime
// (RuntimeInterface/). Alphabetical by flag.
//
//===----------------------------------------------------------------------===//

#ifndef ATTUNE_LOWERING_PASSES_TD
#define ATTUNE_LOWERING_PASSES_TD

include "mlir/Pass/PassBase.td"

def AttuneAccumulatorsInRegisters : Pass<"attune-accumulators-in-registers", "::mlir::ModuleOp"> {
  let summary = "Start the GEMMs' output tiles in registers";
  let description = [{
    After `attune-tile-gemm`: the fused init loop of a GEMM's cache tile
    writes one panel row of the tile at a time, which the register tiles
    then read back as their accumulators in the first k tile (a store per
    missing line, then loads of the same lines). Those first reads become
    the init row itself (an `scf.if` on the k tile loop's first iteration),
    and the fill loop goes: the register tiles' stores are the output's
    first touch. Does nothing without `attune.cpu_kernels`.

    Before: `scf.for %r { vector.transfer_write %row, %tile[0, %r, 0, 0] }`
    then `scf.for %k { %acc = vector.transfer_read %tile ... }`.
    After: `scf.for %k { %acc = scf.if %first { %row broadcast } else {
    vector.transfer_read ... } }`.
  }];
  let dependentDialects = [
    "::mlir::affine::AffineDialect", "::mlir::arith::ArithDialect",
    "::mlir::scf::SCFDialect", "::mlir::tensor::TensorDialect",
    "::mlir::vector::VectorDialect"
  ];
}

def AttuneDropStateResults
    : Pass<"attune-drop-state-results", "::mlir::ModuleOp"> {
  let summary = "A generation state's new value lives in its argument's buffer";
  let description = [{
    Run right after one-shot bufferization: a public function's result
    marked `attune.state = "s"` must be the buffer of its argument marked
    `attune.state = "s"` (the state was updated in place, for example by
    `attune.cache_write`); the result is removed, so the caller's buffer is
    the state's new value and nothing is copied. A state that bufferization
    could not update in place (its old value is read after the write, or
    the result is a new buffer) is an error naming it: a silent copy of a
    key/value cache per decoding step would cost more than the step.

    Before:
    ```mlir
    func.func @step(%x: memref<?x4xf32>, %k: memref<?x2x8x4xf32> {attune.state = "k"})
        -> (memref<?x7xf32>, memref<?x2x8x4xf32> {attune.state = "k"}) {
      ...
      return %logits, %k : memref<?x7xf32>, memref<?x2x8x4xf32>
    }
    ```
    After:
    ```mlir
    func.func @step(%x: memref<?x4xf32>, %k: memref<?x2x8x4xf32> {attune.state = "k"})
        -> memref<?x7xf32> {
      ...
      return %logits : memref<?x7xf32>
    }
    ```
  }];
}

def AttuneEpilogueInRegisters
    : Pass<"attune-epilogue-in-registers", "::mlir::func::FuncOp"> {
  let summary = "Apply each GEMM's activation to its register tiles in the last k tile";
  let description = [{
    Runs on bufferized IR after `attune-tile-gemm`, which leaves a GEMM with
    an element-wise epilogue (a linear layer's activation) as, per cache
    tile, a loop over k tiles whose register tiles store their accumulators
    into the tile, then a loop over the tile's rows that reads each row back,
    applies the epilogue and writes the output.

    This pass peels the last k tile off that loop and, in it, applies the
    epilogue's element-wise ops to each register tile's accumulators while
    they are still in registers, piece by piece (one row of at most 16
    columns, each piece's whole chain of ops before the next piece's, so
    that one piece's temporaries are live at a time: applied op by op to a
    4 x 64 tile, a GELU spilled hundreds of registers unless LLVM's machine
    scheduler, which AVX-512 code compiles without, interleaved the pieces),
    and writes the result to the output rows
    (a `vector.shape_cast` where the tile and the output lay rows along
    different dims, as with a panel-major intermediate; a register tile
    stored in column chunks, as `attune-tile-gemm` leaves 24-column panels,
    gets the epilogue per chunk, on the chunk's columns of the row operands
    defined outside it). The row loop goes,
    and so do the last k tile's stores into the tile when nothing else
    reads its buffer (an allocation viewed only as that tile, and freed).

    It applies where the row loop reads one row vector of a tile at a time
    at its induction variable and writes one at its induction variable,
    with only element-wise ops on row vectors between; where the k tile loop
    before it has constant bounds and runs register tile loops covering the
    tile's rows from 0 to the row loop's bound, one store each, along the
    same dim; and where nothing with side effects runs between the two.
    Anything else is left as it is.

    Before (one cache tile; `%tile` an intermediate of [1, 1, rows, 64]):
    ```mlir
    scf.for %kt = %c0 to %c768 step %c128 {
      scf.for %r = %c0 to %full step %c4 {
        %v = memref.subview %tile[0, 0, %r, 0] [1, 1, 4, 64] [1, 1, 1, 1] : ...
        %acc = scf.for %k = ... -> (vector<1x1x4x64xf32>) { ... }
        vector.transfer_write %acc, %v[%c0, %c0, %c0, %c0] : vector<1x1x4x64xf32>, ...
      }
      scf.for %r = %full to %rows step %c4 { ... }
    }
    scf.for %r = %c0 to %rows step %c1 {
      %x = vector.transfer_read %tile[%c0, %c0, %r, %c0], %pad : ..., vector<1x1x1x64xf32>
      %y = arith.maximumf %x, %zero : vector<1x1x1x64xf32>
      vector.transfer_write %y, %out[%c0, %r, %c0, %c0] : vector<1x1x1x64xf32>, ...
    }
    ```
    After:
    ```mlir
    scf.for %kt = %c0 to %c640 step %c128 { ... as before ... }
    scf.for %r = %c0 to %full step %c4 {
      %v = memref.subview %tile[0, 0, %r, 0] [1, 1, 4, 64] [1, 1, 1, 1] : ...
      %acc = scf.for %k = ... -> (vector<1x1x4x64xf32>) { ... }
      %z = vector.broadcast %zero : vector<1x1x1x64xf32> to vector<1x1x4x64xf32>
      %y = arith.maximumf %acc, %z : vector<1x1x4x64xf32>
      %s = vector.shape_cast %y : vector<1x1x4x64xf32> to vector<1x4x1x64xf32>
      vector.transfer_write %s, %out[%c0, %r, %c0, %c0] : vector<1x4x1x64xf32>, ...
    }
    scf.for %r = %full to %rows step %c4 { ... }
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::vector::VectorDialect"
  ];
}

def AttuneExpandBf16Truncation
    : Pass<"attune-expand-bf16-truncation", "::mlir::ModuleOp"> {
  let summary = "Round f32 to bf16 in integer ops on CPUs without AVX512-BF16";
  let description = [{
    On a target CPU without a bf16 conversion instruction (`vcvtneps2bf16`,
    AVX512-BF16: e.g. Ice Lake, Zen 3, any AVX2 machine) LLVM lowers an
    `fptrunc` to bf16 as a call to `__truncsfbf2`, a function neither the
    artifact nor GCC 12's libgcc defines, so the model would not load. This
    pass rewrites every `arith.truncf` to bf16 (scalar or vector) as
    upstream's integer expansion: round to nearest even, NaN kept a quiet
    NaN, exactly PyTorch's `.to(torch.bfloat16)`; `arith.extf` from bf16
    becomes a shift. On a target with AVX512-BF16 it changes nothing.

    Before: `%b = arith.truncf %x : vector<16xf32> to vector<16xbf16>`.
    After: `arith.bitcast` to `vector<16xi32>`, the rounding bias added, a
    NaN select, a shift right by 16, `arith.trunci` and `arith.bitcast` to
    `vector<16xbf16>`.
  }];
  let options = [
    Option<"cpu", "cpu", "std::string", /*default=*/"\"native\"",
           "The target CPU (as attune-select-cpu-tiling's cpu)">,
    Option<"features", "features", "std::string", /*default=*/"\"\"",
           "ISA features on top of the CPU's (+f,-f)">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def AttuneFinishCpuKernels : Pass<"attune-finish-cpu-kernels", "::mlir::ModuleOp"> {
  let summary = "The last rewrites of the CPU kernels";
  let description = [{
    After the kernel schedule: the kernel marks and `attune.cpu_kernels`
    go; vector add-reductions get `reassoc` (LLVM then adds in a tree);
    vector `exp` becomes a polynomial; float min/max reductions become trees
    of halvings; the dims of whole-output inits and of what is left of a
    GEMM fused into its epilogue fold to the dims they equal (with
    `parallel`, an empty slice inside a forall becomes an empty tensor of the
    slice's shape). Does nothing without `attune.cpu_kernels`.

    Before: `%m = vector.reduction <maximumf>, %v : vector<64xf32> into f32`.
    After: `vector.extract_strided_slice` halves and `arith.maximumf` steps,
    then a reduction of 8 lanes.
  }];
  let options = [
    Option<"parallel", "parallel", "bool", /*default=*/"false",
           "Empty slices in forall tiles become empty tensors">,
  ];
  let dependentDialects = [
    "::mlir::affine::AffineDialect", "::mlir::arith::ArithDialect",
    "::mlir::scf::SCFDialect", "::mlir::tensor::TensorDialect",
    "::mlir::vector::VectorDialect"
  ];
}

def AttuneFreeAfterLastUse
    : Pass<"attune-free-after-last-use", "::mlir::func::FuncOp"> {
  let summary = "Free each intermediate buffer right after its last use";
  let description = [{
    Runs on bufferized IR, after `buffer-deallocation-pipeline` and
    `convert-bufferization-to-memref`. Ownership-based deallocation frees
    the buffers a block owns at the block's end: in a model's `forward`, one
    block, every intermediate buffer of every layer stays allocated until
    the model returns. A 12-layer encoder then writes each layer's
    intermediates into buffers of their own, 250 of them live at once
    (about 240 MB at L = 512), where freeing them as they die hands the next
    layer the buffers the last one used (the runtime keeps freed blocks by
    size), still in cache.

    This pass moves each unconditional `memref.dealloc` of a
    `memref.alloc` in a function's block to right after the last op of that block that uses the buffer or
    any view of it (ops that take a memref and return one, loop iter_args
    and results, uses nested in regions counted at their ancestor in the
    block). A buffer that reaches a terminator of the block (returned, or
    passed to a successor) or a conditional `memref.dealloc` stays as it
    is, and so does a dealloc where any view of the buffer is freed too or
    has its address taken as an integer
    (`memref.extract_aligned_pointer_as_index`). One free of a view is
    known not to free the buffer: the deallocation pipeline's free of an
    `scf.if` result that is either the buffer or a fresh allocation of the
    other branch (tiled attention's operand padded to the tile, or not),
    under the condition that selects the fresh one. Left in place, it kept
    every layer's query heads of a dynamic-length step alive to the end
    (GPT-2 small, prompt of 1,000 tokens: peak resident memory 723 -> 687
    MB).

    Before:
    ```mlir
    %a = memref.alloc() : memref<64xf32>
    linalg.fill ins(%c : f32) outs(%a : memref<64xf32>)
    linalg.copy ins(%a : memref<64xf32>) outs(%out : memref<64xf32>)
    %b = memref.alloc() : memref<64xf32>
    ...
    memref.dealloc %a : memref<64xf32>
    memref.dealloc %b : memref<64xf32>
    ```
    After:
    ```mlir
    %a = memref.alloc() : memref<64xf32>
    linalg.fill ins(%c : f32) outs(%a : memref<64xf32>)
    linalg.copy ins(%a : memref<64xf32>) outs(%out : memref<64xf32>)
    memref.dealloc %a : memref<64xf32>
    %b = memref.alloc() : memref<64xf32>
    ...
    ```
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

def AttuneFuseElementwise : Pass<"attune-fuse-elementwise"> {
  let summary = "Fuse chains of element-wise linalg.generic ops";
  let description = [{
    Upstream linalg element-wise fusion (`populateElementwiseOpsFusionPatterns`)
    with a control that keeps it profitable: an all-parallel `linalg.generic`
    whose only user is another all-parallel `linalg.generic` is merged into
    it, so a chain such as `scale -> add -> tanh` runs as one loop nest that
    reads its inputs once and writes one result. Producers with several
    users stay (fusing would recompute them); contractions and reductions
    are never a side of a fusion (their loops would recompute the producer
    per reduction step); ops marked for an Attune schedule (`attune.*`
    attributes: GEMMs, their epilogues, attention tile ops) are left to it.

    Before:
    ```mlir
    %a = linalg.generic {... iterator_types = ["parallel"]} ins(%x : tensor<16xf32>) outs(%e : tensor<16xf32>) {
      ^bb0(%in: f32, %out: f32):
        %m = arith.mulf %in, %c : f32
        linalg.yield %m : f32
    } -> tensor<16xf32>
    %b = linalg.generic {... iterator_types = ["parallel"]} ins(%a : tensor<16xf32>) outs(%e : tensor<16xf32>) {
      ^bb0(%in: f32, %out: f32):
        %t = math.tanh %in : f32
        linalg.yield %t : f32
    } -> tensor<16xf32>
    ```
    After: one generic computing `tanh(x * c)`.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def AttuneFuseGemmInits : Pass<"attune-fuse-gemm-inits", "::mlir::ModuleOp"> {
  let summary = "Fuse each GEMM's init into its cache tiles";
  let description = [{
    Each packed GEMM's init (a zero fill or the bias broadcast) is rebuilt on
    the panel view and fused into the GEMM's cache tiles (`cache_rows` rows x
    one panel; with `parallel`, inside an `scf.forall` over `cache_rows` x
    `forall_panels` panels), so that each output tile is initialized right
    before its k loops and their first reads hit L2. A GEMM with an
    epilogue gets its init marked (`attune.init_tile`) for the schedule to
    fuse into the epilogue's tiles. Each tile contraction of tiled attention
    gets its accumulator's producer (the score tile's zero fill, the running
    output's rescaling) fused into its register tiles.

    Before: `linalg.fill` then `linalg.generic {attune.gemm}` over all rows.
    After: `scf.for` over cache tiles, each a `linalg.fill` of the tile then
    `linalg.generic {attune.gemm_cache_tile}` on it.
  }];
  let options = [
    Option<"parallel", "parallel", "bool", /*default=*/"false",
           "Cache tiles inside an scf.forall">,
  ];
  let dependentDialects = [
    "::mlir::affine::AffineDialect", "::mlir::arith::ArithDialect",
    "::mlir::scf::SCFDialect", "::mlir::tensor::TensorDialect",
    "::mlir::vector::VectorDialect"
  ];
}

def AttuneGatherFromPanels
    : Pass<"attune-gather-from-panels", "::mlir::ModuleOp"> {
  let summary = "A table that is also a packed GEMM weight is gathered from the panels";
  let description = [{
    Run after `--attune-pack-gemms`. A constant table `T [V, D]` read by
    gathers (`tensor.extract %T[%i, %j]` in a kernel body: an embedding)
    whose packed panels `P [ceil(V/W), D, W]` (`P[nb, k, r] = T[nb W + r,
    k]`, zero past V) are also a constant of the module (the GEMM of a tied
    LM head `x T^T`) is read from the panels instead: `P[i / W, j, i mod W]`.
    The table then has no reader and is not emitted, so a model whose LM
    head is tied to its token embedding carries the table once (GPT-2 small:
    154 MB). The panels are recognized by their values (every element
    compared), never by name; bf16 panels (`--gemm-weights=bf16`) differ
    from an f32 table and are left alone.

    Before:
    ```mlir
    %t = arith.constant dense<...> : tensor<97x64xf32>
    %p = arith.constant dense<...> : tensor<4x64x32xf32>   // T's panels
    ... linalg.generic ... { %x = tensor.extract %t[%i, %j] : tensor<97x64xf32> }
    ```
    After:
    ```mlir
    ... linalg.generic ... {
      %nb = arith.divui %i, %c32 : index
      %r = arith.remui %i, %c32 : index
      %x = tensor.extract %p[%nb, %j, %r] : tensor<4x64x32xf32>
    }
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::tensor::TensorDialect"];
}

def AttuneGpuAttention : Pass<"attune-gpu-attention"> {
  let summary = "Lower soft attune.attention to one fused GPU kernel";
  let description = [{
    For the Vulkan target: each soft `attune.attention` without
    `return_weights` (f32, value head dim at most 128) becomes one
    `scf.parallel` over query rows `(b, h, i)` on buffers; each row runs the
    online softmax over the keys it can see, with the running maximum, sum
    and the `Dv` output accumulators in registers:

    ```
    for j in [lo(i), hi(i)):          causal / window / key lengths bound it
      s = scale * q[i] . k[j] (+ bias[i, j])
      e = exp(-|s - m|)                one exp per score
      m, c, p = s > m ? (s, e, 1) : (m, 1, e)
      l = l c + p;  acc = acc c + p v[j]
    out[i] = acc / l                   0 for a row that sees no key
    ```

    No `[Lq, Lk]` tensor is built and the op is a single kernel, where the
    plain lowering writes and rereads the scores between several. Extents
    that must agree (batches, key/value lengths, bias) are checked at run
    time. Hard selection and `return_weights` keep the plain lowering.

    With `shared-memory-bytes` room for at least 8 keys and values
    (`4 (D + Dv)` bytes each), the kernel is a `gpu.launch` whose workgroups
    take `workgroup-size` consecutive query rows of one (batch, head): the
    keys the tile can see are staged through workgroup memory, up to 32 at
    a time (`spirv.storage_class<Workgroup>` buffers, `gpu.barrier` around
    each cooperative load), so each key and value is read from global
    memory once per workgroup instead of once per query row; the key loop
    is bounded by the masks of the whole tile (uniform, as the barriers
    require) and each row masks the rest inline. With less shared memory,
    one invocation per row as above.

    With `subgroup-size` S of 2 or more (profiles whose devices have
    subgroup arithmetic), a subgroup per query row instead: workgroups of S
    invocations, one row each; lane t holds dims `t + S u` of the query row
    (in registers for the whole key loop) and of the output accumulators,
    so the lanes of a row read consecutive floats of each key and value row
    together; each score is the `gpu.subgroup_reduce add` (uniform: the key
    loop's bounds are the row's) of the lanes' partial dot products, and the
    running max and sum are the same in every lane. Dims past D or Dv (when
    S does not divide them) load zero and are not stored. The runtime
    refuses a device whose subgroups are smaller than S.

    Attention with global tokens (`globals`, no bias) takes the per-row
    kernel whatever the profile: a row whose position is a global token
    runs over every key it may see, another over its window and then over
    the global keys outside it; the positions are checked on the device.

    Causal `attune.linear_attention` (f32, D <= 128) becomes one kernel
    too: an invocation per output column `(b, h, e)` runs over the
    positions in order with the column's running sums
    `s[d] = sum_{j <= i} phi(k_j)[d] v[j, e]` and `z[d]` in registers and
    writes `phi(q_i) . s / (phi(q_i) . z + eps)`: 4 D flops per position and
    column, where the chunked form of `convert-attune-to-linalg` runs about
    14 kernels per chunk of 64 positions (30x slower on lavapipe). `phi(q)`
    and `phi(k)` are element-wise kernels before it. With a state, the sums
    start from it and the first query head of each key head writes the new
    one.
  }];
  let options = [
    Option<"workgroupSize", "workgroup-size", "int64_t", /*default=*/"64",
           "Query rows per workgroup (the profile's workgroup size)">,
    Option<"sharedMemoryBytes", "shared-memory-bytes", "int64_t",
           /*default=*/"16384",
           "Workgroup memory for the key/value tiles; too little for 8 keys "
           "selects the per-row kernel">,
    Option<"subgroupSize", "subgroup-size", "int64_t", /*default=*/"0",
           "Invocations per subgroup the device guarantees at least; 2 or "
           "more selects the kernel with a subgroup per query row (0: no "
           "subgroup operations)">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::spirv::SPIRVDialect",
    "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
  ];
}

def AttuneGuardExpandShapes : Pass<"attune-guard-expand-shapes"> {
  let summary = "Refuse the memref.expand_shape form MLIR 22 crashes on";
  let description = [{
    MLIR 22.1's `expand-strided-metadata` segfaults on a
    `memref.expand_shape` that has two or more dynamic dims in one
    reassociation group (docs/upstream/expand-strided-metadata.mlir is a
    reproducer). Attune's lowerings never build that form (contractions are
    written with at most one dynamic dim per group); this pass, run right
    before `expand-strided-metadata` in both pipelines, turns a regression
    into a located error naming the op instead of a crash.

    ```mlir
    // error: memref.expand_shape with 2 dynamic dims in reassociation group
    // #0 ([0, 1]): MLIR 22's expand-strided-metadata would crash on it
    %e = memref.expand_shape %m [[0, 1]] output_shape [%a, %b]
        : memref<?xf32> into memref<?x?xf32>
    ```
  }];
}

def AttuneHoistWeightPreparation
    : Pass<"attune-hoist-weight-preparation", "::mlir::ModuleOp"> {
  let summary = "Prepare a layer function's weights in its callers, at compile time";
  let description = [{
    In a private function whose weight arguments are marked `attune.weight`
    (`attune-outline-layers`), the pure ops that depend on weights alone
    (the GEMM weights' transposes and packing into panels, slices, reshapes)
    move to every caller: each call computes them from its own operands and
    passes the results as new (marked) arguments; weight arguments nothing
    else reads go. In the callers the moved ops fold on the constants into
    new constants, so that the layer, compiled once, reads weights packed at
    compile time. Runs after `attune-pack-gemms`, before the GEMMs are tiled.

    f16 panels are rounded at compile time, where their range is checked:
    a rounding to f16 left for run time (marked `attune.panel_rounding` by the
    pack passes: a weight with a value beyond 65504, or weights known only
    at run time) is an error naming the weight and the value.

    Before:
    ```mlir
    func.func private @layer(%x: tensor<?x128xf32>, %w: tensor<64x128xf32> {attune.weight}) {
      %wt = linalg.transpose ins(%w : tensor<64x128xf32>) ... permutation = [1, 0]
      ... GEMM reading %wt ...
    }
    %y = call @layer(%x, %cst) : ...
    ```
    After:
    ```mlir
    func.func private @layer(%x: tensor<?x128xf32>, %wt: tensor<128x64xf32> {attune.weight}) {
      ... GEMM reading %wt ...
    }
    %cst_t = arith.constant dense_resource<weight_t> : tensor<128x64xf32>
    %y = call @layer(%x, %cst_t) : ...
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def AttuneInsertRuntimeChecks : Pass<"attune-insert-runtime-checks"> {
  let summary = "Check at run time that dynamic extents agree";
  let description = [{
    Dynamic dims that must agree (the batch of a query and its keys, a
    sequence length and a mask's) cannot be checked at compile time. This
    pass asks every op implementing `RuntimeVerifiableOpInterface` (linalg
    ops: operand extents against the loop ranges; tensor ops: slice bounds,
    reshape sizes, ...) to emit its checks, with short messages that carry the
    attune op's source location:
    `model.mlir:12:8: dimension #0 of input/output operand #1 is incompatible
    with inferred dimension size`. Ops inside kernel bodies are skipped: the
    kernels clamp the indices they compute (embedding ids, learned
    positions), and a check per element would cost.

    Run after `--convert-attune-to-linalg`; the checks are `cf.assert`s, which
    `--attune-lower-runtime-checks` turns into errors the runtime reports.
  }];
  let dependentDialects = ["::mlir::cf::ControlFlowDialect"];
}

def AttuneLowerRuntimeChecks
    : Pass<"attune-lower-runtime-checks", "::mlir::ModuleOp"> {
  let summary = "Turn failed cf.asserts into errors the runtime reports";
  let description = [{
    Upstream lowers `cf.assert` to a message on stderr and `abort()`. A model
    must not kill its host process for bad input, so this pass, run on the
    LLVM dialect before `convert-cf-to-llvm`, branches on each assertion to a
    block that calls the function pointer in the exported global
    `attune_check_handler` with the message. The runtime installs a handler
    that unwinds to `attune_model_run`, which returns the message as an error
    status. (A run that fails a check leaks the intermediate buffers it had
    allocated.)

    Before:
    ```mlir
    cf.assert %ok, "model.mlir:3:8: dimension #0 ... is incompatible"
    ```
    After:
    ```mlir
    llvm.cond_br %ok, ^continue, ^fail
    ^fail:
      %handler = llvm.load %handler_addr : !llvm.ptr -> !llvm.ptr
      llvm.call %handler(%message) : !llvm.ptr, (!llvm.ptr) -> ()
      llvm.unreachable
    ```
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def AttuneLowerStridedCopies : Pass<"attune-lower-strided-copies"> {
  let summary = "Turn memref.copy between strided memrefs into linalg.copy";
  let description = [{
    `finalize-memref-to-llvm` lowers a `memref.copy` whose operands are not
    both contiguous to a call to `memrefCopy` from MLIR's C runner utilities,
    which a self-contained Attune artifact does not link. This pass rewrites
    such copies (from bufferized `tensor.insert_slice` and friends) into
    `linalg.copy`, which `convert-linalg-to-loops` turns into plain loops.
    Contiguous copies stay `memref.copy` (a `memcpy`).

    Before:
    ```mlir
    memref.copy %src, %dst : memref<2x16xf32> to memref<2x16xf32, strided<[96, 1], offset: ?>>
    ```
    After:
    ```mlir
    linalg.copy ins(%src : memref<2x16xf32>)
                outs(%dst : memref<2x16xf32, strided<[96, 1], offset: ?>>)
    ```
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def AttuneMapToGpu : Pass<"attune-map-to-gpu", "::mlir::func::FuncOp"> {
  let summary = "Map bufferized linalg ops to GPU workgroups and invocations";
  let description = [{
    Prepares a bufferized host function for `convert-parallel-loops-to-gpu`:

    - `memref.copy` becomes `linalg.copy`, so every data movement runs on the
      device (the host code of a Vulkan model never touches tensor data).
    - Every linalg op becomes an `scf.parallel` nest over its parallel dims,
      with its reduction dims as sequential `scf.for` loops inside. An op
      without parallel dims (rank 0, or a full reduction) gets a
      one-iteration loop: one invocation runs it.
    - `math.erf`, which SPIR-V's GLSL instruction set lacks, becomes a
      polynomial.
    - Each outermost nest keeps at most 3 dims (the leading ones are
      collapsed), is tiled by the workgroup shape and mapped innermost dim
      first: tiles to `block_x/y/z`, the points of a tile to
      `thread_x/y/z`. The innermost dim gets as many invocations as its
      static extent uses (a power of two, at most `workgroup-size`), the next
      dim the rest of the workgroup; invocations past the end of a dim do nothing.

    Example: a `[?, ?, 64]` elementwise op with `workgroup-size=64` becomes
    grid `(1, L, B)` of `64 x 1 x 1` invocations.
  }];
  let options = [
    Option<"workgroupSize", "workgroup-size", "int64_t", /*default=*/"64",
           "Invocations per workgroup">,
  ];
  let dependentDialects = [
    "::mlir::affine::AffineDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::scf::SCFDialect",
  ];
}

def AttuneMarkWritableArgs
    : Pass<"attune-mark-writable-args", "::mlir::ModuleOp"> {
  let summary = "Only generation states may be written in place";
  let description = [{
    Run before one-shot bufferization: every argument of a public function
    gets `bufferization.writable`, true for a generation state (an argument
    with `attune.state`, whose buffer receives the state's new value) and
    false for every other input, which belongs to the caller and must come
    back unchanged (bufferization copies before writing into it).

    Before:
    ```mlir
    func.func @step(%x: tensor<?x4xf32>, %k: tensor<?x2x8x4xf32> {attune.state = "k"}) ...
    ```
    After:
    ```mlir
    func.func @step(%x: tensor<?x4xf32> {bufferization.writable = false},
                    %k: tensor<?x2x8x4xf32> {attune.state = "k", bufferization.writable = true}) ...
    ```
  }];
}

def AttuneMergeConstants
    : Pass<"attune-merge-constants", "::mlir::ModuleOp"> {
  let summary = "Merge constant globals with byte-identical contents";
  let description = [{
    Runs on bufferized IR, where each distinct constant attribute has become
    a private constant `memref.global`. Constants with different attributes
    but the same contents stay apart there: weights bound under different
    names (a model whose layers are copies of one initialization, such as
    `nn.TransformerEncoder`'s deep copies before training, or tied
    weights), and the packed and transposed copies the lowering makes of
    each. This pass keeps one global per (type, contents) and points every
    `memref.get_global` of the others at it, so the artifact embeds each
    distinct tensor once and a run streams it from one place (where the
    copies' total would not fit in the caches, each copy came from memory).

    Only private constant globals with a non-splat `dense` or
    `dense_resource` value take part; globals of other types never merge,
    whatever their bytes. Contents are compared byte by byte after a hash
    match. The kept global gets the larger of the two alignments.

    Before:
    ```mlir
    memref.global "private" constant @__constant_a : memref<2xf32> = dense_resource<a> {alignment = 64 : i64}
    memref.global "private" constant @__constant_b : memref<2xf32> = dense_resource<b> {alignment = 64 : i64}
    ...
    %0 = memref.get_global @__constant_a : memref<2xf32>
    %1 = memref.get_global @__constant_b : memref<2xf32>
    ```
    After (`a` and `b` hold the same bytes):
    ```mlir
    memref.global "private" constant @__constant_a : memref<2xf32> = dense_resource<a> {alignment = 64 : i64}
    ...
    %0 = memref.get_global @__constant_a : memref<2xf32>
    %1 = memref.get_global @__constant_a : memref<2xf32>
    ```
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

def AttuneOmpSchedule : Pass<"attune-omp-schedule"> {
  let summary = "Choose how the OpenMP worksharing loops share out their iterations";
  let description = [{
    Runs after `convert-scf-to-openmp` (the `--parallel` CPU pipeline).
    Every `omp.wsloop` gets the schedule of the `schedule` option, and a
    chunk size where `chunk` is positive; a loop that is the last op of its
    `omp.parallel` gets `nowait` (the region's end joins the threads, so
    the loop's own barrier only waits twice). A region whose loops' trip
    counts depend on values known before it (a dynamic M) runs only when
    some loop has more than one iteration; otherwise a copy of it as plain
    `scf.for` loops runs on the calling thread (or, where the region holds
    other OpenMP constructs, it gets `if(...)`, libomp's serialized
    region): a region of one iteration cost 0.7-1.2 us in the OpenMP
    runtime, several times a small kernel (a decoding step's score head).

    The kernels' worksharing loops run a few to a few hundred large
    iterations: cache tiles of a GEMM (128 rows x 128 columns), attention
    (batch, head, query tile) triples, rows of a layer norm. With OpenMP's
    default static schedule each thread gets a fixed contiguous share, and
    the loop ends when the slowest thread is done: on a machine whose cores
    are shared (a VM, another process), the others spin. `guided` (the
    default) still hands out large contiguous chunks first (half the
    remaining iterations over the threads, so each thread's first chunk is
    about the static share of a tall GEMM's row blocks) and ever smaller
    ones at the end, taken by whichever thread is free. `runtime` defers
    the choice to `OMP_SCHEDULE`.

    Before:
    ```mlir
    omp.parallel {
      omp.wsloop {
        omp.loop_nest (%i) : index = (%c0) to (%n) step (%c1) {
          ...
        }
      }
      omp.terminator
    }
    ```
    After:
    ```mlir
    omp.parallel {
      omp.wsloop nowait schedule(guided) {
        omp.loop_nest (%i) : index = (%c0) to (%n) step (%c1) {
          ...
        }
      }
      omp.terminator
    }
    ```
  }];
  let options = [
    Option<"schedule", "schedule", "std::string", /*default=*/"\"guided\"",
           "static | dynamic | guided | runtime (OMP_SCHEDULE)">,
    Option<"chunk", "chunk", "int64_t", /*default=*/"0",
           "Iterations per chunk (0: the runtime's default)">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect"];
}

def AttunePackGemms : Pass<"attune-pack-gemms", "::mlir::ModuleOp"> {
  let summary = "Run each linear layer's GEMM on packed weight panels";
  let description = [{
    Each `[B, M, K] x [K, N]` GEMM with a tiling (`attune.gemm`, or the
    GEMM under an `attune.epilogue`) becomes `C[b, m, nb, r] += A[b, m, k] *
    P[nb, k, r]` over panels `P [N/W, K, W]` (W: the tiling's panel; a new
    constant for constant weights), its output viewed as `[B, M, N/W, W]`,
    or panel-major `[B, N/W, M, W]` where only its epilogue reads it. Each
    register tile then reads one contiguous W-float row of a panel per k
    step instead of one row of B `4N` bytes from the previous one.

    Before:
    ```mlir
    %c = linalg.generic ins(%a, %w : tensor<?x?x768xf32>, tensor<768x3072xf32>)
        outs(%init : tensor<?x?x3072xf32>) attrs = {attune.gemm, attune.tiling = ...}
    ```
    After:
    ```mlir
    %p = arith.constant dense_resource<...> : tensor<48x768x64xf32>
    %c4 = linalg.generic ins(%a, %p : tensor<?x?x768xf32>, tensor<48x768x64xf32>)
        outs(%init4 : tensor<?x?x48x64xf32>) attrs = {attune.gemm, attune.tiling = ...}
    %c = tensor.collapse_shape %c4 [[0], [1], [2, 3]]
    ```

    Where W does not divide N, the last panel is zero-padded, the GEMM and
    its epilogue compute whole panels, and the readers get the first N
    columns (a `tensor.extract_slice`). With `weight-type=bf16` or `f16`
    the panels are stored in that type: half the bytes a memory-bound GEMM
    (a decoding step) reads. f16 panels of constant weights are rounded
    here; a weight with a value beyond f16's range (or one known only at
    run time) keeps its rounding as an op (`attune.panel_rounding`), which
    `--attune-hoist-weight-preparation` reports as an error.

    A GEMM whose tiling has `bf16_dot` (the bf16 compute mode) gets bf16
    k-pair panels `P [N/W, K/2, W, 2]` whatever `weight-type` says, A
    rounded to bf16 k-pairs `[B, M, K/2, 2]` in front of it (marked
    `attune.pair_rounding`), and a sixth loop over the pair:
    `C[b, m, nb, r] += A[b, m, k, p] * P[nb, k, r, p]`. One with
    `widen_pairs` gets the same bf16 panels and loops, A only viewed as
    f32 pairs `[B, M, K/2, 2]` (not rounded).
  }];
  let options = [
    Option<"weightType", "weight-type", "std::string", /*default=*/"\"f32\"",
           "Element type of the packed panels: f32, bf16 or f16 (rounded "
           "to nearest even at compile time; the GEMM widens each weight to "
           "f32 in registers and accumulates in f32)">,
  ];
  let dependentDialects = [
    "::mlir::affine::AffineDialect", "::mlir::arith::ArithDialect",
    "::mlir::scf::SCFDialect", "::mlir::tensor::TensorDialect",
    "::mlir::vector::VectorDialect"
  ];
}

def AttunePackHeadGemms : Pass<"attune-pack-head-gemms", "::mlir::ModuleOp"> {
  let summary = "GEMMs whose output only attention heads read write the heads directly";
  let description = [{
    A GEMM (with its tiling) whose output is only sliced, split into heads
    of the tiling's panel width and transposed to `[B, H, L, W]` (the packed
    Q/K/V projection) becomes one GEMM per slice on packed weight panels,
    writing `[B, S/W, M, W]` directly: the transposing copies go, and a
    register tile's accumulators are contiguous. Runs before
    `attune-vectorize-rows`, which would take the transposes.

    Before: `linalg.generic {attune.gemm}` -> `extract_slice` ->
    `expand_shape [B, M, H, 64]` -> `linalg.transpose [0, 2, 1, 3]`.
    After: `linalg.generic {attune.gemm}` over packed panels, 5 loops
    (b, nb, m, r, k), writing `[B, H, M, 64]`.
  }];
  let options = [
    Option<"weightType", "weight-type", "std::string", /*default=*/"\"f32\"",
           "Element type of the packed panels: f32, bf16 or f16 (rounded "
           "to nearest even at compile time; the GEMM widens each weight to "
           "f32 in registers and accumulates in f32)">,
  ];
  let dependentDialects = [
    "::mlir::affine::AffineDialect", "::mlir::arith::ArithDialect",
    "::mlir::scf::SCFDialect", "::mlir::tensor::TensorDialect",
    "::mlir::vector::VectorDialect"
  ];
}

def AttunePrefetchPanels : Pass<"attune-prefetch-panels"> {
  let summary = "Prefetch each GEMM's next weight slice while the current one runs";
  let description = [{
    Runs on bufferized IR after `attune-tile-gemm`. A GEMM's cache tile
    reads one k slice of a packed weight panel (`[N/W, K, W]`: KTILE x W
    floats, 32 KiB) in every register tile; the first register tile of the
    slice pulls all of it from L3 or memory, 4 lines per k step, far faster
    than memory delivers, and stalls. The schedule runs the cache tiles'
    loops as rows of 128, panels, k tiles, register tiles, so the next slice
    any cache tile reads is the 32 KiB right after the current one (the next
    k tile of the panel, or the next panel's first).

    In each k loop that `attune-tile-gemm` marked (`attune.panel_k_loop`: the
    full ROWS x W register tiles), the pass unrolls the loop by 8 (where its
    trip count is a constant multiple of 8 above 8; the loop's own increment
    and compare then also run once per 8 steps) and adds one
    `memref.prefetch` (read, locality 2: into L2) per unrolled step:
    register tile `t` of the cache tile, at step `k` of a k tile of `kc`
    steps, fetches float `2 t kc + 16 (k floordiv 8)` of the next slice, so
    the 32 (W = 64) or 16 (W = 32) register tiles of a 128-row cache tile
    fetch the whole next slice, one 64-byte line every 8 k steps, spread
    over the whole of the current one. The register tile's first line is
    clamped so that all of its lines are in the panel buffer (the last
    slice has no next one); that part of the index does not depend on k, so
    each slot only adds its line (LLVM turns it into a pointer that moves
    one line per slot). The panel is prefetched through a flat view
    (`memref.collapse_shape`) of it. A loop whose trip count is
    not a constant multiple of 8 keeps one prefetch per step (the same line
    for 8 steps). Panels narrower than a line, or buffers smaller than one,
    get none.

    Into L1 (locality 3) was as fast on 1 thread and slower where the
    slice was already in L2; a prefetch on every k step without the unroll
    lost the gain on 2 threads (bench/log/2026-11-kernels.md).

    In the k loop of a single row (`attune.row_k_loop`: the last rows of a
    cache tile, all of a decoding step's) on 16-bit panels `[N/W, K, W]`
    (`--gemm-weights=bf16/f16`), each step prefetches its own row of the
    next k tile into L2 (one prefetch per line of the row): nothing else
    shares those lines. Only where the target's model says so
    (`CpuTarget::prefetchHalfRows`): 2-3.2x faster on Emerald Rapids, whose
    hardware prefetcher did not keep up with those panels, and 1.06-1.45x
    slower decoding steps on the Zen 4, whose does. f32 panels go without
    (5-25 % slower with it on Emerald Rapids).

    Where the register tile's accumulators are stored right after the k
    loop into a rank-4 view of the cache tile (`memref.subview` at the row
    loop's induction variable in dim 1, row-major `[B, M, N/W, W]`, or
    dim 2, panel-major `[B, N/W, M, W]`), each slot also prefetches into L1
    (locality 3) one line of the next register tile's accumulators: slot
    `s` (of `kc / 8`) fetches row `first + s floordiv (W / 16)`, floats
    `16 (s mod (W / 16))` on, so a 4 x 64 tile's 16 lines arrive over the 16
    slots of a k tile of 128. `first`, the next tile's first row clamped so
    that the rows the slots reach are all in the cache tile, is computed
    before the k loop; where the rows of the cache tile are one run in
    memory (panel-major), slot `s` fetches line `s` of the run from row
    `first`, a pointer that moves one line per slot. Where the slots reach
    more rows than the register tile has (a k tile of more than 8 ROWS W /
    16 steps) or the k tile is dynamic, each slot's row is clamped to the
    last instead. Between k tiles
    the accumulators come back from L2; loaded all at once at the start of a
    register tile, they cost about 5 % of an encoder layer. (This lost
    before the outputs that conflicted in L1 went panel-major: with N =
    3072 a tile's 4 rows 12 KiB apart fall in the same 4 sets.)

    Where the register tile reads its rows of the GEMM's other operand A
    `[B, M, K]` as `ROWS x 1` vectors at the panel's k index (in bounds, the
    row index loop-invariant), each slot also prefetches into L1 `ROWS / 2`
    lines of the next register tile's rows of A for the same k tile (ROWS x
    kc floats): slot `s` fetches floats `16 (s floordiv 2)` on of rows
    `first + (ROWS / 2)(s mod 2) + j`, `first` the next tile's first row,
    clamped before the loop as for the accumulators. Where A outgrows L2
    (the second feed-forward GEMM: K = 3072, 1.5 MiB per 128-row cache tile,
    read again for each of the 12 panels) its lines came from L3, and the
    first step of a slot waited for them.

    Before (in a marked k loop):
    ```mlir
    %7 = scf.for %k = %c0 to %c128 step %c1 iter_args(%acc = %6) -> (vector<1x4x1x64xf32>) {
      %r = affine.apply affine_map<()[s0, s1] -> (s0 + s1)>()[%k0, %k]
      %b = vector.transfer_read %panels[%nb, %r, %c0], %pad : memref<48x768x64xf32>, vector<1x1x64xf32>
      ...
    } {attune.panel_k_loop}
    ```
    After:
    ```mlir
    %flat = memref.collapse_shape %panels [[0, 1, 2]] : memref<48x768x64xf32> into memref<2359296xf32>
    ...
    %7 = scf.for %k = %c0 to %c128 step %c8 iter_args(%acc = %6) -> (vector<1x4x1x64xf32>) {
      ...
      memref.prefetch %flat[%at], read, locality<2>, data : memref<2359296xf32>
      %b = vector.transfer_read %panels[%nb, %r, %c0], %pad : memref<48x768x64xf32>, vector<1x1x64xf32>
      ...  // the body 8 times, at k, k + 1, ..., k + 7
    } {attune.panel_k_loop}
    ```
    The marks stay for `attune-split-accumulators`, which drops them.
  }];
  let options = [
    Option<"cpu", "cpu", "std::string", /*default=*/"\"native\"",
           "Target CPU (whether single rows prefetch 16-bit panels)">,
    Option<"features", "features", "std::string", /*default=*/"\"\"",
           "Target features on top of the CPU's">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::memref::MemRefDialect"
  ];
}

def AttunePrepareWeightsAtLoad
    : Pass<"attune-prepare-weights-at-load", "::mlir::ModuleOp"> {
  let summary = "Prepare external weights once, when the model loads";
  let description = [{
    With `--weights-external` the weights are globals the runtime fills at
    load (`attune-externalize-weights`), so the preparation of the GEMM
    weights (the transposes and packing into panels, the bf16/f16 rounding of
    `--gemm-weights`) cannot fold at compile time as it does on bound
    weights, and would run at every call: a decoding step would read every
    weight twice and write it once. This pass moves the pure ops that compute
    from external weights (and constants) alone out of each function into
    preparation functions, `@attune_prepare_weights_N`
    (`artifact::kPrepareWeightsPrefix`), which store each value the function
    reads into a private global of its own (`@attune_prepared_N`, 64-byte
    aligned; the last op writes into it directly); the function reads the
    global instead. Values that several functions prepare alike (the entries
    of a generation model) are computed and stored once; the preparations
    are split into groups that share no weight and no computation (usually
    one weight each), listed on the module (`attune.weight_preparations`, the
    metadata's `prepare-weights` records). The runtime reads a group's
    weights, calls its function, and releases the memory of the weights only
    preparations read (`attune.prepared_only_weights`, `weight-prepared`
    records) before the next group. Runs after
    `attune-hoist-weight-preparation`, before the GEMMs are tiled.

    Before:
    ```mlir
    memref.global @attune_weight_0 : memref<64x128xf32> = uninitialized {attune.weight_name = "w"}
    func.func @forward(%x: tensor<?x128xf32>) -> tensor<?x64xf32> {
      %0 = memref.get_global @attune_weight_0 : memref<64x128xf32>
      %w = bufferization.to_tensor %0 restrict : memref<64x128xf32> to tensor<64x128xf32>
      %e = tensor.expand_shape %w [[0, 1], [2]] output_shape [2, 32, 128] ...
      %p = linalg.transpose ins(%e : tensor<2x32x128xf32>) ... permutation = [0, 2, 1]
      ... GEMM reading %p ...
    }
    ```
    After:
    ```mlir
    func.func @forward(%x: tensor<?x128xf32>) -> tensor<?x64xf32> {
      %0 = memref.get_global @attune_prepared_0 : memref<2x128x32xf32>
      %p = bufferization.to_tensor %0 restrict : memref<2x128x32xf32> to tensor<2x128x32xf32>
      ... GEMM reading %p ...
    }
    func.func @attune_prepare_weights_0() {
      ... %p computed from @attune_weight_0, into @attune_prepared_0 ...
      %1 = memref.get_global @attune_prepared_0 : memref<2x128x32xf32>
      bufferization.materialize_in_destination %p in restrict writable %1 ...
      return
    }
    memref.global "private" @attune_prepared_0 : memref<2x128x32xf32> = uninitialized {alignment = 64 : i64}
    ```
  }];
  let dependentDialects = ["::mlir::bufferization::BufferizationDialect",
                           "::mlir::memref::MemRefDialect"];
}

def AttuneRouteRuntimeCalls
    : Pass<"attune-route-runtime-calls", "::mlir::ModuleOp"> {
  let summary = "Call the runtime through pointer slots it fills at load";
  let description = [{
    Run on the LLVM dialect of the CPU code and of the Vulkan host code,
    after `finalize-memref-to-llvm` and `convert-func-to-llvm`: every call
    of a function in `attune/artifact.h`'s `kRuntimeImports` (the CPU code's
    `malloc` and `free`; the Vulkan host code's `_mlir_memref_to_llvm_alloc`,
    `_mlir_memref_to_llvm_free` and `_mlir_ciface_attune_vk_dispatch`) calls
    an internal wrapper instead, which calls through an exported
    function-pointer global. The runtime writes its own functions into those
    slots when it opens the model.

    Slots rather than symbols resolved by the dynamic linker: the model
    needs nothing from the global scope, so it opens in a host that loaded
    `libattune_runtime.so` with `RTLD_LOCAL` (Python's ctypes does), and
    the runtime knows that a model's buffers are its own. The CPU slots hold
    libc's `malloc` and `free` until then (the library also runs without the
    runtime); the Vulkan ones hold null, and their declarations go.

    The runtime's allocator keeps freed buffers of 16 KiB or more and hands
    them back to the next allocation of the same size, so a model run
    repeatedly reuses the same pages instead of faulting in fresh zeroed ones
    each run.

    Before:
    ```mlir
    llvm.func @malloc(i64) -> !llvm.ptr
    %p = llvm.call @malloc(%size) : (i64) -> !llvm.ptr
    ```
    After:
    ```mlir
    llvm.func @malloc(i64) -> !llvm.ptr
    %p = llvm.call @attune_cpu_malloc(%size) : (i64) -> !llvm.ptr
    llvm.mlir.global external @attune_cpu_malloc_hook() : !llvm.ptr {
      %0 = llvm.mlir.addressof @malloc : !llvm.ptr
      llvm.return %0 : !llvm.ptr
    }
    llvm.func internal @attune_cpu_malloc(%n: i64) -> !llvm.ptr {
      %0 = llvm.mlir.addressof @attune_cpu_malloc_hook : !llvm.ptr
      %1 = llvm.load %0 : !llvm.ptr -> !llvm.ptr
      %2 = llvm.call %1(%n) : !llvm.ptr, (i64) -> !llvm.ptr
      llvm.return %2 : !llvm.ptr
    }
    ```
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def AttuneSelectCpuTiling : Pass<"attune-select-cpu-tiling", "::mlir::ModuleOp"> {
  let summary = "Decide each GEMM's tiling and write it as #attune.gemm_tiling";
  let description = [{
    The first of the CPU kernel passes. Each linear layer's contraction
    (`attune.gemm`) and its epilogue, and each of tiled attention's tile
    contractions (`attune.tile_gemm`), gets `attune.tiling =
    #attune.gemm_tiling<...>`: the weight panel and register tile widths,
    the register tile rows, the cache tile's depth and rows, the panels of a
    parallel tile. The passes after it read the attribute; none decides a
    tile size itself. The module gets `attune.cpu_kernels` when it has
    marked kernels (see `dialect/Markers.h`). The rule is documented in
    `docs/design.md` ("GEMM tiling").

    A GEMM whose last N mod L columns (L the vector's lanes) are at most
    half a vector after whole vectors, where computing them on their own
    drops at least an eighth of the columns the panels compute (17 = 16 +
    1 on 512-bit vectors, 129 = 128 + 1), is split first: two GEMMs on
    slices of the weights and of the init (a bias broadcast or zero fill:
    one of each part's columns, its GEMM's own init), their results
    inserted into the init (the broadcast's empty tensor), the last
    columns as dot products along K; an activation epilogue is then a row
    kernel over the joined output.

    Before:
    ```mlir
    %c = linalg.generic {...} ins(%a, %w : tensor<?x?x768xf32>, tensor<768x3072xf32>)
        outs(%init : tensor<?x?x3072xf32>) attrs = {attune.gemm} {...}
    ```
    After:
    ```mlir
    %c = linalg.generic {...} ins(%a, %w : tensor<?x?x768xf32>, tensor<768x3072xf32>)
        outs(%init : tensor<?x?x3072xf32>) attrs = {attune.gemm,
        attune.tiling = #attune.gemm_tiling<panel = 64, rows = 4, k_tile = 128,
                                            cache_rows = 128, forall_panels = 2>} {...}
    ```
  }];
  let options = [
    Option<"cpu", "cpu", "std::string", /*default=*/"\"native\"",
           "The CPU whose model decides: native (this machine: LLVM's host "
           "CPU and features, sysfs caches) or a name (znver4, "
           "icelake-server, sapphirerapids, x86-64-v3, ...)">,
    Option<"features", "features", "std::string", /*default=*/"\"\"",
           "ISA features on top of the CPU's (+f,-f; e.g. -avx512f)">,
    Option<"explain", "explain", "bool", /*default=*/"false",
           "Report each decision and the model's reasons as a remark">,
    Option<"compute", "compute", "std::string", /*default=*/"\"f32\"",
           "The linear layers' GEMM arithmetic: f32, or bf16 (operands "
           "rounded to bf16, products accumulated in f32: bf16_dot)">,
    Option<"weights", "weights", "std::string", /*default=*/"\"f32\"",
           "The linear layers' panel storage (the pack passes' weight-type: "
           "f32, bf16 or f16); bf16 with f32 arithmetic takes widen_pairs "
           "on 512-bit vectors">,
  ];
}

def AttuneSerializeSpirv : Pass<"attune-serialize-spirv", "::mlir::ModuleOp"> {
  let summary = "Serialize converted kernels into SPIR-V byte arrays";
  let description = [{
    Runs after `convert-gpu-to-spirv`: each `spirv.module` beside its
    `gpu.module` is serialized into a public LLVM global
    `attune_vk_spirv_<gpu module>` (an `i8` array of SPIR-V words), its
    symbol and size are added to the module's `attune.vulkan.kernels`
    entries, and the `spirv.module` and `gpu.module` ops are dropped. What
    remains is host code only.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def AttuneSplitAccumulators : Pass<"attune-split-accumulators"> {
  let summary = "Enough FMA chains in a GEMM's k loop: the loop unrolled, each copy on its own accumulators";
  let description = [{
    Runs on bufferized IR after `attune-prefetch-panels`, on the k loops
    `attune-tile-gemm` marked (`attune.panel_k_loop`: a register tile's,
    `attune.row_k_loop`: one row of a GEMM's last rows, all of a decoding
    step's), and drops the marks. Such a loop carries the tile's vectors as
    accumulators, one FMA chain each, each step's FMA waiting for the last
    one's. A full tile has 16 chains, but a row of a 16-column panel has
    one, and runs one FMA per FMA latency (4 cycles): 768 -> 16 at M = 1
    took 1.06 us against OpenBLAS's 0.48 (Zen 4); the 2-row tile of the
    same panel (M = 2, 3) has two.

    The loop is unrolled by U; copy `c` of the body (k = iv + c step)
    accumulates into its own copy of the accumulators, the first copy from
    the loop's init, the others from zero, and the copies are added in a
    tree after the loop (`(c0 + c1) + (c2 + c3)`). Where the trip count is
    not a known multiple of U, the original loop runs the last steps from
    the sum. The products are the same; only the order of their additions
    changes (as in any GEMM's split of k).

    U fills the target's FMA pipes: `fmaPerCycle x fmaLatency` chains of
    one vector register (4 on the Zen 4, 8 on Intel's AVX-512 cores) over
    the vectors the loop carries, rounded up to a power of two, at most 8,
    with all the copies in at most half the vector registers; a loop of
    fewer than 2 U steps is left as is, and so is every loop with enough
    chains (U = 1).

    Only loops whose accumulators are carried lane for lane: every lane of
    each iter_arg reaches the same lane of the yield, through extracts,
    shape casts, broadcasts that only add unit dims, element splits and
    joins, and as the accumulator of `vector.fma`, `x86vector.avx512.dot` or
    `arith.addf` (each adding something no accumulator feeds). Anything else
    touching an accumulator leaves the loop as is.

    Before (768 -> 16, a k tile of 256 steps, one chain):
    ```mlir
    %r = scf.for %k = %c0 to %c256 step %c1 iter_args(%acc = %init)
        -> (vector<1x1x1x16xf32>) {
      %a = vector.extract %acc[0, 0, 0] : vector<16xf32> from vector<1x1x1x16xf32>
      %f = vector.fma %w, %x, %a : vector<16xf32>
      %y = vector.broadcast %f : vector<16xf32> to vector<1x1x1x16xf32>
      scf.yield %y : vector<1x1x1x16xf32>
    } {attune.row_k_loop}
    ```
    After (Zen 4: 4 chains):
    ```mlir
    %p:4 = scf.for %k = %c0 to %c256 step %c4
        iter_args(%a0 = %init, %a1 = %zero, %a2 = %zero, %a3 = %zero) -> (...) {
      // the body 4 times, at %k, %k + 1, %k + 2, %k + 3, on %a0 .. %a3
    }
    %s0 = arith.addf %p#0, %p#1 : vector<1x1x1x16xf32>
    %s1 = arith.addf %p#2, %p#3 : vector<1x1x1x16xf32>
    %r = arith.addf %s0, %s1 : vector<1x1x1x16xf32>
    ```
  }];
  let options = [
    Option<"cpu", "cpu", "std::string", /*default=*/"\"native\"",
           "The target CPU (as attune-select-cpu-tiling's cpu)">,
    Option<"features", "features", "std::string", /*default=*/"\"\"",
           "ISA features on top of the CPU's (+f,-f)">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::scf::SCFDialect"
  ];
}

def AttuneTileAttention : Pass<"attune-tile-attention"> {
  let summary = "Lower attune.attention as tiled online softmax (FlashAttention-2)";
  let description = [{
    Lowers soft `attune.attention` (without the weights result) to loops over
    batch, heads and query tiles, each reducing over key tiles with a running
    maximum `m`, running sum `l` and accumulator `acc` that are rescaled by
    `exp(m_old - m_new)` when the maximum grows; the output tile is
    `acc / l`. Working memory is per tile: no `[Lq, Lk]` scores exist.

    The key loop of a query tile runs only over keys some query of the tile
    can see: `[lo, hi)` with `hi` bounded by the key padding length and, with
    `causal`, by the last query's position (about half the work), and `lo`
    raised by a sliding `window`. Masks are applied from indices inside the
    boundary tiles only: a key tile inside the range every query of the
    query tile sees is used unmasked (an `scf.if` per key tile). A query
    tile whose range
    is empty gives zeros, as `attune.attention` specifies. Dynamic extents
    the loops assume equal (the batch of queries, keys, values, lengths and
    bias; the keys' and values' length) are asserted at run time.

    Without a bias (static tiles), queries, keys and values are padded to
    whole tiles (copied only where a length is not a multiple of the tile)
    and each query tile is scaled and transposed before its key loop;
    scores are computed transposed, `sT = k_tile qT_tile` (`[TK, TQ]`), so that the
    softmax's maximum and sum over keys are element-wise across rows rather
    than horizontal reductions, and `acc += pT^T v_tile` reads pT's rows as
    its broadcast operand. The softmax's `exp(s - m)` is
    `2^(s log2(e) - m log2(e))`, the exponent in one FMA, with a degree-6
    polynomial of `2^f` (1.3 ulp; exactly 0 for masked scores).

    With `compute=bf16` (`--attention-compute=bf16`), the static form's two
    contractions read bf16 k-pairs where both are register tiles (value
    width a multiple of 32, even head size, no global tokens): the queries
    are scaled, rounded and transposed to `[D/2, TQ, 2]` tile by tile, the
    keys rounded to `[Lk, D/2, 2]` and the values to `[Lk/2, Dv, 2]` once
    per call, and each key tile's probabilities rounded and interleaved
    into `[TK/2, TQ, 2]` (marked `attune.pair_interleave`) for the value
    contraction; the running maximum, the sums and the softmax stay f32.
    attune-select-cpu-tiling gives the contractions `bf16_dot` and
    attune-tile-gemm `vdpbf16ps` (or its FMA form).

    Where the query count is not static (and always with `query_offsets`,
    a cache), the op becomes an `scf.if` on it: the static form for 16
    queries or more, else the dynamic form, which reads key tiles in place
    and pads nothing (a decoding step's one query padded its query, keys and
    values to whole tiles, zero-filled and copied). Ops with global tokens
    and the absorbed cross-attention (`attune.tile_q_cap`) keep the static
    form.

    With global tokens (`globals`, Longformer), the static form keeps each
    query tile's window range and masks its boundary tiles with the key
    flags as operands; then one more online-softmax step over the global
    keys, gathered per head into `[G8, D]` tiles, that the range did not
    cover; after the query loop, the global queries, gathered into one
    `[D, 32k]` tile, run over every key and overwrite their rows. Work:
    about `L (2w + 2 TK + G) + G L` scores per head where full attention
    has `L^2`. The positions are checked when the model runs. With a bias
    too, the op keeps the plain form.

    `attune.linear_attention` without a state is tiled the same way: per
    (batch, head), chunks of `linear-chunk` rows; phi of each key chunk
    `[C, D]` and the transposed phi of each query chunk `[D, C]` computed
    in cache; causal: `sT = fk_c qT_c` with `j > i` zeroed, `num = sT^T v_c
    + qT_c^T S`, `den = colsum sT + qT_c^T z`, then `S += fk_c^T v_c`,
    `z += colsum fk_c` (non-causal: `S` and `z` over all key chunks first).
    The chunk products are the register-tiled micro-kernels of attention.
    Measured (H = 12, D = 64, L = 16384, 1 thread, bench/README.md): a
    chunk of 32 rows does a quarter less work than 64 (the masked block
    shrinks; the state's products do not) and ran 15 % faster.

    Cost rule: the tiled form is used when the key length is dynamic or at
    least `min-length`; shorter static sequences keep the plain form of
    `--convert-attune-to-linalg`, which is cheaper when the scores fit in
    cache. Tile sizes are options; the defaults suit CPU caches. An
    `attune.tile_q_cap = N` attribute on an op caps its query tile at `N`
    (attune-absorb-kv-projections sets 16 on its attention of few rows).

    With `parallel`, the static form's `scf.forall` runs over (batch,
    head); with fewer than 4 heads (and no global tokens) it runs over
    (batch, head, key range) instead, flash-decoding: each head's visible
    keys of a query tile are split into ranges of whole key tiles, one range
    per 4 key tiles (at most 16, counted when the model runs), each range
    keeps its own unnormalized state, and after the loop the states are
    combined: `M = max_s m_s`, `w_s = exp(m_s - M)`, `L = sum_s w_s l_s`,
    `out = sum_s (w_s / L) acc_s` (0 where `L = 0`). The absorbed
    cross-attention of a decoding step is one head of a few rows over the
    whole memory: without the ranges it ran on one thread.

    Before:
    ```mlir
    %o = attune.attention %q, %k, %v {causal}
        : (tensor<1x12x?x64xf32>, tensor<1x12x?x64xf32>, tensor<1x12x?x64xf32>)
        -> tensor<1x12x?x64xf32>
    ```
    After (schematically):
    ```mlir
    scf.for %b ... scf.for %h ... scf.for %i0 = 0 to %Lq step 64 {
      // %hi = min(Lk, i0 + tq) for causal
      scf.for %j0 = %lo to %hi step 64 iter_args(%m, %l, %acc) {
        // sT = k_tile (q_tile * scale)^T, masked on boundary tiles only
        // m' = max(m, colmax sT); pT = exp(sT - m')
        // l' = l exp(m - m') + colsum pT; acc' = acc exp(m - m') + pT^T v_tile
      }
      // out[b, h, i0:i0+tq] = acc / l
    }
    ```
  }];
  let options = [
    Option<"tileQ", "tile-q", "int64_t", /*default=*/"64",
           "Queries per tile">,
    Option<"tileK", "tile-k", "int64_t", /*default=*/"64",
           "Keys per tile">,
    Option<"minLength", "min-length", "int64_t", /*default=*/"128",
           "Tile when the static key length is at least this (dynamic "
           "lengths are always tiled)">,
    Option<"parallel", "parallel", "bool", /*default=*/"false",
           "Batch and heads as an scf.forall (threads with "
           "attune-cpu-pipeline{parallel}), in both tiled forms; with "
           "fewer than 4 heads, the static form's key ranges too">,
    Option<"linearChunk", "linear-chunk", "int64_t", /*default=*/"32",
           "Rows per chunk of linear attention">,
    Option<"compute", "compute", "std::string", /*default=*/"\"f32\"",
           "The static form's tile contractions: f32, or bf16 (q k^T and "
           "p v on bf16 k-pairs, accumulated in f32; the GEMM passes give "
           "them vdpbf16ps or its FMA form)">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::cf::ControlFlowDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

def AttuneTileGemm : Pass<"attune-tile-gemm", "::mlir::ModuleOp"> {
  let summary = "Tile and vectorize the GEMMs and tile ops as their tilings say; lower the vector code";
  let description = [{
    Builds a transform-dialect schedule from the module's tilings (one group
    per distinct `#attune.gemm_tiling`, wider panels first) and applies it:
    GEMMs in cache tiles (`cache_rows` rows x one panel x `k_tile`, their
    loops running rows, panels, k tiles) with register tiles of `rows` x
    `panel` (the row loop peeled so that full tiles vectorize without masks;
    the k loops of full tiles marked `attune.panel_k_loop` for
    `attune-prefetch-panels`; the remaining rows in full tiles of half
    the rows, then half that, down to 2 (marked alike), then one at a
    time; a panel
    whose width is not a power of two, such as 4 x 24 on AVX2, vectorized
    in chunks of the largest power of two dividing it, each chunk's
    accumulators carried on their own and the FMAs ordered row by row,
    since LLVM scalarizes a loop-carried `vector<24xf32>`); a GEMM with
    an epilogue fused into the epilogue's tiles; attention's tile
    contractions as register tiles; the row kernels' static tiles and the
    fused inits vectorized; then, per function, contractions lowered to
    FMAs with the accumulators hoisted out of the k loops, multi-reductions
    and 16 x 16 transposes lowered; an element taken from a vector read
    only to be broadcast is read as a scalar (a broadcast load: attention's
    value GEMM read two probabilities side by side as one vector and split
    them with shuffles). Does nothing without `attune.cpu_kernels`.

    A GEMM in the bf16 compute mode (`bf16_dot`) is tiled the same way, k
    counting pairs; its register tiles are vectorized by the pass itself:
    per k-pair step the panel row as one `vector<2W x bf16>`, each row's
    pair broadcast as a 32-bit word, one `x86vector.avx512.dot`
    (`vdpbf16ps`) per 16 accumulators where `cpu` has AVX512-BF16, two
    FMAs on the pair's widened halves elsewhere (the same sums). Attention's
    tile contractions on k-pairs (attune-tile-attention `compute=bf16`) get
    the same register tiles, and its probabilities' interleaving
    (`attune.pair_interleave`) becomes a loop over row pairs: both rows
    rounded, one the low and one the high half of each 32-bit pair word.

    Before: `linalg.generic {attune.gemm_cache_tile, attune.tiling = ...}`.
    After: `scf.for` loops around `vector.fma` chains on `vector<64xf32>`
    accumulators.
  }];
  let options = [
    Option<"parallel", "parallel", "bool", /*default=*/"false",
           "Cache tiles inside an scf.forall over cache_rows x forall_panels tiles">,
    Option<"cpu", "cpu", "std::string", /*default=*/"\"native\"",
           "Target CPU of the bf16 dot tiles (vdpbf16ps where it has "
           "AVX512-BF16, FMAs elsewhere)">,
    Option<"features", "features", "std::string", /*default=*/"\"\"",
           "Target features on top of the CPU's">,
  ];
  let dependentDialects = [
    "::mlir::affine::AffineDialect", "::mlir::arith::ArithDialect",
    "::mlir::scf::SCFDialect", "::mlir::tensor::TensorDialect",
    "::mlir::vector::VectorDialect",
    "::mlir::x86vector::X86VectorDialect"
  ];
}

def AttuneTransposeTiles : Pass<"attune-transpose-tiles", "::mlir::ModuleOp"> {
  let summary = "Transposing copies as vectorized 16 x 16 blocks";
  let description = [{
    A copy that transposes its two innermost dims (`attune.transpose_tiles`,
    tiled attention's keys; both multiples of 16) runs in 16 x 16 blocks,
    each one vector read, an in-register transpose and one vector write
    (lowered to shuffles by `attune-tile-gemm`'s schedule). With `parallel`
    the leading dims are an `scf.forall`.

    Before: `linalg.generic {attune.transpose_tiles}` over `[B, H, L, 64]`.
    After: loops over 16 x 16 blocks of `vector.transfer_read` +
    `vector.transpose` + `vector.transfer_write`.
  }];
  let options = [
    Option<"parallel", "parallel", "bool", /*default=*/"false",
           "Leading dims as an scf.forall">,
  ];
  let dependentDialects = [
    "::mlir::affine::AffineDialect", "::mlir::arith::ArithDialect",
    "::mlir::scf::SCFDialect", "::mlir::tensor::TensorDialect",
    "::mlir::vector::VectorDialect"
  ];
}

def AttuneVectorizeRows : Pass<"attune-vectorize-rows", "::mlir::ModuleOp"> {
  let summary = "Vectorize the row kernels one row at a time";
  let description = [{
    Every unmarked row kernel (a `linalg.generic` or `linalg.transpose`
    whose loops are all parallel but possibly the last, a row reduction;
    the last loop static with 16 to 4096 iterations; each operand
    contiguous along it or broadcast across it; no gathers: layer norms,
    residual adds, the softmax of short attention) runs one row at a time,
    vectorized along the row in chunks of 64 (or 32, 16, the whole row),
    its sums `reassoc` vector reductions (lowered to 1-D vector reductions
    here, so that the kernel schedule's `reduction_to_contract` does not
    make a row's dot product a contraction whose outer-product lowering
    chains one scalar FMA per element). Row kernels that only other row
    kernels of the same rows read (a layer norm's mean and variance) are
    fused into the row loop of the element-wise one they feed. With
    `parallel`, a kernel outside any loop (with the row kernels it fuses) is
    first an `scf.forall` over blocks of rows, each block's rows then one at
    a time as above: blocks of at most 16384 elements, a power of two of
    rows (16 rows of 768, 4 of 3072), taken from the innermost leading dim
    out (a static dim smaller than a block whole, the rest from the dim
    outside it: `[B, 1, 768]` in blocks of 16 beams). A kernel of at most
    one block runs on the calling thread (`attune-omp-schedule`'s serial
    path): a parallel region costs about 1.5 us on 2 threads, 16 rows of a
    layer norm 2.9. Sets `attune.cpu_kernels` on the module when it
    vectorized anything.

    With `parallel`, a row update outside any loop (leading parallel loops,
    then reductions, then the row, as above: `q_h Wk_h` of the absorbed
    cross-attention, each output row a sum of scaled rows of `Wk_h`) is an
    `scf.forall` over its leading loops too, each row's update left as
    plain loops that LLVM vectorizes along the row.

    Before: `linalg.generic ins(%x : tensor<?x768xf32>)` (a row kernel).
    After: `scf.for %i` over rows containing `vector.transfer_read`s of
    `vector<64xf32>` chunks.
  }];
  let options = [
    Option<"parallel", "parallel", "bool", /*default=*/"false",
           "Blocks of rows of kernels outside loops as an scf.forall">,
  ];
  let dependentDialects = [
    "::mlir::affine::AffineDialect", "::mlir::arith::ArithDialect",
    "::mlir::scf::SCFDialect", "::mlir::tensor::TensorDialect",
    "::mlir::vector::VectorDialect"
  ];
}

def AttuneVulkanAbi : Pass<"attune-vulkan-abi", "::mlir::ModuleOp"> {
  let summary = "Fix the kernel ABI and turn launches into Vulkan runtime calls";
  let description = [{
    For every `gpu.launch_func` of an outlined kernel:

    - The kernel takes one `memref<?xT>` storage buffer per memref argument
      (bound at the view's aligned base address) and one push-constant block
      `memref<Nxi32, #spirv.storage_class<PushConstant>>` holding, in order,
      every dynamic offset, size and stride of its views and every scalar
      argument. Loads and stores index the flat buffers; static offsets and
      strides stay constants. So dynamic batch and sequence lengths reach
      the shaders without recompiling.
    - `spirv.entry_point_abi` carries the launch's workgroup size, which
      must be a constant within `max-workgroup-invocations`; the push
      constants must fit in `push-constant-bytes`.
    - The launch becomes
      `func.call @attune_vk_dispatch(%id, %gx, %gy, %gz, %buffers, %push)`
      with the buffer addresses (`memref<?xi64>`) and the push constants
      (`memref<?xi32>`) in stack arrays. Workgroup counts stay host values
      computed from the runtime shapes.

    The module gets `attune.vulkan.kernels` (per kernel id: gpu module,
    entry, buffer and push-constant counts, workgroup size) and
    `attune.vulkan.globals`: the globals the host code reads (weights,
    constants), renamed `attune_vk_global_<n>` and made public so that the
    runtime uploads them to the device once.

    A kernel that uses a buffer other than by load, store or `memref.dim`
    is rejected with the op named.
  }];
  let options = [
    Option<"pushConstantBytes", "push-constant-bytes", "int64_t",
           /*default=*/"128", "Push-constant bytes a kernel may use">,
    Option<"maxWorkgroupInvocations", "max-workgroup-invocations", "int64_t",
           /*default=*/"128", "Invocations a workgroup may have">,
    Option<"float16", "fp16", "bool", /*default=*/"false",
           "The device has 16-bit storage buffers and shaderFloat16 (f16 "
           "buffers are accepted)">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::func::FuncDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::spirv::SPIRVDialect",
  ];
}

def AttuneWidenBooleans : Pass<"attune-widen-booleans", "::mlir::func::FuncOp"> {
  let summary = "Carry boolean tensors between Vulkan kernels as i32";
  let description = [{
    SPIR-V storage buffers hold no booleans, so on Vulkan a boolean tensor
    that one kernel computes and another reads (a mask from
    `attune.compare`, reshaped by `attune.expand_dims`, then read by
    `attune.select`) is stored as `i32` 0 or 1. On linalg-on-tensors,
    before bufferization: a `linalg.generic` (or `tensor.empty`, `linalg.fill`,
    constant) producing `i1` produces `i32` (its body yields `extui`);
    reshapes, casts and slices of it take the new type; a `linalg.generic`
    reading it compares its element with 0 at the top of its body. A
    boolean argument becomes an `i32` one: the runtime stores each of the
    caller's bool bytes as an `i32` 0 or 1 as it uploads the input (the
    artifact's metadata still says `bool`).

    ```mlir
    %m = linalg.generic ... outs(%e : tensor<?x?xi1>) { ... linalg.yield %c : i1 }
    // becomes
    %m = linalg.generic ... outs(%e : tensor<?x?xi32>) {
      ... %w = arith.extui %c : i1 to i32
      linalg.yield %w : i32 }
    ```

    A boolean result leaves as `i32` too (the runtime narrows it back to
    one byte per element as it reads it back). A boolean tensor read by any
    other op is an error naming it.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
  ];
}

def ConvertAttuneToLinalg : Pass<"convert-attune-to-linalg"> {
  let summary = "Lower primitive attune ops to linalg on tensors";
  let description = [{
    Rewrites every primitive attune op into `linalg` on tensors, with
    `tensor`, `arith`, `math` and `scf`. `attune.weight` is left for the driver
    to bind; composite ops must be decomposed first (`--attune-decompose`),
    and the pass says so if they are not.

    - Contractions (`linear`, `matmul`, attention's two products) are
      `linalg.generic`s with a reduction dim; broadcast batch dims read index
      0. A bias initializes the accumulator.
    - Masks are computed from `linalg.index` inside the score kernel: no
      `[Lq, Lk]` mask tensor is built. Grouped-query heads read key/value head
      `h floordiv (H / Hk)` through the indexing map.
    - Softmax subtracts the row maximum; an all-masked row gives zeros.
    - Recurrent ops become one input-projection GEMM per layer and direction,
      then a rolled `scf.for` over time carrying the state.

    Before:
    ```mlir
    %y = attune.activation <relu> %x : tensor<?x64xf32>
    ```
    After:
    ```mlir
    %c0 = arith.constant 0 : index
    %d0 = tensor.dim %x, %c0 : tensor<?x64xf32>
    %e = tensor.empty(%d0) : tensor<?x64xf32>
    %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                          affine_map<(d0, d1) -> (d0, d1)>],
                         iterator_types = ["parallel", "parallel"]}
        ins(%x : tensor<?x64xf32>) outs(%e : tensor<?x64xf32>) {
    ^bb0(%in: f32, %out: f32):
      %cst = arith.constant 0.000000e+00 : f32
      %r = arith.maximumf %in, %cst : f32
      linalg.yield %r : f32
    } -> tensor<?x64xf32>
    ```
  }];
  let options = [
    Option<"checkIndices", "check-indices", "bool", /*default=*/"false",
           "Embedding ids outside the table fail the run with the op's "
           "location (a pass over the ids read on the host; the CPU "
           "pipeline sets it) instead of giving zero rows">,
    Option<"requireBoundWeights", "require-bound-weights", "bool",
           /*default=*/"false",
           "An attune.weight left unbound is an error naming it (the "
           "pipelines set it: nothing after this pass can compile one)">,
    Option<"deferChecks", "defer-checks", "bool", /*default=*/"false",
           "With check-indices: the pass over the ids runs where they are "
           "(a device kernel) and the run fails after it completes, through "
           "the runtime's attune_vk_check (the Vulkan pipeline sets it)">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::func::FuncDialect",
    "::mlir::cf::ControlFlowDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

#endif // ATTUNE_LOWERING_PASSES_TD
