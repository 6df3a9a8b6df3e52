//===- FreeAfterLastUse.cpp - free intermediate buffers as they die -------===//

#include "lowering/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::attune {
#define GEN_PASS_DEF_ATTUNEFREEAFTERLASTUSE
#include "lowering/Passes.h.inc"
} // namespace mlir::attune

using namespace mlir;

/// The last op of `block` that uses `buffer` or a view of it (null when the
/// buffer reaches one of the block's terminators, a use outside the block,
/// a dealloc other than `dealloc`, or an op that takes its address as an
/// integer). Views are, conservatively, every
/// memref an op that uses one returns, the memref block arguments of its
/// regions (loop iter_args), and the memref results of the op whose region
/// yields one.
static Operation *lastUseInBlock(Value buffer, Block &block,
                                 memref::DeallocOp dealloc) {
  llvm::SetVector<Value> views;
  views.insert(buffer);
  Operation *last = buffer.getDefiningOp();
  auto addMemrefs = [&](auto values) {
    for (Value v : values)
      if (isa<BaseMemRefType>(v.getType()))
        views.insert(v);
  };
  // An op's memref results and its regions' memref block arguments.
  auto addViewsOf = [&](Operation *op) {
    addMemrefs(op->getResults());
    for (Region &region : op->getRegions())
      for (Block &b : region)
        addMemrefs(b.getArguments());
  };
  for (size_t i = 0; i < views.size(); ++i) {
    for (OpOperand &use : views[i].getUses()) {
      Operation *user = use.getOwner();
      if (user == dealloc.getOperation())
        continue;
      // Another dealloc of it, or its address taken as an integer (which
      // this pass cannot follow): leave the dealloc where it is.
      if (isa<memref::DeallocOp, memref::ExtractAlignedPointerAsIndexOp>(user))
        return nullptr;
      Operation *ancestor = block.findAncestorOpInBlock(*user);
      if (!ancestor || (user->hasTrait<OpTrait::IsTerminator>() &&
                        user->getBlock() == &block))
        return nullptr;
      if (last->isBeforeInBlock(ancestor))
        last = ancestor;
      addViewsOf(user);
      if (user->hasTrait<OpTrait::IsTerminator>())
        if (Operation *parent = user->getParentOp())
          addViewsOf(parent);
    }
  }
  return last;
}

namespace {
struct AttuneFreeAfterLastUsePass
    : mlir::attune::impl::AttuneFreeAfterLastUseBase<
          AttuneFreeAfterLastUsePass> {
  void runOnOperation() override {
    for (Block &block : getOperation().getBody()) {
      SmallVector<memref::DeallocOp> deallocs(
          block.getOps<memref::DeallocOp>());
      for (memref::DeallocOp dealloc : deallocs) {
        Value buffer = dealloc.getMemref();
        // Only whole buffers allocated in this block (not a view of one).
        auto def = buffer.getDefiningOp<memref::AllocOp>();
        if (!def || def->getBlock() != &block)
          continue;
        if (Operation *last = lastUseInBlock(buffer, block, dealloc))
          dealloc->moveAfter(last);
      }
    }
  }
};
} // namespace
