//===- Safetensors.h - read safetensors files -------------------*- C++ -*-===//
//
// The safetensors format: an 8-byte little-endian header length N, N bytes of
// JSON mapping tensor names to {dtype, shape, data_offsets}, then the data.
// Everything is validated: a truncated or inconsistent file is an error that
// names the file and the tensor.
//
//===----------------------------------------------------------------------===//

#ifndef ATTUNE_PASSES_SAFETENSORS_H
#define ATTUNE_PASSES_SAFETENSORS_H

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <memory>
#include <string>
#include <vector>

namespace mlir::attune {

struct SafetensorsEntry {
  std::string dtype; // "F32", "F16", "BF16", "I64", ...
  std::vector<int64_t> shape;
  llvm::ArrayRef<char> data;
};

class SafetensorsFile {
public:
  /// Maps and validates `path`.
  static llvm::Expected<SafetensorsFile> open(llvm::StringRef path);

  const SafetensorsEntry *lookup(llvm::StringRef name) const;
  /// Tensor names, sorted.
  std::vector<std::string> names() const;
  llvm::StringRef path() const { return filePath; }

  /// Bytes per element of a safetensors dtype, or 0 if unknown.
  static size_t elementSize(llvm::StringRef dtype);

private:
  std::string filePath;
  std::unique_ptr<llvm::MemoryBuffer> buffer;
  llvm::StringMap<SafetensorsEntry> entries;
};

} // namespace mlir::attune

#endif // ATTUNE_PASSES_SAFETENSORS_H
