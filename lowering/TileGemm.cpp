//===- TileGemm.cpp - tile and vectorize the linear layers' GEMMs ---------===//

#include "lowering/AttuneToLinalg/KernelBuilder.h"
#include "lowering/Passes.h"

#include "mlir/Dialect/Transform/IR/TransformOps.h"
#include "mlir/Dialect/Transform/Transforms/TransformInterpreterUtils.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"

#include <cstring>
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::attune {
#define GEN_PASS_DEF_ATTUNETILEGEMM
#include "lowering/Passes.h.inc"
} // namespace mlir::attune

using namespace mlir;

// Register tiles of 8 x 32 (two zmm registers per row with AVX-512, four
// ymm with AVX2), cache tiles of 64 x 256 x 128.
// The cache tiles: serial, or with the column tiles as an scf.forall. Both
// define %t1 (the tile) and %l1#0 (the outermost scf.for of the tile
// loops).
static constexpr const char *kSerialCacheTiles = R"mlir(
      %t1, %l1:4 = transform.structured.tile_using_for %gemm tile_sizes [1, 64, 256, 128]
          : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
)mlir";
static constexpr const char *kParallelCacheTiles = R"mlir(
      %t0, %forall = transform.structured.tile_using_forall %gemm tile_sizes [0, 0, 256, 0]
          : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
      transform.apply_patterns to %forall {
        transform.apply_patterns.scf.for_loop_canonicalization
        transform.apply_patterns.canonicalization
      } : !transform.any_op
      %t1, %l1:3 = transform.structured.tile_using_for %t0 tile_sizes [1, 64, 0, 128]
          : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
)mlir";

// Register tiles of the cache tile %t1 inside the loop nest OUTER, and its
// vectorization (expanded as REGISTER_TILES(OUTER)).
static constexpr const char *kRegisterTiles = R"mlir(
      // Columns outside rows: one 32-column panel of B (128 x 32, 16 KiB)
      // stays in L1 while every 8-row tile of A streams past it.
      %t2, %l2:4 = transform.structured.tile_using_for %t1 tile_sizes [1, 8, 32, 1] interchange = [0, 2, 1, 3]
          : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
      // Full 8-row tiles, and a remainder loop for the last rows.
      %m = transform.cast %l2#2 : !transform.any_op to !transform.op<"scf.for">
      %main, %rest = transform.loop.peel %m : (!transform.op<"scf.for">) -> (!transform.any_op, !transform.any_op)
      // N is a multiple of 32 (the lowering marks only such GEMMs): with the
      // loop bounds known, every tile in the main loop is static.
      transform.apply_patterns to OUTER {
        transform.apply_patterns.scf.for_loop_canonicalization
        transform.apply_patterns.canonicalization
      } : !transform.any_op
      %full = transform.structured.match ops{["linalg.generic"]} in %main
          : (!transform.any_op) -> !transform.any_op
      transform.structured.vectorize %full : !transform.any_op
      // The last rows (fewer than 8; all of them for a decoding step's
      // single row): one row at a time, still 32 columns per FMA.
      %tail = transform.structured.match ops{["linalg.generic"]} in %rest
          : (!transform.any_op) -> !transform.any_op
      %row, %rowl = transform.structured.tile_using_for %tail tile_sizes [0, 1]
          : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
      transform.structured.vectorize %row : !transform.any_op
)mlir";

// A GEMM with an element-wise epilogue: the epilogue is tiled by the cache
// tiles' rows and columns and the GEMM fused into that loop nest, so each
// 64 x 256 output tile gets its epilogue while it is still in cache.
// EPILOGUE_TILES defines %te (the epilogue tile) and %t1full (the fused GEMM
// tile, all of K); EPILOGUE_OUTER names the outermost loop.
static constexpr const char *kSerialEpilogueTiles = R"mlir(
      %te, %le:3 = transform.structured.tile_using_for %epi tile_sizes [1, 64, 256]
          : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
      %t1full, %loop = transform.structured.fuse_into_containing_op %gemm into %le#2
          : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)
)mlir";
static constexpr const char *kParallelEpilogueTiles = R"mlir(
      %te0, %forall = transform.structured.tile_using_forall %epi tile_sizes [0, 0, 256]
          : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
      %g0, %fa = transform.structured.fuse_into_containing_op %gemm into %forall
          : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)
      %te, %le:2 = transform.structured.tile_using_for %te0 tile_sizes [1, 64, 0]
          : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
      %t1full, %loop = transform.structured.fuse_into_containing_op %g0 into %le#1
          : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)
)mlir";

static constexpr const char *kSchedule = R"mlir(
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %epis = transform.structured.match ops{["linalg.generic"]} attributes{attune.epilogue} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %epis : !transform.any_op {
    ^bb0(%epi: !transform.any_op):
      %gemm = transform.get_producer_of_operand %epi[0]
          : (!transform.any_op) -> !transform.any_op
      EPILOGUE_TILES
      %t1, %lk = transform.structured.tile_using_for %t1full tile_sizes [0, 0, 0, 128]
          : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
      REGISTER_TILES(EPILOGUE_OUTER)
      // The epilogue: 32 columns of one row at a time.
      %er, %erl:3 = transform.structured.tile_using_for %te tile_sizes [1, 1, 32]
          : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
      transform.structured.vectorize %er vector_sizes [1, 1, 32] : !transform.any_op
    }
    %mm = transform.structured.match ops{["linalg.generic"]} attributes{attune.gemm} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %mm : !transform.any_op {
    ^bb0(%gemm: !transform.any_op):
      CACHE_TILES
      REGISTER_TILES(%l1#0)
    }
    // Tile contractions of attention (static [M, K] x [K, N]): register
    // tiles directly.
    %tg = transform.structured.match ops{["linalg.generic"]} attributes{attune.tile_gemm} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %tg : !transform.any_op {
    ^bb0(%g: !transform.any_op):
      %rt, %rl:3 = transform.structured.tile_using_for %g tile_sizes [8, 32, 1]
          : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
      transform.structured.vectorize %rt : !transform.any_op
    }
    // Static element-wise and row-reduction tile ops: one row at a time.
    %rows = transform.structured.match ops{["linalg.generic"]} attributes{attune.vectorize} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %rows : !transform.any_op {
    ^bb0(%g: !transform.any_op):
      %row, %rowl = transform.structured.tile_using_for %g tile_sizes [1, 0]
          : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
      transform.structured.vectorize %row : !transform.any_op
    }
    %flat = transform.structured.match ops{["linalg.generic"]} attributes{attune.vectorize_1d} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %flat : !transform.any_op {
    ^bb0(%g: !transform.any_op):
      transform.structured.vectorize %g : !transform.any_op
    }
    %funcs = transform.structured.match ops{["func.func"]} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %funcs : !transform.any_op {
    ^bb0(%func: !transform.any_op):
      transform.apply_patterns to %func {
        transform.apply_patterns.vector.reduction_to_contract
        transform.apply_patterns.vector.transfer_permutation_patterns
        transform.apply_patterns.tensor.fold_tensor_subset_ops_into_vector_transfers
        transform.apply_patterns.canonicalization
      } : !transform.any_op
      transform.apply_cse to %func : !transform.any_op
      %loops = transform.structured.match ops{["scf.for"]} in %func
          : (!transform.any_op) -> !transform.any_op
      transform.apply_licm to %loops : !transform.any_op
      // The accumulator tile stays in registers across the k loop.
      transform.loop.hoist_loop_invariant_subsets %loops : !transform.any_op
      // No canonicalization here: it would fold the FMA chain back into
      // element-wise code (shared/TOOLCHAIN.md §2).
      transform.apply_patterns to %func {
        transform.apply_patterns.vector.lower_contraction lowering_strategy = "outerproduct"
        transform.apply_patterns.vector.lower_outerproduct
      } : !transform.any_op
      transform.apply_patterns to %func {
        transform.apply_patterns.vector.lower_multi_reduction lowering_strategy = "innerreduction"
      } : !transform.any_op
    }
    transform.yield
  }
}
)mlir";

namespace {
struct AttuneTileGemmPass
    : mlir::attune::impl::AttuneTileGemmBase<AttuneTileGemmPass> {
  using Base::Base;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    // Transforms of a module without GEMMs are a no-op; skip the parse.
    // The marks the schedule matches.
    const StringRef marks[] = {attune::kGemmAttr, attune::kEpilogueAttr,
                               attune::kTileGemmAttr, attune::kVectorizeAttr,
                               attune::kVectorize1DAttr};
    bool any = false;
    module.walk([&](Operation *op) {
      any |= llvm::any_of(marks, [&](StringRef m) { return op->hasAttr(m); });
    });
    if (!any)
      return;
    std::string text = kSchedule;
    auto expand = [&](StringRef name, StringRef body) {
      for (size_t at; (at = text.find(name.str())) != std::string::npos;)
        text.replace(at, name.size(), body.str());
    };
    auto registerTiles = [](StringRef outer) {
      std::string body = kRegisterTiles;
      size_t at = body.find("OUTER");
      body.replace(at, strlen("OUTER"), outer.str());
      return body;
    };
    expand("CACHE_TILES", parallel ? kParallelCacheTiles : kSerialCacheTiles);
    expand("EPILOGUE_TILES",
           parallel ? kParallelEpilogueTiles : kSerialEpilogueTiles);
    expand("REGISTER_TILES(%l1#0)", registerTiles("%l1#0"));
    expand("REGISTER_TILES(EPILOGUE_OUTER)",
           registerTiles(parallel ? "%forall" : "%le#0"));
    OwningOpRef<ModuleOp> schedule =
        parseSourceString<ModuleOp>(text, &getContext());
    if (!schedule) {
      module.emitError("attune-tile-gemm: the built-in schedule does not parse");
      return signalPassFailure();
    }
    Operation *entry = nullptr;
    schedule->walk([&](transform::NamedSequenceOp seq) {
      if (seq.getSymName() == "__transform_main")
        entry = seq;
    });
    if (!entry ||
        failed(transform::applyTransformNamedSequence(
            module, entry, *schedule, transform::TransformOptions())))
      return signalPassFailure();
    module.walk([&](Operation *op) {
      for (StringRef attr : marks)
        op->removeAttr(attr);
    });
    // The row sums of the vectorized tile ops were written with `reassoc`:
    // keep it on their vector reductions, so that LLVM adds in a tree rather
    // than one lane after another.
    module.walk([](vector::ReductionOp r) {
      if (r.getKind() == vector::CombiningKind::ADD &&
          isa<FloatType>(r.getType()))
        r.setFastmath(r.getFastmath() | arith::FastMathFlags::reassoc);
    });
    // Vector exp (attention's softmax) as a polynomial instead of one libm
    // call per lane.
    RewritePatternSet patterns(&getContext());
    populateMathPolynomialApproximationPatterns(patterns);
    if (failed(applyPatternsGreedily(module, std::move(patterns))))
      return signalPassFailure();
  }
};
} // namespace
