//===- TileGemm.cpp - the kernel schedule from the tiling decisions -------===//
//
// attune-tile-gemm tiles and vectorizes the GEMMs (on packed weights, with
// their inits fused), attention's tile contractions, the row kernels' tiles
// and the fused inits, each as its #attune.gemm_tiling says, with a
// transform-dialect schedule built here per distinct tiling, then lowers
// the vector code (contractions to FMAs, multi-reductions, transposes) and
// reads each broadcast element as a scalar.
//
// A GEMM on panels of W columns runs loops (b, m, nb, r, k) over C[b, m,
// nb*W + r] += A[b, m, k] * P[nb, k, r] (C stored as [B, M, N/W, W], or
// panel-major [B, N/W, M, W] where only attention heads or an activation
// epilogue read it). Register tiles of `rows` x W, one per k step; cache
// tiles of `cache_rows` rows x one panel x `k_tile`: the loops run rows,
// panels, k tiles, so that the slice after the current one is the next in
// memory, which attune-prefetch-panels fetches while the current one runs.
// With `parallel` the cache tiles sit inside an scf.forall over tiles of
// `cache_rows` rows x `forall_panels` panels (rows outer: OpenMP's
// schedules give each thread a first share of whole row blocks where there
// are enough of them, so that a block of A stays in L2 over all of N as in
// the serial nest).
//
//===----------------------------------------------------------------------===//

#include "lowering/CPU/CpuKernels.h"
#include "lowering/CPU/CpuTarget.h"
#include "lowering/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Transform/IR/TransformOps.h"
#include "mlir/Dialect/Transform/Transforms/TransformInterpreterUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/X86Vector/X86VectorDialect.h"
#include "mlir/IR/Dominance.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Transforms/CSE.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <cstring>
#include <map>
#include <numeric>
#include <set>
#include <vector>

namespace mlir::attune {
#define GEN_PASS_DEF_ATTUNETILEGEMM
#include "lowering/Passes.h.inc"
} // namespace mlir::attune

using namespace mlir;
using namespace mlir::attune;
using namespace mlir::attune::cpu;

namespace {

/// The schedule's marks for finishFullRowTiles: the peeled main loop of a
/// level of the last rows' tiles, and its register tiles.
constexpr llvm::StringLiteral kFullRowTilesAttr = "attune.full_row_tiles";
constexpr llvm::StringLiteral kFullRowTileAttr = "attune.full_row_tile";

/// Builds the transform-dialect schedule. Every tile size comes from a
/// tiling attribute; the text is the transform IR that applies it.
class ScheduleBuilder {
public:
  explicit ScheduleBuilder(bool parallel) : parallel(parallel) {}

  /// The GEMMs with tiling `t`: with an epilogue, then alone, then those
  /// already in cache tiles with their init fused (attune-fuse-gemm-inits).
  void addGemms(GemmTilingAttr t) {
    pairs = onKPairs(t);
    std::string id = std::to_string(groups++);
    std::string epis = "%epis_" + id, mm = "%mm_" + id, cg = "%cg_" + id;
    text += match(epis, kEpilogueAttr, t);
    text += "    transform.foreach " + epis + " : !transform.any_op {\n"
            "    ^bb0(%epi: !transform.any_op):\n"
            "      %gemm = transform.get_producer_of_operand %epi[0]\n"
            "          : (!transform.any_op) -> !transform.any_op\n"
            "      %init = transform.get_producer_of_operand %gemm[2]\n"
            "          : (!transform.any_op) -> !transform.any_op\n";
    text += epilogueTiles(t);
    text += tile("%t1", "%lk", "%t1full", gemmSizes({0, 0, 0, 0, kTile(t)}));
    text += registerTiles(t);
    // The epilogue: W columns of one row at a time.
    text += tile("%er", "%erl:3", "%te", {1, 1, 1, 0});
    text += "      transform.structured.vectorize %er : !transform.any_op\n"
            "    }\n";
    text += match(mm, kGemmAttr, t);
    text += "    transform.foreach " + mm + " : !transform.any_op {\n"
            "    ^bb0(%gemm: !transform.any_op):\n";
    text += cacheTiles(t);
    text += registerTiles(t);
    text += "    }\n";
    text += match(cg, kGemmCacheTileAttr, t);
    text += "    transform.foreach " + cg + " : !transform.any_op {\n"
            "    ^bb0(%t1full: !transform.any_op):\n";
    text += tile("%t1", "%lk", "%t1full", gemmSizes({0, 0, 0, 0, kTile(t)}));
    text += registerTiles(t);
    text += "    }\n";
  }

  /// The dot-product GEMMs with tiling `t`, from their lane sums
  /// (kDotRowsAttr: 2 where the lane sum's init is the last K mod L
  /// products): the lane sum in tiles of `cache_rows` rows (the parallel
  /// tiles with `parallel`), the GEMM and T's zero fill fused into each
  /// tile, and with `parallel` the last products (through the tiles' shared
  /// output; tiling a loop's iteration argument does not fuse them into an
  /// scf.for, where they run before it); the GEMM's register tiles as
  /// registerTiles makes them, the row kernels and the fill a row at a
  /// time. One parallel region for the whole GEMM, and T's tile still in
  /// L1 when the lane sum reads it.
  void addDotGemms(GemmTilingAttr t) {
    pairs = false;
    for (int64_t kind : {1, 2}) {
      bool rest = kind == 2;
      std::string h = "%dot_" + std::to_string(groups++);
      text += match(h, kDotRowsAttr.str() + " = " + std::to_string(kind) +
                           " : i64",
                    t);
      text += "    transform.foreach " + h +
              " : !transform.any_op {\n"
              "    ^bb0(%sum: !transform.any_op):\n";
      text += producer("%gemm", "%sum", 0) + producer("%fill", "%gemm", 2);
      if (rest)
        text += producer("%products", "%sum", 1);
      if (rest && !parallel)
        text += rowByRow("%products", "rest");
      std::string loop;
      if (parallel) {
        text += "      %ts, %forall = transform.structured.tile_using_forall "
                "%sum tile_sizes " +
                sizes({1, t.getCacheRows(), 0, 0}) +
                "\n          : (!transform.any_op) -> (!transform.any_op, "
                "!transform.any_op)\n";
        loop = "%forall";
        if (rest)
          text += fuse("%tr", "%fr", "%products", loop);
      } else {
        text += tile("%ts", "%ll:2", "%sum", {1, t.getCacheRows(), 0, 0});
        loop = "%ll#1";
      }
      text += fuse("%t1", "%fg", "%gemm", loop) + resolveDims(loop) +
              fuse("%tf", "%ff", "%fill", loop);
      text += rowByRow("%tf", "fill") + rowByRow("%ts", "sum");
      if (rest && parallel)
        text += rowByRow("%tr", "rest");
      text += registerTiles(t, /*dot=*/true) + "    }\n";
    }
  }

  /// The row kernel (or fill) `op` ([B, M, ...]) tiled a row at a time and
  /// vectorized.
  static std::string rowByRow(StringRef op, StringRef id) {
    std::string tiled = ("%row_" + id).str(), loops = ("%rowl_" + id).str();
    return tile(tiled, loops + ":2", op, {1, 1, 0, 0}) +
           "      transform.structured.vectorize " + tiled +
           " : !transform.any_op\n";
  }

  /// The bf16 compute mode's roundings of A to k-pairs marked with `step`
  /// pairs per vector step: one row at a time, `step` pairs at a time.
  void addPairRoundings(int64_t step) {
    std::string h = "%pairs_" + std::to_string(groups++);
    text += "    " + h +
            " = transform.structured.match ops{[\"linalg.generic\"]} "
            "attributes{" +
            kPairRoundingAttr.str() + " = " + std::to_string(step) +
            " : i64} in %root\n"
            "        : (!transform.any_op) -> !transform.any_op\n"
            "    transform.foreach " +
            h +
            " : !transform.any_op {\n"
            "    ^bb0(%g: !transform.any_op):\n";
    text += tile("%pr", "%prl:3", "%g", {1, 1, step, 0});
    text += "      transform.structured.vectorize %pr : !transform.any_op\n"
            "    }\n";
  }

  /// Attention's tile contractions with tiling `t`: register tiles directly
  /// (loops (m, n, k), or (m, n, k/2, 2) on bf16 k-pairs).
  void addTileGemms(GemmTilingAttr t) {
    pairs = t.getBf16Dot();
    std::string h = "%tg_" + std::to_string(groups++);
    text += match(h, kTileGemmAttr, t);
    text += "    transform.foreach " + h + " : !transform.any_op {\n"
            "    ^bb0(%g: !transform.any_op):\n";
    SmallVector<int64_t> sizes = {t.getRows(), t.getPanel(), 1};
    if (pairs)
      sizes.push_back(0);
    text += tile("%rt", "%rl:3", "%g", sizes);
    text += vectorize("%rt") + "    }\n";
  }

  /// The schedule; `f16Panels`: some GEMM reads f16 panels.
  std::string finish(bool f16Panels) const {
    // f16 panels: a panel row is widened once, then broadcast over the
    // register tile's rows (vector.extf sunk below the broadcast and
    // transpose the vectorizer reads it through). Without it each
    // element was converted on its own (a vcvtph2ps and a vpinsrw per
    // weight: 5x slower GEMMs). Only there: it changes other kernels'
    // code too, which is measured for f32 and bf16 as it is.
    std::string rows = kRowsAndCleanup;
    size_t at = rows.find("@SINK_OPS@");
    rows.replace(at, strlen("@SINK_OPS@"),
                 f16Panels
                     ? "transform.apply_patterns to %func {\n"
                       "        transform.apply_patterns.vector.sink_ops\n"
                       "      } : !transform.any_op"
                     : "");
    // Two sequences: the GEMMs' tiles (@tiles), then, after the bf16 dot
    // tiles are vectorized (vectorizeBf16DotTiles), the row kernels and the
    // vector cleanup of every function (@cleanup).
    auto sequence = [](StringRef name, const std::string &body) {
      return "  transform.named_sequence @" + name.str() +
             "(%root: !transform.any_op {transform.readonly}) {\n" + body +
             "    transform.yield\n"
             "  }\n";
    };
    return "module attributes {transform.with_named_sequence} {\n" +
           sequence("tiles", text) + sequence("cleanup", rows) + "}\n";
  }

private:
  bool parallel;
  /// The GEMMs being scheduled run the bf16 compute mode: a sixth loop (the
  /// k-pair's two elements, never tiled) after k, which counts pairs.
  bool pairs = false;
  int groups = 0;
  mutable int chunkIds = 0;
  std::string text;

  /// The tile sizes of a GEMM's loops (b, m, nb, r, k); with k-pairs, the
  /// pair loop's (untiled) appended.
  SmallVector<int64_t> gemmSizes(ArrayRef<int64_t> values) const {
    SmallVector<int64_t> all(values);
    if (pairs)
      all.push_back(0);
    return all;
  }
  /// Vectorizes the register tiles `handle`; in the bf16 compute mode they
  /// are only marked, for vectorizeBf16DotTiles. `deferred`: tiles whose
  /// extent is static only after finishFullRowTiles, marked for it.
  std::string vectorize(StringRef handle, bool deferred = false) const {
    if (deferred && !pairs)
      return ("      transform.annotate " + handle + " \"" +
              kFullRowTileAttr.str() + "\" : !transform.any_op\n")
          .str();
    if (pairs)
      return ("      transform.annotate " + handle + " \"" +
              kBf16DotTileAttr.str() + "\" : !transform.any_op\n")
          .str();
    return ("      transform.structured.vectorize " + handle +
            " : !transform.any_op\n")
        .str();
  }
  /// The k tile in the k loop's steps (pairs in the bf16 compute mode).
  int64_t kTile(GemmTilingAttr t) const {
    return pairs ? t.getKTile() / 2 : t.getKTile();
  }

  static std::string sizes(ArrayRef<int64_t> values) {
    std::string s = "[";
    for (size_t i = 0; i < values.size(); ++i)
      s += (i ? ", " : "") + std::to_string(values[i]);
    return s + "]";
  }
  static std::string anyOps(size_t n) {
    std::string s = "(";
    for (size_t i = 0; i < n; ++i)
      s += (i ? ", " : "") + std::string("!transform.any_op");
    return s + ")";
  }
  /// The tiling `t` as the schedule's text spells it.
  static std::string attrText(GemmTilingAttr t) {
    std::string tiling;
    llvm::raw_string_ostream os(tiling);
    os << Attribute(t);
    return tiling;
  }
  /// `%handle = match` of the generics with `role` (an attribute name, or
  /// `name = value`) and tiling `t`.
  static std::string match(const std::string &handle, StringRef role,
                           GemmTilingAttr t) {
    return "    " + handle +
           " = transform.structured.match ops{[\"linalg.generic\"]} "
           "attributes{" +
           role.str() + ", " + kTilingAttr.str() + " = " + attrText(t) +
           "} in %root\n"
           "        : (!transform.any_op) -> !transform.any_op\n";
  }
  /// `%handle = get_producer_of_operand %op[operand]`.
  static std::string producer(StringRef handle, StringRef op, int64_t operand) {
    return ("      " + handle + " = transform.get_producer_of_operand " + op +
            "[" + std::to_string(operand) +
            "]\n          : (!transform.any_op) -> !transform.any_op\n")
        .str();
  }
  /// `%tiled, %loops = tile_using_for %target tile_sizes [...]`.
  static std::string tile(StringRef tiled, StringRef loops, StringRef target,
                          ArrayRef<int64_t> tileSizes,
                          StringRef interchange = "") {
    size_t numLoops = llvm::count_if(tileSizes, [](int64_t s) { return s; });
    return ("      " + tiled + ", " + loops +
            " = transform.structured.tile_using_for " + target +
            " tile_sizes " + sizes(tileSizes) + interchange +
            "\n          : (!transform.any_op) -> " + anyOps(numLoops + 1) +
            "\n")
        .str();
  }
  static std::string canonicalize(StringRef scope) {
    return ("      transform.apply_patterns to " + scope +
            " {\n"
            "        transform.apply_patterns.scf.for_loop_canonicalization\n"
            "        transform.apply_patterns.canonicalization\n"
            "      } : !transform.any_op\n")
        .str();
  }
  static std::string resolveDims(StringRef scope) {
    return ("      transform.apply_patterns to " + scope +
            " {\n"
            "        "
            "transform.apply_patterns.memref.resolve_ranked_shaped_type_"
            "result_dims\n"
            "      } : !transform.any_op\n")
        .str();
  }
  static std::string fuse(StringRef fused, StringRef loop, StringRef op,
                          StringRef into) {
    return ("      " + fused + ", " + loop +
            " = transform.structured.fuse_into_containing_op " + op +
            " into " + into +
            "\n          : (!transform.any_op, !transform.any_op) -> "
            "(!transform.any_op, !transform.any_op)\n")
        .str();
  }

  /// The cache tiles %t1 of %gemm (outermost loop %l1#0).
  std::string cacheTiles(GemmTilingAttr t) const {
    if (!parallel)
      return tile("%t1", "%l1:4", "%gemm",
                  gemmSizes({1, t.getCacheRows(), 1, 0, kTile(t)}));
    return "      %t0, %forall = transform.structured.tile_using_forall "
           "%gemm tile_sizes " +
           sizes(gemmSizes({1, t.getCacheRows(), t.getForallPanels(), 0, 0})) +
           "\n          : (!transform.any_op) -> (!transform.any_op, "
           "!transform.any_op)\n" +
           canonicalize("%forall") +
           tile("%t1", "%l1:2", "%t0", gemmSizes({0, 0, 1, 0, kTile(t)}));
  }

  /// A GEMM with an element-wise epilogue: the epilogue tiled by the cache
  /// tiles' rows and panels and the GEMM fused into that loop nest, so each
  /// output tile gets its epilogue while it is still in cache. Defines %te
  /// (the epilogue tile) and %t1full (the fused GEMM tile, all of K). The
  /// GEMM's init (%init) follows it into the same loops; resolving result
  /// dims first folds the extents the GEMM's tiling asked of the init, so
  /// that the only use left in the loop is the slice to fuse.
  std::string epilogueTiles(GemmTilingAttr t) const {
    if (!parallel)
      return tile("%te", "%le:3", "%epi", {1, t.getCacheRows(), 1, 0}) +
             fuse("%t1full", "%loop", "%gemm", "%le#2") +
             resolveDims("%le#0") + fuse("%i1", "%iloop", "%init", "%le#2");
    return "      %te0, %forall = transform.structured.tile_using_forall "
           "%epi tile_sizes " +
           sizes({1, t.getCacheRows(), t.getForallPanels(), 0}) +
           "\n          : (!transform.any_op) -> (!transform.any_op, "
           "!transform.any_op)\n" +
           fuse("%g0", "%fa", "%gemm", "%forall") + resolveDims("%forall") +
           fuse("%i0", "%fi", "%init", "%forall") +
           tile("%te", "%le", "%te0", {0, 0, 1, 0}) +
           fuse("%t1full", "%loop", "%g0", "%le") + resolveDims("%le") +
           fuse("%i1", "%iloop", "%i0", "%le");
  }

  /// The register tiles of the cache tile %t1. With `dot`, the tiles of a
  /// dot-product GEMM (loops (b, m, n, ko, l), kDotGemmAttr): `rows` rows x all
  /// of N x the lanes per ko step, its k loops unmarked (nothing to prefetch:
  /// A's and W's rows are read contiguously).
  std::string registerTiles(GemmTilingAttr t, bool dot = false) const {
    // The sizes of one k step, and of one row's k steps.
    SmallVector<int64_t> kStep =
        dot ? SmallVector<int64_t>{0, 0, 0, 1, 0} : gemmSizes({0, 0, 0, 0, 1});
    SmallVector<int64_t> rowSteps =
        dot ? SmallVector<int64_t>{0, 1, 0, 1, 0} : gemmSizes({0, 1, 0, 0, 1});
    auto markK = [&](StringRef loop, StringRef mark) {
      return dot ? std::string()
                 : "      transform.annotate " + loop.str() + " \"" +
                       mark.str() + "\" : !transform.any_op\n";
    };
    // Panels outside rows: one panel of B (k_tile x W, contiguous) stays in
    // L1 while every register tile of A's rows streams past it.
    std::string s =
        dot ? tile("%t2", "%l2", "%t1", {0, t.getRows(), 0, 0, 0})
            : tile("%t2", "%l2:3", "%t1", gemmSizes({1, t.getRows(), 1, 0, 0}),
                   pairs ? " interchange = [0, 2, 1, 3, 4, 5]"
                         : " interchange = [0, 2, 1, 3, 4]");
    // Full register tiles, and a remainder loop for the last rows; N is a
    // multiple of W, so with the loop bounds known every tile in the main
    // loop is static.
    s += std::string("      %m = transform.cast ") + (dot ? "%l2" : "%l2#2") +
         " : !transform.any_op to "
         "!transform.op<\"scf.for\">\n"
         "      %main, %rest = transform.loop.peel %m : "
         "(!transform.op<\"scf.for\">) -> (!transform.any_op, "
         "!transform.any_op)\n";
    // The last rows in tiles of half as many rows, then half that, ...
    // down to 2. One row alone has only its panel's vectors as
    // accumulators (2 on an 8 x 32 tile), too few to hide the FMA latency:
    // M = 4 on 8 x 32 tiles ran at half the rate of M = 8 (768 -> 129,
    // Zen 4), and a 16-column panel's one accumulator at a quarter. Each
    // level's peeled main loop runs only full tiles, but tiling composed
    // the tile's extent into the outer loops' indices, where loop.peel
    // cannot prove it: finishFullRowTiles folds it and vectorizes them.
    std::vector<std::string> halves;
    std::string rest = "%rest";
    for (int64_t rows = t.getRows() / 2; rows >= 2; rows /= 2) {
      std::string id = std::to_string(chunkIds++);
      std::string tail = "%tail_" + id, half = "%half_" + id,
                  halfLoop = "%halfl_" + id, m = "%hm_" + id;
      halves.push_back("%hmain_" + id);
      s += "      " + tail +
           " = transform.structured.match ops{[\"linalg.generic\"]} in " +
           rest + "\n          : (!transform.any_op) -> !transform.any_op\n";
      s += tile(half, halfLoop, tail, gemmSizes({0, rows, 0, 0, 0}));
      rest = "%hrest_" + id;
      s += "      " + m + " = transform.cast " + halfLoop +
           " : !transform.any_op to !transform.op<\"scf.for\">\n"
           "      " +
           halves.back() + ", " + rest + " = transform.loop.peel " + m +
           " : (!transform.op<\"scf.for\">) -> (!transform.any_op, "
           "!transform.any_op)\n"
           "      transform.annotate " +
           halves.back() + " \"" + kFullRowTilesAttr.str() +
           "\" : !transform.any_op\n";
    }
    // The peeled loops' bodies, not the loops: over a static M a loop of
    // one iteration or none would be folded away and its handle lost (M = 1
    // on 2-row tiles: the main loop never runs; M = 2 on 2-row dot-product
    // tiles: it runs once, the rest never).
    s += canonicalize("%main");
    for (const std::string &main : halves)
      s += canonicalize(main);
    s += canonicalize(rest);
    // One register tile per k step.
    s += "      %full = transform.structured.match ops{[\"linalg.generic\"]} "
         "in %main\n"
         "          : (!transform.any_op) -> !transform.any_op\n";
    s += tile("%fk", "%fkl", "%full", kStep);
    s += markK("%fkl", kPanelKLoopAttr);
    s += vectorizeInChunks(t, "%fk", "%fkl", /*deferred=*/dot);
    for (const std::string &main : halves) {
      std::string id = std::to_string(chunkIds++);
      std::string full = "%hfull_" + id, fk = "%hfk_" + id, fkl = "%hfkl_" + id;
      s += "      " + full +
           " = transform.structured.match ops{[\"linalg.generic\"]} in " +
           main + "\n          : (!transform.any_op) -> !transform.any_op\n";
      s += tile(fk, fkl, full, kStep);
      s += markK(fkl, kPanelKLoopAttr);
      s += vectorizeInChunks(t, fk, fkl, /*deferred=*/true);
    }
    // The last rows (all of them for a decoding step's single row): one row
    // at a time, the k loop inside the row loop, so that the row's
    // accumulators stay in registers across k.
    s += "      %tail = transform.structured.match ops{[\"linalg.generic\"]} "
         "in " +
         rest + "\n          : (!transform.any_op) -> !transform.any_op\n";
    int64_t chunk = chunkWidth(t);
    if (chunk == t.getPanel()) {
      s += tile("%row", "%rowl:2", "%tail", rowSteps);
      s += markK("%rowl#1", kRowKLoopAttr);
      s += vectorize("%row", /*deferred=*/dot);
      return s;
    }
    // A panel in chunks: the row loop first, then the k loop inside it,
    // so that the k loop carries the row (whose chunks' reads and writes
    // are then hoisted from it, as the full tiles' are).
    s += tile("%row1", "%rowl", "%tail", gemmSizes({0, 1, 0, 0, 0}));
    s += tile("%row", "%rowkl", "%row1", gemmSizes({0, 0, 0, 0, 1}));
    s += "      transform.annotate %rowkl \"" + kRowKLoopAttr.str() +
         "\" : !transform.any_op\n";
    s += vectorizeInChunks(t, "%row", "%rowkl");
    return s;
  }

  /// The vectors a register tile's panel is vectorized in: the largest
  /// power of two that divides it (the panel itself where it is one).
  static int64_t chunkWidth(GemmTilingAttr t) {
    return t.getPanel() & -t.getPanel();
  }

  /// Vectorizes the register tile `op` (one k step, in the k loop `kLoop`).
  /// A panel whose width is not a power of two (3 vectors) is cut into
  /// power-of-two chunks first, the chunk loop unrolled: LLVM scalarizes a
  /// loop-carried <24 x float> (measured: 20x slower GEMMs), while each
  /// chunk's accumulators are hoisted out of the k loop on their own.
  std::string vectorizeInChunks(GemmTilingAttr t, StringRef op, StringRef kLoop,
                                bool deferred = false) const {
    int64_t panel = t.getPanel(), chunk = chunkWidth(t);
    if (chunk == panel)
      return vectorize(op, deferred);
    std::string id = std::to_string(chunkIds++);
    std::string c = "%chunk_" + id, cl = "%chunkl_" + id, v = "%chunks_" + id;
    return tile(c, cl, op, gemmSizes({0, 0, 0, chunk, 0})) +
           "      transform.loop.unroll " + cl +
           " {factor = " + std::to_string(panel / chunk) +
           "} : !transform.any_op\n" + "      " + v +
           " = transform.structured.match ops{[\"linalg.generic\"]} in " +
           kLoop.str() +
           "\n          : (!transform.any_op) -> !transform.any_op\n" +
           vectorize(v, deferred);
  }

  /// The row kernels' static tiles, the fused inits, then the vector
  /// lowering of every function.
  static constexpr const char *kRowsAndCleanup = R"mlir(
    // Static element-wise and row-reduction tile ops: one row at a time.
    %rows = transform.structured.match ops{["linalg.generic"]} attributes{attune.vectorize} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %rows : !transform.any_op {
    ^bb0(%g: !transform.any_op):
      %row, %rowl = transform.structured.tile_using_for %g tile_sizes [1, 0]
          : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
      transform.structured.vectorize %row : !transform.any_op
    }
    // The fused inits of GEMM cache tiles: one panel row at a time.
    %inits = transform.structured.match attributes{attune.init_tile} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %inits : !transform.any_op {
    ^bb0(%g: !transform.any_op):
      %ir, %irl:3 = transform.structured.tile_using_for %g tile_sizes [1, 1, 1, 0]
          : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
      transform.structured.vectorize %ir : !transform.any_op
    }
    %flat = transform.structured.match attributes{attune.vectorize_1d} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %flat : !transform.any_op {
    ^bb0(%g: !transform.any_op):
      transform.structured.vectorize %g : !transform.any_op
    }
    %funcs = transform.structured.match ops{["func.func"]} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %funcs : !transform.any_op {
    ^bb0(%func: !transform.any_op):
      transform.apply_patterns to %func {
        transform.apply_patterns.vector.reduction_to_contract
        transform.apply_patterns.vector.transfer_permutation_patterns
        transform.apply_patterns.tensor.fold_tensor_subset_ops_into_vector_transfers
        transform.apply_patterns.canonicalization
      } : !transform.any_op
      @SINK_OPS@
      transform.apply_cse to %func : !transform.any_op
      %loops = transform.structured.match ops{["scf.for"]} in %func
          : (!transform.any_op) -> !transform.any_op
      transform.apply_licm to %loops : !transform.any_op
      // The accumulator tile stays in registers across the k loop.
      transform.loop.hoist_loop_invariant_subsets %loops : !transform.any_op
      // Accumulators that start from a fused zero fill or rescaling: the
      // first read folds to the written vector, the write to the final one.
      transform.apply_patterns to %func {
        transform.apply_patterns.canonicalization
      } : !transform.any_op
      // No canonicalization here: it would fold the FMA chain back into
      // element-wise code (docs/toolchain.md).
      transform.apply_patterns to %func {
        transform.apply_patterns.vector.lower_contraction lowering_strategy = "outerproduct"
        transform.apply_patterns.vector.lower_outerproduct
      } : !transform.any_op
      transform.apply_patterns to %func {
        transform.apply_patterns.vector.lower_multi_reduction lowering_strategy = "innerreduction"
      } : !transform.any_op
      // The 16 x 16 key-tile transposes as shuffles.
      transform.apply_patterns to %func {
        transform.apply_patterns.vector.lower_transpose lowering_strategy = "shuffle_16x16"
      } : !transform.any_op
    }
)mlir";
};

/// Wider panels first, then more rows: the order the groups are scheduled
/// in. Every parameter is in the key: two tilings that compare equal are
/// one group, matched by one of them (bf16_dot was left out once, and an
/// f32 tile contraction beside a bf16 one of the same tile stayed scalar).
struct WiderFirst {
  bool operator()(GemmTilingAttr a, GemmTilingAttr b) const {
    auto key = [](GemmTilingAttr t) {
      return std::make_tuple(-t.getPanel(), -t.getRows(), t.getKTile(),
                             t.getCacheRows(), t.getForallPanels(),
                             t.getBf16Dot(), t.getDot(), t.getWidenPairs());
    };
    return key(a) < key(b);
  }
};

/// Reorders the FMAs of each register tile's k step row by row: a row's
/// broadcast, then its FMAs with every vector of the panel. A panel cut
/// into chunks (vectorizeInChunks) comes out chunk by chunk, which keeps
/// every row's broadcast live at once: 4 x 24 on 16 registers spilled two
/// accumulators per k step.
void orderRowByRow(ModuleOp module) {
  IRRewriter rewriter(module.getContext());
  DominanceInfo dominance;
  module.walk([&](scf::ForOp loop) {
    // Only panels in chunks (an accumulator per chunk): the other tiles
    // come out row by row already.
    if (!loop->hasAttr(kPanelKLoopAttr) || loop.getNumRegionIterArgs() < 2)
      return;
    Block *body = loop.getBody();
    eliminateCommonSubExpressions(rewriter, dominance, loop);
    // The FMAs grouped by their broadcast operand, in order of appearance.
    SmallVector<Value> rows;
    DenseMap<Value, SmallVector<Operation *>> byRow;
    for (auto fma : body->getOps<vector::FMAOp>()) {
      Value row = fma.getRhs();
      if (!row.getDefiningOp<vector::BroadcastOp>())
        row = fma.getLhs();
      if (!byRow.count(row))
        rows.push_back(row);
      byRow[row].push_back(fma);
    }
    if (rows.size() < 2)
      return;
    // Re-emit them (with what they use from the body, first use first) at
    // the body's start; the ops not moved keep their order after them.
    // Only side-effect free ops move (tensor reads, vector ops): anything
    // else leaves the loop as it is.
    SmallVector<Operation *> order;
    DenseSet<Operation *> placed;
    bool pure = true;
    std::function<void(Operation *)> place = [&](Operation *op) {
      if (!placed.insert(op).second)
        return;
      pure &= isPure(op);
      for (Value operand : op->getOperands())
        if (Operation *def = operand.getDefiningOp();
            def && def->getBlock() == body)
          place(def);
      order.push_back(op);
    };
    for (Value row : rows)
      for (Operation *fma : byRow[row])
        place(fma);
    if (!pure)
      return;
    Operation *last = nullptr;
    for (Operation *op : order) {
      if (last)
        op->moveAfter(last);
      else
        op->moveBefore(&body->front());
      last = op;
    }
  });
}

/// Broadcasts of single elements read as one vector are read as scalars:
/// `vector.extract (vector.transfer_read %t[i, j]) [r, c]` whose users are
/// all broadcasts becomes `tensor.extract %t[i + r, j + c]` (upstream's
/// scalar-extract rewrite, applied to those extracts only). A register
/// tile's rows that lie side by side in memory (attention's value GEMM
/// reads its probabilities transposed, two rows per k step as one
/// vector<1x2xf32>) were otherwise loaded as one vector and split with
/// shuffles, which compete with the FMAs for their ports; a scalar read
/// broadcast is one broadcast load.
void broadcastFromMemory(ModuleOp module) {
  SmallVector<Operation *> extracts;
  SetVector<Operation *> reads;
  module.walk([&](vector::ExtractOp ex) {
    auto read = ex.getSource().getDefiningOp<vector::TransferReadOp>();
    if (!read || !isa<RankedTensorType>(read.getBase().getType()) ||
        read.getVectorType().getRank() == 0 ||
        read.getVectorType().getShape().back() < 2)
      return;
    if (ex->use_empty() || !llvm::all_of(ex->getUsers(), [](Operation *user) {
          return isa<vector::BroadcastOp>(user);
        }))
      return;
    extracts.push_back(ex);
    reads.insert(read);
  });
  if (extracts.empty())
    return;
  RewritePatternSet patterns(module.getContext());
  vector::populateScalarVectorTransferLoweringPatterns(
      patterns, /*benefit=*/1, /*allowMultipleUses=*/true);
  GreedyRewriteConfig config;
  config.setStrictness(GreedyRewriteStrictness::ExistingOps);
  (void)applyOpPatternsGreedily(extracts, std::move(patterns), config);
  for (Operation *read : reads)
    if (read->use_empty())
      read->erase();
}

/// The bf16 compute mode's register tiles (kBf16DotTileAttr), each one
/// k-pair step of `rows` x W: C[i, r] += A[i, p] * P[r, p] over the pair p,
/// all bf16 but C, each operand with unit dims around (a GEMM's C[0, i, 0,
/// r] or panel-major C[0, 0, i, r], A[0, i, 0, p], P[0, 0, r, p]; attention's
/// C[i, r], A[i, 0, p] or A[0, i, p], P[0, r, p]). Each row's pair is broadcast
/// as one 32-bit word, and every `lanes` columns of the panel row (2 x lanes
/// bf16, the pairs interleaved) take one `vdpbf16ps` (x86vector.avx512.dot). A
/// CPU without AVX512-BF16 gets the same arithmetic from FMAs: the products
/// of two bf16 are exact in f32, so two FMAs per pair (odd element first,
/// as vdpbf16ps adds them) round as it does, short of its flushing of
/// subnormals. A widen_pairs tile (bf16 weights, f32 arithmetic) has A in
/// f32: FMAs on every CPU, each pair's even element first (k order). The
/// reads and the write are those the vectorizer would make, so that the
/// accumulators are hoisted out of the k loop the same way.
static LogicalResult vectorizeBf16DotTiles(ModuleOp module, StringRef cpu,
                                           StringRef features) {
  SmallVector<linalg::GenericOp> tiles;
  module.walk([&](linalg::GenericOp op) {
    if (op->hasAttr(kBf16DotTileAttr))
      tiles.push_back(op);
  });
  if (tiles.empty())
    return success();
  std::string error;
  std::optional<CpuTarget> target = lookupCpuTarget(cpu, features, error);
  if (!target)
    return module.emitError("attune-tile-gemm: ") << error;
  int64_t lanes = target->lanes();
  for (linalg::GenericOp op : tiles) {
    Value a = op.getDpsInputs()[0], p = op.getDpsInputs()[1];
    Value c = op.getDpsInits()[0];
    // f32 A (widen_pairs): FMAs on the widened pairs, whatever the CPU.
    bool wideA = getElementTypeOrSelf(a.getType()).isF32();
    bool native = target->bf16Dot() && !wideA;
    auto cType = cast<RankedTensorType>(c.getType());
    if (!cType.hasStaticShape() ||
        !cast<ShapedType>(a.getType()).hasStaticShape() ||
        !cast<ShapedType>(p.getType()).hasStaticShape() ||
        cType.getShape().back() % lanes != 0)
      return op.emitError("attune-tile-gemm: a bf16 dot register tile must "
                          "be static with a multiple of ")
             << lanes << " columns, got " << cType;
    // C's tile is rows x W with unit dims around ([1, rows, 1, W], or
    // [1, 1, rows, W] where the GEMM writes panel-major: attention heads, an
    // epilogue's input); A's rows are its one dim of `rows` before the pair.
    int64_t width = cType.getShape().back();
    int64_t rows = cType.getNumElements() / width;
    auto aType = cast<RankedTensorType>(a.getType());
    if (aType.getNumElements() != 2 * rows ||
        cast<ShapedType>(p.getType()).getNumElements() != 2 * width ||
        aType.getShape().back() != 2)
      return op.emitError("attune-tile-gemm: a bf16 dot register tile of ")
             << rows << " x " << width << " reads " << a.getType() << " and "
             << p.getType();
    int64_t rowDim = 0;
    for (int64_t d = 0; d + 1 < aType.getRank(); ++d)
      if (aType.getDimSize(d) == rows)
        rowDim = d;
    OpBuilder b(op);
    Location loc = op.getLoc();
    Type f32 = b.getF32Type(), bf16 = b.getBF16Type(), i32 = b.getI32Type();
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value f32Zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(f32));
    Value bf16Zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(bf16));
    auto read = [&](Value t) -> Value {
      auto type = cast<RankedTensorType>(t.getType());
      Value pad = type.getElementType().isF32() ? f32Zero : bf16Zero;
      return vector::TransferReadOp::create(
          b, loc, VectorType::get(type.getShape(), type.getElementType()), t,
          SmallVector<Value>(type.getRank(), zero), pad,
          SmallVector<bool>(type.getRank(), true));
    };
    auto shapeCast = [&](Value v, ArrayRef<int64_t> shape) -> Value {
      auto type = VectorType::get(
          shape, cast<VectorType>(v.getType()).getElementType());
      return vector::ShapeCastOp::create(b, loc, type, v);
    };
    auto splat = [&](VectorType type, Attribute value) -> Value {
      return arith::ConstantOp::create(b, loc, type,
                                       DenseElementsAttr::get(type, value));
    };
    VectorType accType = VectorType::get({lanes}, f32);
    VectorType pairsType = VectorType::get({2 * lanes}, bf16);
    VectorType wordsType = VectorType::get({lanes}, i32);
    Value accTile = read(c);
    Value acc = shapeCast(accTile, {rows, width});
    // The panel row [1, 1, W, 2] read as one vector of 2W (a read of the
    // 4-D tile unrolls into W reads of 2 elements).
    ReassociationIndices all(cast<ShapedType>(p.getType()).getRank());
    std::iota(all.begin(), all.end(), 0);
    Value panelRow = read(tensor::CollapseShapeOp::create(
        b, loc, p, ArrayRef<ReassociationIndices>{all}));
    // The panel row's chunks: as bf16 pairs, or (emulated) each pair's
    // elements widened to f32, [even, odd].
    SmallVector<Value> chunks;
    SmallVector<std::pair<Value, Value>> widened;
    Value sixteen, highHalf;
    if (!native) {
      sixteen = splat(wordsType, b.getI32IntegerAttr(16));
      highHalf = splat(wordsType, b.getI32IntegerAttr(int32_t(0xFFFF0000u)));
    }
    // Emulated, the row is taken as 32-bit words before it is cut into
    // chunks: slices of a bf16 vector were moved element by element on
    // AVX2 (LLVM legalizes bf16 vectors lane by lane there): bf16
    // attention took 5.3-5.7x as long on a Zen 3.
    Value panelWords =
        native ? Value()
               : vector::BitCastOp::create(
                     b, loc, VectorType::get({width}, i32), panelRow);
    for (int64_t ch = 0; ch < width / lanes; ++ch) {
      if (native) {
        chunks.push_back(vector::ExtractStridedSliceOp::create(
            b, loc, panelRow, ArrayRef<int64_t>{ch * 2 * lanes},
            ArrayRef<int64_t>{2 * lanes}, ArrayRef<int64_t>{1}));
        continue;
      }
      Value words = vector::ExtractStridedSliceOp::create(
          b, loc, panelWords, ArrayRef<int64_t>{ch * lanes},
          ArrayRef<int64_t>{lanes}, ArrayRef<int64_t>{1});
      Value even = arith::ShLIOp::create(b, loc, words, sixteen);
      Value odd = arith::AndIOp::create(b, loc, words, highHalf);
      widened.push_back({vector::BitCastOp::create(b, loc, accType, even),
                         vector::BitCastOp::create(b, loc, accType, odd)});
    }
    for (int64_t i = 0; i < rows; ++i) {
      // The row's pair: one 32-bit read (a broadcast load).
      SmallVector<Value> at(aType.getRank(), zero);
      at[rowDim] = arith::ConstantIndexOp::create(b, loc, i);
      Value pair = vector::TransferReadOp::create(
          b, loc, VectorType::get({2}, wideA ? f32 : bf16), a, at,
          wideA ? f32Zero : bf16Zero, ArrayRef<bool>{true});
      Value aWord, aEven, aOdd;
      if (native) {
        Value word =
            vector::BitCastOp::create(b, loc, VectorType::get({1}, i32), pair);
        aWord = vector::BitCastOp::create(
            b, loc, pairsType,
            vector::BroadcastOp::create(
                b, loc, wordsType, vector::ExtractOp::create(b, loc, word, 0)));
      } else {
        auto element = [&](int64_t e) -> Value {
          Value x = vector::ExtractOp::create(b, loc, pair, e);
          if (!wideA)
            x = arith::ExtFOp::create(b, loc, f32, x);
          return vector::BroadcastOp::create(b, loc, accType, x);
        };
        aEven = element(0);
        aOdd = element(1);
      }
      Value row = vector::ExtractOp::create(b, loc, acc, i);
      for (int64_t ch = 0; ch < width / lanes; ++ch) {
        Value piece = vector::ExtractStridedSliceOp::create(
            b, loc, row, ArrayRef<int64_t>{ch * lanes},
            ArrayRef<int64_t>{lanes}, ArrayRef<int64_t>{1});
        if (native) {
          piece = x86vector::DotBF16Op::create(b, loc, accType, piece, aWord,
                                               chunks[ch]);
        } else if (wideA) {
          // k order, as the f32 GEMM on bf16 panels adds them.
          piece =
              vector::FMAOp::create(b, loc, aEven, widened[ch].first, piece);
          piece =
              vector::FMAOp::create(b, loc, aOdd, widened[ch].second, piece);
        } else {
          piece =
              vector::FMAOp::create(b, loc, aOdd, widened[ch].second, piece);
          piece =
              vector::FMAOp::create(b, loc, aEven, widened[ch].first, piece);
        }
        row = vector::InsertStridedSliceOp::create(
            b, loc, piece, row, ArrayRef<int64_t>{ch * lanes},
            ArrayRef<int64_t>{1});
      }
      acc = vector::InsertOp::create(b, loc, row, acc, i);
    }
    Value result = vector::TransferWriteOp::create(
                       b, loc, shapeCast(acc, cType.getShape()), c,
                       SmallVector<Value>(cType.getRank(), zero),
                       SmallVector<bool>(cType.getRank(), true))
                       .getResult();
    op.getResult(0).replaceAllUsesWith(result);
    op.erase();
  }
  return success();
}

/// The row-pair interleavings (kPairInterleaveAttr): out[..., r, c, t] =
/// bf16(in[..., r, t, c]), in [..., R, 2, N] f32, out [..., R, N, 2] bf16
/// (N static; the leading dims and R may be dynamic), as loops over the
/// row pairs: the two rows read as vectors of N, rounded, interleaved and
/// written as one row of pairs. The vectorizer made the transpose element
/// by element (a sixth of bf16 attention's time), and plain loops over the
/// pair (innermost extent 2) stayed scalar.
static LogicalResult vectorizePairInterleaves(ModuleOp module) {
  SmallVector<linalg::GenericOp> ops;
  module.walk([&](linalg::GenericOp op) {
    if (op->hasAttr(kPairInterleaveAttr))
      ops.push_back(op);
  });
  for (linalg::GenericOp op : ops) {
    Value in = op.getDpsInputs()[0], out = op.getDpsInits()[0];
    auto inType = cast<RankedTensorType>(in.getType());
    auto outType = cast<RankedTensorType>(out.getType());
    int64_t rank = inType.getRank();
    auto expected = llvm::to_vector(inType.getShape());
    if (rank >= 3)
      std::swap(expected[rank - 2], expected[rank - 1]);
    if (rank < 3 || inType.getDimSize(rank - 2) != 2 ||
        ShapedType::isDynamic(inType.getDimSize(rank - 1)) ||
        outType.getShape() != ArrayRef<int64_t>(expected))
      return op.emitError("attune-tile-gemm: a pair interleaving reads "
                          "[..., R, 2, N] and writes [..., R, N, 2], got ")
             << inType << " -> " << outType;
    int64_t n = inType.getDimSize(rank - 1);
    Type f32 = inType.getElementType(), half = outType.getElementType();
    OpBuilder b(op);
    Location loc = op.getLoc();
    auto c = [&](int64_t v) -> Value {
      return arith::ConstantIndexOp::create(b, loc, v);
    };
    Value zero = c(0), one = c(1);
    Value pad = arith::ConstantOp::create(b, loc, b.getZeroAttr(f32));
    // Out written as [..., R, 2N]: one transfer of 2N per row pair (a [N, 2]
    // vector is written as N transfers of a pair, which only LLVM merges).
    // A loop per dim before the pair (collapsing them into one would make
    // an expand_shape of several dynamic dims, which MLIR 22 mishandles).
    SmallVector<ReassociationIndices> rowsOfPairs;
    for (int64_t d = 0; d < rank - 2; ++d)
      rowsOfPairs.push_back({d});
    rowsOfPairs.push_back({rank - 2, rank - 1});
    Value flat = tensor::CollapseShapeOp::create(b, loc, out, rowsOfPairs);
    VectorType words = VectorType::get({n}, b.getI32Type());
    Value sixteen = arith::ConstantOp::create(
        b, loc, words, DenseElementsAttr::get(words, b.getI32IntegerAttr(16)));
    SmallVector<Value> lbs(rank - 2, zero), steps(rank - 2, one), ubs;
    for (int64_t d = 0; d < rank - 2; ++d)
      ubs.push_back(tensor::DimOp::create(b, loc, in, d));
    scf::LoopNest nest = scf::buildLoopNest(
        b, loc, lbs, ubs, steps, ValueRange{flat},
        [&](OpBuilder &b, Location loc, ValueRange at,
            ValueRange acc) -> scf::ValueVector {
          // Each row rounded, its bits widened to 32: the pair word is row
          // 0's | row 1's << 16 (LLVM moved a vector.interleave of the
          // rounded rows above the rounding, into shuffles of f32 built
          // element by element: 10 % slower attention).
          auto row = [&](Value t) -> Value {
            SmallVector<Value> index(at);
            index.append({t, zero});
            Value x = vector::TransferReadOp::create(
                b, loc, VectorType::get({n}, f32), in, index, pad,
                ArrayRef<bool>{true});
            Value h =
                arith::TruncFOp::create(b, loc, VectorType::get({n}, half), x);
            Value bits = vector::BitCastOp::create(
                b, loc, VectorType::get({n}, b.getI16Type()), h);
            return arith::ExtUIOp::create(b, loc, words, bits);
          };
          Value pairs = arith::OrIOp::create(
              b, loc, row(zero),
              arith::ShLIOp::create(b, loc, row(one), sixteen));
          Value shaped = vector::BitCastOp::create(
              b, loc, VectorType::get({2 * n}, half), pairs);
          SmallVector<Value> index(at);
          index.push_back(zero);
          return {vector::TransferWriteOp::create(b, loc, shaped, acc[0], index,
                                                  ArrayRef<bool>{true})
                      .getResult()};
        });
    op.getResult(0).replaceAllUsesWith(tensor::ExpandShapeOp::create(
        b, loc, outType, nest.results.front(), rowsOfPairs));
    op.erase();
  }
  return success();
}

/// The last rows' tiles of half the register tile's rows (and half that),
/// and the tiles of dot-product GEMMs:
/// in each loop marked kFullRowTilesAttr, the peeled main loop of tiles of
/// `step` rows, every iteration is a full tile, so the tile's extent
/// `min(step, extent - iv)` is `step`; loop.peel proves that only where the
/// extent is an operand of the min, and tiling had composed it into the
/// outer loops' indices. Folds it, lets the tiles' shapes become static
/// and vectorizes the tiles marked kFullRowTileAttr (the bf16 compute
/// mode's are marked for vectorizeBf16DotTiles instead), the dot-product
/// tiles' k steps as element-wise multiply-adds.
LogicalResult finishFullRowTiles(ModuleOp module) {
  MLIRContext *ctx = module.getContext();
  SmallVector<scf::ForOp> loops;
  module.walk([&](scf::ForOp loop) {
    if (loop->removeAttr(kFullRowTilesAttr))
      loops.push_back(loop);
  });
  bool marked = !loops.empty();
  module.walk(
      [&](linalg::GenericOp op) { marked |= op->hasAttr(kFullRowTileAttr); });
  if (!marked)
    return success();
  RewritePatternSet patterns(ctx);
  for (Dialect *dialect : ctx->getLoadedDialects())
    dialect->getCanonicalizationPatterns(patterns);
  for (RegisteredOperationName op : ctx->getRegisteredOperations())
    op.getCanonicalizationPatterns(patterns, ctx);
  FrozenRewritePatternSet canonical(std::move(patterns));
  IRRewriter rewriter(ctx);
  for (scf::ForOp loop : loops) {
    std::optional<int64_t> step = getConstantIntValue(loop.getStep());
    if (!step)
      continue;
    for (auto min : llvm::make_early_inc_range(
             loop.getBody()->getOps<affine::AffineMinOp>())) {
      bool ofIv = llvm::is_contained(min.getOperands(), loop.getInductionVar());
      bool capped = llvm::any_of(min.getMap().getResults(), [&](AffineExpr e) {
        auto c = dyn_cast<AffineConstantExpr>(e);
        return c && c.getValue() == *step;
      });
      if (!ofIv || !capped)
        continue;
      rewriter.setInsertionPoint(min);
      rewriter.replaceOp(
          min, arith::ConstantIndexOp::create(rewriter, min.getLoc(), *step));
    }
    if (failed(applyPatternsGreedily(loop, canonical)))
      return loop.emitError("attune-tile-gemm: the last rows' tiles do not "
                            "canonicalize");
  }
  SmallVector<Operation *> tiles;
  module.walk([&](linalg::GenericOp op) {
    if (op->removeAttr(kFullRowTileAttr))
      tiles.push_back(op);
  });
  SmallVector<Operation *> loopsOfTiles;
  for (Operation *op : tiles) {
    GemmTilingAttr t = tilingOf(op);
    Operation *loop = op->getParentOp();
    if (!vectorizeInPlace(rewriter, op))
      return op->emitError("attune-tile-gemm: a register tile did not "
                           "vectorize (its shape is not static)");
    if (t && t.getDot())
      loopsOfTiles.push_back(loop);
  }
  // A dot-product tile's k step reduces over one ko: the unit-dim
  // reduction folds to an element-wise multiply-add (FMAs on whole
  // vectors of lanes) before the cleanup's reduction_to_contract, whose
  // contraction with the lanes as a batch dimension lowered to one
  // scalar FMA per element.
  for (Operation *loop : loopsOfTiles) {
    if (failed(applyPatternsGreedily(loop, canonical)))
      return loop->emitError("attune-tile-gemm: a register tile's k step "
                             "does not canonicalize");
    // The folded reduction's add carries no fast-math flags: the
    // product's, so that LLVM contracts the two into an FMA.
    loop->walk([](arith::AddFOp add) {
      for (Value operand : add->getOperands()) {
        Value v = operand;
        if (auto cast = v.getDefiningOp<vector::ShapeCastOp>())
          v = cast.getSource();
        if (auto mul = v.getDefiningOp<arith::MulFOp>())
          add.setFastmath(mul.getFastmath());
      }
    });
  }
  return success();
}

struct AttuneTileGemmPass
    : mlir::attune::impl::AttuneTileGemmBase<AttuneTileGemmPass> {
  using Base::Base;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (!hasCpuKernels(module))
      return;
    // The distinct tilings of the GEMM roles and of the tile contractions,
    // and the vector steps of the bf16 compute mode's roundings of A.
    std::map<GemmTilingAttr, bool, WiderFirst> gemms, tileGemms;
    std::set<int64_t> pairSteps;
    module.walk([&](linalg::GenericOp op) {
      if (auto step = op->getAttrOfType<IntegerAttr>(kPairRoundingAttr))
        pairSteps.insert(step.getInt());
      GemmTilingAttr t = tilingOf(op);
      if (!t)
        return;
      if (op->hasAttr(kTileGemmAttr))
        tileGemms[t] = true;
      else
        gemms[t] = true;
    });
    ScheduleBuilder builder(parallel);
    for (auto &[t, _] : gemms) {
      if (t.getDot())
        builder.addDotGemms(t);
      else
        builder.addGemms(t);
    }
    for (auto &[t, _] : tileGemms)
      builder.addTileGemms(t);
    for (int64_t step : pairSteps)
      builder.addPairRoundings(step);
    bool f16Panels = false;
    module.walk([&](linalg::GenericOp op) {
      if (tilingOf(op) && llvm::any_of(op.getDpsInputs(), [](Value v) {
            return getElementTypeOrSelf(v.getType()).isF16();
          }))
        f16Panels = true;
    });
    std::string text = builder.finish(f16Panels);
    OwningOpRef<ModuleOp> schedule =
        parseSourceString<ModuleOp>(text, &getContext());
    if (!schedule) {
      module.emitError("attune-tile-gemm: the schedule does not parse");
      return signalPassFailure();
    }
    auto apply = [&](StringRef name) {
      Operation *entry = nullptr;
      schedule->walk([&](transform::NamedSequenceOp seq) {
        if (seq.getSymName() == name)
          entry = seq;
      });
      return entry &&
             succeeded(transform::applyTransformNamedSequence(
                 module, entry, *schedule, transform::TransformOptions()));
    };
    if (!apply("tiles") || failed(finishFullRowTiles(module)))
      return signalPassFailure();
    if (failed(vectorizeBf16DotTiles(module, cpu, features)) ||
        failed(vectorizePairInterleaves(module)))
      return signalPassFailure();
    if (!apply("cleanup"))
      return signalPassFailure();
    orderRowByRow(module);
    broadcastFromMemory(module);
  }
};

} // namespace
