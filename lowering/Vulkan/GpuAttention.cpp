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
// Query i of batch b is at key position offsets[b] + i with `query_offsets`
// (a generation step over a cache: the loop stops at the row's position, so
// a step reads the keys written so far, not the cache's capacity), else at
// i or i + Lk - Lq (the masks' alignment).
//
// No [Lq, Lk] tensor exists and the whole op is one kernel, where the plain
// lowering writes and rereads the scores between five kernels.
//
//===----------------------------------------------------------------------===//

#include "lowering/AttuneToLinalg/AttuneToLinalg.h"
#include "lowering/AttuneToLinalg/KernelBuilder.h"
#include "lowering/AttuneToLinalg/LinearAttention.h"
#include "lowering/Passes.h"

#include "dialect/AttuneOps.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVAttributes.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVEnums.h"
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

/// One key's online-softmax update of the state (m, l, acc[0..Dv)) by score
/// `s` and the key's value row (`value(d)`): one exp per score.
SmallVector<Value> onlineUpdate(OpBuilder &b, Location l, Type elem, Value s,
                                ValueRange st, int64_t valueDim,
                                function_ref<Value(int64_t)> value) {
  auto fcst = [&](double x) {
    return arith::ConstantOp::create(b, l, b.getFloatAttr(elem, x)).getResult();
  };
  Value m = st[0], sum = st[1];
  Value ninf = fcst(-std::numeric_limits<double>::infinity());
  Value one = fcst(1.0), zero = fcst(0.0);
  Value diff = arith::SubFOp::create(b, l, s, m);
  Value e = math::ExpOp::create(
      b, l, arith::NegFOp::create(b, l, math::AbsFOp::create(b, l, diff)));
  Value up = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OGT, s, m);
  Value masked =
      arith::CmpFOp::create(b, l, arith::CmpFPredicate::OEQ, s, ninf);
  Value mNew = arith::SelectOp::create(b, l, up, s, m);
  Value c = arith::SelectOp::create(b, l, up, e, one);
  Value pw = arith::SelectOp::create(
      b, l, up, one, arith::SelectOp::create(b, l, masked, zero, e));
  SmallVector<Value> next = {mNew, math::FmaOp::create(b, l, sum, c, pw)};
  for (int64_t d = 0; d < valueDim; ++d) {
    Value scaled = arith::MulFOp::create(b, l, st[2 + d], c);
    next.push_back(math::FmaOp::create(b, l, pw, value(d), scaled));
  }
  return next;
}

/// The online-softmax state before any key: m = -inf, l = 0, acc = 0.
SmallVector<Value> initialState(OpBuilder &b, Location l, Type elem,
                                int64_t valueDim) {
  auto f = [&](double x) {
    return arith::ConstantOp::create(b, l, b.getFloatAttr(elem, x)).getResult();
  };
  SmallVector<Value> state = {f(-std::numeric_limits<double>::infinity()),
                              f(0.0)};
  state.append(valueDim, f(0.0));
  return state;
}

/// s + bias[.., i, j] when there is a bias (a bias dim of 1 broadcasts).
Value addBias(OpBuilder &b, Location l, Value s, Value bm, ValueRange bhi,
              Value j) {
  if (!bm)
    return s;
  auto biasType = cast<MemRefType>(bm.getType());
  int64_t rank = biasType.getRank();
  Value full[4] = {bhi[0], bhi[1], bhi[2], j};
  SmallVector<Value> idx;
  for (int64_t d = 0; d < rank; ++d)
    idx.push_back(biasType.getDimSize(d) == 1
                      ? arith::ConstantIndexOp::create(b, l, 0).getResult()
                      : full[4 - rank + d]);
  return arith::AddFOp::create(b, l, s, memref::LoadOp::create(b, l, bm, idx));
}

/// scale * q[b, h, i] . key(d) over the head dim, plus bias[.., i, j] when
/// there is one (a bias dim of 1 broadcasts).
Value score(OpBuilder &b, Location l, Type elem, Value qm, Value bm,
            ValueRange bhi, Value j, int64_t headDim, Value scale,
            function_ref<Value(OpBuilder &, Location, Value)> key) {
  auto c = [&](int64_t x) {
    return arith::ConstantIndexOp::create(b, l, x).getResult();
  };
  Value zero = arith::ConstantOp::create(b, l, b.getFloatAttr(elem, 0.0));
  auto dot = scf::ForOp::create(
      b, l, c(0), c(headDim), c(1), ValueRange{zero},
      [&](OpBuilder &b2, Location l2, Value d, ValueRange acc) {
        Value x = memref::LoadOp::create(b2, l2, qm,
                                         ValueRange{bhi[0], bhi[1], bhi[2], d});
        scf::YieldOp::create(
            b2, l2,
            ValueRange{math::FmaOp::create(b2, l2, x, key(b2, l2, d), acc[0])});
      });
  Value s = arith::MulFOp::create(b, l, dot.getResult(0), scale);
  return addBias(b, l, s, bm, bhi, j);
}

/// out[b, h, i, :] = acc / l from the final state (m, l, acc...), 0 for a
/// row that saw no key.
void storeRow(OpBuilder &b, Location l, Type elem, Value out, ValueRange bhi,
              ValueRange state, int64_t valueDim) {
  Value zero = arith::ConstantOp::create(b, l, b.getFloatAttr(elem, 0.0));
  Value one = arith::ConstantOp::create(b, l, b.getFloatAttr(elem, 1.0));
  Value none =
      arith::CmpFOp::create(b, l, arith::CmpFPredicate::OEQ, state[1], zero);
  Value inv = arith::DivFOp::create(b, l, one, state[1]);
  for (int64_t d = 0; d < valueDim; ++d) {
    Value o = arith::MulFOp::create(b, l, state[2 + d], inv);
    o = arith::SelectOp::create(b, l, none, zero, o);
    memref::StoreOp::create(
        b, l, o, out,
        ValueRange{bhi[0], bhi[1], bhi[2],
                   arith::ConstantIndexOp::create(b, l, d)});
  }
}

/// Declares the private function `name` (a stand-in for a GPU op until
/// bufferization is done, see attune-map-to-gpu) once per module.
void declareStandIn(ModuleOp module, Location loc, StringRef name,
                    FunctionType type) {
  if (module.lookupSymbol(name))
    return;
  OpBuilder mb = OpBuilder::atBlockEnd(module.getBody());
  func::FuncOp::create(mb, loc, name, type).setPrivate();
}

/// What both kernels start from: the op's extents and attributes, the
/// extent checks, its operands as buffers, the output buffer, the scale and
/// the bottom-right offset of query positions; `finish` hands the output
/// back as the op's result.
struct AttentionKernel {
  AttentionKernel(AttentionOp op, RewriterBase &rewriter)
      : op(op), rewriter(rewriter), loc(op.getLoc()), kb(rewriter, loc) {
    rewriter.setInsertionPoint(op);
    Value q = op.getQuery(), k = op.getKey(), v = op.getValue();
    Value lengths = op.getKeyLengths(), bias = op.getBias();
    auto qType = op.getQuery().getType();
    elem = qType.getElementType();
    heads = qType.getDimSize(1);
    headDim = qType.getDimSize(3);
    group = heads / op.getKey().getType().getDimSize(1);
    valueDim = op.getValue().getType().getDimSize(3);
    causal = op.getCausal();
    // A window's span; a dilated window (the per-row kernel only) visits
    // every `dilation`-th key of it.
    window = op.getWindowSpan();
    dilation = op.getDilationOrOne();
    // Extents the loops rely on, checked like the tiled CPU form does.
    assertAttentionExtents(rewriter, loc, q, k, v, lengths, bias);
    if (Value globals = op.getGlobalIndices()) {
      checkGlobalPositions(rewriter, op, IndexChecks::Deferred, globals,
                           kb.dim(k, 2));
      gm = toBuffer(rewriter, loc, globals);
      numGlobals = cast<RankedTensorType>(globals.getType()).getDimSize(1);
    }
    qBatch = kb.dim(q, 0);
    lq = kb.dim(q, 2);
    lk = kb.dim(k, 2);
    qm = toBuffer(rewriter, loc, q);
    km = toBuffer(rewriter, loc, k);
    vm = toBuffer(rewriter, loc, v);
    lm = lengths ? toBuffer(rewriter, loc, lengths) : Value();
    if (Value offsets = op.getQueryOffsets())
      om = toBuffer(rewriter, loc, offsets);
    bm = bias ? toBuffer(rewriter, loc, bias) : Value();
    outType = MemRefType::get(
        {ShapedType::kDynamic, heads, ShapedType::kDynamic, valueDim}, elem);
    out =
        memref::AllocOp::create(rewriter, loc, outType, ValueRange{qBatch, lq});
    scale = kb.floatConst(elem, op.getEffectiveScale());
    offset = op.getAlign() == MaskAlign::bottom_right
                 ? Value(arith::SubIOp::create(rewriter, loc, lk, lq))
                 : kb.indexConst(0);
  }

  /// The key length of batch `bi` as an index, or null without lengths.
  Value keyLength(OpBuilder &b, Location l, Value bi) {
    if (!lm)
      return Value();
    Value raw = memref::LoadOp::create(b, l, lm, bi);
    return arith::IndexCastOp::create(b, l, b.getIndexType(), raw);
  }

  /// The key position of query 0 of batch `bi`: the row's query offset
  /// (a step over a cache), else the bottom-right or top-left offset.
  Value queryOffset(OpBuilder &b, Location l, Value bi) {
    if (!om)
      return offset;
    Value raw = memref::LoadOp::create(b, l, om, bi);
    return arith::IndexCastOp::create(b, l, b.getIndexType(), raw);
  }

  /// Replaces the op by the output buffer as a tensor, after the kernel.
  LogicalResult finish(Operation *kernel) {
    rewriter.setInsertionPointAfter(kernel);
    Value result = bufferization::ToTensorOp::create(
        rewriter, loc, RankedTensorType::get(outType.getShape(), elem), out,
        /*restrict=*/true, /*writable=*/true);
    replaceWithCast(rewriter, op, ValueRange{result});
    return success();
  }

  AttentionOp op;
  RewriterBase &rewriter;
  Location loc;
  KernelBuilder kb;
  Type elem;
  int64_t heads, headDim, group, valueDim;
  bool causal;
  std::optional<int64_t> window;
  int64_t dilation = 1;
  Value qBatch, lq, lk, qm, km, vm, lm, om, bm, out, scale, offset;
  // Global tokens (per-row kernel only): their positions, and G.
  Value gm;
  int64_t numGlobals = 0;
  MemRefType outType;
};

LogicalResult fuseForGpu(AttentionOp op, RewriterBase &rewriter) {
  AttentionKernel a(op, rewriter);
  KernelBuilder &kb = a.kb;
  Location loc = a.loc;
  Value c0 = kb.indexConst(0), c1 = kb.indexConst(1);

  auto rows = scf::ParallelOp::create(
      rewriter, loc, ValueRange{c0, c0, c0},
      ValueRange{a.qBatch, kb.indexConst(a.heads), a.lq},
      ValueRange{c1, c1, c1}, [&](OpBuilder &b, Location l, ValueRange ivs) {
        Value bi = ivs[0], hi = ivs[1], ii = ivs[2];
        auto cst = [&](int64_t x) {
          return arith::ConstantIndexOp::create(b, l, x).getResult();
        };
        Value kvh = arith::DivUIOp::create(b, l, hi, cst(a.group));
        // The keys row i sees: [lo, end).
        Value p = arith::AddIOp::create(b, l, ii, a.queryOffset(b, l, bi));
        Value len = a.keyLength(b, l, bi);
        auto range = visibleKeyRange(b, l, p, p, a.lk, len, a.causal, a.window);
        Value lo = range.first, end = range.second;
        // Global tokens: a global query's row sees every key (within the
        // causal and padding conditions); another row also the global keys
        // outside its window, after the window's keys.
        auto globalPosition = [&](OpBuilder &b2, Location l2, Value g) {
          Value raw = memref::LoadOp::create(b2, l2, a.gm, ValueRange{bi, g});
          return arith::IndexCastOp::create(b2, l2, b2.getIndexType(), raw)
              .getResult();
        };
        // The keys the row may see without its window.
        std::pair<Value, Value> all;
        Value isGlobalRow;
        if (a.gm) {
          auto isGlobal = scf::ForOp::create(
              b, l, c0, cst(a.numGlobals), c1,
              ValueRange{arith::ConstantOp::create(b, l, b.getBoolAttr(false))},
              [&](OpBuilder &b2, Location l2, Value g, ValueRange any) {
                Value hit =
                    arith::CmpIOp::create(b2, l2, arith::CmpIPredicate::eq,
                                          globalPosition(b2, l2, g), p);
                scf::YieldOp::create(
                    b2, l2,
                    ValueRange{arith::OrIOp::create(b2, l2, any[0], hit)});
              });
          isGlobalRow = isGlobal.getResult(0);
          all = visibleKeyRange(b, l, p, p, a.lk, len, a.causal, std::nullopt);
          lo = arith::SelectOp::create(b, l, isGlobal.getResult(0), all.first,
                                       lo);
          end = arith::SelectOp::create(b, l, isGlobal.getResult(0), all.second,
                                        end);
        }
        // The state after key j: its score, then the online update.
        auto withKey = [&](OpBuilder &b2, Location l2, Value j, ValueRange st) {
          Value s = score(b2, l2, a.elem, a.qm, a.bm, ValueRange{bi, hi, ii}, j,
                          a.headDim, a.scale,
                          [&](OpBuilder &b3, Location l3, Value d) {
                            return memref::LoadOp::create(
                                       b3, l3, a.km, ValueRange{bi, kvh, j, d})
                                .getResult();
                          });
          return onlineUpdate(
              b2, l2, a.elem, s, st, a.valueDim, [&](int64_t d) {
                return memref::LoadOp::create(
                           b2, l2, a.vm,
                           ValueRange{
                               bi, kvh, j,
                               arith::ConstantIndexOp::create(b2, l2, d)})
                    .getResult();
              });
        };
        // The keys in [from, to) of the row's window: all of them, or with
        // a dilation d those a multiple of d away from p: from the first
        // one at or after `from` ((p - from) mod d further; p - from may
        // be negative), d apart. A global query's row sees every key.
        Value stride = cst(a.dilation);
        if (a.dilation > 1 && isGlobalRow)
          stride = arith::SelectOp::create(b, l, isGlobalRow, cst(1), stride);
        auto keysIn = [&](OpBuilder &b2, Location l2, Value from, Value to,
                          ValueRange init) {
          Value step = stride;
          if (a.dilation > 1) {
            Value rest = arith::RemSIOp::create(
                b2, l2, arith::SubIOp::create(b2, l2, p, from), step);
            Value negative = arith::CmpIOp::create(
                b2, l2, arith::CmpIPredicate::slt, rest,
                arith::ConstantIndexOp::create(b2, l2, 0));
            rest = arith::SelectOp::create(
                b2, l2, negative, arith::AddIOp::create(b2, l2, rest, step),
                rest);
            from = arith::AddIOp::create(b2, l2, from, rest);
          }
          return scf::ForOp::create(
              b2, l2, from, to, step, init,
              [&](OpBuilder &b3, Location l3, Value j, ValueRange st) {
                scf::YieldOp::create(b3, l3, withKey(b3, l3, j, st));
              });
        };
        scf::ForOp keys;
        if (SparseLayoutAttr sparse = a.op.getSparseAttr()) {
          // A sparse layout: the row's key range block by block, each block
          // the layout hides skipped.
          Value block = cst(sparse.getBlock());
          Value qBlock = floorDiv(b, l, p, sparse.getBlock());
          // lo >= 0; end may be below lo (an empty range).
          Value firstBlock = arith::DivUIOp::create(b, l, lo, block);
          Value endBlock = floorDiv(
              b, l,
              arith::AddIOp::create(b, l, end, cst(sparse.getBlock() - 1)),
              sparse.getBlock());
          keys = scf::ForOp::create(
              b, l, firstBlock, endBlock, c1,
              initialState(b, l, a.elem, a.valueDim),
              [&](OpBuilder &b2, Location l2, Value kBlock, ValueRange st) {
                Value seen = KernelBuilder::layoutVisible(b2, l2, sparse,
                                                          qBlock, kBlock, hi);
                auto ifOp = scf::IfOp::create(
                    b2, l2, seen,
                    [&](OpBuilder &b3, Location l3) {
                      Value from = arith::MulIOp::create(b3, l3, kBlock, block);
                      Value to = arith::MinSIOp::create(
                          b3, l3, end,
                          arith::AddIOp::create(b3, l3, from, block));
                      from = arith::MaxSIOp::create(b3, l3, from, lo);
                      scf::YieldOp::create(
                          b3, l3, keysIn(b3, l3, from, to, st).getResults());
                    },
                    [&](OpBuilder &b3, Location l3) {
                      scf::YieldOp::create(b3, l3, st);
                    });
                scf::YieldOp::create(b2, l2, ifOp.getResults());
              });
        } else {
          keys = keysIn(b, l, lo, end, initialState(b, l, a.elem, a.valueDim));
        }
        SmallVector<Value> state(keys.getResults());
        if (a.gm) {
          auto extra = scf::ForOp::create(
              b, l, c0, cst(a.numGlobals), c1, state,
              [&](OpBuilder &b2, Location l2, Value g, ValueRange st) {
                Value j = globalPosition(b2, l2, g);
                auto cmp = [&](arith::CmpIPredicate pred, Value x, Value y) {
                  return arith::CmpIOp::create(b2, l2, pred, x, y).getResult();
                };
                // Visible without the window, and not visited: outside
                // [lo, end), or off a dilated window's grid.
                Value outside = arith::OrIOp::create(
                    b2, l2, cmp(arith::CmpIPredicate::slt, j, lo),
                    cmp(arith::CmpIPredicate::sge, j, end));
                // (A global query's row visited every key of its range.)
                if (a.dilation > 1)
                  outside = arith::OrIOp::create(
                      b2, l2, outside,
                      arith::AndIOp::create(
                          b2, l2,
                          cmp(arith::CmpIPredicate::ne,
                              arith::RemSIOp::create(
                                  b2, l2, arith::SubIOp::create(b2, l2, p, j),
                                  cst(a.dilation)),
                              cst(0)),
                          arith::XOrIOp::create(
                              b2, l2, isGlobalRow,
                              arith::ConstantIntOp::create(b2, l2, 1, 1))));
                Value take = arith::AndIOp::create(
                    b2, l2,
                    arith::AndIOp::create(
                        b2, l2, cmp(arith::CmpIPredicate::sge, j, all.first),
                        cmp(arith::CmpIPredicate::slt, j, all.second)),
                    outside);
                auto ifOp = scf::IfOp::create(
                    b2, l2, take,
                    [&](OpBuilder &b3, Location l3) {
                      scf::YieldOp::create(b3, l3, withKey(b3, l3, j, st));
                    },
                    [&](OpBuilder &b3, Location l3) {
                      scf::YieldOp::create(b3, l3, st);
                    });
                scf::YieldOp::create(b2, l2, ifOp.getResults());
              });
          state.assign(extra.getResults().begin(), extra.getResults().end());
        }
        storeRow(b, l, a.elem, a.out, ValueRange{bi, hi, ii}, state,
                 a.valueDim);
      });
  return a.finish(rows);
}

/// The variant with shared memory: a workgroup of `wg` invocations takes
/// `wg` consecutive query rows of one (b, h); the keys and values those rows
/// can see are staged through workgroup memory `tk` at a time, each tile
/// loaded once, cooperatively, for all rows of the workgroup (the
/// per-row kernel reads every key and value once per query row).
///
///   for j0 in [lo(tile), hi(tile)) step tk:   uniform over the workgroup
///     barrier; K[j0 : j0 + tk], V[j0 : j0 + tk] -> shared; barrier
///     row i (if i < Lq): online update with each staged key it can see
LogicalResult fuseForGpuShared(AttentionOp op, RewriterBase &rewriter,
                               int64_t wg, int64_t tk) {
  AttentionKernel a(op, rewriter);
  KernelBuilder &kb = a.kb;
  Location loc = a.loc;
  Value c1 = kb.indexConst(1);
  Value wgSize = kb.indexConst(wg);
  Value tiles = arith::CeilDivUIOp::create(rewriter, loc, a.lq, wgSize);

  auto launch = gpu::LaunchOp::create(
      rewriter, loc, tiles, kb.indexConst(a.heads), a.qBatch, wgSize, c1, c1);
  OpBuilder b = OpBuilder::atBlockBegin(&launch.getBody().front());
  Location l = loc;
  auto cst = [&](int64_t x) {
    return arith::ConstantIndexOp::create(b, l, x).getResult();
  };
  auto fcst = [&](double x) {
    return arith::ConstantOp::create(b, l, b.getFloatAttr(a.elem, x))
        .getResult();
  };
  auto add = [&](Value x, Value y) {
    return arith::AddIOp::create(b, l, x, y).getResult();
  };
  auto mul = [&](Value x, Value y) {
    return arith::MulIOp::create(b, l, x, y).getResult();
  };
  auto ult = [&](Value x, Value y) {
    return arith::CmpIOp::create(b, l, arith::CmpIPredicate::ult, x, y)
        .getResult();
  };
  // Barriers are calls to a declaration until bufferization is done (its
  // deallocation analysis rejects ops without declared memory effects);
  // attune-map-to-gpu turns them into gpu.barrier.
  declareStandIn(op->getParentOfType<ModuleOp>(), loc, kBarrierCallee,
                 rewriter.getFunctionType({}, {}));
  auto barrier = [&](OpBuilder &bb, Location bl) {
    func::CallOp::create(bb, bl, kBarrierCallee, TypeRange{});
  };
  Value tx = launch.getThreadIds().x;
  Value tile = launch.getBlockIds().x, hi = launch.getBlockIds().y,
        bi = launch.getBlockIds().z;
  auto shared = [&](int64_t cols) {
    auto space = spirv::StorageClassAttr::get(b.getContext(),
                                              spirv::StorageClass::Workgroup);
    return memref::AllocOp::create(b, l,
                                   MemRefType::get({tk, cols}, a.elem,
                                                   MemRefLayoutAttrInterface(),
                                                   space));
  };
  Value ks = shared(a.headDim), vs = shared(a.valueDim);
  Value kvh = arith::DivUIOp::create(b, l, hi, cst(a.group));
  Value first = mul(tile, cst(wg));
  Value ii = add(first, tx);
  Value active = ult(ii, a.lq);
  Value len = a.keyLength(b, l, bi);
  // Keys of the whole tile (uniform: the barriers are in its loop), and of
  // this row.
  Value last = arith::MinUIOp::create(
      b, l, add(first, cst(wg - 1)), arith::SubIOp::create(b, l, a.lq, cst(1)));
  // The query offset is per batch row, uniform over the workgroup.
  Value offset = a.queryOffset(b, l, bi);
  auto [tileLo, tileEnd] =
      visibleKeyRange(b, l, add(first, offset), add(last, offset), a.lk,
                      len, a.causal, a.window);
  Value p = add(ii, offset);
  auto [rowLo, rowEnd] =
      visibleKeyRange(b, l, p, p, a.lk, len, a.causal, a.window);

  auto keyTiles = scf::ForOp::create(
      b, l, tileLo, tileEnd, cst(tk), initialState(b, l, a.elem, a.valueDim),
      [&](OpBuilder &b2, Location l2, Value j0, ValueRange st) {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(b2.getInsertionBlock());
        // Stage the tile: element e of the [tk, cols] tile is key j0 + e /
        // cols, zero past the tile's last visible key.
        auto stage = [&](Value src, Value dst, int64_t cols) {
          scf::ForOp::create(
              b, l, tx, cst(tk * cols), cst(wg), ValueRange{},
              [&](OpBuilder &b3, Location l3, Value e, ValueRange) {
                Value r = arith::DivUIOp::create(b3, l3, e, cst(cols));
                Value c = arith::RemUIOp::create(b3, l3, e, cst(cols));
                Value j = arith::AddIOp::create(b3, l3, j0, r);
                Value in = arith::CmpIOp::create(
                    b3, l3, arith::CmpIPredicate::ult, j, tileEnd);
                auto pick = scf::IfOp::create(
                    b3, l3, in,
                    [&](OpBuilder &b4, Location l4) {
                      scf::YieldOp::create(
                          b4, l4,
                          ValueRange{memref::LoadOp::create(
                              b4, l4, src, ValueRange{bi, kvh, j, c})});
                    },
                    [&](OpBuilder &b4, Location l4) {
                      scf::YieldOp::create(b4, l4, ValueRange{fcst(0.0)});
                    });
                memref::StoreOp::create(b3, l3, pick.getResult(0), dst,
                                        ValueRange{r, c});
                scf::YieldOp::create(b3, l3);
              });
        };
        barrier(b, l);
        stage(a.km, ks, a.headDim);
        stage(a.vm, vs, a.valueDim);
        barrier(b, l);
        Value count = arith::MinUIOp::create(
            b, l, cst(tk), arith::SubIOp::create(b, l, tileEnd, j0));
        auto rowUpdate = scf::IfOp::create(
            b, l, active,
            [&](OpBuilder &b3, Location l3) {
              auto keys = scf::ForOp::create(
                  b3, l3, cst(0), count, cst(1), st,
                  [&](OpBuilder &b4, Location l4, Value jj, ValueRange s4) {
                    Value j = arith::AddIOp::create(b4, l4, j0, jj);
                    Value sc =
                        score(b4, l4, a.elem, a.qm, a.bm,
                              ValueRange{bi, hi, ii}, j, a.headDim, a.scale,
                              [&](OpBuilder &b5, Location l5, Value d) {
                                return memref::LoadOp::create(b5, l5, ks,
                                                              ValueRange{jj, d})
                                    .getResult();
                              });
                    // Keys of the tile this row cannot see score -inf (the
                    // row's range is signed: bottom-right alignment puts
                    // rows before the first key when Lq > Lk).
                    Value vis = arith::AndIOp::create(
                        b4, l4,
                        arith::CmpIOp::create(b4, l4, arith::CmpIPredicate::sge,
                                              j, rowLo),
                        arith::CmpIOp::create(b4, l4, arith::CmpIPredicate::slt,
                                              j, rowEnd));
                    sc = arith::SelectOp::create(
                        b4, l4, vis, sc,
                        fcst(-std::numeric_limits<double>::infinity()));
                    scf::YieldOp::create(
                        b4, l4,
                        onlineUpdate(
                            b4, l4, a.elem, sc, s4, a.valueDim, [&](int64_t d) {
                              return memref::LoadOp::create(
                                         b4, l4, vs, ValueRange{jj, cst(d)})
                                  .getResult();
                            }));
                  });
              scf::YieldOp::create(b3, l3, keys.getResults());
            },
            [&](OpBuilder &b3, Location l3) {
              scf::YieldOp::create(b3, l3, st);
            });
        scf::YieldOp::create(b, l, rowUpdate.getResults());
      });
  // a.out[i] = acc / l, 0 for a row that sees no key.
  scf::IfOp::create(b, l, active, [&](OpBuilder &b2, Location l2) {
    storeRow(b2, l2, a.elem, a.out, ValueRange{bi, hi, ii},
             keyTiles.getResults(), a.valueDim);
    scf::YieldOp::create(b2, l2);
  });
  gpu::TerminatorOp::create(b, l);
  return a.finish(launch);
}

/// The variant with subgroup reductions: a workgroup of `sg` invocations (one
/// subgroup: the profile's subgroup size, which the runtime checks the
/// device reaches) takes one query row; lane t holds the head and value
/// dims d = t + sg * u (u < ceil(D / sg)), so the lanes of a row read
/// consecutive floats of each key and value row together:
///
///   for j in [lo(i), hi(i)):                  uniform over the subgroup
///     s = subgroup_add(sum_u q[d] k[j, d]) * scale (+ bias[i, j])
///     online update of (m, l) (the same in every lane) and of the lane's
///     accumulators acc[u] with v[j, d]
///   out[i, d] = acc[u] / l
///
/// Each score costs ceil(D / sg) FMAs per lane and one subgroup reduction,
/// where the per-row kernel spends D FMAs in one invocation.
LogicalResult fuseForGpuSubgroup(AttentionOp op, RewriterBase &rewriter,
                                 int64_t sg) {
  AttentionKernel a(op, rewriter);
  KernelBuilder &kb = a.kb;
  Location loc = a.loc;
  Value c1 = kb.indexConst(1);
  auto launch = gpu::LaunchOp::create(rewriter, loc, a.lq,
                                      kb.indexConst(a.heads), a.qBatch,
                                      kb.indexConst(sg), c1, c1);
  OpBuilder b = OpBuilder::atBlockBegin(&launch.getBody().front());
  Location l = loc;
  auto cst = [&](int64_t x) {
    return arith::ConstantIndexOp::create(b, l, x).getResult();
  };
  Value zero = arith::ConstantOp::create(b, l, b.getFloatAttr(a.elem, 0.0));
  // The subgroup sum is a call to a stand-in until bufferization is done
  // (its deallocation analysis rejects gpu.subgroup_reduce, which declares
  // no memory effects); attune-map-to-gpu makes it the reduction.
  declareStandIn(op->getParentOfType<ModuleOp>(), loc, kSubgroupAddCallee,
                 rewriter.getFunctionType(TypeRange{a.elem}, TypeRange{a.elem}));
  Value lane = launch.getThreadIds().x;
  Value ii = launch.getBlockIds().x, hi = launch.getBlockIds().y,
        bi = launch.getBlockIds().z;
  Value kvh = arith::DivUIOp::create(b, l, hi, cst(a.group));
  // Dim u * sg + lane of a row of `dims`: the index (clamped in range, so
  // that every lane loads) and whether it is a real one.
  auto laneDim = [&](OpBuilder &bb, int64_t u,
                     int64_t dims) -> std::pair<Value, Value> {
    Value d = arith::AddIOp::create(bb, l, lane,
                                    arith::ConstantIndexOp::create(bb, l, u * sg));
    Value last = arith::ConstantIndexOp::create(bb, l, dims - 1);
    Value in = arith::CmpIOp::create(bb, l, arith::CmpIPredicate::ult, d,
                                     arith::ConstantIndexOp::create(bb, l, dims));
    return {arith::MinUIOp::create(bb, l, d, last), in};
  };
  auto load = [&](OpBuilder &bb, Value m, ValueRange prefix, int64_t u,
                  int64_t dims) -> Value {
    auto [d, in] = laneDim(bb, u, dims);
    SmallVector<Value> idx(prefix);
    idx.push_back(d);
    Value x = memref::LoadOp::create(bb, l, m, idx);
    return arith::SelectOp::create(bb, l, in, x, zero);
  };
  int64_t perLaneD = llvm::divideCeil(a.headDim, sg);
  int64_t perLaneV = llvm::divideCeil(a.valueDim, sg);
  // The lane's part of the query row, in registers for the whole key loop.
  SmallVector<Value> q;
  for (int64_t u = 0; u < perLaneD; ++u)
    q.push_back(load(b, a.qm, ValueRange{bi, hi, ii}, u, a.headDim));
  Value p = arith::AddIOp::create(b, l, ii, a.queryOffset(b, l, bi));
  Value len = a.keyLength(b, l, bi);
  auto [lo, end] = visibleKeyRange(b, l, p, p, a.lk, len, a.causal, a.window);
  auto keys = scf::ForOp::create(
      b, l, lo, end, cst(1), initialState(b, l, a.elem, perLaneV),
      [&](OpBuilder &b2, Location l2, Value j, ValueRange st) {
        Value part = zero;
        for (int64_t u = 0; u < perLaneD; ++u)
          part = math::FmaOp::create(
              b2, l2, q[u], load(b2, a.km, ValueRange{bi, kvh, j}, u, a.headDim),
              part);
        Value s = func::CallOp::create(b2, l2, kSubgroupAddCallee,
                                       TypeRange{a.elem}, ValueRange{part})
                      .getResult(0);
        s = arith::MulFOp::create(b2, l2, s, a.scale);
        s = addBias(b2, l2, s, a.bm, ValueRange{bi, hi, ii}, j);
        scf::YieldOp::create(
            b2, l2,
            onlineUpdate(b2, l2, a.elem, s, st, perLaneV, [&](int64_t u) {
              return load(b2, a.vm, ValueRange{bi, kvh, j}, u, a.valueDim);
            }));
      });
  // out[i, d] = acc / l, 0 for a row that sees no key; each lane its dims.
  Value one = arith::ConstantOp::create(b, l, b.getFloatAttr(a.elem, 1.0));
  Value none = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OEQ,
                                     keys.getResult(1), zero);
  Value inv = arith::DivFOp::create(b, l, one, keys.getResult(1));
  for (int64_t u = 0; u < perLaneV; ++u) {
    std::pair<Value, Value> dim = laneDim(b, u, a.valueDim);
    Value o = arith::MulFOp::create(b, l, keys.getResult(2 + u), inv);
    o = arith::SelectOp::create(b, l, none, zero, o);
    scf::IfOp::create(b, l, dim.second, [&](OpBuilder &b2, Location l2) {
      memref::StoreOp::create(b2, l2, o, a.out,
                              ValueRange{bi, hi, ii, dim.first});
      scf::YieldOp::create(b2, l2);
    });
  }
  gpu::TerminatorOp::create(b, l);
  return a.finish(launch);
}

/// Head dims up to this many keep the running sums in registers.
constexpr int64_t kMaxLinearHeadDim = 128;

/// Causal attune.linear_attention as one kernel: an invocation per output
/// column (b, h, e) runs over the positions in order with the column's
/// running sums s[d] = sum_{j <= i} phi(k_j)[d] v[j, e] and z[d] =
/// sum_{j <= i} phi(k_j)[d] in registers:
///   out[i, e] = phi(q_i) . s / (phi(q_i) . z + eps)
/// 4 D flops per position and column, the least the recurrence needs (the
/// chunked form's masked blocks and its ~14 kernels per chunk ran 30x
/// slower on lavapipe). phi(q) and phi(k) are computed once before it.
/// With a state, the sums start from it and the new state is written by the
/// first query head of each key head (and z by column 0).
LogicalResult fuseLinearForGpu(LinearAttentionOp op, RewriterBase &rewriter) {
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  KernelBuilder kb(rewriter, loc);
  Value q = op.getQuery(), k = op.getKey(), v = op.getValue();
  Value lengths = op.getKeyLengths();
  ValueRange state = op.getState();
  auto qType = op.getQuery().getType();
  Type elem = qType.getElementType();
  int64_t heads = qType.getDimSize(1), headDim = qType.getDimSize(3);
  int64_t kvHeads = op.getKey().getType().getDimSize(1);
  int64_t group = heads / kvHeads;
  int64_t valueDim = op.getValue().getType().getDimSize(3);
  double eps = op.getEps().convertToDouble();

  assertLinearAttentionExtents(rewriter, loc, q, k, v, lengths, state,
                               /*causal=*/true);
  auto [fq, fk] = linearAttentionFeatures(kb, q, k, lengths);
  Value qBatch = kb.dim(q, 0), lq = kb.dim(q, 2);
  Value fqm = toBuffer(rewriter, loc, fq), fkm = toBuffer(rewriter, loc, fk),
        vm = toBuffer(rewriter, loc, v);
  Value kvm = state.empty() ? Value() : toBuffer(rewriter, loc, state[0]);
  Value zm = state.empty() ? Value() : toBuffer(rewriter, loc, state[1]);
  auto outType = MemRefType::get(
      {ShapedType::kDynamic, heads, ShapedType::kDynamic, valueDim}, elem);
  Value out =
      memref::AllocOp::create(rewriter, loc, outType, ValueRange{qBatch, lq});
  MemRefType kvType, zType;
  Value kvOut, zOut;
  if (!state.empty()) {
    kvType = MemRefType::get({ShapedType::kDynamic, kvHeads, headDim, valueDim},
                             elem);
    zType = MemRefType::get({ShapedType::kDynamic, kvHeads, headDim}, elem);
    kvOut = memref::AllocOp::create(rewriter, loc, kvType, ValueRange{qBatch});
    zOut = memref::AllocOp::create(rewriter, loc, zType, ValueRange{qBatch});
  }
  Value c0 = kb.indexConst(0), c1 = kb.indexConst(1);
  auto columns = scf::ParallelOp::create(
      rewriter, loc, ValueRange{c0, c0, c0},
      ValueRange{qBatch, kb.indexConst(heads), kb.indexConst(valueDim)},
      ValueRange{c1, c1, c1}, [&](OpBuilder &b, Location l, ValueRange ivs) {
        Value bi = ivs[0], hi = ivs[1], e = ivs[2];
        auto cst = [&](int64_t x) {
          return arith::ConstantIndexOp::create(b, l, x).getResult();
        };
        Value kvh = arith::DivUIOp::create(b, l, hi, cst(group));
        Value zero = arith::ConstantOp::create(b, l, b.getFloatAttr(elem, 0.0));
        SmallVector<Value> init;
        for (int64_t d = 0; d < headDim; ++d)
          init.push_back(kvm ? memref::LoadOp::create(
                                   b, l, kvm, ValueRange{bi, kvh, cst(d), e})
                                   .getResult()
                             : zero);
        for (int64_t d = 0; d < headDim; ++d)
          init.push_back(
              zm ? memref::LoadOp::create(b, l, zm, ValueRange{bi, kvh, cst(d)})
                       .getResult()
                 : zero);
        auto positions = scf::ForOp::create(
            b, l, c0, lq, c1, init,
            [&](OpBuilder &b2, Location l2, Value i, ValueRange sums) {
              Value ve =
                  memref::LoadOp::create(b2, l2, vm, ValueRange{bi, kvh, i, e});
              SmallVector<Value> next(sums.begin(), sums.end());
              Value num, den;
              for (int64_t d = 0; d < headDim; ++d) {
                Value dd = arith::ConstantIndexOp::create(b2, l2, d);
                Value f = memref::LoadOp::create(b2, l2, fkm,
                                                 ValueRange{bi, kvh, i, dd});
                next[d] = math::FmaOp::create(b2, l2, f, ve, sums[d]);
                next[headDim + d] =
                    arith::AddFOp::create(b2, l2, sums[headDim + d], f);
                Value g = memref::LoadOp::create(b2, l2, fqm,
                                                 ValueRange{bi, hi, i, dd});
                num =
                    num ? math::FmaOp::create(b2, l2, g, next[d], num)
                              .getResult()
                        : arith::MulFOp::create(b2, l2, g, next[d]).getResult();
                den =
                    den ? math::FmaOp::create(b2, l2, g, next[headDim + d], den)
                              .getResult()
                        : arith::MulFOp::create(b2, l2, g, next[headDim + d])
                              .getResult();
              }
              memref::StoreOp::create(
                  b2, l2, linearAttentionQuotient(b2, l2, num, den, eps), out,
                  ValueRange{bi, hi, i, e});
              scf::YieldOp::create(b2, l2, next);
            });
        if (!kvOut)
          return;
        Value first = arith::CmpIOp::create(
            b, l, arith::CmpIPredicate::eq,
            arith::RemUIOp::create(b, l, hi, cst(group)), cst(0));
        scf::IfOp::create(b, l, first, [&](OpBuilder &b2, Location l2) {
          for (int64_t d = 0; d < headDim; ++d)
            memref::StoreOp::create(b2, l2, positions.getResult(d), kvOut,
                                    ValueRange{bi, kvh, cst(d), e});
          Value column0 = arith::CmpIOp::create(
              b2, l2, arith::CmpIPredicate::eq, e, cst(0));
          scf::IfOp::create(b2, l2, column0, [&](OpBuilder &b3, Location l3) {
            for (int64_t d = 0; d < headDim; ++d)
              memref::StoreOp::create(b3, l3, positions.getResult(headDim + d),
                                      zOut, ValueRange{bi, kvh, cst(d)});
            scf::YieldOp::create(b3, l3);
          });
          scf::YieldOp::create(b2, l2);
        });
      });
  rewriter.setInsertionPointAfter(columns);
  auto asTensor = [&](Value m, MemRefType t) -> Value {
    return bufferization::ToTensorOp::create(
        rewriter, loc, RankedTensorType::get(t.getShape(), elem), m,
        /*restrict=*/true, /*writable=*/true);
  };
  SmallVector<Value> results = {asTensor(out, outType)};
  if (kvOut)
    results.append({asTensor(kvOut, kvType), asTensor(zOut, zType)});
  replaceWithCast(rewriter, op, results);
  return success();
}

struct AttuneGpuAttentionPass
    : mlir::attune::impl::AttuneGpuAttentionBase<AttuneGpuAttentionPass> {
  using Base::Base;
  void runOnOperation() override {
    SmallVector<AttentionOp> ops;
    getOperation()->walk([&](AttentionOp op) {
      if (op.getSelection() != Selection::soft || op.getReturnWeights() ||
          (op.getGlobalIndices() && op.getBias()) ||
          op.getValue().getType().getDimSize(3) > kMaxValueDim ||
          !op.getQuery().getType().getElementType().isF32())
        return;
      ops.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    SmallVector<LinearAttentionOp> linearOps;
    getOperation()->walk([&](LinearAttentionOp op) {
      if (op.getCausal() && op.getQuery().getType().getElementType().isF32() &&
          op.getQuery().getType().getDimSize(3) <= kMaxLinearHeadDim)
        linearOps.push_back(op);
    });
    for (LinearAttentionOp op : linearOps)
      if (failed(fuseLinearForGpu(op, rewriter)))
        return signalPassFailure();
    for (AttentionOp op : ops) {
      // Key and value tiles in shared memory when the profile has room for
      // at least 8 keys; else one invocation per row reading global memory.
      int64_t rowBytes = 4 * (op.getQuery().getType().getDimSize(3) +
                              op.getValue().getType().getDimSize(3));
      int64_t tk = std::min<int64_t>(32, sharedMemoryBytes / rowBytes);
      // With subgroup operations (the profile's subgroup size, 2 or more):
      // a subgroup per query row.
      // Global tokens and sparse layouts: the per-row kernel (rows see
      // different key sets).
      LogicalResult done =
          op.getGlobalIndices() || op.getSparse() || op.getDilation()
              ? fuseForGpu(op, rewriter)
          : subgroupSize >= 2 ? fuseForGpuSubgroup(op, rewriter, subgroupSize)
          : tk >= 8 && workgroupSize >= 1
              ? fuseForGpuShared(op, rewriter, workgroupSize, tk)
              : fuseForGpu(op, rewriter);
      if (failed(done))
        return signalPassFailure();
    }
  }
};

} // namespace
