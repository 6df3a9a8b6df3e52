//===- RecurrentToLinalg.cpp - rnn/lstm/gru -> scf.for + linalg -----------===//
//
// A sequence op becomes, per layer and direction, one GEMM for the input
// projection of every time step (x W_ih^T + b_ih), then a rolled `scf.for`
// over time carrying h (and c) whose body does h W_hh^T + b_hh and one
// elementwise generic for the gates. The cells reuse the step.
//
//===----------------------------------------------------------------------===//

#include "lowering/AttuneToLinalg/AttuneToLinalg.h"
#include "lowering/AttuneToLinalg/KernelBuilder.h"

#include "dialect/AttuneOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace mlir::attune;

namespace {

enum class CellKind { rnn, lstm, gru };

int64_t numGates(CellKind kind) {
  switch (kind) {
  case CellKind::rnn:
    return 1;
  case CellKind::lstm:
    return 4;
  case CellKind::gru:
    return 3;
  }
  llvm_unreachable("unknown cell");
}

struct StepWeights {
  Value weightHH, biasHH; // [G*H, H], [G*H] or null
};

/// One time step. `xw` is [B, G*H] (input projection with b_ih), `h` and `c`
/// are [B, H]. Returns the next h and (LSTM) c.
std::pair<Value, Value> buildStep(KernelBuilder &kb, CellKind kind, Value xw,
                                  Value h, Value c, const StepWeights &w,
                                  int64_t hidden, Activation nonlinearity) {
  OpBuilder &b = kb.builder();
  Location loc = kb.location();
  Value hw = kb.linear(h, w.weightHH, w.biasHH); // [B, G*H]
  auto type = cast<RankedTensorType>(h.getType());
  Type elem = type.getElementType();
  int64_t gates = numGates(kind);

  // Inputs: gate g of xw and of hw (columns [g*H, (g+1)*H), sliced, so that
  // every operand of the generic is [B, H] and the loop ranges are exactly
  // the state's), then c or h.
  SmallVector<OpFoldResult> sizes = kb.sizes(h);
  SmallVector<Value> inputs;
  for (Value projected : {xw, hw})
    for (int64_t g = 0; g < gates; ++g)
      inputs.push_back(tensor::ExtractSliceOp::create(
          b, loc, type, projected,
          ArrayRef<OpFoldResult>{b.getIndexAttr(0), b.getIndexAttr(g * hidden)},
          sizes,
          ArrayRef<OpFoldResult>{b.getIndexAttr(1), b.getIndexAttr(1)}));
  AffineMap identity = b.getMultiDimIdentityMap(2);
  SmallVector<AffineMap> maps(inputs.size(), identity);
  if (kind == CellKind::lstm) {
    inputs.push_back(c);
    maps.push_back(identity);
  } else if (kind == CellKind::gru) {
    inputs.push_back(h);
    maps.push_back(identity);
  }
  SmallVector<Value> inits = {kb.empty(sizes, elem)};
  SmallVector<Type> resultTypes = {type};
  if (kind == CellKind::lstm) {
    inits.push_back(kb.empty(sizes, elem));
    resultTypes.push_back(type);
  }
  for (size_t i = 0; i < inits.size(); ++i)
    maps.push_back(identity);

  auto step = linalg::GenericOp::create(
      b, loc, resultTypes, inputs, inits, maps,
      SmallVector<utils::IteratorType>(2, utils::IteratorType::parallel),
      [&](OpBuilder &nb, Location l, ValueRange a) {
        auto sig = [&](Value v) { return KernelBuilder::sigmoid(nb, l, v); };
        auto add = [&](Value x, Value y) {
          return arith::AddFOp::create(nb, l, x, y).getResult();
        };
        auto mul = [&](Value x, Value y) {
          return arith::MulFOp::create(nb, l, x, y).getResult();
        };
        auto x = [&](int64_t g) { return a[g]; };
        auto hh = [&](int64_t g) { return a[gates + g]; };
        Value extra = a[2 * gates];
        switch (kind) {
        case CellKind::rnn:
          linalg::YieldOp::create(
              nb, l,
              KernelBuilder::activation(nb, l, nonlinearity, add(x(0), hh(0))));
          return;
        case CellKind::lstm: {
          // Gates i, f, g, o.
          Value i = sig(add(x(0), hh(0)));
          Value f = sig(add(x(1), hh(1)));
          Value g = math::TanhOp::create(nb, l, add(x(2), hh(2)));
          Value o = sig(add(x(3), hh(3)));
          Value cNext = add(mul(f, extra), mul(i, g));
          Value hNext = mul(o, math::TanhOp::create(nb, l, cNext));
          linalg::YieldOp::create(nb, l, ValueRange{hNext, cNext});
          return;
        }
        case CellKind::gru: {
          // Gates r, z, n; n = tanh(x_n + r * (h W_hn^T + b_hn)).
          Value r = sig(add(x(0), hh(0)));
          Value z = sig(add(x(1), hh(1)));
          Value n = math::TanhOp::create(nb, l, add(x(2), mul(r, hh(2))));
          Value one = arith::ConstantOp::create(nb, l, nb.getFloatAttr(elem, 1.0));
          Value hNext = add(mul(arith::SubFOp::create(nb, l, one, z), n),
                            mul(z, extra));
          linalg::YieldOp::create(nb, l, hNext);
          return;
        }
        }
      });
  return {step.getResult(0),
          kind == CellKind::lstm ? step.getResult(1) : Value()};
}

/// Slice `t[index]` of a rank-3 state tensor [N, B, H] as [B, H].
Value stateSlice(KernelBuilder &kb, Value t, int64_t index) {
  OpBuilder &b = kb.builder();
  auto type = cast<RankedTensorType>(t.getType());
  SmallVector<OpFoldResult> sizes = kb.sizes(t);
  sizes[0] = b.getIndexAttr(1);
  auto sliceType = RankedTensorType::get(type.getShape().drop_front(),
                                         type.getElementType());
  return tensor::ExtractSliceOp::create(
      b, kb.location(), sliceType, t,
      ArrayRef<OpFoldResult>{b.getIndexAttr(index), b.getIndexAttr(0),
                             b.getIndexAttr(0)},
      sizes,
      ArrayRef<OpFoldResult>{b.getIndexAttr(1), b.getIndexAttr(1),
                             b.getIndexAttr(1)});
}

/// Inserts `slice` [B, X] into `dest` [N, B, ...] at `index` (dim 0) and
/// column `column` of the last dim; or, with `timeDim`, into [B, T, X] at
/// time `index` (a Value).
Value insertState(KernelBuilder &kb, Value slice, Value dest, int64_t index) {
  OpBuilder &b = kb.builder();
  SmallVector<OpFoldResult> sizes = kb.sizes(slice);
  sizes.insert(sizes.begin(), b.getIndexAttr(1));
  SmallVector<OpFoldResult> ones(3, b.getIndexAttr(1));
  return tensor::InsertSliceOp::create(
      b, kb.location(), slice, dest,
      ArrayRef<OpFoldResult>{b.getIndexAttr(index), b.getIndexAttr(0),
                             b.getIndexAttr(0)},
      sizes, ones);
}

struct DirectionResult {
  Value outputs; // [B, T, H]
  Value h, c;    // [B, H]
};

/// Runs one direction of one layer over the sequence `x` [B, T, I].
DirectionResult runDirection(KernelBuilder &kb, CellKind kind, Value x,
                             Value weightIH, Value biasIH,
                             const StepWeights &sw, Value h0, Value c0,
                             bool reverse, int64_t hidden,
                             Activation nonlinearity) {
  OpBuilder &b = kb.builder();
  Location loc = kb.location();
  auto xType = cast<RankedTensorType>(x.getType());
  Type elem = xType.getElementType();
  int64_t gates = numGates(kind);
  Value xProj = kb.linear(x, weightIH, biasIH); // [B, T, G*H]
  OpFoldResult batch = kb.sizes(x)[0];
  Value time = kb.dim(x, 1);
  Value outInit = kb.empty({batch, time, b.getIndexAttr(hidden)}, elem);

  SmallVector<Value> inits = {h0};
  if (kind == CellKind::lstm)
    inits.push_back(c0);
  inits.push_back(outInit);
  Value zero = kb.indexConst(0), one = kb.indexConst(1);
  auto stepType = RankedTensorType::get(
      {xType.getDimSize(0), gates * hidden}, elem);

  auto loop = scf::ForOp::create(
      b, loc, zero, time, one, inits,
      [&](OpBuilder &nb, Location l, Value t, ValueRange state) {
        KernelBuilder body(nb, l);
        Value tt = t;
        if (reverse)
          tt = arith::SubIOp::create(
              nb, l, arith::SubIOp::create(nb, l, time, t),
              arith::ConstantIndexOp::create(nb, l, 1));
        SmallVector<OpFoldResult> unit(3, nb.getIndexAttr(1));
        Value xw = tensor::ExtractSliceOp::create(
            nb, l, stepType, xProj,
            ArrayRef<OpFoldResult>{nb.getIndexAttr(0), tt, nb.getIndexAttr(0)},
            ArrayRef<OpFoldResult>{batch, nb.getIndexAttr(1),
                                   nb.getIndexAttr(gates * hidden)},
            unit);
        Value c = kind == CellKind::lstm ? state[1] : Value();
        auto [hNext, cNext] =
            buildStep(body, kind, xw, state[0], c, sw, hidden, nonlinearity);
        Value out = state.back();
        out = tensor::InsertSliceOp::create(
            nb, l, hNext, out,
            ArrayRef<OpFoldResult>{nb.getIndexAttr(0), tt, nb.getIndexAttr(0)},
            ArrayRef<OpFoldResult>{batch, nb.getIndexAttr(1),
                                   nb.getIndexAttr(hidden)},
            unit);
        SmallVector<Value> yields = {hNext};
        if (cNext)
          yields.push_back(cNext);
        yields.push_back(out);
        scf::YieldOp::create(nb, l, yields);
      });
  DirectionResult r;
  r.h = loop.getResult(0);
  r.c = kind == CellKind::lstm ? loop.getResult(1) : Value();
  r.outputs = loop.getResults().back();
  return r;
}

/// Shared by rnn, lstm and gru.
template <typename OpTy>
LogicalResult lowerSequence(OpTy op, ConversionPatternRewriter &rewriter,
                            CellKind kind, Value input, ValueRange weights,
                            Value initialH, Value initialC,
                            Activation nonlinearity) {
  KernelBuilder kb(rewriter, op.getLoc());
  Location loc = op.getLoc();
  int64_t hidden = static_cast<int64_t>(op.getHiddenSize());
  int64_t layers = static_cast<int64_t>(op.getNumLayers());
  int64_t dirs = op.getBidirectional() ? 2 : 1;
  bool biases = op.getHasBiases();
  int64_t perLayer = biases ? 4 : 2;
  auto xType = cast<RankedTensorType>(input.getType());
  Type elem = xType.getElementType();
  OpFoldResult batch = kb.sizes(input)[0];
  SmallVector<OpFoldResult> stateSizes = {batch, rewriter.getIndexAttr(hidden)};
  SmallVector<OpFoldResult> finalSizes = {rewriter.getIndexAttr(layers * dirs),
                                          batch,
                                          rewriter.getIndexAttr(hidden)};
  Value finalH = kb.empty(finalSizes, elem);
  Value finalC = kind == CellKind::lstm ? kb.empty(finalSizes, elem) : Value();

  Value x = input;
  for (int64_t l = 0; l < layers; ++l) {
    SmallVector<Value> outs;
    for (int64_t d = 0; d < dirs; ++d) {
      int64_t idx = l * dirs + d;
      size_t base = idx * perLayer;
      StepWeights sw{weights[base + 1], biases ? weights[base + 3] : Value()};
      Value h0 = initialH ? stateSlice(kb, initialH, idx)
                          : kb.filled(stateSizes, elem, 0.0);
      Value c0;
      if (kind == CellKind::lstm)
        c0 = initialC ? stateSlice(kb, initialC, idx)
                      : kb.filled(stateSizes, elem, 0.0);
      DirectionResult r =
          runDirection(kb, kind, x, weights[base],
                       biases ? weights[base + 2] : Value(), sw, h0, c0,
                       /*reverse=*/d == 1, hidden, nonlinearity);
      outs.push_back(r.outputs);
      finalH = insertState(kb, r.h, finalH, idx);
      if (finalC)
        finalC = insertState(kb, r.c, finalC, idx);
    }
    if (dirs == 1) {
      x = outs[0];
      continue;
    }
    // Concatenate the directions along the features.
    SmallVector<OpFoldResult> sizes = kb.sizes(outs[0]);
    SmallVector<OpFoldResult> catSizes = sizes;
    catSizes[2] = rewriter.getIndexAttr(2 * hidden);
    Value cat = kb.empty(catSizes, elem);
    SmallVector<OpFoldResult> unit(3, rewriter.getIndexAttr(1));
    for (int64_t d = 0; d < 2; ++d)
      cat = tensor::InsertSliceOp::create(
          rewriter, loc, outs[d], cat,
          ArrayRef<OpFoldResult>{rewriter.getIndexAttr(0), rewriter.getIndexAttr(0),
                                 rewriter.getIndexAttr(d * hidden)},
          sizes, unit);
    x = cat;
  }
  SmallVector<Value> results = {x, finalH};
  if (finalC)
    results.push_back(finalC);
  replaceWithCast(rewriter, op, results);
  return success();
}

struct RNNLowering : OpConversionPattern<RNNOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(RNNOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    return lowerSequence(op, rewriter, CellKind::rnn, adaptor.getInput(),
                         adaptor.getWeights(), adaptor.getInitialH(), Value(),
                         op.getNonlinearity());
  }
};

struct LSTMLowering : OpConversionPattern<LSTMOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(LSTMOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    return lowerSequence(op, rewriter, CellKind::lstm, adaptor.getInput(),
                         adaptor.getWeights(), adaptor.getInitialH(),
                         adaptor.getInitialC(), Activation::tanh);
  }
};

struct GRULowering : OpConversionPattern<GRUOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(GRUOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    return lowerSequence(op, rewriter, CellKind::gru, adaptor.getInput(),
                         adaptor.getWeights(), adaptor.getInitialH(), Value(),
                         Activation::tanh);
  }
};

/// Shared by the cells.
LogicalResult lowerCell(Operation *op, ConversionPatternRewriter &rewriter,
                        CellKind kind, Value input, Value h, Value c,
                        ValueRange weights, Activation nonlinearity) {
  KernelBuilder kb(rewriter, op->getLoc());
  bool biases = weights.size() == 4;
  int64_t hidden = cast<RankedTensorType>(h.getType()).getDimSize(1);
  Value xw = kb.linear(input, weights[0], biases ? weights[2] : Value());
  StepWeights sw{weights[1], biases ? weights[3] : Value()};
  auto [hNext, cNext] = buildStep(kb, kind, xw, h, c, sw, hidden, nonlinearity);
  SmallVector<Value> results = {hNext};
  if (cNext)
    results.push_back(cNext);
  replaceWithCast(rewriter, op, results);
  return success();
}

struct RNNCellLowering : OpConversionPattern<RNNCellOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(RNNCellOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    return lowerCell(op, rewriter, CellKind::rnn, adaptor.getInput(),
                     adaptor.getH(), Value(), adaptor.getWeights(),
                     op.getNonlinearity());
  }
};

struct LSTMCellLowering : OpConversionPattern<LSTMCellOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(LSTMCellOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    return lowerCell(op, rewriter, CellKind::lstm, adaptor.getInput(),
                     adaptor.getH(), adaptor.getC(), adaptor.getWeights(),
                     Activation::tanh);
  }
};

struct GRUCellLowering : OpConversionPattern<GRUCellOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(GRUCellOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    return lowerCell(op, rewriter, CellKind::gru, adaptor.getInput(),
                     adaptor.getH(), Value(), adaptor.getWeights(),
                     Activation::tanh);
  }
};

} // namespace

void mlir::attune::populateRecurrentToLinalgConversionPatterns(
    RewritePatternSet &patterns) {
  patterns.add<RNNLowering, LSTMLowering, GRULowering, RNNCellLowering,
               LSTMCellLowering, GRUCellLowering>(patterns.getContext());
}
