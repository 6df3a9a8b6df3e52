//===- Weights.h - loading external weights ---------------------*- C++ -*-===//

#ifndef ATTUNE_RUNTIME_CORE_WEIGHTS_H
#define ATTUNE_RUNTIME_CORE_WEIGHTS_H

#include "Internal.h"
#include "attune/artifact.h"

namespace attune::runtime {

/// Fills the weight globals of `library` from the safetensors `file`. Safe to
/// call again for the same library (a second open) with the same file.
attune_status *loadExternalWeights(
    void *library, const std::string &modelPath,
    const std::vector<artifact::WeightSpec> &weights, const std::string &file);
/// Undoes one loadExternalWeights (on close).
void releaseExternalWeights(void *library);

} // namespace attune::runtime

#endif // ATTUNE_RUNTIME_CORE_WEIGHTS_H
