//===- AttuneDialect.cpp - The attune dialect -----------------------------===//

#include "dialect/AttuneDialect.h"
#include "dialect/AttuneOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::attune;

#include "dialect/AttuneDialect.cpp.inc"
#include "dialect/AttuneEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "dialect/AttuneAttrs.cpp.inc"

LogicalResult
GemmTilingAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                       int64_t panel, int64_t rows, int64_t kTile,
                       int64_t cacheRows, int64_t forallPanels) {
  if (panel <= 0 || rows <= 0)
    return emitError() << "panel and rows must be positive, got panel = "
                       << panel << ", rows = " << rows;
  if (kTile < 0 || cacheRows < 0 || forallPanels < 0)
    return emitError() << "k_tile, cache_rows and forall_panels must not be "
                          "negative";
  if (cacheRows % rows != 0)
    return emitError() << "cache_rows (" << cacheRows
                       << ") must be a multiple of rows (" << rows << ")";
  return success();
}

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

/// Folded constants (attune.cast of a constant) are arith.constants.
Operation *AttuneDialect::materializeConstant(OpBuilder &builder,
                                              Attribute value, Type type,
                                              Location loc) {
  auto typed = dyn_cast<TypedAttr>(value);
  if (!typed || typed.getType() != type)
    return nullptr;
  return arith::ConstantOp::create(builder, loc, type, typed);
}
