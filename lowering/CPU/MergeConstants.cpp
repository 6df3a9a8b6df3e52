//===- MergeConstants.cpp - one global per distinct constant --------------===//

#include "lowering/Passes.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/AttrTypeSubElements.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/xxhash.h"

namespace mlir::attune {
#define GEN_PASS_DEF_ATTUNEMERGECONSTANTS
#include "lowering/Passes.h.inc"
} // namespace mlir::attune

using namespace mlir;

/// The bytes of a private constant global's initial value, or nothing for a
/// global this pass leaves alone (public, mutable, uninitialized, a splat,
/// a resource whose blob is gone).
static std::optional<ArrayRef<char>> constantData(memref::GlobalOp global) {
  if (!global.getConstant() || !global.isPrivate())
    return std::nullopt;
  std::optional<Attribute> value = global.getInitialValue();
  if (!value)
    return std::nullopt;
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(*value)) {
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    if (!blob)
      return std::nullopt;
    return blob->getData();
  }
  if (auto dense = dyn_cast<DenseElementsAttr>(*value);
      dense && !dense.isSplat())
    return dense.getRawData();
  return std::nullopt;
}

namespace {
struct AttuneMergeConstantsPass
    : mlir::attune::impl::AttuneMergeConstantsBase<AttuneMergeConstantsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    // Globals kept so far, by (type, hash of the bytes); a hash match is
    // confirmed byte by byte.
    llvm::DenseMap<std::pair<Type, uint64_t>,
                   SmallVector<std::pair<memref::GlobalOp, ArrayRef<char>>, 1>>
        kept;
    SmallVector<std::pair<memref::GlobalOp, memref::GlobalOp>> merges;
    for (auto global : module.getOps<memref::GlobalOp>()) {
      std::optional<ArrayRef<char>> data = constantData(global);
      if (!data)
        continue;
      uint64_t hash = llvm::xxh3_64bits(ArrayRef<uint8_t>(
          reinterpret_cast<const uint8_t *>(data->data()), data->size()));
      auto &candidates = kept[{global.getType(), hash}];
      auto same = llvm::find_if(candidates, [&](const auto &c) {
        return c.second == *data;
      });
      if (same == candidates.end())
        candidates.push_back({global, *data});
      else
        merges.push_back({global, same->first});
    }
    if (merges.empty())
      return;
    // Every reference to a merged global names the kept one: one walk over
    // the module for all of them.
    llvm::DenseMap<StringAttr, FlatSymbolRefAttr> renamed;
    for (auto [dup, into] : merges) {
      // The kept global satisfies both alignments.
      uint64_t align = std::max<uint64_t>(dup.getAlignment().value_or(0),
                                          into.getAlignment().value_or(0));
      if (align)
        into.setAlignment(align);
      renamed[dup.getSymNameAttr()] =
          FlatSymbolRefAttr::get(into.getSymNameAttr());
    }
    AttrTypeReplacer replacer;
    replacer.addReplacement(
        [&](SymbolRefAttr ref) -> std::optional<Attribute> {
          auto it = renamed.find(ref.getRootReference());
          if (it == renamed.end() || !ref.getNestedReferences().empty())
            return std::nullopt;
          return it->second;
        });
    for (Operation &op : module.getBody()->getOperations())
      if (!isa<memref::GlobalOp>(op))
        replacer.recursivelyReplaceElementsIn(&op);
    for (auto [dup, into] : merges)
      dup.erase();
  }
};
} // namespace
