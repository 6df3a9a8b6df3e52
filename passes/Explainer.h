//===- Explainer.h - remarks on fusion decisions ----------------*- C++ -*-===//

#ifndef ATTUNE_PASSES_EXPLAINER_H
#define ATTUNE_PASSES_EXPLAINER_H

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Operation.h"

namespace mlir::attune {

/// Reports a fusion or a rejection as a remark when `explain` is set.
struct Explainer {
  bool enabled;
  void operator()(Operation *op, const Twine &message) const {
    if (enabled)
      emitRemark(op->getLoc(), message);
  }
};

} // namespace mlir::attune

#endif // ATTUNE_PASSES_EXPLAINER_H
