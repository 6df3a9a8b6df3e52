//===- AttuneDialect.h - The attune dialect ---------------------*- C++ -*-===//

#ifndef ATTUNE_DIALECT_ATTUNEDIALECT_H
#define ATTUNE_DIALECT_ATTUNEDIALECT_H

#include "mlir/IR/Dialect.h"

#include "dialect/AttuneDialect.h.inc"

// The attributes passes put on the IR for later passes: dialect/Markers.h.
#include "dialect/Markers.h"

#endif // ATTUNE_DIALECT_ATTUNEDIALECT_H
