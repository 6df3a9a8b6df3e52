//===- LinearAttention.cpp - attune.linear_attention -> linalg ------------===//
//
// The batched form of linear attention, on every target: each step a
// linalg op over all batch elements and heads (on Vulkan, one kernel).
//
//   phi(x) = elu(x) + 1;  S = sum_j phi(k_j)^T v_j;  z = sum_j phi(k_j)
//   out_i  = phi(q_i) S / (phi(q_i) . z + eps)
//
// Non-causal: S and z over every visible key, then applied to every query.
// Causal: an scf.for over chunks of kChunk queries carries S and z (the
// sums of the chunks before) and the result; a chunk adds its own masked
// block phi(Q_c) phi(K_c)^T (j <= i) to what S and z give, then adds its
// keys to S and z. No tensor grows with the square of the length. The CPU
// pipeline tiles the op per head first (attune-tile-attention); this form
// remains for the ops it leaves (a state: decoding steps) and for Vulkan.
//
//===----------------------------------------------------------------------===//

#include "lowering/AttuneToLinalg/LinearAttention.h"
#include "lowering/AttuneToLinalg/AttuneToLinalg.h"
#include "lowering/AttuneToLinalg/KernelBuilder.h"

#include "dialect/AttuneOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace mlir::attune;

using Iter = utils::IteratorType;

Value mlir::attune::linearAttentionFeature(OpBuilder &b, Location loc,
                                           Value x) {
  Type t = x.getType();
  Value zero = arith::ConstantOp::create(b, loc, b.getFloatAttr(t, 0.0));
  Value one = arith::ConstantOp::create(b, loc, b.getFloatAttr(t, 1.0));
  Value positive =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, x, zero);
  // exp of min(x, 0): the branch not taken stays finite, and the argument
  // is in the domain of the vectorizable exp (1.5 ulp).
  Value negative = KernelBuilder::expNonPositive(
      b, loc, arith::MinimumFOp::create(b, loc, x, zero));
  return arith::SelectOp::create(
      b, loc, positive, arith::AddFOp::create(b, loc, x, one), negative);
}

Value mlir::attune::linearAttentionQuotient(OpBuilder &b, Location loc,
                                            Value num, Value den, double eps) {
  Type t = num.getType();
  Value zero = arith::ConstantOp::create(b, loc, b.getFloatAttr(t, 0.0));
  Value d = arith::AddFOp::create(
      b, loc, den, arith::ConstantOp::create(b, loc, b.getFloatAttr(t, eps)));
  Value none =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, d, zero);
  return arith::SelectOp::create(b, loc, none, zero,
                                 arith::DivFOp::create(b, loc, num, d));
}

std::pair<Value, Value> mlir::attune::linearAttentionFeatures(KernelBuilder &kb,
                                                              Value q, Value k,
                                                              Value lengths) {
  MLIRContext *ctx = q.getContext();
  Type elem = cast<RankedTensorType>(q.getType()).getElementType();
  AffineExpr d0 = getAffineDimExpr(0, ctx), d1 = getAffineDimExpr(1, ctx),
             d2 = getAffineDimExpr(2, ctx), d3 = getAffineDimExpr(3, ctx);
  AffineMap id = AffineMap::get(4, 0, {d0, d1, d2, d3}, ctx);
  SmallVector<Iter> iters(4, Iter::parallel);
  Value fq =
      kb.generic(ValueRange{q}, kb.empty(kb.sizes(q), elem), {id, id}, iters,
                 [](OpBuilder &b, Location l, ValueRange a) {
                   linalg::YieldOp::create(
                       b, l, ValueRange{linearAttentionFeature(b, l, a[0])});
                 });
  SmallVector<Value> inputs = {k};
  SmallVector<AffineMap> maps = {id};
  if (lengths) {
    inputs.push_back(lengths);
    maps.push_back(AffineMap::get(4, 0, {d0}, ctx));
  }
  maps.push_back(id);
  Value fk = kb.generic(
      inputs, kb.empty(kb.sizes(k), elem), maps, iters,
      [&](OpBuilder &b, Location l, ValueRange a) {
        Value f = linearAttentionFeature(b, l, a[0]);
        if (lengths) {
          Value j = linalg::IndexOp::create(b, l, 2);
          Value len = arith::IndexCastOp::create(b, l, b.getIndexType(), a[1]);
          Value hidden =
              arith::CmpIOp::create(b, l, arith::CmpIPredicate::sge, j, len);
          f = arith::SelectOp::create(
              b, l, hidden,
              arith::ConstantOp::create(b, l, b.getFloatAttr(elem, 0.0)), f);
        }
        linalg::YieldOp::create(b, l, ValueRange{f});
      });
  return {fq, fk};
}

void mlir::attune::assertLinearAttentionExtents(OpBuilder &b, Location loc,
                                                Value q, Value k, Value v,
                                                Value lengths, ValueRange state,
                                                bool causal) {
  KernelBuilder kb(b, loc);
  assertAttentionExtents(b, loc, q, k, v, lengths, Value());
  if (causal)
    assertEqualExtents(b, loc, kb.dim(k, 2), kb.dim(q, 2),
                       "causal linear attention needs as many keys as "
                       "queries (self-attention)");
  for (Value s : state)
    assertEqualExtents(b, loc, kb.dim(s, 0), kb.dim(q, 0),
                       "the state's batch differs from the queries'");
}

namespace {

/// Chunk length of the causal form.
constexpr int64_t kChunk = 64;

struct LinearAttentionLowering : OpConversionPattern<LinearAttentionOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(LinearAttentionOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    KernelBuilder kb(rewriter, loc);
    MLIRContext *ctx = rewriter.getContext();
    Value q = adaptor.getQuery(), k = adaptor.getKey(), v = adaptor.getValue();
    Value lengths = adaptor.getKeyLengths();
    ValueRange state = adaptor.getState();
    RankedTensorType qt = cast<RankedTensorType>(q.getType());
    Type elem = qt.getElementType();
    Type f32 = rewriter.getF32Type();
    if (elem != f32)
      return rewriter.notifyMatchFailure(op, "f16/bf16 are widened first");
    int64_t heads = qt.getDimSize(1), headDim = qt.getDimSize(3);
    int64_t kvHeads = cast<RankedTensorType>(k.getType()).getDimSize(1);
    int64_t group = heads / kvHeads;
    int64_t valueDim = cast<RankedTensorType>(v.getType()).getDimSize(3);
    double eps = op.getEps().convertToDouble();
    bool causal = op.getCausal();

    assertLinearAttentionExtents(rewriter, loc, q, k, v, lengths, state,
                                 causal);

    OpFoldResult batch = kb.staticOrDim({{q, 0}, {k, 0}, {v, 0}});
    OpFoldResult lq = kb.sizes(q)[2];
    OpFoldResult h = rewriter.getIndexAttr(heads);
    OpFoldResult hk = rewriter.getIndexAttr(kvHeads);
    OpFoldResult d = rewriter.getIndexAttr(headDim);
    OpFoldResult dv = rewriter.getIndexAttr(valueDim);
    AffineExpr d0 = getAffineDimExpr(0, ctx), d1 = getAffineDimExpr(1, ctx),
               d2 = getAffineDimExpr(2, ctx), d3 = getAffineDimExpr(3, ctx),
               d4 = getAffineDimExpr(4, ctx);
    auto map = [&](unsigned dims, ArrayRef<AffineExpr> exprs) {
      return AffineMap::get(dims, 0, exprs, ctx);
    };
    AffineExpr kvHead = d1.floorDiv(group);
    auto iters = [](unsigned parallel, unsigned reduction) {
      SmallVector<Iter> it(parallel, Iter::parallel);
      it.append(reduction, Iter::reduction);
      return it;
    };
    auto addBody = [](OpBuilder &b, Location l, ValueRange a) {
      linalg::YieldOp::create(
          b, l, ValueRange{arith::AddFOp::create(b, l, a[1], a[0])});
    };

    auto [fq, fk] = linearAttentionFeatures(kb, q, k, lengths);

    // The sums' initial values: the state, or zero.
    SmallVector<OpFoldResult> kvSizes = {batch, hk, d, dv};
    SmallVector<OpFoldResult> sumSizes = {batch, hk, d};
    Value s0 = state.empty() ? kb.filled(kvSizes, elem, 0.0) : state[0];
    Value z0 = state.empty() ? kb.filled(sumSizes, elem, 0.0) : state[1];

    // S += fk^T v, z += colsum fk over the keys of `fkPart`, `vPart`.
    auto addKeys = [&](KernelBuilder &b, Value fkPart, Value vPart, Value s,
                       Value z) -> std::pair<Value, Value> {
      Value sNext =
          b.generic(ValueRange{fkPart, vPart}, s,
                    {map(5, {d0, d1, d4, d2}), map(5, {d0, d1, d4, d3}),
                     map(5, {d0, d1, d2, d3})},
                    iters(4, 1), KernelBuilder::multiplyAccumulate);
      Value zNext = b.generic(ValueRange{fkPart}, z,
                              {map(4, {d0, d1, d3, d2}), map(4, {d0, d1, d2})},
                              iters(3, 1), addBody);
      return {sNext, zNext};
    };
    // num = fq S (+ init), den = fq . z (+ init), for the queries of `fqPart`.
    auto applySums = [&](KernelBuilder &b, Value fqPart, Value s, Value z,
                         Value numInit,
                         Value denInit) -> std::pair<Value, Value> {
      Value num =
          b.generic(ValueRange{fqPart, s}, numInit,
                    {map(5, {d0, d1, d2, d4}), map(5, {d0, kvHead, d4, d3}),
                     map(5, {d0, d1, d2, d3})},
                    iters(4, 1), KernelBuilder::multiplyAccumulate);
      Value den = b.generic(ValueRange{fqPart, z}, denInit,
                            {map(4, {d0, d1, d2, d3}), map(4, {d0, kvHead, d3}),
                             map(4, {d0, d1, d2})},
                            iters(3, 1), KernelBuilder::multiplyAccumulate);
      return {num, den};
    };
    auto quotient = [&](KernelBuilder &b, Value num, Value den) {
      return b.generic(
          ValueRange{num, den}, b.empty(b.sizes(num), elem),
          {map(4, {d0, d1, d2, d3}), map(4, {d0, d1, d2}),
           map(4, {d0, d1, d2, d3})},
          iters(4, 0), [&](OpBuilder &bb, Location l, ValueRange a) {
            linalg::YieldOp::create(
                bb, l,
                ValueRange{linearAttentionQuotient(bb, l, a[0], a[1], eps)});
          });
    };

    SmallVector<Value> results;
    if (!causal) {
      auto [s, z] = addKeys(kb, fk, v, s0, z0);
      auto [num, den] =
          applySums(kb, fq, s, z, kb.filled({batch, h, lq, dv}, elem, 0.0),
                    kb.filled({batch, h, lq}, elem, 0.0));
      results = {quotient(kb, num, den)};
      if (!state.empty())
        results.append({s, z});
      replaceWithCast(rewriter, op, results);
      return success();
    }

    // Causal: chunks of kChunk queries (and the same keys).
    Value lqVal = getValueOrCreateConstantIndexOp(rewriter, loc, lq);
    Value c0 = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value step = arith::ConstantIndexOp::create(rewriter, loc, kChunk);
    Value init = kb.empty({batch, h, lq, dv}, elem);
    auto loop = scf::ForOp::create(
        rewriter, loc, c0, lqVal, step, ValueRange{init, s0, z0},
        [&](OpBuilder &b, Location l, Value i0, ValueRange carried) {
          KernelBuilder kc(b, l);
          Value n = arith::MinSIOp::create(
              b, l, arith::ConstantIndexOp::create(b, l, kChunk),
              arith::SubIOp::create(b, l, lqVal, i0));
          auto chunk = [&](Value t, int64_t heads2, int64_t last) {
            OpFoldResult one = b.getIndexAttr(1), zero = b.getIndexAttr(0);
            return tensor::ExtractSliceOp::create(
                       b, l, t, ArrayRef<OpFoldResult>{zero, zero, i0, zero},
                       ArrayRef<OpFoldResult>{kc.sizes(t)[0],
                                              b.getIndexAttr(heads2), n,
                                              b.getIndexAttr(last)},
                       ArrayRef<OpFoldResult>{one, one, one, one})
                .getResult();
          };
          Value fqc = chunk(fq, heads, headDim);
          Value fkc = chunk(fk, kvHeads, headDim);
          Value vc = chunk(v, kvHeads, valueDim);
          OpFoldResult nb = kc.sizes(fqc)[0];
          // a[b,h,i,j] = fq_i . fk_j for j <= i, else 0.
          Value dots = kc.generic(
              ValueRange{fqc, fkc}, kc.filled({nb, h, n, n}, elem, 0.0),
              {map(5, {d0, d1, d2, d4}), map(5, {d0, kvHead, d3, d4}),
               map(5, {d0, d1, d2, d3})},
              iters(4, 1), KernelBuilder::multiplyAccumulate);
          Value a = kc.generic(
              ValueRange{}, dots, {map(4, {d0, d1, d2, d3})}, iters(4, 0),
              [&](OpBuilder &bb, Location ll, ValueRange x) {
                Value i = linalg::IndexOp::create(bb, ll, 2);
                Value j = linalg::IndexOp::create(bb, ll, 3);
                Value later = arith::CmpIOp::create(
                    bb, ll, arith::CmpIPredicate::ugt, j, i);
                linalg::YieldOp::create(
                    bb, ll,
                    ValueRange{arith::SelectOp::create(
                        bb, ll, later,
                        arith::ConstantOp::create(bb, ll,
                                                  bb.getFloatAttr(elem, 0.0)),
                        x[0])});
              });
          // The chunk's own keys: num = a v, den = rowsum a.
          Value numOwn = kc.generic(
              ValueRange{a, vc}, kc.filled({nb, h, n, dv}, elem, 0.0),
              {map(5, {d0, d1, d2, d4}), map(5, {d0, kvHead, d4, d3}),
               map(5, {d0, d1, d2, d3})},
              iters(4, 1), KernelBuilder::multiplyAccumulate);
          Value denOwn =
              kc.generic(ValueRange{a}, kc.filled({nb, h, n}, elem, 0.0),
                         {map(4, {d0, d1, d2, d3}), map(4, {d0, d1, d2})},
                         iters(3, 1), addBody);
          // Plus the chunks before.
          auto [num, den] =
              applySums(kc, fqc, carried[1], carried[2], numOwn, denOwn);
          Value out = quotient(kc, num, den);
          OpFoldResult one = b.getIndexAttr(1), zero = b.getIndexAttr(0);
          Value updated = tensor::InsertSliceOp::create(
              b, l, out, carried[0],
              ArrayRef<OpFoldResult>{zero, zero, i0, zero},
              ArrayRef<OpFoldResult>{nb, h, n, dv},
              ArrayRef<OpFoldResult>{one, one, one, one});
          auto [s, z] = addKeys(kc, fkc, vc, carried[1], carried[2]);
          scf::YieldOp::create(b, l, ValueRange{updated, s, z});
        });
    results = {loop.getResult(0)};
    if (!state.empty())
      results.append({loop.getResult(1), loop.getResult(2)});
    replaceWithCast(rewriter, op, results);
    return success();
  }
};

} // namespace

void mlir::attune::populateLinearAttentionConversionPatterns(
    RewritePatternSet &patterns) {
  patterns.add<LinearAttentionLowering>(patterns.getContext());
}
