//===- AttuneDialect.cpp - The attune dialect -----------------------------===//

#include "dialect/AttuneDialect.h"
#include "dialect/AttuneOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::attune;

#include "dialect/AttuneDialect.cpp.inc"
#include "dialect/AttuneEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "dialect/AttuneAttrs.cpp.inc"

void AttuneDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "dialect/AttuneOps.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "dialect/AttuneAttrs.cpp.inc"
      >();
}
