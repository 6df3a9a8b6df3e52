//===- Passes.td - conversions out of attune ---------------*- tablegen -*-===//

#ifndef ATTUNE_LOWERING_PASSES_TD
#define ATTUNE_LOWERING_PASSES_TD

include "mlir/Pass/PassBase.td"

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

def AttuneTileGemm : Pass<"attune-tile-gemm", "::mlir::ModuleOp"> {
  let summary = "Cache- and register-tile the linear layers' GEMMs and vectorize them";
  let description = [{
    Applies a transform-dialect schedule to the contraction generics that
    `attune.linear` lowers to (marked `attune.gemm`: `[B, M, K] x [K, N]`
    with the weight already transposed; N a multiple of 32): tiles of
    64 x 256 x 128 for the
    caches, then register tiles of 8 rows x 32 columns x 1, whose row loop
    is peeled so that full tiles vectorize without masks; each becomes 8
    broadcasts and 8 FMAs on `vector<32xf32>` per k step, with the
    accumulator hoisted out of the k loop. The remainder rows stay scalar
    loops. (Schedule measured in `shared/TOOLCHAIN.md` §2.)
  }];
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
    raised by a sliding `window`. Masks are applied from indices inside each
    tile (only boundary tiles have masked entries). A query tile whose range
    is empty gives zeros, as `attune.attention` specifies. Dynamic extents
    the loops assume equal (the batch of queries, keys, values, lengths and
    bias; the keys' and values' length) are asserted at run time.

    Cost rule: the tiled form is used when the key length is dynamic or at
    least `min-length`; shorter static sequences keep the plain form of
    `--convert-attune-to-linalg`, which is cheaper when the scores fit in
    cache. Tile sizes are options; the defaults suit CPU caches.

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
        // s = q_tile k_tile^T * scale, masked; m' = max(m, rowmax s)
        // p = exp(s - m'); l' = l exp(m - m') + rowsum p
        // acc' = acc exp(m - m') + p v_tile
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
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

#endif // ATTUNE_LOWERING_PASSES_TD
