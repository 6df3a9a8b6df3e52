//===- Passes.td - conversions out of attune ---------------*- tablegen -*-===//

#ifndef ATTUNE_LOWERING_PASSES_TD
#define ATTUNE_LOWERING_PASSES_TD

include "mlir/Pass/PassBase.td"

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
