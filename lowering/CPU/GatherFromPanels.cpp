//===- GatherFromPanels.cpp - gathers read a table's packed panels ---------===//
//
// attune-gather-from-panels: a constant table gathered by an embedding and
// also packed into GEMM panels (a tied LM head) is gathered from the panels,
// so the artifact carries it once.
//
//===----------------------------------------------------------------------===//

#include "lowering/Passes.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <cstring>

namespace mlir::attune {
#define GEN_PASS_DEF_ATTUNEGATHERFROMPANELS
#include "lowering/Passes.h.inc"
} // namespace mlir::attune

using namespace mlir;

namespace {

/// Whether `panels` [ceil(V/W), D, W] holds `table` [V, D] packed:
/// panels[nb, k, r] = table[nb W + r, k], zero past V (f32 both).
bool packs(arith::ConstantOp panels, arith::ConstantOp table) {
  auto pt = cast<RankedTensorType>(panels.getType());
  auto tt = cast<RankedTensorType>(table.getType());
  if (!pt.getElementType().isF32() || !tt.getElementType().isF32() ||
      pt.getRank() != 3 || tt.getRank() != 2)
    return false;
  int64_t v = tt.getDimSize(0), d = tt.getDimSize(1);
  int64_t w = pt.getDimSize(2);
  if (w < 1 || pt.getDimSize(0) != (v + w - 1) / w || pt.getDimSize(1) != d)
    return false;
  std::optional<ArrayRef<char>> pb = attune::constantData(panels),
                                tb = attune::constantData(table);
  if (!pb || !tb)
    return false;
  const float *p = reinterpret_cast<const float *>(pb->data());
  const float *t = reinterpret_cast<const float *>(tb->data());
  for (int64_t nb = 0; nb < pt.getDimSize(0); ++nb)
    for (int64_t k = 0; k < d; ++k)
      for (int64_t r = 0; r < w; ++r) {
        int64_t row = nb * w + r;
        float expected = row < v ? t[row * d + k] : 0.0f;
        float got = p[(nb * d + k) * w + r];
        if (std::memcmp(&expected, &got, sizeof(float)) != 0)
          return false;
      }
  return true;
}

struct AttuneGatherFromPanelsPass
    : mlir::attune::impl::AttuneGatherFromPanelsBase<
          AttuneGatherFromPanelsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    // Tables gathered by element (every use a 2-index tensor.extract), and
    // the 3-D constants that may be panels.
    SmallVector<arith::ConstantOp> tables, candidates;
    module.walk([&](arith::ConstantOp cst) {
      auto type = dyn_cast<RankedTensorType>(cst.getType());
      if (!type || !type.getElementType().isF32())
        return;
      if (type.getRank() == 3)
        candidates.push_back(cst);
      else if (type.getRank() == 2 && !cst->use_empty() &&
               llvm::all_of(cst->getUsers(), [](Operation *user) {
                 return isa<tensor::ExtractOp>(user);
               }))
        tables.push_back(cst);
    });
    for (arith::ConstantOp table : tables) {
      arith::ConstantOp panels;
      for (arith::ConstantOp c : candidates)
        if (packs(c, table)) {
          panels = c;
          break;
        }
      if (!panels)
        continue;
      int64_t width = cast<RankedTensorType>(panels.getType()).getDimSize(2);
      // The panels as a constant at the entry of each reading function (a
      // clone shares the data), so that it dominates every gather.
      llvm::DenseMap<Operation *, Value> entry;
      for (Operation *user : llvm::make_early_inc_range(table->getUsers())) {
        auto extract = cast<tensor::ExtractOp>(user);
        auto func = extract->getParentOfType<func::FuncOp>();
        Value &p = entry[func];
        if (!p) {
          OpBuilder fb = OpBuilder::atBlockBegin(&func.getBody().front());
          p = fb.clone(*panels)->getResult(0);
        }
        OpBuilder b(extract);
        Location loc = extract.getLoc();
        Value i = extract.getIndices()[0], j = extract.getIndices()[1];
        Value w = arith::ConstantIndexOp::create(b, loc, width);
        Value nb = arith::DivUIOp::create(b, loc, i, w);
        Value r = arith::RemUIOp::create(b, loc, i, w);
        Value x = tensor::ExtractOp::create(b, loc, p, ValueRange{nb, j, r});
        extract.replaceAllUsesWith(x);
        extract.erase();
      }
      table.erase();
    }
  }
};

} // namespace
