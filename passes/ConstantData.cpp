//===- ConstantData.cpp - the bytes of constant tensors -------------------===//
//
// Helpers for passes that transform weights at compile time (packing,
// transposition): the bytes behind a constant, its name, and the artifact
// dtype of an element type.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Matchers.h"

#include <cstring>

using namespace mlir;

const char *mlir::attune::artifactDtypeName(Type type) {
  if (type.isF32())
    return "f32";
  if (type.isF16())
    return "f16";
  if (type.isBF16())
    return "bf16";
  if (type.isSignlessInteger(32))
    return "i32";
  if (type.isSignlessInteger(64))
    return "i64";
  if (type.isSignlessInteger(1))
    return "bool";
  return nullptr;
}

/// The bytes of `src` (of `srcType`) zero-padded at the end of each dim to
/// `type`'s shape.
static std::vector<char> padBytes(ArrayRef<char> src, RankedTensorType srcType,
                                  RankedTensorType type) {
  size_t width = srcType.getElementTypeBitWidth() / 8;
  ArrayRef<int64_t> in = srcType.getShape(), out = type.getShape();
  int64_t rank = srcType.getRank();
  std::vector<char> bytes(type.getNumElements() * width, 0);
  if (srcType.getNumElements() == 0)
    return bytes;
  // Each innermost row of the source to its place in the result.
  int64_t rowLen = rank == 0 ? 1 : in.back();
  std::vector<int64_t> index(rank, 0);
  for (int64_t n = 0; n < srcType.getNumElements(); n += rowLen) {
    int64_t at = 0;
    for (int64_t d = 0; d < rank; ++d)
      at = at * out[d] + index[d];
    std::memcpy(bytes.data() + at * width, src.data() + n * width,
                rowLen * width);
    for (int64_t d = rank - 2; d >= 0; --d) {
      if (++index[d] < in[d])
        break;
      index[d] = 0;
    }
  }
  return bytes;
}

std::optional<std::vector<char>> mlir::attune::constantBytes(Value v) {
  // A static, unit-stride slice of a constant (a part of a packed in_proj
  // weight): its elements, row-major, from the source's.
  if (auto slice = v.getDefiningOp<tensor::ExtractSliceOp>()) {
    auto srcType = dyn_cast<RankedTensorType>(slice.getSourceType());
    if (!srcType || !srcType.hasStaticShape() ||
        ShapedType::isDynamicShape(slice.getStaticOffsets()) ||
        ShapedType::isDynamicShape(slice.getStaticSizes()) ||
        llvm::any_of(slice.getStaticStrides(),
                     [](int64_t s) { return s != 1; }))
      return std::nullopt;
    std::optional<std::vector<char>> src = constantBytes(slice.getSource());
    if (!src)
      return std::nullopt;
    size_t width = srcType.getElementTypeBitWidth() / 8;
    ArrayRef<int64_t> offsets = slice.getStaticOffsets();
    ArrayRef<int64_t> sizes = slice.getStaticSizes();
    ArrayRef<int64_t> shape = srcType.getShape();
    int64_t rank = srcType.getRank(), count = 1;
    for (int64_t d : sizes)
      count *= d;
    std::vector<char> bytes;
    bytes.reserve(count * width);
    // Rows of the innermost dim, copied whole.
    int64_t rowLen = sizes.empty() ? 1 : sizes.back();
    std::vector<int64_t> index(rank, 0);
    for (int64_t n = 0; n < count; n += rowLen) {
      int64_t at = 0;
      for (int64_t d = 0; d < rank; ++d)
        at = at * shape[d] + offsets[d] + index[d];
      const char *from = src->data() + at * width;
      bytes.insert(bytes.end(), from, from + rowLen * width);
      for (int64_t d = rank - 2; d >= 0; --d) {
        if (++index[d] < sizes[d])
          break;
        index[d] = 0;
      }
    }
    return bytes;
  }
  // A constant zero-padded at the end of its dims (a weight or bias padded
  // to whole GEMM panels): the source's rows, then zeros.
  if (auto pad = v.getDefiningOp<tensor::PadOp>()) {
    auto srcType = dyn_cast<RankedTensorType>(pad.getSourceType());
    auto type = dyn_cast<RankedTensorType>(pad.getResultType());
    if (!srcType || !type || !srcType.hasStaticShape() ||
        !type.hasStaticShape() || !isZeroPadding(pad) ||
        llvm::any_of(pad.getStaticLow(), [](int64_t l) { return l != 0; }))
      return std::nullopt;
    std::optional<std::vector<char>> src = constantBytes(pad.getSource());
    if (!src)
      return std::nullopt;
    return padBytes(*src, srcType, type);
  }
  auto cst = v.getDefiningOp<arith::ConstantOp>();
  if (!cst)
    return std::nullopt;
  auto type = dyn_cast<RankedTensorType>(v.getType());
  // Resource blobs of any type; inline data of floats.
  if (std::optional<ArrayRef<char>> data = constantData(cst);
      data && (isa<DenseResourceElementsAttr>(cst.getValue()) ||
               isa<FloatType>(type.getElementType())))
    return std::vector<char>(data->begin(), data->end());
  // A splat of a float: the value repeated.
  auto dense = dyn_cast<DenseElementsAttr>(cst.getValue());
  if (!type || !dense || !dense.isSplat() ||
      !isa<FloatType>(type.getElementType()))
    return std::nullopt;
  size_t width = type.getElementTypeBitWidth() / 8;
  ArrayRef<char> raw = dense.getRawData();
  std::vector<char> bytes;
  bytes.reserve(type.getNumElements() * width);
  for (int64_t i = 0; i < type.getNumElements(); ++i)
    bytes.insert(bytes.end(), raw.begin(), raw.begin() + width);
  return bytes;
}

std::optional<ArrayRef<char>>
mlir::attune::constantData(arith::ConstantOp cst) {
  auto type = dyn_cast<RankedTensorType>(cst.getType());
  if (!type || !type.hasStaticShape())
    return std::nullopt;
  size_t size = type.getNumElements() * type.getElementTypeBitWidth() / 8;
  if (auto res = dyn_cast<DenseResourceElementsAttr>(cst.getValue())) {
    AsmResourceBlob *blob = res.getRawHandle().getBlob();
    if (blob && blob->getData().size() == size)
      return blob->getData();
    return std::nullopt;
  }
  if (auto dense = dyn_cast<DenseElementsAttr>(cst.getValue());
      dense && !dense.isSplat())
    return dense.getRawData();
  return std::nullopt;
}

bool mlir::attune::isZeroPadding(tensor::PadOp pad) {
  Value value = pad.getConstantPaddingValue();
  return value &&
         (matchPattern(value, m_AnyZeroFloat()) || matchPattern(value, m_Zero()));
}

Value mlir::attune::padWithZeros(OpBuilder &b, Location loc, Value v,
                                 ArrayRef<int64_t> sizes) {
  auto type = cast<RankedTensorType>(v.getType());
  SmallVector<OpFoldResult> low, high;
  SmallVector<int64_t> shape(type.getShape());
  bool padded = false;
  for (auto [d, size] : llvm::enumerate(sizes)) {
    low.push_back(b.getIndexAttr(0));
    int64_t extra = ShapedType::isDynamic(size) || type.isDynamicDim(d)
                        ? 0
                        : size - type.getDimSize(d);
    high.push_back(b.getIndexAttr(extra));
    if (extra > 0) {
      shape[d] = size;
      padded = true;
    }
  }
  if (!padded)
    return v;
  auto resultType = RankedTensorType::get(shape, type.getElementType());
  // On constant data, a new constant.
  if (type.hasStaticShape())
    if (std::optional<std::vector<char>> src = constantBytes(v)) {
      std::vector<char> bytes = padBytes(*src, type, resultType);
      auto attr = DenseResourceElementsAttr::get(
          resultType, constantKey(v, "weight") + "_pad",
          HeapAsmResourceBlob::allocateAndCopyWithAlign(ArrayRef<char>(bytes),
                                                        64));
      return arith::ConstantOp::create(b, loc, resultType, attr);
    }
  auto pad = tensor::PadOp::create(b, loc, resultType, v, low, high);
  // The zero is made inside the region: the op is then self-contained, and
  // can be cloned into another function (attune-hoist-weight-preparation).
  OpBuilder::InsertionGuard guard(b);
  SmallVector<Type> indices(type.getRank(), b.getIndexType());
  SmallVector<Location> locs(type.getRank(), loc);
  b.createBlock(&pad.getRegion(), pad.getRegion().end(), indices, locs);
  Value zero = arith::ConstantOp::create(
      b, loc, b.getZeroAttr(type.getElementType()));
  tensor::YieldOp::create(b, loc, zero);
  return pad.getResult();
}

std::string mlir::attune::constantKey(Value v, StringRef fallback) {
  if (auto pad = v.getDefiningOp<tensor::PadOp>())
    return constantKey(pad.getSource(), fallback) + "_pad";
  if (auto slice = v.getDefiningOp<tensor::ExtractSliceOp>()) {
    std::string key = constantKey(slice.getSource(), fallback) + "_slice";
    for (int64_t o : slice.getStaticOffsets())
      key += "_" + std::to_string(o);
    return key;
  }
  if (auto cst = v.getDefiningOp<arith::ConstantOp>())
    if (auto res = dyn_cast<DenseResourceElementsAttr>(cst.getValue()))
      return res.getRawHandle().getKey().str();
  return fallback.str();
}
