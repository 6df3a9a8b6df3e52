//===- Markers.h - the attributes passes leave for later passes -*- C++ -*-===//
//
// Every discardable attribute (and stand-in callee) one pass puts on the IR
// for a later one to read, in one place: who sets it, who reads it, what it
// means. Marks that a pass reads are gone from its output unless said
// otherwise.
//
//===----------------------------------------------------------------------===//

#ifndef ATTUNE_DIALECT_MARKERS_H
#define ATTUNE_DIALECT_MARKERS_H

#include "llvm/ADT/StringRef.h"

namespace mlir::attune {

//===----------------------------------------------------------------------===//
// On attune ops
//===----------------------------------------------------------------------===//

/// attune.attention: the query tile of --attune-tile-attention is at most
/// this (set by attune-absorb-kv-projections where the queries are known to
/// be few, so that a short query extent is padded less).
inline constexpr llvm::StringLiteral kTileQCapAttr = "attune.tile_q_cap";

//===----------------------------------------------------------------------===//
// On globals
//===----------------------------------------------------------------------===//

/// memref.global: the state_dict key of an externalized weight
/// (attune-externalize-weights; read by the compile flow for the metadata).
inline constexpr llvm::StringLiteral kWeightNameAttr = "attune.weight_name";

/// On the module: the names of the external weights the code rounds to f16
/// at run time (f16 GEMM panels; attune-hoist-weight-preparation), for the
/// runtime to check their range at load (the compile flow records them in
/// the metadata, artifact::WeightSpec::f16, and removes the attribute).
inline constexpr llvm::StringLiteral kF16WeightsAttr = "attune.f16_weights";

/// On the module: the names of the external weights that only the weight
/// preparation run at load reads (attune-prepare-weights-at-load), whose
/// memory the runtime may release once it has run (the compile flow records
/// them in the metadata, artifact::WeightSpec::preparedOnly, and removes the
/// attribute).
inline constexpr llvm::StringLiteral kPreparedOnlyWeightsAttr =
    "attune.prepared_only_weights";
/// On the module: the external weights (their globals' symbols) each weight
/// preparation function reads, in the order of the functions
/// (attune-prepare-weights-at-load; recorded in the metadata,
/// artifact::Metadata::preparations, and removed by the compile flow).
inline constexpr llvm::StringLiteral kWeightPreparationsAttr =
    "attune.weight_preparations";

/// func.func argument: a weight (or a value computed from weights alone) of
/// a layer function made by attune-outline-layers; what
/// attune-hoist-weight-preparation may prepare in the callers, and then
/// removes.
inline constexpr llvm::StringLiteral kWeightArgAttr = "attune.weight";

//===----------------------------------------------------------------------===//
// On linalg ops, from convert-attune-to-linalg and attune-tile-attention,
// for the CPU code generation (lowering/CPU)
//===----------------------------------------------------------------------===//

/// A linear layer's contraction generic, [B, M, K] x [K, N]: tiled on packed
/// weights by the GEMM passes.
inline constexpr llvm::StringLiteral kGemmAttr = "attune.gemm";
/// A linear layer's GEMM with a `dot` tiling (N at most half a vector), as
/// dot products along K (attune-pack-gemms): T[b, m, n, l] += A[b, m, ko, l]
/// * W[n, ko, l] over K viewed as [K / L, L], L the vector's lanes; the lanes
/// are summed by a row kernel after it. Tiled by attune-tile-gemm.
inline constexpr llvm::StringLiteral kDotGemmAttr = "attune.dot_gemm";
/// A dot-product GEMM's lane sum, C = init + the sum of T over the lanes,
/// the row kernel that ends it; its value (i64): 1, or 2 where its init is
/// the GEMM's last K mod L products (a row kernel on the GEMM's init).
/// attune-tile-gemm tiles it in the GEMM's tiles of rows, fuses the GEMM,
/// T's zero fill (and with `parallel` the last products) into each tile,
/// and runs the row kernels one row at a time (they come after
/// attune-vectorize-rows).
inline constexpr llvm::StringLiteral kDotRowsAttr = "attune.dot_rows";
/// An element-wise generic over a marked GEMM's [B, M, N] result (its only
/// user): computed on each cache tile of the GEMM.
inline constexpr llvm::StringLiteral kEpilogueAttr = "attune.epilogue";
/// A static-shaped [M, K] x [K, N] tile contraction (dims (m, n, k)) of
/// tiled attention: register tiles only.
inline constexpr llvm::StringLiteral kTileGemmAttr = "attune.tile_gemm";
/// Static element-wise and row-reduction tile ops: vectorized row by row
/// (rank 2) or whole (rank 1).
inline constexpr llvm::StringLiteral kVectorizeAttr = "attune.vectorize";
inline constexpr llvm::StringLiteral kVectorize1DAttr = "attune.vectorize_1d";
/// Pairs of rows rounded to bf16 and interleaved, [..., R, 2, N] f32 ->
/// [..., R, N, 2] (N static): tiled attention's values and each key tile's
/// probabilities as the k-pairs of its bf16 value contraction; written by
/// attune-tile-gemm a row pair at a time.
inline constexpr llvm::StringLiteral kPairInterleaveAttr =
    "attune.pair_interleave";
/// A copy that transposes its two innermost dims (tiled attention's keys):
/// 16 x 16 blocks, vectorized as in-register transposes.
inline constexpr llvm::StringLiteral kTransposeTilesAttr =
    "attune.transpose_tiles";

//===----------------------------------------------------------------------===//
// Between the CPU kernel passes (lowering/CPU)
//===----------------------------------------------------------------------===//

/// The typed tiling decision (#attune.gemm_tiling) of a GEMM, its epilogue,
/// its cache tiles and of attention's tile GEMMs: attune-select-cpu-tiling
/// writes it; the GEMM passes read it.
inline constexpr llvm::StringLiteral kTilingAttr = "attune.tiling";
/// On the module: the CPU kernel passes have marked ops or vector code to
/// finish (attune-select-cpu-tiling sets it where any op is marked,
/// attune-vectorize-rows where it vectorized a row kernel); attune-tile-gemm,
/// attune-accumulators-in-registers and attune-finish-cpu-kernels do nothing
/// without it, and the last removes it.
inline constexpr llvm::StringLiteral kCpuKernelsAttr = "attune.cpu_kernels";
/// A GEMM's cache tile with its init (zero fill or bias) fused in front of
/// it (attune-fuse-gemm-inits); and that init's tile.
inline constexpr llvm::StringLiteral kGemmCacheTileAttr =
    "attune.gemm_cache_tile";
inline constexpr llvm::StringLiteral kInitTileAttr = "attune.init_tile";
/// The init of a GEMM that writes attention heads (attune-pack-head-gemms),
/// already on the GEMM's output layout.
inline constexpr llvm::StringLiteral kHeadsInitAttr = "attune.heads_init";
/// The rounding of a GEMM's weight panels to bf16 or f16 (the pack passes'
/// weight-type): a weight preparation for attune-hoist-weight-preparation to
/// fold on constants, which the row kernels (attune-vectorize-rows) leave
/// alone. To f16 it must fold, where the weights' range is checked (f16's
/// largest finite value is 65504), or round an external weight, whose range
/// the runtime checks (kF16WeightsAttr); attune-hoist-weight-preparation
/// reports any other left for run time.
inline constexpr llvm::StringLiteral kPanelRoundingAttr =
    "attune.panel_rounding";
/// A register tile of a GEMM in the bf16 compute mode (bf16_dot), tiled by
/// attune-tile-gemm's schedule and vectorized by the pass itself into
/// k-pair dot products (internal to the pass).
inline constexpr llvm::StringLiteral kBf16DotTileAttr = "attune.bf16_dot_tile";
/// The rounding of a bf16-compute GEMM's A to bf16 k-pairs [B, M, K/2, 2]
/// (attune-pack-gemms, attune-pack-head-gemms), its value the pairs each
/// vector step rounds (a power of two dividing K/2), by which
/// attune-tile-gemm tiles and vectorizes it.
inline constexpr llvm::StringLiteral kPairRoundingAttr = "attune.pair_rounding";

//===----------------------------------------------------------------------===//
// After attune-tile-gemm, on the bufferized loops
//===----------------------------------------------------------------------===//

/// The k loop of a GEMM's full register tiles (attune-tile-gemm marks it,
/// attune-prefetch-panels adds its prefetches, attune-split-accumulators
/// splits the accumulators of those with too few and drops the mark).
inline constexpr llvm::StringLiteral kPanelKLoopAttr = "attune.panel_k_loop";
/// The k loop of one row of a GEMM's last rows (fewer than a register
/// tile: all of a decoding step's), marked and consumed the same way.
inline constexpr llvm::StringLiteral kRowKLoopAttr = "attune.row_k_loop";
/// attune-epilogue-in-registers: a loop it has tried (internal to the pass).
inline constexpr llvm::StringLiteral kEpilogueTriedAttr =
    "attune.epilogue_tried";

//===----------------------------------------------------------------------===//
// Vulkan stand-ins
//===----------------------------------------------------------------------===//

/// The stand-in for gpu.barrier in kernels built before bufferization
/// (attune-gpu-attention); attune-map-to-gpu replaces its calls.
inline constexpr llvm::StringLiteral kBarrierCallee = "__attune_gpu_barrier";
/// Likewise for `gpu.subgroup_reduce add ... uniform` on f32.
inline constexpr llvm::StringLiteral kSubgroupAddCallee =
    "__attune_gpu_subgroup_add";

} // namespace mlir::attune

#endif // ATTUNE_DIALECT_MARKERS_H
