//===- TransposeTiles.cpp - transposing copies as 16 x 16 blocks ------------===//
//
// attune-transpose-tiles: copies that transpose their two innermost dims
// (tiled attention's keys) as vectorized 16 x 16 blocks (see
// transposeTiles); the schedule of attune-tile-gemm lowers the in-register
// transposes to shuffles.
//
//===----------------------------------------------------------------------===//

#include "lowering/CPU/CpuKernels.h"
#include "lowering/Passes.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"

namespace mlir::attune {
#define GEN_PASS_DEF_ATTUNETRANSPOSETILES
#include "lowering/Passes.h.inc"
} // namespace mlir::attune

using namespace mlir;
using namespace mlir::attune;
using namespace mlir::attune::cpu;

/// Copies that transpose their two innermost dims (`attune.transpose_tiles`,
/// both multiples of 16): 16 x 16 blocks, each one vector read, an
/// in-register transpose (shuffles, lowered by the schedule) and one vector
/// write. Left to LLVM, the element-wise copy became scatter stores
/// (vscatterqps), ~5 % of a decoding step. With `parallel` the leading dims
/// are an scf.forall.
static void transposeTiles(ModuleOp module, bool parallel) {
  SmallVector<linalg::GenericOp> ops;
  module.walk([&](linalg::GenericOp op) {
    if (op->hasAttr(kTransposeTilesAttr))
      ops.push_back(op);
  });
  IRRewriter rewriter(module.getContext());
  for (linalg::GenericOp op : ops) {
    op->removeAttr(kTransposeTilesAttr);
    unsigned loops = op.getNumLoops();
    SmallVector<int64_t> outer(loops, 1), inner(loops, 0);
    outer[loops - 1] = outer[loops - 2] = 0;
    inner[loops - 1] = inner[loops - 2] = 16;
    for (Operation *rows :
         tileAndReplace(rewriter, op, outer, parallelRows(op, parallel)))
      for (Operation *block : tileAndReplace(rewriter, rows, inner, false))
        vectorizeInPlace(rewriter, block);
  }
}

namespace {
struct AttuneTransposeTilesPass
    : mlir::attune::impl::AttuneTransposeTilesBase<AttuneTransposeTilesPass> {
  using Base::Base;
  void runOnOperation() override { transposeTiles(getOperation(), parallel); }
};
} // namespace
