//===- Weights.h - loading external weights ---------------------*- C++ -*-===//

#ifndef ATTUNE_RUNTIME_CORE_WEIGHTS_H
#define ATTUNE_RUNTIME_CORE_WEIGHTS_H

#include "Internal.h"
#include "attune/artifact.h"

namespace attune::runtime {

/// Fills the weight globals of `library` from the safetensors `file` (the
/// weights of `meta`, all checked before any is read), running each of the
/// library's weight preparations (Metadata::preparations) right after its
/// weights are read and releasing the memory of the weights only
/// preparations read before the next. Safe to call again for the same
/// library (a second open) with the same file.
attune_status *loadExternalWeights(void *library, const std::string &modelPath,
                                   const artifact::Metadata &meta,
                                   const std::string &file);
/// Undoes one loadExternalWeights (on close).
void releaseExternalWeights(void *library);

} // namespace attune::runtime

#endif // ATTUNE_RUNTIME_CORE_WEIGHTS_H
