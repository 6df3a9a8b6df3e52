//===- Decompose.cpp - composite attune ops -> primitive attune ops -------===//
//
// Each composite op is rewritten with the exact PyTorch semantics documented
// on the op. Multi-head attention is the building block of the encoder and
// decoder layers, so all three share `buildMultiHeadAttention`.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::attune {
#define GEN_PASS_DEF_ATTUNEDECOMPOSE
#include "passes/Passes.h.inc"
} // namespace mlir::attune

using namespace mlir;
using namespace mlir::attune;

namespace {

/// Creates primitive ops at one location with inferred result types.
class PrimitiveBuilder {
public:
  PrimitiveBuilder(OpBuilder &b, Location loc) : b(b), loc(loc) {}

  Value linear(Value x, Value w, Value bias = {}) {
    return LinearOp::create(b, loc, x, w, bias, /*activation=*/nullptr);
  }
  Value slice(Value x, int64_t axis, int64_t offset, int64_t size) {
    if (!x)
      return x;
    return SliceOp::create(b, loc, x, axis, offset, size);
  }
  Value add(Value l, Value r) { return AddOp::create(b, loc, l, r); }
  Value activation(Activation kind, Value x) {
    return ActivationOp::create(b, loc, kind, x);
  }
  Value layerNorm(Value x, Value w, Value bias, APFloat eps) {
    return LayerNormOp::create(b, loc, x, /*residual=*/Value(), w, bias, eps);
  }
  Value splitHeads(Value x, int64_t heads) {
    return SplitHeadsOp::create(b, loc, x, heads);
  }
  Value mergeHeads(Value x) { return MergeHeadsOp::create(b, loc, x); }
  Value matmul(Value l, Value r, bool transposeRhs = false) {
    return MatmulOp::create(b, loc, l, r, /*transpose_lhs=*/false,
                            transposeRhs);
  }
  Value expandDims(Value x, int64_t axis) {
    return ExpandDimsOp::create(b, loc, x, axis);
  }
  Value squeeze(Value x, int64_t axis) {
    return SqueezeOp::create(b, loc, x, axis);
  }
  Value softmax(Value x, int64_t axis) {
    return SoftmaxOp::create(b, loc, x, axis);
  }
  Value mask(Value x, Value keyLengths) {
    return MaskOp::create(b, loc, x, keyLengths, /*causal=*/false,
                          MaskAlign::top_left, IntegerAttr());
  }
  Value feedForward(Value x, Value w1, Value b1, Activation act, Value w2,
                    Value b2) {
    return linear(activation(act, linear(x, w1, b1)), w2, b2);
  }
  /// Soft scaled-dot attention with the given masks.
  Value attention(Value q, Value k, Value v, Value keyLengths, Value bias,
                  bool causal, MaskAlign align, IntegerAttr window) {
    return AttentionOp::create(b, loc, q, k, v, keyLengths, Value(), bias,
                               Value(), ScoreKind::scaled_dot, FloatAttr(),
                               Selection::soft, /*return_weights=*/false,
                               causal, align, window, SparseLayoutAttr(),
                               IntegerAttr())
        .getResult();
  }

private:
  OpBuilder &b;
  Location loc;
};

static int64_t lastDim(Value v) {
  return cast<RankedTensorType>(v.getType()).getShape().back();
}

/// Everything `torch.nn.MultiheadAttention.forward` needs at inference.
struct MultiHeadAttentionParts {
  Value query, key, value;
  Value inProjWeight, qProjWeight, kProjWeight, vProjWeight, inProjBias;
  Value outProjWeight, outProjBias;
  Value keyLengths, bias;
  int64_t numHeads = 1, numKvHeads = 1;
  bool causal = false;
  MaskAlign align = MaskAlign::top_left;
  IntegerAttr window;
};

static Value buildMultiHeadAttention(PrimitiveBuilder &pb,
                                     const MultiHeadAttentionParts &p) {
  int64_t embed = lastDim(p.query);
  int64_t kvDim = p.numKvHeads * (embed / p.numHeads);
  // Rows of the packed projection: [0, E) for Q, then K, then V.
  int64_t kOff = embed, vOff = embed + kvDim;
  // x W^T + b with the bias rows [offset, offset + rows) of in_proj_bias. The
  // weight is created by the caller first, so the IR order does not depend on
  // the evaluation order of C++ arguments.
  auto projection = [&](Value x, Value w, int64_t offset, int64_t rows) {
    Value bias = pb.slice(p.inProjBias, 0, offset, rows);
    return pb.linear(x, w, bias);
  };
  Value q, k, v;
  if (p.inProjWeight && p.query == p.key && p.key == p.value) {
    // Self-attention: one GEMM produces Q, K and V.
    Value qkv = pb.linear(p.query, p.inProjWeight, p.inProjBias);
    q = pb.slice(qkv, -1, 0, embed);
    k = pb.slice(qkv, -1, kOff, kvDim);
    v = pb.slice(qkv, -1, vOff, kvDim);
  } else if (p.inProjWeight && p.key == p.value) {
    // Cross-attention over one memory: K and V share one GEMM.
    q = projection(p.query, pb.slice(p.inProjWeight, 0, 0, embed), 0, embed);
    Value kv = projection(p.key, pb.slice(p.inProjWeight, 0, kOff, 2 * kvDim),
                          kOff, 2 * kvDim);
    k = pb.slice(kv, -1, 0, kvDim);
    v = pb.slice(kv, -1, kvDim, kvDim);
  } else {
    auto weight = [&](Value separate, int64_t offset, int64_t rows) {
      return separate ? separate : pb.slice(p.inProjWeight, 0, offset, rows);
    };
    q = projection(p.query, weight(p.qProjWeight, 0, embed), 0, embed);
    k = projection(p.key, weight(p.kProjWeight, kOff, kvDim), kOff, kvDim);
    v = projection(p.value, weight(p.vProjWeight, vOff, kvDim), vOff, kvDim);
  }
  Value qh = pb.splitHeads(q, p.numHeads);
  Value kh = pb.splitHeads(k, p.numKvHeads);
  Value vh = pb.splitHeads(v, p.numKvHeads);
  Value heads = pb.attention(qh, kh, vh, p.keyLengths, p.bias, p.causal,
                             p.align, p.window);
  return pb.linear(pb.mergeHeads(heads), p.outProjWeight, p.outProjBias);
}

/// Self-attention of a transformer layer: packed weights, no GQA.
static Value buildSelfAttention(PrimitiveBuilder &pb, Value x, Value inW,
                                Value inB, Value outW, Value outB,
                                Value keyLengths, int64_t heads, bool causal) {
  MultiHeadAttentionParts p;
  p.query = p.key = p.value = x;
  p.inProjWeight = inW;
  p.inProjBias = inB;
  p.outProjWeight = outW;
  p.outProjBias = outB;
  p.keyLengths = keyLengths;
  p.numHeads = p.numKvHeads = heads;
  p.causal = causal;
  return buildMultiHeadAttention(pb, p);
}

/// The feed-forward block of an encoder or decoder layer.
template <typename LayerOp>
static Value buildLayerFeedForward(PrimitiveBuilder &pb, LayerOp op, Value x) {
  return pb.feedForward(x, op.getLinear1Weight(), op.getLinear1Bias(),
                        op.getActivation(), op.getLinear2Weight(),
                        op.getLinear2Bias());
}

//===----------------------------------------------------------------------===//
// Patterns
//===----------------------------------------------------------------------===//

struct DecomposeMultiHeadAttention
    : OpRewritePattern<MultiHeadAttentionOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MultiHeadAttentionOp op,
                                PatternRewriter &rewriter) const override {
    PrimitiveBuilder pb(rewriter, op.getLoc());
    MultiHeadAttentionParts p;
    p.query = op.getQuery();
    p.key = op.getKey();
    p.value = op.getValue();
    p.inProjWeight = op.getInProjWeight();
    p.qProjWeight = op.getQProjWeight();
    p.kProjWeight = op.getKProjWeight();
    p.vProjWeight = op.getVProjWeight();
    p.inProjBias = op.getInProjBias();
    p.outProjWeight = op.getOutProjWeight();
    p.outProjBias = op.getOutProjBias();
    p.keyLengths = op.getKeyLengths();
    p.bias = op.getBias();
    p.numHeads = static_cast<int64_t>(op.getNumHeads());
    p.numKvHeads = op.getNumKvHeadsOrDefault();
    p.causal = op.getCausal();
    p.align = op.getAlign();
    p.window = op.getWindowAttr();
    rewriter.replaceOp(op, buildMultiHeadAttention(pb, p));
    return success();
  }
};

struct DecomposeFeedForward : OpRewritePattern<FeedForwardOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(FeedForwardOp op,
                                PatternRewriter &rewriter) const override {
    PrimitiveBuilder pb(rewriter, op.getLoc());
    rewriter.replaceOp(op, pb.feedForward(op.getInput(), op.getWeight1(),
                                          op.getBias1(), op.getActivation(),
                                          op.getWeight2(), op.getBias2()));
    return success();
  }
};

struct DecomposeEncoderLayer : OpRewritePattern<EncoderLayerOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(EncoderLayerOp op,
                                PatternRewriter &rewriter) const override {
    PrimitiveBuilder pb(rewriter, op.getLoc());
    APFloat eps = op.getEpsilon();
    int64_t heads = static_cast<int64_t>(op.getNumHeads());
    auto selfAttention = [&](Value x) {
      return buildSelfAttention(pb, x, op.getInProjWeight(),
                                op.getInProjBias(), op.getOutProjWeight(),
                                op.getOutProjBias(), op.getKeyLengths(), heads,
                                op.getCausal());
    };
    auto feedForward = [&](Value x) { return buildLayerFeedForward(pb, op, x); };
    auto norm1 = [&](Value x) {
      return pb.layerNorm(x, op.getNorm1Weight(), op.getNorm1Bias(), eps);
    };
    auto norm2 = [&](Value x) {
      return pb.layerNorm(x, op.getNorm2Weight(), op.getNorm2Bias(), eps);
    };
    Value x = op.getSrc();
    if (op.getNormFirst()) {
      x = pb.add(x, selfAttention(norm1(x)));
      x = pb.add(x, feedForward(norm2(x)));
    } else {
      x = norm1(pb.add(x, selfAttention(x)));
      x = norm2(pb.add(x, feedForward(x)));
    }
    rewriter.replaceOp(op, x);
    return success();
  }
};

struct DecomposeDecoderLayer : OpRewritePattern<DecoderLayerOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(DecoderLayerOp op,
                                PatternRewriter &rewriter) const override {
    PrimitiveBuilder pb(rewriter, op.getLoc());
    APFloat eps = op.getEpsilon();
    int64_t heads = static_cast<int64_t>(op.getNumHeads());
    Value memory = op.getMemory();
    auto selfAttention = [&](Value x) {
      return buildSelfAttention(pb, x, op.getSaInProjWeight(),
                                op.getSaInProjBias(), op.getSaOutProjWeight(),
                                op.getSaOutProjBias(), op.getTgtKeyLengths(),
                                heads, op.getCausal());
    };
    auto crossAttention = [&](Value x) {
      MultiHeadAttentionParts p;
      p.query = x;
      p.key = p.value = memory;
      p.inProjWeight = op.getCaInProjWeight();
      p.inProjBias = op.getCaInProjBias();
      p.outProjWeight = op.getCaOutProjWeight();
      p.outProjBias = op.getCaOutProjBias();
      p.keyLengths = op.getMemoryKeyLengths();
      p.numHeads = p.numKvHeads = heads;
      return buildMultiHeadAttention(pb, p);
    };
    auto feedForward = [&](Value x) { return buildLayerFeedForward(pb, op, x); };
    auto norm = [&](Value x, Value w, Value b) {
      return pb.layerNorm(x, w, b, eps);
    };
    Value x = op.getTgt();
    if (op.getNormFirst()) {
      x = pb.add(x, selfAttention(
                        norm(x, op.getNorm1Weight(), op.getNorm1Bias())));
      x = pb.add(x, crossAttention(
                        norm(x, op.getNorm2Weight(), op.getNorm2Bias())));
      x = pb.add(x, feedForward(
                        norm(x, op.getNorm3Weight(), op.getNorm3Bias())));
    } else {
      x = norm(pb.add(x, selfAttention(x)), op.getNorm1Weight(),
               op.getNorm1Bias());
      x = norm(pb.add(x, crossAttention(x)), op.getNorm2Weight(),
               op.getNorm2Bias());
      x = norm(pb.add(x, feedForward(x)), op.getNorm3Weight(),
               op.getNorm3Bias());
    }
    rewriter.replaceOp(op, x);
    return success();
  }
};

struct DecomposeSeq2SeqAttention : OpRewritePattern<Seq2SeqAttentionOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(Seq2SeqAttentionOp op,
                                PatternRewriter &rewriter) const override {
    PrimitiveBuilder pb(rewriter, op.getLoc());
    Value query = op.getQuery(), keys = op.getKeys();
    ValueRange w = op.getWeights();
    Value scores; // [B, Lq, Lk]
    switch (op.getScore()) {
    case Seq2SeqScore::dot:
      scores = pb.matmul(query, keys, /*transposeRhs=*/true);
      break;
    case Seq2SeqScore::general:
      // q^T W k = q . (W k): project the keys into the query space.
      scores = pb.matmul(query, pb.linear(keys, w[0]), /*transposeRhs=*/true);
      break;
    case Seq2SeqScore::additive: {
      Value pq = pb.linear(query, w[0], w.size() == 4 ? w[3] : Value());
      Value pk = pb.linear(keys, w[1]);
      // [B, Lq, 1, A] + [B, 1, Lk, A] -> [B, Lq, Lk, A].
      Value eq = pb.expandDims(pq, 2);
      Value ek = pb.expandDims(pk, 1);
      Value e = pb.activation(Activation::tanh, pb.add(eq, ek));
      scores = pb.squeeze(pb.linear(e, w[2]), -1);
      break;
    }
    case Seq2SeqScore::location:
      scores = pb.linear(query, w[0], w.size() == 2 ? w[1] : Value());
      break;
    }
    if (op.getKeyLengths())
      scores = pb.mask(scores, op.getKeyLengths());
    Value weights = pb.softmax(scores, -1);
    Value context = pb.matmul(weights, op.getValues());
    SmallVector<Value> results = {context};
    if (op.getReturnWeights())
      results.push_back(weights);
    rewriter.replaceOp(op, results);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Pass
//===----------------------------------------------------------------------===//

struct AttuneDecomposePass
    : mlir::attune::impl::AttuneDecomposeBase<AttuneDecomposePass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateAttuneDecomposePatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
    // Every pattern applies unconditionally, so anything left is a bug.
    WalkResult left = getOperation()->walk([](Operation *op) {
      if (isa<MultiHeadAttentionOp, FeedForwardOp, EncoderLayerOp,
              DecoderLayerOp, Seq2SeqAttentionOp>(op)) {
        op->emitOpError("was not decomposed");
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (left.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace

void mlir::attune::populateDecomposeMultiHeadAttentionPatterns(
    RewritePatternSet &patterns) {
  patterns.add<DecomposeMultiHeadAttention>(patterns.getContext());
}
void mlir::attune::populateDecomposeFeedForwardPatterns(
    RewritePatternSet &patterns) {
  patterns.add<DecomposeFeedForward>(patterns.getContext());
}
void mlir::attune::populateDecomposeEncoderLayerPatterns(
    RewritePatternSet &patterns) {
  patterns.add<DecomposeEncoderLayer>(patterns.getContext());
}
void mlir::attune::populateDecomposeDecoderLayerPatterns(
    RewritePatternSet &patterns) {
  patterns.add<DecomposeDecoderLayer>(patterns.getContext());
}
void mlir::attune::populateDecomposeSeq2SeqAttentionPatterns(
    RewritePatternSet &patterns) {
  patterns.add<DecomposeSeq2SeqAttention>(patterns.getContext());
}
void mlir::attune::populateAttuneDecomposePatterns(
    RewritePatternSet &patterns) {
  populateDecomposeMultiHeadAttentionPatterns(patterns);
  populateDecomposeFeedForwardPatterns(patterns);
  populateDecomposeEncoderLayerPatterns(patterns);
  populateDecomposeDecoderLayerPatterns(patterns);
  populateDecomposeSeq2SeqAttentionPatterns(patterns);
}
