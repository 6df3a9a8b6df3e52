//===- BindWeights.cpp - attune.weight -> constants from safetensors ------===//

#include "passes/BindWeights.h"
#include "passes/Passes.h"
#include "attune/artifact.h"
#include "attune/safetensors.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/TypeUtilities.h"
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
  const char *name = artifactDtypeName(type);
  if (!name)
    return {};
  const ::attune::artifact::DtypeInfo *info =
      ::attune::artifact::dtypeNamed(name);
  return info ? info->safetensors : StringRef();
}

static std::string shapeString(ArrayRef<int64_t> shape) {
  return "[" + llvm::join(llvm::map_range(shape, [](int64_t d) {
                            return std::to_string(d);
                          }),
                          ", ") +
         "]";
}

LogicalResult
mlir::attune::checkWeight(WeightOp op, const ::attune::SafetensorsFile &file,
                          const ::attune::SafetensorsTensor **found) {
  StringRef name = op.getName();
  RankedTensorType type = op.getType();
  const ::attune::SafetensorsTensor *entry = file.find(name.str());
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

LogicalResult
mlir::attune::bindWeights(Operation *root,
                          const ::attune::SafetensorsFile &file,
                          bool borrow) {
  bool ok = true;
  std::map<std::string, DenseResourceElementsAttr> bound;
  root->walk([&](WeightOp op) {
    const ::attune::SafetensorsTensor *entry = nullptr;
    if (failed(checkWeight(op, file, &entry))) {
      ok = false;
      return;
    }
    // One blob per name: every use of a weight shares its data.
    DenseResourceElementsAttr &attr = bound[op.getName().str()];
    if (!attr) {
      ArrayRef<char> data(entry->data, entry->bytes);
      // The mapping's alignment at the tensor (at least the element's, or
      // the data is copied to where it is).
      size_t align = 64;
      while (align > 1 && reinterpret_cast<uintptr_t>(entry->data) % align)
        align /= 2;
      size_t elementBytes =
          std::max<size_t>(1, mlir::getElementTypeOrSelf(op.getType())
                                      .getIntOrFloatBitWidth() / 8);
      attr = DenseResourceElementsAttr::get(
          op.getType(), op.getName(),
          borrow && align >= elementBytes
              ? UnmanagedAsmResourceBlob::allocateWithAlign(data, align)
              : HeapAsmResourceBlob::allocateAndCopyWithAlign(data, 64));
    }
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
    std::string problem;
    std::unique_ptr<::attune::SafetensorsFile> weights =
        ::attune::SafetensorsFile::open(file, problem);
    if (!weights) {
      getOperation()->emitError(problem);
      return signalPassFailure();
    }
    if (failed(bindWeights(getOperation(), *weights)))
      signalPassFailure();
  }
};
} // namespace
