//===- CpuKernels.h - building blocks of the CPU kernel passes --*- C++ -*-===//
//
// What the CPU kernel passes (attune-select-cpu-tiling ... attune-finish-
// cpu-kernels, see lowering/Pipelines.cpp) share: the packed-weight layout
// of the GEMMs, tiling with fusion, in-place vectorization, and the marks
// they read (dialect/Markers.h).
//
//===----------------------------------------------------------------------===//

#ifndef ATTUNE_LOWERING_CPU_CPUKERNELS_H
#define ATTUNE_LOWERING_CPU_CPUKERNELS_H

#include "dialect/AttuneOps.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::attune::cpu {

/// The typed tiling decision of `op` (attune.tiling), or null.
GemmTilingAttr tilingOf(Operation *op);

/// Whether `op` carries one of the marks the CPU kernel passes act on (the
/// GEMM roles, tile GEMMs, vectorize and transpose marks, a tiling); the
/// row kernels are the unmarked ones.
bool hasKernelMark(Operation *op);
/// Removes all of those marks from `op`.
void removeKernelMarks(Operation *op);
/// Whether `module` has work for the kernel schedule (kCpuKernelsAttr).
bool hasCpuKernels(ModuleOp module);

/// The transposes through which attention heads of `width` columns read
/// `gemm`'s output C [B, M, N], if that is all that reads it (each use a
/// `width`-aligned column slice, split into heads and transposed to
/// [B, H, M, width]); else none. attune-pack-head-gemms makes such a GEMM
/// write the heads directly where `width` is its panel.
SmallVector<linalg::TransposeOp> headUses(linalg::GenericOp gemm,
                                          int64_t width);

//===----------------------------------------------------------------------===//
// Packed weights: a GEMM C[B, M, N] += A[B, M, K] B[K, N] runs as
// C[b, m, nb, r] += A[b, m, k] P[nb, k, r] on panels P [N/W, K, W]
//===----------------------------------------------------------------------===//

/// `v` [d0, ..., N] as [d0, ..., N/W, W] (a reshape, no copy).
Value splitColumns(OpBuilder &b, Location loc, Value v, int64_t width);
/// [..., N/W, W] back to [..., N].
Value joinColumns(OpBuilder &b, Location loc, Value v);
/// B [K, N] as W-column panels P [ceil(N/W), K, W], P[nb, k, r] =
/// B[k, W nb + r], zero past column N, of element type `storage` (B's when
/// null; f32 B to bf16 or f16 rounds to nearest even): a new constant for
/// constant weights, else a transpose of the (padded) reshaped B, then the
/// rounding (marked kPanelRoundingAttr; also the form of constant weights
/// beyond f16's range, left for attune-hoist-weight-preparation to report).
/// With `pairs` (the bf16 compute mode, K even) the panels are bf16
/// k-pairs [ceil(N/W), K/2, W, 2], whatever `storage` says:
/// P[nb, k/2, r, k % 2] = B[k, W nb + r].
Value packPanels(OpBuilder &b, Location loc, Value w, int64_t width,
                 Type storage = {}, bool pairs = false);
/// A GEMM's B [K, N] for dot products along K in vectors of `lanes`
/// (a `dot` tiling): {W [N, K0 / lanes, lanes], W [N, K - K0]} with K0 = K
/// rounded down to whole vectors (the second null where K0 = K), in
/// `storage`; constants at compile time, as packPanels.
std::pair<Value, Value> packDotWeights(OpBuilder &b, Location loc, Value w,
                                       int64_t lanes, Type storage = {});
/// A [B, M, K] (K even) rounded to bf16 as k-pairs [B, M, K/2, 2]
/// (marked kPairRoundingAttr with the pairs of one vector step).
Value roundToPairs(OpBuilder &b, Location loc, Value a);
/// Whether a GEMM with tiling `t` runs on bf16 k-pair panels: bf16_dot
/// (A rounded to bf16 pairs) or widen_pairs (A f32, viewed as pairs).
inline bool onKPairs(GemmTilingAttr t) {
  return t.getBf16Dot() || t.getWidenPairs();
}
/// A [B, M, K] (K even) as the k-pairs [B, M, K/2, 2] a GEMM with tiling
/// `t` reads: rounded to bf16 (roundToPairs) for bf16_dot, the same f32
/// values viewed as pairs (a tensor.expand_shape) for widen_pairs.
Value pairsFor(OpBuilder &b, Location loc, Value a, GemmTilingAttr t);
/// The element types packed GEMM panels may be stored in, as
/// --gemm-weights and the pack passes' `weight-type` spell them.
inline constexpr StringLiteral kPanelStorageNames[] = {"f32", "bf16", "f16"};
/// The contractions' arithmetic, as --gemm-compute (the linear layers'
/// GEMMs; attune-select-cpu-tiling's `compute`) and --attention-compute
/// (tiled attention's; attune-tile-attention's `compute`) spell it (bf16:
/// bf16_dot).
inline constexpr StringLiteral kComputeNames[] = {"f32", "bf16"};
/// "f32, bf16 or f16": the choices, for diagnostics.
std::string panelStorageChoices();
/// The panels' element type for the pack passes' `weight-type` option (one
/// of kPanelStorageNames); for another name, null after an error on `root`
/// naming `pass`.
Type panelStorage(Operation *root, StringRef pass, StringRef name);
/// The first value of `data` that is finite but beyond `storage`'s range
/// (f16: |x| >= 65520, which rounds to infinity; f32 and bf16 have f32's
/// range), if any.
std::optional<float> firstOutOfRange(ArrayRef<float> data, Type storage);
/// The same for f32 data given as its bytes.
std::optional<float> firstOutOfRange(ArrayRef<char> f32Bytes, Type storage);
/// Where an input of `gemm` (its panels; in the bf16 compute mode A too) is
/// stored narrower than its body computes, the body widens each element
/// first (a shift for bf16, arith.extf for f16).
void widenNarrowOperands(linalg::GenericOp gemm);
/// `v` [..., N] with `columns` >= N columns, those past N zero: a fill, an
/// empty or a bias broadcast made again at the new width, else a zero pad.
/// (`v` itself when N == `columns`.)
Value padColumns(OpBuilder &b, Location loc, Value v, int64_t columns);
/// The first `columns` columns of `v` [..., N] (`v` itself if N is that).
Value dropPadding(OpBuilder &b, Location loc, Value v, int64_t columns);
/// The bias of `op` if it is the bias broadcast of a linear layer,
/// out[b, m, n] = bias[n] over [B, M, N] with a static [N] bias; else null.
Value broadcastBias(Operation *op);
/// Columns [offset, offset + size) of `bias` [N] broadcast into `empty`, a
/// rank-4 tensor with panels of `width` columns at dim `panelDim` and the
/// columns of a panel at dim 3.
linalg::GenericOp panelBias(OpBuilder &b, Location loc, Value bias,
                            int64_t offset, int64_t size, int64_t width,
                            Value empty, unsigned panelDim);
/// C += A P on packed weights, body to be filled in: loops (b, m, nb, r, k)
/// over A [B, M, K], panels P [N/W, K, W] and `init`, C [B, M, N/W, W], or
/// [B, N/W, M, W] with `panelMajor`. With `pairs`, loops (b, m, nb, r, k,
/// p) over k-pairs: A [B, M, K/2, 2] and P [N/W, K/2, W, 2].
linalg::GenericOp createPackedGemm(OpBuilder &b, Location loc, Value a,
                                   Value panels, Value init, bool panelMajor,
                                   bool pairs = false);
/// The slice `offsets`/`extents` of `init` [B, M, N] (a zero fill, the bias
/// broadcast, or any tensor) at columns [offset, offset + size), as heads
/// [B, size/W, M, W] written into `empty`: a fill or a bias broadcast on
/// that layout (marked kHeadsInitAttr for attune-fuse-gemm-inits), else a
/// transposing copy.
Value headsInit(OpBuilder &b, Location loc, Value init, Value empty,
                ArrayRef<OpFoldResult> offsets, ArrayRef<OpFoldResult> extents,
                int64_t offset, int64_t size, int64_t width);

//===----------------------------------------------------------------------===//
// Tiling and vectorization
//===----------------------------------------------------------------------===//

/// `op` tiled by `sizes` (scf.for loops, or one scf.forall), with the
/// producers `fuse` admits (as scf::tileConsumerAndFuseProducersUsingSCF's
/// control function) fused into the loops; `op` itself is left for the
/// caller to replace.
FailureOr<scf::SCFTileAndFuseResult>
tileAndFuse(RewriterBase &rewriter, Operation *op, ArrayRef<int64_t> sizes,
            bool forall, scf::SCFTileAndFuseOptions::ControlFnTy fuse);
/// `op` tiled by `sizes` (scf.for loops, or one scf.forall) with `producer`,
/// the op that makes its init, fused into the loops as the destination;
/// `op` replaced.
FailureOr<scf::SCFTileAndFuseResult>
tileAndFuseDestination(RewriterBase &rewriter, linalg::GenericOp op,
                       Operation *producer, ArrayRef<int64_t> sizes,
                       bool forall);
/// `op` tiled by `sizes` (scf.for loops, or an scf.forall with `forall`) and
/// replaced; the tiled ops, none if tiling failed (`op` then stays).
SmallVector<Operation *> tileAndReplace(RewriterBase &rewriter, Operation *op,
                                        ArrayRef<int64_t> sizes, bool forall);
/// Vectorizes a static-shaped linalg op in place; false if it is not one or
/// the vectorizer declines.
bool vectorizeInPlace(RewriterBase &rewriter, Operation *op);
/// Whether the rows of `op` run as an scf.forall: with `parallel`, unless
/// `op` runs inside a loop (in a forall, or once per step of a recurrence,
/// where a parallel region per step would cost more than its rows).
bool parallelRows(Operation *op, bool parallel);

/// Whether result `index` of `loop` has its init's shape: every iteration
/// yields its iter_arg rewritten in place (vector.transfer_write,
/// tensor.insert_slice, a destination-style op, or a nested loop that is
/// itself shape preserving).
bool isShapePreserving(scf::ForOp loop, unsigned index);

} // namespace mlir::attune::cpu

#endif // ATTUNE_LOWERING_CPU_CPUKERNELS_H
