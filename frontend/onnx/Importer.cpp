//===- Importer.cpp - ONNX nodes in generic form, and the import driver ---===//
//
// Each ONNX op the importer knows has a generic form here: shape arithmetic
// is evaluated (Host and Sym values), and tensor ops become the attune op of
// the same meaning. Raised patterns (Raise.cpp) are tried first.
//
//===----------------------------------------------------------------------===//

#include "frontend/onnx/Importer.h"

#include "attune/safetensors.h"
#include "dialect/AttuneOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/thread.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

using namespace mlir;
namespace at = mlir::attune;
using llvm::StringRef;

namespace attune::onnx_import {

//===----------------------------------------------------------------------===//
// Symbolic dims
//===----------------------------------------------------------------------===//

std::string SymDim::str() const {
  if (syms.empty())
    return std::to_string(coeff);
  std::string s = coeff == 1 ? "" : std::to_string(coeff) + "*";
  return s + llvm::join(syms, "*");
}

std::string shapeStr(const SymShape &shape) {
  std::vector<std::string> parts;
  for (const SymDim &d : shape)
    parts.push_back(d.str());
  return "[" + llvm::join(parts, ", ") + "]";
}

std::optional<SymDim> symMul(const SymDim &a, const SymDim &b) {
  SymDim r;
  if (__builtin_mul_overflow(a.coeff, b.coeff, &r.coeff) ||
      a.syms.size() + b.syms.size() > 16)
    return std::nullopt;
  if (r.coeff == 0)
    return SymDim::constant(0);
  r.syms = a.syms;
  r.syms.insert(r.syms.end(), b.syms.begin(), b.syms.end());
  llvm::sort(r.syms);
  return r;
}

std::optional<SymDim> symDiv(const SymDim &a, const SymDim &b) {
  if (b.coeff == 0 || a.coeff % b.coeff != 0)
    return std::nullopt;
  std::vector<std::string> rest = a.syms;
  for (const std::string &s : b.syms) {
    auto it = llvm::find(rest, s);
    if (it == rest.end())
      return std::nullopt;
    rest.erase(it);
  }
  return SymDim{a.coeff / b.coeff, rest};
}

int64_t Val::rank() const {
  switch (kind) {
  case Host:
    return int64_t(host.shape.size());
  case Sym:
    return symScalar ? 0 : 1;
  case Tensor:
    return int64_t(shape.size());
  }
  return 0;
}

//===----------------------------------------------------------------------===//
// Attributes
//===----------------------------------------------------------------------===//

const onnx::AttributeProto *attr(const onnx::NodeProto &node, StringRef name) {
  for (const onnx::AttributeProto &a : node.attribute())
    if (a.name() == name)
      return &a;
  return nullptr;
}

int64_t attrInt(const onnx::NodeProto &node, StringRef name, int64_t fallback) {
  const onnx::AttributeProto *a = attr(node, name);
  return a ? a->i() : fallback;
}

float attrFloat(const onnx::NodeProto &node, StringRef name, float fallback) {
  const onnx::AttributeProto *a = attr(node, name);
  return a ? a->f() : fallback;
}

std::optional<std::vector<int64_t>> attrInts(const onnx::NodeProto &node,
                                             StringRef name) {
  const onnx::AttributeProto *a = attr(node, name);
  if (!a)
    return std::nullopt;
  return std::vector<int64_t>(a->ints().begin(), a->ints().end());
}

//===----------------------------------------------------------------------===//
// Importer: graph access and emission helpers
//===----------------------------------------------------------------------===//

Importer::Importer(MLIRContext &context, const OnnxModel &model)
    : model(model), builder(&context), context(context) {
  const onnx::GraphProto &graph = model.graph();
  for (const onnx::NodeProto &node : graph.node()) {
    for (int i = 0; i < node.output_size(); ++i)
      if (!node.output(i).empty())
        producers[node.output(i)] = {&node, i};
    for (const std::string &in : node.input())
      if (!in.empty())
        ++useCounts[in];
  }
  for (const onnx::ValueInfoProto &out : graph.output())
    ++useCounts[out.name()];
}

const onnx::NodeProto *Importer::producer(StringRef name) const {
  auto it = producers.find(name);
  return it == producers.end() ? nullptr : it->second.first;
}

int Importer::uses(StringRef name) const {
  auto it = useCounts.find(name);
  return it == useCounts.end() ? 0 : it->second;
}

std::string Importer::describe(const onnx::NodeProto &node) {
  std::string name = node.name().empty()
                         ? (node.output_size() ? node.output(0) : "?")
                         : node.name();
  return "node '" + name + "' (" + node.op_type() + ")";
}

llvm::Error Importer::fail(const onnx::NodeProto &node,
                           const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 model.path + ": " + describe(node) + ": " +
                                     message.str());
}

Location Importer::loc(const onnx::NodeProto &node) {
  std::string name = node.name().empty()
                         ? (node.output_size() ? node.output(0) : "?")
                         : node.name();
  return NameLoc::get(StringAttr::get(&context, name),
                      FileLineColLoc::get(&context, model.path, 0, 0));
}

Type Importer::elementType(int32_t onnxType) {
  // The one map from ONNX element types to the attune ones; the rest have
  // no attune type (DOUBLE constants are computed in f32, see normalized).
  switch (onnxType) {
  case onnx::TensorProto::FLOAT:
    return builder.getF32Type();
  case onnx::TensorProto::FLOAT16:
    return builder.getF16Type();
  case onnx::TensorProto::BFLOAT16:
    return builder.getBF16Type();
  case onnx::TensorProto::INT64:
    return builder.getI64Type();
  case onnx::TensorProto::INT32:
    return builder.getI32Type();
  case onnx::TensorProto::BOOL:
    return builder.getI1Type();
  default:
    return Type();
  }
}

Type Importer::elementType(const HostTensor &t) {
  Type type = elementType(t.type);
  return type ? type : builder.getF32Type();
}

static RankedTensorType typeOf(const SymShape &shape, Type element) {
  SmallVector<int64_t> dims;
  for (const SymDim &d : shape)
    dims.push_back(d.isConstant() ? d.coeff : ShapedType::kDynamic);
  return RankedTensorType::get(dims, element);
}

/// `t` as the type the attune ops compute in: f32 for DOUBLE, the rest as
/// they are.
static HostTensor normalized(const HostTensor &t) {
  if (t.type != onnx::TensorProto::DOUBLE)
    return t;
  std::vector<float> values(t.numElements());
  for (int64_t i = 0; i < t.numElements(); ++i)
    values[i] = float(t.asDouble(i));
  return HostTensor::fromFloats(t.shape, values);
}

Value Importer::weight(StringRef name, const HostTensor &data, Location loc) {
  auto it = weightValues.find(name);
  if (it != weightValues.end())
    return it->second;
  HostTensor t = normalized(data);
  SymShape shape;
  for (int64_t d : t.shape)
    shape.push_back(SymDim::constant(d));
  // Weights first, in the order of their first use.
  OpBuilder::InsertionGuard guard(builder);
  if (lastWeight)
    builder.setInsertionPointAfter(lastWeight);
  else
    builder.setInsertionPointToStart(body);
  auto op =
      at::WeightOp::create(builder, loc, typeOf(shape, elementType(t)), name);
  lastWeight = op;
  Value v = op;
  weightValues[name] = v;
  weights.emplace_back(name.str(), t);
  return v;
}

Val Importer::tensor(Value v, SymShape shape) {
  auto type = cast<RankedTensorType>(v.getType());
  for (auto [i, d] : llvm::enumerate(type.getShape()))
    if (i < shape.size() && !ShapedType::isDynamic(d))
      shape[i] = SymDim::constant(d);
  return Val::ofTensor(v, std::move(shape));
}

llvm::Expected<Val> Importer::asTensor(const Val &v,
                                       const onnx::NodeProto &node) {
  if (v.kind == Val::Tensor)
    return v;
  Location l = loc(node);
  if (v.kind == Val::Sym) {
    std::vector<int64_t> ints;
    for (const SymDim &d : v.sym) {
      if (!d.isConstant())
        return fail(node, "uses shape values " + shapeStr(v.sym) +
                              " as data, which is not supported");
      ints.push_back(d.coeff);
    }
    std::vector<int64_t> shape;
    if (!v.symScalar)
      shape.push_back(int64_t(ints.size()));
    return asTensor(Val::ofHost(HostTensor::fromInts(shape, ints)), node);
  }
  HostTensor t = normalized(v.host);
  if (!elementTypeInfo(t.type) || t.type == onnx::TensorProto::INT8 ||
      t.type == onnx::TensorProto::UINT8 || t.type == onnx::TensorProto::INT16)
    return fail(node, "a constant of type " + elementTypeName(t.type) +
                          " used as a tensor is not supported (expected "
                          "FLOAT, FLOAT16, BFLOAT16, INT64, INT32 or BOOL)");
  SymShape shape;
  for (int64_t d : t.shape)
    shape.push_back(SymDim::constant(d));
  if (t.type == onnx::TensorProto::BOOL) {
    // i1 elements are not bytes in a DenseElementsAttr: built from bools.
    std::vector<bool> bits(t.numElements());
    for (int64_t i = 0; i < t.numElements(); ++i)
      bits[i] = t.data()[i] != 0;
    SmallVector<bool> values(bits.begin(), bits.end());
    auto attr = DenseElementsAttr::get(typeOf(shape, builder.getI1Type()),
                                       ArrayRef<bool>(values));
    return tensor(arith::ConstantOp::create(builder, l, attr), shape);
  }
  // Weights are float; integer constants (indices) stay inline.
  if (t.isFloat() && (!v.weightName.empty() || t.numElements() > 64))
    return tensor(
        weight(v.weightName.empty() ? "onnx::" + node.output(0) : v.weightName,
               t, l),
        shape);
  auto type = typeOf(shape, elementType(t));
  auto attr = DenseElementsAttr::getFromRawBuffer(
      type, ArrayRef<char>(t.data(), t.bytes->size()));
  return tensor(arith::ConstantOp::create(builder, l, attr), shape);
}

std::optional<Value> Importer::extent(const SymDim &dim, Location l) {
  Value n = arith::ConstantIndexOp::create(builder, l, dim.coeff);
  for (const std::string &sym : dim.syms) {
    auto it = symbolSources.find(sym);
    if (it == symbolSources.end())
      return std::nullopt;
    auto [arg, d] = it->second;
    n = arith::MulIOp::create(builder, l, n,
                              tensor::DimOp::create(builder, l, arg, d));
  }
  return n;
}

llvm::Expected<SmallVector<Value>>
Importer::dynamicExtents(const onnx::NodeProto &node, const SymShape &shape,
                         const llvm::Twine &what) {
  SmallVector<Value> sizes;
  for (const SymDim &d : shape) {
    if (d.isConstant())
      continue;
    std::optional<Value> e = extent(d, loc(node));
    if (!e)
      return fail(node, what + "the extent " + d.str() +
                            " is not a product of the graph inputs' dims");
    sizes.push_back(*e);
  }
  return sizes;
}

void Importer::define(const onnx::NodeProto &node, int i, Val value) {
  if (i < node.output_size() && !node.output(i).empty())
    values[node.output(i)] = std::move(value);
}

llvm::Expected<Val> Importer::input(const onnx::NodeProto &node, int i) {
  if (!hasInput(node, i))
    return fail(node, "input " + llvm::Twine(i) + " is missing");
  StringRef name = node.input(i);
  if (!values.count(name) && !model.initializers.count(name.str()) &&
      !producers.count(name))
    return fail(node, "reads '" + name +
                          "', which no node, graph input or "
                          "initializer defines");
  return get(name);
}

llvm::Expected<Val> Importer::get(StringRef name) {
  auto it = values.find(name);
  if (it != values.end())
    return it->second;
  auto init = model.initializers.find(name.str());
  if (init != model.initializers.end()) {
    Val v = Val::ofHost(init->second, name.str());
    values[name] = v;
    return v;
  }
  auto p = producers.find(name);
  if (p == producers.end())
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   model.path + ": value '" + name.str() +
                                       "' is used but never defined");
  const onnx::NodeProto &node = *p->second.first;
  if (inProgress.lookup(name))
    return fail(node, "the graph has a cycle through '" + name.str() + "'");
  // Import recurses from the outputs towards the inputs, on a thread with a
  // large stack (importOnnx): a chain deeper than this is refused rather
  // than overflowing it.
  if (depth >= kMaxDepth)
    return fail(node, "the graph is deeper than " + llvm::Twine(kMaxDepth) +
                          " nodes from its outputs");
  for (const std::string &out : node.output())
    inProgress[out] = true;
  ++depth;
  llvm::Error error = importNode(node);
  --depth;
  for (const std::string &out : node.output())
    inProgress.erase(out);
  if (error)
    return std::move(error);
  it = values.find(name);
  if (it == values.end())
    return fail(node, "output '" + name.str() + "' was not produced");
  return it->second;
}

llvm::Error Importer::importNode(const onnx::NodeProto &node) {
  if (!node.domain().empty() && node.domain() != "ai.onnx")
    return fail(node, "operator domain '" + node.domain() +
                          "' is not supported (only the default ONNX domain)");
  if (model.opset < opsetSemanticsSince(node.op_type()))
    return fail(node, "at opset " + llvm::Twine(model.opset) + ", " +
                          node.op_type() +
                          " means something else than the importer "
                          "implements (its meaning changed at opset " +
                          llvm::Twine(opsetSemanticsSince(node.op_type())) +
                          "); re-export with opset " + llvm::Twine(kMinOpset) +
                          ".." + llvm::Twine(kMaxOpset));
  llvm::Expected<bool> raised = raisePattern(*this, node, notRaised);
  if (!raised)
    return raised.takeError();
  if (*raised)
    return llvm::Error::success();
  llvm::Error e = importGeneric(node);
  notRaised.clear();
  return e;
}

//===----------------------------------------------------------------------===//
// Generic forms
//===----------------------------------------------------------------------===//

namespace {

/// The symbolic integer elements of `v` (Sym, or a Host integer tensor of
/// rank <= 1), or nullopt.
std::optional<std::vector<SymDim>> symElements(const Val &v) {
  if (v.kind == Val::Sym)
    return v.sym;
  if (v.kind == Val::Host && v.host.isInteger() && v.host.shape.size() <= 1) {
    std::vector<SymDim> out;
    for (int64_t i = 0; i < v.host.numElements(); ++i)
      out.push_back(SymDim::constant(v.host.asInt(i)));
    return out;
  }
  return std::nullopt;
}

bool isScalarShaped(const Val &v) { return v.rank() == 0; }

/// Broadcast of two symbolic shapes (NumPy rules), or nullopt.
std::optional<SymShape> broadcast(const SymShape &a, const SymShape &b) {
  size_t rank = std::max(a.size(), b.size());
  SymShape out(rank);
  for (size_t i = 0; i < rank; ++i) {
    const SymDim *da =
        i < rank - a.size() ? nullptr : &a[i - (rank - a.size())];
    const SymDim *db =
        i < rank - b.size() ? nullptr : &b[i - (rank - b.size())];
    if (!da) {
      out[i] = *db;
    } else if (!db) {
      out[i] = *da;
    } else if (*da == *db || *db == SymDim::constant(1)) {
      out[i] = *da;
    } else if (*da == SymDim::constant(1)) {
      out[i] = *db;
    } else if (!da->isConstant() || !db->isConstant()) {
      out[i] = da->isConstant() ? *db : *da; // checked at run time
    } else {
      return std::nullopt;
    }
  }
  return out;
}

/// Success when `v` (a Tensor) holds floats, what the attune compute ops
/// take.
static LogicalResult floatData(const Val &v) {
  return success(isa<FloatType>(
      cast<RankedTensorType>(v.value.getType()).getElementType()));
}

int64_t normAxis(int64_t axis, int64_t rank) {
  return axis < 0 ? axis + rank : axis;
}

// Data movement on known tensors (constant folding at import: exports
// without constant folding compute weights with Slice, Concat, Transpose).
int64_t elementSize(const HostTensor &t) {
  return int64_t(elementTypeInfo(t.type)->size);
}

/// Outer (dims before `axis`) and inner (dims after, times the element
/// size) extents.
std::pair<int64_t, int64_t> around(const HostTensor &t, int64_t axis) {
  int64_t outer = 1, inner = elementSize(t);
  for (int64_t i = 0; i < axis; ++i)
    outer *= t.shape[i];
  for (size_t i = axis + 1; i < t.shape.size(); ++i)
    inner *= t.shape[i];
  return {outer, inner};
}

HostTensor hostSlice(const HostTensor &t, int64_t axis, int64_t start,
                     int64_t size) {
  auto [outer, inner] = around(t, axis);
  HostTensor r = t;
  r.shape[axis] = size;
  auto bytes = std::make_shared<std::string>(outer * size * inner, '\0');
  if (size * inner > 0) // (empty tensors have no data pointer)
    for (int64_t o = 0; o < outer; ++o)
      std::memcpy(bytes->data() + o * size * inner,
                  t.data() + (o * t.shape[axis] + start) * inner, size * inner);
  r.bytes = std::move(bytes);
  return r;
}

HostTensor hostConcat(const std::vector<HostTensor> &ts, int64_t axis) {
  HostTensor r = ts.front();
  r.shape[axis] = 0;
  for (const HostTensor &t : ts)
    r.shape[axis] += t.shape[axis];
  auto [outer, inner] = around(r, axis);
  auto bytes = std::make_shared<std::string>();
  bytes->reserve(outer * r.shape[axis] * inner);
  for (int64_t o = 0; o < outer; ++o)
    for (const HostTensor &t : ts) {
      const char *p = t.data() + o * t.shape[axis] * inner;
      bytes->insert(bytes->end(), p, p + t.shape[axis] * inner);
    }
  r.bytes = std::move(bytes);
  return r;
}

HostTensor hostTranspose(const HostTensor &t,
                         const std::vector<int64_t> &perm) {
  size_t rank = t.shape.size();
  int64_t es = elementSize(t);
  std::vector<int64_t> inStrides(rank, 1);
  for (int64_t i = int64_t(rank) - 2; i >= 0; --i)
    inStrides[i] = inStrides[i + 1] * t.shape[i + 1];
  HostTensor r = t;
  for (size_t d = 0; d < rank; ++d)
    r.shape[d] = t.shape[perm[d]];
  int64_t n = t.numElements();
  auto bytes = std::make_shared<std::string>(n * es, '\0');
  std::vector<int64_t> index(rank, 0);
  for (int64_t k = 0; k < n; ++k) {
    int64_t src = 0;
    for (size_t d = 0; d < rank; ++d)
      src += index[d] * inStrides[perm[d]];
    std::memcpy(bytes->data() + k * es, t.data() + src * es, es);
    for (int64_t d = int64_t(rank) - 1; d >= 0; --d) {
      if (++index[d] < r.shape[d])
        break;
      index[d] = 0;
    }
  }
  r.bytes = std::move(bytes);
  return r;
}

} // namespace

llvm::Expected<SymShape> Importer::targetShape(const onnx::NodeProto &node,
                                               int i) {
  auto v = input(node, i);
  if (!v)
    return v.takeError();
  auto elements = symElements(*v);
  if (!elements)
    return fail(node, "the target shape must be computable at import");
  return *elements;
}

llvm::Expected<std::vector<int64_t>>
Importer::constantInts(const onnx::NodeProto &node, int i, StringRef what) {
  auto v = input(node, i);
  if (!v)
    return v.takeError();
  auto elements = symElements(*v);
  if (!elements)
    return fail(node, what + " must be known at import");
  std::vector<int64_t> ints;
  for (const SymDim &d : *elements) {
    if (!d.isConstant())
      return fail(node, what + " must be constants");
    ints.push_back(d.coeff);
  }
  return ints;
}

llvm::Error Importer::importGeneric(const onnx::NodeProto &node) {
  StringRef op = node.op_type();
  Location l = loc(node);
  auto out = [&](Val v) {
    define(node, 0, std::move(v));
    return llvm::Error::success();
  };
  // What no raiser matched, said once the node's own inputs are imported
  // (they may use notRaised for their own nodes).
  std::string tried = notRaised;
  auto generic = [&](StringRef what) {
    explain("generic  " + describe(node) + " -> " + what.str() +
            (tried.empty() ? "" : " (not a " + tried + " pattern)"));
  };

  // Data movement and constants.
  if (op == "Identity") {
    auto x = input(node, 0);
    if (!x)
      return x.takeError();
    Val v = *x;
    // An initializer aliased under another name (torch stores identical
    // tensors once): the alias is the state_dict key of this use.
    if (v.kind == Val::Host && !v.weightName.empty())
      v.weightName = node.output(0);
    return out(std::move(v));
  }
  if (op == "Constant") {
    if (const onnx::AttributeProto *a = attr(node, "value")) {
      auto t = readTensor(a->t(), model,
                          model.path + ": " + describe(node) + ": value");
      if (!t)
        return t.takeError();
      return out(Val::ofHost(std::move(*t)));
    }
    if (const onnx::AttributeProto *a = attr(node, "value_float"))
      return out(Val::ofHost(HostTensor::fromFloats({}, {a->f()})));
    if (const onnx::AttributeProto *a = attr(node, "value_int"))
      return out(Val::ofHost(HostTensor::fromInts({}, {a->i()})));
    if (const onnx::AttributeProto *a = attr(node, "value_floats"))
      return out(Val::ofHost(HostTensor::fromFloats(
          {a->floats_size()}, {a->floats().begin(), a->floats().end()})));
    if (const onnx::AttributeProto *a = attr(node, "value_ints"))
      return out(Val::ofHost(HostTensor::fromInts(
          {a->ints_size()}, {a->ints().begin(), a->ints().end()})));
    return fail(node, "expected a value, value_float(s) or value_int(s) "
                      "attribute (sparse and string constants are not "
                      "supported)");
  }
  if (op == "Shape") {
    auto x = input(node, 0);
    if (!x)
      return x.takeError();
    SymShape shape;
    if (x->kind == Val::Tensor)
      shape = x->shape;
    else if (x->kind == Val::Host)
      for (int64_t d : x->host.shape)
        shape.push_back(SymDim::constant(d));
    else if (!x->symScalar)
      shape.push_back(SymDim::constant(int64_t(x->sym.size())));
    int64_t rank = int64_t(shape.size());
    int64_t start =
        std::clamp<int64_t>(normAxis(attrInt(node, "start", 0), rank), 0, rank);
    int64_t end = std::clamp<int64_t>(
        normAxis(attrInt(node, "end", rank), rank), 0, rank);
    return out(Val::ofSym(
        SymShape(shape.begin() + start, shape.begin() + std::max(start, end)),
        false));
  }

  // Shape arithmetic, evaluated when every operand is a shape value.
  bool binary = op == "Add" || op == "Sub" || op == "Mul" || op == "Div";
  if (binary) {
    auto a = input(node, 0);
    if (!a)
      return a.takeError();
    auto b = input(node, 1);
    if (!b)
      return b.takeError();
    auto sa = symElements(*a), sb = symElements(*b);
    if (sa && sb &&
        (sa->size() == sb->size() || sa->size() == 1 || sb->size() == 1)) {
      size_t n = std::max(sa->size(), sb->size());
      std::vector<SymDim> r;
      for (size_t i = 0; i < n; ++i) {
        const SymDim &x = (*sa)[sa->size() == 1 ? 0 : i];
        const SymDim &y = (*sb)[sb->size() == 1 ? 0 : i];
        if (op == "Mul") {
          std::optional<SymDim> p = symMul(x, y);
          if (!p)
            return fail(node, "shape value " + x.str() + " * " + y.str() +
                                  " overflows");
          r.push_back(*p);
        } else if (op == "Div") {
          std::optional<SymDim> q = symDiv(x, y);
          if (!q && x.isConstant() && y.isConstant() && y.coeff != 0) {
            // Integer division truncates toward zero, as ONNX says.
            q = SymDim::constant(x.coeff / y.coeff);
          }
          if (!q)
            return fail(node, "cannot divide shape value " + x.str() + " by " +
                                  y.str());
          r.push_back(*q);
        } else {
          int64_t sign = op == "Add" ? 1 : -1;
          if (x.syms != y.syms && !(y.coeff == 0) && !(x.coeff == 0))
            return fail(node, "cannot " + op.lower() + " shape values " +
                                  x.str() + " and " + y.str());
          int64_t sum;
          if (__builtin_mul_overflow(sign, y.coeff, &sum) ||
              __builtin_add_overflow(x.coeff, sum, &sum))
            return fail(node, "shape value " + x.str() + " " + op.str() + " " +
                                  y.str() + " overflows");
          if (x.coeff == 0)
            r.push_back(SymDim{sign * y.coeff, y.syms});
          else if (y.coeff == 0)
            r.push_back(x);
          else
            r.push_back(SymDim{sum, x.syms});
        }
      }
      bool scalar = isScalarShaped(*a) && isScalarShaped(*b);
      return out(Val::ofSym(r, scalar));
    }
  }
  if (op == "Gather") {
    auto data = input(node, 0);
    if (!data)
      return data.takeError();
    auto idx = input(node, 1);
    if (!idx)
      return idx.takeError();
    auto sd = symElements(*data);
    if (sd && idx->kind == Val::Host && idx->host.isInteger() &&
        data->rank() == 1) {
      std::vector<SymDim> r;
      for (int64_t i = 0; i < idx->host.numElements(); ++i) {
        int64_t k = idx->host.asInt(i);
        if (k < 0)
          k += int64_t(sd->size());
        if (k < 0 || k >= int64_t(sd->size()))
          return fail(node, "index " + llvm::Twine(idx->host.asInt(i)) +
                                " is out of range for " +
                                llvm::Twine(sd->size()) + " elements");
        r.push_back((*sd)[k]);
      }
      return out(Val::ofSym(r, idx->host.shape.empty()));
    }
    // A table lookup: rows of a 2-D table by integer ids.
    if (attrInt(node, "axis", 0) == 0 && data->rank() == 2 &&
        idx->kind == Val::Tensor &&
        isa<IntegerType>(
            cast<RankedTensorType>(idx->value.getType()).getElementType())) {
      auto table = asTensor(*data, node);
      if (!table)
        return table.takeError();
      generic("attune.embedding");
      SymShape shape = idx->shape;
      shape.push_back(table->shape[1]);
      return out(tensor(ATTUNE_MAKE(*this, at::EmbeddingOp, node, l, idx->value,
                                    table->value),
                        shape));
    }
    auto t = asTensor(*data, node);
    if (!t)
      return t.takeError();
    auto ti = asTensor(*idx, node);
    if (!ti)
      return ti.takeError();
    int64_t rank = t->rank();
    int64_t axis = attrInt(node, "axis", 0);
    if (axis < -rank || axis >= rank)
      return fail(node, "axis " + llvm::Twine(axis) +
                            " is out of range for rank " + llvm::Twine(rank));
    axis = normAxis(axis, rank);
    SymShape shape(t->shape.begin(), t->shape.begin() + axis);
    llvm::append_range(shape, ti->shape);
    shape.insert(shape.end(), t->shape.begin() + axis + 1, t->shape.end());
    generic("attune.gather");
    return out(tensor(
        ATTUNE_MAKE(*this, at::GatherOp, node, l, t->value, ti->value, axis),
        shape));
  }
  if (op == "Unsqueeze" || op == "Squeeze") {
    auto x = input(node, 0);
    if (!x)
      return x.takeError();
    std::vector<int64_t> axes;
    if (hasInput(node, 1)) {
      auto a = constantInts(node, 1, "axes");
      if (!a)
        return a.takeError();
      axes = std::move(*a);
    } else if (op == "Squeeze") {
      if (x->kind != Val::Tensor)
        return fail(node, "Squeeze without axes is only supported on tensors");
      for (auto [i, d] : llvm::enumerate(x->shape))
        if (d == SymDim::constant(1))
          axes.push_back(int64_t(i));
    } else {
      return fail(node, "Unsqueeze needs axes");
    }
    bool unsq = op == "Unsqueeze";
    int64_t rank = x->rank() + (unsq ? int64_t(axes.size()) : 0);
    for (int64_t &a : axes)
      a = normAxis(a, rank);
    llvm::sort(axes);
    if (auto sx = symElements(*x); sx && x->kind != Val::Tensor) {
      if (unsq && x->rank() == 0 && axes == std::vector<int64_t>{0})
        return out(Val::ofSym(*sx, false));
      if (!unsq && x->rank() == 1 && axes == std::vector<int64_t>{0} &&
          sx->size() == 1)
        return out(Val::ofSym(*sx, true));
    }
    if (x->kind == Val::Host) {
      HostTensor h = x->host;
      if (unsq)
        for (int64_t a : axes) {
          if (a < 0 || a > int64_t(h.shape.size()))
            return fail(node, "axis " + llvm::Twine(a) + " is out of range");
          h.shape.insert(h.shape.begin() + a, 1);
        }
      if (!unsq)
        for (int64_t a : llvm::reverse(axes)) {
          if (a < 0 || a >= int64_t(h.shape.size()) || h.shape[a] != 1)
            return fail(node, "axis " + llvm::Twine(a) + " is not a unit dim");
          h.shape.erase(h.shape.begin() + a);
        }
      return out(Val::ofHost(h, x->weightName));
    }
    auto t = asTensor(*x, node);
    if (!t)
      return t.takeError();
    Val v = *t;
    if (unsq) {
      for (int64_t a : axes) {
        if (a < 0 || a > v.rank())
          return fail(node, "axis " + llvm::Twine(a) + " is out of range");
        SymShape shape = v.shape;
        shape.insert(shape.begin() + a, SymDim::constant(1));
        v = tensor(ATTUNE_MAKE(*this, at::ExpandDimsOp, node, l, v.value, a),
                   shape);
      }
      generic("attune.expand_dims");
    } else {
      for (int64_t a : llvm::reverse(axes)) {
        if (a < 0 || a >= v.rank() || v.shape[a] != SymDim::constant(1))
          return fail(node, "axis " + llvm::Twine(a) + " of shape " +
                                shapeStr(v.shape) + " is not a unit dim");
        SymShape shape = v.shape;
        shape.erase(shape.begin() + a);
        v = tensor(ATTUNE_MAKE(*this, at::SqueezeOp, node, l, v.value, a),
                   shape);
      }
      generic("attune.squeeze");
    }
    return out(v);
  }
  if (op == "Concat") {
    std::vector<Val> ins;
    bool allSym = true;
    for (int i = 0; i < node.input_size(); ++i) {
      auto v = input(node, i);
      if (!v)
        return v.takeError();
      allSym &= v->kind != Val::Tensor && symElements(*v).has_value();
      ins.push_back(*v);
    }
    if (allSym) {
      std::vector<SymDim> r;
      for (const Val &v : ins) {
        std::vector<SymDim> elements = *symElements(v);
        r.insert(r.end(), elements.begin(), elements.end());
      }
      return out(Val::ofSym(r, false));
    }
    int64_t axis = attrInt(node, "axis", 0);
    if (llvm::all_of(ins, [](const Val &v) { return v.kind == Val::Host; })) {
      std::vector<HostTensor> hs;
      for (const Val &v : ins) {
        if (v.host.type != ins.front().host.type ||
            v.host.shape.size() != ins.front().host.shape.size())
          return fail(node, "inputs differ in type or rank");
        hs.push_back(v.host);
      }
      int64_t a = normAxis(axis, int64_t(hs.front().shape.size()));
      if (a < 0 || a >= int64_t(hs.front().shape.size()))
        return fail(node, "axis out of range");
      return out(Val::ofHost(hostConcat(hs, a)));
    }
    SmallVector<Value> operands;
    SymShape shape;
    for (const Val &v : ins) {
      auto t = asTensor(v, node);
      if (!t)
        return t.takeError();
      operands.push_back(t->value);
      int64_t a = normAxis(axis, t->rank());
      if (a < 0 || a >= t->rank())
        return fail(node, "axis " + llvm::Twine(axis) +
                              " is out of range for rank " +
                              llvm::Twine(t->rank()));
      if (operands.size() == 1) {
        shape = t->shape;
        continue;
      }
      if (t->rank() != int64_t(shape.size()) ||
          cast<RankedTensorType>(t->value.getType()).getElementType() !=
              cast<RankedTensorType>(operands.front().getType())
                  .getElementType())
        return fail(node, "inputs differ in rank or element type");
      for (int64_t d = 0; d < t->rank(); ++d)
        if (d != a && shape[d] != t->shape[d] && shape[d].isConstant() &&
            t->shape[d].isConstant())
          return fail(node, "inputs " + shapeStr(shape) + " and " +
                                shapeStr(t->shape) + " differ off the axis");
      if (shape[a].isConstant() && t->shape[a].isConstant())
        shape[a] = SymDim::constant(shape[a].coeff + t->shape[a].coeff);
      else // a sum of symbols: a fresh one
        shape[a] = SymDim::symbol(node.output(0) + "." + std::to_string(a));
    }
    generic("attune.concat");
    return out(tensor(ATTUNE_MAKE(*this, at::ConcatOp, node, l, operands, axis),
                      shape));
  }
  if (op == "Cast") {
    auto x = input(node, 0);
    if (!x)
      return x.takeError();
    int64_t to = attrInt(node, "to", 0);
    bool toInt =
        to == onnx::TensorProto::INT64 || to == onnx::TensorProto::INT32;
    if (auto sx = symElements(*x); sx && x->kind != Val::Tensor && toInt)
      return out(Val::ofSym(*sx, x->rank() == 0));
    if (x->kind == Val::Host && x->host.isFloat() &&
        to == onnx::TensorProto::FLOAT) {
      HostTensor t = x->host;
      std::vector<float> values(t.numElements());
      for (int64_t i = 0; i < t.numElements(); ++i)
        values[i] = float(t.asDouble(i));
      return out(Val::ofHost(HostTensor::fromFloats(t.shape, values)));
    }
    Type element = elementType(int32_t(to));
    if (!element || !(isa<FloatType>(element) || element.isInteger(1)))
      return fail(node, "cast to " + elementTypeName(int32_t(to)) +
                            " of tensor data is not supported (expected "
                            "FLOAT, FLOAT16, BFLOAT16 or BOOL)");
    auto t = asTensor(*x, node);
    if (!t)
      return t.takeError();
    if (element.isInteger(1)) {
      // x != 0 (NaN is true, as ONNX and torch's .bool() say).
      auto from = cast<RankedTensorType>(t->value.getType());
      if (from.getElementType().isInteger(1))
        return out(*t);
      auto zeroType = RankedTensorType::get({}, from.getElementType());
      Value zero = arith::ConstantOp::create(
          builder, l,
          isa<FloatType>(from.getElementType())
              ? DenseElementsAttr::get(
                    zeroType, FloatAttr::get(from.getElementType(), 0.0))
              : DenseElementsAttr::get(
                    zeroType, IntegerAttr::get(from.getElementType(), 0)));
      generic("attune.compare <ne>");
      return out(tensor(ATTUNE_MAKE(*this, at::CompareOp, node, l,
                                    at::ComparePredicate::ne, t->value, zero),
                        t->shape));
    }
    auto type = cast<RankedTensorType>(t->value.getType()).clone(element);
    generic("attune.cast");
    return out(
        tensor(at::CastOp::create(builder, l, type, t->value), t->shape));
  }
  if (op == "Slice") {
    auto x = input(node, 0);
    if (!x)
      return x.takeError();
    std::vector<std::vector<SymDim>> args;
    for (int i = 1; i < 5; ++i) {
      if (!hasInput(node, i)) {
        args.push_back({});
        continue;
      }
      auto v = input(node, i);
      if (!v)
        return v.takeError();
      auto s = symElements(*v);
      if (!s)
        return fail(node, "starts, ends, axes and steps must be known at "
                          "import");
      args.push_back(*s);
    }
    size_t n = args[0].size();
    if (args[1].size() != n)
      return fail(node, "starts and ends differ in length");
    std::vector<int64_t> axes, steps;
    for (size_t i = 0; i < n; ++i) {
      if (!args[2].empty() && !args[2][i].isConstant())
        return fail(node, "axes must be constants");
      axes.push_back(args[2].empty() ? int64_t(i) : args[2][i].coeff);
      if (!args[3].empty() && args[3][i] != SymDim::constant(1))
        return fail(node, "only step 1 is supported");
    }
    auto sx = symElements(*x);
    if (sx && x->kind != Val::Tensor && n == 1 && x->rank() == 1) {
      int64_t size = int64_t(sx->size());
      if (!args[0][0].isConstant() || !args[1][0].isConstant())
        return fail(node, "bounds must be constants");
      int64_t s = args[0][0].coeff, e = args[1][0].coeff;
      s = std::clamp<int64_t>(s < 0 ? s + size : s, 0, size);
      e = std::clamp<int64_t>(e < 0 ? e + size : e, 0, size);
      return out(Val::ofSym(
          std::vector<SymDim>(sx->begin() + s, sx->begin() + std::max(s, e)),
          false));
    }
    if (x->kind == Val::Host) {
      HostTensor h = x->host;
      for (size_t i = 0; i < n; ++i) {
        int64_t rank = int64_t(h.shape.size());
        int64_t axis = normAxis(axes[i], rank);
        if (axis < 0 || axis >= rank || !args[0][i].isConstant() ||
            !args[1][i].isConstant())
          return fail(node, "a slice of a constant needs constant bounds "
                            "on an axis in range");
        int64_t dim = h.shape[axis];
        int64_t b = args[0][i].coeff, e = args[1][i].coeff;
        b = std::clamp<int64_t>(b < 0 ? b + dim : b, 0, dim);
        e = std::clamp<int64_t>(e < 0 ? e + dim : e, 0, dim);
        h = hostSlice(h, axis, b, std::max<int64_t>(0, e - b));
      }
      return out(Val::ofHost(h));
    }
    auto t = asTensor(*x, node);
    if (!t)
      return t.takeError();
    Val v = *t;
    for (size_t i = 0; i < n; ++i) {
      int64_t axis = normAxis(axes[i], v.rank());
      if (axis < 0 || axis >= v.rank())
        return fail(node, "axis " + llvm::Twine(axes[i]) +
                              " is out of range for rank " +
                              llvm::Twine(v.rank()));
      SymDim dim = v.shape[axis];
      SymDim s = args[0][i], e = args[1][i];
      auto resolve = [&](SymDim b) -> std::optional<int64_t> {
        if (b.isConstant()) {
          int64_t c = b.coeff;
          if (c < 0) {
            if (!dim.isConstant())
              return std::nullopt;
            c += dim.coeff;
          }
          if (dim.isConstant())
            c = std::clamp<int64_t>(c, 0, dim.coeff);
          else if (c > (int64_t(1) << 40))
            return std::nullopt; // "to the end" of a dynamic dim
          return c;
        }
        if (b == dim)
          return std::nullopt;
        return std::nullopt;
      };
      std::optional<int64_t> so = resolve(s), eo = resolve(e);
      bool toEnd =
          e == dim || (e.isConstant() && e.coeff >= (int64_t(1) << 40));
      if (!so || (!eo && !toEnd))
        return fail(node, "slice [" + s.str() + ", " + e.str() +
                              ") of a dim of extent " + dim.str() +
                              " is not supported (bounds must be constants)");
      if (toEnd && !dim.isConstant()) {
        if (*so != 0)
          return fail(node, "slice from " + llvm::Twine(*so) +
                                " to the end of a dynamic dim is not "
                                "supported");
        continue; // the whole extent
      }
      int64_t size = std::max<int64_t>(0, (eo ? *eo : dim.coeff) - *so);
      SymShape shape = v.shape;
      shape[axis] = SymDim::constant(size);
      v = tensor(
          ATTUNE_MAKE(*this, at::SliceOp, node, l, v.value, axis, *so, size),
          shape);
    }
    generic("attune.slice");
    return out(v);
  }
  if (op == "Split") {
    auto x = input(node, 0);
    if (!x)
      return x.takeError();
    auto t = asTensor(*x, node);
    if (!t)
      return t.takeError();
    int64_t axis = normAxis(attrInt(node, "axis", 0), t->rank());
    if (axis < 0 || axis >= t->rank() || !t->shape[axis].isConstant())
      return fail(node, "only splits of a static dim are supported (dim " +
                            (axis >= 0 && axis < t->rank()
                                 ? t->shape[axis].str()
                                 : std::string("out of range")) +
                            ")");
    int64_t extent = t->shape[axis].coeff;
    std::vector<int64_t> sizes;
    if (hasInput(node, 1)) {
      auto sv = constantInts(node, 1, "split sizes");
      if (!sv)
        return sv.takeError();
      sizes = std::move(*sv);
      if (llvm::any_of(sizes, [](int64_t s) { return s < 0; }))
        return fail(node, "split sizes must be non-negative constants");
    } else if (auto a = attrInts(node, "split")) {
      sizes = *a;
    } else {
      int64_t n = node.output_size();
      int64_t chunk = (extent + n - 1) / n;
      for (int64_t i = 0; i < n; ++i)
        sizes.push_back(
            std::max<int64_t>(0, std::min(chunk, extent - i * chunk)));
    }
    if (int64_t(sizes.size()) != node.output_size() ||
        std::accumulate(sizes.begin(), sizes.end(), int64_t(0)) != extent)
      return fail(node, "split sizes do not add up to the extent " +
                            llvm::Twine(extent) + " over " +
                            llvm::Twine(node.output_size()) + " outputs");
    int64_t offset = 0;
    for (auto [i, size] : llvm::enumerate(sizes)) {
      SymShape shape = t->shape;
      shape[axis] = SymDim::constant(size);
      define(node, int(i),
             tensor(ATTUNE_MAKE(*this, at::SliceOp, node, l, t->value, axis,
                                offset, size),
                    shape));
      offset += size;
    }
    generic("attune.slice (one per output)");
    return llvm::Error::success();
  }
  if (op == "ConstantOfShape") {
    auto s = input(node, 0);
    if (!s)
      return s.takeError();
    auto ss = symElements(*s);
    if (!ss)
      return fail(node, "the shape must be known at import");
    std::vector<int64_t> shape;
    int64_t count = 1;
    for (const SymDim &d : *ss) {
      if (!d.isConstant())
        return fail(node, "a dynamic shape " + shapeStr(*ss) +
                              " is not supported here");
      if (d.coeff < 0 || __builtin_mul_overflow(count, d.coeff, &count) ||
          count > (int64_t(1) << 28))
        return fail(node, "shape " + shapeStr(*ss) +
                              " is negative or too large for a constant "
                              "(at most 2^28 elements)");
      shape.push_back(d.coeff);
    }
    HostTensor value = HostTensor::fromFloats({1}, {0.0f});
    if (const onnx::AttributeProto *a = attr(node, "value")) {
      auto t = readTensor(a->t(), model, model.path + ": " + describe(node));
      if (!t)
        return t.takeError();
      value = *t;
    }
    const ElementTypeInfo *info = elementTypeInfo(value.type);
    HostTensor r;
    r.type = value.type;
    r.shape = shape;
    auto bytes = std::make_shared<std::string>();
    for (int64_t i = 0, n = r.numElements(); i < n; ++i)
      bytes->insert(bytes->end(), value.data(), value.data() + info->size);
    r.bytes = std::move(bytes);
    return out(Val::ofHost(r));
  }

  // Tensor ops.
  if (binary) {
    auto a = input(node, 0);
    if (!a)
      return a.takeError();
    auto b = input(node, 1);
    if (!b)
      return b.takeError();
    // A scalar constant factor is attune.scale.
    auto scalarOf = [](const Val &v) -> std::optional<double> {
      if (v.kind == Val::Host && v.host.isFloat() && v.host.numElements() == 1)
        return v.host.asDouble(0);
      return std::nullopt;
    };
    if (op == "Mul" || op == "Div") {
      std::optional<double> cb = scalarOf(*b);
      std::optional<double> ca = op == "Mul" ? scalarOf(*a) : std::nullopt;
      if (cb || ca) {
        const Val &x = cb ? *a : *b;
        double factor = cb ? *cb : *ca;
        if (op == "Div")
          factor = 1.0 / factor;
        auto t = asTensor(x, node);
        if (!t)
          return t.takeError();
        generic("attune.scale");
        return out(tensor(ATTUNE_MAKE(*this, at::ScaleOp, node, l, t->value,
                                      builder.getF64FloatAttr(factor)),
                          t->shape));
      }
    }
    auto ta = asTensor(*a, node);
    if (!ta)
      return ta.takeError();
    auto tb = asTensor(*b, node);
    if (!tb)
      return tb.takeError();
    std::optional<SymShape> shape = broadcast(ta->shape, tb->shape);
    if (!shape)
      return fail(node, "shapes " + shapeStr(ta->shape) + " and " +
                            shapeStr(tb->shape) + " do not broadcast");
    if (failed(floatData(*ta)) || failed(floatData(*tb)))
      return fail(node, "arithmetic on integer tensors is not supported "
                        "(expected FLOAT, FLOAT16 or BFLOAT16 data)");
    Value r;
    if (op == "Mul") {
      r = ATTUNE_MAKE(*this, at::MulOp, node, l, ta->value, tb->value);
      generic("attune.mul");
    } else if (op == "Add") {
      r = ATTUNE_MAKE(*this, at::AddOp, node, l, ta->value, tb->value);
      generic("attune.add");
    } else {
      at::BinaryFn fn = op == "Sub" ? at::BinaryFn::sub : at::BinaryFn::div;
      r = ATTUNE_MAKE(*this, at::BinaryOp, node, l, fn, ta->value, tb->value);
      generic("attune.binary <" + at::stringifyBinaryFn(fn).str() + ">");
    }
    return out(tensor(r, *shape));
  }
  if (op == "Pow" || op == "Max" || op == "Min") {
    // Max and Min fold their inputs pairwise; Pow's exponent may have
    // another (float or integer) type: it is cast to the base's.
    if (node.input_size() < 1)
      return fail(node, "needs at least one input");
    auto first = input(node, 0);
    if (!first)
      return first.takeError();
    auto acc = asTensor(*first, node);
    if (!acc)
      return acc.takeError();
    if (failed(floatData(*acc)))
      return fail(node, op + " of integer tensors is not supported (expected "
                             "FLOAT, FLOAT16 or BFLOAT16 data)");
    Type element =
        cast<RankedTensorType>(acc->value.getType()).getElementType();
    at::BinaryFn fn = op == "Pow"   ? at::BinaryFn::pow
                      : op == "Max" ? at::BinaryFn::max
                                    : at::BinaryFn::min;
    Val y = *acc;
    for (int i = 1; i < node.input_size(); ++i) {
      auto v = input(node, i);
      if (!v)
        return v.takeError();
      auto t = asTensor(*v, node);
      if (!t)
        return t.takeError();
      Value rhs = t->value;
      auto rhsType = cast<RankedTensorType>(rhs.getType());
      if (op == "Pow" && rhsType.getElementType() != element) {
        if (rhsType.getElementType().isInteger(1))
          return fail(node, "a BOOL exponent is not supported");
        rhs = at::CastOp::create(builder, l, rhsType.clone(element), rhs);
      }
      std::optional<SymShape> shape = broadcast(y.shape, t->shape);
      if (!shape)
        return fail(node, "shapes " + shapeStr(y.shape) + " and " +
                              shapeStr(t->shape) + " do not broadcast");
      y = tensor(ATTUNE_MAKE(*this, at::BinaryOp, node, l, fn, y.value, rhs),
                 *shape);
    }
    generic("attune.binary <" + at::stringifyBinaryFn(fn).str() + ">");
    return out(y);
  }
  if (op == "Erf" || op == "Sqrt" || op == "Exp" || op == "Log" ||
      op == "Neg" || op == "Abs" || op == "Reciprocal") {
    auto x = input(node, 0);
    if (!x)
      return x.takeError();
    auto t = asTensor(*x, node);
    if (!t)
      return t.takeError();
    if (failed(floatData(*t)))
      return fail(node, op + " of an integer tensor is not supported "
                             "(expected FLOAT, FLOAT16 or BFLOAT16 data)");
    at::UnaryFn fn = op == "Erf"    ? at::UnaryFn::erf
                     : op == "Sqrt" ? at::UnaryFn::sqrt
                     : op == "Exp"  ? at::UnaryFn::exp
                     : op == "Log"  ? at::UnaryFn::log
                     : op == "Neg"  ? at::UnaryFn::neg
                     : op == "Abs"  ? at::UnaryFn::abs
                                    : at::UnaryFn::reciprocal;
    generic("attune.unary <" + at::stringifyUnaryFn(fn).str() + ">");
    return out(tensor(ATTUNE_MAKE(*this, at::UnaryOp, node, l, fn, t->value),
                      t->shape));
  }
  if (op == "Equal" || op == "Less" || op == "LessOrEqual" || op == "Greater" ||
      op == "GreaterOrEqual") {
    auto a = input(node, 0);
    if (!a)
      return a.takeError();
    auto b = input(node, 1);
    if (!b)
      return b.takeError();
    // Shape values compared at import where the answer is known (torch's
    // expand(-1) exports Where(Equal(shape, -1), 1, shape)): equal dims, two
    // constants, or a dim (never negative) against a negative constant.
    if (auto sa = symElements(*a), sb = symElements(*b);
        op == "Equal" && sa && sb &&
        (sa->size() == sb->size() || sa->size() == 1 || sb->size() == 1) &&
        (a->kind == Val::Sym || b->kind == Val::Sym)) {
      size_t n = std::max(sa->size(), sb->size());
      std::string bits;
      bool known = true;
      for (size_t i = 0; i < n && known; ++i) {
        const SymDim &x = (*sa)[sa->size() == 1 ? 0 : i];
        const SymDim &y = (*sb)[sb->size() == 1 ? 0 : i];
        if (x == y)
          bits.push_back(1);
        else if (x.isConstant() && y.isConstant())
          bits.push_back(0);
        else if ((x.isConstant() && x.coeff < 0 && y.coeff > 0) ||
                 (y.isConstant() && y.coeff < 0 && x.coeff > 0))
          bits.push_back(0);
        else
          known = false;
      }
      if (known) {
        HostTensor r;
        r.type = onnx::TensorProto::BOOL;
        if (!(isScalarShaped(*a) && isScalarShaped(*b)))
          r.shape = {int64_t(n)};
        r.bytes = std::make_shared<std::string>(std::move(bits));
        return out(Val::ofHost(r));
      }
    }
    auto ta = asTensor(*a, node);
    if (!ta)
      return ta.takeError();
    auto tb = asTensor(*b, node);
    if (!tb)
      return tb.takeError();
    for (const Val *v : {&*ta, &*tb})
      if (cast<RankedTensorType>(v->value.getType())
              .getElementType()
              .isInteger(1))
        return fail(node, "comparison of BOOL tensors is not supported "
                          "(expected float or integer data)");
    std::optional<SymShape> shape = broadcast(ta->shape, tb->shape);
    if (!shape)
      return fail(node, "shapes " + shapeStr(ta->shape) + " and " +
                            shapeStr(tb->shape) + " do not broadcast");
    at::ComparePredicate p = op == "Equal"         ? at::ComparePredicate::eq
                             : op == "Less"        ? at::ComparePredicate::lt
                             : op == "LessOrEqual" ? at::ComparePredicate::le
                             : op == "Greater"     ? at::ComparePredicate::gt
                                                   : at::ComparePredicate::ge;
    generic("attune.compare <" + at::stringifyComparePredicate(p).str() + ">");
    return out(tensor(
        ATTUNE_MAKE(*this, at::CompareOp, node, l, p, ta->value, tb->value),
        *shape));
  }
  if (op == "Where") {
    // A known condition choosing between shape values: a shape value.
    {
      auto c = input(node, 0);
      if (!c)
        return c.takeError();
      auto a = input(node, 1);
      if (!a)
        return a.takeError();
      auto b = input(node, 2);
      if (!b)
        return b.takeError();
      auto sa = symElements(*a), sb = symElements(*b);
      if (c->kind == Val::Host && c->host.type == onnx::TensorProto::BOOL &&
          c->host.shape.size() <= 1 && sa && sb) {
        size_t n =
            std::max({size_t(c->host.numElements()), sa->size(), sb->size()});
        auto fits = [&](size_t m) { return m == n || m == 1; };
        if (fits(c->host.numElements()) && fits(sa->size()) &&
            fits(sb->size())) {
          std::vector<SymDim> r;
          for (size_t i = 0; i < n; ++i) {
            bool pick = c->host.data()[c->host.numElements() == 1 ? 0 : i];
            const std::vector<SymDim> &from = pick ? *sa : *sb;
            r.push_back(from[from.size() == 1 ? 0 : i]);
          }
          return out(Val::ofSym(r, isScalarShaped(*a) && isScalarShaped(*b) &&
                                       c->host.shape.empty()));
        }
      }
    }
    std::vector<Val> ts;
    for (int i = 0; i < 3; ++i) {
      auto v = input(node, i);
      if (!v)
        return v.takeError();
      auto t = asTensor(*v, node);
      if (!t)
        return t.takeError();
      ts.push_back(*t);
    }
    if (Type c = cast<RankedTensorType>(ts[0].value.getType()).getElementType();
        !c.isInteger(1)) {
      std::string actual;
      llvm::raw_string_ostream os(actual);
      os << c;
      return fail(node, "the condition has element type " + actual +
                            ", expected BOOL (i1)");
    }
    std::optional<SymShape> values = broadcast(ts[1].shape, ts[2].shape);
    std::optional<SymShape> shape =
        values ? broadcast(ts[0].shape, *values) : std::nullopt;
    if (!shape)
      return fail(node, "shapes " + shapeStr(ts[0].shape) + ", " +
                            shapeStr(ts[1].shape) + " and " +
                            shapeStr(ts[2].shape) + " do not broadcast");
    generic("attune.select");
    return out(tensor(ATTUNE_MAKE(*this, at::SelectOp, node, l, ts[0].value,
                                  ts[1].value, ts[2].value),
                      *shape));
  }
  if (op == "ReduceSum" || op == "ReduceMean" || op == "ReduceMax" ||
      op == "ReduceMin" || op == "ReduceProd") {
    auto x = input(node, 0);
    if (!x)
      return x.takeError();
    auto t = asTensor(*x, node);
    if (!t)
      return t.takeError();
    if (failed(floatData(*t)))
      return fail(node, op + " of an integer tensor is not supported "
                             "(expected FLOAT, FLOAT16 or BFLOAT16 data)");
    // Axes: ReduceSum's second input (opset 13), the others' attribute.
    std::optional<std::vector<int64_t>> axes;
    if (op == "ReduceSum" && hasInput(node, 1)) {
      auto a = constantInts(node, 1, "axes");
      if (!a)
        return a.takeError();
      axes = std::move(*a);
    } else if (op != "ReduceSum") {
      axes = attrInts(node, "axes");
    }
    if (!axes || axes->empty()) {
      if (attrInt(node, "noop_with_empty_axes", 0))
        return out(*t); // the identity
      axes.emplace(t->rank());
      std::iota(axes->begin(), axes->end(), 0);
    }
    int64_t rank = t->rank();
    std::vector<bool> reduced(rank, false);
    for (int64_t a : *axes) {
      if (a < -rank || a >= rank)
        return fail(node, "axis " + llvm::Twine(a) +
                              " is out of range for rank " + llvm::Twine(rank));
      reduced[normAxis(a, rank)] = true;
    }
    bool keep = attrInt(node, "keepdims", 1);
    SymShape shape;
    for (int64_t i = 0; i < rank; ++i) {
      if (!reduced[i])
        shape.push_back(t->shape[i]);
      else if (keep)
        shape.push_back(SymDim::constant(1));
    }
    at::ReduceKind kind = op == "ReduceSum"    ? at::ReduceKind::sum
                          : op == "ReduceMean" ? at::ReduceKind::mean
                          : op == "ReduceMax"  ? at::ReduceKind::max
                          : op == "ReduceMin"  ? at::ReduceKind::min
                                               : at::ReduceKind::prod;
    generic("attune.reduce <" + at::stringifyReduceKind(kind).str() + ">");
    return out(tensor(ATTUNE_MAKE(*this, at::ReduceOp, node, l, kind, t->value,
                                  ArrayRef<int64_t>(*axes), keep),
                      shape));
  }
  if (op == "Expand") {
    // x broadcast with the target shape (NumPy rules: the result is the
    // broadcast of both), dynamic extents from the graph inputs' dims.
    auto x = input(node, 0);
    if (!x)
      return x.takeError();
    auto target = targetShape(node, 1);
    if (!target)
      return target.takeError();
    auto t = asTensor(*x, node);
    if (!t)
      return t.takeError();
    std::optional<SymShape> shape = broadcast(t->shape, *target);
    if (!shape)
      return fail(node, "shape " + shapeStr(t->shape) +
                            " does not broadcast to " + shapeStr(*target));
    auto sizes = dynamicExtents(node, *shape, "");
    if (!sizes)
      return sizes.takeError();
    auto type = cast<RankedTensorType>(t->value.getType());
    generic("attune.broadcast");
    return out(tensor(at::BroadcastOp::create(
                          builder, l, typeOf(*shape, type.getElementType()),
                          t->value, *sizes),
                      *shape));
  }
  if (op == "Trilu") {
    auto x = input(node, 0);
    if (!x)
      return x.takeError();
    int64_t k = 0;
    if (hasInput(node, 1)) {
      auto kv = constantInts(node, 1, "k");
      if (!kv)
        return kv.takeError();
      if (kv->size() != 1)
        return fail(node, "k must be one integer, got " +
                              llvm::Twine(kv->size()) + " values");
      k = kv->front();
    }
    auto t = asTensor(*x, node);
    if (!t)
      return t.takeError();
    generic("attune.trilu");
    return out(tensor(ATTUNE_MAKE(*this, at::TriluOp, node, l, t->value,
                                  attrInt(node, "upper", 1) != 0, k),
                      t->shape));
  }
  if (op == "Relu" || op == "Tanh" || op == "Sigmoid") {
    auto x = input(node, 0);
    if (!x)
      return x.takeError();
    auto t = asTensor(*x, node);
    if (!t)
      return t.takeError();
    at::Activation kind = op == "Relu"   ? at::Activation::relu
                          : op == "Tanh" ? at::Activation::tanh
                                         : at::Activation::sigmoid;
    generic("attune.activation");
    return out(
        tensor(ATTUNE_MAKE(*this, at::ActivationOp, node, l, kind, t->value),
               t->shape));
  }
  if (op == "Softmax") {
    auto x = input(node, 0);
    if (!x)
      return x.takeError();
    auto t = asTensor(*x, node);
    if (!t)
      return t.takeError();
    int64_t axis = attrInt(node, "axis", -1);
    generic("attune.softmax");
    if (axis < -t->rank() || axis >= t->rank())
      return fail(node, "axis " + llvm::Twine(axis) +
                            " is out of range for rank " +
                            llvm::Twine(t->rank()));
    auto s = at::SoftmaxOp::create(builder, l, t->value.getType(), t->value,
                                   builder.getI64IntegerAttr(axis));
    return out(tensor(s, t->shape));
  }
  if (op == "Transpose") {
    auto x = input(node, 0);
    if (!x)
      return x.takeError();
    std::vector<int64_t> perm(x->rank());
    std::iota(perm.rbegin(), perm.rend(), 0);
    if (auto p = attrInts(node, "perm"))
      perm = *p;
    if (x->kind == Val::Host && int64_t(perm.size()) == x->rank() &&
        llvm::all_of(perm, [&](int64_t p) { return p >= 0 && p < x->rank(); }))
      return out(Val::ofHost(hostTranspose(x->host, perm)));
    auto t = asTensor(*x, node);
    if (!t)
      return t.takeError();
    if (int64_t(perm.size()) != t->rank())
      return fail(node, "perm has " + llvm::Twine(perm.size()) +
                            " entries for a rank-" + llvm::Twine(t->rank()) +
                            " input");
    SymShape shape;
    for (int64_t p : perm) {
      if (p < 0 || p >= t->rank())
        return fail(node, "perm entry " + llvm::Twine(p) + " is out of range");
      shape.push_back(t->shape[p]);
    }
    generic("attune.transpose");
    return out(tensor(
        ATTUNE_MAKE(*this, at::TransposeOp, node, l, t->value, perm), shape));
  }
  if (op == "Gemm") {
    // Y = alpha * A' B' + beta * C (A' = A^T with transA, B' = B^T with
    // transB; A and B 2-D, C broadcast to Y).
    auto a = input(node, 0);
    if (!a)
      return a.takeError();
    auto b = input(node, 1);
    if (!b)
      return b.takeError();
    if (a->rank() != 2 || b->rank() != 2)
      return fail(node, "A and B must be 2-D");
    bool transA = attrInt(node, "transA", 0),
         transB = attrInt(node, "transB", 0);
    double alpha = attrFloat(node, "alpha", 1),
           beta = attrFloat(node, "beta", 1);
    auto ta = asTensor(*a, node);
    if (!ta)
      return ta.takeError();
    Val x = *ta;
    if (transA)
      x = tensor(ATTUNE_MAKE(*this, at::TransposeOp, node, l, x.value,
                             std::vector<int64_t>{1, 0}),
                 {x.shape[1], x.shape[0]});
    std::optional<HostTensor> cHost;
    std::optional<Val> c;
    if (hasInput(node, 2)) {
      auto cv = input(node, 2);
      if (!cv)
        return cv.takeError();
      c = *cv;
      if (cv->kind == Val::Host && cv->host.isFloat())
        cHost = cv->host;
    }
    Val y;
    bool biasFused = false;
    if (b->kind == Val::Host) {
      // A known B: attune.linear, whose weight is [out, in].
      HostTensor w =
          transB ? normalized(b->host) : transposed2d(normalized(b->host));
      std::string name = b->weightName.empty()
                             ? "onnx::" + node.output(0) + ".weight"
                             : b->weightName + (transB ? "" : ".T");
      if (x.shape.back() != SymDim::constant(w.shape[1]))
        return fail(node, "A's inner dim " + x.shape.back().str() +
                              " does not match B's " + llvm::Twine(w.shape[1]));
      Value bias;
      if (cHost && alpha == 1 && beta == 1 && cHost->shape.size() == 1 &&
          cHost->shape[0] == w.shape[0]) {
        auto tc = asTensor(*c, node);
        if (!tc)
          return tc.takeError();
        bias = tc->value;
        biasFused = true;
      }
      Value wv = weight(name, w, l);
      y = tensor(ATTUNE_MAKE(*this, at::LinearOp, node, l, x.value, wv, bias,
                             at::ActivationAttr()),
                 {x.shape[0], SymDim::constant(w.shape[0])});
      generic("attune.linear");
    } else {
      auto tb = asTensor(*b, node);
      if (!tb)
        return tb.takeError();
      const SymDim &k = transB ? tb->shape[1] : tb->shape[0];
      if (x.shape[1] != k && x.shape[1].isConstant() && k.isConstant())
        return fail(node, "inner dims " + x.shape[1].str() + " and " + k.str() +
                              " differ");
      y = tensor(ATTUNE_MAKE(*this, at::MatmulOp, node, l, x.value, tb->value,
                             false, transB),
                 {x.shape[0], transB ? tb->shape[0] : tb->shape[1]});
      generic("attune.matmul");
    }
    if (alpha != 1)
      y = tensor(ATTUNE_MAKE(*this, at::ScaleOp, node, l, y.value,
                             builder.getF64FloatAttr(alpha)),
                 y.shape);
    if (c && !biasFused) {
      auto tc = asTensor(*c, node);
      if (!tc)
        return tc.takeError();
      Val cv = *tc;
      if (beta != 1)
        cv = tensor(ATTUNE_MAKE(*this, at::ScaleOp, node, l, cv.value,
                                builder.getF64FloatAttr(beta)),
                    cv.shape);
      std::optional<SymShape> shape = broadcast(y.shape, cv.shape);
      if (!shape || *shape != y.shape)
        return fail(node, "C of shape " + shapeStr(cv.shape) +
                              " does not broadcast to " + shapeStr(y.shape));
      y = tensor(ATTUNE_MAKE(*this, at::AddOp, node, l, y.value, cv.value),
                 y.shape);
    }
    return out(y);
  }
  if (op == "MatMul") {
    auto a = input(node, 0);
    if (!a)
      return a.takeError();
    auto b = input(node, 1);
    if (!b)
      return b.takeError();
    auto ta = asTensor(*a, node);
    if (!ta)
      return ta.takeError();
    if (std::optional<NamedWeight> named =
            matmulWeight(*this, node, ".weight")) {
      // x @ W with W known: attune.linear takes W as [out, in].
      const HostTensor &w = named->data;
      if (ta->shape.empty() || ta->shape.back() != SymDim::constant(w.shape[1]))
        return fail(node, "input's last dim " +
                              (ta->shape.empty() ? std::string("(none)")
                                                 : ta->shape.back().str()) +
                              " does not match the weight's " +
                              llvm::Twine(w.shape[1]));
      Value wv = weight(named->name, w, l);
      SymShape shape = ta->shape;
      shape.back() = SymDim::constant(w.shape[0]);
      generic("attune.linear");
      return out(tensor(ATTUNE_MAKE(*this, at::LinearOp, node, l, ta->value, wv,
                                    Value(), at::ActivationAttr()),
                        shape));
    }
    auto tb = asTensor(*b, node);
    if (!tb)
      return tb.takeError();
    if (ta->rank() < 2 || tb->rank() < 2)
      return fail(node, "MatMul of rank-1 operands is not supported");
    const SymDim &ka = ta->shape.back(), &kb = tb->shape[tb->rank() - 2];
    if (ka != kb && ka.isConstant() && kb.isConstant())
      return fail(node, "contraction dims " + ka.str() + " and " + kb.str() +
                            " differ");
    SymShape batchA(ta->shape.begin(), ta->shape.end() - 2);
    SymShape batchB(tb->shape.begin(), tb->shape.end() - 2);
    std::optional<SymShape> shape = broadcast(batchA, batchB);
    if (!shape)
      return fail(node, "batch dims " + shapeStr(batchA) + " and " +
                            shapeStr(batchB) + " do not broadcast");
    shape->push_back(ta->shape[ta->rank() - 2]);
    shape->push_back(tb->shape.back());
    generic("attune.matmul");
    return out(tensor(ATTUNE_MAKE(*this, at::MatmulOp, node, l, ta->value,
                                  tb->value, false, false),
                      *shape));
  }
  if (op == "LayerNormalization") {
    auto x = input(node, 0);
    if (!x)
      return x.takeError();
    auto t = asTensor(*x, node);
    if (!t)
      return t.takeError();
    int64_t axis = normAxis(attrInt(node, "axis", -1), t->rank());
    if (axis < 0 || axis >= t->rank())
      return fail(node, "axis out of range");
    Value w, b;
    if (hasInput(node, 1)) {
      auto v = input(node, 1);
      if (!v)
        return v.takeError();
      auto tv = asTensor(*v, node);
      if (!tv)
        return tv.takeError();
      w = tv->value;
    }
    if (hasInput(node, 2)) {
      auto v = input(node, 2);
      if (!v)
        return v.takeError();
      auto tv = asTensor(*v, node);
      if (!tv)
        return tv.takeError();
      b = tv->value;
    }
    generic("attune.layer_norm");
    // ONNX stores epsilon as a float: widen the float, not its decimal.
    double eps = double(attrFloat(node, "epsilon", 1e-5f));
    auto ln = ATTUNE_MAKE(*this, at::LayerNormOp, node, l, t->value, Value(), w,
                          b, builder.getF64FloatAttr(eps),
                          builder.getI64IntegerAttr(t->rank() - axis));
    bool statistics =
        node.output_size() > 1 &&
        llvm::any_of(llvm::drop_begin(node.output()),
                     [&](const std::string &o) { return uses(o) > 0; });
    if (statistics) {
      // Mean and InvStdDev = 1 / sqrt(var + epsilon) over the normalized
      // dims, kept as extents of 1, in the stash type (f32).
      if (attrInt(node, "stash_type", 1) != onnx::TensorProto::FLOAT)
        return fail(node, "stash_type " +
                              llvm::Twine(attrInt(node, "stash_type", 1)) +
                              " is not supported (expected 1, FLOAT)");
      Type f32 = builder.getF32Type();
      Value x = t->value;
      auto xType = cast<RankedTensorType>(x.getType());
      if (xType.getElementType() != f32)
        x = at::CastOp::create(builder, l, xType.clone(f32), x);
      SmallVector<int64_t> axes;
      SymShape kept;
      for (int64_t i = 0; i < t->rank(); ++i) {
        if (i >= axis)
          axes.push_back(i);
        kept.push_back(i >= axis ? SymDim::constant(1) : t->shape[i]);
      }
      Value mean = ATTUNE_MAKE(*this, at::ReduceOp, node, l,
                               at::ReduceKind::mean, x, axes, true);
      Value d =
          ATTUNE_MAKE(*this, at::BinaryOp, node, l, at::BinaryFn::sub, x, mean);
      Value sq = ATTUNE_MAKE(*this, at::MulOp, node, l, d, d);
      Value var = ATTUNE_MAKE(*this, at::ReduceOp, node, l,
                              at::ReduceKind::mean, sq, axes, true);
      Value epsilon = arith::ConstantOp::create(
          builder, l,
          DenseElementsAttr::get(RankedTensorType::get({}, f32),
                                 builder.getF32FloatAttr(float(eps))));
      Value sum = ATTUNE_MAKE(*this, at::AddOp, node, l, var, epsilon);
      Value root =
          ATTUNE_MAKE(*this, at::UnaryOp, node, l, at::UnaryFn::sqrt, sum);
      Value inv = ATTUNE_MAKE(*this, at::UnaryOp, node, l,
                              at::UnaryFn::reciprocal, root);
      define(node, 1, tensor(mean, kept));
      define(node, 2, tensor(inv, kept));
    }
    return out(tensor(ln, t->shape));
  }
  if (op == "Reshape") {
    auto x = input(node, 0);
    if (!x)
      return x.takeError();
    auto target = targetShape(node, 1);
    if (!target)
      return target.takeError();
    SymShape in;
    if (x->kind == Val::Tensor)
      in = x->shape;
    else if (x->kind == Val::Host)
      for (int64_t d : x->host.shape)
        in.push_back(SymDim::constant(d));
    else
      in = {SymDim::constant(int64_t(x->sym.size()))};
    SymDim total = SymDim::constant(1);
    for (const SymDim &d : in) {
      std::optional<SymDim> p = symMul(total, d);
      if (!p)
        return fail(node,
                    "the element count of " + shapeStr(in) + " overflows");
      total = *p;
    }
    SymShape shape = *target;
    int minusOne = -1;
    SymDim known = SymDim::constant(1);
    for (auto [i, d] : llvm::enumerate(shape)) {
      if (d == SymDim::constant(0) && !attrInt(node, "allowzero", 0)) {
        if (i >= in.size())
          return fail(node, "0 in the target shape has no input dim");
        d = in[i];
      }
      if (d == SymDim::constant(-1)) {
        if (minusOne >= 0)
          return fail(node, "the target shape has two -1 entries");
        minusOne = int(i);
        continue;
      }
      if (d.coeff < 0)
        return fail(node, "target shape " + shapeStr(*target) +
                              " has a negative entry other than -1");
      std::optional<SymDim> p = symMul(known, d);
      if (!p)
        return fail(node,
                    "the element count of " + shapeStr(*target) + " overflows");
      known = *p;
    }
    if (minusOne >= 0) {
      std::optional<SymDim> rest = symDiv(total, known);
      if (!rest)
        return fail(node, "cannot infer -1 reshaping " + shapeStr(in) + " to " +
                              shapeStr(*target));
      shape[minusOne] = *rest;
    } else if (known != total && known.isConstant() && total.isConstant()) {
      return fail(node, "reshape of " + shapeStr(in) + " to " +
                            shapeStr(shape) + " changes the element count");
    }
    if (x->kind != Val::Tensor &&
        llvm::any_of(shape, [](const SymDim &d) { return !d.isConstant(); }))
      return fail(node, "a known tensor reshaped to a dynamic shape " +
                            shapeStr(shape) + " is not supported");
    if (x->kind == Val::Host) {
      HostTensor t = x->host;
      t.shape.clear();
      for (const SymDim &d : shape)
        t.shape.push_back(d.coeff);
      if (t.numElements() != x->host.numElements())
        return fail(node, "reshape of " + shapeStr(in) + " to " +
                              shapeStr(shape) + " changes the element count");
      return out(Val::ofHost(t, x->weightName));
    }
    if (x->kind == Val::Sym)
      return out(Val::ofSym(x->sym, shape.empty()));
    if (shape == in)
      return out(*x);
    // Inserting or removing unit dims.
    SymShape squeezedIn, squeezedOut;
    for (const SymDim &d : in)
      if (d != SymDim::constant(1))
        squeezedIn.push_back(d);
    for (const SymDim &d : shape)
      if (d != SymDim::constant(1))
        squeezedOut.push_back(d);
    if (squeezedIn == squeezedOut) {
      Val v = *x;
      for (int64_t i = v.rank() - 1; i >= 0; --i)
        if (v.shape[i] == SymDim::constant(1)) {
          SymShape sh = v.shape;
          sh.erase(sh.begin() + i);
          v = tensor(ATTUNE_MAKE(*this, at::SqueezeOp, node, l, v.value, i),
                     sh);
        }
      for (auto [i, d] : llvm::enumerate(shape))
        if (d == SymDim::constant(1)) {
          SymShape sh = v.shape;
          sh.insert(sh.begin() + i, d);
          v = tensor(ATTUNE_MAKE(*this, at::ExpandDimsOp, node, l, v.value,
                                 int64_t(i)),
                     sh);
        }
      generic("attune.squeeze/expand_dims");
      return out(v);
    }
    // A general reshape: the dynamic dims must stay, in order, with the
    // static dims between them holding the same number of elements.
    auto runs = [](const SymShape &s) {
      std::vector<SymDim> dynamic;
      std::vector<int64_t> products(1, 1);
      for (const SymDim &d : s) {
        if (d.isConstant()) {
          products.back() *= d.coeff;
        } else {
          dynamic.push_back(d);
          products.push_back(1);
        }
      }
      return std::make_pair(dynamic, products);
    };
    auto type = cast<RankedTensorType>(x->value.getType());
    SmallVector<Value> sizes;
    if (runs(in) != runs(shape)) {
      // Dynamic dims merge or split: the result's dynamic extents computed
      // from the graph inputs' dims they are products of.
      auto given = dynamicExtents(node, shape,
                                  "reshape of " + shapeStr(in) + " to " +
                                      shapeStr(shape) + ": ");
      if (!given)
        return given.takeError();
      sizes = std::move(*given);
    }
    generic("attune.reshape");
    return out(tensor(
        at::ReshapeOp::create(builder, l, typeOf(shape, type.getElementType()),
                              x->value, sizes),
        shape));
  }
  return fail(node, "operator " + op.str() + " is not supported (opset " +
                        llvm::Twine(model.opset) + ")");
}

//===----------------------------------------------------------------------===//
// Driver
//===----------------------------------------------------------------------===//

llvm::Error Importer::declareInputs(Block &block,
                                    SmallVectorImpl<Type> &types) {
  const onnx::GraphProto &graph = model.graph();
  llvm::StringSet<> seen;
  for (const onnx::ValueInfoProto &in : graph.input()) {
    if (model.initializers.count(in.name()))
      continue; // old exporters list initializers as inputs
    if (!seen.insert(in.name()).second)
      continue;
    auto fail = [&](const llvm::Twine &m) {
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     model.path + ": graph input '" +
                                         in.name() + "': " + m.str());
    };
    if (!in.type().has_tensor_type())
      return fail("expected a tensor input");
    const onnx::TypeProto::Tensor &tt = in.type().tensor_type();
    Type element = elementType(tt.elem_type());
    if (!element)
      return fail("element type " + elementTypeName(tt.elem_type()) +
                  " is not supported (expected FLOAT, FLOAT16, BFLOAT16, "
                  "INT64, INT32 or BOOL)");
    if (!tt.has_shape())
      return fail("the input has no shape (export with a fixed rank)");
    SymShape shape;
    for (auto [d, dim] : llvm::enumerate(tt.shape().dim())) {
      if (dim.has_dim_value() && dim.dim_value() >= 0)
        shape.push_back(SymDim::constant(dim.dim_value()));
      else if (dim.has_dim_param() && !dim.dim_param().empty())
        shape.push_back(SymDim::symbol(dim.dim_param()));
      else
        shape.push_back(SymDim::symbol(in.name() + "." + std::to_string(d)));
    }
    auto type = typeOf(shape, element);
    Value arg = block.addArgument(
        type, FileLineColLoc::get(&context, model.path, 0, 0));
    types.push_back(type);
    values[in.name()] = Val::ofTensor(arg, shape);
    for (auto [d, dim] : llvm::enumerate(shape))
      if (!dim.isConstant())
        symbolSources.try_emplace(dim.syms.front(), arg, int64_t(d));
  }
  return llvm::Error::success();
}

/// The inputs (min, max) and the least outputs of each op the importer
/// reads: checked for every node before any is imported, so the raisers
/// and the generic forms can read the inputs they match on.
static std::optional<std::tuple<int, int, int>> arity(StringRef op) {
  static const llvm::StringMap<std::tuple<int, int, int>> table = {
      {"Add", {2, 2, 1}},
      {"Sub", {2, 2, 1}},
      {"Mul", {2, 2, 1}},
      {"Div", {2, 2, 1}},
      {"Pow", {2, 2, 1}},
      {"MatMul", {2, 2, 1}},
      {"Equal", {2, 2, 1}},
      {"Less", {2, 2, 1}},
      {"LessOrEqual", {2, 2, 1}},
      {"Greater", {2, 2, 1}},
      {"GreaterOrEqual", {2, 2, 1}},
      {"Max", {1, 1 << 20, 1}},
      {"Min", {1, 1 << 20, 1}},
      {"Exp", {1, 1, 1}},
      {"Log", {1, 1, 1}},
      {"Neg", {1, 1, 1}},
      {"Abs", {1, 1, 1}},
      {"Reciprocal", {1, 1, 1}},
      {"ReduceSum", {1, 2, 1}},
      {"ReduceMax", {1, 1, 1}},
      {"ReduceMin", {1, 1, 1}},
      {"ReduceProd", {1, 1, 1}},
      {"Gemm", {2, 3, 1}},
      {"Relu", {1, 1, 1}},
      {"Tanh", {1, 1, 1}},
      {"Sigmoid", {1, 1, 1}},
      {"Erf", {1, 1, 1}},
      {"Sqrt", {1, 1, 1}},
      {"Softmax", {1, 1, 1}},
      {"Transpose", {1, 1, 1}},
      {"Identity", {1, 1, 1}},
      {"Shape", {1, 1, 1}},
      {"Cast", {1, 1, 1}},
      {"ConstantOfShape", {1, 1, 1}},
      {"ReduceMean", {1, 1, 1}},
      {"LayerNormalization", {1, 3, 1}},
      {"Reshape", {2, 2, 1}},
      {"Slice", {3, 5, 1}},
      {"Split", {1, 2, 1}},
      {"Squeeze", {1, 2, 1}},
      {"Unsqueeze", {1, 2, 1}},
      {"Concat", {1, 1 << 20, 1}},
      {"Gather", {2, 2, 1}},
      {"Where", {3, 3, 1}},
      {"Trilu", {1, 2, 1}},
      {"Range", {3, 3, 1}},
      {"Expand", {2, 2, 1}},
      {"LSTM", {3, 8, 1}},
      {"GRU", {3, 6, 1}},
      {"Constant", {0, 0, 1}},
  };
  auto it = table.find(op);
  if (it == table.end())
    return std::nullopt;
  return it->second;
}

llvm::Expected<ImportResult> Importer::run() {
  ImportResult result;
  for (const onnx::NodeProto &node : model.graph().node()) {
    std::optional<std::tuple<int, int, int>> a = arity(node.op_type());
    if (!a)
      continue; // an unsupported op fails when it is imported
    auto [lo, hi, outs] = *a;
    if (node.input_size() < lo || node.input_size() > hi)
      return fail(node, "has " + llvm::Twine(node.input_size()) +
                            " inputs, expected " +
                            (lo == hi ? llvm::Twine(lo).str()
                                      : llvm::Twine(lo).str() + " to " +
                                            llvm::Twine(hi).str()));
    bool optionalY = node.op_type() == "LSTM" || node.op_type() == "GRU";
    if (node.output_size() < outs || (!optionalY && node.output(0).empty()))
      return fail(node, "has no output");
  }
  Location fileLoc = FileLineColLoc::get(&context, model.path, 0, 0);
  result.module = ModuleOp::create(fileLoc);
  builder.setInsertionPointToEnd(result.module->getBody());
  auto func = func::FuncOp::create(builder, fileLoc, "forward",
                                   builder.getFunctionType({}, {}));
  body = func.addEntryBlock();
  SmallVector<Type> inputTypes;
  if (llvm::Error e = declareInputs(*body, inputTypes))
    return std::move(e);
  builder.setInsertionPointToEnd(body);

  SmallVector<Value> results;
  SmallVector<Type> resultTypes;
  for (const onnx::ValueInfoProto &o : model.graph().output()) {
    auto v = get(o.name());
    if (!v)
      return v.takeError();
    if (v->kind != Val::Tensor) {
      onnx::NodeProto fake;
      fake.set_name(o.name());
      fake.set_op_type("output");
      auto t = asTensor(*v, fake);
      if (!t)
        return t.takeError();
      v = *t;
    }
    results.push_back(v->value);
    resultTypes.push_back(v->value.getType());
  }
  func::ReturnOp::create(builder, fileLoc, results);
  func.setFunctionType(builder.getFunctionType(inputTypes, resultTypes));

  // Names: the graph's input and output names.
  unsigned argIndex = 0;
  for (const onnx::ValueInfoProto &in : model.graph().input()) {
    if (model.initializers.count(in.name()) || argIndex >= inputTypes.size())
      continue;
    func.setArgAttr(argIndex++, at::kNameAttr,
                    builder.getStringAttr(in.name()));
  }
  for (auto [i, o] : llvm::enumerate(model.graph().output()))
    func.setResultAttr(unsigned(i), at::kNameAttr,
                       builder.getStringAttr(o.name()));

  // Tidy what the generic forms leave (transposes around a raised block
  // that cancel, slices of a whole extent): the attune ops' folders and
  // canonicalizations.
  RewritePatternSet patterns(&context);
  for (RegisteredOperationName op : context.getRegisteredOperations())
    if (op.getDialectNamespace() == "attune")
      op.getCanonicalizationPatterns(patterns, &context);
  (void)applyPatternsGreedily(*result.module, std::move(patterns));

  result.weights = std::move(weights);
  result.explanation = std::move(explanation);
  return result;
}

llvm::Expected<ImportResult> importOnnx(MLIRContext &context,
                                        const OnnxModel &model) {
  // The import recurses once per node along the longest chain it follows;
  // a thread with a 1 GiB stack (reserved, used as touched) holds
  // Importer::kMaxDepth of them.
  // The dialects the import emits (the caller's context may not have
  // them loaded).
  context.loadDialect<at::AttuneDialect, func::FuncDialect, arith::ArithDialect,
                      tensor::TensorDialect>();
  std::optional<llvm::Expected<ImportResult>> result;
  llvm::thread worker(std::optional<unsigned>(1u << 30), [&] {
    Importer importer(context, model);
    result.emplace(importer.run());
  });
  worker.join();
  return std::move(*result);
}

llvm::Error writeSafetensors(
    StringRef path,
    const std::vector<std::pair<std::string, HostTensor>> &weights) {
  std::vector<::attune::SafetensorsEntry> entries;
  for (const auto &[name, t] : weights) {
    const char *dtype = nullptr;
    switch (t.type) {
    case onnx::TensorProto::FLOAT:
      dtype = "F32";
      break;
    case onnx::TensorProto::FLOAT16:
      dtype = "F16";
      break;
    case onnx::TensorProto::BFLOAT16:
      dtype = "BF16";
      break;
    case onnx::TensorProto::INT64:
      dtype = "I64";
      break;
    case onnx::TensorProto::INT32:
      dtype = "I32";
      break;
    default:
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "weight '" + name + "' has type " +
                                         elementTypeName(t.type) +
                                         ", which a weights file cannot hold");
    }
    entries.push_back({name, dtype, t.shape, t.data(), t.bytes->size()});
  }
  std::string error;
  if (!::attune::writeSafetensors(path.str(), entries, error))
    return llvm::createStringError(llvm::inconvertibleErrorCode(), error);
  return llvm::Error::success();
}

} // namespace attune::onnx_import
