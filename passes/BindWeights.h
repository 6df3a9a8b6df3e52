//===- BindWeights.h - attune.weight against a safetensors file -*- C++ -*-===//
//
// Separate from Passes.h: it brings in the runtime's ::attune namespace,
// which makes `attune::` ambiguous under `using namespace mlir`.
//
//===----------------------------------------------------------------------===//

#ifndef ATTUNE_PASSES_BINDWEIGHTS_H
#define ATTUNE_PASSES_BINDWEIGHTS_H

#include "dialect/AttuneOps.h"
#include "attune/safetensors.h"

namespace mlir::attune {

/// Checks that `file` stores `op`'s weight with its exact dtype and shape;
/// on success, `found` (if given) receives the tensor.
LogicalResult checkWeight(WeightOp op, const ::attune::SafetensorsFile &file,
                          const ::attune::SafetensorsTensor **found = nullptr);

/// Replaces every attune.weight under `root` by a constant from `file`;
/// reports every unknown name, dtype or shape mismatch before failing.
/// `borrow`: the constants' blobs are the file's mapping itself, not copies
/// (the file must then outlive every use of the module and its blobs).
LogicalResult bindWeights(Operation *root,
                          const ::attune::SafetensorsFile &file,
                          bool borrow = false);

} // namespace mlir::attune

#endif // ATTUNE_PASSES_BINDWEIGHTS_H
