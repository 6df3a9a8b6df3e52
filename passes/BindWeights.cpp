//===- BindWeights.cpp - attune.weight -> constants from safetensors ------===//

#include "passes/Passes.h"
#include "passes/Safetensors.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/ADT/StringExtras.h"

#include <map>

namespace mlir::attune {
#define GEN_PASS_DEF_ATTUNEBINDWEIGHTS
#include "passes/Passes.h.inc"
} // namespace mlir::attune

using namespace mlir;
using namespace mlir::attune;

/// The safetensors dtype that stores `type`, or empty.
static StringRef safetensorsDtype(Type type) {
  if (type.isF32())
    return "F32";
  if (type.isF16())
    return "F16";
  if (type.isBF16())
    return "BF16";
  return {};
}

static std::string shapeString(ArrayRef<int64_t> shape) {
  return "[" + llvm::join(llvm::map_range(shape, [](int64_t d) {
                            return std::to_string(d);
                          }),
                          ", ") +
         "]";
}

LogicalResult mlir::attune::checkWeight(WeightOp op,
                                        const SafetensorsFile &file,
                                        const SafetensorsEntry **found) {
  StringRef name = op.getName();
  RankedTensorType type = op.getType();
  const SafetensorsEntry *entry = file.lookup(name);
  if (!entry) {
    // Suggest the closest names: usually a prefix or a typo.
    std::vector<std::pair<unsigned, std::string>> near;
    for (const std::string &candidate : file.names())
      near.push_back({StringRef(candidate).edit_distance(name), candidate});
    std::sort(near.begin(), near.end());
    InFlightDiagnostic d = op.emitOpError() << "weight '" << name
                                            << "' is not in " << file.path();
    if (!near.empty()) {
      d << " (closest: ";
      for (size_t i = 0; i < std::min<size_t>(3, near.size()); ++i)
        d << (i ? ", " : "") << "'" << near[i].second << "'";
      d << ")";
    }
    return d;
  }
  StringRef want = safetensorsDtype(type.getElementType());
  if (entry->dtype != want)
    return op.emitOpError() << "weight '" << name << "' has dtype "
                            << entry->dtype << " in " << file.path()
                            << ", expected " << want << " (declared " << type
                            << ")";
  if (ArrayRef<int64_t>(entry->shape) != type.getShape())
    return op.emitOpError() << "weight '" << name << "' has shape "
                            << shapeString(entry->shape) << " in "
                            << file.path() << ", expected "
                            << shapeString(type.getShape()) << " (declared "
                            << type << ")";
  if (found)
    *found = entry;
  return success();
}

LogicalResult mlir::attune::bindWeights(Operation *root,
                                        const SafetensorsFile &file) {
  bool ok = true;
  std::map<std::string, DenseResourceElementsAttr> bound;
  root->walk([&](WeightOp op) {
    const SafetensorsEntry *entry = nullptr;
    if (failed(checkWeight(op, file, &entry))) {
      ok = false;
      return;
    }
    // One blob per name: every use of a weight shares its data.
    DenseResourceElementsAttr &attr = bound[op.getName().str()];
    if (!attr)
      attr = DenseResourceElementsAttr::get(
          op.getType(), op.getName(),
          HeapAsmResourceBlob::allocateAndCopyWithAlign(entry->data, 64));
    OpBuilder b(op);
    op.replaceAllUsesWith(
        arith::ConstantOp::create(b, op.getLoc(), op.getType(), attr)
            .getResult());
    op.erase();
  });
  return success(ok);
}

namespace {
struct AttuneBindWeightsPass
    : mlir::attune::impl::AttuneBindWeightsBase<AttuneBindWeightsPass> {
  using AttuneBindWeightsBase::AttuneBindWeightsBase;
  void runOnOperation() override {
    if (file.empty()) {
      getOperation()->emitError("--attune-bind-weights needs file=PATH");
      return signalPassFailure();
    }
    llvm::Expected<SafetensorsFile> weights = SafetensorsFile::open(file);
    if (!weights) {
      getOperation()->emitError(llvm::toString(weights.takeError()));
      return signalPassFailure();
    }
    if (failed(bindWeights(getOperation(), *weights)))
      signalPassFailure();
  }
};
} // namespace

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
  auto cst = v.getDefiningOp<arith::ConstantOp>();
  if (!cst)
    return std::nullopt;
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (!type)
    return std::nullopt;
  size_t width = type.getElementTypeBitWidth() / 8;
  size_t size = type.getNumElements() * width;
  if (auto res = dyn_cast<DenseResourceElementsAttr>(cst.getValue())) {
    AsmResourceBlob *blob = res.getRawHandle().getBlob();
    if (!blob || blob->getData().size() != size)
      return std::nullopt;
    return std::vector<char>(blob->getData().begin(), blob->getData().end());
  }
  auto dense = dyn_cast<DenseElementsAttr>(cst.getValue());
  if (!dense || !isa<FloatType>(type.getElementType()))
    return std::nullopt;
  ArrayRef<char> raw = dense.getRawData();
  if (!dense.isSplat())
    return std::vector<char>(raw.begin(), raw.end());
  std::vector<char> bytes;
  bytes.reserve(size);
  for (int64_t i = 0; i < type.getNumElements(); ++i)
    bytes.insert(bytes.end(), raw.begin(), raw.begin() + width);
  return bytes;
}

std::string mlir::attune::constantKey(Value v, StringRef fallback) {
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
