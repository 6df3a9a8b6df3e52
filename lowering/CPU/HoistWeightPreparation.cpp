//===- HoistWeightPreparation.cpp - weights prepared by the callers -------===//
//
// attune-hoist-weight-preparation: in a function whose weight arguments are
// marked (attune-outline-layers' layer functions), the pure ops that depend
// on weights alone (the transposes and packing of the GEMM weights) move to
// every caller, which passes their results instead; there, on the caller's
// constants, they fold into new constants. The layer is compiled once and
// still reads weights packed at compile time.
//
//===----------------------------------------------------------------------===//

#include "lowering/CPU/CpuKernels.h"
#include "lowering/Passes.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringExtras.h"

#include <cstring>
#include <iomanip>
#include <sstream>

namespace mlir::attune {
#define GEN_PASS_DEF_ATTUNEHOISTWEIGHTPREPARATION
#include "lowering/Passes.h.inc"
} // namespace mlir::attune

using namespace mlir;
using namespace mlir::attune;

namespace {

/// Copies the [rows, cols] matrix of `elem`-byte elements at `in` to `out`
/// transposed, in 32 x 32 blocks (both sides stay in cache).
template <typename T>
void transposeMatrix(const char *in, char *out, int64_t rows, int64_t cols) {
  const T *src = reinterpret_cast<const T *>(in);
  T *dst = reinterpret_cast<T *>(out);
  constexpr int64_t kBlock = 32;
  for (int64_t r0 = 0; r0 < rows; r0 += kBlock)
    for (int64_t c0 = 0; c0 < cols; c0 += kBlock)
      for (int64_t r = r0; r < std::min(rows, r0 + kBlock); ++r)
        for (int64_t c = c0; c < std::min(cols, c0 + kBlock); ++c)
          dst[c * rows + r] = src[r * cols + c];
}

/// Writes to `result` the bytes of `input` (of `type`, static) permuted by
/// `perm`, as linalg.transpose computes them.
void transposeBytes(ArrayRef<char> input, MutableArrayRef<char> result,
                    RankedTensorType type, ArrayRef<int64_t> perm) {
  size_t elem = type.getElementTypeBitWidth() / 8;
  ArrayRef<int64_t> in = type.getShape();
  int64_t rank = type.getRank();
  // What the GEMM packing does ([N, K] -> [K, N]; [P, W, K] -> [P, K, W]):
  // the last two dims swapped, a batch of matrices.
  bool swapLast = rank >= 2 && perm[rank - 2] == rank - 1 &&
                  perm[rank - 1] == rank - 2;
  for (int64_t d = 0; d + 2 < rank; ++d)
    swapLast &= perm[d] == d;
  if (swapLast && (elem == 2 || elem == 4 || elem == 8)) {
    int64_t rows = in[rank - 2], cols = in[rank - 1];
    int64_t batch = type.getNumElements() / std::max<int64_t>(rows * cols, 1);
    for (int64_t i = 0; i < batch; ++i) {
      const char *from = input.data() + i * rows * cols * elem;
      char *to = result.data() + i * rows * cols * elem;
      if (elem == 2)
        transposeMatrix<uint16_t>(from, to, rows, cols);
      else if (elem == 4)
        transposeMatrix<uint32_t>(from, to, rows, cols);
      else
        transposeMatrix<uint64_t>(from, to, rows, cols);
    }
    return;
  }
  SmallVector<int64_t> out(rank), inStrides(rank, 1);
  for (int64_t d = 0; d < rank; ++d)
    out[d] = in[perm[d]];
  for (int64_t d = rank - 2; d >= 0; --d)
    inStrides[d] = inStrides[d + 1] * in[d + 1];
  int64_t count = type.getNumElements();
  SmallVector<int64_t> index(rank, 0); // over the output
  for (int64_t n = 0; n < count; ++n) {
    int64_t from = 0;
    for (int64_t d = 0; d < rank; ++d)
      from += index[d] * inStrides[perm[d]];
    std::memcpy(result.data() + n * elem, input.data() + from * elem, elem);
    for (int64_t d = rank - 1; d >= 0; --d) {
      if (++index[d] < out[d])
        break;
      index[d] = 0;
    }
  }
}

/// The float type `op` rounds its one input to, element by element, if it
/// is such a linalg.generic (the GEMM packing's narrowing of panels to
/// bf16 or f16); else null.
FloatType roundingTo(Operation *op) {
  auto g = dyn_cast<linalg::GenericOp>(op);
  if (!g || g.getNumDpsInputs() != 1 || g.getNumDpsInits() != 1 ||
      !llvm::all_of(g.getIndexingMapsArray(),
                    [](AffineMap m) { return m.isIdentity(); }))
    return {};
  Block &body = g.getRegion().front();
  if (body.getOperations().size() != 2)
    return {};
  auto trunc = dyn_cast<arith::TruncFOp>(body.front());
  if (!trunc || trunc.getIn() != body.getArgument(0) ||
      !trunc.getIn().getType().isF32() ||
      body.getTerminator()->getOperand(0) != trunc.getResult())
    return {};
  return dyn_cast<FloatType>(trunc.getType());
}

/// The ops that prepare weights: what the GEMM packing and the attention
/// lowering do to a weight before reading it, and what folds on constants.
bool isPreparation(Operation *op) {
  if (!(isa<linalg::TransposeOp, tensor::ExpandShapeOp, tensor::CollapseShapeOp,
            tensor::ExtractSliceOp, tensor::PadOp>(op) ||
        roundingTo(op)) ||
      op->getNumResults() != 1)
    return false;
  // Padding to whole panels, with a zero made in its region.
  if (auto pad = dyn_cast<tensor::PadOp>(op))
    if (!isZeroPadding(pad) || pad.getNumOperands() != 1)
      return false;
  auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  return type && type.hasStaticShape();
}

/// Folded weights already made in a caller: one constant for each
/// preparation of each source (a layer's weights passed twice are prepared
/// once).
using FoldCache =
    llvm::DenseMap<std::tuple<OperationName, Attribute, Value, Type>, Value>;

/// `op` (in a caller) computed at compile time when its inputs are
/// constants: a new constant (placed after its source's), or null.
Value foldOnConstants(Operation *op, FoldCache &cache,
                      std::vector<DenseResourceElementsHandle> &created) {
  auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!type || !type.hasStaticShape() ||
      type.getElementTypeBitWidth() % 8 != 0)
    return {};
  auto key = std::make_tuple(op->getName(), Attribute(op->getAttrDictionary()),
                             op->getOperand(0), Type(type));
  if (Value cached = cache.lookup(key))
    return cached;
  std::optional<std::vector<char>> bytes;
  Value source;
  std::string suffix;
  // The new constant's blob, `bytes` copied in unless it is written here.
  std::optional<AsmResourceBlob> blob;
  if (auto t = dyn_cast<linalg::TransposeOp>(op)) {
    source = t.getInput();
    suffix = "_t";
    auto inType = dyn_cast<RankedTensorType>(source.getType());
    if (!inType || !inType.hasStaticShape())
      return {};
    // Straight from the source's blob (the weights file's mapping) into
    // the new one: no copy of either for a 340 MB model.
    auto cst = source.getDefiningOp<arith::ConstantOp>();
    auto resource =
        cst ? dyn_cast<DenseResourceElementsAttr>(cst.getValue()) : nullptr;
    AsmResourceBlob *in = resource ? resource.getRawHandle().getBlob() : nullptr;
    std::optional<std::vector<char>> copy;
    ArrayRef<char> input;
    if (in) {
      input = in->getData();
    } else if ((copy = constantBytes(source))) {
      input = *copy;
    } else {
      return {};
    }
    if (input.size() != size_t(inType.getNumElements()) *
                            (inType.getElementTypeBitWidth() / 8))
      return {};
    blob = HeapAsmResourceBlob::allocate(input.size(), 64);
    transposeBytes(input, blob->getMutableData(), inType, t.getPermutation());
  } else if (isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(op)) {
    source = op->getOperand(0);
    // The same bytes: a view of the source's blob, no copy.
    if (auto cst = source.getDefiningOp<arith::ConstantOp>())
      if (auto blob = dyn_cast<DenseResourceElementsAttr>(cst.getValue())) {
        OpBuilder b(op);
        b.setInsertionPointAfter(cst);
        Value folded = arith::ConstantOp::create(
            b, op->getLoc(), type,
            DenseResourceElementsAttr::get(type, blob.getRawHandle()));
        cache[key] = folded;
        return folded;
      }
    bytes = constantBytes(source);
    suffix = "_r";
  } else if (auto slice = dyn_cast<tensor::ExtractSliceOp>(op)) {
    source = slice.getSource();
    bytes = constantBytes(slice.getResult());
    suffix = "_s";
  } else if (auto pad = dyn_cast<tensor::PadOp>(op)) {
    source = pad.getSource();
    bytes = constantBytes(pad.getResult());
    suffix = "_pad";
  } else if (FloatType to = roundingTo(op)) {
    source = op->getOperand(0);
    std::optional<std::vector<char>> wide = constantBytes(source);
    // A value beyond f16's range stays unfolded, for the pass to report.
    if (wide && cpu::firstOutOfRange(*wide, to))
      return {};
    if (wide)
      bytes = convertFloatData(*wide, Float32Type::get(op->getContext()), to);
    suffix = to.isBF16() ? "_bf16" : "_f16";
  }
  if (bytes)
    blob = HeapAsmResourceBlob::allocateAndCopyWithAlign(*bytes, 64);
  if (!blob)
    return {};
  OpBuilder b(op);
  b.setInsertionPointAfter(source.getDefiningOp());
  auto attr = DenseResourceElementsAttr::get(
      type, constantKey(source, "weight") + suffix, std::move(*blob));
  created.push_back(attr.getRawHandle());
  Value folded = arith::ConstantOp::create(b, op->getLoc(), type, attr);
  cache[key] = folded;
  return folded;
}

/// Hoists the weight preparation of `func` into its callers, which are added
/// to `callers`; false if it has none or a use of `func` is not a direct
/// call.
bool hoist(func::FuncOp func, ModuleOp module,
           llvm::SetVector<Operation *> &callers,
           std::vector<DenseResourceElementsHandle> &created) {
  MLIRContext *ctx = func.getContext();
  std::optional<SymbolTable::UseRange> uses = func.getSymbolUses(module);
  if (!uses)
    return false;
  SmallVector<func::CallOp> calls;
  for (const SymbolTable::SymbolUse &use : *uses) {
    auto call = dyn_cast<func::CallOp>(use.getUser());
    if (!call)
      return false;
    calls.push_back(call);
  }
  Block &body = func.front();
  // What the packing left dead (a transpose it replaced) would keep a
  // weight argument alive.
  for (Operation &op : llvm::make_early_inc_range(llvm::reverse(body)))
    if (op.use_empty() && !op.hasTrait<mlir::OpTrait::IsTerminator>() &&
        isMemoryEffectFree(&op))
      op.erase();
  llvm::DenseSet<Value> prepared;
  for (BlockArgument arg : body.getArguments())
    if (func.getArgAttr(arg.getArgNumber(), kWeightArgAttr))
      prepared.insert(arg);
  if (prepared.empty())
    return false;

  // Preparations whose operands are weights, values prepared from weights
  // alone, or results of operand-less pure ops (tensor.empty, constants),
  // which are cloned along. (Other work on weights, a broadcast of a bias,
  // stays: in a caller it would not fold, only grow the argument.)
  auto operandless = [](Value v) {
    Operation *def = v.getDefiningOp();
    return def && def->getNumOperands() == 0 && def->getNumRegions() == 0 &&
           isMemoryEffectFree(def);
  };
  SmallVector<Operation *> hoisted;
  llvm::DenseSet<Operation *> hoistedSet;
  for (Operation &op : body.without_terminator()) {
    if (!isPreparation(&op) || op.use_empty())
      continue;
    bool depends = false, ok = true;
    for (Value v : op.getOperands()) {
      if (prepared.contains(v))
        depends = true;
      else if (!operandless(v))
        ok = false;
    }
    if (!depends || !ok)
      continue;
    hoisted.push_back(&op);
    hoistedSet.insert(&op);
    for (Value r : op.getResults())
      prepared.insert(r);
  }
  // What the function keeps reading of them: its new arguments.
  SmallVector<Value> exports;
  for (Operation *op : hoisted)
    for (Value r : op->getResults())
      if (llvm::any_of(r.getUsers(), [&](Operation *user) {
            return !hoistedSet.contains(user);
          }))
        exports.push_back(r);
  if (exports.empty())
    return false;

  // Each caller computes them from its own operands, folding what it can.
  llvm::DenseMap<Operation *, FoldCache> caches;
  for (func::CallOp call : calls) {
    FoldCache &cache = caches[call->getParentOp()];
    callers.insert(call->getParentOp());
    OpBuilder b(call);
    IRMapping map;
    map.map(body.getArguments(), call.getOperands());
    SmallVector<Operation *> cloned;
    for (Operation *op : hoisted) {
      for (Value v : op->getOperands())
        if (!map.contains(v)) {
          cloned.push_back(b.clone(*v.getDefiningOp()));
          map.map(v, cloned.back()->getResult(0));
        }
      Operation *c = b.clone(*op, map);
      cloned.push_back(c);
      if (Value folded = foldOnConstants(c, cache, created)) {
        map.map(op->getResult(0), folded);
        c->getResult(0).replaceAllUsesWith(folded);
      } else {
        map.map(op->getResults(), c->getResults());
      }
      b.setInsertionPoint(call);
    }
    SmallVector<Value> operands(call.getOperands());
    for (Value v : exports)
      operands.push_back(map.lookup(v));
    auto newCall = func::CallOp::create(b, call.getLoc(), func, operands);
    call.replaceAllUsesWith(newCall.getResults());
    call.erase();
    // Folded ops and the empties they wrote into are dead now.
    for (Operation *c : llvm::reverse(cloned))
      if (c->use_empty())
        c->erase();
  }
  // The function reads them from new arguments.
  for (Value v : exports) {
    unsigned index = func.getNumArguments();
    if (failed(func.insertArgument(index, v.getType(),
                                   DictionaryAttr::get(ctx), v.getLoc())))
      return false;
    func.setArgAttr(index, kWeightArgAttr, UnitAttr::get(ctx));
    BlockArgument arg = body.getArgument(index);
    v.replaceUsesWithIf(arg, [&](OpOperand &use) {
      return !hoistedSet.contains(use.getOwner());
    });
  }
  for (Operation *op : llvm::reverse(hoisted))
    op->erase();
  // Operand-less helpers and arguments nothing reads any more go.
  for (Operation &op : llvm::make_early_inc_range(llvm::reverse(body)))
    if (op.use_empty() && op.getNumOperands() == 0 && !op.hasTrait<mlir::OpTrait::IsTerminator>() &&
        isMemoryEffectFree(&op))
      op.erase();
  llvm::BitVector unused(func.getNumArguments());
  for (BlockArgument arg : body.getArguments())
    if (arg.use_empty())
      unused.set(arg.getArgNumber());
  if (unused.any()) {
    if (failed(func.eraseArguments(unused)))
      return false;
    std::optional<SymbolTable::UseRange> current = func.getSymbolUses(module);
    for (const SymbolTable::SymbolUse &use : *current) {
      auto call = cast<func::CallOp>(use.getUser());
      SmallVector<Value> kept;
      for (auto [i, v] : llvm::enumerate(call.getOperands()))
        if (!unused.test(i))
          kept.push_back(v);
      OpBuilder b(call);
      auto newCall = func::CallOp::create(b, call.getLoc(), func, kept);
      call.replaceAllUsesWith(newCall.getResults());
      call.erase();
    }
  }
  return true;
}

/// The weight a prepared constant's key names: the key without the
/// suffixes of its preparations (a transpose, reshape, slice, padding,
/// packing in panels of P columns: _t, _r, _s, _pad, _pP).
static std::string weightName(StringRef key) {
  while (true) {
    auto [head, tail] = key.rsplit('_');
    if (head.empty() || tail.empty() ||
        !(llvm::is_contained({"t", "r", "s", "pad"}, tail) ||
          (tail.size() > 1 && tail[0] == 'p' &&
           llvm::all_of(tail.drop_front(), llvm::isDigit))))
      return key.str();
    key = head;
  }
}

/// The external weight (attune-externalize-weights' global) `v` is
/// prepared from by transposes, reshapes, slices and padding alone, if any.
static memref::GlobalOp externalWeight(Value v, ModuleOp module) {
  while (Operation *def = v.getDefiningOp()) {
    if (auto t = dyn_cast<linalg::TransposeOp>(def)) {
      v = t.getInput();
    } else if (isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp,
                   tensor::ExtractSliceOp, tensor::PadOp>(def)) {
      v = def->getOperand(0);
    } else if (auto toTensor = dyn_cast<bufferization::ToTensorOp>(def)) {
      auto get = toTensor.getBuffer().getDefiningOp<memref::GetGlobalOp>();
      if (!get)
        return {};
      auto global = SymbolTable::lookupNearestSymbolFrom<memref::GlobalOp>(
          module, get.getNameAttr());
      return global && global->hasAttr(kWeightNameAttr) ? global : nullptr;
    } else {
      return {};
    }
  }
  return {};
}

/// f16 panels are rounded at compile time, where their range is checked, or
/// from an external weight, whose range the runtime checks at load (its
/// name is recorded in the module's kF16WeightsAttr): a rounding to f16
/// left for run time of anything else (its weights beyond f16's range, or
/// computed at run time) is an error.
LogicalResult checkF16Panels(ModuleOp module) {
  llvm::SetVector<Attribute> external;
  WalkResult result = module.walk([&](linalg::GenericOp op) {
    FloatType to = roundingTo(op);
    if (!op->hasAttr(kPanelRoundingAttr) || !to || !to.isF16())
      return WalkResult::advance();
    Value input = op.getDpsInputs()[0];
    if (memref::GlobalOp global = externalWeight(input, module)) {
      external.insert(global->getAttr(kWeightNameAttr));
      return WalkResult::advance();
    }
    std::optional<std::vector<char>> bytes = constantBytes(input);
    std::optional<float> v;
    if (bytes) {
      v = cpu::firstOutOfRange(*bytes, to);
      // Constant and in range (a rounding that did not fold): exact at run
      // time too.
      if (!v)
        return WalkResult::advance();
    }
    InFlightDiagnostic diag =
        op.emitError("f16 weight panels (--gemm-weights=f16): ");
    if (v) {
      std::ostringstream value;
      value << std::setprecision(9) << *v;
      diag << "weight '" << weightName(constantKey(input, "weight"))
           << "' holds " << value.str()
           << ", beyond f16's range (largest finite value 65504); "
              "--gemm-weights=bf16 keeps f32's range";
    } else {
      diag << "this GEMM's weights are computed at run time, where their "
              "range cannot be checked; --gemm-weights=bf16 keeps f32's "
              "range";
    }
    return WalkResult::interrupt();
  });
  if (!external.empty())
    module->setAttr(kF16WeightsAttr, ArrayAttr::get(module.getContext(),
                                                    external.getArrayRef()));
  return failure(result.wasInterrupted());
}

struct AttuneHoistWeightPreparationPass
    : mlir::attune::impl::AttuneHoistWeightPreparationBase<
          AttuneHoistWeightPreparationPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    llvm::SetVector<Operation *> callers;
    std::vector<DenseResourceElementsHandle> created;
    for (auto func : llvm::to_vector(module.getOps<func::FuncOp>()))
      if (func.isPrivate() && !func.isExternal())
        hoist(func, module, callers, created);
    if (failed(checkF16Panels(module)))
      return signalPassFailure();
    // The marks have served (and LLVM would not know them).
    for (auto func : module.getOps<func::FuncOp>())
      for (unsigned i = 0; i < func.getNumArguments(); ++i)
        func.removeArgAttr(i, kWeightArgAttr);
    // Constants the callers no longer read (the unprepared weights).
    for (Operation *caller : callers)
      caller->walk([](arith::ConstantOp c) {
        if (c.use_empty())
          c.erase();
      });
    // The intermediate results of folding (a transpose before the packing
    // transpose) are half the compile's memory for a large model: their
    // blobs, made here and read by nothing now, are released. (Blobs made
    // elsewhere may be read by another module of the context.)
    llvm::DenseSet<void *> live;
    module.walk([&](arith::ConstantOp c) {
      if (auto blob = dyn_cast<DenseResourceElementsAttr>(c.getValue()))
        live.insert(blob.getRawHandle().getResource());
    });
    for (DenseResourceElementsHandle handle : created)
      if (!live.contains(handle.getResource()))
        handle.getResource()->setBlob(AsmResourceBlob());
  }
};

} // namespace
