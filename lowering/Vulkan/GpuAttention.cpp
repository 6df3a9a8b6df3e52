//===- GpuAttention.cpp - attune.attention as one fused GPU kernel --------===//
//
// One invocation per query row (b, h, i) runs the online softmax over the
// keys that row can see, with the running maximum, sum and the Dv output
// accumulators in registers:
//
//   for j in [lo(i), hi(i)):          (causal/window/lengths bound the range)
//     s   = scale * q[i] . k[j] (+ bias[i, j])
//     e   = exp(-|s - m|)             (one exp per score)
//     m, c, p = s > m ? (s, e, 1) : (m, 1, e)
//     l   = l c + p;  acc = acc c + p v[j]
//   out[i] = acc / l                  (0 for a row that sees no key)
//
// No [Lq, Lk] tensor exists and the whole op is one kernel, where the plain
// lowering writes and rereads the scores between five kernels.
//
//===----------------------------------------------------------------------===//

#include "lowering/AttuneToLinalg/KernelBuilder.h"
#include "lowering/Passes.h"

#include "dialect/AttuneOps.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

#include <limits>

namespace mlir::attune {
#define GEN_PASS_DEF_ATTUNEGPUATTENTION
#include "lowering/Passes.h.inc"
} // namespace mlir::attune

using namespace mlir;
using namespace mlir::attune;

namespace {

constexpr int64_t kMaxValueDim = 128; // accumulators per invocation

Value toBuffer(OpBuilder &b, Location loc, Value tensor) {
  auto type = cast<RankedTensorType>(tensor.getType());
  auto memref = MemRefType::get(type.getShape(), type.getElementType());
  return bufferization::ToBufferOp::create(b, loc, memref, tensor,
                                           /*read_only=*/true);
}

LogicalResult fuseForGpu(AttentionOp op, RewriterBase &rewriter) {
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  KernelBuilder kb(rewriter, loc);
  Value q = op.getQuery(), k = op.getKey(), v = op.getValue();
  Value lengths = op.getKeyLengths(), bias = op.getBias();
  auto qType = op.getQuery().getType();
  Type elem = qType.getElementType();
  int64_t heads = qType.getDimSize(1), headDim = qType.getDimSize(3);
  int64_t group = heads / op.getKey().getType().getDimSize(1);
  int64_t valueDim = op.getValue().getType().getDimSize(3);
  bool causal = op.getCausal();
  std::optional<int64_t> window;
  if (IntegerAttr w = op.getWindowAttr())
    window = w.getInt();

  // Extents the loops rely on, checked like the tiled CPU form does.
  assertAttentionExtents(rewriter, loc, q, k, v, lengths, bias);
  Value qBatch = kb.dim(q, 0), lq = kb.dim(q, 2), lk = kb.dim(k, 2);

  Value qm = toBuffer(rewriter, loc, q), km = toBuffer(rewriter, loc, k),
        vm = toBuffer(rewriter, loc, v);
  Value lm = lengths ? toBuffer(rewriter, loc, lengths) : Value();
  Value bm = bias ? toBuffer(rewriter, loc, bias) : Value();
  auto outType = MemRefType::get(
      {ShapedType::kDynamic, heads, ShapedType::kDynamic, valueDim}, elem);
  Value out = memref::AllocOp::create(rewriter, loc, outType,
                                      ValueRange{qBatch, lq});
  Value c0 = kb.indexConst(0), c1 = kb.indexConst(1);
  Value scale = kb.floatConst(elem, op.getEffectiveScale());
  Value offset = op.getAlign() == MaskAlign::bottom_right
                     ? Value(arith::SubIOp::create(rewriter, loc, lk, lq))
                     : c0;

  scf::ParallelOp::create(
      rewriter, loc, ValueRange{c0, c0, c0},
      ValueRange{qBatch, kb.indexConst(heads), lq}, ValueRange{c1, c1, c1},
      [&](OpBuilder &b, Location l, ValueRange ivs) {
        Value bi = ivs[0], hi = ivs[1], ii = ivs[2];
        auto cst = [&](int64_t x) {
          return arith::ConstantIndexOp::create(b, l, x).getResult();
        };
        auto fcst = [&](double x) {
          return arith::ConstantOp::create(b, l, b.getFloatAttr(elem, x))
              .getResult();
        };
        Value kvh = arith::DivUIOp::create(b, l, hi, cst(group));
        // The keys row i sees: [lo, end).
        Value p = arith::AddIOp::create(b, l, ii, offset);
        Value len;
        if (lm) {
          Value raw = memref::LoadOp::create(b, l, lm, bi);
          len = arith::IndexCastOp::create(b, l, b.getIndexType(), raw);
        }
        auto [lo, end] = visibleKeyRange(b, l, p, p, lk, len, causal, window);
        SmallVector<Value> init = {fcst(-std::numeric_limits<double>::infinity()),
                                   fcst(0.0)};
        init.append(valueDim, fcst(0.0));
        auto keys = scf::ForOp::create(
            b, l, lo, end, c1, init,
            [&](OpBuilder &b2, Location l2, Value j, ValueRange st) {
              // s = scale * q[i] . k[j] (+ bias)
              auto dot = scf::ForOp::create(
                  b2, l2, c0, arith::ConstantIndexOp::create(b2, l2, headDim),
                  c1, ValueRange{fcst(0.0)},
                  [&](OpBuilder &b3, Location l3, Value d, ValueRange acc) {
                    Value x = memref::LoadOp::create(
                        b3, l3, qm, ValueRange{bi, hi, ii, d});
                    Value y = memref::LoadOp::create(
                        b3, l3, km, ValueRange{bi, kvh, j, d});
                    Value s = math::FmaOp::create(b3, l3, x, y, acc[0]);
                    scf::YieldOp::create(b3, l3, s);
                  });
              Value s = arith::MulFOp::create(b2, l2, dot.getResult(0), scale);
              if (bm) {
                auto biasType = cast<MemRefType>(bm.getType());
                int64_t rank = biasType.getRank();
                Value full[4] = {bi, hi, ii, j};
                SmallVector<Value> idx;
                for (int64_t d = 0; d < rank; ++d)
                  idx.push_back(biasType.getDimSize(d) == 1
                                    ? c0
                                    : full[4 - rank + d]);
                s = arith::AddFOp::create(
                    b2, l2, s, memref::LoadOp::create(b2, l2, bm, idx));
              }
              Value m = st[0], sum = st[1];
              Value ninf = fcst(-std::numeric_limits<double>::infinity());
              Value one = fcst(1.0), zero = fcst(0.0);
              Value diff = arith::SubFOp::create(b2, l2, s, m);
              Value e = math::ExpOp::create(
                  b2, l2,
                  arith::NegFOp::create(b2, l2,
                                        math::AbsFOp::create(b2, l2, diff)));
              Value up = arith::CmpFOp::create(b2, l2, arith::CmpFPredicate::OGT,
                                               s, m);
              Value masked = arith::CmpFOp::create(
                  b2, l2, arith::CmpFPredicate::OEQ, s, ninf);
              Value mNew = arith::SelectOp::create(b2, l2, up, s, m);
              Value c = arith::SelectOp::create(b2, l2, up, e, one);
              Value pw = arith::SelectOp::create(
                  b2, l2, up, one,
                  arith::SelectOp::create(b2, l2, masked, zero, e));
              SmallVector<Value> next = {
                  mNew, math::FmaOp::create(b2, l2, sum, c, pw)};
              for (int64_t d = 0; d < valueDim; ++d) {
                Value vv = memref::LoadOp::create(
                    b2, l2, vm,
                    ValueRange{bi, kvh, j,
                               arith::ConstantIndexOp::create(b2, l2, d)});
                Value scaled = arith::MulFOp::create(b2, l2, st[2 + d], c);
                next.push_back(math::FmaOp::create(b2, l2, pw, vv, scaled));
              }
              scf::YieldOp::create(b2, l2, next);
            });
        Value sum = keys.getResult(1);
        Value none = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OEQ, sum,
                                           fcst(0.0));
        Value inv = arith::DivFOp::create(b, l, fcst(1.0), sum);
        for (int64_t d = 0; d < valueDim; ++d) {
          Value o = arith::MulFOp::create(b, l, keys.getResult(2 + d), inv);
          o = arith::SelectOp::create(b, l, none, fcst(0.0), o);
          memref::StoreOp::create(b, l, o, out,
                                  ValueRange{bi, hi, ii, cst(d)});
        }
      });
  Value result = bufferization::ToTensorOp::create(
      rewriter, loc, RankedTensorType::get(outType.getShape(), elem), out,
      /*restrict=*/true, /*writable=*/true);
  replaceWithCast(rewriter, op, ValueRange{result});
  return success();
}

struct AttuneGpuAttentionPass
    : mlir::attune::impl::AttuneGpuAttentionBase<AttuneGpuAttentionPass> {
  void runOnOperation() override {
    SmallVector<AttentionOp> ops;
    getOperation()->walk([&](AttentionOp op) {
      if (op.getSelection() != Selection::soft || op.getReturnWeights() ||
          op.getValue().getType().getDimSize(3) > kMaxValueDim ||
          !op.getQuery().getType().getElementType().isF32())
        return;
      ops.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (AttentionOp op : ops)
      if (failed(fuseForGpu(op, rewriter)))
        return signalPassFailure();
  }
};

} // namespace
