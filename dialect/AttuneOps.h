//===- AttuneOps.h - attune operations and attributes -----------*- C++ -*-===//

#ifndef ATTUNE_DIALECT_ATTUNEOPS_H
#define ATTUNE_DIALECT_ATTUNEOPS_H

#include "dialect/AttuneDialect.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "dialect/AttuneEnums.h.inc"

#include <vector>

namespace mlir::attune {
/// The elements of `bytes` (of float type `from`, little-endian) converted
/// to `to`, rounding to nearest even: what attune.cast computes, for
/// weights converted at compile time.
std::vector<char> convertFloatData(ArrayRef<char> bytes, FloatType from,
                                   FloatType to);

/// Fails with a diagnostic naming the first discardable attribute of `op`
/// whose name has no dialect prefix; `known` lists the inherent attributes.
LogicalResult verifyNoUnknownAttributes(Operation *op,
                                        ArrayRef<StringRef> known);

namespace OpTrait {
template <typename ConcreteType>
class NoUnknownAttributes
    : public ::mlir::OpTrait::TraitBase<ConcreteType, NoUnknownAttributes> {
public:
  static LogicalResult verifyTrait(Operation *op) {
    return verifyNoUnknownAttributes(op, ConcreteType::getAttributeNames());
  }
};
} // namespace OpTrait
} // namespace mlir::attune

#define GET_ATTRDEF_CLASSES
#include "dialect/AttuneAttrs.h.inc"

#define GET_OP_CLASSES
#include "dialect/AttuneOps.h.inc"

#endif // ATTUNE_DIALECT_ATTUNEOPS_H
