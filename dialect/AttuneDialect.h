//===- AttuneDialect.h - The attune dialect ---------------------*- C++ -*-===//

#ifndef ATTUNE_DIALECT_ATTUNEDIALECT_H
#define ATTUNE_DIALECT_ATTUNEDIALECT_H

#include "mlir/IR/Dialect.h"

#include "dialect/AttuneDialect.h.inc"

// The attributes passes put on the IR for later passes: dialect/Markers.h.
#include "dialect/Markers.h"

namespace mlir::attune {

//===----------------------------------------------------------------------===//
// Attributes a model's author writes on its public functions (verified by
// the dialect; the generation contract is in docs/design.md)
//===----------------------------------------------------------------------===//

/// Argument or result: its name in the artifact (a string).
inline constexpr llvm::StringLiteral kNameAttr = "attune.name";
/// Argument and result: a generation state (a string naming it), written in
/// place: the argument's buffer receives the result, which is no output.
inline constexpr llvm::StringLiteral kStateAttr = "attune.state";
/// Argument of a generation step and result of the generation encoder: a
/// context (a string naming it), computed once per sequence by the encoder
/// and read by every step (an encoder's memory, cross-attention keys).
inline constexpr llvm::StringLiteral kContextAttr = "attune.context";
/// func.func (unit): a generation step, the function the runtime's
/// generation loop calls: (tokens [B, T], positions [B], lengths [B],
/// contexts and states...) -> (logits [B, V], the states in order).
inline constexpr llvm::StringLiteral kGenerationStepAttr =
    "attune.generation_step";
/// func.func (unit): the generation encoder, run once before the steps:
/// (the user's inputs) -> (contexts, each [B, ...]).
inline constexpr llvm::StringLiteral kGenerationEncoderAttr =
    "attune.generation_encoder";

} // namespace mlir::attune

#endif // ATTUNE_DIALECT_ATTUNEDIALECT_H
