//===- Importer.h - the importer's state, shared by its files ---*- C++ -*-===//
//
// Internal to frontend/onnx. Every ONNX value the import reaches becomes a
// `Val`, one of:
//   - Host: numbers known at import (initializers, Constant, and whatever is
//     computed only from them), kept as bytes;
//   - Sym: an integer tensor of rank <= 1 whose elements are symbolic
//     dimensions, products of the graph's dynamic dims and a constant (what
//     `Shape` and the shape arithmetic around it compute: ONNX's own shape
//     inference loses ranks there, so the importer evaluates it itself);
//   - Tensor: an MLIR value, with the symbolic shape of each of its dims.
// Values are imported on demand from the graph's outputs, so nodes that only
// feed a raised pattern (the shape arithmetic inside an attention block) are
// never imported. Raisers (Raise.cpp) try each node before its generic form.
//
//===----------------------------------------------------------------------===//

#ifndef ATTUNE_FRONTEND_ONNX_IMPORTER_H
#define ATTUNE_FRONTEND_ONNX_IMPORTER_H

#include "frontend/onnx/Import.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"

#include <optional>

namespace attune::onnx_import {

/// coeff * product(syms): a dimension as the shape arithmetic sees it.
struct SymDim {
  int64_t coeff = 1;
  std::vector<std::string> syms; // sorted

  static SymDim constant(int64_t c) { return SymDim{c, {}}; }
  static SymDim symbol(std::string s) { return SymDim{1, {std::move(s)}}; }
  bool isConstant() const { return syms.empty(); }
  bool operator==(const SymDim &o) const {
    return coeff == o.coeff && syms == o.syms;
  }
  bool operator!=(const SymDim &o) const { return !(*this == o); }
  std::string str() const;
};
using SymShape = std::vector<SymDim>;
std::string shapeStr(const SymShape &shape);

/// a * b, or nullopt when the constant overflows.
std::optional<SymDim> symMul(const SymDim &a, const SymDim &b);
/// a / b when exact (symbols cancel, constants divide), else nullopt.
std::optional<SymDim> symDiv(const SymDim &a, const SymDim &b);

struct Val {
  enum Kind { Host, Sym, Tensor } kind = Host;
  // Host
  HostTensor host;
  std::string weightName; // the name a weight made of it is bound by
  // Sym: rank 0 (one element) or 1
  std::vector<SymDim> sym;
  bool symScalar = false;
  // Tensor
  mlir::Value value;
  SymShape shape;

  static Val ofHost(HostTensor t, std::string name = "") {
    Val v;
    v.kind = Host;
    v.host = std::move(t);
    v.weightName = std::move(name);
    return v;
  }
  static Val ofSym(std::vector<SymDim> s, bool scalar) {
    Val v;
    v.kind = Sym;
    v.sym = std::move(s);
    v.symScalar = scalar;
    return v;
  }
  static Val ofTensor(mlir::Value value, SymShape shape) {
    Val v;
    v.kind = Tensor;
    v.value = value;
    v.shape = std::move(shape);
    return v;
  }
  int64_t rank() const;
};

class Importer {
public:
  Importer(mlir::MLIRContext &context, const OnnxModel &model);

  llvm::Expected<ImportResult> run();

  // Graph access.
  const OnnxModel &model;
  /// The node producing `name`, or null (graph input, initializer, "").
  const onnx::NodeProto *producer(llvm::StringRef name) const;
  /// How many node inputs and graph outputs read `name`.
  int uses(llvm::StringRef name) const;
  /// The value of `name`, importing what it needs.
  llvm::Expected<Val> get(llvm::StringRef name);
  /// Input `i` of `node` (error if absent).
  llvm::Expected<Val> input(const onnx::NodeProto &node, int i);
  bool hasInput(const onnx::NodeProto &node, int i) const {
    return node.input_size() > i && !node.input(i).empty();
  }
  /// Input `i` of `node` as a target shape whose elements may be symbolic
  /// (Reshape's, Expand's): an error when it cannot be computed at import.
  llvm::Expected<SymShape> targetShape(const onnx::NodeProto &node, int i);
  /// Input `i` of `node` as integer constants (axes, split sizes); an
  /// error naming `what` when they are not known at import.
  llvm::Expected<std::vector<int64_t>>
  constantInts(const onnx::NodeProto &node, int i, llvm::StringRef what);
  /// Records `value` as the value of `node`'s output `i`.
  void define(const onnx::NodeProto &node, int i, Val value);

  // Emission.
  mlir::OpBuilder builder;
  mlir::Location loc(const onnx::NodeProto &node);
  /// A Tensor of `v`: Host values become weights (named ones, and any
  /// larger than a few elements) or constants; Sym values become i64
  /// constants when fully known.
  llvm::Expected<Val> asTensor(const Val &v, const onnx::NodeProto &node);
  /// Builds an op whose result types it infers, as OpTy::create does, but
  /// returns an error with the op's own message where inference fails
  /// (OpTy::create aborts there, and malformed models reach the builders).
  /// Use ATTUNE_MAKE in functions returning llvm::Error or llvm::Expected.
  template <typename OpTy, typename... Args>
  llvm::Expected<OpTy> make(const onnx::NodeProto &node, mlir::Location loc,
                            Args &&...args) {
    mlir::OperationState state(loc, OpTy::getOperationName());
    OpTy::build(builder, state, mlir::TypeRange(), std::forward<Args>(args)...);
    mlir::MLIRContext *ctx = builder.getContext();
    llvm::SmallVector<mlir::Type> types;
    std::string message;
    {
      mlir::ScopedDiagnosticHandler capture(ctx, [&](mlir::Diagnostic &d) {
        if (message.empty())
          message = d.str();
        return mlir::success();
      });
      if (mlir::failed(OpTy::inferReturnTypes(
              ctx, loc, state.operands, state.attributes.getDictionary(ctx),
              state.getRawProperties(), state.regions, types)))
        return fail(node, "cannot import as " + OpTy::getOperationName().str() +
                              ": " +
                              (message.empty() ? "invalid operands" : message));
    }
    state.addTypes(types);
    return mlir::cast<OpTy>(builder.create(state));
  }

  /// The run-time value (index) of a symbolic extent: the constant times
  /// the graph inputs' dims it is a product of; nullopt for a symbol no
  /// graph input has.
  std::optional<mlir::Value> extent(const SymDim &dim, mlir::Location loc);
  /// The extents of the dynamic dims of `shape`, in order (the `sizes` of
  /// attune.reshape and attune.broadcast); an error starting with `what`
  /// for one extent() cannot compute.
  llvm::Expected<llvm::SmallVector<mlir::Value>>
  dynamicExtents(const onnx::NodeProto &node, const SymShape &shape,
                 const llvm::Twine &what);

  /// An attune.weight bound by `name`, recorded for the weights file.
  mlir::Value weight(llvm::StringRef name, const HostTensor &data,
                     mlir::Location loc);
  /// Symbolic shape of an MLIR value whose dims match `shape` where known.
  Val tensor(mlir::Value v, SymShape shape);
  /// The attune element type of an ONNX one, or null.
  mlir::Type elementType(int32_t onnxType);
  /// The element type a known tensor is materialized in.
  mlir::Type elementType(const HostTensor &t);

  /// The batch-first output [B, L, dirs*H] of each imported LSTM/GRU node,
  /// by its Y output's name (Raise.cpp).
  llvm::StringMap<Val> recurrentOutputs;

  // Messages.
  llvm::Error fail(const onnx::NodeProto &node, const llvm::Twine &message);
  void explain(const std::string &line) { explanation.push_back(line); }
  static std::string describe(const onnx::NodeProto &node);

private:
  llvm::Error importNode(const onnx::NodeProto &node);
  llvm::Error importGeneric(const onnx::NodeProto &node);
  llvm::Error declareInputs(mlir::Block &body,
                            llvm::SmallVectorImpl<mlir::Type> &types);

  mlir::MLIRContext &context;
  llvm::StringMap<std::pair<const onnx::NodeProto *, int>> producers;
  llvm::StringMap<int> useCounts;
  llvm::StringMap<Val> values;
  llvm::StringMap<bool> inProgress;
  llvm::StringMap<mlir::Value> weightValues;
  /// A graph input and dim of each symbolic dim of the inputs.
  llvm::StringMap<std::pair<mlir::Value, int64_t>> symbolSources;
  std::vector<std::pair<std::string, HostTensor>> weights;
  std::vector<std::string> explanation;
  mlir::Block *body = nullptr;
  mlir::Operation *lastWeight = nullptr;
  int depth = 0;
  std::string notRaised; // the patterns tried on the node being imported

public:
  /// The longest chain of nodes the import follows (see get()).
  static constexpr int kMaxDepth = 20000;
};

/// Tries the raised patterns anchored at `node` (Raise.cpp). Returns true
/// when one matched and defined the node's outputs; else `tried` names the
/// patterns that did not match (for --explain).
llvm::Expected<bool> raisePattern(Importer &importer,
                                  const onnx::NodeProto &node,
                                  std::string &tried);

/// A weight applied by a MatMul(x, B) in PyTorch's [out, in] layout, and
/// the name to bind it by (Raise.cpp says how it is recovered).
struct NamedWeight {
  HostTensor data;
  std::string name;
};
std::optional<NamedWeight> matmulWeight(Importer &I,
                                        const onnx::NodeProto &matmul,
                                        llvm::StringRef suffix,
                                        llvm::StringRef biasSuffix = ".bias",
                                        llvm::StringRef confirm = "");
/// A 2-D known tensor transposed.
HostTensor transposed2d(const HostTensor &w);
/// The initializer holding exactly `t`, if any.
std::optional<std::string> sameAs(Importer &I, const HostTensor &t);

// Attribute access.
int64_t attrInt(const onnx::NodeProto &node, llvm::StringRef name,
                int64_t fallback);
float attrFloat(const onnx::NodeProto &node, llvm::StringRef name,
                float fallback);
std::optional<std::vector<int64_t>> attrInts(const onnx::NodeProto &node,
                                             llvm::StringRef name);
const onnx::AttributeProto *attr(const onnx::NodeProto &node,
                                 llvm::StringRef name);

} // namespace attune::onnx_import

/// `importer.make<OP>(node, args...)`'s op, or a return of its error from
/// the enclosing function (a GNU statement expression, as GCC and clang
/// accept: every op the importer builds goes through it).
#define ATTUNE_MAKE(importer, OP, node, ...)                                   \
  ({                                                                           \
    auto made_ = (importer).make<OP>(node, __VA_ARGS__);                       \
    if (!made_)                                                                \
      return made_.takeError();                                                \
    *made_;                                                                    \
  })

#endif // ATTUNE_FRONTEND_ONNX_IMPORTER_H
