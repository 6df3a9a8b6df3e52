//===- AttuneToLinalg.h - attune -> linalg on tensors -----------*- C++ -*-===//

#ifndef ATTUNE_LOWERING_ATTUNETOLINALG_ATTUNETOLINALG_H
#define ATTUNE_LOWERING_ATTUNETOLINALG_ATTUNETOLINALG_H

namespace mlir {
class RewritePatternSet;
namespace attune {

/// Patterns lowering every primitive attune op except `attune.weight` to
/// linalg on tensors (with tensor, arith, math and scf).
void populateAttuneToLinalgConversionPatterns(RewritePatternSet &patterns);

/// The recurrent ops and cells (part of the above): `scf.for` over time with
/// the state carried, rolled.
void populateRecurrentToLinalgConversionPatterns(RewritePatternSet &patterns);

} // namespace attune
} // namespace mlir

#endif // ATTUNE_LOWERING_ATTUNETOLINALG_ATTUNETOLINALG_H
