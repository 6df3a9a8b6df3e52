//===- Passes.h - attune -> attune passes -----------------------*- C++ -*-===//

#ifndef ATTUNE_PASSES_PASSES_H
#define ATTUNE_PASSES_PASSES_H

#include "dialect/AttuneOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
class RewritePatternSet;

namespace attune {

#define GEN_PASS_DECL
#include "passes/Passes.h.inc"

class SafetensorsFile;

/// Replaces every attune.weight under `root` by a constant from `file`;
/// reports every unknown name, dtype or shape mismatch before failing.
LogicalResult bindWeights(Operation *root, const SafetensorsFile &file);

/// Rewrites of composite ops into primitive attune ops, one per op.
void populateDecomposeMultiHeadAttentionPatterns(RewritePatternSet &patterns);
void populateDecomposeFeedForwardPatterns(RewritePatternSet &patterns);
void populateDecomposeEncoderLayerPatterns(RewritePatternSet &patterns);
void populateDecomposeDecoderLayerPatterns(RewritePatternSet &patterns);
void populateDecomposeSeq2SeqAttentionPatterns(RewritePatternSet &patterns);
/// All of the above: what `--attune-decompose` applies.
void populateAttuneDecomposePatterns(RewritePatternSet &patterns);

#define GEN_PASS_REGISTRATION
#include "passes/Passes.h.inc"

} // namespace attune
} // namespace mlir

#endif // ATTUNE_PASSES_PASSES_H
