//===- TiledAttention.cpp - attune.attention as tiled online softmax ------===//
//
// FlashAttention-2 on tensors: for each batch element, head and query tile,
// a loop over the key tiles the tile can see carries the running maximum m,
// the running sum l and the accumulator acc:
//
//   s    = (q_tile k_tile^T) * scale + bias_tile, masked from indices
//   m'   = max(m, rowmax(s))
//   p    = exp(s - m')
//   c    = exp(m - m')
//   l'   = l c + rowsum(p)
//   acc' = acc c + p v_tile
//
// and the output tile is acc / l (0 where no key was visible).
//
//===----------------------------------------------------------------------===//

#include "lowering/AttuneToLinalg/AttuneToLinalg.h"
#include "lowering/AttuneToLinalg/KernelBuilder.h"
#include "lowering/AttuneToLinalg/LinearAttention.h"
#include "lowering/CPU/CpuKernels.h"
#include "lowering/Passes.h"

#include "dialect/AttuneOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

#include <limits>

namespace mlir::attune {
#define GEN_PASS_DEF_ATTUNETILEATTENTION
#include "lowering/Passes.h.inc"
} // namespace mlir::attune

using namespace mlir;
using namespace mlir::attune;

using Iter = utils::IteratorType;

namespace {

constexpr double kNegInf = -std::numeric_limits<double>::infinity();

struct TileSizes {
  int64_t q, k;
};

/// Index arithmetic shorthands at one location.
struct IndexMath {
  OpBuilder &b;
  Location loc;
  Value c(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return arith::SubIOp::create(b, loc, x, y); }
  Value min(Value x, Value y) { return arith::MinSIOp::create(b, loc, x, y); }
};

/// `perBatch[batch]` (an i32 or i64 tensor: key lengths, query offsets) as an
/// index; null where the op has no such operand.
Value batchIndex(OpBuilder &b, Location loc, Value perBatch, Value batch) {
  if (!perBatch)
    return Value();
  return arith::IndexCastOp::create(
      b, loc, b.getIndexType(),
      tensor::ExtractOp::create(b, loc, perBatch, batch));
}

/// `t[b, h, start : start + size, :]` as a rank-2 tensor.
Value headSlice(OpBuilder &b, Location loc, Value t, Value batch, Value head,
                Value start, Value size, int64_t staticSize = 0) {
  auto type = cast<RankedTensorType>(t.getType());
  int64_t last = type.getDimSize(3);
  OpFoldResult one = b.getIndexAttr(1), zero = b.getIndexAttr(0);
  OpFoldResult rows = staticSize ? OpFoldResult(b.getIndexAttr(staticSize))
                                 : OpFoldResult(size);
  return tensor::ExtractSliceOp::create(
      b, loc,
      RankedTensorType::get({staticSize ? staticSize : ShapedType::kDynamic,
                             last},
                            type.getElementType()),
      t, ArrayRef<OpFoldResult>{batch, head, start, zero},
      ArrayRef<OpFoldResult>{one, one, rows, b.getIndexAttr(last)},
      ArrayRef<OpFoldResult>{one, one, one, one});
}

/// The part of `bias` (broadcastable to [B, H, Lq, Lk]) for one tile, and the
/// map reading it inside a (i, j) loop nest over the tile.
std::pair<Value, AffineMap> biasTile(OpBuilder &b, Location loc, Value bias,
                                     ArrayRef<Value> offsets,
                                     ArrayRef<Value> sizes) {
  auto type = cast<RankedTensorType>(bias.getType());
  int64_t rank = type.getRank(), lead = 4 - rank;
  SmallVector<OpFoldResult> off, size, stride;
  SmallVector<AffineExpr> exprs;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t t = lead + d; // position in [B, H, Lq, Lk]
    bool broadcast = type.getDimSize(d) == 1;
    off.push_back(broadcast ? OpFoldResult(b.getIndexAttr(0))
                            : OpFoldResult(offsets[t]));
    size.push_back(broadcast || t < 2 ? OpFoldResult(b.getIndexAttr(1))
                                      : OpFoldResult(sizes[t]));
    stride.push_back(b.getIndexAttr(1));
    exprs.push_back(broadcast || t < 2
                        ? getAffineConstantExpr(0, b.getContext())
                        : getAffineDimExpr(t - 2, b.getContext()));
  }
  Value tile = tensor::ExtractSliceOp::create(b, loc, bias, off, size, stride);
  return {tile, AffineMap::get(2, 0, exprs, b.getContext())};
}

/// Generic bodies: exp(x - shift(m)) (shift: 0 for a row with no visible
/// key yet) and the matching correction exp(m - shift(m')), x * y, max(x, y)
/// (maxnumf, whose vector reduction LLVM keeps in vector registers) and x / y,
/// 0 where y = 0 (a row no key was visible to).
void maxBody(OpBuilder &b, Location l, ValueRange a) {
  linalg::YieldOp::create(
      b, l, ValueRange{arith::MaxNumFOp::create(b, l, a[0], a[1])});
}
void divideOrZeroBody(OpBuilder &b, Location l, ValueRange a) {
  Value zero = arith::ConstantOp::create(b, l, b.getZeroAttr(a[1].getType()));
  Value none =
      arith::CmpFOp::create(b, l, arith::CmpFPredicate::OEQ, a[1], zero);
  Value q = arith::DivFOp::create(b, l, a[0], a[1]);
  linalg::YieldOp::create(
      b, l, ValueRange{arith::SelectOp::create(b, l, none, zero, q)});
}
void expShiftedBody(OpBuilder &b, Location l, ValueRange a) {
  linalg::YieldOp::create(
      b, l, ValueRange{KernelBuilder::expMinusMax(b, l, a[0], a[1])});
}
void expCorrectionBody(OpBuilder &b, Location l, ValueRange a) {
  linalg::YieldOp::create(
      b, l, ValueRange{KernelBuilder::expMaxCorrection(b, l, a[0], a[1])});
}
/// acc + x y on bf16 x and y, widened (their product is exact in f32).
void pairMultiplyAccumulate(OpBuilder &b, Location l, ValueRange a) {
  Type f32 = a[2].getType();
  Value x = arith::ExtFOp::create(b, l, f32, a[0]);
  Value y = arith::ExtFOp::create(b, l, f32, a[1]);
  KernelBuilder::multiplyAccumulate(b, l, ValueRange{x, y, a[2]});
}
/// x rounded to bf16 (nearest even).
void roundToBf16Body(OpBuilder &b, Location l, ValueRange a) {
  linalg::YieldOp::create(
      b, l, ValueRange{arith::TruncFOp::create(b, l, b.getBF16Type(), a[0])});
}
void multiplyBody(OpBuilder &b, Location l, ValueRange a) {
  linalg::YieldOp::create(b, l,
                          ValueRange{arith::MulFOp::create(b, l, a[0], a[1])});
}

/// The running state of one query tile: row maximum, row sum, accumulator.
struct SoftmaxState {
  Value m, l, acc;
  // A scratch row [TQ] the step overwrites: the key loop carries it with
  // the state, so that a dynamic TQ allocates it once per query tile.
  Value scratch;
};

/// How the tile ops are marked for attune-tile-gemm: not at all (dynamic
/// tiles), or row-wise vectorization, plus register tiles for acc += p v;
/// with `pairs` (compute=bf16, transposed scores, a value GEMM), p is
/// rounded to bf16 k-pairs pP[j/2, i, j % 2] and the value tile is bf16
/// k-pairs v[j/2, e, j % 2].
struct TileMarks {
  bool vectorize = false, valueGemm = false, pairs = false;
};

Value markOp(Value v, StringRef attr) {
  v.getDefiningOp()->setAttr(attr, UnitAttr::get(v.getContext()));
  return v;
}

/// bf16 k-pairs from pairs of rows: out[..., r, c, t] = bf16(in[..., r, t,
/// c]), [..., R, 2, N] f32 -> [..., R, N, 2] bf16 (the queries', the values'
/// and each key tile's probabilities), marked for attune-tile-gemm, which
/// writes it a row pair at a time (as plain loops, the innermost extent 2
/// stayed scalar).
Value interleavePairs(KernelBuilder &k, Value rowPairs) {
  auto type = cast<RankedTensorType>(rowPairs.getType());
  int64_t rank = type.getRank();
  MLIRContext *ctx = type.getContext();
  SmallVector<OpFoldResult> sizes = k.sizes(rowPairs);
  std::swap(sizes[rank - 2], sizes[rank - 1]);
  SmallVector<AffineExpr> swapped;
  for (int64_t d = 0; d < rank; ++d)
    swapped.push_back(getAffineDimExpr(d, ctx));
  std::swap(swapped[rank - 2], swapped[rank - 1]);
  return markOp(
      k.generic(ValueRange{rowPairs}, k.empty(sizes, k.builder().getBF16Type()),
                {AffineMap::get(rank, 0, swapped, ctx),
                 AffineMap::getMultiDimIdentityMap(rank, ctx)},
                SmallVector<Iter>(rank, Iter::parallel), roundToBf16Body),
      kPairInterleaveAttr);
}

/// The online-softmax update for one key tile of `scores`:
///   m' = max(m, rowmax s);  p = exp(s - m');  c = exp(m - m')
///   l' = l c + rowsum p;    acc' = acc c + p v
/// `scores` is [TQ, TK], or with `transposed` [TK, TQ] (key j, query i): every
/// reduction over keys is then an element-wise max or sum of TQ-wide rows
/// (no horizontal reductions), and the value product reads pT's rows as its
/// broadcast operand.
SoftmaxState onlineSoftmaxStep(KernelBuilder &k, Value scores, SoftmaxState st,
                               Value vTile, ArrayRef<OpFoldResult> rowSizes,
                               ArrayRef<OpFoldResult> scoreSizes, Type elem,
                               TileMarks marks, bool transposed) {
  MLIRContext *ctx = elem.getContext();
  AffineExpr d0 = getAffineDimExpr(0, ctx), d1 = getAffineDimExpr(1, ctx),
             d2 = getAffineDimExpr(2, ctx);
  auto map = [&](unsigned dims, ArrayRef<AffineExpr> exprs) {
    return AffineMap::get(dims, 0, exprs, ctx);
  };
  // Score ops have the scores' dims: (i, j), or (j, i) when transposed.
  AffineMap score = map(2, {d0, d1}), row = map(2, {transposed ? d1 : d0});
  SmallVector<Iter> overKeys =
      transposed ? SmallVector<Iter>{Iter::reduction, Iter::parallel}
                 : SmallVector<Iter>{Iter::parallel, Iter::reduction};
  auto rows = [&](Value v) {
    return marks.vectorize ? markOp(v, kVectorizeAttr) : v;
  };
  auto flat = [&](Value v) {
    return marks.vectorize ? markOp(v, kVectorize1DAttr) : v;
  };
  // Every row of state is updated in place, in ops that read their output
  // (an element-wise op that does not is given a fresh output by the
  // canonicalizer, a buffer per key tile that the loop carries out:
  // allocations that grew with the context):
  //   t = rowmax(scores) into the scratch row (maxnumf, whose vector
  //       reduction LLVM keeps in vector registers; a NaN score still
  //       makes its row NaN through exp and the sum),
  //   t = max(m, t): the new maximum m',
  //   m = exp(m - m'): the correction c, in m's buffer, read by l and acc,
  //   p = exp(s - m') over the scores,
  //   m = t (a copy): the buffers keep their roles, which one-shot
  // bufferization needs to carry them in place (swapped, it copies).
  Value ninf = arith::ConstantOp::create(
      k.builder(), k.location(), k.builder().getFloatAttr(elem, kNegInf));
  Value tileMax = rows(k.generic(
      scores,
      linalg::FillOp::create(k.builder(), k.location(), ValueRange{ninf},
                             ValueRange{st.scratch})
          .getResult(0),
      {score, row}, overKeys, maxBody));
  Value mNew = flat(k.generic(ValueRange{st.m}, tileMax,
                              {map(1, {d0}), map(1, {d0})}, {Iter::parallel},
                              maxBody));
  // c = exp(m - m'): 0 while nothing was accumulated. Before p: both use
  // m' log2(e), which LLVM then keeps only for p's loop (after it, the
  // rows' m' log2(e) stayed live across that loop beside its -m' log2(e),
  // and spilled).
  Value corr = flat(k.generic(ValueRange{mNew}, st.m,
                              {map(1, {d0}), map(1, {d0})}, {Iter::parallel},
                              [](OpBuilder &b, Location l, ValueRange a) {
                                expCorrectionBody(b, l, ValueRange{a[1], a[0]});
                              }));
  // p = exp(s - m'), in place on the scores.
  Value p = rows(k.generic(ValueRange{mNew}, scores, {row, score},
                           {Iter::parallel, Iter::parallel},
                           [](OpBuilder &b, Location l, ValueRange a) {
                             expShiftedBody(b, l, ValueRange{a[1], a[0]});
                           }));
  // l c, in place on the loop-carried l, then the new sum.
  Value lScaled = flat(k.generic(ValueRange{corr}, st.l,
                                 {map(1, {d0}), map(1, {d0})},
                                 {Iter::parallel}, multiplyBody));
  Value lNew = rows(k.generic(
      p, lScaled, {score, row}, overKeys,
      [](OpBuilder &b, Location l, ValueRange a) {
        auto flags = arith::FastMathFlags::reassoc;
        linalg::YieldOp::create(
            b, l, ValueRange{arith::AddFOp::create(b, l, a[1], a[0], flags)});
      }));
  // In place on the loop-carried accumulator [TQ, Dv]: no copy of it per key
  // tile.
  Value accScaled = rows(k.generic(
      ValueRange{corr}, st.acc, {map(2, {d0}), map(2, {d0, d1})},
      {Iter::parallel, Iter::parallel},
      [](OpBuilder &b, Location l, ValueRange a) {
        linalg::YieldOp::create(
            b, l, ValueRange{arith::MulFOp::create(b, l, a[1], a[0])});
      }));
  // acc'[i, e] = acc[i, e] c + sum_j p[i, j] v[j, e]. A register-tiled
  // product (valueGemm) has dims (i, e, j), as the tile GEMMs do. Any
  // other runs as plain loops in dim order, (i, j, e): the innermost loop
  // then runs along a row of v and of acc, one broadcast p each, which LLVM
  // vectorizes; with j innermost it read a column of v, gathered element
  // by element (a quarter of a GPT-2-sized decoding step at context 1,024).
  AffineExpr iDim = d0, jDim = marks.valueGemm ? d2 : d1,
             eDim = marks.valueGemm ? d1 : d2;
  Value accNew;
  if (marks.pairs) {
    // pP[j/2, i, j % 2] = bf16(pT[j, i]): two rows of pT interleaved, one
    // row pair at a time; then acc[i, e] += sum pP[j2, i, t] v[j2, e, t]
    // over (j2, t), dims (i, e, j2, t).
    OpBuilder &b = k.builder();
    Location l = k.location();
    auto pType = cast<RankedTensorType>(p.getType());
    int64_t keys = pType.getDimSize(0), queries = pType.getDimSize(1);
    Value rowPairs = tensor::ExpandShapeOp::create(
        b, l, RankedTensorType::get({keys / 2, 2, queries}, elem), p,
        ArrayRef<ReassociationIndices>{{0, 1}, {2}});
    Value pPairs = interleavePairs(k, rowPairs);
    AffineExpr d3 = getAffineDimExpr(3, ctx);
    accNew = markOp(
        k.generic(
            ValueRange{pPairs, vTile}, accScaled,
            {map(4, {d2, d0, d3}), map(4, {d2, d1, d3}), map(4, {d0, d1})},
            {Iter::parallel, Iter::parallel, Iter::reduction, Iter::reduction},
            pairMultiplyAccumulate),
        kTileGemmAttr);
  } else {
    accNew = k.generic(
        ValueRange{p, vTile}, accScaled,
        {map(3, transposed ? ArrayRef<AffineExpr>{jDim, iDim}
                           : ArrayRef<AffineExpr>{iDim, jDim}),
         map(3, {jDim, eDim}), map(3, {iDim, eDim})},
        marks.valueGemm
            ? SmallVector<Iter>{Iter::parallel, Iter::parallel, Iter::reduction}
            : SmallVector<Iter>{Iter::parallel, Iter::reduction,
                                Iter::parallel},
        KernelBuilder::multiplyAccumulate);
    if (marks.valueGemm)
      markOp(accNew, kTileGemmAttr);
  }
  // m' back into m's buffer once c has been read (a named copy: the
  // canonicalizer keeps its output).
  Value mCarried = linalg::CopyOp::create(k.builder(), k.location(), mNew,
                                          corr)
                       .getResult(0);
  return {mCarried, lNew, accNew, mNew};
}

/// out = acc / l, zero rows where no key was visible.
Value normalizedTile(KernelBuilder &k, Value acc, Value l,
                     ArrayRef<OpFoldResult> accSizes, Type elem,
                     TileMarks marks) {
  MLIRContext *ctx = elem.getContext();
  AffineExpr i = getAffineDimExpr(0, ctx), j = getAffineDimExpr(1, ctx);
  Value tile = k.generic(ValueRange{acc, l}, k.empty(accSizes, elem),
                         {AffineMap::get(2, 0, {i, j}, ctx),
                          AffineMap::get(2, 0, {i}, ctx),
                          AffineMap::get(2, 0, {i, j}, ctx)},
                         {Iter::parallel, Iter::parallel}, divideOrZeroBody);
  return marks.vectorize ? markOp(tile, kVectorizeAttr) : tile;
}

/// Writes `tile` ([R, Dv]), or its rows [from, from + count) when `from` is
/// given, at rows [at, at + count) of head (b, h) of `out`: the head's own
/// [Lq, Dv] (`headOnly`, the parallel form) or the whole [B, H, Lq, Dv]
/// result (the serial form).
Value insertHeadRows(OpBuilder &b, Location l, Value tile, OpFoldResult from,
                     OpFoldResult count, Value out, Value bIdx, Value hIdx,
                     OpFoldResult at, int64_t valueDim, bool headOnly) {
  OpFoldResult one = b.getIndexAttr(1), zero = b.getIndexAttr(0);
  OpFoldResult width = b.getIndexAttr(valueDim);
  Value rows = tile;
  if (from)
    rows = tensor::ExtractSliceOp::create(
        b, l, tile, ArrayRef<OpFoldResult>{from, zero},
        ArrayRef<OpFoldResult>{count, width}, ArrayRef<OpFoldResult>{one, one});
  if (headOnly)
    return tensor::InsertSliceOp::create(
        b, l, rows, out, ArrayRef<OpFoldResult>{at, zero},
        ArrayRef<OpFoldResult>{count, width}, ArrayRef<OpFoldResult>{one, one});
  return tensor::InsertSliceOp::create(
      b, l, rows, out, ArrayRef<OpFoldResult>{bIdx, hIdx, at, zero},
      ArrayRef<OpFoldResult>{one, one, count, width},
      ArrayRef<OpFoldResult>{one, one, one, one});
}

/// The serial loops over batch and heads around `head`, which returns the
/// result tensor with head (b, h) filled in from the one it is given;
/// replaces `op` by the last result.
void serialHeadLoops(
    Operation *op, RewriterBase &rewriter, Value batch, int64_t heads,
    Value init,
    function_ref<Value(OpBuilder &, Location, Value, Value, Value)> head) {
  Location loc = op->getLoc();
  Value c0 = arith::ConstantIndexOp::create(rewriter, loc, 0);
  Value c1 = arith::ConstantIndexOp::create(rewriter, loc, 1);
  auto batchLoop = scf::ForOp::create(
      rewriter, loc, c0, batch, c1, ValueRange{init},
      [&](OpBuilder &b1, Location l1, Value bIdx, ValueRange out1) {
        auto headLoop = scf::ForOp::create(
            b1, l1, c0, arith::ConstantIndexOp::create(b1, l1, heads), c1, out1,
            [&](OpBuilder &b2, Location l2, Value hIdx, ValueRange out2) {
              scf::YieldOp::create(
                  b2, l2, ValueRange{head(b2, l2, bIdx, hIdx, out2[0])});
            });
        scf::YieldOp::create(b1, l1, headLoop.getResults());
      });
  replaceWithCast(rewriter, op, batchLoop.getResults());
}

/// The parallel twin of serialHeadLoops: every (batch, head) on its own in
/// an scf.forall, `head` filling one head's [Lq, Dv] from the empty tensor
/// it is given, inserted in parallel into `init`; replaces `op`.
void parallelHeadLoops(
    Operation *op, RewriterBase &rewriter, OpFoldResult batchSize,
    int64_t heads, OpFoldResult lqSize, int64_t valueDim, Type elem, Value init,
    function_ref<Value(OpBuilder &, Location, Value, Value, Value)> head) {
  auto forall = scf::ForallOp::create(
      rewriter, op->getLoc(),
      ArrayRef<OpFoldResult>{batchSize, rewriter.getIndexAttr(heads)},
      ValueRange{init}, std::nullopt,
      [&](OpBuilder &b, Location l, ValueRange args) {
        Value bIdx = args[0], hIdx = args[1];
        Value headInit = KernelBuilder(b, l).empty(
            {lqSize, b.getIndexAttr(valueDim)}, elem);
        Value filled = head(b, l, bIdx, hIdx, headInit);
        auto inParallel = scf::InParallelOp::create(b, l);
        OpBuilder ib = OpBuilder::atBlockBegin(inParallel.getBody());
        OpFoldResult one = ib.getIndexAttr(1), zero = ib.getIndexAttr(0);
        tensor::ParallelInsertSliceOp::create(
            ib, l, filled, args[2],
            ArrayRef<OpFoldResult>{bIdx, hIdx, zero, zero},
            ArrayRef<OpFoldResult>{one, one, lqSize,
                                   ib.getIndexAttr(valueDim)},
            ArrayRef<OpFoldResult>{one, one, one, one});
      });
  replaceWithCast(rewriter, op, forall.getResults());
}

/// Below this many heads, the parallel static form splits each head's keys
/// over the threads: one split per kKeyTilesPerSplit key tiles, at most
/// kMaxKeySplits (see tileAttentionStatic).
constexpr int64_t kSplitKeysBelowHeads = 4;
constexpr int64_t kKeyTilesPerSplit = 4;
constexpr int64_t kMaxKeySplits = 16;

/// The parallel form for few heads: an scf.forall over (batch, head, key
/// range), `range` filling one range's unnormalized state (the accumulator
/// [Lq, Dv], the row maximum and the row sum [Lq]) from the empty tensors
/// it is given; then the ranges' states are combined (flash-decoding):
///   M = max_s m_s;  w_s = exp(m_s - M);  L = sum_s w_s l_s
///   out = sum_s (w_s / L) acc_s   (0 where L = 0: no key visible)
/// and `op` is replaced by `out`.
void splitKeyLoops(Operation *op, RewriterBase &rewriter,
                   OpFoldResult batchSize, int64_t heads, Value numSplits,
                   OpFoldResult lqSize, int64_t valueDim, Type elem,
                   function_ref<SmallVector<Value>(OpBuilder &, Location, Value,
                                                   Value, Value, ValueRange)>
                       range) {
  Location loc = op->getLoc();
  KernelBuilder kb(rewriter, loc);
  MLIRContext *ctx = rewriter.getContext();
  OpFoldResult h = rewriter.getIndexAttr(heads), s = numSplits,
               dv = rewriter.getIndexAttr(valueDim);
  auto forall = scf::ForallOp::create(
      rewriter, loc, ArrayRef<OpFoldResult>{batchSize, h, s},
      ValueRange{kb.empty({batchSize, h, s, lqSize, dv}, elem),
                 kb.empty({batchSize, h, s, lqSize}, elem),
                 kb.empty({batchSize, h, s, lqSize}, elem)},
      std::nullopt, [&](OpBuilder &b, Location l, ValueRange args) {
        KernelBuilder k(b, l);
        SmallVector<Value> parts =
            range(b, l, args[0], args[1], args[2],
                  ValueRange{k.empty({lqSize, dv}, elem),
                             k.empty({lqSize}, elem), k.empty({lqSize}, elem)});
        auto inParallel = scf::InParallelOp::create(b, l);
        OpBuilder ib = OpBuilder::atBlockBegin(inParallel.getBody());
        OpFoldResult one = ib.getIndexAttr(1), zero = ib.getIndexAttr(0);
        tensor::ParallelInsertSliceOp::create(
            ib, l, parts[0], args[3],
            ArrayRef<OpFoldResult>{args[0], args[1], args[2], zero, zero},
            ArrayRef<OpFoldResult>{one, one, one, lqSize, dv},
            SmallVector<OpFoldResult>(5, one));
        for (int t = 1; t < 3; ++t)
          tensor::ParallelInsertSliceOp::create(
              ib, l, parts[t], args[3 + t],
              ArrayRef<OpFoldResult>{args[0], args[1], args[2], zero},
              ArrayRef<OpFoldResult>{one, one, one, lqSize},
              SmallVector<OpFoldResult>(4, one));
      });
  Value acc = forall.getResult(0), m = forall.getResult(1),
        sums = forall.getResult(2);
  AffineExpr d0 = getAffineDimExpr(0, ctx), d1 = getAffineDimExpr(1, ctx),
             d2 = getAffineDimExpr(2, ctx), d3 = getAffineDimExpr(3, ctx),
             d4 = getAffineDimExpr(4, ctx);
  auto map = [&](unsigned dims, ArrayRef<AffineExpr> exprs) {
    return AffineMap::get(dims, 0, exprs, ctx);
  };
  SmallVector<OpFoldResult> rowSizes = {batchSize, h, lqSize};
  // Over (b, h, i, s): a state row [b, h, s, i] into [b, h, i].
  AffineMap stateRow = map(4, {d0, d1, d3, d2}), row = map(4, {d0, d1, d2});
  SmallVector<Iter> overSplits = {Iter::parallel, Iter::parallel,
                                  Iter::parallel, Iter::reduction};
  Value mMax = kb.generic(ValueRange{m}, kb.filled(rowSizes, elem, kNegInf),
                          {stateRow, row}, overSplits, maxBody);
  // w[b, h, s, i] = exp(m - M): 0 for a range that saw no key of the row.
  AffineMap id4 = AffineMap::getMultiDimIdentityMap(4, ctx);
  SmallVector<Iter> all4(4, Iter::parallel);
  Value w =
      kb.generic(ValueRange{m, mMax}, kb.empty({batchSize, h, s, lqSize}, elem),
                 {id4, map(4, {d0, d1, d3}), id4}, all4, expCorrectionBody);
  Value total = kb.generic(ValueRange{w, sums}, kb.filled(rowSizes, elem, 0.0),
                           {stateRow, stateRow, row}, overSplits,
                           KernelBuilder::multiplyAccumulate);
  // w / L, 0 where no key was visible.
  Value weights = kb.generic(ValueRange{total}, w, {map(4, {d0, d1, d3}), id4},
                             all4, [](OpBuilder &b, Location l, ValueRange a) {
                               divideOrZeroBody(b, l, ValueRange{a[1], a[0]});
                             });
  // out[b, h, i, e] = sum_s weights[b, h, s, i] acc[b, h, s, i, e], over
  // (b, h, i, s, e): e innermost, along the accumulators' rows.
  Value out =
      kb.generic(ValueRange{weights, acc},
                 kb.filled({batchSize, h, lqSize, dv}, elem, 0.0),
                 {map(5, {d0, d1, d3, d2}), map(5, {d0, d1, d3, d2, d4}),
                  map(5, {d0, d1, d2, d4})},
                 {Iter::parallel, Iter::parallel, Iter::parallel,
                  Iter::reduction, Iter::parallel},
                 KernelBuilder::multiplyAccumulate);
  replaceWithCast(rewriter, op, out);
}

LogicalResult tileAttention(AttentionOp op, RewriterBase &rewriter,
                            TileSizes tiles, bool parallel) {
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  KernelBuilder kb(rewriter, loc);
  IndexMath im{rewriter, loc};
  Value q = op.getQuery(), k = op.getKey(), v = op.getValue();
  Value lengths = op.getKeyLengths(), bias = op.getBias();
  Value queryOffsets = op.getQueryOffsets();
  // A static key length (a cache's capacity): key tiles of one static size.
  int64_t lkStatic = op.getKey().getType().getDimSize(2);
  if (ShapedType::isDynamic(lkStatic))
    lkStatic = op.getValue().getType().getDimSize(2);
  int64_t tkStatic = ShapedType::isDynamic(lkStatic) || lkStatic < 1
                         ? 0
                         : std::min<int64_t>(tiles.k, lkStatic);
  auto qt = op.getQuery().getType();
  Type elem = qt.getElementType();
  int64_t heads = qt.getDimSize(1);
  int64_t group = heads / op.getKey().getType().getDimSize(1);
  int64_t valueDim = op.getValue().getType().getDimSize(3);
  bool causal = op.getCausal();
  MaskAlign align = op.getAlign();
  // The window's span (dilated windows: the keys on the grid are masked).
  std::optional<int64_t> window = op.getWindowSpan();
  int64_t dilation = op.getDilationOrOne();
  MLIRContext *ctx = rewriter.getContext();

  OpFoldResult batchSize = kb.staticOrDim({{q, 0}, {k, 0}, {v, 0}});
  OpFoldResult lqSize = kb.sizes(q)[2];
  Value batch = getValueOrCreateConstantIndexOp(rewriter, loc, batchSize);
  Value lq = getValueOrCreateConstantIndexOp(rewriter, loc, lqSize);
  Value lk = getValueOrCreateConstantIndexOp(
      rewriter, loc, kb.staticOrDim({{k, 2}, {v, 2}}));
  // The loops index keys, values, lengths and bias by the query's batch and
  // the keys' length: extents the verifier could not compare statically are
  // compared now (the plain form gets this from linalg's own checks).
  assertAttentionExtents(rewriter, loc, q, k, v, lengths, bias);
  Value init = kb.empty({batchSize, rewriter.getIndexAttr(heads), lqSize,
                         rewriter.getIndexAttr(valueDim)},
                        elem);
  Value scale = kb.floatConst(elem, op.getEffectiveScale());
  Value c0 = im.c(0), c1 = im.c(1);
  AffineExpr i = getAffineDimExpr(0, ctx), j = getAffineDimExpr(1, ctx),
             e = getAffineDimExpr(2, ctx);
  auto map = [&](unsigned dims, ArrayRef<AffineExpr> exprs) {
    return AffineMap::get(dims, 0, exprs, ctx);
  };
  // One (batch, head): its query tiles into `headOut`, the whole result
  // [B, H, Lq, Dv], or with `headOnly` this head's [Lq, Dv].
  auto headBody = [&](OpBuilder &b2, Location l2, Value bIdx, Value hIdx,
                      Value headOut, bool headOnly) -> Value {
        IndexMath m2{b2, l2};
        Value kvHead = arith::DivUIOp::create(b2, l2, hIdx, m2.c(group));
        Value len = batchIndex(b2, l2, lengths, bIdx);
        Value qOffset = batchIndex(b2, l2, queryOffsets, bIdx);
        auto queryLoop = scf::ForOp::create(
            b2, l2, c0, lq, m2.c(tiles.q), ValueRange{headOut},
            [&](OpBuilder &b3, Location l3, Value i0, ValueRange out3) {
              KernelBuilder k3(b3, l3);
              IndexMath m3{b3, l3};
              Value tq = m3.min(m3.c(tiles.q), m3.sub(lq, i0));
              Value qTile = headSlice(b3, l3, q, bIdx, hIdx, i0, tq);

              // The keys some query of this tile may see: [lo, hi).
              Value offset = qOffset                          ? qOffset
                             : align == MaskAlign::bottom_right ? m3.sub(lk, lq)
                                                                : m3.c(0);
              Value pFirst = m3.add(i0, offset);
              Value pLast = m3.sub(m3.add(pFirst, tq), m3.c(1));
              auto [lo, hi] = visibleKeyRange(b3, l3, pFirst, pLast, lk, len,
                                              causal, window);

              SmallVector<OpFoldResult> rowSizes = {tq};
              SmallVector<OpFoldResult> accSizes = {tq,
                                                    b3.getIndexAttr(valueDim)};
              Value m0 = k3.filled(rowSizes, elem, kNegInf);
              Value s0 = k3.filled(rowSizes, elem, 0.0);
              Value a0 = k3.filled(accSizes, elem, 0.0);
              auto keyLoop = scf::ForOp::create(
                  b3, l3, lo, hi, m3.c(tiles.k), ValueRange{m0, s0, a0, k3.empty(rowSizes, elem)},
                  [&](OpBuilder &b4, Location l4, Value j0, ValueRange st) {
                    KernelBuilder k4(b4, l4);
                    IndexMath m4{b4, l4};
                    Value mOld = st[0], lOld = st[1], accOld = st[2];
                    // With a static key length every tile has the static
                    // size tkStatic: the last one starts early enough to end
                    // at Lk, its keys before j0 (seen already) masked. So
                    // its scratch buffers have one size, allocated once per
                    // query tile, whatever the number of key tiles (a
                    // decoding step over a cache allocates the same at
                    // every position).
                    Value js = j0, tk;
                    if (tkStatic) {
                      js = m4.min(j0, m4.c(lkStatic - tkStatic));
                      tk = m4.c(tkStatic);
                    } else {
                      tk = m4.min(m4.c(tiles.k), m4.sub(hi, j0));
                    }
                    Value kTile =
                        headSlice(b4, l4, k, bIdx, kvHead, js, tk, tkStatic);
                    Value vTile =
                        headSlice(b4, l4, v, bIdx, kvHead, js, tk, tkStatic);
                    SmallVector<OpFoldResult> scoreSizes = {
                        tq, tkStatic ? OpFoldResult(b4.getIndexAttr(tkStatic))
                                     : OpFoldResult(tk)};

                    // s = q k^T
                    Value dots = k4.generic(
                        ValueRange{qTile, kTile},
                        k4.filled(scoreSizes, elem, 0.0),
                        {map(3, {i, e}), map(3, {j, e}), map(3, {i, j})},
                        {Iter::parallel, Iter::parallel, Iter::reduction},
                        KernelBuilder::multiplyAccumulate);
                    // * scale + bias, masked from the absolute indices.
                    SmallVector<Value> ins = {dots};
                    SmallVector<AffineMap> maps = {map(2, {i, j})};
                    if (bias) {
                      auto [tile, bmap] = biasTile(
                          b4, l4, bias, {bIdx, hIdx, i0, js}, {c1, c1, tq, tk});
                      ins.push_back(tile);
                      maps.push_back(bmap);
                    }
                    maps.push_back(map(2, {i, j}));
                    Value scores = k4.generic(
                        ins, k4.empty(scoreSizes, elem), maps,
                        {Iter::parallel, Iter::parallel},
                        [&](OpBuilder &b, Location l, ValueRange a) {
                          Value s = arith::MulFOp::create(b, l, a[0], scale);
                          if (bias)
                            s = arith::AddFOp::create(b, l, s, a[1]);
                          Value ii = arith::AddIOp::create(
                              b, l, i0, linalg::IndexOp::create(b, l, 0));
                          Value jj = arith::AddIOp::create(
                              b, l, js, linalg::IndexOp::create(b, l, 1));
                          Value vis = KernelBuilder::visible(
                              b, l, ii, jj, lq, lk, causal, align, window, len,
                              qOffset, op.getSparseAttr(), hIdx, dilation);
                          // The keys [j0, hi) only: a shifted last tile's
                          // first keys were seen, keys from hi on are not
                          // visible (hi also bounds the key lengths).
                          if (tkStatic) {
                            vis = arith::AndIOp::create(
                                b, l, vis,
                                arith::CmpIOp::create(
                                    b, l, arith::CmpIPredicate::sge, jj, j0));
                            vis = arith::AndIOp::create(
                                b, l, vis,
                                arith::CmpIOp::create(
                                    b, l, arith::CmpIPredicate::slt, jj, hi));
                          }
                          Value ninf = arith::ConstantOp::create(
                              b, l, b.getFloatAttr(elem, kNegInf));
                          linalg::YieldOp::create(
                              b, l,
                              ValueRange{
                                  arith::SelectOp::create(b, l, vis, s, ninf)});
                        });
                    SoftmaxState next = onlineSoftmaxStep(
                        k4, scores, {mOld, lOld, accOld, st[3]}, vTile, rowSizes,
                        scoreSizes, elem, TileMarks{}, /*transposed=*/false);
                    scf::YieldOp::create(b4, l4,
                                         ValueRange{next.m, next.l, next.acc, next.scratch});
                  });

              Value tile =
                  normalizedTile(k3, keyLoop.getResult(2), keyLoop.getResult(1),
                                 accSizes, elem, TileMarks{});
              Value updated =
                  insertHeadRows(b3, l3, tile, OpFoldResult(), tq, out3[0],
                                 bIdx, hIdx, i0, valueDim, headOnly);
              scf::YieldOp::create(b3, l3, updated);
            });
        return queryLoop.getResult(0);
  };
  if (parallel) {
    // A decoding step's heads, a prefill's query tiles of each head.
    parallelHeadLoops(op, rewriter, batchSize, heads, lqSize, valueDim, elem,
                      init,
                      [&](OpBuilder &b, Location l, Value bIdx, Value hIdx,
                          Value headInit) {
                        return headBody(b, l, bIdx, hIdx, headInit, true);
                      });
    return success();
  }
  serialHeadLoops(op, rewriter, batch, heads, init,
                  [&](OpBuilder &b2, Location l2, Value bIdx, Value hIdx,
                      Value headOut) -> Value {
                    return headBody(b2, l2, bIdx, hIdx, headOut, false);
                  });
  return success();
}

/// `x` rounded up to a multiple of `t`: a constant where `x` is one, so that
/// padDim sees that a static extent needs no padding (a generation cache of
/// 2,048 positions was copied, with a zero fill first, by every prefill's
/// attention: 25 MiB of writes per layer, on one thread).
Value roundUpTo(OpBuilder &b, Location loc, Value x, int64_t t) {
  if (std::optional<int64_t> c = getConstantIntValue(x))
    return arith::ConstantIndexOp::create(b, loc, (*c + t - 1) / t * t);
  Value n = arith::CeilDivUIOp::create(
      b, loc, x, arith::ConstantIndexOp::create(b, loc, t));
  return arith::MulIOp::create(b, loc, n,
                               arith::ConstantIndexOp::create(b, loc, t));
}

/// `t` (rank 4) with dim `d` grown to `size` by zeros. A copy only where the
/// extent is not already `size` (a length that is a multiple of the tile:
/// `t` itself, no copy, decided at run time for a dynamic extent).
Value padDim(OpBuilder &b, Location loc, Value t, int64_t d, Value size) {
  KernelBuilder kb(b, loc);
  SmallVector<OpFoldResult> sizes = kb.sizes(t);
  auto type = cast<RankedTensorType>(t.getType());
  if (std::optional<int64_t> want = getConstantIntValue(size);
      want && !type.isDynamicDim(d) && type.getDimSize(d) == *want)
    return t;
  // Cast back to `t`'s type in the dynamic case, where both branches must
  // agree.
  auto padded = [&](OpBuilder &pb, Location pl, bool cast) {
    KernelBuilder pk(pb, pl);
    SmallVector<OpFoldResult> paddedSizes = sizes;
    paddedSizes[d] = size;
    Value zeros = pk.filled(paddedSizes, type.getElementType(), 0.0);
    SmallVector<OpFoldResult> zero(4, pb.getIndexAttr(0)),
        one(4, pb.getIndexAttr(1));
    Value r = tensor::InsertSliceOp::create(pb, pl, t, zeros, zero, sizes, one);
    return cast && r.getType() != type
               ? tensor::CastOp::create(pb, pl, type, r).getResult()
               : r;
  };
  if (!type.isDynamicDim(d))
    return padded(b, loc, false);
  Value extent = getValueOrCreateConstantIndexOp(b, loc, sizes[d]);
  Value whole = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                      extent, size);
  return scf::IfOp::create(
             b, loc, whole,
             [&](OpBuilder &tb, Location tl) {
               scf::YieldOp::create(tb, tl, t);
             },
             [&](OpBuilder &eb, Location el) {
               scf::YieldOp::create(eb, el, padded(eb, el, true));
             })
      .getResult(0);
}

/// The tile of `t` at `offsets` (one per dim) of shape `shape` in its last
/// dims, the leading dims (one element each) dropped.
Value trailingTile(OpBuilder &b, Location loc, Value t,
                   ArrayRef<OpFoldResult> offsets, ArrayRef<int64_t> shape) {
  auto type = cast<RankedTensorType>(t.getType());
  int64_t lead = type.getRank() - int64_t(shape.size());
  SmallVector<OpFoldResult> sizes(lead, b.getIndexAttr(1));
  for (int64_t extent : shape)
    sizes.push_back(b.getIndexAttr(extent));
  return tensor::ExtractSliceOp::create(
      b, loc, RankedTensorType::get(shape, type.getElementType()), t, offsets,
      sizes, SmallVector<OpFoldResult>(type.getRank(), b.getIndexAttr(1)));
}

/// A static tile `t[b, h, r0 : r0 + rows, c0 : c0 + cols]` (rank 2).
Value staticTile(OpBuilder &b, Location loc, Value t, Value batch, Value head,
                 OpFoldResult r0, int64_t rows, OpFoldResult c0, int64_t cols) {
  return trailingTile(b, loc, t, {batch, head, r0, c0}, {rows, cols});
}

/// Rows [r0, r0 + rows) of the queries `q[b, h]` ([.., L, D]) transposed to
/// [D, rows], each element through `f`: one contiguous block for a score
/// contraction, in 16 x 16 blocks of shuffles (attune-transpose-tiles) where
/// D and `rows` are multiples of 16.
Value transposedQueryTile(KernelBuilder &k, Value q, Value batch, Value head,
                          Value r0, int64_t rows,
                          function_ref<Value(OpBuilder &, Location, Value)> f) {
  OpBuilder &b = k.builder();
  Location loc = k.location();
  auto type = cast<RankedTensorType>(q.getType());
  int64_t headDim = type.getDimSize(3);
  MLIRContext *ctx = b.getContext();
  AffineExpr d0 = getAffineDimExpr(0, ctx), d1 = getAffineDimExpr(1, ctx);
  Value tile =
      staticTile(b, loc, q, batch, head, r0, rows, b.getIndexAttr(0), headDim);
  Value t =
      k.generic(ValueRange{tile},
                k.empty({b.getIndexAttr(headDim), b.getIndexAttr(rows)},
                        type.getElementType()),
                {AffineMap::get(2, 0, {d1, d0}, ctx),
                 AffineMap::get(2, 0, {d0, d1}, ctx)},
                {Iter::parallel, Iter::parallel},
                [&](OpBuilder &bb, Location ll, ValueRange a) {
                  linalg::YieldOp::create(bb, ll, ValueRange{f(bb, ll, a[0])});
                });
  return headDim % 16 == 0 && rows % 16 == 0 ? markOp(t, kTransposeTilesAttr)
                                             : t;
}

/// The tiled form with static tiles, for attune-tile-gemm's micro-kernels:
/// queries, keys and values are zero-padded to whole tiles once, each query
/// tile is scaled and transposed to [D, TQ] before its key loop, and every
/// tile op has static shapes
/// (positions past Lk are masked; rows past Lq are dropped). Without a bias.
/// With `bf16` (compute=bf16), where the tiles allow it, the two tile
/// contractions read bf16 k-pairs: each query tile scaled and transposed to
/// [D/2, TQ, 2], the keys [B, Hk, Lk, D/2, 2], the values
/// [B, Hk, Lk/2, Dv, 2] and each key tile's probabilities [TK/2, TQ, 2]
/// (attune-tile-gemm gives them vdpbf16ps or its FMA form); the softmax
/// stays f32.
LogicalResult tileAttentionStatic(AttentionOp op, RewriterBase &rewriter,
                                  TileSizes tiles, bool parallel, bool bf16) {
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  KernelBuilder kb(rewriter, loc);
  IndexMath im{rewriter, loc};
  Value q = op.getQuery(), k = op.getKey(), v = op.getValue();
  Value lengths = op.getKeyLengths();
  Value queryOffsets = op.getQueryOffsets();
  auto qt = op.getQuery().getType();
  Type elem = qt.getElementType();
  int64_t heads = qt.getDimSize(1), headDim = qt.getDimSize(3);
  int64_t kvHeads = op.getKey().getType().getDimSize(1);
  int64_t group = heads / kvHeads;
  int64_t valueDim = op.getValue().getType().getDimSize(3);
  int64_t TQ = tiles.q, TK = tiles.k;
  bool causal = op.getCausal();
  MaskAlign align = op.getAlign();
  SparseLayoutAttr sparse = op.getSparseAttr();
  // The window's span (dilated windows: the keys on the grid are masked).
  std::optional<int64_t> window = op.getWindowSpan();
  int64_t dilation = op.getDilationOrOne();
  MLIRContext *ctx = rewriter.getContext();

  assertAttentionExtents(rewriter, loc, q, k, v, lengths, Value());
  OpFoldResult batchSize = kb.staticOrDim({{q, 0}, {k, 0}, {v, 0}});
  OpFoldResult lqSize = kb.sizes(q)[2];
  Value batch = getValueOrCreateConstantIndexOp(rewriter, loc, batchSize);
  Value lq = getValueOrCreateConstantIndexOp(rewriter, loc, lqSize);
  Value lk = getValueOrCreateConstantIndexOp(
      rewriter, loc, kb.staticOrDim({{k, 2}, {v, 2}}));
  Value lqPad = roundUpTo(rewriter, loc, lq, TQ),
        lkPad = roundUpTo(rewriter, loc, lk, TK);
  Value qPad = padDim(rewriter, loc, q, 2, lqPad);
  Value vPad = padDim(rewriter, loc, v, 2, lkPad);
  // Each query tile is scaled and transposed before its key loop (see
  // queryTile), so that the [D, TQ] tile the score GEMM reads is one
  // contiguous block. Scores are computed transposed, sT = k_tile qT_tile [TK,
  // TQ]: the softmax reductions over keys are then element-wise across rows,
  // and the keys are read in place.
  AffineExpr d0 = getAffineDimExpr(0, ctx), d1 = getAffineDimExpr(1, ctx),
             d2 = getAffineDimExpr(2, ctx);
  Value kPad = padDim(rewriter, loc, k, 2, lkPad);
  Value scale = kb.floatConst(elem, op.getEffectiveScale());
  // Global tokens: flags [B, Lk] for the masks, and the global keys and
  // values gathered per (b, kv head) into [B, Hk, Gp, D] tiles (Gp: G
  // rounded up to 8; rows past G are zero and masked).
  Value globals = op.getGlobalIndices(), flags, gK, gV;
  int64_t numGlobals = 0, globalRows = 0;
  if (globals) {
    checkGlobalPositions(rewriter, op, IndexChecks::Assert, globals, lk);
    flags = globalTokenFlags(kb, globals, lkPad);
    numGlobals = cast<RankedTensorType>(globals.getType()).getDimSize(1);
    globalRows = (numGlobals + 7) / 8 * 8;
    auto gather = [&](Value t, int64_t last) {
      return kb.generic(
          ValueRange{},
          kb.empty({batchSize, rewriter.getIndexAttr(kvHeads),
                    rewriter.getIndexAttr(globalRows),
                    rewriter.getIndexAttr(last)},
                   elem),
          {AffineMap::getMultiDimIdentityMap(4, ctx)},
          SmallVector<Iter>(4, Iter::parallel),
          [&](OpBuilder &b, Location l, ValueRange) {
            Value bi = linalg::IndexOp::create(b, l, 0);
            Value g = linalg::IndexOp::create(b, l, 2);
            Value inside = arith::CmpIOp::create(
                b, l, arith::CmpIPredicate::ult, g,
                arith::ConstantIndexOp::create(b, l, numGlobals));
            Value gc = arith::SelectOp::create(
                b, l, inside, g, arith::ConstantIndexOp::create(b, l, 0));
            Value pos = arith::IndexCastOp::create(
                b, l, b.getIndexType(),
                tensor::ExtractOp::create(b, l, globals, ValueRange{bi, gc}));
            Value x = tensor::ExtractOp::create(
                b, l, t,
                ValueRange{bi, linalg::IndexOp::create(b, l, 1), pos,
                           linalg::IndexOp::create(b, l, 3)});
            Value zero =
                arith::ConstantOp::create(b, l, b.getFloatAttr(elem, 0.0));
            linalg::YieldOp::create(
                b, l,
                ValueRange{arith::SelectOp::create(b, l, inside, x, zero)});
          });
    };
    gK = gather(k, headDim);
    gV = gather(v, valueDim);
  }
  // Register tiles need M % 8 == 0 and N % 16 == 0 (a panel of 16 columns
  // is whole vectors on every x86 level; attune-select-cpu-tiling picks
  // among the tiles that divide the contraction).
  bool scoreGemm = TK % 8 == 0 && TQ % 16 == 0;
  bool valueGemm = TQ % 8 == 0 && valueDim % 32 == 0;
  // bf16 k-pairs: both contractions register-tiled, an even head size, no
  // global tokens (their gathered tiles stay f32), and queries known to be
  // many: the keys and values are rounded once per call, which a few rows
  // (the absorbed cross-attention's, attune.tile_q_cap) do not repay
  // (rounding the memory every step made a decoder step 0.60 -> 0.95 ms).
  bool pairs = bf16 && elem.isF32() && scoreGemm && valueGemm &&
               headDim % 2 == 0 && !globals && !op->hasAttr(kTileQCapAttr);
  Type bf16Type = rewriter.getBF16Type();
  Value kP, vP;
  if (pairs) {
    auto dimOf = [](Value t, int64_t d) {
      return cast<RankedTensorType>(t.getType()).getDimSize(d);
    };
    // kP[b, h, j, e/2, e % 2] = bf16(k[b, h, j, e]): rounded as [B, Hk,
    // Lk, D] (a loop over pairs, innermost extent 2, stayed scalar), then
    // viewed as pairs.
    SmallVector<OpFoldResult> kSizes = kb.sizes(kPad);
    Value kRounded =
        kb.generic(ValueRange{kPad}, kb.empty(kSizes, bf16Type),
                   {AffineMap::getMultiDimIdentityMap(4, ctx),
                    AffineMap::getMultiDimIdentityMap(4, ctx)},
                   SmallVector<Iter>(4, Iter::parallel), roundToBf16Body);
    kP = tensor::ExpandShapeOp::create(
        rewriter, loc,
        RankedTensorType::get(
            {dimOf(kPad, 0), kvHeads, dimOf(kPad, 2), headDim / 2, 2},
            bf16Type),
        kRounded, ArrayRef<ReassociationIndices>{{0}, {1}, {2}, {3, 4}},
        ArrayRef<OpFoldResult>{kSizes[0], kSizes[1], kSizes[2],
                               rewriter.getIndexAttr(headDim / 2),
                               rewriter.getIndexAttr(2)});
    // vP[b, h, j/2, e, j % 2] = bf16(v[b, h, j, e]) (Lk padded to whole key
    // tiles: even).
    SmallVector<OpFoldResult> vSizes = kb.sizes(vPad);
    int64_t keys = dimOf(vPad, 2);
    int64_t staticHalf = ShapedType::isDynamic(keys) ? keys : keys / 2;
    OpFoldResult halfKeys =
        ShapedType::isDynamic(keys)
            ? OpFoldResult(arith::DivUIOp::create(rewriter, loc, lkPad, im.c(2))
                               .getResult())
            : OpFoldResult(rewriter.getIndexAttr(staticHalf));
    Value vPairs = tensor::ExpandShapeOp::create(
        rewriter, loc,
        RankedTensorType::get(
            {dimOf(vPad, 0), kvHeads, staticHalf, 2, valueDim}, elem),
        vPad, ArrayRef<ReassociationIndices>{{0}, {1}, {2, 3}, {4}},
        ArrayRef<OpFoldResult>{vSizes[0], vSizes[1], halfKeys,
                               rewriter.getIndexAttr(2), vSizes[3]});
    // Two key rows interleaved.
    vP = interleavePairs(kb, vPairs);
  }
  // The query tile at row i0 (of a batch element and head), scaled and
  // transposed: qT[e, c] = q[i0 + c, e] * scale, [D, TQ] (16 x 16 blocks of
  // attune-transpose-tiles), and with pairs rounded to bf16 k-pairs
  // qP[e/2, c, e % 2], [D/2, TQ, 2] (qT's row pairs interleaved, as the
  // values'). Made per query tile, before its key loop: a copy of all
  // queries first (6 MB at L = 2048) was written and read back through
  // memory (1 % of attention at L = 2048), and qP's loops over pairs were
  // scalar.
  auto queryTile = [&](KernelBuilder &kq, Value bIdx, Value hIdx, Value i0) {
    OpBuilder &b = kq.builder();
    Location l = kq.location();
    Value t = transposedQueryTile(
        kq, qPad, bIdx, hIdx, i0, TQ, [&](OpBuilder &bb, Location ll, Value x) {
          return arith::MulFOp::create(bb, ll, x, scale).getResult();
        });
    if (!pairs)
      return t;
    return interleavePairs(
        kq, tensor::ExpandShapeOp::create(
                b, l, RankedTensorType::get({headDim / 2, 2, TQ}, elem), t,
                ArrayRef<ReassociationIndices>{{0, 1}, {2}}));
  };

  Value init = kb.empty({batchSize, rewriter.getIndexAttr(heads), lqSize,
                         rewriter.getIndexAttr(valueDim)},
                        elem);
  Value c0 = im.c(0);
  AffineExpr j = d0, i = d1, e = d2;
  auto map = [&](unsigned dims, ArrayRef<AffineExpr> exprs) {
    return AffineMap::get(dims, 0, exprs, ctx);
  };
  auto mark = [&](Value v, StringRef attr) { return markOp(v, attr); };

  // Few heads on many threads: each head's keys are split into ranges of
  // whole key tiles, one scf.forall iteration each (flash-decoding), and the
  // ranges' states are combined after the loop. The absorbed
  // cross-attention of attune-absorb-kv-projections is one head of a
  // decoding step's few rows over the whole memory: without the split it
  // ran on one thread (a fifth of a decoder step at 2 threads). One split
  // per kKeyTilesPerSplit key tiles, at most kMaxKeySplits, decided at run
  // time from the key count; global tokens (recomputed rows over every key)
  // keep the head loops.
  Value numSplits;
  if (parallel && heads < kSplitKeysBelowHeads && !globals) {
    Value keyTiles = arith::DivUIOp::create(rewriter, loc, lkPad, im.c(TK));
    numSplits = im.min(arith::CeilDivUIOp::create(rewriter, loc, keyTiles,
                                                  im.c(kKeyTilesPerSplit)),
                       im.c(kMaxKeySplits));
    numSplits = arith::MaxUIOp::create(rewriter, loc, numSplits, im.c(1));
  }

  // The query loop of one (batch, head): `outInits` is the [B, H, Lq, Dv]
  // result (serial form) or this head's [Lq, Dv] (parallel form); with a
  // key range `split` (of numSplits), this range's unnormalized state: the
  // accumulator [Lq, Dv], the row maximum and the row sum [Lq].
  auto queryLoopFor = [&](OpBuilder &b2, Location l2, Value bIdx, Value hIdx,
                          ValueRange outInits, bool headOnly,
                          Value split = Value()) -> scf::ForOp {
    IndexMath m2{b2, l2};
    Value kvHead = arith::DivUIOp::create(b2, l2, hIdx, m2.c(group));
    Value len = batchIndex(b2, l2, lengths, bIdx);
    Value qOffset = batchIndex(b2, l2, queryOffsets, bIdx);
    return scf::
        ForOp::create(b2, l2, c0, lq, m2.c(TQ), outInits,
                      [&](OpBuilder &b3, Location l3, Value i0,
                          ValueRange out3) {
                        KernelBuilder k3(b3, l3);
                        IndexMath m3{b3, l3};
                        Value tq = m3.min(m3.c(TQ), m3.sub(lq, i0));
                        Value qtTile = queryTile(k3, bIdx, hIdx, i0);
                        Value offset = qOffset ? qOffset
                                       : align == MaskAlign::bottom_right
                                           ? m3.sub(lk, lq)
                                           : m3.c(0);
                        Value pFirst = m3.add(i0, offset);
                        Value pLast = m3.sub(m3.add(pFirst, tq), m3.c(1));
                        auto range = visibleKeyRange(b3, l3, pFirst, pLast, lk,
                                                     len, causal, window);
                        Value lo0 = range.first, hi = range.second;
                        // The keys every query of the tile sees: a key tile
                        // inside [fullLo, fullHi) needs no mask.
                        auto [fullLo, fullHi] = visibleKeyRange(
                            b3, l3, pLast, pFirst, lk, len, causal, window);
                        // Whole tiles: start on a tile boundary.
                        Value lo = arith::MulIOp::create(
                            b3, l3,
                            arith::DivUIOp::create(b3, l3, lo0, m3.c(TK)),
                            m3.c(TK));
                        if (split) {
                          // This split's share of [lo, hi): whole tiles, so the
                          // masks of boundary tiles are those of the whole
                          // range; an empty share leaves the initial state.
                          Value span = arith::MaxSIOp::create(
                              b3, l3, m3.sub(hi, lo), m3.c(0));
                          Value tilesPer = arith::CeilDivUIOp::create(
                              b3, l3,
                              arith::CeilDivUIOp::create(b3, l3, span,
                                                         m3.c(TK)),
                              numSplits);
                          Value per =
                              arith::MulIOp::create(b3, l3, tilesPer, m3.c(TK));
                          lo = m3.add(
                              lo, arith::MulIOp::create(b3, l3, split, per));
                          hi = m3.min(hi, m3.add(lo, per));
                        }
                        SmallVector<OpFoldResult> rowSizes = {
                            b3.getIndexAttr(TQ)};
                        SmallVector<OpFoldResult> accSizes = {
                            b3.getIndexAttr(TQ), b3.getIndexAttr(valueDim)};
                        SmallVector<OpFoldResult> scoreSizes = {
                            b3.getIndexAttr(TK), b3.getIndexAttr(TQ)};
                        Value m0 = k3.filled(rowSizes, elem, kNegInf);
                        Value s0 = k3.filled(rowSizes, elem, 0.0);
                        Value a0 = k3.filled(accSizes, elem, 0.0);
                        // With a sparse layout: whether the key tile lies in
                        // one visible block pair with the query tile (then the
                        // layout needs no mask in it).
                        Value singleBlock;
                        // One key tile's online-softmax step: the new state.
                        auto keyStep =
                            [&](OpBuilder &b4, Location l4, Value j0,
                                ValueRange st) -> SmallVector<Value> {
                          KernelBuilder k4(b4, l4);
                          IndexMath m4{b4, l4};
                          Value mOld = st[0], lOld = st[1], accOld = st[2];
                          Value kTile, vTile, dots;
                          if (pairs) {
                            // sT[j, i] = sum kP[j, e2, t] qP[e2, i, t] over
                            // (e2, t): dims (j, i, e2, t).
                            OpFoldResult z = b4.getIndexAttr(0);
                            kTile = trailingTile(b4, l4, kP,
                                                 {bIdx, kvHead, j0, z, z},
                                                 {TK, headDim / 2, 2});
                            Value half =
                                arith::DivUIOp::create(b4, l4, j0, m4.c(2));
                            vTile = trailingTile(b4, l4, vP,
                                                 {bIdx, kvHead, half, z, z},
                                                 {TK / 2, valueDim, 2});
                            AffineExpr t = getAffineDimExpr(3, ctx);
                            dots =
                                k4.generic(ValueRange{kTile, qtTile},
                                           k4.filled(scoreSizes, elem, 0.0),
                                           {map(4, {j, e, t}),
                                            map(4, {e, i, t}), map(4, {j, i})},
                                           {Iter::parallel, Iter::parallel,
                                            Iter::reduction, Iter::reduction},
                                           pairMultiplyAccumulate);
                          } else {
                            kTile = staticTile(b4, l4, kPad, bIdx, kvHead, j0,
                                               TK, b4.getIndexAttr(0), headDim);
                            vTile =
                                staticTile(b4, l4, vPad, bIdx, kvHead, j0, TK,
                                           b4.getIndexAttr(0), valueDim);
                            // sT = k qT (q pre-scaled): dims (j, i, e).
                            dots =
                                k4.generic(ValueRange{kTile, qtTile},
                                           k4.filled(scoreSizes, elem, 0.0),
                                           {map(3, {j, e}), map(3, {e, i}),
                                            map(3, {j, i})},
                                           {Iter::parallel, Iter::parallel,
                                            Iter::reduction},
                                           KernelBuilder::multiplyAccumulate);
                          }
                          if (scoreGemm)
                            mark(dots, kTileGemmAttr);
                          // Boundary tiles (causal diagonal, window edges,
                          // key length, padding) are masked in place;
                          // interior tiles are used as they are.
                          auto sge = [&](Value x, Value y) {
                            return arith::CmpIOp::create(
                                b4, l4, arith::CmpIPredicate::sge, x, y);
                          };
                          Value interior = arith::AndIOp::create(
                              b4, l4, sge(j0, fullLo),
                              sge(fullHi, m4.add(j0, m4.c(TK))));
                          if (singleBlock)
                            interior = arith::AndIOp::create(b4, l4, interior,
                                                             singleBlock);
                          // A dilated window leaves gaps in every tile.
                          if (dilation > 1)
                            interior =
                                arith::ConstantIntOp::create(b4, l4, 0, 1);
                          auto masked = scf::IfOp::create(
                              b4, l4, interior,
                              [&](OpBuilder &b5, Location l5) {
                                scf::YieldOp::create(b5, l5, dots);
                              },
                              [&](OpBuilder &b5, Location l5) {
                                SmallVector<Value> flagInputs;
                                SmallVector<AffineMap> maskMaps;
                                if (flags) {
                                  OpFoldResult one = b5.getIndexAttr(1);
                                  // Key flags only: the rows of global
                                  // queries are recomputed over every key
                                  // after the loop.
                                  flagInputs = {tensor::ExtractSliceOp::create(
                                      b5, l5,
                                      RankedTensorType::get({TK},
                                                            b5.getI32Type()),
                                      flags, ArrayRef<OpFoldResult>{bIdx, j0},
                                      ArrayRef<OpFoldResult>{
                                          one, b5.getIndexAttr(TK)},
                                      ArrayRef<OpFoldResult>{one, one})};
                                  maskMaps = {map(2, {j})};
                                }
                                maskMaps.push_back(map(2, {j, i}));
                                Value s = mark(
                                    KernelBuilder(b5, l5).generic(
                                        flagInputs, dots, maskMaps,
                                        {Iter::parallel, Iter::parallel},
                                        [&](OpBuilder &b, Location l,
                                            ValueRange a) {
                                          Value jj = arith::AddIOp::create(
                                              b, l, j0,
                                              linalg::IndexOp::create(b, l, 0));
                                          Value ii = arith::AddIOp::create(
                                              b, l, i0,
                                              linalg::IndexOp::create(b, l, 1));
                                          Value vis = KernelBuilder::visible(
                                              b, l, ii, jj, lq, lk, causal,
                                              align, window, len, qOffset,
                                              sparse, hIdx, dilation);
                                          if (flags)
                                            vis = KernelBuilder::
                                                visibleWithGlobals(
                                                    b, l, vis, ii, jj, lq, lk,
                                                    causal, align, len, qOffset,
                                                    a[0],
                                                    arith::ConstantOp::create(
                                                        b, l,
                                                        b.getI32IntegerAttr(
                                                            0)));
                                          vis = arith::AndIOp::create(
                                              b, l, vis,
                                              arith::CmpIOp::create(
                                                  b, l,
                                                  arith::CmpIPredicate::slt,
                                                  jj, lk));
                                          Value ninf = arith::ConstantOp::create(
                                              b, l,
                                              b.getFloatAttr(elem, kNegInf));
                                          linalg::YieldOp::create(
                                              b, l,
                                              ValueRange{
                                                  arith::SelectOp::create(
                                                      b, l, vis, a.back(),
                                                      ninf)});
                                        }),
                                    kVectorizeAttr);
                                scf::YieldOp::create(b5, l5, s);
                              });
                          SoftmaxState next = onlineSoftmaxStep(
                              k4, masked.getResult(0),
                              {mOld, lOld, accOld, st[3]}, vTile, rowSizes,
                              scoreSizes, elem,
                              TileMarks{/*vectorize=*/true, valueGemm, pairs},
                              /*transposed=*/true);
                          return {next.m, next.l, next.acc, next.scratch};
                        };
                        auto keyLoop = scf::ForOp::create(
                            b3, l3, lo, hi, m3.c(TK),
                            ValueRange{m0, s0, a0, k3.empty(rowSizes, elem)},
                            [&](OpBuilder &b4, Location l4, Value j0,
                                ValueRange st) {
                              if (!sparse) {
                                scf::YieldOp::create(b4, l4,
                                                     keyStep(b4, l4, j0, st));
                                return;
                              }
                              // Sparse: a key tile no query of the tile may see
                              // is skipped.
                              IndexMath m4{b4, l4};
                              Value seen = layoutRangeVisible(
                                  b4, l4, sparse, pFirst, pLast, j0,
                                  m4.add(j0, m4.c(TK - 1)), hIdx, &singleBlock);
                              auto step = scf::IfOp::create(
                                  b4, l4, seen,
                                  [&](OpBuilder &b5, Location l5) {
                                    scf::YieldOp::create(
                                        b5, l5, keyStep(b5, l5, j0, st));
                                  },
                                  [&](OpBuilder &b5, Location l5) {
                                    scf::YieldOp::create(b5, l5, st);
                                  });
                              scf::YieldOp::create(b4, l4, step.getResults());
                            });

                        SmallVector<Value> st(keyLoop.getResults());
                        if (globals) {
                          // The global keys the key loop did not visit (outside
                          // [lo, hi)): one more step over the gathered tile.
                          Value gkTile = staticTile(
                              b3, l3, gK, bIdx, kvHead, b3.getIndexAttr(0),
                              globalRows, b3.getIndexAttr(0), headDim);
                          Value gvTile = staticTile(
                              b3, l3, gV, bIdx, kvHead, b3.getIndexAttr(0),
                              globalRows, b3.getIndexAttr(0), valueDim);
                          // The loop visited whole tiles [lo, hiVisited): its
                          // last tile may reach past hi (masked there, but a
                          // global key there was counted).
                          Value span = arith::MaxSIOp::create(
                              b3, l3, m3.sub(hi, lo), m3.c(0));
                          Value hiVisited = m3.add(
                              lo,
                              arith::MulIOp::create(b3, l3,
                                                    arith::CeilDivSIOp::create(
                                                        b3, l3, span, m3.c(TK)),
                                                    m3.c(TK)));
                          SmallVector<OpFoldResult> gScoreSizes = {
                              b3.getIndexAttr(globalRows), b3.getIndexAttr(TQ)};
                          Value dots = k3.generic(
                              ValueRange{gkTile, qtTile},
                              k3.filled(gScoreSizes, elem, 0.0),
                              {map(3, {j, e}), map(3, {e, i}), map(3, {j, i})},
                              {Iter::parallel, Iter::parallel, Iter::reduction},
                              KernelBuilder::multiplyAccumulate);
                          if (TQ % 16 == 0)
                            mark(dots, kTileGemmAttr);
                          Value masked = k3.generic(
                              ValueRange{}, dots, {map(2, {j, i})},
                              {Iter::parallel, Iter::parallel},
                              [&](OpBuilder &b, Location l, ValueRange a) {
                                Value g = linalg::IndexOp::create(b, l, 0);
                                Value ii = arith::AddIOp::create(
                                    b, l, i0, linalg::IndexOp::create(b, l, 1));
                                Value real = arith::CmpIOp::create(
                                    b, l, arith::CmpIPredicate::ult, g,
                                    arith::ConstantIndexOp::create(b, l,
                                                                   numGlobals));
                                Value gc = arith::SelectOp::create(
                                    b, l, real, g,
                                    arith::ConstantIndexOp::create(b, l, 0));
                                Value pos = arith::IndexCastOp::create(
                                    b, l, b.getIndexType(),
                                    tensor::ExtractOp::create(
                                        b, l, globals, ValueRange{bIdx, gc}));
                                // Visible without the window, and not visited.
                                Value vis = KernelBuilder::visible(
                                    b, l, ii, pos, lq, lk, causal, align,
                                    std::nullopt, len, qOffset);
                                Value visited = arith::AndIOp::create(
                                    b, l,
                                    arith::CmpIOp::create(
                                        b, l, arith::CmpIPredicate::sge, pos,
                                        lo),
                                    arith::CmpIOp::create(
                                        b, l, arith::CmpIPredicate::slt, pos,
                                        hiVisited));
                                Value rowOk = arith::CmpIOp::create(
                                    b, l, arith::CmpIPredicate::slt, ii, lq);
                                Value take = arith::AndIOp::create(
                                    b, l,
                                    arith::AndIOp::create(b, l, real, vis),
                                    arith::AndIOp::create(
                                        b, l, rowOk,
                                        arith::XOrIOp::create(
                                            b, l, visited,
                                            arith::ConstantOp::create(
                                                b, l, b.getBoolAttr(true)))));
                                Value ninf = arith::ConstantOp::create(
                                    b, l, b.getFloatAttr(elem, kNegInf));
                                linalg::YieldOp::create(
                                    b, l,
                                    ValueRange{arith::SelectOp::create(
                                        b, l, take, a[0], ninf)});
                              });
                          SoftmaxState next = onlineSoftmaxStep(
                              k3, masked, {st[0], st[1], st[2], st[3]}, gvTile,
                              rowSizes, gScoreSizes, elem,
                              TileMarks{/*vectorize=*/false, valueGemm},
                              /*transposed=*/true);
                          st = {next.m, next.l, next.acc, next.scratch};
                        }
                        if (split) {
                          // The state's first tq rows at row i0.
                          OpFoldResult zero = b3.getIndexAttr(0),
                                       one = b3.getIndexAttr(1);
                          auto rowsOf = [&](Value t, Value into) -> Value {
                            Value part = tensor::ExtractSliceOp::create(
                                b3, l3, t, ArrayRef<OpFoldResult>{zero},
                                ArrayRef<OpFoldResult>{tq},
                                ArrayRef<OpFoldResult>{one});
                            return tensor::InsertSliceOp::create(
                                b3, l3, part, into, ArrayRef<OpFoldResult>{i0},
                                ArrayRef<OpFoldResult>{tq},
                                ArrayRef<OpFoldResult>{one});
                          };
                          Value acc = insertHeadRows(
                              b3, l3, st[2], zero, tq, out3[0], bIdx, hIdx, i0,
                              valueDim, /*headOnly=*/true);
                          scf::YieldOp::create(
                              b3, l3,
                              ValueRange{acc, rowsOf(st[0], out3[1]),
                                         rowsOf(st[1], out3[2])});
                          return;
                        }
                        Value tile = normalizedTile(
                            k3, st[2], st[1], accSizes, elem,
                            TileMarks{/*vectorize=*/true, false});
                        Value updated = insertHeadRows(
                            b3, l3, tile, b3.getIndexAttr(0), tq, out3[0], bIdx,
                            hIdx, i0, valueDim, headOnly);
                        scf::YieldOp::create(b3, l3, updated);
                      });
  };

  // The rows of global queries, recomputed over every key they see (the
  // query loop gave them their window only): the G queries gathered,
  // transposed and scaled into one [D, GQ] tile (GQ: G rounded up to 32),
  // the keys in TK tiles, masked, then each row written over its query's.
  int64_t globalQueries = (numGlobals + 31) / 32 * 32;
  auto globalRowsFor = [&](OpBuilder &b2, Location l2, Value bIdx, Value hIdx,
                           Value out, bool headOnly) -> Value {
    IndexMath m2{b2, l2};
    KernelBuilder k2(b2, l2);
    Value kvHead = arith::DivUIOp::create(b2, l2, hIdx, m2.c(group));
    Value len = batchIndex(b2, l2, lengths, bIdx);
    Value offset = align == MaskAlign::bottom_right ? m2.sub(lk, lq) : m2.c(0);
    // Row r's query index (its position minus the offset), and whether it
    // is a real global query of this call.
    auto rowQuery = [&](OpBuilder &b, Location l,
                        Value r) -> std::pair<Value, Value> {
      Value real = arith::CmpIOp::create(
          b, l, arith::CmpIPredicate::ult, r,
          arith::ConstantIndexOp::create(b, l, numGlobals));
      Value rc = arith::SelectOp::create(
          b, l, real, r, arith::ConstantIndexOp::create(b, l, 0));
      Value pos = arith::IndexCastOp::create(
          b, l, b.getIndexType(),
          tensor::ExtractOp::create(b, l, globals, ValueRange{bIdx, rc}));
      Value qi = arith::SubIOp::create(b, l, pos, offset);
      Value ok = arith::AndIOp::create(
          b, l, real,
          arith::AndIOp::create(
              b, l,
              arith::CmpIOp::create(b, l, arith::CmpIPredicate::sge, qi,
                                    arith::ConstantIndexOp::create(b, l, 0)),
              arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, qi, lq)));
      return {qi, ok};
    };
    Value qgT = k2.generic(
        ValueRange{},
        k2.empty({b2.getIndexAttr(headDim), b2.getIndexAttr(globalQueries)},
                 elem),
        {map(2, {d0, d1})}, {Iter::parallel, Iter::parallel},
        [&](OpBuilder &b, Location l, ValueRange) {
          auto [qi, ok] = rowQuery(b, l, linalg::IndexOp::create(b, l, 1));
          Value qc = arith::SelectOp::create(
              b, l, ok, qi, arith::ConstantIndexOp::create(b, l, 0));
          Value x = tensor::ExtractOp::create(
              b, l, q,
              ValueRange{bIdx, hIdx, qc, linalg::IndexOp::create(b, l, 0)});
          Value zero =
              arith::ConstantOp::create(b, l, b.getFloatAttr(elem, 0.0));
          linalg::YieldOp::create(
              b, l,
              ValueRange{arith::SelectOp::create(
                  b, l, ok, arith::MulFOp::create(b, l, x, scale), zero)});
        });
    // Each row's query index, -1 for a padding row: the mask reads it as an
    // operand (vectorized), not by looking the positions up per score.
    Value rowIndex = k2.generic(
        ValueRange{},
        k2.empty({b2.getIndexAttr(globalQueries)}, b2.getI64Type()),
        {map(1, {d0})}, {Iter::parallel},
        [&](OpBuilder &b, Location l, ValueRange) {
          auto [qi, ok] = rowQuery(b, l, linalg::IndexOp::create(b, l, 0));
          Value idx = arith::IndexCastOp::create(b, l, b.getI64Type(), qi);
          linalg::YieldOp::create(
              b, l,
              ValueRange{arith::SelectOp::create(
                  b, l, ok, idx,
                  arith::ConstantOp::create(b, l, b.getI64IntegerAttr(-1)))});
        });
    SmallVector<OpFoldResult> rowSizes = {b2.getIndexAttr(globalQueries)};
    SmallVector<OpFoldResult> accSizes = {b2.getIndexAttr(globalQueries),
                                          b2.getIndexAttr(valueDim)};
    SmallVector<OpFoldResult> scoreSizes = {b2.getIndexAttr(TK),
                                            b2.getIndexAttr(globalQueries)};
    Value hiAll = len ? m2.min(lk, len) : lk;
    auto keyLoop = scf::ForOp::create(
        b2, l2, m2.c(0), hiAll, m2.c(TK),
        ValueRange{k2.filled(rowSizes, elem, kNegInf),
                   k2.filled(rowSizes, elem, 0.0),
                   k2.filled(accSizes, elem, 0.0), k2.empty(rowSizes, elem)},
        [&](OpBuilder &b4, Location l4, Value j0, ValueRange st) {
          KernelBuilder k4(b4, l4);
          Value kTile = staticTile(b4, l4, kPad, bIdx, kvHead, j0, TK,
                                   b4.getIndexAttr(0), headDim);
          Value vTile = staticTile(b4, l4, vPad, bIdx, kvHead, j0, TK,
                                   b4.getIndexAttr(0), valueDim);
          Value dots = k4.generic(
              ValueRange{kTile, qgT}, k4.filled(scoreSizes, elem, 0.0),
              {map(3, {d0, d2}), map(3, {d2, d1}), map(3, {d0, d1})},
              {Iter::parallel, Iter::parallel, Iter::reduction},
              KernelBuilder::multiplyAccumulate);
          if (TK % 8 == 0)
            markOp(dots, kTileGemmAttr);
          Value masked = markOp(
              k4.generic(
                  ValueRange{rowIndex}, dots, {map(2, {d1}), map(2, {d0, d1})},
                  {Iter::parallel, Iter::parallel},
                  [&](OpBuilder &b, Location l, ValueRange a) {
                    Value jj = arith::AddIOp::create(
                        b, l, j0, linalg::IndexOp::create(b, l, 0));
                    Value ok = arith::CmpIOp::create(
                        b, l, arith::CmpIPredicate::sge, a[0],
                        arith::ConstantOp::create(b, l,
                                                  b.getI64IntegerAttr(0)));
                    Value qi = arith::IndexCastOp::create(
                        b, l, b.getIndexType(), a[0]);
                    Value vis = KernelBuilder::visible(
                        b, l, qi, jj, lq, lk, causal, align, std::nullopt, len);
                    vis = arith::AndIOp::create(
                        b, l, arith::AndIOp::create(b, l, vis, ok),
                        arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt,
                                              jj, lk));
                    Value ninf = arith::ConstantOp::create(
                        b, l, b.getFloatAttr(elem, kNegInf));
                    linalg::YieldOp::create(b, l,
                                            ValueRange{arith::SelectOp::create(
                                                b, l, vis, a[1], ninf)});
                  }),
              kVectorizeAttr);
          SoftmaxState next = onlineSoftmaxStep(
              k4, masked, {st[0], st[1], st[2], st[3]}, vTile, rowSizes,
              scoreSizes, elem, TileMarks{/*vectorize=*/false, valueGemm},
              /*transposed=*/true);
          scf::YieldOp::create(
              b4, l4, ValueRange{next.m, next.l, next.acc, next.scratch});
        });
    Value rows =
        normalizedTile(k2, keyLoop.getResult(2), keyLoop.getResult(1), accSizes,
                       elem, TileMarks{/*vectorize=*/false, false});
    // Each real row over its query's row of the result.
    auto scatter = scf::ForOp::create(
        b2, l2, m2.c(0), m2.c(numGlobals), m2.c(1), ValueRange{out},
        [&](OpBuilder &b3, Location l3, Value r, ValueRange acc) {
          auto [qi, ok] = rowQuery(b3, l3, r);
          auto ifOp = scf::IfOp::create(
              b3, l3, ok,
              [&](OpBuilder &b4, Location l4) {
                scf::YieldOp::create(
                    b4, l4,
                    insertHeadRows(b4, l4, rows, r, b4.getIndexAttr(1), acc[0],
                                   bIdx, hIdx, qi, valueDim, headOnly));
              },
              [&](OpBuilder &b4, Location l4) {
                scf::YieldOp::create(b4, l4, acc[0]);
              });
          scf::YieldOp::create(b3, l3, ifOp.getResults());
        });
    return scatter.getResult(0);
  };
  auto headFor = [&](OpBuilder &b, Location l, Value bIdx, Value hIdx,
                     Value out, bool headOnly) -> Value {
    Value filled = queryLoopFor(b, l, bIdx, hIdx, out, headOnly).getResult(0);
    return globals ? globalRowsFor(b, l, bIdx, hIdx, filled, headOnly) : filled;
  };

  if (numSplits) {
    splitKeyLoops(
        op, rewriter, batchSize, heads, numSplits, lqSize, valueDim, elem,
        [&](OpBuilder &b, Location l, Value bIdx, Value hIdx, Value sIdx,
            ValueRange inits) -> SmallVector<Value> {
          return queryLoopFor(b, l, bIdx, hIdx, inits, true, sIdx).getResults();
        });
    return success();
  }
  if (parallel) {
    parallelHeadLoops(op, rewriter, batchSize, heads, lqSize, valueDim, elem,
                      init,
                      [&](OpBuilder &b, Location l, Value bIdx, Value hIdx,
                          Value headInit) -> Value {
                        return headFor(b, l, bIdx, hIdx, headInit, true);
                      });
    return success();
  }
  serialHeadLoops(op, rewriter, batch, heads, init,
                  [&](OpBuilder &b2, Location l2, Value bIdx, Value hIdx,
                      Value headOut) -> Value {
                    return headFor(b2, l2, bIdx, hIdx, headOut, false);
                  });
  return success();
}

/// attune.linear_attention (without a state) per (batch, head), in chunks
/// of `C` rows, with the static tile ops of the attention kernel above:
///   qT[b, h, c] = phi(q)^T of chunk c ([D, C], one contiguous block)
///   fk = phi(k), zero at hidden and padding keys ([C, D] per chunk)
///   sT = fk_c qT_c ([C(j), C(i)]; causal: j > i zeroed)
///   num = sT^T v_c + qT_c^T S,  den = colsum sT + qT_c^T z
///   out = num / (den + eps);  then S += fk_c^T v_c,  z += colsum fk_c
/// (causal: all in one loop over chunks; else S and z first, over all key
/// chunks, then a loop over query chunks without sT). Sums over keys are
/// element-wise across rows: no horizontal reductions.
LogicalResult tileLinearAttention(LinearAttentionOp op, RewriterBase &rewriter,
                                  int64_t C, bool parallel) {
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  KernelBuilder kb(rewriter, loc);
  Value q = op.getQuery(), k = op.getKey(), v = op.getValue();
  Value lengths = op.getKeyLengths();
  auto qt = op.getQuery().getType();
  Type elem = qt.getElementType();
  int64_t heads = qt.getDimSize(1), headDim = qt.getDimSize(3);
  int64_t group = heads / op.getKey().getType().getDimSize(1);
  int64_t valueDim = op.getValue().getType().getDimSize(3);
  bool causal = op.getCausal();
  double eps = op.getEps().convertToDouble();
  MLIRContext *ctx = rewriter.getContext();

  assertLinearAttentionExtents(rewriter, loc, q, k, v, lengths, ValueRange(),
                               causal);
  OpFoldResult batchSize = kb.staticOrDim({{q, 0}, {k, 0}, {v, 0}});
  OpFoldResult lqSize = kb.sizes(q)[2];
  Value batch = getValueOrCreateConstantIndexOp(rewriter, loc, batchSize);
  Value lq = getValueOrCreateConstantIndexOp(rewriter, loc, lqSize);
  Value lk = getValueOrCreateConstantIndexOp(rewriter, loc,
                                             kb.staticOrDim({{k, 2}, {v, 2}}));
  Value lqPad = roundUpTo(rewriter, loc, lq, C),
        lkPad = roundUpTo(rewriter, loc, lk, C);
  Value qPad = padDim(rewriter, loc, q, 2, lqPad);
  Value kPad = padDim(rewriter, loc, k, 2, lkPad);
  Value vPad = padDim(rewriter, loc, v, 2, lkPad);
  AffineExpr d0 = getAffineDimExpr(0, ctx), d1 = getAffineDimExpr(1, ctx),
             d2 = getAffineDimExpr(2, ctx);
  auto map = [&](unsigned dims, ArrayRef<AffineExpr> exprs) {
    return AffineMap::get(dims, 0, exprs, ctx);
  };
  // phi of a [C, D] chunk of `t` at row r0 (zero at hidden keys when
  // `keys`), and the [D, C] transposed phi of a query chunk: computed per
  // chunk, in cache, rather than as copies of q and k.
  auto phiKeys = [&](KernelBuilder &kc, Value bIdx, Value kvHead, Value r0) {
    OpBuilder &b = kc.builder();
    Location l = kc.location();
    Value tile =
        staticTile(b, l, kPad, bIdx, kvHead, r0, C, b.getIndexAttr(0), headDim);
    Value len = batchIndex(b, l, lengths, bIdx);
    return markOp(
        kc.generic(ValueRange{tile},
                   kc.empty({b.getIndexAttr(C), b.getIndexAttr(headDim)}, elem),
                   {map(2, {d0, d1}), map(2, {d0, d1})},
                   {Iter::parallel, Iter::parallel},
                   [&](OpBuilder &bb, Location ll, ValueRange a) {
                     Value j = arith::AddIOp::create(
                         bb, ll, r0, linalg::IndexOp::create(bb, ll, 0));
                     Value hidden = arith::CmpIOp::create(
                         bb, ll, arith::CmpIPredicate::sge, j, lk);
                     if (len)
                       hidden = arith::OrIOp::create(
                           bb, ll, hidden,
                           arith::CmpIOp::create(
                               bb, ll, arith::CmpIPredicate::sge, j, len));
                     Value zero = arith::ConstantOp::create(
                         bb, ll, bb.getFloatAttr(elem, 0.0));
                     linalg::YieldOp::create(
                         bb, ll,
                         ValueRange{arith::SelectOp::create(
                             bb, ll, hidden, zero,
                             linearAttentionFeature(bb, ll, a[0]))});
                   }),
        kVectorizeAttr);
  };
  auto phiQueriesT = [&](KernelBuilder &kc, Value bIdx, Value hIdx, Value r0) {
    return transposedQueryTile(kc, qPad, bIdx, hIdx, r0, C,
                               linearAttentionFeature);
  };

  Value init = kb.empty({batchSize, rewriter.getIndexAttr(heads), lqSize,
                         rewriter.getIndexAttr(valueDim)},
                        elem);
  // Register tiles need M % 8 == 0 and N % 32 == 0.
  bool scoreGemm = C % 32 == 0;
  bool valueGemm = C % 8 == 0 && valueDim % 32 == 0;
  bool stateGemm = headDim % 8 == 0 && valueDim % 32 == 0;
  auto mark = [](Value v, bool yes, StringRef attr) {
    return yes ? markOp(v, attr) : v;
  };
  SmallVector<OpFoldResult> rowSizes = {rewriter.getIndexAttr(C)};
  SmallVector<OpFoldResult> tileSizes = {rewriter.getIndexAttr(C),
                                         rewriter.getIndexAttr(valueDim)};
  auto addBody = [](OpBuilder &b, Location l, ValueRange a) {
    auto flags = arith::FastMathFlags::reassoc;
    linalg::YieldOp::create(
        b, l, ValueRange{arith::AddFOp::create(b, l, a[1], a[0], flags)});
  };

  // S += fk_c^T v_c and z += colsum fk_c, for the key chunk at j0.
  auto addKeys = [&](KernelBuilder &k4, Value bIdx, Value kvHead, Value j0,
                     Value fkTile, Value S,
                     Value z) -> std::pair<Value, Value> {
    OpBuilder &b4 = k4.builder();
    Location l4 = k4.location();
    Value vTile = staticTile(b4, l4, vPad, bIdx, kvHead, j0, C,
                             b4.getIndexAttr(0), valueDim);
    // S[d, e] += sum_j fk[j, d] v[j, e]: dims (d, e, j).
    Value sNext =
        mark(k4.generic(ValueRange{fkTile, vTile}, S,
                        {map(3, {d2, d0}), map(3, {d2, d1}), map(3, {d0, d1})},
                        {Iter::parallel, Iter::parallel, Iter::reduction},
                        KernelBuilder::multiplyAccumulate),
             stateGemm, kTileGemmAttr);
    // z[d] += sum_j fk[j, d]: dims (j, d).
    Value zNext = markOp(k4.generic(ValueRange{fkTile}, z,
                                    {map(2, {d0, d1}), map(2, {d1})},
                                    {Iter::reduction, Iter::parallel}, addBody),
                         kVectorizeAttr);
    return {sNext, zNext};
  };

  // One (batch, head): `outInit` is the [B, H, Lq, Dv] result (serial
  // form) or this head's [Lq, Dv] (parallel form).
  auto headFor = [&](OpBuilder &b2, Location l2, Value bIdx, Value hIdx,
                     Value outInit, bool headOnly) -> Value {
    IndexMath m2{b2, l2};
    KernelBuilder k2(b2, l2);
    Value kvHead = arith::DivUIOp::create(b2, l2, hIdx, m2.c(group));
    Value c0 = m2.c(0);
    Value s0 = k2.filled({b2.getIndexAttr(headDim), b2.getIndexAttr(valueDim)},
                         elem, 0.0);
    Value z0 = k2.filled({b2.getIndexAttr(headDim)}, elem, 0.0);
    if (!causal) {
      auto keyLoop = scf::ForOp::create(
          b2, l2, c0, lk, m2.c(C), ValueRange{s0, z0},
          [&](OpBuilder &b4, Location l4, Value j0, ValueRange st) {
            KernelBuilder k4(b4, l4);
            auto [sN, zN] =
                addKeys(k4, bIdx, kvHead, j0, phiKeys(k4, bIdx, kvHead, j0),
                        st[0], st[1]);
            scf::YieldOp::create(b4, l4, ValueRange{sN, zN});
          });
      s0 = keyLoop.getResult(0);
      z0 = keyLoop.getResult(1);
    }
    auto loop = scf::ForOp::create(
        b2, l2, c0, lq, m2.c(C), ValueRange{outInit, s0, z0},
        [&](OpBuilder &b3, Location l3, Value i0, ValueRange st) {
          KernelBuilder k3(b3, l3);
          IndexMath m3{b3, l3};
          Value S = st[1], z = st[2];
          Value tq = m3.min(m3.c(C), m3.sub(lq, i0));
          Value qtTile = phiQueriesT(k3, bIdx, hIdx, i0);
          Value num = k3.filled(tileSizes, elem, 0.0);
          Value den = k3.filled(rowSizes, elem, 0.0);
          Value fkTile;
          if (causal) {
            fkTile = phiKeys(k3, bIdx, kvHead, i0);
            Value vTile = staticTile(b3, l3, vPad, bIdx, kvHead, i0, C,
                                     b3.getIndexAttr(0), valueDim);
            // sT = fk qT: dims (j, i, e).
            Value dots =
                mark(k3.generic(
                         ValueRange{fkTile, qtTile},
                         k3.filled({b3.getIndexAttr(C), b3.getIndexAttr(C)},
                                   elem, 0.0),
                         {map(3, {d0, d2}), map(3, {d2, d1}), map(3, {d0, d1})},
                         {Iter::parallel, Iter::parallel, Iter::reduction},
                         KernelBuilder::multiplyAccumulate),
                     scoreGemm, kTileGemmAttr);
            // Keys after the query (j > i, in the chunk) hidden.
            Value sT =
                markOp(k3.generic(ValueRange{}, dots, {map(2, {d0, d1})},
                                  {Iter::parallel, Iter::parallel},
                                  [&](OpBuilder &b, Location l, ValueRange a) {
                                    Value j = linalg::IndexOp::create(b, l, 0);
                                    Value i = linalg::IndexOp::create(b, l, 1);
                                    Value later = arith::CmpIOp::create(
                                        b, l, arith::CmpIPredicate::ugt, j, i);
                                    Value zero = arith::ConstantOp::create(
                                        b, l, b.getFloatAttr(elem, 0.0));
                                    linalg::YieldOp::create(
                                        b, l,
                                        ValueRange{arith::SelectOp::create(
                                            b, l, later, zero, a[0])});
                                  }),
                       kVectorizeAttr);
            // den = colsum sT: dims (j, i).
            den = markOp(k3.generic(ValueRange{sT}, den,
                                    {map(2, {d0, d1}), map(2, {d1})},
                                    {Iter::reduction, Iter::parallel}, addBody),
                         kVectorizeAttr);
            // num[i, e] = sum_j sT[j, i] v[j, e]: dims (i, e, j).
            num =
                mark(k3.generic(
                         ValueRange{sT, vTile}, num,
                         {map(3, {d2, d0}), map(3, {d2, d1}), map(3, {d0, d1})},
                         {Iter::parallel, Iter::parallel, Iter::reduction},
                         KernelBuilder::multiplyAccumulate),
                     valueGemm, kTileGemmAttr);
          }
          // num[i, e] += sum_d qT[d, i] S[d, e]: dims (i, e, d).
          num = mark(
              k3.generic(ValueRange{qtTile, S}, num,
                         {map(3, {d2, d0}), map(3, {d2, d1}), map(3, {d0, d1})},
                         {Iter::parallel, Iter::parallel, Iter::reduction},
                         KernelBuilder::multiplyAccumulate),
              valueGemm, kTileGemmAttr);
          // den[i] += sum_d qT[d, i] z[d]: dims (d, i).
          den = markOp(
              k3.generic(ValueRange{qtTile, z}, den,
                         {map(2, {d0, d1}), map(2, {d0}), map(2, {d1})},
                         {Iter::reduction, Iter::parallel},
                         [](OpBuilder &b, Location l, ValueRange a) {
                           auto flags = arith::FastMathFlags::reassoc;
                           Value p = arith::MulFOp::create(b, l, a[0], a[1]);
                           linalg::YieldOp::create(
                               b, l,
                               ValueRange{arith::AddFOp::create(b, l, a[2], p,
                                                                flags)});
                         }),
              kVectorizeAttr);
          // 1 / (den + eps) per row (0 for a row that sees no key), then
          // one multiply per element.
          Value inv = markOp(
              k3.generic(ValueRange{}, den, {map(1, {d0})}, {Iter::parallel},
                         [&](OpBuilder &b, Location l, ValueRange a) {
                           Value one = arith::ConstantOp::create(
                               b, l, b.getFloatAttr(elem, 1.0));
                           linalg::YieldOp::create(
                               b, l,
                               ValueRange{linearAttentionQuotient(b, l, one,
                                                                  a[0], eps)});
                         }),
              kVectorize1DAttr);
          Value tile = markOp(
              k3.generic(ValueRange{inv}, num, {map(2, {d0}), map(2, {d0, d1})},
                         {Iter::parallel, Iter::parallel}, multiplyBody),
              kVectorizeAttr);
          Value updated =
              insertHeadRows(b3, l3, tile, b3.getIndexAttr(0), tq, st[0], bIdx,
                             hIdx, i0, valueDim, headOnly);
          if (causal) {
            auto [sN, zN] = addKeys(k3, bIdx, kvHead, i0, fkTile, S, z);
            S = sN;
            z = zN;
          }
          scf::YieldOp::create(b3, l3, ValueRange{updated, S, z});
        });
    return loop.getResult(0);
  };

  if (parallel) {
    parallelHeadLoops(op, rewriter, batchSize, heads, lqSize, valueDim, elem,
                      init,
                      [&](OpBuilder &b, Location l, Value bIdx, Value hIdx,
                          Value headInit) -> Value {
                        return headFor(b, l, bIdx, hIdx, headInit, true);
                      });
    return success();
  }
  serialHeadLoops(op, rewriter, batch, heads, init,
                  [&](OpBuilder &b2, Location l2, Value bIdx, Value hIdx,
                      Value headOut) -> Value {
                    return headFor(b2, l2, bIdx, hIdx, headOut, false);
                  });
  return success();
}

/// Queries from this many on take the static form (see the pass).
constexpr int64_t kStaticFormMinQueries = 16;

/// `op` as an scf.if on its query count: the static tiled form for
/// kStaticFormMinQueries queries or more, else the dynamic form.
LogicalResult tileByQueryCount(AttentionOp op, RewriterBase &rewriter,
                               TileSizes tiles, bool parallel, bool bf16) {
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  Value lq = tensor::DimOp::create(rewriter, loc, op.getQuery(), 2);
  Value many = arith::CmpIOp::create(
      rewriter, loc, arith::CmpIPredicate::sge, lq,
      arith::ConstantIndexOp::create(rewriter, loc, kStaticFormMinQueries));
  auto ifOp = scf::IfOp::create(rewriter, loc, op->getResultTypes(), many,
                                /*withElseRegion=*/true);
  AttentionOp forms[2];
  for (int branch = 0; branch < 2; ++branch) {
    Block *block = branch == 0 ? ifOp.thenBlock() : ifOp.elseBlock();
    rewriter.setInsertionPointToStart(block);
    forms[branch] = cast<AttentionOp>(rewriter.clone(*op));
    scf::YieldOp::create(rewriter, loc, forms[branch]->getResults());
  }
  rewriter.replaceOp(op, ifOp.getResults());
  if (failed(tileAttentionStatic(forms[0], rewriter, tiles, parallel, bf16)) ||
      failed(tileAttention(forms[1], rewriter, tiles, parallel)))
    return failure();
  return success();
}

struct AttuneTileAttentionPass
    : mlir::attune::impl::AttuneTileAttentionBase<AttuneTileAttentionPass> {
  using AttuneTileAttentionBase::AttuneTileAttentionBase;
  void runOnOperation() override {
    if (tileQ < 1 || tileK < 1 || linearChunk < 1) {
      getOperation()->emitError()
          << "attune-tile-attention: tile sizes must "
             "be >= 1, got tile-q="
          << tileQ << " tile-k=" << tileK << " linear-chunk=" << linearChunk;
      return signalPassFailure();
    }
    if (!llvm::is_contained(cpu::kComputeNames, compute)) {
      getOperation()->emitError()
          << "attune-tile-attention: compute=" << compute
          << ": expected f32 or bf16";
      return signalPassFailure();
    }
    bool bf16 = compute == "bf16";
    SmallVector<AttentionOp> ops;
    getOperation()->walk([&](AttentionOp op) {
      if (op.getSelection() != Selection::soft || op.getReturnWeights() ||
          (op.getGlobalIndices() && op.getBias()))
        return;
      // Queries at offsets read a cache: the tiled loops visit only the
      // keys before each query, however large the cache's capacity.
      int64_t keyLength = op.getKey().getType().getDimSize(2);
      if (!ShapedType::isDynamic(keyLength) && keyLength < minLength &&
          !op.getQueryOffsets())
        return;
      ops.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    // Linear attention without a state (a decoding step's few rows keep
    // the batched form of convert-attune-to-linalg).
    SmallVector<LinearAttentionOp> linearOps;
    getOperation()->walk([&](LinearAttentionOp op) {
      if (op.getState().empty() &&
          op.getQuery().getType().getElementType().isF32())
        linearOps.push_back(op);
    });
    for (LinearAttentionOp op : linearOps)
      if (failed(tileLinearAttention(op, rewriter, linearChunk, parallel)))
        return signalPassFailure();
    for (AttentionOp op : ops) {
      // A producer that knows the queries are few (the absorbed form of
      // attune-absorb-kv-projections) caps the query tile: less padding.
      TileSizes tiles{tileQ, tileK};
      if (auto cap = op->getAttrOfType<IntegerAttr>(attune::kTileQCapAttr))
        if (cap.getInt() >= 1)
          tiles.q = std::min<int64_t>(tiles.q, cap.getInt());
      // Queries at offsets read a cache. A decoding step's few queries read
      // key tiles from it in place (the dynamic form); a prefill's many
      // queries are worth the static form's micro-kernels, which pad and
      // transpose the keys once per call: chosen at run time by the
      // number of queries. Likewise any query count that is not static
      // (a decoder layer's self-attention run one token at a time padded
      // its one query, key and value to 64 rows, zero-filled and copied),
      // except where a producer capped the query tile (the absorbed
      // cross-attention: its few rows are worth the static form's
      // micro-kernels and key ranges).
      bool fewQueries =
          op.getQueryOffsets() ||
          (op.getQuery().getType().isDynamicDim(2) &&
           !op->hasAttr(attune::kTileQCapAttr) && !op.getGlobalIndices());
      if (fewQueries && !op.getBias()) {
        if (failed(tileByQueryCount(op, rewriter, tiles, parallel, bf16)))
          return signalPassFailure();
        continue;
      }
      if (failed(op.getBias() ? tileAttention(op, rewriter, tiles, parallel)
                              : tileAttentionStatic(op, rewriter, tiles,
                                                    parallel, bf16)))
        return signalPassFailure();
    }
  }
};

} // namespace
