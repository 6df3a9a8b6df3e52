//===- DataObject.h - constant data as an object file of its own -*- C++ -*-===//
//
// A model's weights are most of its artifact (340 MB for a BERT-base
// encoder). Carried through LLVM as constant arrays they were copied twice
// more and took most of the compile's time and memory; instead the large
// constant globals of the LLVM-dialect module become external declarations,
// and their bytes go straight from the MLIR resource blobs into a small
// ELF relocatable object linked into the library.
//
//===----------------------------------------------------------------------===//

#ifndef ATTUNE_DRIVER_DATAOBJECT_H
#define ATTUNE_DRIVER_DATAOBJECT_H

#include "mlir/IR/BuiltinOps.h"

#include <string>
#include <vector>

namespace mlir::attune::driver {

/// One constant global moved out of the module.
struct DataSymbol {
  std::string name;
  ArrayRef<char> bytes; // alive as long as the MLIR context's blob
  uint64_t alignment;
};

/// Turns every constant `llvm.mlir.global` of `module` with at least
/// `minBytes` bytes of dense data into a hidden, dso_local external
/// declaration and returns its bytes.
std::vector<DataSymbol> extractConstantData(ModuleOp module, size_t minBytes);

/// Writes an x86-64 ELF relocatable object at `path` defining each symbol
/// (global, hidden) in a read-only section. Errors go to stderr.
LogicalResult writeDataObject(StringRef path, ArrayRef<DataSymbol> symbols);

} // namespace mlir::attune::driver

#endif // ATTUNE_DRIVER_DATAOBJECT_H
