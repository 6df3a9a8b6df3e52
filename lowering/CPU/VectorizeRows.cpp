//===- VectorizeRows.cpp - row kernels, one vectorized row at a time --------===//
//
// attune-vectorize-rows: the element-wise and row-reduction kernels outside
// the GEMMs and tiled attention (layer norm, residual adds, the softmax of
// short attention) vectorized row by row (see vectorizeRows).
//
//===----------------------------------------------------------------------===//

#include "lowering/CPU/CpuKernels.h"
#include "lowering/Passes.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/bit.h"

namespace mlir::attune {
#define GEN_PASS_DEF_ATTUNEVECTORIZEROWS
#include "lowering/Passes.h.inc"
} // namespace mlir::attune

using namespace mlir;
using namespace mlir::attune;
using namespace mlir::attune::cpu;

/// Whether every operand of `op` is a projected permutation that indexes its
/// last loop (the row) last, if at all, and its body gathers nothing (the
/// vectorizer's gathers, tensor.extract in the body, are not worth it).
static bool readsAlongRows(linalg::LinalgOp op) {
  unsigned loops = op.getNumLoops();
  for (AffineMap map : op.getIndexingMapsArray()) {
    if (!map.isProjectedPermutation())
      return false;
    for (unsigned r = 0; r < map.getNumResults(); ++r)
      if (map.getDimPosition(r) == loops - 1 && r + 1 != map.getNumResults())
        return false;
  }
  bool extracts = false;
  op.getBlock()->walk([&](tensor::ExtractOp) { extracts = true; });
  return !extracts;
}

/// Whether `op` is a row-wise kernel worth vectorizing row by row: at least
/// two loops, all parallel but possibly the last (a row reduction), the last
/// static with 16 to 4096 iterations, and every operand either contiguous
/// along it (its last index) or not indexed by it (broadcast).
static bool isRowKernel(linalg::LinalgOp op) {
  unsigned loops = op.getNumLoops();
  if (!isa<linalg::GenericOp, linalg::TransposeOp>(op.getOperation()) ||
      loops < 2 || op.getNumDpsInits() == 0 || !op.hasPureTensorSemantics())
    return false;
  // No i1 tensors: a vector of i1 is bit-packed in memory (LLVM loads 16
  // booleans of a mask as 2 bytes), where a tensor of i1 holds one byte
  // each. Vectorized, a static [2, 16] bool key_padding_mask's bias read
  // the wrong bytes and the mask was lost; LLVM's own vectorizer widens the
  // scalar loop's byte loads correctly.
  auto isBool = [](Type t) { return getElementTypeOrSelf(t).isInteger(1); };
  if (llvm::any_of(op->getOperandTypes(), isBool) ||
      llvm::any_of(op->getResultTypes(), isBool))
    return false;
  SmallVector<utils::IteratorType> iters = op.getIteratorTypesArray();
  for (unsigned d = 0; d + 1 < loops; ++d)
    if (iters[d] != utils::IteratorType::parallel)
      return false;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  int64_t last = ranges.back();
  if (ShapedType::isDynamic(last) || last < 16 || last > 4096 ||
      (last % 16 != 0 && last > 256))
    return false;
  return readsAlongRows(op);
}

/// The chunk a row of `n` elements is vectorized in: 64, 32 or 16 if one
/// divides it, else the whole row (at most 4096; isRowKernel bounds it)
/// when it is at most 256.
static int64_t rowChunk(int64_t n) {
  for (int64_t c : {64, 32, 16})
    if (n % c == 0)
      return c;
  return n;
}

/// The init of a linear layer's GEMM (its bias broadcast, the GEMM's only
/// user): fuseGemmInits fuses it into the GEMM's cache tiles, so the row
/// kernels leave it alone.
static bool isGemmInit(linalg::LinalgOp op) {
  if (op->getNumResults() != 1)
    return false;
  bool init = false;
  for (OpOperand &use : op->getResult(0).getUses()) {
    if (isa<tensor::DimOp>(use.getOwner()))
      continue;
    auto user = dyn_cast<linalg::GenericOp>(use.getOwner());
    auto feedsEpilogue = [](linalg::GenericOp g) {
      return llvm::any_of(g->getUsers(), [](Operation *u) {
        return u->hasAttr(kEpilogueAttr);
      });
    };
    if (init || !user ||
        !(user->hasAttr(kGemmAttr) || feedsEpilogue(user)) ||
        !user.isDpsInit(&use))
      return false;
    init = true;
  }
  return init;
}

/// Chunks each row kernel in `rows` (tiles of one row) along the row and
/// vectorizes it; whether it vectorized any.
static bool vectorizeRowTiles(RewriterBase &rewriter,
                              ArrayRef<Operation *> rows, int64_t length) {
  // Long rows in chunks of 64 (four zmm per operand), an scf.for along the
  // row (a reduction's partial sums carried through it): a whole 768-wide
  // row as one vector spilled most of it and sent LLVM's register
  // allocator quadratic (minutes for a 12-layer encoder).
  SmallVector<Operation *> chunks(rows);
  if (int64_t chunk = rowChunk(length); chunk < length) {
    chunks.clear();
    for (Operation *row : rows) {
      SmallVector<int64_t> along(cast<linalg::LinalgOp>(row).getNumLoops(), 0);
      along.back() = chunk;
      llvm::append_range(chunks, tileAndReplace(rewriter, row, along, false));
    }
  }
  bool any = false;
  for (Operation *row : chunks)
    any |= vectorizeInPlace(rewriter, row);
  return any;
}

/// Row kernels of `kernels` that only row kernels read, with the rows of
/// `consumer` (an element-wise row kernel), fused into its row loop: a
/// layer norm's row sum and variance, computed per row right before the row
/// is normalized, instead of three passes over the whole [M, N] input (each
/// re-adding the residual; for M = 512, 3 MiB of inputs, past L2, streamed
/// three times). A producer that several fused kernels read is fused once
/// per distinct slice of it (the mean, which the variance and the
/// normalization both read for the same row, is computed once). Returns the
/// row tiles of the consumer and the fused producers (none where there is
/// nothing to fuse or tiling fails). The consumer and the producers nothing
/// else reads any more are erased, moved from `kernels` to `erased`.
static SmallVector<Operation *>
fuseRowProducers(RewriterBase &rewriter, linalg::LinalgOp consumer,
                 ArrayRef<int64_t> sizes,
                 llvm::SmallPtrSetImpl<Operation *> &kernels,
                 llvm::SmallPtrSetImpl<Operation *> &erased, bool forall) {
  unsigned loops = consumer.getNumLoops();
  int64_t length = consumer.getStaticLoopRanges().back();
  // The rows of one tile, and its largest extent along one dim (a bound on
  // any dynamic extent of a slice of it).
  int64_t tileRows = 1, largest = 1;
  for (int64_t size : sizes.drop_back()) {
    tileRows *= std::max<int64_t>(size, 1);
    largest = std::max<int64_t>(largest, size);
  }
  // The producers that fuse, from the consumer's inputs back, before tiling
  // adds slices of them: row kernels of as many loops, the last over rows
  // of the same length, that only row kernels read.
  llvm::SmallPtrSet<Operation *, 4> fusable;
  SmallVector<Value> worklist(consumer.getDpsInputs());
  while (!worklist.empty()) {
    Operation *op = worklist.pop_back_val().getDefiningOp();
    auto producer = dyn_cast_or_null<linalg::LinalgOp>(op);
    if (!producer || !kernels.contains(op) || op == consumer ||
        fusable.contains(op) || producer.getNumLoops() != loops ||
        producer.getStaticLoopRanges().back() != length ||
        !llvm::all_of(op->getUsers(), [&](Operation *user) {
          return isa<tensor::DimOp>(user) || kernels.contains(user);
        }))
      continue;
    fusable.insert(op);
    llvm::append_range(worklist, producer.getDpsInputs());
  }
  if (fusable.empty())
    return {};
  FailureOr<scf::SCFTileAndFuseResult> result = tileAndFuse(
      rewriter, consumer, sizes, forall,
      [&](tensor::ExtractSliceOp slice, OpResult producer, bool isInit)
          -> std::optional<scf::SCFTileAndFuseOptions::ControlFnResult> {
        // One tile's worth of the producer, not all of it broadcast: no
        // more than a tile's elements, a dynamic extent (the tile of a
        // dynamic dim, or its last partial one) counted as the tile's
        // largest.
        RankedTensorType type = slice.getResultType();
        int64_t elements = 1;
        for (int64_t d : type.getShape())
          elements *= ShapedType::isDynamic(d) ? largest : d;
        if (isInit || !fusable.contains(producer.getOwner()) ||
            elements > length * tileRows)
          return std::nullopt;
        return scf::SCFTileAndFuseOptions::ControlFnResult{};
      });
  if (failed(result) || result->fusedProducers.empty())
    return {};
  for (OpResult r : consumer->getResults())
    rewriter.replaceAllUsesWith(r, result->replacements.lookup(r));
  // The consumer, then each fused producer nothing else reads (the variance
  // before the mean it reads; a tensor.dim of a producer reads its init).
  kernels.erase(consumer);
  erased.insert(consumer);
  rewriter.eraseOp(consumer);
  for (bool again = true; again;) {
    again = false;
    for (Operation *producer : result->fusedProducers) {
      if (erased.contains(producer))
        continue;
      auto dps = cast<DestinationStyleOpInterface>(producer);
      for (OpResult r : producer->getResults())
        for (Operation *user : llvm::make_early_inc_range(r.getUsers()))
          if (auto dim = dyn_cast<tensor::DimOp>(user))
            rewriter.modifyOpInPlace(dim, [&] {
              dim.getSourceMutable().assign(dps.getTiedOpOperand(r)->get());
            });
      if (!producer->use_empty())
        continue;
      kernels.erase(producer);
      erased.insert(producer);
      rewriter.eraseOp(producer);
      again = true;
    }
  }
  return SmallVector<Operation *>(result->tiledAndFusedOps.begin(),
                                  result->tiledAndFusedOps.end());
}

/// Tile sizes of one row of `op`: every loop but the last by 1.
static SmallVector<int64_t> rowSizes(linalg::LinalgOp op) {
  SmallVector<int64_t> sizes(op.getNumLoops(), 1);
  sizes.back() = 0;
  return sizes;
}

/// The element-wise and row-reduction kernels outside the GEMMs and tiled
/// attention (layer norm, residual adds, softmax of short attention, ...):
/// every loop but the last tiled by 1, and the row vectorized (768 floats
/// as 48 zmm). Scalar, a layer norm's row sums were a chain of dependent
/// adds, stored every step. Row kernels that only feed others of the same
/// rows are fused into the row loop of the element-wise one they feed
/// (fuseRowProducers). Returns whether it vectorized any.
static bool vectorizeRows(ModuleOp module) {
  SmallVector<linalg::LinalgOp> ops;
  module.walk([&](linalg::LinalgOp op) {
    if (!hasKernelMark(op) && isRowKernel(op) && !isGemmInit(op))
      ops.push_back(op);
  });
  llvm::SmallPtrSet<Operation *, 16> kernels, erased;
  for (linalg::LinalgOp op : ops)
    kernels.insert(op);
  IRRewriter rewriter(module.getContext());
  bool any = false;
  // Element-wise consumers first, last to first, each with what it fuses.
  for (linalg::LinalgOp op : llvm::reverse(ops)) {
    if (erased.contains(op) || op.getNumReductionLoops() != 0)
      continue;
    int64_t length = op.getStaticLoopRanges().back();
    SmallVector<Operation *> tiles = fuseRowProducers(
        rewriter, op, rowSizes(op), kernels, erased, /*forall=*/false);
    any |= vectorizeRowTiles(rewriter, tiles, length);
  }
  for (linalg::LinalgOp op : ops) {
    if (erased.contains(op))
      continue;
    int64_t length = op.getStaticLoopRanges().back();
    SmallVector<Operation *> rows =
        tileAndReplace(rewriter, op, rowSizes(op), /*forall=*/false);
    any |= vectorizeRowTiles(rewriter, rows, length);
  }
  return any;
}

/// Elements (f32) of a block of rows that one thread takes at a time: a
/// parallel region costs about 1.5 us on 2 threads (Zen 4), a row of 768
/// of a layer norm with its residual add 0.18 us; with rows one by one, the
/// region lost up to 16 rows (4 rows: 1.0 us serial, 3.0 on 2 threads).
/// Blocks of at most 16384 elements (16 rows of 768, 64 KiB), in a power of
/// two of rows: a kernel of up to 16 rows of 768 is one block, which runs
/// without waking the threads (attune-omp-schedule's serial path), and 64
/// rows are 4 blocks, 2 for each of 2 threads (21-row blocks, 21 + 21 on
/// one thread and 21 + 1 on the other, lost 15 % at 64 rows).
static constexpr int64_t kRowBlockElements = 16384;

/// The tile sizes of `op`'s blocks of rows: about kRowBlockElements
/// elements, taken from the innermost leading loop out (a static extent
/// smaller than the block whole, the rest from the loop outside it: [B, 1,
/// E], a decoding step's beams, blocks B); the row whole.
static SmallVector<int64_t> rowBlockSizes(linalg::LinalgOp op) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  SmallVector<int64_t> sizes(ranges.size(), 1);
  sizes.back() = 0;
  int64_t rows = static_cast<int64_t>(llvm::bit_floor<uint64_t>(
      std::max<int64_t>(kRowBlockElements / ranges.back(), 1)));
  for (int64_t d = static_cast<int64_t>(ranges.size()) - 2; d >= 0 && rows > 1;
       --d) {
    if (!ShapedType::isDynamic(ranges[d]) && ranges[d] < rows) {
      sizes[d] = ranges[d];
      rows = llvm::divideCeil(rows, ranges[d]);
      continue;
    }
    sizes[d] = rows;
    rows = 1;
  }
  return sizes;
}

/// With `parallel`: each row kernel outside any loop (with the row kernels
/// it fuses, as fuseRowProducers) as an scf.forall over blocks of rows
/// (rowBlockSizes), which vectorizeRows then runs one row at a time.
static void blockRowsForThreads(ModuleOp module) {
  SmallVector<linalg::LinalgOp> ops;
  module.walk([&](linalg::LinalgOp op) {
    if (!hasKernelMark(op) && isRowKernel(op) && !isGemmInit(op) &&
        parallelRows(op, /*parallel=*/true))
      ops.push_back(op);
  });
  llvm::SmallPtrSet<Operation *, 16> kernels, erased;
  for (linalg::LinalgOp op : ops)
    kernels.insert(op);
  IRRewriter rewriter(module.getContext());
  for (linalg::LinalgOp op : llvm::reverse(ops)) {
    if (erased.contains(op) || op.getNumReductionLoops() != 0)
      continue;
    (void)fuseRowProducers(rewriter, op, rowBlockSizes(op), kernels, erased,
                           /*forall=*/true);
  }
  for (linalg::LinalgOp op : ops)
    if (!erased.contains(op))
      (void)tileAndReplace(rewriter, op, rowBlockSizes(op), /*forall=*/true);
}

/// The leading parallel loops of `op` if it updates whole rows from a
/// reduction, else 0: leading parallel loops, then reductions, then one
/// parallel loop along the rows (static, 16 to 4096), which the result and
/// every operand that reads it index last. The absorbed cross-attention's
/// `q_h Wk_h` ([B, H, Lq, D] x [H, D, E]: each output row, E wide, a sum of
/// D scaled rows of Wk_h) is one: plain loops that LLVM vectorizes along
/// the row.
static unsigned rowUpdateLoops(linalg::LinalgOp op) {
  unsigned loops = op.getNumLoops();
  if (!isa<linalg::GenericOp>(op.getOperation()) || loops < 3 ||
      op.getNumDpsInits() != 1 || !op.hasPureTensorSemantics())
    return 0;
  SmallVector<utils::IteratorType> iters = op.getIteratorTypesArray();
  auto isParallel = [&](unsigned d) {
    return iters[d] == utils::IteratorType::parallel;
  };
  unsigned leading = 0;
  while (leading < loops && isParallel(leading))
    ++leading;
  unsigned d = leading;
  while (d < loops && !isParallel(d))
    ++d;
  if (leading == 0 || d == leading || d + 1 != loops)
    return 0;
  int64_t last = op.getStaticLoopRanges().back();
  if (ShapedType::isDynamic(last) || last < 16 || last > 4096)
    return 0;
  return readsAlongRows(op) ? leading : 0;
}

/// With `parallel`: each row-update kernel outside loops as an scf.forall
/// over its leading parallel loops, each row's update as it was. Serial,
/// q_h Wk_h of a decoding step ran on one thread (6 % of the BERT-sized
/// decoder step at 2 threads).
static void parallelRowUpdates(ModuleOp module, bool parallel) {
  SmallVector<std::pair<linalg::LinalgOp, unsigned>> ops;
  module.walk([&](linalg::LinalgOp op) {
    if (hasKernelMark(op) || !parallelRows(op, parallel))
      return;
    if (unsigned leading = rowUpdateLoops(op))
      ops.push_back({op, leading});
  });
  IRRewriter rewriter(module.getContext());
  for (auto [op, leading] : ops) {
    SmallVector<int64_t> sizes(op.getNumLoops(), 0);
    std::fill_n(sizes.begin(), leading, 1);
    tileAndReplace(rewriter, op, sizes, /*forall=*/true);
  }
}

namespace {
struct AttuneVectorizeRowsPass
    : mlir::attune::impl::AttuneVectorizeRowsBase<AttuneVectorizeRowsPass> {
  using Base::Base;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    parallelRowUpdates(module, parallel);
    if (parallel)
      blockRowsForThreads(module);
    // The vector code needs the kernel schedule's lowering patterns.
    if (!vectorizeRows(module))
      return;
    module->setAttr(kCpuKernelsAttr, UnitAttr::get(&getContext()));
    // The rows' reductions as 1-D vector reductions now, before the
    // schedule's reduction_to_contract sees them: a row's dot product (the
    // scores of a decoding step's attention, q . k_j) made a contraction
    // whose outer-product lowering is one dependent scalar FMA per element
    // (64 in a chain per score), where a vector reduction multiplies whole
    // vectors and adds them in a tree (`reassoc`, attune-finish-cpu-kernels).
    RewritePatternSet patterns(&getContext());
    vector::populateVectorMultiReductionLoweringPatterns(
        patterns, vector::VectorMultiReductionLowering::InnerReduction);
    if (failed(applyPatternsGreedily(module, std::move(patterns))))
      return signalPassFailure();
  }
};
} // namespace
