//===- OnnxModel.cpp - reading and validating an ONNX file ----------------===//

#include "frontend/onnx/OnnxModel.h"

#include "attune/artifact.h"

#include <google/protobuf/io/coded_stream.h>

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <climits>
#include <cstring>

using llvm::StringRef;

namespace attune::onnx_import {

namespace {

constexpr ElementTypeInfo kElementTypes[] = {
    {onnx::TensorProto::FLOAT, "FLOAT", 4},
    {onnx::TensorProto::FLOAT16, "FLOAT16", 2},
    {onnx::TensorProto::BFLOAT16, "BFLOAT16", 2},
    {onnx::TensorProto::DOUBLE, "DOUBLE", 8},
    {onnx::TensorProto::INT64, "INT64", 8},
    {onnx::TensorProto::INT32, "INT32", 4},
    {onnx::TensorProto::INT16, "INT16", 2},
    {onnx::TensorProto::INT8, "INT8", 1},
    {onnx::TensorProto::UINT8, "UINT8", 1},
    {onnx::TensorProto::BOOL, "BOOL", 1},
};

llvm::Error fail(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

template <typename T> T load(const char *p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

/// True if `location` names a file inside the model's folder: relative, no
/// `..` component, not empty.
bool isInsideFolder(StringRef location) {
  if (location.empty() || llvm::sys::path::is_absolute(location) ||
      location.starts_with("/") || location.starts_with("\\"))
    return false;
  for (StringRef part : llvm::make_range(llvm::sys::path::begin(location),
                                         llvm::sys::path::end(location)))
    if (part == "..")
      return false;
  return true;
}

llvm::Expected<int64_t> parseCount(StringRef text, StringRef key,
                                   StringRef what) {
  uint64_t v;
  if (text.getAsInteger(10, v) || v > uint64_t(INT64_MAX))
    return fail(what + ": external data " + key + " '" + text +
                "' is not a non-negative integer");
  return int64_t(v);
}

} // namespace

int64_t opsetSemanticsSince(StringRef op) {
  // The version of each op whose meaning the importer implements: where a
  // later version only added types or an attribute whose default keeps the
  // old meaning (Reshape's allowzero, LSTM's layout, Shape's start/end),
  // the older one counts.
  static const llvm::StringMap<int64_t> since = {
      {"Add", 7},          {"Sub", 7},
      {"Mul", 7},          {"Div", 7},
      {"Relu", 6},         {"Tanh", 6},
      {"Sigmoid", 6},      {"Erf", 9},
      {"Sqrt", 6},         {"Pow", 7},
      {"MatMul", 9},       {"Gemm", 11},
      {"Softmax", 13},     {"Transpose", 1},
      {"Slice", 10},       {"Unsqueeze", 13},
      {"Squeeze", 13},     {"Split", 13},
      {"Concat", 4},       {"Gather", 1},
      {"Cast", 6},         {"Identity", 1},
      {"Constant", 12},    {"ConstantOfShape", 9},
      {"Shape", 1},        {"Reshape", 5},
      {"LSTM", 7},         {"GRU", 7},
      {"Trilu", 14},       {"Where", 9},
      {"ReduceMean", 1},   {"Range", 11},
      {"Expand", 8},       {"LayerNormalization", 17},
      {"Exp", 6},          {"Log", 6},
      {"Neg", 6},          {"Abs", 6},
      {"Reciprocal", 6},   {"Max", 8},
      {"Min", 8},          {"Equal", 7},
      {"Less", 7},         {"Greater", 7},
      {"LessOrEqual", 12}, {"GreaterOrEqual", 12},
      {"ReduceSum", 13},   {"ReduceMax", 1},
      {"ReduceMin", 1},    {"ReduceProd", 1},
  };
  auto it = since.find(op);
  return it == since.end() ? kMinOpset : it->second;
}

const ElementTypeInfo *elementTypeInfo(int32_t type) {
  for (const ElementTypeInfo &row : kElementTypes)
    if (row.onnxType == type)
      return &row;
  return nullptr;
}

std::string elementTypeName(int32_t type) {
  if (onnx::TensorProto::DataType_IsValid(type))
    return onnx::TensorProto::DataType_Name(
        static_cast<onnx::TensorProto::DataType>(type));
  return "type " + std::to_string(type);
}

int64_t HostTensor::numElements() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

bool HostTensor::isFloat() const {
  return type == onnx::TensorProto::FLOAT ||
         type == onnx::TensorProto::FLOAT16 ||
         type == onnx::TensorProto::BFLOAT16 ||
         type == onnx::TensorProto::DOUBLE;
}

bool HostTensor::isInteger() const { return !isFloat(); }

double HostTensor::asDouble(int64_t i) const {
  const char *p = data();
  switch (type) {
  case onnx::TensorProto::FLOAT:
    return load<float>(p + 4 * i);
  case onnx::TensorProto::DOUBLE:
    return load<double>(p + 8 * i);
  case onnx::TensorProto::FLOAT16:
    return ::attune::artifact::halfToFloat(load<uint16_t>(p + 2 * i));
  case onnx::TensorProto::BFLOAT16:
    return ::attune::artifact::bf16ToFloat(load<uint16_t>(p + 2 * i));
  default:
    return double(asInt(i));
  }
}

int64_t HostTensor::asInt(int64_t i) const {
  const char *p = data();
  switch (type) {
  case onnx::TensorProto::INT64:
    return load<int64_t>(p + 8 * i);
  case onnx::TensorProto::INT32:
    return load<int32_t>(p + 4 * i);
  case onnx::TensorProto::INT16:
    return load<int16_t>(p + 2 * i);
  case onnx::TensorProto::INT8:
    return load<int8_t>(p + i);
  case onnx::TensorProto::UINT8:
  case onnx::TensorProto::BOOL:
    return load<uint8_t>(p + i);
  default:
    return int64_t(asDouble(i));
  }
}

/// A tensor of `type` holding `values` (of that type's C++ type).
template <typename T>
static HostTensor hostTensorOf(int32_t type, std::vector<int64_t> shape,
                               const std::vector<T> &values) {
  HostTensor t;
  t.type = type;
  t.shape = std::move(shape);
  auto bytes = std::make_shared<std::string>(values.size() * sizeof(T), '\0');
  if (!values.empty()) // (no null pointers to memcpy, even for 0 bytes)
    std::memcpy(bytes->data(), values.data(), bytes->size());
  t.bytes = std::move(bytes);
  return t;
}

HostTensor HostTensor::fromFloats(std::vector<int64_t> shape,
                                  const std::vector<float> &values) {
  return hostTensorOf(onnx::TensorProto::FLOAT, std::move(shape), values);
}

HostTensor HostTensor::fromInts(std::vector<int64_t> shape,
                                const std::vector<int64_t> &values) {
  return hostTensorOf(onnx::TensorProto::INT64, std::move(shape), values);
}

llvm::Expected<HostTensor> readTensor(const onnx::TensorProto &tensor,
                                      const OnnxModel &model, StringRef what,
                                      onnx::TensorProto *take) {
  const ElementTypeInfo *info = elementTypeInfo(tensor.data_type());
  if (!info)
    return fail(what + ": element type " + elementTypeName(tensor.data_type()) +
                " is not supported (expected FLOAT, FLOAT16, BFLOAT16, "
                "DOUBLE, INT64, INT32, INT16, INT8, UINT8 or BOOL)");
  if (tensor.has_segment())
    return fail(what + ": segmented tensors are not supported");
  HostTensor t;
  t.type = info->onnxType;
  uint64_t count = 1;
  for (int64_t d : tensor.dims()) {
    if (d < 0)
      return fail(what + ": negative dimension " + llvm::Twine(d));
    t.shape.push_back(d);
    if (d != 0 && count > (uint64_t(1) << 40) / uint64_t(d))
      return fail(what + ": shape too large");
    count *= uint64_t(d);
  }
  uint64_t expected = count * info->size;
  auto bytes = std::make_shared<std::string>();

  if (tensor.data_location() == onnx::TensorProto::EXTERNAL) {
    std::string location;
    int64_t offset = 0, length = -1;
    for (const onnx::StringStringEntryProto &e : tensor.external_data()) {
      if (e.key() == "location") {
        location = e.value();
      } else if (e.key() == "offset") {
        auto v = parseCount(e.value(), "offset", what);
        if (!v)
          return v.takeError();
        offset = *v;
      } else if (e.key() == "length") {
        auto v = parseCount(e.value(), "length", what);
        if (!v)
          return v.takeError();
        length = *v;
      }
    }
    if (location.empty())
      return fail(what + ": external data without a location");
    if (!isInsideFolder(location))
      return fail(what + ": external data location '" + location +
                  "' is not a relative path inside the model's folder "
                  "(absolute paths and '..' are refused)");
    llvm::SmallString<256> file(model.folder);
    llvm::sys::path::append(file, location);
    uint64_t fileSize;
    if (std::error_code ec = llvm::sys::fs::file_size(file, fileSize))
      return fail(what + ": external data file '" + file +
                  "': " + ec.message());
    if (length < 0)
      length = int64_t(expected);
    if (uint64_t(length) != expected)
      return fail(what + ": external data length " + llvm::Twine(length) +
                  " does not match the " + llvm::Twine(expected) +
                  " bytes its shape and type need");
    if (uint64_t(offset) > fileSize || fileSize - uint64_t(offset) < expected)
      return fail(what + ": external data file '" + file + "' has " +
                  llvm::Twine(fileSize) + " bytes, expected at least " +
                  llvm::Twine(uint64_t(offset) + expected) +
                  " (offset + length): truncated?");
    auto buffer = llvm::MemoryBuffer::getFileSlice(file, expected, offset);
    if (!buffer)
      return fail(what + ": external data file '" + file +
                  "': " + buffer.getError().message());
    bytes->assign((*buffer)->getBufferStart(), (*buffer)->getBufferEnd());
  } else if (tensor.has_raw_data()) {
    if (tensor.raw_data().size() != expected)
      return fail(what + ": raw data has " +
                  llvm::Twine(tensor.raw_data().size()) + " bytes, expected " +
                  llvm::Twine(expected));
    if (take)
      *bytes = std::move(*take->mutable_raw_data()); // no copy of the weights
    else
      bytes->assign(tensor.raw_data().begin(), tensor.raw_data().end());
  } else {
    // Typed fields: float_data (FLOAT), double_data, int64_data, and
    // int32_data for every type of 32 bits or less (16-bit floats as bits).
    bytes->resize(expected);
    char *out = bytes->data();
    // Each value stored in `size` bytes (int32_data carries every type of
    // 32 bits or less, 16-bit floats as their bits; little-endian).
    auto copy = [&](const auto &field, size_t size) -> llvm::Error {
      if (uint64_t(field.size()) != count)
        return fail(what + ": has " + llvm::Twine(field.size()) +
                    " values, expected " + llvm::Twine(count));
      for (int i = 0; i < field.size(); ++i) {
        auto v = field.Get(i);
        std::memcpy(out + size * i, &v, size);
      }
      return llvm::Error::success();
    };
    llvm::Error e =
        t.type == onnx::TensorProto::FLOAT    ? copy(tensor.float_data(), 4)
        : t.type == onnx::TensorProto::DOUBLE ? copy(tensor.double_data(), 8)
        : t.type == onnx::TensorProto::INT64
            ? copy(tensor.int64_data(), 8)
            : copy(tensor.int32_data(), info->size);
    if (e)
      return std::move(e);
  }
  t.bytes = std::move(bytes);
  return t;
}

llvm::Expected<std::unique_ptr<OnnxModel>>
parseOnnxModel(StringRef bytes, StringRef name, StringRef folder) {
  auto model = std::make_unique<OnnxModel>();
  model->path = name.str();
  model->folder = folder.str();
  if (bytes.size() > size_t(INT_MAX))
    return fail(name + ": " + llvm::Twine(bytes.size()) +
                " bytes is more than a protobuf can hold (2 GiB): large "
                "models keep their weights in external data");
  google::protobuf::io::CodedInputStream stream(
      reinterpret_cast<const uint8_t *>(bytes.data()), int(bytes.size()));
  stream.SetRecursionLimit(64);
  if (!model->proto.ParseFromCodedStream(&stream) ||
      !stream.ConsumedEntireMessage())
    return fail(name + ": not an ONNX model (the protobuf does not parse: "
                       "truncated or corrupt file?)");
  const onnx::ModelProto &proto = model->proto;
  if (proto.ir_version() <= 0 || !proto.has_graph())
    return fail(name + ": not an ONNX model (no ir_version or no graph)");

  // Opsets: the default domain within what the importer knows.
  bool haveDefault = false;
  for (const onnx::OperatorSetIdProto &opset : proto.opset_import()) {
    if (opset.domain().empty() || opset.domain() == "ai.onnx") {
      haveDefault = true;
      model->opset = opset.version();
    }
  }
  if (!haveDefault)
    return fail(name + ": the model imports no opset of the default ONNX "
                       "domain");
  if (model->opset < kOldestOpset)
    return fail(name + ": opset " + llvm::Twine(model->opset) +
                " is older than the oldest supported, " +
                llvm::Twine(kOldestOpset) +
                " (re-export with torch.onnx.export(..., opset_version=" +
                llvm::Twine(kMinOpset) + ".." + llvm::Twine(kMaxOpset) + "))");
  if (model->opset > kMaxOpset)
    return fail(name + ": opset " + llvm::Twine(model->opset) +
                " is newer than the newest supported, " +
                llvm::Twine(kMaxOpset));

  const onnx::GraphProto &graph = proto.graph();
  if (graph.output_size() == 0)
    return fail(name + ": the graph has no outputs");
  for (onnx::TensorProto &init :
       *model->proto.mutable_graph()->mutable_initializer()) {
    if (init.name().empty())
      return fail(name + ": an initializer has no name");
    // The values move to `initializers`: the protobuf keeps no second copy.
    auto t =
        readTensor(init, *model,
                   (name + ": initializer '" + init.name() + "'").str(), &init);
    if (!t)
      return t.takeError();
    if (!model->initializers.emplace(init.name(), std::move(*t)).second)
      return fail(name + ": initializer '" + init.name() +
                  "' is defined twice");
  }
  if (graph.sparse_initializer_size())
    return fail(name + ": sparse initializers are not supported");
  return model;
}

llvm::Expected<std::unique_ptr<OnnxModel>> readOnnxModel(StringRef path) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer)
    return fail(path + ": " + buffer.getError().message());
  llvm::SmallString<256> folder(path);
  llvm::sys::path::remove_filename(folder);
  if (folder.empty())
    folder = ".";
  return parseOnnxModel((*buffer)->getBuffer(), path, folder);
}

} // namespace attune::onnx_import
