//===- SelectCpuTiling.cpp - the tiling decision of each GEMM -------------===//
//
// attune-select-cpu-tiling decides how each GEMM of the CPU code is tiled
// and writes the decision as a typed attribute (#attune.gemm_tiling) for
// the GEMM passes to read: choosing is separate from applying.
//
// The rule (measured on AVX-512 Xeons and Zen; docs/design.md, "GEMM
// tiling"): weight panels of 64 columns where N allows, else 32; register
// tiles of 4 x 64 (four zmm accumulators per row: 8 loads per 16 FMAs) or
// 8 x 32 (two per row: 10 loads per 16 FMAs); cache tiles of 128 rows x one
// panel x a k tile that keeps the panel's slice at 32 KiB (in L1); parallel
// tiles of 128 x 128. Attention's tile contractions take 4 x 64 register
// tiles where they divide M and N, else 8 x 32.
//
//===----------------------------------------------------------------------===//

#include "lowering/CPU/CpuKernels.h"
#include "lowering/Passes.h"

namespace mlir::attune {
#define GEN_PASS_DEF_ATTUNESELECTCPUTILING
#include "lowering/Passes.h.inc"
} // namespace mlir::attune

using namespace mlir;
using namespace mlir::attune;
using namespace mlir::attune::cpu;

namespace {

constexpr int64_t kCacheRows = 128;
/// Bytes of one panel's k tile (kept in L1).
constexpr int64_t kPanelSliceBytes = 32 << 10;
/// Columns of a parallel tile.
constexpr int64_t kForallColumns = 128;

/// The tiling of a linear layer's GEMM with `n` output columns.
GemmTilingAttr gemmTiling(MLIRContext *ctx, int64_t n) {
  int64_t panel = n % 64 == 0 ? 64 : 32;
  int64_t rows = panel == 64 ? 4 : 8;
  int64_t kTile = kPanelSliceBytes / (panel * int64_t(sizeof(float)));
  return GemmTilingAttr::get(ctx, panel, rows, kTile, kCacheRows,
                             kForallColumns / panel);
}

/// The register tiles of a tile contraction with loop ranges (m, n, k).
GemmTilingAttr tileGemmTiling(MLIRContext *ctx, ArrayRef<int64_t> ranges) {
  bool wide = ranges.size() == 3 && !ShapedType::isDynamic(ranges[0]) &&
              !ShapedType::isDynamic(ranges[1]) && ranges[0] % 4 == 0 &&
              ranges[1] % 64 == 0;
  return wide ? GemmTilingAttr::get(ctx, 64, 4, 0, 0, 0)
              : GemmTilingAttr::get(ctx, 32, 8, 0, 0, 0);
}

struct AttuneSelectCpuTilingPass
    : mlir::attune::impl::AttuneSelectCpuTilingBase<
          AttuneSelectCpuTilingPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    module.walk([&](linalg::GenericOp op) {
      if (op->hasAttr(kTileGemmAttr)) {
        op->setAttr(kTilingAttr,
                    tileGemmTiling(ctx, op.getStaticLoopRanges()));
        return;
      }
      // A linear layer's GEMM, or the epilogue that stands for it.
      linalg::GenericOp gemm;
      if (op->hasAttr(kGemmAttr))
        gemm = op;
      else if (op->hasAttr(kEpilogueAttr))
        gemm = op.getDpsInputs()[0].getDefiningOp<linalg::GenericOp>();
      if (!gemm)
        return;
      auto weights = cast<RankedTensorType>(gemm.getDpsInputs()[1].getType());
      op->setAttr(kTilingAttr, gemmTiling(ctx, weights.getDimSize(1)));
    });
    // Marked ops (of any kind, the transposes too) are work for the kernel
    // schedule.
    bool marked = false;
    module.walk([&](Operation *op) { marked |= hasKernelMark(op); });
    if (marked)
      module->setAttr(kCpuKernelsAttr, UnitAttr::get(ctx));
  }
};

} // namespace
