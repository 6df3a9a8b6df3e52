//===- SelectCpuTiling.cpp - the tiling decision of each GEMM -------------===//
//
// attune-select-cpu-tiling decides how each GEMM of the CPU code is tiled,
// from a model of the target CPU (CpuTarget: vector width and registers,
// FMA and load throughput, L1 and L2), and writes the decision as a typed
// attribute (#attune.gemm_tiling) for the GEMM passes to read: choosing is
// separate from applying. The rule (docs/design.md, "GEMM tiling"):
//
// - Register tile `rows` x `panel` (panel = v in {1, 2, 4} vectors of L
//   lanes, and 3 for linear layers on 16 registers; rows in {2, 4, 8},
//   and 1 for tiled attention's exact tiles: a linear layer's last rows
//   run one at a time anyway):
//   every candidate whose accumulators, v
//   weight vectors and one broadcast fit the registers is costed per
//   output element as
//     cycles(k step) = max(rows v / FMAs per cycle,
//                          (rows + v) / loads per cycle, FMA latency)
//   relative to its FMAs alone, times (1 + 3 loads per FMA) (the load
//   term's weight reproduces the 15 % measured between 8 x 32 and 4 x 64
//   tiles on Ice Lake), times the padding of N to whole panels and of a
//   static M to whole tiles. The cheapest wins; ties go to wider panels.
//   A GEMM read only as attention heads takes the cheapest tile whose
//   panel is the heads' width, where there is one.
// - `k_tile`: one panel's k slice (k_tile x panel floats) in 2/3 of L1d,
//   a multiple of 16, the largest such divisor of K where one is at least
//   half of that.
// - `cache_rows`: 128 (A streams through L2 with prefetching; measured);
//   32 where N is one parallel tile of columns (narrowCacheRowsFor); for
//   dot products along K, 4 register tiles (below).
// - `forall_panels`: parallel tiles of 128 columns.
// - The last N mod L columns, at most half a vector after whole vectors: a
//   GEMM of their own (dot products) where that drops an eighth of the
//   columns the panels compute (splitLastColumns).
// - bf16 weights with f32 arithmetic on 512-bit vectors: `widen_pairs`
//   (k-pair panels widened by a shift and a mask; K even, whole-vector
//   panels), as the bf16 compute mode's `bf16_dot` with A in f32.
// - Tile contractions of tiled attention: register tiles only, the
//   cheapest that divides M and N exactly; on bf16 k-pairs (attune-tile-
//   attention compute=bf16) with bf16_dot.
//
//===----------------------------------------------------------------------===//

#include "lowering/CPU/CpuKernels.h"
#include "lowering/CPU/CpuTarget.h"
#include "lowering/Passes.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StructuredOpsUtils.h"

#include <algorithm>
#include <cstdio>

namespace mlir::attune {
#define GEN_PASS_DEF_ATTUNESELECTCPUTILING
#include "lowering/Passes.h.inc"
} // namespace mlir::attune

using namespace mlir;
using namespace mlir::attune;
using namespace mlir::attune::cpu;

namespace {

/// Columns of a parallel tile, rows of a cache tile.
constexpr int64_t kForallColumns = 128;
constexpr int64_t kCacheRows = 128;
/// Rows assumed for a dynamic M (long enough for padding not to matter).
constexpr int64_t kDynamicRows = 512;
/// Weight of the loads per FMA in a register tile's cost.
constexpr double kLoadWeight = 3.0;

/// A costed register tile.
struct RegisterTile {
  int64_t rows = 0, vectors = 0, panel = 0;
  /// Cycles of one k step over its FMAs' cycles alone (>= 1), and the
  /// loads per FMA.
  double boundFactor = 0, loadsPerFma = 0;
  /// Relative cost per useful output element (padding included).
  double cost = 0;
};

/// Every register tile the target's registers hold, costed for an M x N
/// output (M dynamic: kDynamicRows); with `exact`, only tiles dividing M
/// and N.
SmallVector<RegisterTile> registerTiles(const CpuTarget &t, int64_t m,
                                        int64_t n, bool exact) {
  SmallVector<RegisterTile> tiles;
  int64_t rowsM = ShapedType::isDynamic(m) ? kDynamicRows : m;
  for (int64_t v : {4, 3, 2, 1}) {
    // Panels of 3 vectors only for linear layers' GEMMs (which
    // attune-tile-gemm vectorizes in chunks) on 16 registers (AVX2, SSE),
    // where they are what fills them (4 x 3 accumulators); measured on
    // Zen 3, not on the AVX-512 machines (8 x 48 there).
    if (v == 3 && (exact || t.vectorRegisters > 16))
      continue;
    for (int64_t r : {8, 4, 2, 1}) {
      if (r * v + v + 1 > t.vectorRegisters)
        continue;
      RegisterTile tile;
      tile.rows = r;
      tile.vectors = v;
      tile.panel = v * t.lanes();
      if (exact && (ShapedType::isDynamic(m) || m % r || n % tile.panel))
        continue;
      // A linear layer's rows that do not fill a register tile run in
      // tiles of half as many rows, down to 2, then one row at a time
      // (attune-tile-gemm's row kernel): a tile of one row is that kernel,
      // and a static M of one row has no remainder to peel from it.
      if (!exact && r == 1)
        continue;
      double fma = double(r * v) / t.fmaPerCycle;
      double loads = double(r + v) / t.loadsPerCycle;
      double cycles = std::max({fma, loads, double(t.fmaLatency)});
      tile.boundFactor = cycles / fma;
      tile.loadsPerFma = double(r + v) / double(r * v);
      double padding = double(llvm::alignTo(n, tile.panel)) / n *
                       double(llvm::alignTo(rowsM, r)) / rowsM;
      tile.cost =
          tile.boundFactor * (1 + kLoadWeight * tile.loadsPerFma) * padding;
      tiles.push_back(tile);
    }
  }
  return tiles;
}

/// The cheapest of `tiles` (the first, i.e. the widest, among equals).
std::optional<RegisterTile> cheapest(ArrayRef<RegisterTile> tiles) {
  std::optional<RegisterTile> best;
  for (const RegisterTile &tile : tiles)
    if (!best || tile.cost < best->cost - 1e-9)
      best = tile;
  return best;
}

std::string format(double x) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.3g", x);
  return buffer;
}

/// A dim for the remarks: its extent, or `?`.
std::string dimText(int64_t d) {
  return ShapedType::isDynamic(d) ? std::string("?") : std::to_string(d);
}

/// How `t` computes bf16 k-pairs, for the remarks.
std::string pairsRemark(const CpuTarget &t) {
  return t.bf16Dot() ? "; bf16 k-pairs, vdpbf16ps"
                     : "; bf16 k-pairs, emulated with FMAs (no AVX512-BF16)";
}

/// The k tile for panels of `panel` floats over depth `k`.
int64_t kTileFor(const CpuTarget &t, int64_t panel, int64_t k,
                 int64_t elementBytes = sizeof(float)) {
  int64_t limit =
      std::max<int64_t>(16, (t.l1d * 2 / 3) / (panel * elementBytes) / 16 * 16);
  if (!ShapedType::isDynamic(k))
    for (int64_t kt = limit; kt >= limit / 2 && kt >= 16; kt -= 16)
      if (k % kt == 0)
        return kt;
  return limit;
}

/// The fewest multiply-adds a parallel tile of a dot-product GEMM holds.
constexpr int64_t kMinDotTileFmas = 16384;

/// The rows of a cache tile. Not bounded by L2: attune-prefetch-panels
/// fetches the next rows of A while a block runs, so a block larger than L2
/// (128 x 3072 floats, 1.5 MiB) streams; measured at 512 x 3072 -> 768 on
/// Emerald Rapids (2 MiB L2), blocks that fit half of L2 (84 rows) or 64
/// rows were 5 % slower than 128; on Ice Lake 64 was 10 % slower, 256 slower.
int64_t cacheRowsFor(int64_t rows) {
  return std::max<int64_t>(rows, kCacheRows / rows * rows);
}

/// The fewest multiply-adds a parallel tile of a narrow GEMM holds.
constexpr int64_t kMinNarrowTileFmas = 1 << 18;

/// The rows of a cache tile of a GEMM whose padded N is one parallel tile
/// of columns (at most kForallColumns): the rows are then the only thing
/// its parallel tiles split, and 128 rows made M = 64..128 one tile, one
/// thread (768 -> 128 at M = 128 on 2 threads: 116 GFLOP/s, OpenBLAS 168).
/// 32 rows (4 tiles at M = 128), or more where a tile would hold fewer
/// than kMinNarrowTileFmas products (a region costs ~1 us to start).
int64_t narrowCacheRowsFor(int64_t rows, int64_t k, int64_t paddedN) {
  int64_t least = ShapedType::isDynamic(k)
                      ? kCacheRows
                      : llvm::divideCeil(kMinNarrowTileFmas, k * paddedN);
  return std::min<int64_t>(cacheRowsFor(rows),
                           llvm::alignTo(std::max<int64_t>(32, least), rows));
}

/// `cacheRows`, or the next count of whole register tiles (`rows`) that
/// does not divide a static M. attune-tile-gemm peels the register tiles'
/// loop in each cache tile, and transform.loop.peel fails on a loop whose
/// static trip count divides evenly: cache tiles that divide a static M
/// (128 rows of 128 or 512) are static, those that do not, or that are
/// larger than M, have an affine.min extent and peel (a static linear of
/// 128 rows failed to compile).
static int64_t notDividing(int64_t cacheRows, int64_t rows, int64_t m) {
  if (ShapedType::isDynamic(m) || m <= 0)
    return cacheRows;
  while (m % cacheRows == 0)
    cacheRows += rows;
  return cacheRows;
}

/// The tiling of a linear layer's GEMM, M x K -> N. `readAsHeads(W)`: its
/// output is all read as attention heads of W columns; a register tile
/// whose panel is that width is taken where there is one, so that the GEMM
/// writes the heads directly (attune-pack-head-gemms).
GemmTilingAttr gemmTiling(MLIRContext *ctx, const CpuTarget &t, int64_t m,
                          int64_t k, int64_t n,
                          function_ref<bool(int64_t)> readAsHeads, bool bf16Dot,
                          bool widenPairs, std::string *why) {
  // N at most half a vector (a score or classifier head): a register tile
  // of whole-vector panels would compute at least as much padding as
  // output (N = 1: 1 lane of 16, 7 GFLOP/s against OpenBLAS's 50 on Zen 4);
  // dot products along K use every lane. Rows: the most whose rows x N
  // accumulators, one vector of each row of A and of each column of W fit
  // the registers.
  if (!ShapedType::isDynamic(k) && k >= t.lanes() && 2 * n <= t.lanes()) {
    int64_t rows = 1;
    for (int64_t r : {8, 4, 2})
      if (r * n + r + n <= t.vectorRegisters) {
        rows = r;
        break;
      }
    // Tiles of 4 register tiles: each its own T (rows x N x L floats, 16
    // KiB at 32 x 8 x 16) still in L1 when its lane sum reads it, and
    // parallel tiles small enough to split M = 128 four ways. Nothing else
    // to keep in cache across tiles (W is a few rows). But at least
    // kMinDotTileFmas products a tile: a parallel region costs ~1 us to
    // start (Zen 4 VM), so a small K must not split a few rows between
    // threads (65 -> 1 at M = 64: two 32-row tiles of 2 k FMAs each took
    // 3.1 us on 2 threads, 0.5 on 1).
    int64_t cacheRows = notDividing(
        std::max<int64_t>(
            4 * rows,
            llvm::alignTo(llvm::divideCeil(kMinDotTileFmas, k * n), rows)),
        rows, m);
    if (why) {
      *why = "GEMM " + dimText(m) + " x " + std::to_string(k) + " -> " +
             std::to_string(n) + " on " + t.describe() +
             ": dot products along K (N = " + std::to_string(n) +
             " is at most half a vector of " + std::to_string(t.lanes()) +
             " lanes): register tile " + std::to_string(rows) + " rows x " +
             std::to_string(n) + " columns x " + std::to_string(t.lanes()) +
             " lanes (" + std::to_string(rows * n) + " accumulators, " +
             std::to_string(rows + n) + " loads per " +
             std::to_string(rows * n) + " FMAs), the last " +
             std::to_string(k % t.lanes()) + " of K after them; cache_rows " +
             std::to_string(cacheRows) +
             (bf16Dot ? "; f32, not bf16: dot products" : "");
    }
    return GemmTilingAttr::get(ctx, t.lanes(), rows, 0, cacheRows, 0,
                               /*bf16Dot=*/false, /*dot=*/true,
                               /*widenPairs=*/false);
  }
  SmallVector<RegisterTile> tiles = registerTiles(t, m, n, /*exact=*/false);
  SmallVector<RegisterTile> headTiles;
  for (const RegisterTile &tile : tiles)
    if (n % tile.panel == 0 && readAsHeads(tile.panel))
      headTiles.push_back(tile);
  RegisterTile tile = *cheapest(headTiles.empty() ? tiles : headTiles);
  // The bf16 compute mode steps k in pairs of bf16 (K even), its panels
  // are whole vectors (one vdpbf16ps per vector of a row). So do bf16
  // weights with f32 arithmetic on 512-bit vectors (widen_pairs): a shift
  // and a mask widen 16 pairs of a panel row, where widening 16 weights
  // takes a vpmovzxwd and a shift (768 -> 50257 at M = 1 on a Zen 5:
  // 3.80 -> 3.28 ms, interleaved medians; bench/README.md).
  std::string pairsWhy;
  widenPairs = widenPairs && !bf16Dot && t.lanes() == 16;
  bool pairs = bf16Dot || widenPairs;
  // Where k-pairs do not apply: bf16 compute falls back to f32, bf16
  // weights to one weight per lane.
  std::string unpaired =
      bf16Dot ? "; f32, not bf16: " : "; bf16 weights, not k-pairs: ";
  if (pairs && (ShapedType::isDynamic(k) || k % 2)) {
    pairs = false;
    pairsWhy = unpaired + "K is odd";
  } else if (pairs && tile.panel % t.lanes()) {
    pairs = false;
    pairsWhy = unpaired + "the panel is not whole vectors";
  } else if (bf16Dot) {
    pairsWhy = pairsRemark(t);
  } else if (pairs) {
    pairsWhy = "; bf16 weight k-pairs, widened in registers (A in f32)";
  }
  int64_t kTile = kTileFor(t, tile.panel, k, pairs ? 2 : sizeof(float));
  int64_t forall = std::max<int64_t>(1, kForallColumns / tile.panel);
  int64_t paddedN = llvm::alignTo(n, tile.panel);
  bool narrow = paddedN <= forall * tile.panel;
  int64_t cacheRows =
      notDividing(narrow ? narrowCacheRowsFor(tile.rows, k, paddedN)
                         : cacheRowsFor(tile.rows),
                  tile.rows, m);
  if (why) {
    *why = "GEMM " + dimText(m) + " x " + dimText(k) + " -> " +
           std::to_string(n) + " on " + t.describe() + ": register tile " +
           std::to_string(tile.rows) + " x " + std::to_string(tile.panel) +
           " (" + std::to_string(tile.rows * tile.vectors) + " accumulators, " +
           std::to_string(tile.rows + tile.vectors) + " loads per " +
           std::to_string(tile.rows * tile.vectors) + " FMAs, " +
           (tile.boundFactor > 1
                ? "bound at " + format(tile.boundFactor) + "x the FMA time"
                : std::string("FMA-bound")) +
           ", cost " + format(tile.cost) + ")";
    if (!headTiles.empty())
      *why += ", a panel of the heads' width (the heads written directly)";
    if (n % tile.panel)
      *why += ", N padded to " + std::to_string(llvm::alignTo(n, tile.panel));
    *why += "; k_tile " + std::to_string(kTile) + " (a panel slice of " +
            std::to_string(kTile * tile.panel * (pairs ? 2 : 4) / 1024) +
            " KiB in L1d)" + "; cache_rows " + std::to_string(cacheRows) +
            (narrow && cacheRows < cacheRowsFor(tile.rows)
                 ? " (N is one parallel tile: the rows split)"
                 : "") +
            "; forall_panels " + std::to_string(forall) + pairsWhy;
  }
  return GemmTilingAttr::get(ctx, tile.panel, tile.rows, kTile, cacheRows,
                             forall, pairs && bf16Dot, /*dot=*/false,
                             pairs && widenPairs);
}

/// The register tiles of a tile contraction `op` with loop ranges (m, n, k),
/// or (m, n, k/2, 2) on bf16 k-pairs (attune-tile-attention compute=bf16):
/// then bf16_dot, whose register tiles are whole vectors by construction.
GemmTilingAttr tileGemmTiling(MLIRContext *ctx, const CpuTarget &t,
                              linalg::GenericOp op, std::string *why) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  bool pairs = ranges.size() == 4 && ranges[3] == 2 &&
               llvm::all_of(op.getDpsInputs(), [](Value v) {
                 return getElementTypeOrSelf(v.getType()).isBF16();
               });
  std::optional<RegisterTile> tile;
  if (ranges.size() == 3 || pairs)
    tile = cheapest(registerTiles(t, ranges[0], ranges[1], /*exact=*/true));
  if (!tile) {
    if (why)
      *why = "tile contraction: no register tile divides it; 8 x 32";
    return GemmTilingAttr::get(ctx, 32, 8, 0, 0, 0, false, false, false);
  }
  if (why) {
    *why = "tile contraction " + std::to_string(ranges[0]) + " x " +
           std::to_string(ranges[1]) + ": register tile " +
           std::to_string(tile->rows) + " x " + std::to_string(tile->panel) +
           " (cost " + format(tile->cost) + ")";
    if (pairs)
      *why += pairsRemark(t);
  }
  return GemmTilingAttr::get(ctx, tile->panel, tile->rows, 0, 0, 0, pairs,
                             /*dot=*/false, /*widenPairs=*/false);
}

/// The op that defines `init` if its columns can be computed part by part
/// and only its GEMM reads it (besides tensor.dim): a linear layer's bias
/// broadcast (broadcastBias) or zero fill, into a tensor.empty; null
/// otherwise.
static Operation *columnwiseInit(Value init) {
  Operation *op = init.getDefiningOp();
  int uses = 0;
  for (Operation *user : init.getUsers())
    uses += !isa<tensor::DimOp>(user);
  if (uses != 1 || !(isa_and_nonnull<linalg::FillOp>(op) || broadcastBias(op)))
    return nullptr;
  Value dest = cast<DestinationStyleOpInterface>(op).getDpsInits()[0];
  return dest.getDefiningOp<tensor::EmptyOp>() ? op : nullptr;
}

/// The last N mod L columns of a linear layer's GEMM (L the lanes) as a
/// GEMM of their own where they are at most half a vector and there are
/// whole vectors before them: `C = init` with columns [0, N0) from the
/// first N0 = N - (N mod L) columns of W and [N0, N) from the rest, each
/// part a GEMM (kGemmAttr) that gets its own tiling, the second dot
/// products along K. Panels over all N computed the last vector's padding
/// for one column: 768 -> 17 ran at 52-61 GFLOP/s where 768 -> 16 runs at
/// 91-117 (Zen 4, M = 4..128), 768 -> 129 at 93 against 116 for 128. An
/// activation epilogue becomes a row kernel over the joined C. Only where
/// that drops at least an eighth of the columns the panels compute
/// (`panelOf(n)`: the panel width the tiling of n columns takes): the
/// joined output costs a copy, which made 768 -> 50257 (50304 columns
/// either way) 5 % slower at M = 128 and 512.
static void splitLastColumns(linalg::GenericOp gemm, const CpuTarget &t,
                             function_ref<int64_t(int64_t)> panelOf) {
  auto a = cast<RankedTensorType>(gemm.getDpsInputs()[0].getType());
  auto w = cast<RankedTensorType>(gemm.getDpsInputs()[1].getType());
  int64_t k = w.getDimSize(0), n = w.getDimSize(1), lanes = t.lanes();
  int64_t rest = ShapedType::isDynamic(n) ? 0 : n % lanes;
  if (gemm.getNumLoops() != 4 || a.getRank() != 3 || ShapedType::isDynamic(k) ||
      k < lanes || n < lanes || rest == 0 || 2 * rest > lanes)
    return;
  int64_t computed = llvm::alignTo(n, panelOf(n));
  int64_t saved =
      computed - int64_t(llvm::alignTo(n - rest, panelOf(n - rest)));
  if (8 * saved < computed)
    return;
  OpBuilder b(gemm);
  Location loc = gemm.getLoc();
  // The offsets, sizes and strides of `v` from column `from` on (`size`
  // columns, or as many as `v` has).
  auto lastDim = [&](Value v, int64_t from, std::optional<int64_t> size) {
    int64_t rank = cast<RankedTensorType>(v.getType()).getRank();
    SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0));
    SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, v);
    SmallVector<OpFoldResult> strides(rank, b.getIndexAttr(1));
    offsets.back() = b.getIndexAttr(from);
    if (size)
      sizes.back() = b.getIndexAttr(*size);
    return std::tuple{offsets, sizes, strides};
  };
  auto columns = [&](Value v, int64_t from, int64_t size) -> Value {
    auto [offsets, sizes, strides] = lastDim(v, from, size);
    return tensor::ExtractSliceOp::create(b, loc, v, offsets, sizes, strides)
        .getResult();
  };
  auto join = [&](Value part, Value into, int64_t from) -> Value {
    auto [offsets, sizes, strides] = lastDim(part, from, std::nullopt);
    return tensor::InsertSliceOp::create(b, loc, part, into, offsets, sizes,
                                         strides)
        .getResult();
  };
  Value weights = gemm.getDpsInputs()[1], c = gemm.getDpsInits()[0];
  // A linear layer's init, its bias broadcast or zero fill into an empty
  // tensor, is built per part (from the bias's columns): each part's init
  // is then its GEMM's own, which attune-fuse-gemm-inits fuses into the
  // GEMM's tiles, instead of one row kernel over rows of N (768 -> 17 at
  // M = 4 on 2 threads: a parallel region over 4 rows of 17 floats), and
  // the parts are joined into the empty tensor.
  Operation *whole = columnwiseInit(c);
  if (whole) {
    Value empty = cast<DestinationStyleOpInterface>(whole).getDpsInits()[0];
    for (Operation *user : llvm::make_early_inc_range(c.getUsers()))
      if (auto dim = dyn_cast<tensor::DimOp>(user))
        dim.getSourceMutable().assign(empty);
    c = empty;
  }
  Value full = c;
  auto initOf = [&](int64_t from, int64_t size) -> Value {
    if (!whole)
      return columns(c, from, size);
    auto [offsets, sizes, strides] = lastDim(full, from, size);
    Value empty = tensor::EmptyOp::create(
        b, loc, sizes, cast<RankedTensorType>(full.getType()).getElementType());
    if (auto fill = dyn_cast<linalg::FillOp>(whole))
      return linalg::FillOp::create(b, loc, fill.getInputs(), empty)
          .getResult(0);
    Value bias = columns(broadcastBias(whole), from, size);
    return clone(b, whole, TypeRange{empty.getType()}, ValueRange{bias, empty})
        ->getResult(0);
  };
  int64_t main = n - rest;
  for (auto [from, size] : {std::pair{int64_t(0), main}, {main, rest}}) {
    Value init = initOf(from, size);
    Operation *part = clone(
        b, gemm, TypeRange{init.getType()},
        ValueRange{gemm.getDpsInputs()[0], columns(weights, from, size), init});
    part->setAttr(kGemmAttr, b.getUnitAttr());
    c = join(part->getResult(0), c, from);
  }
  for (Operation *user : gemm->getUsers())
    user->removeAttr(kEpilogueAttr);
  gemm.getResult(0).replaceAllUsesWith(c);
  gemm->erase();
  if (whole)
    whole->erase();
}

/// Whether `op` still has the form the lowering gave a linear layer's
/// GEMM: C[b, m, n] += A[b, m, k] W[k, n], A and W its two inputs.
/// Folding can change a marked one: a step of an unrolled recurrence whose
/// state is a zero constant reads only W once the zeros are folded in.
static bool isGemm(linalg::GenericOp op) {
  return op && op.getNumDpsInputs() == 2 && op.getNumDpsInits() == 1 &&
         op.getNumLoops() == 4 && op.getNumReductionLoops() == 1 &&
         cast<ShapedType>(op.getDpsInputs()[1].getType()).getRank() == 2;
}

/// The linear layer's GEMM `op` stands for: itself (attune.gemm), or its
/// epilogue's producer; null for other ops, and for those marks whose op
/// is no longer a GEMM (the marks are dropped: the op is left to the
/// vectorizer, as it is).
static linalg::GenericOp gemmOf(linalg::GenericOp op) {
  linalg::GenericOp gemm;
  if (op->hasAttr(kGemmAttr))
    gemm = op;
  else if (op->hasAttr(kEpilogueAttr))
    gemm = op.getDpsInputs()[0].getDefiningOp<linalg::GenericOp>();
  else
    return {};
  if (isGemm(gemm))
    return gemm;
  op->removeAttr(kGemmAttr);
  op->removeAttr(kEpilogueAttr);
  return {};
}

/// The rows a GEMM's register tiles run over: M of one batch of a
/// [B, M, K] input, dynamic otherwise.
static int64_t rowsOf(linalg::GenericOp gemm) {
  auto a = cast<RankedTensorType>(gemm.getDpsInputs()[0].getType());
  return a.getRank() == 3 ? a.getDimSize(1) : ShapedType::kDynamic;
}

struct AttuneSelectCpuTilingPass
    : mlir::attune::impl::AttuneSelectCpuTilingBase<
          AttuneSelectCpuTilingPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    std::string error;
    std::optional<CpuTarget> target = lookupCpuTarget(cpu, features, error);
    if (!target) {
      module.emitError("attune-select-cpu-tiling: ") << error;
      return signalPassFailure();
    }
    if (!llvm::is_contained(kComputeNames, compute)) {
      module.emitError("attune-select-cpu-tiling: compute=")
          << compute << ": expected f32 or bf16";
      return signalPassFailure();
    }
    if (!llvm::is_contained(kPanelStorageNames, weights)) {
      module.emitError("attune-select-cpu-tiling: weights=")
          << weights << ": expected " << panelStorageChoices();
      return signalPassFailure();
    }
    bool bf16Dot = compute == "bf16";
    bool widenPairs = weights == "bf16";
    std::string why;
    std::string *explainTo = explain ? &why : nullptr;
    SmallVector<linalg::GenericOp> gemms;
    module.walk([&](linalg::GenericOp op) {
      if (linalg::GenericOp gemm = gemmOf(op))
        gemms.push_back(gemm);
    });
    for (linalg::GenericOp gemm : gemms) {
      int64_t m = rowsOf(gemm);
      int64_t k = cast<RankedTensorType>(gemm.getDpsInputs()[1].getType())
                      .getDimSize(0);
      splitLastColumns(gemm, *target, [&](int64_t n) {
        return gemmTiling(
                   ctx, *target, m, k, n, [](int64_t) { return false; },
                   bf16Dot, widenPairs, nullptr)
            .getPanel();
      });
    }
    // The first op whose tiling takes bf16 k-pairs, for the warning below.
    Operation *firstPairs = nullptr;
    auto setTiling = [&](linalg::GenericOp op, GemmTilingAttr tiling) {
      op->setAttr(kTilingAttr, tiling);
      if (!firstPairs && tiling.getBf16Dot())
        firstPairs = op;
      if (explain)
        op.emitRemark(why);
    };
    module.walk([&](linalg::GenericOp op) {
      if (op->hasAttr(kTileGemmAttr)) {
        setTiling(op, tileGemmTiling(ctx, *target, op, explainTo));
        return;
      }
      // A linear layer's GEMM, or the epilogue that stands for it.
      linalg::GenericOp gemm = gemmOf(op);
      if (!gemm)
        return;
      auto wType = cast<RankedTensorType>(gemm.getDpsInputs()[1].getType());
      int64_t m = rowsOf(gemm);
      auto readAsHeads = [&](int64_t width) {
        return op == gemm && op.getNumLoops() == 4 &&
               !headUses(gemm, width).empty();
      };
      setTiling(op, gemmTiling(ctx, *target, m, wType.getDimSize(0),
                               wType.getDimSize(1), readAsHeads, bf16Dot,
                               widenPairs, explainTo));
    });
    // bf16 arithmetic asked of a CPU without vdpbf16ps is emulated with
    // FMAs: the same results, but a compute-bound GEMM pays two FMAs and
    // the widening per pair where an f32 GEMM pays two FMAs. Said once, at
    // the first GEMM it applies to.
    if (firstPairs && !target->bf16Dot())
      firstPairs->emitWarning()
          << "bf16 compute on " << target->name
          << ", which has no AVX512-BF16: the bf16 products are emulated "
             "with FMAs (the results vdpbf16ps gives), slower than f32 "
             "where the GEMMs are compute-bound (on a Zen 3: an encoder "
             "layer 2.1x, attention 1.5x); memory-bound ones (a decoding "
             "step) still gain from the halved weight bytes";
    // Marked ops (of any kind, the transposes too) are work for the kernel
    // schedule.
    bool marked = false;
    module.walk([&](Operation *op) { marked |= hasKernelMark(op); });
    if (marked)
      module->setAttr(kCpuKernelsAttr, UnitAttr::get(ctx));
  }
};

} // namespace
