//===- attune/safetensors.h - the one safetensors reader --------*- C++ -*-===//
//
// The safetensors format: an 8-byte little-endian header length N, N bytes of
// JSON mapping tensor names to {dtype, shape, data_offsets} (plus an optional
// "__metadata__" object), then the data. Everything is validated before a
// file is handed out: a truncated or inconsistent file is an error naming the
// file and the tensor. Used by attune-compile (binding weights) and by the
// runtime (--weights-external); C++17, no MLIR or LLVM.
//
//===----------------------------------------------------------------------===//

#ifndef ATTUNE_SAFETENSORS_H
#define ATTUNE_SAFETENSORS_H

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace attune {

struct SafetensorsTensor {
  std::string dtype; // "F32", "F16", "BF16", "I64", ...
  std::vector<int64_t> shape;
  const char *data = nullptr; // inside the file's mapping
  size_t bytes = 0;
};

class SafetensorsFile {
public:
  /// Maps and validates `path`; null with `error` set ("PATH: what") on
  /// failure.
  static std::unique_ptr<SafetensorsFile> open(const std::string &path,
                                               std::string &error);
  /// Validates `size` bytes at `bytes`, which must outlive the result;
  /// `name` stands for the file in messages.
  static std::unique_ptr<SafetensorsFile>
  fromBytes(const char *bytes, size_t size, const std::string &name,
            std::string &error);
  ~SafetensorsFile();
  SafetensorsFile(const SafetensorsFile &) = delete;
  SafetensorsFile &operator=(const SafetensorsFile &) = delete;

  /// The tensor named `name`, or null.
  const SafetensorsTensor *find(const std::string &name) const;
  /// Tensor names, sorted.
  std::vector<std::string> names() const;
  const std::string &path() const { return filePath; }

private:
  SafetensorsFile() = default;
  std::string filePath;
  void *mapping = nullptr; // munmap'ed by the destructor
  size_t mappingSize = 0;
  std::map<std::string, SafetensorsTensor> tensors;
};

/// One tensor to write: `bytes` bytes at `data`, little-endian row-major.
struct SafetensorsEntry {
  std::string name;
  std::string dtype; // "F32", ... (artifact.h's table)
  std::vector<int64_t> shape;
  const char *data = nullptr;
  size_t bytes = 0;
};

/// Writes `entries` (in order, names unique) as a safetensors file at
/// `path`: into a temporary file beside it, renamed into place once
/// complete, so a failure never leaves a partial file. False with `error`
/// set ("PATH: what") on failure.
bool writeSafetensors(const std::string &path,
                      const std::vector<SafetensorsEntry> &entries,
                      std::string &error);

} // namespace attune

#endif // ATTUNE_SAFETENSORS_H
