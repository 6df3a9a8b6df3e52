//===- AttuneDialect.cpp - The attune dialect -----------------------------===//

#include "dialect/AttuneDialect.h"

#include "attune/artifact.h"
#include "dialect/AttuneOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::attune;

#include "dialect/AttuneDialect.cpp.inc"
#include "dialect/AttuneEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "dialect/AttuneAttrs.cpp.inc"

LogicalResult
GemmTilingAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                       int64_t panel, int64_t rows, int64_t kTile,
                       int64_t cacheRows, int64_t forallPanels, bool bf16Dot,
                       bool dot, bool widenPairs) {
  if (panel <= 0 || rows <= 0)
    return emitError() << "panel and rows must be positive, got panel = "
                       << panel << ", rows = " << rows;
  if (kTile < 0 || cacheRows < 0 || forallPanels < 0)
    return emitError() << "k_tile, cache_rows and forall_panels must not be "
                          "negative";
  if (cacheRows % rows != 0)
    return emitError() << "cache_rows (" << cacheRows
                       << ") must be a multiple of rows (" << rows << ")";
  if (bf16Dot && kTile % 2 != 0)
    return emitError() << "bf16_dot steps k in pairs: k_tile must be even, "
                          "got "
                       << kTile;
  if (dot && bf16Dot)
    return emitError() << "dot products along K run in f32: dot and bf16_dot "
                          "exclude each other";
  if (widenPairs && (bf16Dot || dot))
    return emitError() << "widen_pairs is the f32 arithmetic on bf16 k-pair "
                          "panels: it excludes bf16_dot and dot";
  if (widenPairs && kTile % 2 != 0)
    return emitError() << "widen_pairs steps k in pairs: k_tile must be "
                          "even, got "
                       << kTile;
  if (dot && (kTile != 0 || forallPanels != 0))
    return emitError() << "dot tiles have no k tiles or panels: k_tile and "
                          "forall_panels must be 0, got "
                       << kTile << " and " << forallPanels;
  return success();
}

LogicalResult
SparseLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                         int64_t block, int64_t local, int64_t stride,
                         int64_t fixed, int64_t summary, int64_t global,
                         bool split) {
  if (block < 1)
    return emitError() << "sparse layout: block must be >= 1, got " << block;
  for (auto [name, value] : {std::pair<StringRef, int64_t>{"local", local},
                             {"stride", stride},
                             {"fixed", fixed},
                             {"summary", summary},
                             {"global", global}})
    if (value < 0)
      return emitError() << "sparse layout: " << name << " must be >= 0, got "
                         << value;
  if (summary > 0 && (fixed == 0 || summary > fixed))
    return emitError() << "sparse layout: summary (" << summary
                       << ") needs fixed >= summary, got fixed = " << fixed;
  if (local == 0 && stride == 0 && fixed == 0 && global == 0)
    return emitError() << "sparse layout: no component (expected at least one "
                          "of local, stride, fixed, global > 0)";
  if (split && ((local == 0 && fixed == 0) || (stride == 0 && summary == 0)))
    return emitError() << "sparse layout: split needs a first factor (local "
                          "or fixed) and a second (stride or summary)";
  return success();
}

void AttuneDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "dialect/AttuneOps.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "dialect/AttuneAttrs.cpp.inc"
      >();
}

/// Folded constants (attune.cast of a constant) are arith.constants.
Operation *AttuneDialect::materializeConstant(OpBuilder &builder,
                                              Attribute value, Type type,
                                              Location loc) {
  auto typed = dyn_cast<TypedAttr>(value);
  if (!typed || typed.getType() != type)
    return nullptr;
  return arith::ConstantOp::create(builder, loc, type, typed);
}

//===----------------------------------------------------------------------===//
// The generation contract
//===----------------------------------------------------------------------===//

static LogicalResult verifyNameOrState(Operation *op, NamedAttribute attr,
                                       StringRef where) {
  if (attr.getName() != kNameAttr && attr.getName() != kStateAttr &&
      attr.getName() != kContextAttr)
    return success();
  auto name = dyn_cast<StringAttr>(attr.getValue());
  if (!name || name.getValue().empty())
    return op->emitError() << attr.getName().getValue() << " on " << where
                           << " must be a non-empty string, got "
                           << attr.getValue();
  if (!isa<FunctionOpInterface>(op))
    return op->emitError() << attr.getName().getValue()
                           << " belongs on a function's arguments and results";
  return success();
}

LogicalResult AttuneDialect::verifyRegionArgAttribute(Operation *op, unsigned,
                                                      unsigned arg,
                                                      NamedAttribute attr) {
  return verifyNameOrState(op, attr, "argument #" + std::to_string(arg));
}

LogicalResult AttuneDialect::verifyRegionResultAttribute(Operation *op,
                                                         unsigned,
                                                         unsigned result,
                                                         NamedAttribute attr) {
  return verifyNameOrState(op, attr, "result #" + std::to_string(result));
}

/// (tokens [B, T], positions [B], lengths [B], states...) -> (logits [B, V],
/// the same states, in the same order): what the runtime's loop calls.
static LogicalResult verifyGenerationStep(func::FuncOp func) {
  FunctionType type = func.getFunctionType();
  // The contract is the description's, on tensors; a bufferized step (its
  // states about to be dropped from the results) is not checked again.
  if (llvm::any_of(type.getInputs(), llvm::IsaPred<BaseMemRefType>))
    return success();
  auto fail = [&]() {
    return func.emitOpError()
           << "is a generation step (" << kGenerationStepAttr << "): ";
  };
  auto tensorOf = [](Type t) { return dyn_cast<RankedTensorType>(t); };
  auto isIndexTensor = [&](Type t, int64_t rank) {
    auto tensor = tensorOf(t);
    return tensor && tensor.getRank() == rank &&
           (tensor.getElementType().isInteger(64) ||
            tensor.getElementType().isInteger(32));
  };
  if (type.getNumInputs() < 4)
    return fail() << "expected (tokens, positions, lengths, then its "
                     "contexts and states), got "
                  << type.getNumInputs() << " argument(s)";
  if (!isIndexTensor(type.getInput(0), 2))
    return fail() << "argument #0 (tokens) must be an i32 or i64 tensor "
                     "[B, T], got "
                  << type.getInput(0);
  for (unsigned i : {1u, 2u})
    if (!isIndexTensor(type.getInput(i), 1))
      return fail() << "argument #" << i
                    << (i == 1 ? " (positions)" : " (lengths)")
                    << " must be an i32 or i64 tensor [B], got "
                    << type.getInput(i);
  SmallVector<StringAttr> states, names;
  SmallVector<unsigned> stateArgs;
  for (unsigned i = 0; i < type.getNumInputs(); ++i) {
    auto state = func.getArgAttrOfType<StringAttr>(i, kStateAttr);
    auto context = func.getArgAttrOfType<StringAttr>(i, kContextAttr);
    if ((i >= 3) != (state || context) || (state && context))
      return fail() << "argument #" << i
                    << (i < 3 ? " must not be a state or a context"
                              : " must be a state (" + kStateAttr.str() +
                                    " = \"name\") or a context (" +
                                    kContextAttr.str() +
                                    " = \"name\"): every argument after "
                                    "lengths is one of them");
    StringAttr name = state ? state : context;
    if (!name)
      continue;
    if (llvm::is_contained(names, name))
      return fail() << "two states or contexts are named '" << name.getValue()
                    << "'";
    names.push_back(name);
    auto tensor = tensorOf(type.getInput(i));
    if (context) {
      if (!tensor || tensor.getRank() < 1)
        return fail() << "context '" << context.getValue()
                      << "' must be a tensor [B, ...], got "
                      << type.getInput(i);
      continue;
    }
    if (!tensor || !isa<FloatType>(tensor.getElementType()) ||
        tensor.getRank() < 1)
      return fail() << "state '" << state.getValue()
                    << "' must be a float tensor [B, ...], got "
                    << type.getInput(i);
    states.push_back(state);
    stateArgs.push_back(i);
  }
  if (states.empty())
    return fail() << "it has no state (" << kStateAttr
                  << "): a step updates at least one";
  // After the states, attention maps (attune-compile --attention-maps):
  // float tensors [B, (H,) T, Lk] named attn.<site> (the driver drops the
  // names once the metadata holds them), the runtime's per-step weights.
  unsigned maps = 0;
  for (unsigned r = states.size() + 1; r < type.getNumResults(); ++r) {
    auto name = func.getResultAttrOfType<StringAttr>(r, kNameAttr);
    auto map = tensorOf(type.getResult(r));
    if (func.getResultAttr(r, kStateAttr) || !map ||
        !isa<FloatType>(map.getElementType()) ||
        (map.getRank() != 3 && map.getRank() != 4) ||
        (name &&
         !name.getValue().starts_with(::attune::artifact::kAttentionMapPrefix)))
      break;
    ++maps;
  }
  if (type.getNumResults() != states.size() + 1 + maps)
    return fail() << "expected " << states.size() + 1
                  << " results (logits, then the " << states.size()
                  << " states, then any attention maps), got "
                  << type.getNumResults();
  auto logits = tensorOf(type.getResult(0));
  if (!logits || logits.getRank() != 2 ||
      !isa<FloatType>(logits.getElementType()) ||
      func.getResultAttr(0, kStateAttr))
    return fail() << "result #0 (logits) must be a float tensor [B, V], got "
                  << type.getResult(0);
  for (auto [i, state] : llvm::enumerate(states)) {
    unsigned r = i + 1;
    auto name = func.getResultAttrOfType<StringAttr>(r, kStateAttr);
    if (name != state)
      return fail() << "result #" << r << " must be the state '"
                    << state.getValue() << "' (" << kStateAttr << " = \""
                    << state.getValue() << "\"), the order of the arguments";
    if (type.getResult(r) != type.getInput(stateArgs[i]))
      return fail() << "state '" << state.getValue() << "' is "
                    << type.getInput(stateArgs[i]) << " as an argument but "
                    << type.getResult(r) << " as a result";
  }
  return success();
}

/// (the user's inputs) -> (contexts, each [B, ...], with distinct names).
static LogicalResult verifyGenerationEncoder(func::FuncOp func) {
  FunctionType type = func.getFunctionType();
  if (llvm::any_of(type.getInputs(), llvm::IsaPred<BaseMemRefType>))
    return success();
  SmallVector<StringAttr> names;
  if (type.getNumResults() == 0)
    return func.emitOpError() << "is a generation encoder ("
                              << kGenerationEncoderAttr
                              << "): it returns no context";
  for (unsigned r = 0; r < type.getNumResults(); ++r) {
    auto context = func.getResultAttrOfType<StringAttr>(r, kContextAttr);
    auto state = func.getResultAttrOfType<StringAttr>(r, kStateAttr);
    StringAttr name = context ? context : state;
    auto tensor = dyn_cast<RankedTensorType>(type.getResult(r));
    if (!name || (context && state) || !tensor || tensor.getRank() < 1)
      return func.emitOpError()
             << "is a generation encoder (" << kGenerationEncoderAttr
             << "): result #" << r << " must be a context [B, ...] ("
             << kContextAttr << " = \"name\") or the initial value of a "
             << "state (" << kStateAttr << " = \"name\"), got "
             << type.getResult(r);
    if (llvm::is_contained(names, name))
      return func.emitOpError()
             << "is a generation encoder (" << kGenerationEncoderAttr
             << "): two results are named '" << name.getValue() << "'";
    names.push_back(name);
  }
  return success();
}

LogicalResult AttuneDialect::verifyOperationAttribute(Operation *op,
                                                      NamedAttribute attr) {
  bool step = attr.getName() == kGenerationStepAttr;
  if (!step && attr.getName() != kGenerationEncoderAttr)
    return success();
  auto func = dyn_cast<func::FuncOp>(op);
  if (!func || !isa<UnitAttr>(attr.getValue()))
    return op->emitError() << attr.getName().getValue()
                           << " is a unit attribute of a func.func";
  if (func.isExternal())
    return success();
  if (func->hasAttr(kGenerationStepAttr) &&
      func->hasAttr(kGenerationEncoderAttr))
    return func.emitOpError() << "cannot be both the generation step and "
                                 "its encoder";
  return step ? verifyGenerationStep(func) : verifyGenerationEncoder(func);
}
