//===- KernelBuilder.h - linalg-on-tensors building blocks ------*- C++ -*-===//
//
// Small helpers shared by the attune -> linalg patterns: empty and filled
// tensors with dynamic sizes taken from operands, NumPy-broadcast indexing
// maps, elementwise and reduction `linalg.generic`s, and a numerically stable
// softmax.
//
//===----------------------------------------------------------------------===//

#ifndef ATTUNE_LOWERING_ATTUNETOLINALG_KERNELBUILDER_H
#define ATTUNE_LOWERING_ATTUNETOLINALG_KERNELBUILDER_H

#include "dialect/AttuneOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/PatternMatch.h"

#include <string>

namespace mlir::attune {

// The marks on the kernels for the CPU code generation: dialect/Markers.h.

/// The body of a generic: block arguments (inputs then outputs) in `args`.
using BodyFn = function_ref<void(OpBuilder &, Location, ValueRange args)>;

class KernelBuilder {
public:
  KernelBuilder(OpBuilder &b, Location loc) : b(b), loc(loc) {}

  OpBuilder &builder() { return b; }
  Location location() { return loc; }

  /// Sizes of `t`, static ones as attributes and dynamic ones as tensor.dim.
  SmallVector<OpFoldResult> sizes(Value t);
  /// Index value of dim `d` of `t`.
  Value dim(Value t, int64_t d);

  Value empty(ArrayRef<OpFoldResult> sizes, Type elementType);
  Value filled(ArrayRef<OpFoldResult> sizes, Type elementType, double value);
  Value floatConst(Type type, double value);
  Value indexConst(int64_t value);

  /// Sizes of a result of type `type` whose dynamic dims are found in the
  /// (broadcast-aligned) operands: the first operand with a dynamic extent at
  /// that position supplies it.
  SmallVector<OpFoldResult> broadcastSizes(RankedTensorType type,
                                           ValueRange operands);

  /// Indexing map reading a value of shape `in` inside a loop nest over
  /// `outShape` with NumPy broadcasting (static 1 extents read index 0).
  AffineMap broadcastMap(ArrayRef<int64_t> in, ArrayRef<int64_t> outShape);

  /// An elementwise generic producing `type` from broadcast-aligned `inputs`.
  Value elementwise(RankedTensorType type, ValueRange inputs, BodyFn body);

  /// A generic with explicit maps: one output `init` (last map).
  Value generic(ValueRange inputs, Value init, ArrayRef<AffineMap> maps,
                ArrayRef<utils::IteratorType> iterators, BodyFn body);

  /// The static extent among `dims` (value, dim) if any, else the first's
  /// tensor.dim: the extent of a result whose operands must agree.
  OpFoldResult staticOrDim(ArrayRef<std::pair<Value, int64_t>> dims);

  /// `act(x W^T + b)` over the last dim of `x` (`attune.linear`): a
  /// contraction generic whose accumulator starts as the broadcast bias (or
  /// zero), then the activation, if any, as an element-wise generic.
  Value linear(Value x, Value w, Value bias,
               std::optional<Activation> act = std::nullopt);
  /// The rank 2-3 case: a `[B, M, K] x [K, N]` contraction with the weight
  /// transposed (at compile time for constants), marked with `kGemmAttr` for
  /// `--attune-tile-gemm`, and its activation marked with `kEpilogueAttr`.
  Value gemmLinear(Value x, Value w, Value bias,
                   std::optional<Activation> act);

  /// Numerically stable softmax of `input` along `axis`. A slice that is all
  /// -inf gives zeros.
  Value softmax(Value input, int64_t axis);

  /// The body of a contraction generic: `acc + lhs * rhs`.
  static void multiplyAccumulate(OpBuilder &b, Location loc, ValueRange args);

  /// Whether key `j` is visible to query `i` under the attention masks (see
  /// the `attune.attention` description); `len` is this batch element's key
  /// length or null, `queryOffset` its `query_offsets` entry or null (then
  /// `align` places the queries). All values are `index`; the result is i1.
  /// `window` is the window's span (AttentionOp::getWindowSpan: the
  /// window itself without dilation); with `dilation` d > 1 only keys a
  /// multiple of d away are in it. With a sparse layout, also the layout's
  /// condition in query head `head` (needed only by a `split` layout).
  static Value visible(OpBuilder &b, Location loc, Value i, Value j, Value lq,
                       Value lk, bool causal, MaskAlign align,
                       std::optional<int64_t> window, Value len,
                       Value queryOffset = Value(),
                       SparseLayoutAttr sparse = {}, Value head = Value(),
                       int64_t dilation = 1);

  /// Whether `sparse` lets query block `qBlock` see key block `kBlock` in
  /// query head `head` (see `#attune.sparse`; index values, result i1).
  static Value layoutVisible(OpBuilder &b, Location loc,
                             SparseLayoutAttr sparse, Value qBlock,
                             Value kBlock, Value head);

  /// The exp shift of a running or final row maximum: `m`, or 0 for a row
  /// with no visible entry (m = -inf), so that exp gives 0 rather than NaN.
  /// `vis` (the mask without global tokens) widened by attune.attention's
  /// global tokens: also visible where the causal and key-length conditions
  /// hold and the key or the query is a global token (`keyGlobal`,
  /// `queryGlobal`: i32, non-zero for a global token).
  static Value visibleWithGlobals(OpBuilder &b, Location loc, Value vis,
                                  Value i, Value j, Value lq, Value lk,
                                  bool causal, MaskAlign align, Value len,
                                  Value offset, Value keyGlobal,
                                  Value queryGlobal);
  /// The flag (i32) of query i's position (placed as visible() does) in
  /// `flags [B, Lk]` at batch `batch`; 0 for a position outside the keys.
  static Value queryGlobalFlag(OpBuilder &b, Location loc, Value flags,
                               Value batch, Value i, Value lq, Value lk,
                               MaskAlign align, Value offset);

  static Value maxShift(OpBuilder &b, Location loc, Value m);

  /// exp(x) for x <= 0 (also -inf and NaN) as 2^(x log2(e)): n = round of
  /// the exponent, a degree-6 minimax polynomial of 2^f on |f| <= 1/2 and
  /// 2^n built in the exponent bits; within 1.1 ulp of exp, exactly 0 below
  /// 2^-127 (-inf included), NaN for NaN. Accurate for x <= 88; f32 only
  /// (other types: math.exp).
  static Value expNonPositive(OpBuilder &b, Location loc, Value x);
  /// A softmax's exp(x - m) for x <= m, m the row's maximum (-inf: a row
  /// with nothing visible yet, taken as 0): 2^(x log2(e) - M) with one
  /// rounding of the exponent, M = m log2(e) rounded once per row. Two
  /// FMAs fewer per element than exp(x - m) through expNonPositive.
  static Value expMinusMax(OpBuilder &b, Location loc, Value x, Value m);
  /// The online softmax's correction exp(mOld - mNew) for mNew >= mOld,
  /// consistent with expMinusMax: expMinusMax(x, mOld) *
  /// expMaxCorrection(mOld, mNew) = expMinusMax(x, mNew) up to rounding
  /// of the product.
  static Value expMaxCorrection(OpBuilder &b, Location loc, Value mOld,
                                Value mNew);

  /// `table[row, col]` for a row index that may lie outside [0, rows): such
  /// rows read row 0 and give 0 instead of reading out of bounds.
  static Value guardedRow(OpBuilder &b, Location loc, Value table, Value row,
                          Value col, int64_t rows);

  /// Scalar math for generic bodies: they take the body's builder.
  /// `x` converted to the float type `to` (see `attune.cast`): extf,
  /// truncf (to nearest even), sitofp, or uitofp for i1; `x` itself when
  /// the types match.
  static Value convert(OpBuilder &b, Location loc, Value x, Type to);
  static Value sigmoid(OpBuilder &b, Location loc, Value x);
  static Value activation(OpBuilder &b, Location loc, Activation kind,
                          Value x);

private:
  OpBuilder &b;
  Location loc;
};

/// The message of a failed run-time check: "file:line:col: <text>" (the
/// location as far as it is known).
std::string runtimeCheckMessage(Location loc, StringRef text);

/// flags[b, j] (i32 0 or 1, [B, Lk]: Vulkan buffers hold no booleans): key
/// position j is one of `globals[b, :]`.
Value globalTokenFlags(KernelBuilder &kb, Value globals, Value lk);

/// The message of a failed run-time shape check: "file:line:col: input
/// shapes disagree: <reason>".
std::string shapeCheckMessage(Location loc, StringRef reason);

/// Asserts at run time that two extents (index values) are equal.
void assertEqualExtents(OpBuilder &b, Location loc, Value a, Value c,
                        StringRef reason);

/// Asserts at run time the extents every loop-based attention lowering
/// relies on: keys, values and key lengths share the queries' batch, values
/// the keys' length, and a bias broadcasts to [B, H, Lq, Lk].
void assertAttentionExtents(OpBuilder &b, Location loc, Value q, Value k,
                            Value v, Value lengths, Value bias);

/// The keys [lo, hi) that queries at (alignment-adjusted) positions
/// first..last may see: cut by the key length and padding length `len` (may
/// be null), causality and a sliding window. One query: first == last.
std::pair<Value, Value> visibleKeyRange(OpBuilder &b, Location loc,
                                        Value first, Value last, Value lk,
                                        Value len, bool causal,
                                        std::optional<int64_t> window);

/// floor(x / c) (index values) for a constant c >= 1 and any sign of x, in
/// ops every target converts (SPIR-V has no arith.floordivsi): x / c
/// rounded toward zero, less 1 where a negative x leaves a remainder.
Value floorDiv(OpBuilder &b, Location loc, Value x, int64_t c);

/// Whether `sparse` lets any query at positions [pFirst, pLast] see any key
/// in [jFirst, jLast] in head `head` (i1): the block pairs the two ranges
/// cover, tested one by one until one is visible. `single` is set to
/// whether the ranges lie in one block pair (then the answer holds for
/// every pair of the two ranges).
Value layoutRangeVisible(OpBuilder &b, Location loc, SparseLayoutAttr sparse,
                         Value pFirst, Value pLast, Value jFirst, Value jLast,
                         Value head, Value *single = nullptr);

/// Replaces `op` by `values`, casting where a value's type is less static
/// than the op's result type (a refined extent stays refined).
void replaceWithCast(RewriterBase &rewriter, Operation *op, ValueRange values);

} // namespace mlir::attune

#endif // ATTUNE_LOWERING_ATTUNETOLINALG_KERNELBUILDER_H
