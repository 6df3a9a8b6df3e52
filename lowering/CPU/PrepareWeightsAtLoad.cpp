//===- PrepareWeightsAtLoad.cpp - external weights prepared once ----------===//
//
// attune-prepare-weights-at-load: with --weights-external the GEMM weights'
// preparation (the transposes and packing into panels, the bf16/f16
// rounding) cannot fold at compile time, and would run at every call: a
// decoding step would read each weight twice and write it once. The pure
// ops that compute from external weights alone move into preparation
// functions (artifact::kPrepareWeightsPrefix + N, one per group of weights
// prepared together, usually one weight), which write each prepared value
// into a global of its own; the runtime calls each once, right after it has
// read that group's weights. The entries read the prepared globals.
//
//===----------------------------------------------------------------------===//

#include "dialect/Markers.h"
#include "lowering/Passes.h"

#include "attune/artifact.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Bufferization/Transforms/Transforms.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/CSE.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/EquivalenceClasses.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::attune {
#define GEN_PASS_DEF_ATTUNEPREPAREWEIGHTSATLOAD
#include "lowering/Passes.h.inc"
} // namespace mlir::attune

using namespace mlir;
using namespace mlir::attune;

namespace {

/// The prepared values' globals: kPreparedPrefix + N.
constexpr llvm::StringLiteral kPreparedPrefix = "attune_prepared_";

/// Ops that do no work on their operands: views, constants, empty tensors.
bool isFree(Operation *op) {
  return isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp,
             tensor::ExtractSliceOp, tensor::CastOp, tensor::EmptyOp,
             bufferization::ToTensorOp, memref::GetGlobalOp, arith::ConstantOp>(
      op);
}

/// The values `op` reads: its operands and what its regions use from above.
llvm::SetVector<Value> valuesRead(Operation *op) {
  llvm::SetVector<Value> read(op->getOperands().begin(),
                              op->getOperands().end());
  for (Region &region : op->getRegions())
    getUsedValuesDefinedAbove(region, read);
  return read;
}

/// `roots` and the ops of their block that they read from, transitively.
llvm::SetVector<Operation *> opsNeededBy(ArrayRef<Operation *> roots) {
  llvm::SetVector<Operation *> needed;
  SmallVector<Operation *> worklist(roots.begin(), roots.end());
  while (!worklist.empty()) {
    Operation *op = worklist.pop_back_val();
    if (!needed.insert(op))
      continue;
    for (Value v : valuesRead(op))
      if (Operation *def = v.getDefiningOp())
        worklist.push_back(def);
  }
  return needed;
}

/// A new public `func.func @name()` that only returns, before `builder`'s
/// insertion point.
func::FuncOp createPreparation(OpBuilder &builder, Location loc,
                               StringRef name) {
  auto f =
      func::FuncOp::create(builder, loc, name, builder.getFunctionType({}, {}));
  OpBuilder end = OpBuilder::atBlockEnd(f.addEntryBlock());
  func::ReturnOp::create(end, loc);
  return f;
}

/// The ops of one function's entry block that compute from external weights
/// and constants alone, in block order.
struct WeightSlice {
  llvm::SetVector<Operation *> ops;
  /// Values that depend on an external weight, and those whose computation
  /// does work (an op that is not free).
  DenseSet<Value> fromWeights, computed;
};

WeightSlice findWeightSlice(func::FuncOp func, SymbolTableCollection &symbols) {
  WeightSlice slice;
  Block &body = func.getBody().front();
  for (Operation &op : body) {
    if (auto get = dyn_cast<memref::GetGlobalOp>(op)) {
      auto global = symbols.lookupNearestSymbolFrom<memref::GlobalOp>(
          get, get.getNameAttr());
      if (global && global->hasAttr(kWeightNameAttr)) {
        slice.ops.insert(&op);
        slice.fromWeights.insert(get.getResult());
      }
      continue;
    }
    // Region ops only where the region computes one element (linalg,
    // tensor.pad), not loops.
    if (op.getNumResults() == 0 ||
        (op.getNumRegions() > 0 && !isa<linalg::LinalgOp, tensor::PadOp>(op)))
      continue;
    if (!isMemoryEffectFree(&op) && !isa<bufferization::ToTensorOp>(op))
      continue;
    // Every value it reads, its regions' captures included, from the slice
    // (or a constant that is itself in the slice).
    llvm::SetVector<Value> read = valuesRead(&op);
    bool inSlice = llvm::all_of(read, [&](Value v) {
      Operation *def = v.getDefiningOp();
      return def && slice.ops.contains(def);
    });
    if (!inSlice)
      continue;
    // A to_tensor only of a weight's global (read-only, restrict).
    if (auto toTensor = dyn_cast<bufferization::ToTensorOp>(op))
      if (!slice.fromWeights.contains(toTensor.getBuffer()))
        continue;
    slice.ops.insert(&op);
    bool fromWeights = llvm::any_of(
        read, [&](Value v) { return slice.fromWeights.contains(v); });
    bool computed = !isFree(&op) || llvm::any_of(read, [&](Value v) {
      return slice.computed.contains(v);
    });
    for (Value result : op.getResults()) {
      if (fromWeights)
        slice.fromWeights.insert(result);
      if (fromWeights && computed)
        slice.computed.insert(result);
    }
  }
  return slice;
}

/// Splits `all` (each value stored by a materialize_in_destination) into
/// functions kPrepareWeightsPrefix + N that share no weight and no
/// computation: the runtime reads one group's weights, runs its function
/// and may release the weights before it reads the next group's, so that
/// the raw and the prepared copies of all weights are never in memory
/// together. Groups are numbered in the order of their first store.
SmallVector<func::FuncOp> splitByWeights(func::FuncOp all) {
  Block &body = all.getBody().front();
  SmallVector<bufferization::MaterializeInDestinationOp> stores(
      all.getOps<bufferization::MaterializeInDestinationOp>());
  // The ops each store needs.
  SmallVector<llvm::SetVector<Operation *>> needs;
  for (auto store : stores)
    needs.push_back(opsNeededBy({store.getOperation()}));
  // Stores that share an op other than a constant or an empty tensor (a
  // weight's read, a computation) go together.
  llvm::EquivalenceClasses<unsigned> classes;
  DenseMap<Operation *, unsigned> firstNeed;
  for (unsigned i = 0; i < stores.size(); ++i) {
    classes.insert(i);
    for (Operation *op : needs[i]) {
      if (isa<arith::ConstantOp, tensor::EmptyOp>(op))
        continue;
      auto [it, first] = firstNeed.try_emplace(op, i);
      if (!first)
        classes.unionSets(it->second, i);
    }
  }
  OpBuilder moduleBuilder(all);
  SmallVector<func::FuncOp> functions;
  DenseMap<unsigned, unsigned> functionOf; // class leader -> functions index
  SmallVector<llvm::DenseSet<Operation *>> members;
  for (unsigned i = 0; i < stores.size(); ++i) {
    unsigned leader = classes.getLeaderValue(i);
    auto [it, first] = functionOf.try_emplace(leader, functions.size());
    if (first) {
      std::string name =
          (::attune::artifact::kPrepareWeightsPrefix + Twine(functions.size()))
              .str();
      functions.push_back(createPreparation(moduleBuilder, all.getLoc(), name));
      members.emplace_back();
    }
    members[it->second].insert(needs[i].begin(), needs[i].end());
  }
  // Each function clones its ops in the order of `all`.
  for (auto [f, ops] : llvm::zip(functions, members)) {
    OpBuilder b(f.getBody().front().getTerminator());
    IRMapping mapping;
    for (Operation &op : body)
      if (ops.contains(&op))
        b.clone(op, mapping);
  }
  return functions;
}

struct AttunePrepareWeightsAtLoadPass
    : mlir::attune::impl::AttunePrepareWeightsAtLoadBase<
          AttunePrepareWeightsAtLoadPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    SymbolTableCollection symbols;
    StringRef prefix = ::attune::artifact::kPrepareWeightsPrefix;
    for (Operation &op : *module.getBody())
      if (auto symbol = dyn_cast<SymbolOpInterface>(op))
        if (symbol.getName().starts_with(prefix)) {
          op.emitError("attune-prepare-weights-at-load: the symbol @")
              << symbol.getName() << " takes a name the preparation uses ("
              << prefix << "N)";
          return signalPassFailure();
        }
    // All preparations are built in one function first (so that CSE finds
    // what several functions prepare alike), then split by weights.
    std::string prepareName = (prefix + Twine("all")).str();
    OpBuilder moduleBuilder = OpBuilder::atBlockEnd(module.getBody());
    func::FuncOp prepare;
    int64_t next = 0;
    for (auto func : llvm::to_vector(module.getOps<func::FuncOp>())) {
      if (func.isExternal() || !func.getBody().hasOneBlock())
        continue;
      WeightSlice slice = findWeightSlice(func, symbols);
      // The values to prepare: computed from the weights, of static shape,
      // read by something outside the slice.
      SmallVector<Value> prepared;
      Block &body = func.getBody().front();
      for (Operation *op : slice.ops)
        for (Value result : op->getResults()) {
          auto type = dyn_cast<RankedTensorType>(result.getType());
          if (!slice.computed.contains(result) || !type ||
              !type.hasStaticShape())
            continue;
          if (llvm::any_of(result.getUsers(), [&](Operation *user) {
                Operation *top = body.findAncestorOpInBlock(*user);
                return !top || !slice.ops.contains(top);
              }))
            prepared.push_back(result);
        }
      if (prepared.empty())
        continue;
      if (!prepare) {
        prepare =
            createPreparation(moduleBuilder, module.getLoc(), prepareName);
      }
      // The ops they need, cloned in block order into the preparation.
      SmallVector<Operation *> roots;
      for (Value v : prepared)
        roots.push_back(v.getDefiningOp());
      llvm::SetVector<Operation *> needed = opsNeededBy(roots);
      OpBuilder b(prepare.getBody().front().getTerminator());
      IRMapping mapping;
      for (Operation *op : slice.ops)
        if (needed.contains(op))
          b.clone(*op, mapping);
      // Each value written into a global of its own, which the function
      // reads instead.
      for (Value v : prepared) {
        auto type = cast<RankedTensorType>(v.getType());
        auto memrefType =
            MemRefType::get(type.getShape(), type.getElementType());
        std::string name;
        do
          name = (kPreparedPrefix + Twine(next++)).str();
        while (module.lookupSymbol(name));
        memref::GlobalOp::create(moduleBuilder, v.getLoc(), name,
                                 moduleBuilder.getStringAttr("private"),
                                 memrefType, moduleBuilder.getUnitAttr(),
                                 /*constant=*/false,
                                 moduleBuilder.getI64IntegerAttr(64));
        Value target =
            memref::GetGlobalOp::create(b, v.getLoc(), memrefType, name);
        bufferization::MaterializeInDestinationOp::create(
            b, v.getLoc(), /*result=*/Type(), mapping.lookup(v), target,
            /*restrict=*/true, /*writable=*/true);
        OpBuilder fb(v.getDefiningOp());
        Value global =
            memref::GetGlobalOp::create(fb, v.getLoc(), memrefType, name);
        auto read =
            bufferization::ToTensorOp::create(fb, v.getLoc(), type, global);
        read.setRestrict(true);
        v.replaceAllUsesWith(read.getResult());
      }
      // What the function no longer reads.
      for (Operation *op : llvm::reverse(slice.ops.getArrayRef()))
        if (op->use_empty())
          op->erase();
    }
    if (!prepare)
      return;
    // Values several functions prepared alike (a generation model's
    // entries) are computed and stored once.
    // (CSE does not merge the reads of a global, bufferization.to_tensor,
    // which are not free of effects: merged first.)
    DenseMap<std::pair<Value, Type>, Value> reads;
    IRRewriter rewriter(ctx);
    DominanceInfo dominance(prepare);
    eliminateCommonSubExpressions(rewriter, dominance, prepare);
    for (auto read :
         llvm::to_vector(prepare.getOps<bufferization::ToTensorOp>())) {
      auto [it, first] = reads.try_emplace({read.getBuffer(), read.getType()},
                                           read.getResult());
      if (!first)
        rewriter.replaceOp(read, it->second);
    }
    eliminateCommonSubExpressions(rewriter, dominance, prepare);
    DenseMap<Value, FlatSymbolRefAttr> storedIn;
    for (auto store : llvm::to_vector(
             prepare.getOps<bufferization::MaterializeInDestinationOp>())) {
      auto get = store.getDest().getDefiningOp<memref::GetGlobalOp>();
      auto [it, first] =
          storedIn.try_emplace(store.getSource(), get.getNameAttr());
      if (first)
        continue;
      auto duplicate =
          cast<memref::GlobalOp>(module.lookupSymbol(get.getNameAttr()));
      if (failed(SymbolTable::replaceAllSymbolUses(
              duplicate, it->second.getAttr(), module)))
        return signalPassFailure();
      store.erase();
      if (get.use_empty())
        get.erase();
      duplicate.erase();
    }
    // The last op of each value writes into the global itself, rather than
    // into a buffer of its own that is then copied (and would stay in the
    // runtime's buffer cache).
    if (failed(bufferization::eliminateEmptyTensors(rewriter, prepare))) {
      prepare.emitError("attune-prepare-weights-at-load: empty tensor "
                        "elimination failed");
      return signalPassFailure();
    }
    SmallVector<func::FuncOp> preparations = splitByWeights(prepare);
    prepare.erase();
    SmallVector<Attribute> groups;
    for (func::FuncOp f : preparations) {
      llvm::SetVector<Attribute> weights;
      f.walk([&](memref::GetGlobalOp get) {
        auto global = symbols.lookupNearestSymbolFrom<memref::GlobalOp>(
            get, get.getNameAttr());
        if (global && global->hasAttr(kWeightNameAttr))
          weights.insert(get.getNameAttr().getAttr());
      });
      groups.push_back(ArrayAttr::get(ctx, weights.getArrayRef()));
    }
    module->setAttr(kWeightPreparationsAttr, ArrayAttr::get(ctx, groups));
    // The external weights only the preparations read: the runtime may
    // release their memory once theirs has run (kPreparedOnlyWeightsAttr).
    SmallVector<Attribute> preparedOnly;
    for (auto global : module.getOps<memref::GlobalOp>()) {
      auto name = global->getAttrOfType<StringAttr>(kWeightNameAttr);
      if (!name)
        continue;
      std::optional<SymbolTable::UseRange> uses =
          SymbolTable::getSymbolUses(global, module);
      if (uses && llvm::all_of(*uses, [&](const SymbolTable::SymbolUse &use) {
            auto f = use.getUser()->getParentOfType<func::FuncOp>();
            return f && llvm::is_contained(preparations, f);
          }))
        preparedOnly.push_back(name);
    }
    if (!preparedOnly.empty())
      module->setAttr(kPreparedOnlyWeightsAttr,
                      ArrayAttr::get(ctx, preparedOnly));
  }
};

} // namespace
