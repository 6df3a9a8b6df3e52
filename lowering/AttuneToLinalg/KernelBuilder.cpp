//===- KernelBuilder.cpp - linalg-on-tensors building blocks --------------===//

#include "lowering/AttuneToLinalg/KernelBuilder.h"
#include "passes/Passes.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/DialectResourceBlobManager.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::attune;

SmallVector<OpFoldResult> KernelBuilder::sizes(Value t) {
  return tensor::getMixedSizes(b, loc, t);
}

Value KernelBuilder::dim(Value t, int64_t d) {
  return b.createOrFold<tensor::DimOp>(loc, t, d);
}

Value KernelBuilder::empty(ArrayRef<OpFoldResult> sizes, Type elementType) {
  return tensor::EmptyOp::create(b, loc, sizes, elementType);
}

Value KernelBuilder::filled(ArrayRef<OpFoldResult> sizes, Type elementType,
                            double value) {
  Value init = empty(sizes, elementType);
  return linalg::FillOp::create(b, loc, ValueRange{floatConst(elementType, value)},
                                ValueRange{init})
      .getResult(0);
}

Value KernelBuilder::floatConst(Type type, double value) {
  return arith::ConstantOp::create(b, loc, b.getFloatAttr(type, value));
}

Value KernelBuilder::indexConst(int64_t value) {
  return arith::ConstantIndexOp::create(b, loc, value);
}

SmallVector<OpFoldResult>
KernelBuilder::broadcastSizes(RankedTensorType type, ValueRange operands) {
  SmallVector<OpFoldResult> result;
  int64_t rank = type.getRank();
  for (int64_t i = 0; i < rank; ++i) {
    int64_t extent = type.getDimSize(i);
    if (!ShapedType::isDynamic(extent)) {
      result.push_back(b.getIndexAttr(extent));
      continue;
    }
    OpFoldResult found;
    for (Value v : operands) {
      auto t = cast<RankedTensorType>(v.getType());
      int64_t j = i - (rank - t.getRank());
      if (j >= 0 && t.isDynamicDim(j)) {
        found = dim(v, j);
        break;
      }
    }
    assert(found && "a dynamic result dim must come from a dynamic operand dim");
    result.push_back(found);
  }
  return result;
}

AffineMap KernelBuilder::broadcastMap(ArrayRef<int64_t> in,
                                      ArrayRef<int64_t> outShape) {
  MLIRContext *ctx = b.getContext();
  size_t rank = outShape.size(), lead = rank - in.size();
  SmallVector<AffineExpr> exprs;
  for (size_t i = 0; i < in.size(); ++i) {
    if (in[i] == 1 && outShape[lead + i] != 1)
      exprs.push_back(getAffineConstantExpr(0, ctx));
    else
      exprs.push_back(getAffineDimExpr(lead + i, ctx));
  }
  return AffineMap::get(rank, 0, exprs, ctx);
}

Value KernelBuilder::elementwise(RankedTensorType type, ValueRange inputs,
                                 BodyFn body) {
  SmallVector<AffineMap> maps;
  for (Value v : inputs)
    maps.push_back(
        broadcastMap(cast<RankedTensorType>(v.getType()).getShape(),
                     type.getShape()));
  maps.push_back(b.getMultiDimIdentityMap(type.getRank()));
  Value init = empty(broadcastSizes(type, inputs), type.getElementType());
  SmallVector<utils::IteratorType> iterators(type.getRank(),
                                             utils::IteratorType::parallel);
  return generic(inputs, init, maps, iterators, body);
}

Value KernelBuilder::generic(ValueRange inputs, Value init,
                             ArrayRef<AffineMap> maps,
                             ArrayRef<utils::IteratorType> iterators,
                             BodyFn body) {
  return linalg::GenericOp::create(b, loc, TypeRange{init.getType()}, inputs,
                                   ValueRange{init}, maps, iterators, body)
      .getResult(0);
}

OpFoldResult
KernelBuilder::staticOrDim(ArrayRef<std::pair<Value, int64_t>> dims) {
  for (auto [v, d] : dims) {
    int64_t extent = cast<RankedTensorType>(v.getType()).getDimSize(d);
    if (!ShapedType::isDynamic(extent))
      return b.getIndexAttr(extent);
  }
  return dim(dims.front().first, dims.front().second);
}

/// `w` [N, K] transposed to [K, N]: a new constant when `w` is a constant
/// (weights are, once bound), else a linalg.transpose.
static Value transposedWeight(KernelBuilder &kb, OpBuilder &b, Location loc,
                              Value w) {
  auto type = cast<RankedTensorType>(w.getType());
  int64_t n = type.getDimSize(0), k = type.getDimSize(1);
  auto tType = RankedTensorType::get({k, n}, type.getElementType());
  if (std::optional<std::vector<char>> bytes = constantBytes(w);
      bytes && type.getElementType().isF32()) {
    const float *src = reinterpret_cast<const float *>(bytes->data());
    std::vector<float> dst(n * k);
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < k; ++j)
        dst[j * n + i] = src[i * k + j];
    auto attr = DenseResourceElementsAttr::get(
        tType, constantKey(w, "weight") + "_t",
        HeapAsmResourceBlob::allocateAndCopyInferAlign(ArrayRef<float>(dst)));
    return arith::ConstantOp::create(b, loc, tType, attr);
  }
  Value init = kb.empty({b.getIndexAttr(k), b.getIndexAttr(n)},
                        type.getElementType());
  return linalg::TransposeOp::create(b, loc, w, init, ArrayRef<int64_t>{1, 0})
      ->getResult(0);
}

/// `act` applied element-wise to `y`.
static Value applyActivation(KernelBuilder &kb, Value y, Activation act) {
  return kb.elementwise(cast<RankedTensorType>(y.getType()), y,
                        [&](OpBuilder &b, Location l, ValueRange a) {
                          linalg::YieldOp::create(
                              b, l, KernelBuilder::activation(b, l, act, a[0]));
                        });
}

Value KernelBuilder::linear(Value x, Value w, Value bias,
                            std::optional<Activation> act) {
  MLIRContext *ctx = b.getContext();
  auto xType = cast<RankedTensorType>(x.getType());
  if (xType.getRank() == 2 || xType.getRank() == 3)
    return gemmLinear(x, w, bias, act);
  Type elem = xType.getElementType();
  int64_t rank = xType.getRank(); // loops: lead..., o, k
  int64_t outFeatures = cast<RankedTensorType>(w.getType()).getDimSize(0);

  SmallVector<OpFoldResult> outSizes = sizes(x);
  outSizes.back() = b.getIndexAttr(outFeatures);
  Value init;
  if (bias) {
    init = generic(bias, empty(outSizes, elem),
                   {AffineMap::get(rank, 0, getAffineDimExpr(rank - 1, ctx)),
                    b.getMultiDimIdentityMap(rank)},
                   SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
                   [](OpBuilder &nb, Location l, ValueRange a) {
                     linalg::YieldOp::create(nb, l, a[0]);
                   });
  } else {
    init = filled(outSizes, elem, 0.0);
  }
  SmallVector<AffineExpr> xExprs, outExprs;
  for (int64_t d = 0; d < rank - 1; ++d) {
    xExprs.push_back(getAffineDimExpr(d, ctx));
    outExprs.push_back(getAffineDimExpr(d, ctx));
  }
  AffineExpr o = getAffineDimExpr(rank - 1, ctx), k = getAffineDimExpr(rank, ctx);
  xExprs.push_back(k);
  outExprs.push_back(o);
  SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::parallel);
  iters.push_back(utils::IteratorType::reduction);
  Value y = generic(ValueRange{x, w}, init,
                    {AffineMap::get(rank + 1, 0, xExprs, ctx),
                     AffineMap::get(rank + 1, 0, {o, k}, ctx),
                     AffineMap::get(rank + 1, 0, outExprs, ctx)},
                    iters, multiplyAccumulate);
  return act ? applyActivation(*this, y, *act) : y;
}

/// Rows per batch below which a linear's batches are one GEMM's rows: fewer
/// than a register tile's few rows twice over.
static constexpr int64_t kFewStaticRows = 16;

Value KernelBuilder::gemmLinear(Value x, Value w, Value bias,
                                std::optional<Activation> act) {
  MLIRContext *ctx = b.getContext();
  auto xType = cast<RankedTensorType>(x.getType());
  Type elem = xType.getElementType();
  int64_t outFeatures = cast<RankedTensorType>(w.getType()).getDimSize(0);
  // [B, M, K] with a few static rows M per batch and B not 1 (PyTorch's
  // exporter projects a batch-first memory as [L, 1, E]; a batch of
  // decoding steps is [B, 1, E]): one GEMM of B M rows, [B M, K]. Per
  // batch, each GEMM was one row kernel reading all of W (an imported
  // decoder step's 512 x 1 x 768 -> 1536: most of its 30 ms). At most one
  // of B and M is dynamic, so the rows are one dynamic dim at most.
  int64_t batch = xType.getRank() == 3 ? xType.getDimSize(0) : 1;
  int64_t perBatch = xType.getRank() == 3 ? xType.getDimSize(1) : 0;
  if (batch != 1 && !ShapedType::isDynamic(perBatch) &&
      perBatch < kFewStaticRows) {
    Value rows = tensor::CollapseShapeOp::create(
        b, loc, x, ArrayRef<ReassociationIndices>{{0, 1}, {2}});
    Value y = gemmLinear(rows, w, bias, act);
    SmallVector<OpFoldResult> outSizes = sizes(x);
    outSizes.back() = b.getIndexAttr(outFeatures);
    return tensor::ExpandShapeOp::create(
        b, loc,
        RankedTensorType::get(
            {batch, perBatch, outFeatures},
            cast<RankedTensorType>(y.getType()).getElementType()),
        y, ArrayRef<ReassociationIndices>{{0, 1}, {2}}, outSizes);
  }
  bool flat = xType.getRank() == 2;
  // [M, K] -> [1, M, K]: one dynamic dim per reassociation group (MLIR 22's
  // strided-metadata expansion crashes on two).
  Value x3 = x;
  if (flat)
    x3 = tensor::ExpandShapeOp::create(
        b, loc,
        RankedTensorType::get({1, xType.getDimSize(0), xType.getDimSize(1)}, elem),
        x, ArrayRef<ReassociationIndices>{{0, 1}, {2}},
        ArrayRef<OpFoldResult>{b.getIndexAttr(1), sizes(x)[0],
                               b.getIndexAttr(xType.getDimSize(1))});
  Value wt = transposedWeight(*this, b, loc, w); // [K, N]
  SmallVector<OpFoldResult> outSizes = sizes(x3);
  outSizes.back() = b.getIndexAttr(outFeatures);
  Value init;
  if (bias)
    init = generic(bias, empty(outSizes, elem),
                   {AffineMap::get(3, 0, getAffineDimExpr(2, ctx)),
                    b.getMultiDimIdentityMap(3)},
                   SmallVector<utils::IteratorType>(3, utils::IteratorType::parallel),
                   [](OpBuilder &nb, Location l, ValueRange a) {
                     linalg::YieldOp::create(nb, l, a[0]);
                   });
  else
    init = filled(outSizes, elem, 0.0);
  AffineExpr bb = getAffineDimExpr(0, ctx), m = getAffineDimExpr(1, ctx),
             n = getAffineDimExpr(2, ctx), k = getAffineDimExpr(3, ctx);
  auto gemm = linalg::GenericOp::create(
      b, loc, TypeRange{init.getType()}, ValueRange{x3, wt}, ValueRange{init},
      ArrayRef<AffineMap>{AffineMap::get(4, 0, {bb, m, k}, ctx),
                          AffineMap::get(4, 0, {k, n}, ctx),
                          AffineMap::get(4, 0, {bb, m, n}, ctx)},
      ArrayRef<utils::IteratorType>{
          utils::IteratorType::parallel, utils::IteratorType::parallel,
          utils::IteratorType::parallel, utils::IteratorType::reduction},
      multiplyAccumulate);
  // The mark --attune-tile-gemm looks for, on every linear layer: a
  // static M of a few rows (a decoding step compiled for its shape) as
  // well, whose plain contraction LLVM vectorized across the weights'
  // rows with gathers (768 -> 3072 at M = 1: 6.6 ms against 0.09 tiled).
  // Not an empty one (a static dim of 0: nothing to tile, and no loop
  // to peel).
  bool empty =
      llvm::is_contained(xType.getShape(), 0) ||
      llvm::is_contained(cast<RankedTensorType>(w.getType()).getShape(), 0);
  Value y = gemm.getResult(0);
  if (act) {
    y = applyActivation(*this, y, *act);
    // attune-tile-gemm finds the GEMM through its epilogue.
    if (!empty)
      y.getDefiningOp()->setAttr(kEpilogueAttr, UnitAttr::get(ctx));
  } else if (!empty) {
    gemm->setAttr(kGemmAttr, UnitAttr::get(ctx));
  }
  if (!flat)
    return y;
  return tensor::CollapseShapeOp::create(
      b, loc, y, ArrayRef<ReassociationIndices>{{0, 1}, {2}});
}

Value KernelBuilder::softmax(Value input, int64_t axis) {
  auto type = cast<RankedTensorType>(input.getType());
  Type elem = type.getElementType();
  int64_t rank = type.getRank();
  MLIRContext *ctx = b.getContext();

  SmallVector<OpFoldResult> reducedSizes = sizes(input);
  reducedSizes.erase(reducedSizes.begin() + axis);
  SmallVector<AffineExpr> reducedExprs;
  for (int64_t i = 0; i < rank; ++i)
    if (i != axis)
      reducedExprs.push_back(getAffineDimExpr(i, ctx));
  AffineMap full = b.getMultiDimIdentityMap(rank);
  AffineMap reduced = AffineMap::get(rank, 0, reducedExprs, ctx);
  SmallVector<utils::IteratorType> reduction(rank,
                                             utils::IteratorType::parallel);
  reduction[axis] = utils::IteratorType::reduction;
  SmallVector<utils::IteratorType> parallel(rank,
                                            utils::IteratorType::parallel);
  double negInf = -std::numeric_limits<double>::infinity();

  auto shift = KernelBuilder::maxShift;

  Value max = generic(
      input, filled(reducedSizes, elem, negInf), {full, reduced}, reduction,
      [&](OpBuilder &nb, Location l, ValueRange a) {
        linalg::YieldOp::create(
            nb, l, ValueRange{arith::MaximumFOp::create(nb, l, a[0], a[1])});
      });
  Value sum = generic(
      ValueRange{input, max}, filled(reducedSizes, elem, 0.0),
      {full, reduced, reduced}, reduction,
      [&](OpBuilder &nb, Location l, ValueRange a) {
        Value e = math::ExpOp::create(
            nb, l, arith::SubFOp::create(nb, l, a[0], shift(nb, l, a[1])));
        linalg::YieldOp::create(nb, l,
                                ValueRange{arith::AddFOp::create(nb, l, a[2], e)});
      });
  return generic(
      ValueRange{input, max, sum}, empty(sizes(input), elem),
      {full, reduced, reduced, full}, parallel,
      [&](OpBuilder &nb, Location l, ValueRange a) {
        Value e = math::ExpOp::create(
            nb, l, arith::SubFOp::create(nb, l, a[0], shift(nb, l, a[1])));
        Value zero = arith::ConstantOp::create(nb, l, nb.getFloatAttr(elem, 0.0));
        Value isZero =
            arith::CmpFOp::create(nb, l, arith::CmpFPredicate::OEQ, a[2], zero);
        Value q = arith::DivFOp::create(nb, l, e, a[2]);
        linalg::YieldOp::create(
            nb, l, ValueRange{arith::SelectOp::create(nb, l, isZero, zero, q)});
      });
}

void KernelBuilder::multiplyAccumulate(OpBuilder &b, Location loc,
                                       ValueRange args) {
  // Reassociable, so that LLVM may vectorize the reduction (PyTorch's GEMMs
  // reassociate too); contractable into FMAs.
  auto flags = arith::FastMathFlags::reassoc | arith::FastMathFlags::contract;
  Value product = arith::MulFOp::create(b, loc, args[0], args[1], flags);
  linalg::YieldOp::create(
      b, loc, ValueRange{arith::AddFOp::create(b, loc, args[2], product, flags)});
}

Value KernelBuilder::convert(OpBuilder &b, Location loc, Value x, Type to) {
  Type from = x.getType();
  if (from == to)
    return x;
  if (from.isInteger(1)) // true is 1, not -1
    return arith::UIToFPOp::create(b, loc, to, x);
  if (isa<IntegerType>(from))
    return arith::SIToFPOp::create(b, loc, to, x);
  if (from.getIntOrFloatBitWidth() < to.getIntOrFloatBitWidth())
    return arith::ExtFOp::create(b, loc, to, x);
  if (from.getIntOrFloatBitWidth() > to.getIntOrFloatBitWidth())
    return arith::TruncFOp::create(b, loc, to, x);
  // f16 <-> bf16: through f32, exactly one rounding.
  Value wide = arith::ExtFOp::create(b, loc, b.getF32Type(), x);
  return arith::TruncFOp::create(b, loc, to, wide);
}

Value KernelBuilder::maxShift(OpBuilder &b, Location loc, Value m) {
  Type t = m.getType();
  Value ninf = arith::ConstantOp::create(
      b, loc, b.getFloatAttr(t, -std::numeric_limits<double>::infinity()));
  Value zero = arith::ConstantOp::create(b, loc, b.getFloatAttr(t, 0.0));
  Value empty = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, m, ninf);
  return arith::SelectOp::create(b, loc, empty, zero, m);
}

namespace {
// log2(e) as a float and the rest: 1.4426950216 + 1.9259630e-8.
constexpr float kLog2E = 1.44269502162933349609375f;
constexpr float kLog2ELow = 1.925963033500011e-08f;

Value f32Const(OpBuilder &b, Location loc, float v) {
  return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(v));
}

/// 2^t for f32 t <= 0 (small positive t too; -inf, NaN), plus `lo` (a
/// correction below t's last bit, or null): t = n + f with n = round(t)
/// and |f| <= 1/2 (exact), a degree-6 minimax polynomial for 2^f, and 2^n
/// built in the exponent bits; 2^-127 and below give exactly 0. (n from
/// the float add t + 1.5 2^23, without the round and the convert, ran no
/// faster on Zen 4, and Mesa's shader compiler folds (t + c) - c to t.)
Value exp2NonPositive(OpBuilder &b, Location loc, Value t, Value lo) {
  // select(t < -127, -127, t) keeps a NaN t (x86: one vmaxps).
  Value floor = f32Const(b, loc, -127.0f);
  t = arith::SelectOp::create(
      b, loc,
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, t, floor), floor,
      t);
  Value n = math::RoundEvenOp::create(b, loc, t);
  Value f = arith::SubFOp::create(b, loc, t, n);
  if (lo)
    f = arith::AddFOp::create(b, loc, f, lo);
  // Minimax coefficients of 2^f on |f| <= 1/2 (relative error 2.0e-9 in
  // exact arithmetic; 1.3 ulp evaluated in f32 with FMAs).
  const float c[] = {1.0f,
                     0.69314718246f,
                     0.24022647738f,
                     0.055503323674f,
                     0.0096184369177f,
                     0.0013398868032f,
                     0.00015353343042f};
  Value p = f32Const(b, loc, c[6]);
  for (int k = 5; k >= 0; --k)
    p = math::FmaOp::create(b, loc, p, f, f32Const(b, loc, c[k]));
  // n + 127 in [0, 254] shifted into the exponent: 2^n, and 0 for n = -127.
  Type i32 = b.getI32Type();
  Value bits = arith::ShLIOp::create(
      b, loc,
      arith::AddIOp::create(b, loc, arith::FPToSIOp::create(b, loc, i32, n),
                            arith::ConstantIntOp::create(b, loc, i32, 127)),
      arith::ConstantIntOp::create(b, loc, i32, 23));
  return arith::MulFOp::create(
      b, loc, p, arith::BitcastOp::create(b, loc, b.getF32Type(), bits));
}
} // namespace

Value KernelBuilder::expNonPositive(OpBuilder &b, Location loc, Value x) {
  if (!x.getType().isF32())
    return math::ExpOp::create(b, loc, x);
  // x log2(e) as t + lo, lo the product's rounding error and x times the
  // constant's: 2^(t + lo) is within 1.1 ulp of exp(x) down to -87 (with t
  // alone, 20 ulp there).
  Value log2e = f32Const(b, loc, kLog2E);
  Value t = arith::MulFOp::create(b, loc, x, log2e);
  Value lo =
      math::FmaOp::create(b, loc, x, log2e, arith::NegFOp::create(b, loc, t));
  lo = math::FmaOp::create(b, loc, x, f32Const(b, loc, kLog2ELow), lo);
  return exp2NonPositive(b, loc, t, lo);
}

Value KernelBuilder::expMinusMax(OpBuilder &b, Location loc, Value x, Value m) {
  Value shift = maxShift(b, loc, m);
  if (!x.getType().isF32())
    return math::ExpOp::create(b, loc, arith::SubFOp::create(b, loc, x, shift));
  // x log2(e) - M in one rounding, M = shift log2(e) rounded: an error of
  // M is the same for the whole row and cancels in the normalization. The
  // float log2(e) (1.3e-8 low) gives exp((x - m)(1 - 1.3e-8)), a relative
  // error of 1.3e-8 |x - m| (below 1 ulp for the terms above e^-8 that make
  // up the sum).
  Value log2e = f32Const(b, loc, kLog2E);
  Value scaledMax = arith::MulFOp::create(b, loc, shift, log2e);
  return exp2NonPositive(
      b, loc,
      math::FmaOp::create(b, loc, x, log2e,
                          arith::NegFOp::create(b, loc, scaledMax)),
      Value());
}

Value KernelBuilder::expMaxCorrection(OpBuilder &b, Location loc, Value mOld,
                                      Value mNew) {
  Value shift = maxShift(b, loc, mNew);
  if (!mOld.getType().isF32())
    return math::ExpOp::create(b, loc,
                               arith::SubFOp::create(b, loc, mOld, shift));
  // 2^(M_old - M_new) from the two rounded products expMinusMax used: the
  // values scaled by expMinusMax(x, mOld) become exactly those of
  // expMinusMax(x, mNew) but for this subtraction's rounding.
  Value log2e = f32Const(b, loc, kLog2E);
  Value scaledOld = arith::MulFOp::create(b, loc, mOld, log2e);
  Value scaledNew = arith::MulFOp::create(b, loc, shift, log2e);
  return exp2NonPositive(
      b, loc, arith::SubFOp::create(b, loc, scaledOld, scaledNew), Value());
}

Value KernelBuilder::guardedRow(OpBuilder &b, Location loc, Value table,
                                Value row, Value col, int64_t rows) {
  Value zeroIdx = arith::ConstantIndexOp::create(b, loc, 0);
  Value rowsIdx = arith::ConstantIndexOp::create(b, loc, rows);
  Value nonNegative =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, row, zeroIdx);
  Value below =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, row, rowsIdx);
  Value inRange = arith::AndIOp::create(b, loc, nonNegative, below);
  Value safe = arith::SelectOp::create(b, loc, inRange, row, zeroIdx);
  Value value = tensor::ExtractOp::create(b, loc, table, ValueRange{safe, col});
  Value zero = arith::ConstantOp::create(
      b, loc, b.getFloatAttr(value.getType(), 0.0));
  return arith::SelectOp::create(b, loc, inRange, value, zero);
}

Value KernelBuilder::sigmoid(OpBuilder &b, Location loc, Value x) {
  Value one = arith::ConstantOp::create(b, loc, b.getFloatAttr(x.getType(), 1.0));
  Value e = math::ExpOp::create(b, loc, arith::NegFOp::create(b, loc, x));
  return arith::DivFOp::create(b, loc, one, arith::AddFOp::create(b, loc, one, e));
}

Value KernelBuilder::activation(OpBuilder &b, Location loc, Activation kind,
                                Value x) {
  Type t = x.getType();
  auto c = [&](double v) {
    return arith::ConstantOp::create(b, loc, b.getFloatAttr(t, v)).getResult();
  };
  switch (kind) {
  case Activation::relu:
    // max(x, 0), propagating NaN as torch.relu does.
    return arith::MaximumFOp::create(b, loc, x, c(0.0));
  case Activation::gelu: {
    // 0.5 * x * (1 + erf(x / sqrt(2)))
    Value erf = math::ErfOp::create(
        b, loc, arith::MulFOp::create(b, loc, x, c(M_SQRT1_2)));
    Value onePlus = arith::AddFOp::create(b, loc, c(1.0), erf);
    return arith::MulFOp::create(
        b, loc, arith::MulFOp::create(b, loc, c(0.5), x), onePlus);
  }
  case Activation::gelu_tanh: {
    // 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3)))
    Value x3 = arith::MulFOp::create(b, loc,
                                     arith::MulFOp::create(b, loc, x, x), x);
    Value inner = arith::AddFOp::create(
        b, loc, x, arith::MulFOp::create(b, loc, c(0.044715), x3));
    Value t = math::TanhOp::create(
        b, loc, arith::MulFOp::create(b, loc, c(0.7978845608028654), inner));
    Value onePlus = arith::AddFOp::create(b, loc, c(1.0), t);
    return arith::MulFOp::create(
        b, loc, arith::MulFOp::create(b, loc, c(0.5), x), onePlus);
  }
  case Activation::tanh:
    return math::TanhOp::create(b, loc, x);
  case Activation::sigmoid:
    return sigmoid(b, loc, x);
  case Activation::silu:
    return arith::MulFOp::create(b, loc, x, sigmoid(b, loc, x));
  }
  llvm_unreachable("unknown activation");
}

/// Whether key `j` is visible to query `i` under the attention masks
/// (see the `attune.attention` description). `len` is the key length of this
/// batch element (index), or null; `queryOffset` its query offset, or null.
/// All values are `index`.
Value KernelBuilder::visible(OpBuilder &b, Location loc, Value i, Value j,
                             Value lq, Value lk, bool causal, MaskAlign align,
                             std::optional<int64_t> window, Value len,
                             Value queryOffset, SparseLayoutAttr sparse,
                             Value head, int64_t dilation) {
  Value visible = arith::ConstantIntOp::create(b, loc, 1, 1);
  auto both = [&](Value c) {
    visible = arith::AndIOp::create(b, loc, visible, c);
  };
  Value p = i;
  if (queryOffset)
    p = arith::AddIOp::create(b, loc, i, queryOffset);
  else if (align == MaskAlign::bottom_right)
    p = arith::AddIOp::create(b, loc, i,
                              arith::SubIOp::create(b, loc, lk, lq));
  if (causal)
    both(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sle, j, p));
  if (window) {
    Value w = arith::ConstantIndexOp::create(b, loc, *window);
    Value pj = arith::SubIOp::create(b, loc, p, j);
    both(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, pj, w));
    if (!causal) {
      Value jp = arith::SubIOp::create(b, loc, j, p);
      both(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, jp, w));
    }
    if (dilation > 1)
      both(arith::CmpIOp::create(
          b, loc, arith::CmpIPredicate::eq,
          arith::RemSIOp::create(
              b, loc, pj, arith::ConstantIndexOp::create(b, loc, dilation)),
          arith::ConstantIndexOp::create(b, loc, 0)));
  }
  if (len)
    both(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, j, len));
  if (sparse) {
    both(layoutVisible(b, loc, sparse, floorDiv(b, loc, p, sparse.getBlock()),
                       floorDiv(b, loc, j, sparse.getBlock()), head));
  }
  return visible;
}

Value mlir::attune::floorDiv(OpBuilder &b, Location loc, Value x, int64_t c) {
  if (c == 1)
    return x;
  Value divisor = arith::ConstantIndexOp::create(b, loc, c);
  Value quotient = arith::DivSIOp::create(b, loc, x, divisor);
  Value rest = arith::RemSIOp::create(b, loc, x, divisor);
  Value below =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, rest,
                            arith::ConstantIndexOp::create(b, loc, 0));
  return arith::SubIOp::create(
      b, loc, quotient,
      arith::SelectOp::create(b, loc, below,
                              arith::ConstantIndexOp::create(b, loc, 1),
                              arith::ConstantIndexOp::create(b, loc, 0)));
}

Value KernelBuilder::layoutVisible(OpBuilder &b, Location loc,
                                   SparseLayoutAttr sparse, Value qBlock,
                                   Value kBlock, Value head) {
  auto c = [&](int64_t x) {
    return arith::ConstantIndexOp::create(b, loc, x).getResult();
  };
  auto cmp = [&](arith::CmpIPredicate pred, Value x, Value y) {
    return arith::CmpIOp::create(b, loc, pred, x, y).getResult();
  };
  auto both = [&](Value x, Value y) {
    return arith::AndIOp::create(b, loc, x, y).getResult();
  };
  Value any = arith::ConstantIntOp::create(b, loc, 0, 1);
  auto either = [&](Value x) { any = arith::OrIOp::create(b, loc, any, x); };
  // Split: even heads take the first factor, odd heads the second.
  Value first, second;
  if (sparse.getSplit()) {
    Value odd = arith::RemUIOp::create(b, loc, head, c(2));
    first = cmp(arith::CmpIPredicate::eq, odd, c(0));
    second = cmp(arith::CmpIPredicate::ne, odd, c(0));
  }
  auto inFirst = [&](Value x) { return first ? both(first, x) : x; };
  auto inSecond = [&](Value x) { return second ? both(second, x) : x; };
  Value diff = arith::SubIOp::create(b, loc, qBlock, kBlock);
  Value dist = arith::MaxSIOp::create(
      b, loc, diff, arith::SubIOp::create(b, loc, c(0), diff));
  if (int64_t w = sparse.getLocal())
    either(inFirst(cmp(arith::CmpIPredicate::slt, dist, c(w))));
  if (int64_t s = sparse.getStride())
    either(inSecond(cmp(arith::CmpIPredicate::eq,
                        arith::RemUIOp::create(b, loc, dist, c(s)), c(0))));
  if (int64_t s = sparse.getFixed()) {
    either(inFirst(cmp(arith::CmpIPredicate::eq, floorDiv(b, loc, qBlock, s),
                       floorDiv(b, loc, kBlock, s))));
    if (int64_t summary = sparse.getSummary())
      either(inSecond(cmp(arith::CmpIPredicate::sge,
                          arith::RemUIOp::create(b, loc, kBlock, c(s)),
                          c(s - summary))));
  }
  if (int64_t g = sparse.getGlobal())
    either(arith::OrIOp::create(b, loc,
                                cmp(arith::CmpIPredicate::slt, qBlock, c(g)),
                                cmp(arith::CmpIPredicate::slt, kBlock, c(g))));
  return any;
}

Value mlir::attune::layoutRangeVisible(OpBuilder &b, Location loc,
                                       SparseLayoutAttr sparse, Value pFirst,
                                       Value pLast, Value jFirst, Value jLast,
                                       Value head, Value *single) {
  auto c = [&](int64_t x) {
    return arith::ConstantIndexOp::create(b, loc, x).getResult();
  };
  auto blockOf = [&](Value x) {
    return floorDiv(b, loc, x, sparse.getBlock());
  };
  Value qLo = blockOf(pFirst), qHi = blockOf(pLast);
  Value kLo = blockOf(jFirst), kHi = blockOf(jLast);
  if (single)
    *single = arith::AndIOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, qLo, qHi),
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, kLo, kHi));
  Value none = arith::ConstantIntOp::create(b, loc, 0, 1);
  auto rows = scf::ForOp::create(
      b, loc, qLo, arith::AddIOp::create(b, loc, qHi, c(1)), c(1),
      ValueRange{none},
      [&](OpBuilder &b1, Location l1, Value qb, ValueRange any1) {
        auto cols = scf::ForOp::create(
            b1, l1, kLo,
            arith::AddIOp::create(b1, l1, kHi,
                                  arith::ConstantIndexOp::create(b1, l1, 1)),
            arith::ConstantIndexOp::create(b1, l1, 1), any1,
            [&](OpBuilder &b2, Location l2, Value kb2, ValueRange any2) {
              Value vis =
                  KernelBuilder::layoutVisible(b2, l2, sparse, qb, kb2, head);
              scf::YieldOp::create(
                  b2, l2,
                  ValueRange{arith::OrIOp::create(b2, l2, any2[0], vis)});
            });
        scf::YieldOp::create(b1, l1, cols.getResults());
      });
  return rows.getResult(0);
}

void mlir::attune::assertAttentionExtents(OpBuilder &b, Location loc, Value q,
                                          Value k, Value v, Value lengths,
                                          Value bias) {
  KernelBuilder kb(b, loc);
  Value qBatch = kb.dim(q, 0);
  assertEqualExtents(b, loc, kb.dim(k, 0), qBatch,
                     "the batch of the keys differs from the queries'");
  assertEqualExtents(b, loc, kb.dim(v, 0), qBatch,
                     "the batch of the values differs from the queries'");
  assertEqualExtents(b, loc, kb.dim(v, 2), kb.dim(k, 2),
                     "the values' length differs from the keys'");
  if (lengths)
    assertEqualExtents(b, loc, kb.dim(lengths, 0), qBatch,
                       "key_lengths has a different batch than the queries");
  if (!bias)
    return;
  auto biasType = cast<RankedTensorType>(bias.getType());
  int64_t heads = cast<RankedTensorType>(q.getType()).getDimSize(1);
  Value targets[4] = {qBatch, kb.indexConst(heads), kb.dim(q, 2),
                      kb.dim(k, 2)};
  for (int64_t d = 0; d < biasType.getRank(); ++d)
    if (biasType.getDimSize(d) != 1)
      assertEqualExtents(b, loc, kb.dim(bias, d),
                         targets[4 - biasType.getRank() + d],
                         "the bias does not broadcast to the scores");
}

std::pair<Value, Value>
mlir::attune::visibleKeyRange(OpBuilder &b, Location loc, Value first,
                              Value last, Value lk, Value len, bool causal,
                              std::optional<int64_t> window) {
  auto c = [&](int64_t x) {
    return arith::ConstantIndexOp::create(b, loc, x).getResult();
  };
  auto add = [&](Value x, Value y) {
    return arith::AddIOp::create(b, loc, x, y).getResult();
  };
  auto min = [&](Value x, Value y) {
    return arith::MinSIOp::create(b, loc, x, y).getResult();
  };
  Value hi = len ? min(lk, len) : lk;
  Value lo = c(0);
  if (causal)
    hi = min(hi, add(last, c(1)));
  if (window) {
    lo = arith::MaxSIOp::create(
        b, loc, lo,
        add(arith::SubIOp::create(b, loc, first, c(*window)), c(1)));
    if (!causal)
      hi = min(hi, add(last, c(*window)));
  }
  return {lo, hi};
}

std::string mlir::attune::shapeCheckMessage(Location loc, StringRef reason) {
  return runtimeCheckMessage(loc, ("input shapes disagree: " + reason).str());
}

std::string mlir::attune::runtimeCheckMessage(Location loc, StringRef text) {
  std::string where;
  loc->walk([&](Location l) {
    if (auto file = dyn_cast<FileLineColLoc>(l)) {
      where = (file.getFilename().strref() + ":" + Twine(file.getLine()) +
               ":" + Twine(file.getColumn()) + ": ")
                  .str();
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return where + text.str();
}

void mlir::attune::assertEqualExtents(OpBuilder &b, Location loc, Value a,
                                      Value c, StringRef reason) {
  if (getConstantIntValue(a) && getConstantIntValue(c))
    return; // static extents were checked by the verifier
  Value same = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, a, c);
  cf::AssertOp::create(b, loc, same, shapeCheckMessage(loc, reason));
}

void mlir::attune::replaceWithCast(RewriterBase &rewriter, Operation *op,
                                   ValueRange values) {
  SmallVector<Value> results;
  for (auto [v, t] : llvm::zip(values, op->getResultTypes()))
    results.push_back(v.getType() == t
                          ? v
                          : tensor::CastOp::create(rewriter, op->getLoc(), t, v)
                                .getResult());
  rewriter.replaceOp(op, results);
}

Value KernelBuilder::queryGlobalFlag(OpBuilder &b, Location loc, Value flags,
                                     Value batch, Value i, Value lq, Value lk,
                                     MaskAlign align, Value offset) {
  // The query's position p in key coordinates, as visible() places it.
  Value p = offset ? arith::AddIOp::create(b, loc, i, offset).getResult()
            : align == MaskAlign::bottom_right
                ? arith::AddIOp::create(b, loc, i,
                                        arith::SubIOp::create(b, loc, lk, lq))
                      .getResult()
                : i;
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value inRange = arith::AndIOp::create(
      b, loc, arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, p, zero),
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, p, lk));
  Value clamped = arith::SelectOp::create(b, loc, inRange, p, zero);
  Value flag =
      tensor::ExtractOp::create(b, loc, flags, ValueRange{batch, clamped});
  return arith::SelectOp::create(
      b, loc, inRange, flag,
      arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(0)));
}

Value KernelBuilder::visibleWithGlobals(OpBuilder &b, Location loc, Value vis,
                                        Value i, Value j, Value lq, Value lk,
                                        bool causal, MaskAlign align, Value len,
                                        Value offset, Value keyGlobal,
                                        Value queryGlobal) {
  Value zero = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(0));
  Value either = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::ne,
      arith::OrIOp::create(b, loc, keyGlobal, queryGlobal), zero);
  Value base =
      visible(b, loc, i, j, lq, lk, causal, align, std::nullopt, len, offset);
  return arith::OrIOp::create(b, loc, vis,
                              arith::AndIOp::create(b, loc, base, either));
}

Value mlir::attune::globalTokenFlags(KernelBuilder &kb, Value globals,
                                     Value lk) {
  OpBuilder &b = kb.builder();
  Location loc = kb.location();
  MLIRContext *ctx = b.getContext();
  AffineExpr d0 = getAffineDimExpr(0, ctx), d1 = getAffineDimExpr(1, ctx),
             d2 = getAffineDimExpr(2, ctx);
  Value init =
      linalg::FillOp::create(
          b, loc,
          ValueRange{arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(0))},
          ValueRange{kb.empty({kb.dim(globals, 0), lk}, b.getI32Type())})
          .getResult(0);
  // Over (b, j, g): flags[b, j] |= globals[b, g] == j.
  return kb.generic(
      globals, init,
      {AffineMap::get(3, 0, {d0, d2}, ctx),
       AffineMap::get(3, 0, {d0, d1}, ctx)},
      {utils::IteratorType::parallel, utils::IteratorType::parallel,
       utils::IteratorType::reduction},
      [&](OpBuilder &bb, Location l, ValueRange a) {
        Value pos = arith::IndexCastOp::create(bb, l, bb.getIndexType(), a[0]);
        Value hit = arith::CmpIOp::create(bb, l, arith::CmpIPredicate::eq, pos,
                                          linalg::IndexOp::create(bb, l, 1));
        linalg::YieldOp::create(
            bb, l,
            ValueRange{arith::OrIOp::create(
                bb, l, a[1],
                arith::ExtUIOp::create(bb, l, bb.getI32Type(), hit))});
      });
}
