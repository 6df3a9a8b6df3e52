//===- AttuneDialect.h - The attune dialect ---------------------*- C++ -*-===//

#ifndef ATTUNE_DIALECT_ATTUNEDIALECT_H
#define ATTUNE_DIALECT_ATTUNEDIALECT_H

#include "mlir/IR/Dialect.h"

#include "dialect/AttuneDialect.h.inc"

namespace mlir::attune {
/// A discardable hint on attune.attention: the query tile of
/// --attune-tile-attention is at most this (set where the queries are known
/// to be few, so that a short query extent is padded less).
inline constexpr llvm::StringLiteral kTileQCapAttr = "attune.tile_q_cap";
} // namespace mlir::attune

#endif // ATTUNE_DIALECT_ATTUNEDIALECT_H
