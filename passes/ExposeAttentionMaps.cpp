//===- ExposeAttentionMaps.cpp - Attention weights as model outputs -------===//
//
// attune-compile --attention-maps: every attention of a public function (or
// those selected) returns its weights, and the function returns them as
// outputs named after the attention's module path.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "attune/artifact.h"
#include "dialect/AttuneDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"

namespace mlir::attune {
#define GEN_PASS_DEF_ATTUNEEXPOSEATTENTIONMAPS
#include "passes/Passes.h.inc"
} // namespace mlir::attune

using namespace mlir;
using namespace mlir::attune;

namespace {

/// The state_dict key of the weight `v` reads (through slices and other
/// one-operand views), or "".
std::string weightName(Value v) {
  for (int depth = 0; v && depth < 8; ++depth) {
    Operation *def = v.getDefiningOp();
    if (!def)
      return "";
    if (auto weight = dyn_cast<WeightOp>(def))
      return weight.getName().str();
    if (isa<arith::ConstantOp>(def))
      return constantKey(v, "");
    v = def->getNumOperands() ? def->getOperand(0) : Value();
  }
  return "";
}

/// The module path of an attention: the weight of the projection its
/// queries come from (`decoder.layers.0.multihead_attn.in_proj_weight` ->
/// `decoder.layers.0.multihead_attn`, other characters than letters,
/// digits, '.', '_' and '-' replaced by '_'), or "" when there is none
/// with a path.
std::string modulePath(Operation *op) {
  std::string key;
  if (auto s2s = dyn_cast<Seq2SeqAttentionOp>(op);
      s2s && !s2s.getWeights().empty())
    key = weightName(s2s.getWeights().front());
  Value v = op->getOperand(0);
  for (int depth = 0; key.empty() && v && depth < 8; ++depth) {
    Operation *def = v.getDefiningOp();
    if (!def || def->getNumOperands() == 0)
      break;
    if (isa<LinearOp>(def))
      key = weightName(def->getOperand(1));
    v = def->getOperand(0);
  }
  size_t dot = key.rfind('.');
  if (dot == std::string::npos)
    return "";
  // A name that is also a file name (attune-run writes DIR/attn.<site>.npy):
  // ONNX initializers may hold '/' or ':'.
  std::string path = key.substr(0, dot);
  for (char &c : path)
    if (!llvm::isAlnum(c) && c != '.' && c != '_' && c != '-')
      c = '_';
  return path;
}

/// The weights of `op` (an attention): its second result, or that of a
/// copy with `return_weights` that replaces it.
template <typename OpTy>
Value withWeights(OpTy op) {
  if (op->getNumResults() == 2)
    return op->getResult(1);
  OpBuilder b(op);
  SmallVector<NamedAttribute> attrs(op->getAttrDictionary().getValue());
  attrs.push_back(
      b.getNamedAttr(op.getReturnWeightsAttrName(), b.getUnitAttr()));
  auto with = OpTy::create(b, op.getLoc(), op->getOperands(), attrs);
  op->getResult(0).replaceAllUsesWith(with->getResult(0));
  op.erase();
  return with->getResult(1);
}

struct AttuneExposeAttentionMapsPass
    : mlir::attune::impl::AttuneExposeAttentionMapsBase<
          AttuneExposeAttentionMapsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    // The layers and multi-head attentions first become their attention
    // ops (a seq2seq attention keeps its form: it returns its weights).
    RewritePatternSet patterns(&getContext());
    populateDecomposeEncoderLayerPatterns(patterns);
    populateDecomposeDecoderLayerPatterns(patterns);
    populateDecomposeMultiHeadAttentionPatterns(patterns);
    if (failed(applyPatternsGreedily(module, std::move(patterns))))
      return signalPassFailure();

    SmallVector<StringRef> wanted;
    StringRef(select).split(wanted, ',', -1, /*KeepEmpty=*/false);
    for (StringRef &w : wanted)
      w = w.trim();
    llvm::StringSet<> used;
    std::string listing;
    for (auto func : module.getOps<func::FuncOp>()) {
      // A generation encoder's results are the steps' contexts: not
      // outputs anyone reads. (A generation step's maps come back per new
      // token: attune_generate_options.attention_maps.)
      if (!func.isPublic() || func.isExternal() ||
          func->hasAttr(kGenerationEncoderAttr))
        continue;
      if (failed(expose(func, wanted, used, listing)))
        return signalPassFailure();
    }
    for (StringRef w : wanted)
      if (!used.contains(w)) {
        module.emitError() << "--attention-maps: '" << w
                           << "' selects no attention; the model has:"
                           << (listing.empty() ? " none" : listing);
        return signalPassFailure();
      }
  }

  LogicalResult expose(func::FuncOp func, ArrayRef<StringRef> wanted,
                       llvm::StringSet<> &used, std::string &listing) {
    // The sites: attentions directly in the function's body, in order.
    SmallVector<Operation *> sites;
    for (Operation &op : func.getBody().getOps())
      if (isa<AttentionOp, Seq2SeqAttentionOp>(op))
        sites.push_back(&op);
    auto ret = cast<func::ReturnOp>(func.getBody().back().getTerminator());
    // The weights to return after the function's own results (read at the
    // end: an attention replaced here may be one of those).
    SmallVector<Value> maps;
    SmallVector<std::string> names; // one per map
    llvm::StringSet<> seen;
    for (auto [index, op] : llvm::enumerate(sites)) {
      std::string path = modulePath(op);
      std::string name =
          path.empty() ? "attention" + std::to_string(index) : path;
      if (!seen.insert(name).second)
        name += "." + std::to_string(index);
      listing += " " + std::to_string(index) + " (" + name + ")";
      // Selected by its index, its name, or a prefix of its path that
      // ends at a dot ("decoder" selects "decoder.layers.0.self_attn").
      bool take = wanted.empty();
      for (StringRef w : wanted)
        if (w == std::to_string(index) || w == name ||
            StringRef(name).starts_with((w + ".").str())) {
          take = true;
          used.insert(w);
        }
      if (!take)
        continue;
      Value weights = isa<AttentionOp>(op)
                          ? withWeights(cast<AttentionOp>(op))
                          : withWeights(cast<Seq2SeqAttentionOp>(op));
      OpBuilder b(ret);
      std::string output = ::attune::artifact::kAttentionMapPrefix + name;
      maps.push_back(weights);
      names.push_back(output);
      // Multi-head weights [B, H, Lq, Lk]: also their head average, as
      // PyTorch's average_attn_weights.
      if (cast<RankedTensorType>(weights.getType()).getRank() == 4) {
        Value mean = ReduceOp::create(b, weights.getLoc(), ReduceKind::mean,
                                      weights, b.getDenseI64ArrayAttr({1}),
                                      /*keep_dims=*/false);
        maps.push_back(mean);
        names.push_back(output + ::attune::artifact::kAttentionMapMeanSuffix);
      }
    }
    if (names.empty())
      return success();
    OpBuilder b(ret);
    unsigned own = ret.getNumOperands();
    SmallVector<Value> results(ret.getOperands());
    results.append(maps);
    func::ReturnOp::create(b, ret.getLoc(), results);
    ret.erase();
    for (auto [index, name] : llvm::enumerate(names))
      if (failed(func.insertResult(own + index, maps[index].getType(),
                                   b.getDictionaryAttr(b.getNamedAttr(
                                       kNameAttr, b.getStringAttr(name))))))
        return failure();
    return success();
  }
};

} // namespace
