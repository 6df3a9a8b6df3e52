//===- PackProjections.cpp - linears of one input as one GEMM ---------------===//
//
// attune-pack-projections turns linear layers that read the same input (Q,
// K and V projections written separately) into one GEMM over the
// concatenated weights, sliced afterwards; with `explain`, each packing and
// each rejected candidate is a remark.
//
//===----------------------------------------------------------------------===//

#include "passes/Explainer.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Matchers.h"

namespace mlir::attune {
#define GEN_PASS_DEF_ATTUNEPACKPROJECTIONS
#include "passes/Passes.h.inc"
} // namespace mlir::attune

using namespace mlir;
using namespace mlir::attune;

namespace {

/// Why `w` cannot be packed, or empty.
std::string unpackableReason(Value w) {
  if (constantBytes(w))
    return {};
  if (w.getDefiningOp<WeightOp>())
    return "the weights are not bound yet (packing runs on constants, after "
           "attune-bind-weights)";
  if (w.getDefiningOp<arith::ConstantOp>())
    return "a weight is a constant whose data cannot be read";
  return "a weight is not a compile-time constant (weights loaded at run "
         "time would be copied on every run)";
}

/// A [rows..., cols] constant concatenating `parts` along dim 0 (bytes of
/// equal row width); a null part is that many rows of zeros.
Value concatConstant(OpBuilder &b, Location loc, RankedTensorType type,
                     ArrayRef<std::pair<Value, int64_t>> parts,
                     StringRef name) {
  size_t width = type.getElementTypeBitWidth() / 8;
  size_t rowBytes = width * (type.getRank() == 2 ? type.getDimSize(1) : 1);
  std::vector<char> bytes;
  bytes.reserve(type.getNumElements() * width);
  for (auto [v, rows] : parts) {
    if (!v) {
      bytes.insert(bytes.end(), rows * rowBytes, 0);
      continue;
    }
    std::vector<char> data = *constantBytes(v);
    bytes.insert(bytes.end(), data.begin(), data.end());
  }
  auto attr = DenseResourceElementsAttr::get(
      type, name,
      HeapAsmResourceBlob::allocateAndCopyWithAlign(bytes, alignof(double)));
  return arith::ConstantOp::create(b, loc, type, attr);
}

void packGroup(ArrayRef<LinearOp> group, const Explainer &explain) {
  for (LinearOp l : group) {
    if (l.getActivation())
      return explain(l, "not packed with the other projections of its input: "
                        "it has an activation");
    if (std::string why = unpackableReason(l.getWeight()); !why.empty())
      return explain(l, "not packed with the other projections of its "
                        "input: " + why);
    if (l.getBias() && !constantBytes(l.getBias()))
      return explain(l, "not packed with the other projections of its "
                        "input: its bias is not a compile-time constant");
  }
  LinearOp first = group.front();
  for (LinearOp l : group)
    if (l->isBeforeInBlock(first))
      first = l;
  auto wType = cast<RankedTensorType>(first.getWeight().getType());
  Type elem = wType.getElementType();
  int64_t in = wType.getDimSize(1), total = 0;
  bool anyBias = false;
  SmallVector<std::pair<Value, int64_t>> weights, biases;
  SmallVector<std::string> names;
  SmallVector<Location> locs;
  for (LinearOp l : group) {
    int64_t out = cast<RankedTensorType>(l.getWeight().getType()).getDimSize(0);
    total += out;
    anyBias |= static_cast<bool>(l.getBias());
    weights.push_back({l.getWeight(), out});
    biases.push_back({l.getBias(), out});
    names.push_back(constantKey(l.getWeight(), "projection"));
    locs.push_back(l.getLoc());
  }
  OpBuilder b(first);
  Location loc = b.getFusedLoc(locs);
  std::string name = llvm::join(names, "+");
  Value w = concatConstant(b, loc, RankedTensorType::get({total, in}, elem),
                           weights, name);
  Value bias = anyBias ? concatConstant(b, loc, RankedTensorType::get({total}, elem),
                                        biases, name + ".bias")
                       : Value();
  auto packed = LinearOp::create(b, loc, first.getInput(), w, bias,
                                 /*activation=*/nullptr);
  // All slices first: the builder inserts before `first`, erased below.
  int64_t axis = packed.getType().getRank() - 1, offset = 0;
  SmallVector<Value> parts;
  for (LinearOp l : group) {
    int64_t out = l.getType().getShape().back();
    parts.push_back(SliceOp::create(b, l.getLoc(), packed, axis, offset, out));
    offset += out;
  }
  for (auto [l, part] : llvm::zip_equal(group, parts)) {
    Operation *op = l;
    op->replaceAllUsesWith(ValueRange{part});
    op->erase();
  }
  explain(packed, "packed " + Twine(group.size()) +
                      " projections of one input into one GEMM (" +
                      Twine(total) + " output features)");
}

struct AttunePackProjectionsPass
    : mlir::attune::impl::AttunePackProjectionsBase<AttunePackProjectionsPass> {
  using Base::Base;
  void runOnOperation() override {
    Explainer explainer{explain};
    // Groups of linears in one block reading one input, in program order.
    llvm::MapVector<std::pair<Value, Block *>, SmallVector<LinearOp>> groups;
    getOperation()->walk([&](LinearOp op) {
      groups[{op.getInput(), op->getBlock()}].push_back(op);
    });
    for (auto &[key, group] : groups)
      if (group.size() > 1)
        packGroup(group, explainer);
  }
};

} // namespace
