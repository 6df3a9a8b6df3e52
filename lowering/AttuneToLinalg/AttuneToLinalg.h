//===- AttuneToLinalg.h - attune -> linalg on tensors -----------*- C++ -*-===//

#ifndef ATTUNE_LOWERING_ATTUNETOLINALG_ATTUNETOLINALG_H
#define ATTUNE_LOWERING_ATTUNETOLINALG_ATTUNETOLINALG_H

namespace mlir {
class RewritePatternSet;
namespace attune {

/// Patterns lowering every primitive attune op except `attune.weight` to
/// linalg on tensors (with tensor, arith, math and scf). `checkIndices`:
/// embedding ids outside the table fail the run (a located run-time error)
/// instead of giving zero rows; it needs code that reads the ids on the
/// host, so the Vulkan pipeline leaves it off.
void populateAttuneToLinalgConversionPatterns(RewritePatternSet &patterns,
                                              bool checkIndices = false);

/// The recurrent ops and cells (part of the above): `scf.for` over time with
/// the state carried, rolled.
void populateRecurrentToLinalgConversionPatterns(RewritePatternSet &patterns);

} // namespace attune
} // namespace mlir

#endif // ATTUNE_LOWERING_ATTUNETOLINALG_ATTUNETOLINALG_H
