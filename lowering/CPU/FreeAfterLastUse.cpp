//===- FreeAfterLastUse.cpp - free intermediate buffers as they die -------===//

#include "lowering/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::attune {
#define GEN_PASS_DEF_ATTUNEFREEAFTERLASTUSE
#include "lowering/Passes.h.inc"
} // namespace mlir::attune

using namespace mlir;

/// Whether `a` and `b` are each other's negation: `arith.cmpi` with
/// inverse predicates on the same operands, or one `arith.xori` of the other
/// with true.
static bool negates(Value a, Value b) {
  auto xorTrue = [](Value x, Value y) {
    auto op = x.getDefiningOp<arith::XOrIOp>();
    return op && ((op.getLhs() == y && matchPattern(op.getRhs(), m_One())) ||
                  (op.getRhs() == y && matchPattern(op.getLhs(), m_One())));
  };
  if (xorTrue(a, b) || xorTrue(b, a))
    return true;
  auto ca = a.getDefiningOp<arith::CmpIOp>();
  auto cb = b.getDefiningOp<arith::CmpIOp>();
  return ca && cb && ca.getLhs() == cb.getLhs() && ca.getRhs() == cb.getRhs() &&
         ca.getPredicate() == arith::invertPredicate(cb.getPredicate());
}

/// Whether `dealloc` (of a view of the buffer being followed) frees only a
/// buffer allocated in one branch of an `scf.if`, never the one the other
/// branch yields: the ownership-based deallocation frees a result of
/// `%v = scf.if %d` (the base of its metadata) under `scf.if %c`, where
/// `%c` holds exactly when the branch that yields a fresh `memref.alloc`
/// ran (a tiled attention's operand padded to the tile when its length is
/// not a multiple of it, else the operand itself). Such a dealloc is a use
/// of the followed buffer, not another free of it.
static bool freesOnlyTheOtherBranch(memref::DeallocOp dealloc) {
  auto guard = dyn_cast<scf::IfOp>(dealloc->getParentOp());
  if (!guard || dealloc->getParentRegion() != &guard.getThenRegion())
    return false;
  Value freed = dealloc.getMemref();
  if (auto meta = freed.getDefiningOp<memref::ExtractStridedMetadataOp>())
    freed = meta.getSource();
  auto result = dyn_cast<OpResult>(freed);
  auto yielding = result ? dyn_cast<scf::IfOp>(result.getOwner()) : nullptr;
  if (!yielding || yielding.getElseRegion().empty())
    return false;
  unsigned i = result.getResultNumber();
  auto freshIn = [&](Region &region) {
    Value v = region.front().getTerminator()->getOperand(i);
    auto alloc = v.getDefiningOp<memref::AllocOp>();
    return alloc && alloc->getParentRegion() == &region;
  };
  Value c = guard.getCondition(), d = yielding.getCondition();
  return (freshIn(yielding.getElseRegion()) && negates(c, d)) ||
         (freshIn(yielding.getThenRegion()) && c == d);
}

/// The last op of `block` that uses `buffer` or a view of it (null when the
/// buffer reaches one of the block's terminators, a use outside the block,
/// a dealloc other than `dealloc` that may free it (freesOnlyTheOtherBranch),
/// or an op that takes its address as an integer). Views are, conservatively,
/// every memref an op that uses one returns, the memref block arguments of its
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
      if (isa<memref::ExtractAlignedPointerAsIndexOp>(user))
        return nullptr;
      if (auto other = dyn_cast<memref::DeallocOp>(user);
          other && !freesOnlyTheOtherBranch(other))
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
