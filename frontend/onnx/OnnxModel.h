//===- OnnxModel.h - a validated ONNX model in memory -----------*- C++ -*-===//
//
// Reading an ONNX file is where untrusted bytes enter the importer: the
// protobuf, its opset, and the external data files its initializers point
// to. Everything here is checked before the importer sees it; each failure
// is a message naming the file (and the tensor or node) and what was
// expected. No MLIR here: the fuzz target and the importer share it.
//
//===----------------------------------------------------------------------===//

#ifndef ATTUNE_FRONTEND_ONNX_ONNXMODEL_H
#define ATTUNE_FRONTEND_ONNX_ONNXMODEL_H

#include <onnx/onnx_pb.h>

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace attune::onnx_import {

/// The opsets of the default domain the importer knows (torch 1.13 exports
/// 14 by default and up to 17). Models of an older opset, down to
/// kOldestOpset, are read when each of their ops means at that opset what
/// it means at 14 (opsetSemanticsSince, checked per node at import).
inline constexpr int64_t kMinOpset = 14;
inline constexpr int64_t kMaxOpset = 17;
inline constexpr int64_t kOldestOpset = 7;

/// The oldest opset at which `op` has the semantics the importer
/// implements (the version its meaning last changed), or kMinOpset for an
/// op not in the table.
int64_t opsetSemanticsSince(llvm::StringRef op);

/// The ONNX element types the importer reads, with their sizes; the one
/// table of them (names as in ONNX's TensorProto.DataType).
struct ElementTypeInfo {
  int32_t onnxType;
  const char *name;
  size_t size;
};
/// The row of `onnxType`, or null for a type the importer does not read
/// (string, complex, unsigned wider than 8 bits).
const ElementTypeInfo *elementTypeInfo(int32_t onnxType);
/// "FLOAT", "INT64", ..., or "type N" for unknown values.
std::string elementTypeName(int32_t onnxType);

/// A tensor whose values are known at import time: an initializer, a
/// Constant, or something computed from them. The bytes are little-endian,
/// row-major, shared (a copy of a HostTensor is cheap).
struct HostTensor {
  int32_t type = onnx::TensorProto::FLOAT;
  std::vector<int64_t> shape;
  std::shared_ptr<const std::string> bytes; // owned bytes

  int64_t numElements() const;
  const char *data() const { return bytes ? bytes->data() : nullptr; }
  bool isFloat() const;
  bool isInteger() const; // integers and bool
  /// Element `i` converted to double / int64 (any numeric type).
  double asDouble(int64_t i) const;
  int64_t asInt(int64_t i) const;

  static HostTensor fromFloats(std::vector<int64_t> shape,
                               const std::vector<float> &values);
  static HostTensor fromInts(std::vector<int64_t> shape,
                             const std::vector<int64_t> &values);
};

/// A model read from disk: the protobuf, its file, the default-domain
/// opset, and every initializer's values (external data resolved).
struct OnnxModel {
  onnx::ModelProto proto;
  std::string path;   // as given
  std::string folder; // where external data is looked up
  int64_t opset = 0;
  std::map<std::string, HostTensor> initializers;

  const onnx::GraphProto &graph() const { return proto.graph(); }
};

/// Reads and validates `path`: the protobuf parses, it is an ONNX model
/// with a graph and outputs, its default-domain opset is in
/// [kOldestOpset, kMaxOpset] and no other domain is imported, and every
/// initializer's data is present (inline or in an external file inside the
/// model's folder) with the size its shape and type need.
llvm::Expected<std::unique_ptr<OnnxModel>> readOnnxModel(llvm::StringRef path);

/// The same over bytes in memory (external data relative to `folder`).
llvm::Expected<std::unique_ptr<OnnxModel>>
parseOnnxModel(llvm::StringRef bytes, llvm::StringRef name,
               llvm::StringRef folder);

/// The values of a TensorProto (an initializer or a Constant's `value`),
/// with external data resolved against `model`'s folder; `what` names the
/// tensor in messages. With `take`, raw data move out of `*take` (the same
/// tensor, owned by the caller) instead of being copied.
llvm::Expected<HostTensor> readTensor(const onnx::TensorProto &tensor,
                                      const OnnxModel &model,
                                      llvm::StringRef what,
                                      onnx::TensorProto *take = nullptr);

} // namespace attune::onnx_import

#endif // ATTUNE_FRONTEND_ONNX_ONNXMODEL_H
