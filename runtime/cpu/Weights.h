//===- Weights.h - loading external weights ---------------------*- C++ -*-===//

#ifndef ATTUNE_RUNTIME_CPU_WEIGHTS_H
#define ATTUNE_RUNTIME_CPU_WEIGHTS_H

#include "Internal.h"

namespace attune::runtime {

struct ExternalWeight {
  std::string symbol, name;
  attune_dtype dtype;
  std::vector<int64_t> shape;
};

/// Fills the weight globals of `library` from the safetensors `file`. Safe to
/// call again for the same library (a second open) with the same file.
attune_status *loadExternalWeights(void *library, const std::string &modelPath,
                                   const std::vector<ExternalWeight> &weights,
                                   const std::string &file);
/// Undoes one loadExternalWeights (on close).
void releaseExternalWeights(void *library);

} // namespace attune::runtime

#endif // ATTUNE_RUNTIME_CPU_WEIGHTS_H
