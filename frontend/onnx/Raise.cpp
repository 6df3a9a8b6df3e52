//===- Raise.cpp - ONNX subgraphs raised to attune ops
//---------------------===//
//
// One matcher per pattern, each anchored on the node that produces the
// pattern's result and matched by walking its producers (as ONNX Runtime's
// transformer fusions do). A matcher imports only the pattern's inputs, so
// the nodes inside it (the shape arithmetic of an attention block, the
// primitive ops of a decomposed layer norm) are never imported. What each
// pattern accepts is the graph torch 1.13's exporter writes at opsets 14-17
// (docs/onnx.md); anything else falls through to the generic forms.
//
//===----------------------------------------------------------------------===//

#include "frontend/onnx/Importer.h"

#include "dialect/AttuneOps.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

#include <cmath>
#include <cstring>

using namespace mlir;
namespace at = mlir::attune;
using llvm::StringRef;

namespace attune::onnx_import {

namespace {

using Node = onnx::NodeProto;

/// The producer of `name` if its op type is `op`.
const Node *prod(Importer &I, StringRef name, StringRef op) {
  const Node *n = I.producer(name);
  return n && n->op_type() == op ? n : nullptr;
}

/// A value known without importing anything: an initializer, or the output
/// of a Constant node (or an Identity of one).
std::optional<HostTensor> known(Importer &I, StringRef name) {
  // Through Identity chains, which a malformed graph may close in a cycle:
  // at most as many steps as the graph has nodes.
  const Node *n = nullptr;
  for (int steps = 0;; ++steps) {
    auto init = I.model.initializers.find(name.str());
    if (init != I.model.initializers.end())
      return init->second;
    n = I.producer(name);
    if (!n || n->op_type() != "Identity" || steps > I.model.graph().node_size())
      break;
    name = n->input(0);
  }
  if (!n || n->op_type() != "Constant")
    return std::nullopt;
  llvm::Expected<Val> v = I.get(name);
  if (!v) {
    llvm::consumeError(v.takeError());
    return std::nullopt;
  }
  if (v->kind != Val::Host)
    return std::nullopt;
  return v->host;
}

/// The scalar value of a known one-element float tensor.
std::optional<double> knownScalar(Importer &I, StringRef name) {
  std::optional<HostTensor> t = known(I, name);
  if (!t || !t->isFloat() || t->numElements() != 1)
    return std::nullopt;
  return t->asDouble(0);
}

bool near(std::optional<double> v, double expected, double tol = 1e-6) {
  return v &&
         std::abs(*v - expected) <= tol * std::max(1.0, std::abs(expected));
}

/// For a commutative node `n` with one input equal to a known scalar near
/// `c`: the other input's name.
std::optional<std::string> otherThanScalar(Importer &I, const Node &n,
                                           double c) {
  if (n.input_size() != 2)
    return std::nullopt;
  for (int i = 0; i < 2; ++i)
    if (near(knownScalar(I, n.input(i)), c))
      return n.input(1 - i);
  return std::nullopt;
}

/// The module scope of a node named "/a/b.0/c/Op": "a.b.0.c" (how torch
/// names the state_dict entries of the module that ran the op).
std::string scopeOf(const Node &n) {
  StringRef name = n.name();
  size_t slash = name.rfind('/');
  if (slash == StringRef::npos || slash == 0)
    return "";
  std::string scope = name.substr(1, slash - 1).str();
  std::replace(scope.begin(), scope.end(), '/', '.');
  return scope;
}

} // namespace

/// dst[j][i] = src[i][j] for an r x c matrix of T, in 32 x 32 blocks (the
/// weights of a 12-layer model transpose in ~0.1 s, not ~1 s element by
/// element).
template <typename T>
static void transposeBlocked(const char *src, char *dst, int64_t r, int64_t c) {
  constexpr int64_t kBlock = 32;
  for (int64_t i0 = 0; i0 < r; i0 += kBlock)
    for (int64_t j0 = 0; j0 < c; j0 += kBlock)
      for (int64_t i = i0; i < std::min(r, i0 + kBlock); ++i)
        for (int64_t j = j0; j < std::min(c, j0 + kBlock); ++j) {
          T v;
          std::memcpy(&v, src + (i * c + j) * sizeof(T), sizeof(T));
          std::memcpy(dst + (j * r + i) * sizeof(T), &v, sizeof(T));
        }
}

HostTensor transposed2d(const HostTensor &w) {
  HostTensor t = w;
  int64_t r = w.shape[0], c = w.shape[1];
  size_t es = elementTypeInfo(w.type)->size;
  auto bytes = std::make_shared<std::string>(w.bytes->size(), '\0');
  switch (es) {
  case 1:
    transposeBlocked<uint8_t>(w.data(), bytes->data(), r, c);
    break;
  case 2:
    transposeBlocked<uint16_t>(w.data(), bytes->data(), r, c);
    break;
  case 4:
    transposeBlocked<uint32_t>(w.data(), bytes->data(), r, c);
    break;
  default:
    transposeBlocked<uint64_t>(w.data(), bytes->data(), r, c);
    break;
  }
  t.shape = {c, r};
  t.bytes = std::move(bytes);
  return t;
}

/// The initializer holding exactly `t` (same type, shape and bytes), if any.
std::optional<std::string> sameAs(Importer &I, const HostTensor &t) {
  for (const auto &[name, init] : I.model.initializers)
    if (init.type == t.type && init.shape == t.shape &&
        (t.bytes->empty() ||
         std::memcmp(init.data(), t.data(), t.bytes->size()) == 0))
      return name;
  return std::nullopt;
}

/// A weight applied by `matmul` (MatMul(x, B)): W in PyTorch's [out, in]
/// layout and the name to bind it by. B is either Transpose(W) (exports
/// without constant folding: W keeps its state_dict key) or W^T folded
/// into an initializer the exporter renamed `onnx::MatMul_N`: the key is
/// then the module scope's + `suffix` (e.g. "linear1" + ".weight"), used
/// when `confirm` (the bias's name, if any) agrees.
std::optional<NamedWeight> matmulWeight(Importer &I, const Node &matmul,
                                        StringRef suffix, StringRef biasSuffix,
                                        StringRef confirm) {
  StringRef b = matmul.input(1);
  if (const Node *t = prod(I, b, "Transpose")) {
    std::optional<std::vector<int64_t>> perm = attrInts(*t, "perm");
    std::optional<HostTensor> w = known(I, t->input(0));
    if (w && w->shape.size() == 2 && w->isFloat() &&
        (!perm || *perm == std::vector<int64_t>{1, 0})) {
      // The state_dict key is the name the Transpose reads (through an
      // Identity alias, the alias).
      return NamedWeight{*w, t->input(0)};
    }
    return std::nullopt;
  }
  std::optional<HostTensor> wt = known(I, b);
  if (!wt || wt->shape.size() != 2 || !wt->isFloat())
    return std::nullopt;
  std::string name = b.str();
  std::string scope = scopeOf(matmul);
  HostTensor w = transposed2d(*wt);
  if (StringRef(name).starts_with("onnx::") && !scope.empty() &&
      (confirm.empty() || confirm == scope + biasSuffix.str()) &&
      !I.model.initializers.count(scope + suffix.str())) {
    name = scope + suffix.str();
  } else if (std::optional<std::string> same = sameAs(I, w)) {
    name = *same; // a tied weight (x @ embedding.weight.t()), folded
  } else {
    name += ".T";
  }
  return NamedWeight{w, name};
}

namespace {

llvm::Expected<Val> tensorInput(Importer &I, const Node &anchor,
                                StringRef name) {
  llvm::Expected<Val> v = I.get(name);
  if (!v)
    return v.takeError();
  return I.asTensor(*v, anchor);
}

void record(Importer &I, const Node &anchor, StringRef op,
            ArrayRef<const Node *> nodes) {
  std::vector<std::string> names;
  for (const Node *n : nodes)
    names.push_back(n->name().empty() ? n->op_type() : n->name());
  I.explain("raised   " + Importer::describe(anchor) + " -> " + op.str() +
            " (" + std::to_string(nodes.size()) +
            " nodes: " + llvm::join(names, ", ") + ")");
}

//===----------------------------------------------------------------------===//
// Linear: Add(bias, MatMul(x, W)) -> attune.linear
//===----------------------------------------------------------------------===//

llvm::Expected<bool> raiseLinear(Importer &I, const Node &add) {
  for (int side = 0; side < 2 && add.input_size() == 2; ++side) {
    const Node *mm = prod(I, add.input(side), "MatMul");
    if (!mm || I.uses(add.input(side)) != 1)
      continue;
    std::optional<HostTensor> bias = known(I, add.input(1 - side));
    if (!bias || bias->shape.size() != 1 || !bias->isFloat())
      continue;
    std::optional<NamedWeight> w =
        matmulWeight(I, *mm, ".weight", ".bias", add.input(1 - side));
    if (!w || w->data.shape[0] != bias->shape[0])
      continue;
    llvm::Expected<Val> x = tensorInput(I, add, mm->input(0));
    if (!x)
      return x.takeError();
    if (x->shape.empty() ||
        x->shape.back() != SymDim::constant(w->data.shape[1]))
      continue;
    Location l = I.loc(add);
    Value wv = I.weight(w->name, w->data, l);
    Value bv = I.weight(add.input(1 - side), *bias, l);
    SymShape shape = x->shape;
    shape.back() = SymDim::constant(w->data.shape[0]);
    I.define(add, 0,
             I.tensor(ATTUNE_MAKE(I, at::LinearOp, add, l, x->value, wv, bv,
                                  at::ActivationAttr()),
                      shape));
    record(I, add, "attune.linear", {mm, &add});
    return true;
  }
  return false;
}

//===----------------------------------------------------------------------===//
// Layer norm, opset < 17: Add(Mul(Div(D, Sqrt(Add(ReduceMean(Pow(D, 2)),
// eps))), w), b) with D = Sub(x, ReduceMean(x)), over the last dim
//===----------------------------------------------------------------------===//

bool isMeanOverLast(Importer &I, const Node *n) {
  if (!n || n->op_type() != "ReduceMean" || attrInt(*n, "keepdims", 1) != 1)
    return false;
  std::optional<std::vector<int64_t>> axes = attrInts(*n, "axes");
  return axes && axes->size() == 1 && (*axes)[0] == -1;
}

llvm::Expected<bool> raiseLayerNorm(Importer &I, const Node &add) {
  if (add.input_size() != 2)
    return false;
  const Node *mul = prod(I, add.input(0), "Mul");
  std::string biasName = add.input(1);
  if (!mul) {
    mul = prod(I, add.input(1), "Mul");
    biasName = add.input(0);
  }
  if (!mul)
    return false;
  const Node *div = prod(I, mul->input(0), "Div");
  std::string weightName = mul->input(1);
  if (!div) {
    div = prod(I, mul->input(1), "Div");
    weightName = mul->input(0);
  }
  if (!div)
    return false;
  const Node *sub = prod(I, div->input(0), "Sub");
  const Node *sqrt = prod(I, div->input(1), "Sqrt");
  if (!sub || !sqrt)
    return false;
  const Node *mean = I.producer(sub->input(1));
  if (!isMeanOverLast(I, mean) || mean->input(0) != sub->input(0))
    return false;
  const Node *addEps = prod(I, sqrt->input(0), "Add");
  if (!addEps)
    return false;
  const Node *var = I.producer(addEps->input(0));
  std::optional<double> eps = knownScalar(I, addEps->input(1));
  if (!isMeanOverLast(I, var) || !eps)
    return false;
  const Node *pow = prod(I, var->input(0), "Pow");
  if (!pow || pow->input(0) != div->input(0) ||
      !near(knownScalar(I, pow->input(1)), 2.0))
    return false;
  std::optional<HostTensor> w = known(I, weightName);
  std::optional<HostTensor> b = known(I, biasName);
  if (!w || !b || w->shape.size() != 1 || b->shape.size() != 1)
    return false;
  llvm::Expected<Val> x = tensorInput(I, add, sub->input(0));
  if (!x)
    return x.takeError();
  if (x->shape.empty() || x->shape.back() != SymDim::constant(w->shape[0]) ||
      b->shape[0] != w->shape[0])
    return false;
  Location l = I.loc(add);
  // By the names the graph uses: an Identity alias is the state_dict key of
  // this use.
  Value wv = I.weight(weightName, *w, l);
  Value bv = I.weight(biasName, *b, l);
  auto ln = ATTUNE_MAKE(I, at::LayerNormOp, add, l, x->value, Value(), wv, bv,
                        I.builder.getF64FloatAttr(*eps),
                        I.builder.getI64IntegerAttr(1));
  I.define(add, 0, I.tensor(ln, x->shape));
  record(I, add, "attune.layer_norm",
         {mean, sub, pow, var, addEps, sqrt, div, mul, &add});
  return true;
}

//===----------------------------------------------------------------------===//
// GELU: Mul(Mul(x, Add(Erf(Div(x, sqrt 2)), 1)), 0.5) (any operand order),
// and the tanh form Mul(0.5, Mul(x, Add(1, Tanh(Mul(sqrt(2/pi),
// Add(x, Mul(0.044715, x^3)))))))
//===----------------------------------------------------------------------===//

/// x^3 as the exporter writes it: Mul(x, Mul(x, x)) or Pow(x, 3).
bool isCube(Importer &I, StringRef name, StringRef x) {
  if (const Node *p = prod(I, name, "Pow"))
    return p->input(0) == x && near(knownScalar(I, p->input(1)), 3.0);
  const Node *m = prod(I, name, "Mul");
  if (!m)
    return false;
  for (int i = 0; i < 2; ++i) {
    const Node *sq = prod(I, m->input(1 - i), "Mul");
    if (m->input(i) == x && sq && sq->input(0) == x && sq->input(1) == x)
      return true;
  }
  return false;
}

llvm::Expected<bool> raiseGelu(Importer &I, const Node &outer) {
  std::optional<std::string> inner = otherThanScalar(I, outer, 0.5);
  if (!inner)
    return false;
  const Node *mul = prod(I, *inner, "Mul");
  if (!mul || mul->input_size() != 2)
    return false;
  for (int i = 0; i < 2; ++i) {
    StringRef x = mul->input(i);
    const Node *add = prod(I, mul->input(1 - i), "Add");
    if (!add)
      continue;
    std::optional<std::string> act = otherThanScalar(I, *add, 1.0);
    if (!act)
      continue;
    at::Activation kind;
    std::vector<const Node *> nodes;
    if (const Node *erf = prod(I, *act, "Erf")) {
      const Node *div = prod(I, erf->input(0), "Div");
      const Node *scale = prod(I, erf->input(0), "Mul");
      bool ok =
          (div && div->input(0) == x &&
           near(knownScalar(I, div->input(1)), std::sqrt(2.0), 1e-5)) ||
          (scale && otherThanScalar(I, *scale, 1 / std::sqrt(2.0)) == x.str());
      if (!ok)
        continue;
      kind = at::Activation::gelu;
      nodes = {div ? div : scale, erf};
    } else if (const Node *tanh = prod(I, *act, "Tanh")) {
      const Node *scale = prod(I, tanh->input(0), "Mul");
      std::optional<std::string> poly =
          scale ? otherThanScalar(I, *scale, std::sqrt(2.0 / M_PI))
                : std::nullopt;
      const Node *sum = poly ? prod(I, *poly, "Add") : nullptr;
      if (!sum)
        continue;
      bool ok = false;
      for (int j = 0; j < 2 && !ok; ++j) {
        const Node *cubic = prod(I, sum->input(1 - j), "Mul");
        std::optional<std::string> cube =
            cubic ? otherThanScalar(I, *cubic, 0.044715) : std::nullopt;
        ok = sum->input(j) == x && cube && isCube(I, *cube, x);
      }
      if (!ok)
        continue;
      kind = at::Activation::gelu_tanh;
      nodes = {scale, sum, tanh};
    } else {
      continue;
    }
    llvm::Expected<Val> xv = tensorInput(I, outer, x);
    if (!xv)
      return xv.takeError();
    nodes.insert(nodes.end(), {add, mul, &outer});
    I.define(outer, 0,
             I.tensor(ATTUNE_MAKE(I, at::ActivationOp, outer, I.loc(outer),
                                  kind, xv->value),
                      xv->shape));
    record(I, outer,
           kind == at::Activation::gelu ? "attune.activation <gelu>"
                                        : "attune.activation <gelu_tanh>",
           nodes);
    return true;
  }
  return false;
}

//===----------------------------------------------------------------------===//
// nn.MultiheadAttention (torch's exported form, sequence-first inside):
//
//   Tq, Tk = inputs [L, B, E], [S, B, E] (Transposes of batch-first inputs)
//   self:  P = Add(b_in, MatMul(Tq, W_in^T))            [L, B, 3E]
//          q, k, v = Slice(P, 0:E), Slice(P, E:2E), Slice(P, 2E:3E)
//   cross: q = Add(b_q, MatMul(Tq, W_q^T)), kv = Add(b_kv, MatMul(Tk, W_kv^T))
//          k, v = Slice(kv, 0:E), Slice(kv, E:2E)   (W_q, W_kv: Slices of
//          in_proj_weight, or folded into initializers)
//   qh = Transpose(Reshape(q, [L, B*H, D]), [1, 0, 2])   (kh: [1, 2, 0])
//   s  = MatMul(Div(qh, sqrt D), kh)
//        [ + mask: Add(Mul(s, 1), Mul(Unsqueeze(M), 1)) ]
//   o  = MatMul(Softmax(s), vh) -> Transpose [1, 0, 2] -> Reshape [L*B, E]
//   y  = Reshape(Gemm(o, W_out, b_out, transB = 1), [L, B, E])   <- anchor
//
// becomes attune.multi_head_attention on the batch-first inputs, whose
// result is transposed back (the transposes around it fold). Masks: M =
// Trilu(ConstantOfShape(-inf), k = 1, upper) is `causal`; any other float
// [L, S] M (a user's attn_mask input) is the additive `bias` operand.
//===----------------------------------------------------------------------===//

/// Reshape(x, [L, B*H, D]) -> Transpose(perm): the reshape.
const Node *headSplit(Importer &I, StringRef name,
                      const std::vector<int64_t> &perm) {
  const Node *t = prod(I, name, "Transpose");
  if (!t || attrInts(*t, "perm") != perm)
    return nullptr;
  return prod(I, t->input(0), "Reshape");
}

/// Rows [begin, end) (along the first dim) of a known tensor.
HostTensor rowsOf(const HostTensor &t, int64_t begin, int64_t end) {
  int64_t rowElems = 1;
  for (size_t i = 1; i < t.shape.size(); ++i)
    rowElems *= t.shape[i];
  size_t es = elementTypeInfo(t.type)->size;
  HostTensor r = t;
  r.shape[0] = end - begin;
  r.bytes = std::make_shared<std::string>(t.data() + begin * rowElems * es,
                                          t.data() + end * rowElems * es);
  return r;
}

HostTensor concatRows(const std::vector<HostTensor> &parts) {
  HostTensor r = parts.front();
  auto bytes = std::make_shared<std::string>();
  r.shape[0] = 0;
  for (const HostTensor &p : parts) {
    bytes->insert(bytes->end(), p.data(), p.data() + p.bytes->size());
    r.shape[0] += p.shape[0];
  }
  r.bytes = std::move(bytes);
  return r;
}

/// A known tensor, or rows of one taken by a Slice on axis 0 with bounds
/// known at import; `source` is the whole tensor's name (with the rows).
struct Rows {
  HostTensor data;
  std::string source;
  int64_t begin = 0, end = 0;
};
std::optional<Rows> knownRows(Importer &I, StringRef name) {
  if (std::optional<HostTensor> t = known(I, name)) {
    if (t->shape.empty())
      return std::nullopt;
    // An Identity alias is the state_dict key of its use.
    return Rows{*t, name.str(), 0, t->shape[0]};
  }
  const Node *slice = prod(I, name, "Slice");
  if (!slice || slice->input_size() < 4)
    return std::nullopt;
  std::optional<HostTensor> whole = known(I, slice->input(0));
  if (!whole || whole->shape.empty())
    return std::nullopt;
  int64_t bounds[3];
  for (int i = 1; i <= 3; ++i) {
    // Bounds computed from the known tensor's shape: evaluating them
    // imports no tensor.
    llvm::Expected<Val> v = I.get(slice->input(i));
    if (!v) {
      llvm::consumeError(v.takeError());
      return std::nullopt;
    }
    std::optional<int64_t> c;
    if (v->kind == Val::Sym && v->sym.size() == 1 && v->sym[0].isConstant())
      c = v->sym[0].coeff;
    else if (v->kind == Val::Host && v->host.isInteger() &&
             v->host.numElements() == 1)
      c = v->host.asInt(0);
    if (!c)
      return std::nullopt;
    bounds[i - 1] = *c;
  }
  int64_t n = whole->shape[0];
  if (bounds[2] != 0 || (slice->input_size() > 4 && !slice->input(4).empty()))
    return std::nullopt; // axis 0, step 1 only
  int64_t b =
      std::clamp<int64_t>(bounds[0] < 0 ? bounds[0] + n : bounds[0], 0, n);
  int64_t e =
      std::clamp<int64_t>(bounds[1] < 0 ? bounds[1] + n : bounds[1], 0, n);
  if (e <= b)
    return std::nullopt;
  return Rows{rowsOf(*whole, b, e), slice->input(0), b, e};
}

/// A projection Add(bias, MatMul(x, B)): the input's name and the weight
/// rows in PyTorch's [out, in] layout, with where they come from.
struct Projection {
  const Node *matmul = nullptr, *add = nullptr; // add: null without bias
  std::string input;
  Rows weight, bias;
  bool renamed = false; // W^T folded into an initializer the exporter named
};
std::optional<Projection> projectionOf(Importer &I, StringRef name) {
  const Node *add = prod(I, name, "Add");
  const Node *plain = prod(I, name, "MatMul"); // bias=False
  if (!plain && (!add || add->input_size() != 2))
    return std::nullopt;
  for (int side = 0; side < 2; ++side) {
    const Node *mm = plain ? plain : prod(I, add->input(side), "MatMul");
    if (!mm)
      continue;
    std::optional<Rows> bias;
    if (!plain) {
      bias = knownRows(I, add->input(1 - side));
      if (!bias || bias->data.shape.size() != 1)
        continue;
    }
    Projection p;
    p.matmul = mm;
    p.add = add;
    p.input = mm->input(0);
    if (bias)
      p.bias = *bias;
    if (const Node *t = prod(I, mm->input(1), "Transpose")) {
      std::optional<std::vector<int64_t>> perm = attrInts(*t, "perm");
      std::optional<Rows> w = knownRows(I, t->input(0));
      if (!w || w->data.shape.size() != 2 ||
          (perm && *perm != std::vector<int64_t>{1, 0}))
        return std::nullopt;
      p.weight = *w;
    } else {
      std::optional<HostTensor> wt = known(I, mm->input(1));
      if (!wt || wt->shape.size() != 2)
        return std::nullopt;
      HostTensor w = transposed2d(*wt);
      p.weight = Rows{w, "", 0, w.shape[0]};
      p.renamed = true;
    }
    if (!plain && p.weight.data.shape[0] != p.bias.data.shape[0])
      return std::nullopt;
    return p;
  }
  return std::nullopt;
}

/// True if `name` is all zeros by construction: a ConstantOfShape of 0
/// (torch's default initial state) or a constant of zeros (what a static
/// export folds that into), possibly sliced, reshaped or expanded.
bool isZeros(Importer &I, StringRef name) {
  for (int steps = 0; steps <= I.model.graph().node_size(); ++steps) {
    if (std::optional<HostTensor> t = known(I, name)) {
      for (int64_t i = 0, e = t->numElements(); i < e; ++i)
        if (t->asDouble(i) != 0)
          return false;
      return true;
    }
    const Node *n = I.producer(name);
    if (!n)
      return false;
    if (n->op_type() == "Slice" || n->op_type() == "Reshape" ||
        n->op_type() == "Unsqueeze" || n->op_type() == "Expand") {
      name = n->input(0);
      continue;
    }
    if (n->op_type() != "ConstantOfShape")
      return false;
    const onnx::AttributeProto *value = attr(*n, "value");
    if (!value)
      return true;
    llvm::Expected<HostTensor> v = readTensor(value->t(), I.model, "value");
    if (!v) {
      llvm::consumeError(v.takeError());
      return false;
    }
    return v->numElements() == 1 && v->asDouble(0) == 0;
  }
  return false;
}

/// The constant value of a known integer scalar or one-element Sym.
std::optional<SymDim> symScalar(Importer &I, StringRef name) {
  llvm::Expected<Val> v = I.get(name);
  if (!v) {
    llvm::consumeError(v.takeError());
    return std::nullopt;
  }
  if (v->kind == Val::Sym && v->sym.size() == 1)
    return v->sym[0];
  if (v->kind == Val::Host && v->host.isInteger() && v->host.numElements() == 1)
    return SymDim::constant(v->host.asInt(0));
  return std::nullopt;
}

/// The dims a Reshape's shape operand `name` asks for: computed by shape
/// arithmetic (a dynamic export: a Sym) or a constant (a static export:
/// torch folds the shapes); empty if it is neither.
llvm::Expected<std::vector<SymDim>> reshapeTarget(Importer &I, StringRef name) {
  llvm::Expected<Val> v = I.get(name);
  if (!v)
    return v.takeError();
  if (v->kind == Val::Sym)
    return v->sym;
  std::vector<SymDim> dims;
  if (v->kind == Val::Host && v->host.isInteger() && v->host.shape.size() == 1)
    for (int64_t i = 0, e = v->host.numElements(); i < e; ++i)
      dims.push_back(SymDim::constant(v->host.asInt(i)));
  return dims;
}

/// The mask term of the scores, if any: `causal`, a float bias value or a
/// key_padding_mask; `nodes` are the ones it replaces.
struct MaskTerm {
  bool causal = false;
  std::string bias;       // a float [L, S] mask
  std::string keyPadding; // a bool [B, S] key_padding_mask
  std::vector<const Node *> nodes;
};

/// Unsqueeze(x, axes = [0]) -> x.
const Node *unsqueeze0(Importer &I, StringRef name) {
  const Node *unsq = prod(I, name, "Unsqueeze");
  if (!unsq || unsq->input_size() < 2)
    return nullptr;
  std::optional<SymDim> axis = symScalar(I, unsq->input(1));
  return axis == SymDim::constant(0) ? unsq : nullptr;
}

/// -inf: what torch's masks fill with.
static bool isMinusInf(double v) { return std::isinf(v) && v < 0; }

/// True if `t` is a float tensor whose every element is -inf.
static bool allMinusInf(const HostTensor &t) {
  if (!t.isFloat() || t.numElements() == 0)
    return false;
  for (int64_t i = 0, e = t.numElements(); i < e; ++i)
    if (!isMinusInf(t.asDouble(i)))
      return false;
  return true;
}

/// M = Unsqueeze(Trilu(F, k = 1, upper), 0) with F all -inf: a
/// ConstantOfShape(-inf) (a dynamic export) or that matrix folded into a
/// constant (a static export: torch folds the shape) is `causal`; any other
/// Unsqueeze(A, 0), A a float mask (another Trilu included), is the bias A.
/// Records it in `mask`.
bool attnMask(Importer &I, StringRef m, MaskTerm &mask) {
  const Node *unsq = unsqueeze0(I, m);
  if (!unsq)
    return false;
  mask.nodes.push_back(unsq);
  std::string inner = unsq->input(0);
  auto asBias = [&] {
    mask.bias = inner;
    return true;
  };
  const Node *trilu = prod(I, inner, "Trilu");
  if (!trilu)
    return asBias();
  std::optional<HostTensor> k =
      trilu->input_size() > 1 ? known(I, trilu->input(1)) : std::nullopt;
  if (attrInt(*trilu, "upper", 1) != 1 || !k || k->numElements() != 1 ||
      k->asInt(0) != 1)
    return asBias();
  if (const Node *fill = prod(I, trilu->input(0), "ConstantOfShape")) {
    const onnx::AttributeProto *value = attr(*fill, "value");
    if (!value)
      return asBias();
    llvm::Expected<HostTensor> v = readTensor(value->t(), I.model, "value");
    if (!v) {
      llvm::consumeError(v.takeError());
      return asBias();
    }
    if (v->numElements() != 1 || !allMinusInf(*v))
      return asBias();
    mask.causal = true;
    mask.nodes.insert(mask.nodes.end(), {trilu, fill});
    return true;
  }
  std::optional<HostTensor> folded = known(I, trilu->input(0));
  if (!folded || folded->shape.size() != 2 || !allMinusInf(*folded))
    return asBias();
  mask.causal = true;
  mask.nodes.push_back(trilu);
  return true;
}

/// torch's key_padding_mask: Where(C, -inf, Z) with C the mask [B, S]
/// through Reshape [B, 1, 1, S], Expand over the heads, Reshape
/// [B*H, 1, S] and Cast, and Z zeros or an attn_mask term. Records it.
bool keyPaddingMask(Importer &I, StringRef m, MaskTerm &mask) {
  const Node *where = prod(I, m, "Where");
  if (!where)
    return false;
  std::optional<double> fill = knownScalar(I, where->input(1));
  if (!fill || !isMinusInf(*fill))
    return false;
  std::vector<const Node *> chain;
  std::string cond = where->input(0);
  const Node *first = nullptr; // the Reshape [B, 1, 1, S] of the mask
  for (const Node *n = I.producer(cond);
       n &&
       (n->op_type() == "Cast" || n->op_type() == "Reshape" ||
        n->op_type() == "Expand") &&
       chain.size() < 8;
       n = I.producer(cond)) {
    chain.push_back(n);
    if (n->op_type() == "Reshape")
      first = n;
    cond = n->input(0);
  }
  if (!first)
    return false;
  // The mask is what the first Reshape, to [B, 1, 1, S], reads.
  cond = first->input(0);
  while (chain.back() != first)
    chain.pop_back();
  // Checked by its form, not evaluated: its B and S come from the shapes
  // of the attention's own tensors, which are not imported.
  auto isOne = [&](StringRef name) {
    std::optional<HostTensor> t = known(I, name);
    return t && t->isInteger() && t->numElements() == 1 && t->asInt(0) == 1;
  };
  const Node *concat = prod(I, first->input(1), "Concat");
  std::optional<HostTensor> constant = known(I, first->input(1));
  bool viewB11S = (concat && concat->input_size() == 4 &&
                   isOne(concat->input(1)) && isOne(concat->input(2))) ||
                  (constant && constant->numElements() == 4 &&
                   constant->asInt(1) == 1 && constant->asInt(2) == 1);
  if (!viewB11S)
    return false;
  if (!isZeros(I, where->input(2)) && !attnMask(I, where->input(2), mask))
    return false;
  mask.keyPadding = cond;
  mask.nodes.push_back(where);
  mask.nodes.insert(mask.nodes.end(), chain.begin(), chain.end());
  return true;
}

/// A mask term constant folding computed (a static export folds the
/// Unsqueeze of torch.triu(full(-inf), 1) and its scaling into one
/// constant [1, L, S] or [L, S]): all zeros is no mask (a decoding step's
/// causal mask over its one position), -inf exactly above the diagonal of
/// a square one is `causal`; anything else is left to the generic form.
bool foldedMask(const HostTensor &t, MaskTerm &mask) {
  size_t rank = t.shape.size();
  if (!t.isFloat() || rank < 2 || rank > 3 || (rank == 3 && t.shape[0] != 1))
    return false;
  int64_t l = t.shape[rank - 2], s = t.shape[rank - 1];
  // Zero on and below the diagonal; above it, zero or -inf.
  bool anyInf = false, allInf = true;
  for (int64_t i = 0; i < l; ++i)
    for (int64_t j = 0; j < s; ++j) {
      double v = t.asDouble(i * s + j);
      if (j <= i ? v != 0 : !(isMinusInf(v) || v == 0))
        return false;
      if (j > i) {
        anyInf |= isMinusInf(v);
        allInf &= isMinusInf(v);
      }
    }
  if (!anyInf)
    return true;
  // Causal: every element above the diagonal of a square mask is -inf.
  if (l != s || !allInf)
    return false;
  mask.causal = true;
  return true;
}

/// `scores` is MatMul(q, k) or Add(Mul(MatMul, 1), Mul(M, 1)) with M an
/// attn_mask term or a key_padding_mask term; returns the MatMul and the
/// mask, or null when the form is another.
const Node *scoresAndMask(Importer &I, StringRef scores, MaskTerm &mask) {
  if (const Node *mm = prod(I, scores, "MatMul"))
    return mm;
  const Node *add = prod(I, scores, "Add");
  if (!add || add->input_size() != 2)
    return nullptr;
  auto unscaled = [&](StringRef n) -> std::string {
    if (const Node *m = prod(I, n, "Mul"))
      if (std::optional<std::string> o = otherThanScalar(I, *m, 1.0)) {
        mask.nodes.push_back(m);
        return *o;
      }
    return n.str();
  };
  const Node *mm = prod(I, unscaled(add->input(0)), "MatMul");
  if (!mm)
    return nullptr;
  std::string m = unscaled(add->input(1));
  if (std::optional<HostTensor> folded = known(I, m)) {
    if (!foldedMask(*folded, mask))
      return nullptr;
  } else if (!attnMask(I, m, mask) && !keyPaddingMask(I, m, mask)) {
    return nullptr;
  }
  mask.nodes.push_back(add);
  return mm;
}

llvm::Expected<bool> raiseMultiHeadAttention(Importer &I, const Node &reshape) {
  // The out-projection: Gemm(o, W, b, transB = 1), or without a bias
  // MatMul(o, W^T) (W^T folded, or a Transpose of W).
  const Node *gemm = prod(I, reshape.input(0), "Gemm");
  const Node *outMatmul = prod(I, reshape.input(0), "MatMul");
  if (gemm &&
      (attrInt(*gemm, "transB", 0) != 1 || attrInt(*gemm, "transA", 0) != 0 ||
       attrFloat(*gemm, "alpha", 1) != 1 || attrFloat(*gemm, "beta", 1) != 1))
    return false;
  if (!gemm)
    gemm = outMatmul;
  if (!gemm)
    return false;
  const Node *flat = prod(I, gemm->input(0), "Reshape");
  const Node *back = flat ? prod(I, flat->input(0), "Transpose") : nullptr;
  if (!back || attrInts(*back, "perm") != std::vector<int64_t>{1, 0, 2})
    return false;
  const Node *pv = prod(I, back->input(0), "MatMul");
  const Node *softmax = pv ? prod(I, pv->input(0), "Softmax") : nullptr;
  if (!softmax || attrInt(*softmax, "axis", -1) != -1)
    return false;
  MaskTerm mask;
  const Node *scores = scoresAndMask(I, softmax->input(0), mask);
  if (!scores)
    return false;
  // q scaled before the product: Div(qh, sqrt D) or Mul(qh, 1/sqrt D).
  const Node *qScale = I.producer(scores->input(0));
  if (!qScale || (qScale->op_type() != "Div" && qScale->op_type() != "Mul"))
    return false;
  std::optional<double> factor = knownScalar(I, qScale->input(1));
  if (!factor)
    return false;
  double scale = qScale->op_type() == "Div" ? 1.0 / *factor : *factor;
  const Node *qr = headSplit(I, qScale->input(0), {1, 0, 2});
  const Node *kr = headSplit(I, scores->input(1), {1, 2, 0});
  const Node *vr = headSplit(I, pv->input(1), {1, 0, 2});
  if (!qr || !kr || !vr)
    return false;

  // The projections: packed (self-attention: q, k, v slices of one), a q
  // projection and a packed k/v one (cross-attention), or three (kdim or
  // vdim differ from the embedding: q_proj_weight, k_proj_weight, ...).
  std::vector<const Node *> nodes;
  const Node *qs = prod(I, qr->input(0), "Slice");
  const Node *ks = prod(I, kr->input(0), "Slice");
  const Node *vs = prod(I, vr->input(0), "Slice");
  std::optional<Projection> q, k, v;
  enum { Packed, PackedKv, Separate } form;
  if (ks && vs && ks->input(0) == vs->input(0)) {
    k = v = projectionOf(I, ks->input(0));
    if (qs && qs->input(0) == ks->input(0)) {
      form = Packed;
      q = k;
      nodes.push_back(qs);
    } else {
      form = PackedKv;
      q = projectionOf(I, qr->input(0));
    }
    nodes.insert(nodes.end(), {ks, vs});
  } else {
    form = Separate;
    q = projectionOf(I, qr->input(0));
    k = projectionOf(I, kr->input(0));
    v = projectionOf(I, vr->input(0));
  }
  if (!q || !k || !v)
    return false;
  for (const Projection *p : {&*q, &*k, &*v})
    if (llvm::find(nodes, p->matmul) == nodes.end()) {
      nodes.push_back(p->matmul);
      if (p->add)
        nodes.push_back(p->add);
    }
  bool hasBias = q->add && k->add && v->add;
  if (!hasBias && (q->add || k->add || v->add))
    return false;

  std::optional<HostTensor> outW;
  std::string outWName = gemm->input(1);
  if (outMatmul) {
    std::optional<NamedWeight> w =
        matmulWeight(I, *outMatmul, ".out_proj.weight");
    if (!w)
      return false;
    outW = w->data;
    outWName = w->name;
  } else {
    outW = known(I, gemm->input(1));
  }
  std::optional<HostTensor> outB;
  if (!outMatmul && gemm->input_size() > 2 && !gemm->input(2).empty())
    outB = known(I, gemm->input(2));
  if (!outW || outW->shape.size() != 2 ||
      (!outMatmul && gemm->input_size() > 2 && !gemm->input(2).empty() &&
       !outB))
    return false;
  int64_t e = outW->shape[0];
  if (outW->shape[1] != e)
    return false;
  std::string scope = scopeOf(*q->matmul);
  auto keyed = [&](const Rows &r, StringRef key) {
    return scope.empty() ? r.source + "." + key.str() : scope + "." + key.str();
  };
  // Packed weights: named by the initializer the blocks were cut from when
  // they cover it in order, else by the module scope's key.
  auto packedName = [&](ArrayRef<const Rows *> blocks, bool renamed,
                        StringRef key) {
    const Rows &a = *blocks.front();
    bool whole = !renamed && !a.source.empty() && a.begin == 0 &&
                 known(I, a.source) &&
                 known(I, a.source)->shape[0] == blocks.back()->end;
    for (size_t i = 1; i < blocks.size(); ++i)
      whole &= blocks[i]->source == a.source &&
               blocks[i]->begin == blocks[i - 1]->end;
    return whole ? a.source : keyed(a, key);
  };
  struct Named {
    HostTensor data;
    std::string name;
  };
  std::optional<Named> inW, inB, qW, kW, vW;
  if (form == Packed) {
    inW = Named{q->weight.data,
                packedName({&q->weight}, q->renamed, "in_proj_weight")};
    if (hasBias)
      inB = Named{q->bias.data, packedName({&q->bias}, false, "in_proj_bias")};
  } else {
    const Projection &kvp = *k;
    std::vector<const Rows *> wBlocks = {&q->weight, &kvp.weight};
    std::vector<const Rows *> bBlocks = {&q->bias, &kvp.bias};
    if (form == Separate) {
      wBlocks.push_back(&v->weight);
      bBlocks.push_back(&v->bias);
    }
    bool square = llvm::all_of(
        wBlocks, [&](const Rows *r) { return r->data.shape[1] == e; });
    if (hasBias) {
      std::vector<HostTensor> parts;
      for (const Rows *r : bBlocks)
        parts.push_back(r->data);
      inB =
          Named{concatRows(parts), packedName(bBlocks, false, "in_proj_bias")};
    }
    if (square) {
      std::vector<HostTensor> parts;
      for (const Rows *r : wBlocks)
        parts.push_back(r->data);
      inW = Named{concatRows(parts),
                  packedName(wBlocks,
                             q->renamed || kvp.renamed ||
                                 (form == Separate && v->renamed),
                             "in_proj_weight")};
    } else if (form == Separate) {
      auto own = [&](const Projection &p, StringRef key) {
        return Named{p.weight.data, p.renamed || p.weight.source.empty()
                                        ? keyed(p.weight, key)
                                        : p.weight.source};
      };
      qW = own(*q, "q_proj_weight");
      kW = own(*k, "k_proj_weight");
      vW = own(*v, "v_proj_weight");
    } else {
      return false;
    }
  }
  if (inW && inW->data.shape != std::vector<int64_t>{3 * e, e})
    return false;
  if (inB && inB->data.shape != std::vector<int64_t>{3 * e})
    return false;
  if (qW && (qW->data.shape[0] != e || kW->data.shape[0] != e ||
             vW->data.shape[0] != e || qW->data.shape[1] != e))
    return false;

  // Heads: the q reshape's target [L, B*H, D].
  llvm::Expected<std::vector<SymDim>> target = reshapeTarget(I, qr->input(1));
  if (!target)
    return target.takeError();
  if (target->size() != 3 || !(*target)[2].isConstant())
    return false;
  int64_t d = (*target)[2].coeff;
  if (d <= 0 || e % d != 0)
    return false;
  int64_t heads = e / d;
  if (std::abs(scale * std::sqrt(double(d)) - 1.0) > 1e-6)
    return false; // a custom scale: generic form

  Location l = I.loc(reshape);
  OpBuilder &b = I.builder;
  std::vector<int64_t> swap = {1, 0, 2};
  // The batch-first inputs, one per distinct sequence-first input.
  llvm::StringMap<Value> batchFirst;
  std::optional<Val> tq;
  auto input = [&](StringRef name, int64_t dim) -> llvm::Expected<Value> {
    llvm::Expected<Val> t = tensorInput(I, reshape, name);
    if (!t)
      return t.takeError();
    if (t->rank() != 3 || t->shape[2] != SymDim::constant(dim))
      return I.fail(reshape, "attention input " + shapeStr(t->shape) +
                                 " is not [L, B, " + llvm::Twine(dim) + "]");
    if (!tq)
      tq = *t;
    Value &v = batchFirst[name];
    if (!v)
      v = ATTUNE_MAKE(I, at::TransposeOp, reshape, l, t->value, swap);
    return v;
  };
  llvm::Expected<Value> xq = input(q->input, e);
  if (!xq)
    return xq.takeError();
  llvm::Expected<Value> xk = input(k->input, k->weight.data.shape[1]);
  if (!xk)
    return xk.takeError();
  llvm::Expected<Value> xv = input(v->input, v->weight.data.shape[1]);
  if (!xv)
    return xv.takeError();
  Value bias;
  if (!mask.bias.empty()) {
    llvm::Expected<Val> m = tensorInput(I, reshape, mask.bias);
    if (!m)
      return m.takeError();
    if (m->rank() != 2)
      return I.fail(reshape, "an attention mask of shape " +
                                 shapeStr(m->shape) +
                                 " is not supported (expected [L, S])");
    bias = m->value;
  }
  if (!mask.keyPadding.empty()) {
    // [B, S] bool -> an additive [B, 1, 1, S] bias (every mask pattern
    // exact), added to an attn_mask's when there is one.
    llvm::Expected<Val> kpm = tensorInput(I, reshape, mask.keyPadding);
    if (!kpm)
      return kpm.takeError();
    auto type = dyn_cast<RankedTensorType>(kpm->value.getType());
    if (kpm->rank() != 2 || !type.getElementType().isInteger(1))
      return I.fail(reshape, "a key_padding_mask of shape " +
                                 shapeStr(kpm->shape) +
                                 " is not supported (expected bool [B, S])");
    // (Explicitly typed: its result has the mask's shape, so it cannot
    // fail.)
    Value kb =
        at::MaskBiasOp::create(b, l, type.clone(b.getF32Type()), kpm->value);
    kb = ATTUNE_MAKE(I, at::ExpandDimsOp, reshape, l, kb, 1);
    kb = ATTUNE_MAKE(I, at::ExpandDimsOp, reshape, l, kb, 1);
    bias = bias ? Value(ATTUNE_MAKE(I, at::AddOp, reshape, l, bias, kb)) : kb;
  }
  auto w = [&](const std::optional<Named> &n) {
    return n ? I.weight(n->name, n->data, l) : Value();
  };
  Value wOut = I.weight(outWName, *outW, l);
  Value bOut = outB ? I.weight(gemm->input(2), *outB, l) : Value();
  auto mha = ATTUNE_MAKE(
      I, at::MultiHeadAttentionOp, reshape, l, *xq, *xk, *xv, w(inW), w(qW),
      w(kW), w(vW), w(inB), wOut, bOut, Value(), bias,
      b.getI64IntegerAttr(heads), IntegerAttr(),
      mask.causal ? b.getUnitAttr() : UnitAttr(),
      at::MaskAlignAttr::get(b.getContext(), at::MaskAlign::top_left),
      IntegerAttr());
  Value y = ATTUNE_MAKE(I, at::TransposeOp, reshape, l, mha.getResult(), swap);
  I.define(reshape, 0, I.tensor(y, tq->shape));
  bool self = form == Packed;
  nodes.insert(nodes.end(), {qr, kr, vr, qScale, scores, softmax, pv, back,
                             flat, gemm, &reshape});
  nodes.insert(nodes.end(), mask.nodes.begin(), mask.nodes.end());
  record(I, reshape,
         std::string("attune.multi_head_attention") +
             (self               ? ""
              : form == PackedKv ? " (cross)"
                                 : " (q, k, v projections)") +
             (mask.causal ? " {causal}" : "") +
             (mask.bias.empty() ? "" : " bias(" + mask.bias + ")") +
             (mask.keyPadding.empty()
                  ? ""
                  : " bias(mask_bias(" + mask.keyPadding + "))"),
         nodes);
  return true;
}

//===----------------------------------------------------------------------===//
// Positions: Add(x, Gather(table, Range(0, L, 1))) (nn.Embedding positions)
// or Add(x, Slice(buffer, 0, L)) (a registered table) with L the length of
// x [..., L, E] -> attune.positional_encoding <learned>
//===----------------------------------------------------------------------===//

llvm::Expected<bool> raisePositions(Importer &I, const Node &add) {
  if (add.input_size() != 2)
    return false;
  for (int side = 0; side < 2; ++side) {
    StringRef posName = add.input(1 - side);
    std::optional<HostTensor> table;
    std::string tableName;
    std::optional<SymDim> length;
    std::vector<const Node *> nodes;
    if (const Node *gather = prod(I, posName, "Gather")) {
      const Node *range = prod(I, gather->input(1), "Range");
      if (!range || attrInt(*gather, "axis", 0) != 0)
        continue;
      std::optional<SymDim> start = symScalar(I, range->input(0));
      std::optional<SymDim> delta = symScalar(I, range->input(2));
      if (start != SymDim::constant(0) || delta != SymDim::constant(1))
        continue;
      length = symScalar(I, range->input(1));
      table = known(I, gather->input(0));
      tableName = gather->input(0);
      nodes = {range, gather};
    } else if (const Node *slice = prod(I, posName, "Slice")) {
      std::optional<HostTensor> buffer = known(I, slice->input(0));
      if (!buffer || slice->input_size() < 3 ||
          !(buffer->shape.size() == 2 ||
            (buffer->shape.size() == 3 && buffer->shape[0] == 1)))
        continue;
      int64_t rowAxis = int64_t(buffer->shape.size()) - 2;
      std::optional<SymDim> start = symScalar(I, slice->input(1));
      std::optional<SymDim> axis = slice->input_size() > 3
                                       ? symScalar(I, slice->input(3))
                                       : SymDim::constant(0);
      bool stepOne = slice->input_size() <= 4 ||
                     symScalar(I, slice->input(4)) == SymDim::constant(1);
      if (start != SymDim::constant(0) || !stepOne ||
          (axis != SymDim::constant(rowAxis) &&
           axis != SymDim::constant(rowAxis - int64_t(buffer->shape.size()))))
        continue;
      length = symScalar(I, slice->input(2));
      table = *buffer;
      table->shape = {buffer->shape[rowAxis], buffer->shape.back()};
      tableName = slice->input(0);
      nodes = {slice};
    } else {
      continue;
    }
    if (!table || !table->isFloat() || table->shape.size() != 2 || !length)
      continue;
    llvm::Expected<Val> x = tensorInput(I, add, add.input(side));
    if (!x)
      return x.takeError();
    if (x->rank() < 2 || x->shape[x->rank() - 2] != *length ||
        x->shape.back() != SymDim::constant(table->shape[1]))
      continue;
    Location l = I.loc(add);
    Value t = I.weight(tableName, *table, l);
    auto pe = ATTUNE_MAKE(I, at::PositionalEncodingOp, add, l,
                          at::PositionalKind::learned, x->value, t, Value(), 0);
    I.define(add, 0, I.tensor(pe, x->shape));
    nodes.push_back(&add);
    record(I, add, "attune.positional_encoding <learned>", nodes);
    return true;
  }
  return false;
}

//===----------------------------------------------------------------------===//
// Attention written over 4-D heads (GPT style):
//   qh = Transpose(Reshape(Xq, [B, L, H, D]), [0, 2, 1, 3])
//   kt = Transpose(Reshape(Xk, [B, S, H, D]), [0, 2, 3, 1])
//   s  = Mul(MatMul(qh, kt), c) (or Div, or no scale)
//        [ -> Where(causal, -inf, s) with causal = Cast(Trilu(1s, k = 1)) ]
//   y  = Reshape(Transpose(MatMul(Softmax(s), vh), [0, 2, 1, 3]), [B, L, E])
// -> merge_heads(attune.attention(split_heads(Xq), ...))          <- anchor y
//===----------------------------------------------------------------------===//

/// Transpose(Reshape(x, [B, L, H, D]), perm) -> x, with H.
std::optional<std::pair<std::string, int64_t>>
heads4d(Importer &I, StringRef name, const std::vector<int64_t> &perm,
        std::vector<const Node *> &nodes) {
  const Node *t = prod(I, name, "Transpose");
  if (!t || attrInts(*t, "perm") != perm)
    return std::nullopt;
  const Node *r = prod(I, t->input(0), "Reshape");
  if (!r)
    return std::nullopt;
  llvm::Expected<std::vector<SymDim>> target = reshapeTarget(I, r->input(1));
  if (!target) {
    llvm::consumeError(target.takeError());
    return std::nullopt;
  }
  if (target->size() != 4 || !(*target)[2].isConstant())
    return std::nullopt;
  nodes.insert(nodes.end(), {r, t});
  return std::make_pair(r->input(0), (*target)[2].coeff);
}

/// Cast(Trilu(ConstantOfShape(nonzero), k = 1, upper)), or Trilu of that
/// matrix folded into a constant (a static export): true above the
/// diagonal.
bool isCausalCondition(Importer &I, StringRef name,
                       std::vector<const Node *> &nodes) {
  const Node *cast = prod(I, name, "Cast");
  const Node *trilu = prod(I, cast ? StringRef(cast->input(0)) : name, "Trilu");
  if (!trilu || attrInt(*trilu, "upper", 1) != 1 || trilu->input_size() < 2)
    return false;
  std::optional<HostTensor> k = known(I, trilu->input(1));
  if (!k || k->numElements() != 1 || k->asInt(0) != 1)
    return false;
  const Node *fill = prod(I, trilu->input(0), "ConstantOfShape");
  if (!fill) {
    // A static export: the filled matrix folded into a constant.
    std::optional<HostTensor> folded = known(I, trilu->input(0));
    if (!folded || folded->shape.size() != 2 || folded->numElements() == 0)
      return false;
    for (int64_t i = 0, e = folded->numElements(); i < e; ++i)
      if (folded->asDouble(i) == 0)
        return false;
    if (cast)
      nodes.push_back(cast);
    nodes.push_back(trilu);
    return true;
  }
  const onnx::AttributeProto *value = attr(*fill, "value");
  if (value) {
    llvm::Expected<HostTensor> v = readTensor(value->t(), I.model, "value");
    if (!v) {
      llvm::consumeError(v.takeError());
      return false;
    }
    if (v->numElements() != 1 || v->asDouble(0) == 0)
      return false;
  } else {
    return false; // zeros: nothing masked
  }
  if (cast)
    nodes.push_back(cast);
  nodes.insert(nodes.end(), {trilu, fill});
  return true;
}

llvm::Expected<bool> raiseAttention4d(Importer &I, const Node &reshape) {
  std::vector<const Node *> nodes;
  const Node *back = prod(I, reshape.input(0), "Transpose");
  if (!back || attrInts(*back, "perm") != std::vector<int64_t>{0, 2, 1, 3})
    return false;
  const Node *pv = prod(I, back->input(0), "MatMul");
  const Node *softmax = pv ? prod(I, pv->input(0), "Softmax") : nullptr;
  if (!softmax || (attrInt(*softmax, "axis", -1) != -1 &&
                   attrInt(*softmax, "axis", -1) != 3))
    return false;
  std::string s = softmax->input(0);
  bool causal = false;
  if (const Node *where = prod(I, s, "Where")) {
    std::optional<double> fill = knownScalar(I, where->input(1));
    if (!fill || !isMinusInf(*fill) ||
        !isCausalCondition(I, where->input(0), nodes))
      return false;
    causal = true;
    nodes.push_back(where);
    s = where->input(2);
  }
  std::optional<double> scale;
  const Node *scores = prod(I, s, "MatMul");
  if (!scores) {
    const Node *scaled = I.producer(s);
    if (!scaled || (scaled->op_type() != "Mul" && scaled->op_type() != "Div"))
      return false;
    scores = prod(I, scaled->input(0), "MatMul");
    std::optional<double> c = knownScalar(I, scaled->input(1));
    if (!scores && scaled->op_type() == "Mul") {
      scores = prod(I, scaled->input(1), "MatMul");
      c = knownScalar(I, scaled->input(0));
    }
    if (!scores || !c || *c == 0)
      return false;
    scale = scaled->op_type() == "Div" ? 1.0 / *c : *c;
    nodes.push_back(scaled);
  }
  auto q = heads4d(I, scores->input(0), {0, 2, 1, 3}, nodes);
  auto k = heads4d(I, scores->input(1), {0, 2, 3, 1}, nodes);
  auto v = heads4d(I, pv->input(1), {0, 2, 1, 3}, nodes);
  if (!q || !k || !v || q->second != k->second || q->second != v->second)
    return false;
  int64_t heads = q->second;
  llvm::Expected<std::vector<SymDim>> target =
      reshapeTarget(I, reshape.input(1));
  if (!target)
    return target.takeError();
  if (target->size() != 3)
    return false;
  std::vector<Val> xs;
  for (const std::string &name : {q->first, k->first, v->first}) {
    llvm::Expected<Val> x = tensorInput(I, reshape, name);
    if (!x)
      return x.takeError();
    if (x->rank() != 3 || !x->shape[2].isConstant() ||
        x->shape[2].coeff % heads != 0)
      return false;
    xs.push_back(*x);
  }
  if ((*target)[2] != xs[2].shape[2] && (*target)[2] != SymDim::constant(-1))
    return false;
  Location l = I.loc(reshape);
  OpBuilder &b = I.builder;
  SmallVector<Value> hs;
  for (const Val &x : xs)
    hs.push_back(ATTUNE_MAKE(I, at::SplitHeadsOp, reshape, l, x.value, heads));
  auto att =
      ATTUNE_MAKE(I, at::AttentionOp, reshape, l, hs[0], hs[1], hs[2], Value(),
                  Value(), Value(), Value(), at::ScoreKind::scaled_dot,
                  b.getF64FloatAttr(scale.value_or(1.0)), at::Selection::soft,
                  false, causal, at::MaskAlign::top_left, IntegerAttr(),
                  at::SparseLayoutAttr(), IntegerAttr());
  Value y = ATTUNE_MAKE(I, at::MergeHeadsOp, reshape, l, att.getResult());
  SymShape shape = {xs[0].shape[0], xs[0].shape[1], xs[2].shape[2]};
  I.define(reshape, 0, I.tensor(y, shape));
  nodes.insert(nodes.end(), {scores, softmax, pv, back, &reshape});
  record(I, reshape,
         std::string("attune.attention") + (causal ? " {causal}" : "") +
             " over split_heads/merge_heads",
         nodes);
  return true;
}

//===----------------------------------------------------------------------===//
// LSTM / GRU nodes (one per layer, sequence-first, ONNX gate order) ->
// attune.lstm / attune.gru (batch-first, PyTorch gate order and names)
//===----------------------------------------------------------------------===//

/// Gate blocks of `t` ([G*H, ...] rows) reordered: block i of the result is
/// block order[i] of `t`.
HostTensor reorderGates(const HostTensor &t, ArrayRef<int> order) {
  int64_t g = int64_t(order.size()), rows = t.shape[0] / g;
  std::vector<HostTensor> parts;
  for (int b : order)
    parts.push_back(rowsOf(t, b * rows, (b + 1) * rows));
  return concatRows(parts);
}

/// Row `d` of a [dirs, ...] tensor, without its leading dim.
HostTensor direction(const HostTensor &t, int64_t d) {
  HostTensor r = rowsOf(t, d, d + 1);
  r.shape.erase(r.shape.begin());
  return r;
}

llvm::Expected<bool> raiseRecurrent(Importer &I, const Node &node) {
  bool lstm = node.op_type() == "LSTM";
  int64_t gates = lstm ? 4 : 3;
  auto unsupported = [&](const llvm::Twine &what) {
    return I.fail(node, what + " is not supported");
  };
  std::string dir = "forward";
  if (const onnx::AttributeProto *a = attr(node, "direction"))
    dir = a->s();
  if (dir != "forward" && dir != "bidirectional")
    return unsupported("direction '" + dir + "'");
  int64_t dirs = dir == "bidirectional" ? 2 : 1;
  if (attr(node, "activations") || attr(node, "clip") ||
      attrInt(node, "layout", 0) != 0 || attrInt(node, "input_forget", 0) != 0)
    return unsupported("a custom activation, clip, layout or input_forget");
  if (!lstm && attrInt(node, "linear_before_reset", 0) != 1)
    return unsupported("GRU with linear_before_reset = 0 (PyTorch's GRU "
                       "exports 1)");
  if (I.hasInput(node, 4))
    return unsupported("sequence_lens");
  if (lstm && I.hasInput(node, 7))
    return unsupported("an LSTM with peepholes");
  int64_t hidden = attrInt(node, "hidden_size", 0);
  // W, R, B: initializers, or (exports without constant folding) computed
  // from them by Slice/Concat/Unsqueeze, which the import evaluates.
  auto weightInput = [&](int i) -> llvm::Expected<std::optional<HostTensor>> {
    if (!I.hasInput(node, i))
      return std::optional<HostTensor>();
    llvm::Expected<Val> v = I.get(node.input(i));
    if (!v)
      return v.takeError();
    if (v->kind != Val::Host || !v->host.isFloat())
      return I.fail(node, "input " + llvm::Twine(i) +
                              " (a weight) must be known at import");
    return std::optional<HostTensor>(v->host);
  };
  auto w = weightInput(1);
  if (!w)
    return w.takeError();
  auto r = weightInput(2);
  if (!r)
    return r.takeError();
  auto bias = weightInput(3);
  if (!bias)
    return bias.takeError();
  if (!*w || !*r)
    return I.fail(node, "the weights W and R are missing");
  int64_t in = (*w)->shape.size() == 3 ? (*w)->shape[2] : -1;
  if ((*w)->shape != std::vector<int64_t>{dirs, gates * hidden, in} ||
      (*r)->shape != std::vector<int64_t>{dirs, gates * hidden, hidden} ||
      (*bias &&
       (*bias)->shape != std::vector<int64_t>{dirs, 2 * gates * hidden}))
    return I.fail(node, "weights W, R, B do not have the shapes hidden_size " +
                            llvm::Twine(hidden) + " and direction '" + dir +
                            "' need");
  // PyTorch's gate order from ONNX's: LSTM i,f,g,o from i,o,f,c; GRU r,z,n
  // from z,r,h.
  SmallVector<int> order =
      lstm ? SmallVector<int>{0, 2, 3, 1} : SmallVector<int>{1, 0, 2};
  // state_dict names: layer k is the k-th node of this op in its scope.
  std::string scope = scopeOf(node);
  int layer = 0;
  for (const onnx::NodeProto &other : I.model.graph().node()) {
    if (&other == &node)
      break;
    if (other.op_type() == node.op_type() && scopeOf(other) == scope)
      ++layer;
  }
  std::string base = scope.empty() ? "" : scope + ".";
  Location l = I.loc(node);
  SmallVector<Value> weights;
  for (int64_t d = 0; d < dirs; ++d) {
    std::string suffix = "_l" + std::to_string(layer) + (d ? "_reverse" : "");
    weights.push_back(I.weight(base + "weight_ih" + suffix,
                               reorderGates(direction(**w, d), order), l));
    weights.push_back(I.weight(base + "weight_hh" + suffix,
                               reorderGates(direction(**r, d), order), l));
    if (*bias) {
      HostTensor b = direction(**bias, d);
      weights.push_back(
          I.weight(base + "bias_ih" + suffix,
                   reorderGates(rowsOf(b, 0, gates * hidden), order), l));
      weights.push_back(I.weight(
          base + "bias_hh" + suffix,
          reorderGates(rowsOf(b, gates * hidden, 2 * gates * hidden), order),
          l));
    }
  }
  llvm::Expected<Val> x = tensorInput(I, node, node.input(0));
  if (!x)
    return x.takeError();
  if (x->rank() != 3 || x->shape[2] != SymDim::constant(in))
    return I.fail(node, "input " + shapeStr(x->shape) + " is not [L, B, " +
                            llvm::Twine(in) + "]");
  auto state = [&](int i) -> llvm::Expected<Value> {
    if (!I.hasInput(node, i) || isZeros(I, node.input(i)))
      return Value();
    llvm::Expected<Val> h = tensorInput(I, node, node.input(i));
    if (!h)
      return h.takeError();
    return h->value;
  };
  llvm::Expected<Value> h0 = state(5);
  if (!h0)
    return h0.takeError();
  llvm::Expected<Value> c0 = lstm ? state(6) : llvm::Expected<Value>(Value());
  if (!c0)
    return c0.takeError();
  OpBuilder &b = I.builder;
  std::vector<int64_t> swap = {1, 0, 2};
  Value xb = ATTUNE_MAKE(I, at::TransposeOp, node, l, x->value, swap);
  UnitAttr bi = dirs == 2 ? b.getUnitAttr() : UnitAttr();
  Operation *op;
  if (lstm)
    op = ATTUNE_MAKE(I, at::LSTMOp, node, l, xb, weights, *h0, *c0,
                     b.getI64IntegerAttr(hidden), b.getI64IntegerAttr(1), bi,
                     b.getBoolAttr(bias->has_value()));
  else
    op = ATTUNE_MAKE(I, at::GRUOp, node, l, xb, weights, *h0,
                     b.getI64IntegerAttr(hidden), b.getI64IntegerAttr(1), bi,
                     b.getBoolAttr(bias->has_value()));
  // Y [L, dirs, B, H] from output [B, L, dirs*H].
  Value out = op->getResult(0);
  SymDim len = x->shape[0], batch = x->shape[1];
  Value y;
  if (dirs == 1) {
    Value t = ATTUNE_MAKE(I, at::TransposeOp, node, l, out, swap);
    y = ATTUNE_MAKE(I, at::ExpandDimsOp, node, l, t, 1);
  } else {
    Value heads = ATTUNE_MAKE(I, at::SplitHeadsOp, node, l, out, 2);
    y = ATTUNE_MAKE(I, at::TransposeOp, node, l, heads,
                    std::vector<int64_t>{2, 1, 0, 3});
  }
  SymShape states = {SymDim::constant(dirs), batch, SymDim::constant(hidden)};
  I.define(node, 0,
           I.tensor(y, {len, SymDim::constant(dirs), batch,
                        SymDim::constant(hidden)}));
  I.define(node, 1, I.tensor(op->getResult(1), states));
  if (lstm)
    I.define(node, 2, I.tensor(op->getResult(2), states));
  I.recurrentOutputs[node.output(0)] =
      I.tensor(out, {batch, len, SymDim::constant(dirs * hidden)});
  record(I, node, lstm ? "attune.lstm" : "attune.gru", {&node});
  return true;
}

/// A bidirectional layer's output as the next layer (or the user) reads it:
/// Reshape(Transpose(Y, [0, 2, 1, 3]), [L, B, 2H]) -> the op's output.
llvm::Expected<bool> raiseRecurrentOutput(Importer &I, const Node &reshape) {
  const Node *t = prod(I, reshape.input(0), "Transpose");
  if (!t || attrInts(*t, "perm") != std::vector<int64_t>{0, 2, 1, 3})
    return false;
  const Node *rnn = I.producer(t->input(0));
  if (!rnn || (rnn->op_type() != "LSTM" && rnn->op_type() != "GRU") ||
      rnn->output(0) != t->input(0))
    return false;
  llvm::Expected<Val> y = I.get(t->input(0)); // imports the layer
  if (!y)
    return y.takeError();
  auto it = I.recurrentOutputs.find(t->input(0));
  if (it == I.recurrentOutputs.end())
    return false;
  const Val &out = it->second;
  Value v = ATTUNE_MAKE(I, at::TransposeOp, reshape, I.loc(reshape), out.value,
                        std::vector<int64_t>{1, 0, 2});
  I.define(reshape, 0, I.tensor(v, {out.shape[1], out.shape[0], out.shape[2]}));
  record(I, reshape, "the layer's output [L, B, dirs*H]", {t, &reshape});
  return true;
}

} // namespace

llvm::Expected<bool> raisePattern(Importer &I, const Node &node,
                                  std::string &tried) {
  StringRef op = node.op_type();
  using Raiser = llvm::Expected<bool> (*)(Importer &, const Node &);
  SmallVector<std::pair<Raiser, const char *>> raisers;
  if (op == "Add")
    raisers = {{raiseLayerNorm, "layer norm"},
               {raiseLinear, "biased linear"},
               {raisePositions, "positions"}};
  else if (op == "Mul")
    raisers = {{raiseGelu, "GELU"}};
  else if (op == "Reshape")
    raisers = {{raiseMultiHeadAttention, "nn.MultiheadAttention"},
               {raiseAttention4d, "attention over 4-D heads"},
               {raiseRecurrentOutput, "recurrent output"}};
  else if (op == "LSTM" || op == "GRU")
    raisers = {{raiseRecurrent, "recurrent layer"}};
  SmallVector<StringRef> names;
  for (auto [raiser, name] : raisers) {
    llvm::Expected<bool> done = raiser(I, node);
    if (!done || *done)
      return done;
    names.push_back(name);
  }
  tried = llvm::join(names, ", ");
  return false;
}

} // namespace attune::onnx_import
