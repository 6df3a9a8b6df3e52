//===- EpilogueInRegisters.cpp - activate GEMM tiles in registers ---------===//

#include "lowering/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"

#include "llvm/ADT/BitVector.h"

namespace mlir::attune {
#define GEN_PASS_DEF_ATTUNEEPILOGUEINREGISTERS
#include "lowering/Passes.h.inc"
} // namespace mlir::attune

using namespace mlir;

/// Columns per piece of a register tile that the epilogue runs on at a
/// time: one AVX-512 register of f32 (two AVX2 ones).
static constexpr int64_t kPieceLanes = 16;

namespace {
/// An epilogue loop: for %r = 0 to %rows { %v = read %in[.., %r, ..];
/// element-wise ops; write %e, %out[.., %r, ..] }, reading one row vector
/// (all dims 1 but the last) at a time.
struct Epilogue {
  scf::ForOp loop;
  vector::TransferReadOp read;
  vector::TransferWriteOp write;
  SmallVector<Operation *> body; // the element-wise ops, in order
  int64_t inDim, outDim;         // where the row index goes
};

/// A register tile's store of its accumulators into the GEMM's output tile:
/// the row (along Epilogue::inDim) of that tile it starts at, and the first
/// column (a panel stored in chunks, attune-tile-gemm's vectorizeInChunks,
/// has one store per chunk).
struct TileStore {
  vector::TransferWriteOp write;
  SmallVector<OpFoldResult> rowTerms; // summed: the row in the output tile
  int64_t column = 0;
};
} // namespace

/// The position of `iv` among `indices` where all others are constant 0;
/// -1 if there is no such position.
static int64_t rowPosition(ValueRange indices, Value iv) {
  int64_t pos = -1;
  for (auto [i, index] : llvm::enumerate(indices)) {
    if (index == iv && pos < 0)
      pos = i;
    else if (!isConstantIntValue(index, 0))
      return -1;
  }
  return pos;
}

/// Whether `type` is a row vector: rank >= 2, every dim 1 but the last.
static bool isRowVector(VectorType type) {
  return type.getRank() >= 2 && !type.isScalable() &&
         llvm::all_of(type.getShape().drop_back(),
                      [](int64_t d) { return d == 1; });
}

static std::optional<Epilogue> matchEpilogue(scf::ForOp loop) {
  if (!isConstantIntValue(loop.getLowerBound(), 0) ||
      !isConstantIntValue(loop.getStep(), 1) || loop.getNumResults() != 0)
    return std::nullopt;
  Block *body = loop.getBody();
  auto read = dyn_cast<vector::TransferReadOp>(body->front());
  auto write = body->getTerminator()->getPrevNode()
                   ? dyn_cast<vector::TransferWriteOp>(
                         body->getTerminator()->getPrevNode())
                   : nullptr;
  if (!read || !write || read.getMask() || write.getMask() ||
      !isa<MemRefType>(read.getBase().getType()) ||
      !isa<MemRefType>(write.getBase().getType()) ||
      !read.getPermutationMap().isMinorIdentity() ||
      !write.getPermutationMap().isMinorIdentity() ||
      !isRowVector(read.getVectorType()) ||
      read.getVectorType() != write.getVectorType() ||
      llvm::any_of(read.getInBoundsValues(), [](bool b) { return !b; }) ||
      llvm::any_of(write.getInBoundsValues(), [](bool b) { return !b; }) ||
      loop->isAncestor(read.getBase().getParentBlock()->getParentOp()) ||
      loop->isAncestor(write.getBase().getParentBlock()->getParentOp()))
    return std::nullopt;
  Epilogue e{loop, read, write, {}, -1, -1};
  e.inDim = rowPosition(read.getIndices(), loop.getInductionVar());
  e.outDim = rowPosition(write.getIndices(), loop.getInductionVar());
  if (e.inDim < 0 || e.outDim < 0 ||
      e.inDim + 1 >= read.getVectorType().getRank() ||
      e.outDim + 1 >= write.getVectorType().getRank())
    return std::nullopt;
  // Element-wise ops on vectors of the read's shape, from the read to the
  // value written.
  ArrayRef<int64_t> shape = read.getVectorType().getShape();
  auto rowShaped = [&](Type t) {
    auto v = dyn_cast<VectorType>(t);
    return v && v.getShape() == shape;
  };
  for (Operation *op = read->getNextNode(); op != write; op = op->getNextNode()) {
    if (!op->hasTrait<OpTrait::Elementwise>() || op->getNumRegions() ||
        op->getNumResults() != 1 || !rowShaped(op->getResult(0).getType()) ||
        !llvm::all_of(op->getOperandTypes(), rowShaped))
      return std::nullopt;
    e.body.push_back(op);
  }
  // What is written is the row read or computed from it.
  Value written = write.getVector();
  if (written != read.getResult() &&
      (e.body.empty() || written != e.body.back()->getResult(0)))
    return std::nullopt;
  return e;
}

/// Whether `v` is `tile` or a view of it (through memref.subview).
static bool isViewOf(Value v, Value tile) {
  while (v != tile)
    if (auto view = v.getDefiningOp<memref::SubViewOp>())
      v = view.getSource();
    else
      return false;
  return true;
}

/// The register tiles' stores into `tile` (through memref.subview) in `k`:
/// each writes rows along `dim` only (every other offset and index 0).
/// Fails if `tile` is written any other way there.
static FailureOr<SmallVector<TileStore>>
tileStores(Operation *k, Value tile, int64_t dim) {
  SmallVector<TileStore> stores;
  bool ok = true;
  auto inTile = [&](Value v) { return isViewOf(v, tile); };
  k->walk([&](Operation *op) {
    auto write = dyn_cast<vector::TransferWriteOp>(op);
    if (!write) {
      // Only views and reads of the tile besides the stores: another
      // writer (a copy, a fill) would be missed.
      if (!isa<memref::SubViewOp, vector::TransferReadOp>(op) &&
          llvm::any_of(op->getOperands(), inTile))
        ok = false;
      return;
    }
    if (!inTile(write.getBase()))
      return; // not a store into the tile
    TileStore s{write, {}, 0};
    Value base = write.getBase();
    while (base != tile) {
      auto view = base.getDefiningOp<memref::SubViewOp>();
      if (!view.hasUnitStride() ||
          view.getSourceType().getRank() != view.getType().getRank())
        return (void)(ok = false);
      for (auto [i, offset] : llvm::enumerate(view.getMixedOffsets()))
        if ((int64_t)i != dim && !isZeroInteger(offset))
          return (void)(ok = false);
      s.rowTerms.push_back(view.getMixedOffsets()[dim]);
      base = view.getSource();
    }
    VectorType type = write.getVectorType();
    ValueRange at = write.getIndices();
    for (auto [i, index] : llvm::enumerate(at)) {
      if ((int64_t)i == dim)
        continue;
      // 0, or the chunk's first column in the last dim.
      std::optional<int64_t> c = getConstantIntValue(index);
      bool last = i + 1 == at.size();
      if (!c || *c < 0 || (*c != 0 && !last))
        return (void)(ok = false);
      if (last)
        s.column = *c;
    }
    for (int64_t d = 0; d < type.getRank(); ++d)
      if (d != dim && d + 1 != type.getRank() && type.getDimSize(d) != 1)
        return (void)(ok = false);
    if (write.getMask() || !write.getPermutationMap().isMinorIdentity() ||
        llvm::any_of(write.getInBoundsValues(), [](bool b) { return !b; }))
      return (void)(ok = false);
    s.rowTerms.push_back(at[dim]);
    stores.push_back(s);
  });
  if (!ok || stores.empty())
    return failure();
  return stores;
}

/// Whether the rows the register tiles of `k` write cover [0, rows): its
/// body is the full tiles' loop from 0 and the remainder loop from where
/// that stops to `rows` (attune-tile-gemm's register tiles, peeled).
static bool coversRows(scf::ForOp k, Value rows) {
  SmallVector<scf::ForOp> loops;
  for (Operation &op : k.getBody()->without_terminator()) {
    if (auto loop = dyn_cast<scf::ForOp>(op))
      loops.push_back(loop);
    else if (!isPure(&op))
      return false;
  }
  if (loops.empty() || !isConstantIntValue(loops.front().getLowerBound(), 0) ||
      loops.back().getUpperBound() != rows)
    return false;
  for (size_t i = 1; i < loops.size(); ++i)
    if (loops[i].getLowerBound() != loops[i - 1].getUpperBound())
      return false;
  return true;
}

/// Applies `e` to the last k tile's register tiles of the k tile loop in
/// front of it, then removes `e`.
static bool moveIntoRegisters(Epilogue &e) {
  Value tile = e.read.getBase();
  Value rows = e.loop.getUpperBound();
  // The k tile loop: the nearest scf.for before the epilogue that writes
  // the tile.
  scf::ForOp k;
  for (Operation *op = e.loop->getPrevNode(); op && !k; op = op->getPrevNode())
    if (auto loop = dyn_cast<scf::ForOp>(op)) {
      bool writes = false;
      loop->walk([&](vector::TransferWriteOp w) {
        writes |= isViewOf(w.getBase(), tile);
      });
      if (writes)
        k = loop;
    }
  if (!k)
    return false;
  std::optional<int64_t> lb = getConstantIntValue(k.getLowerBound());
  std::optional<int64_t> ub = getConstantIntValue(k.getUpperBound());
  std::optional<int64_t> step = getConstantIntValue(k.getStep());
  if (!lb || !ub || !step || *step <= 0 || *ub <= *lb ||
      k.getNumResults() != 0 || !coversRows(k, rows))
    return false;
  // What happens to the tile between the k tiles and the epilogue.
  for (Operation *op = k->getNextNode(); op != e.loop; op = op->getNextNode())
    if (!isPure(op))
      return false;
  if (failed(tileStores(k, tile, e.inDim)))
    return false;

  // One store per register tile loop (the full tiles', the remainder's)
  // of whole rows as wide as the epilogue's, or one per chunk of them.
  VectorType rowType = e.read.getVectorType();
  int64_t width = rowType.getShape().back();
  for (Operation &op : k.getBody()->without_terminator()) {
    FailureOr<SmallVector<TileStore>> s = tileStores(&op, tile, e.inDim);
    if (!isa<scf::ForOp>(op))
      continue;
    if (failed(s))
      return false;
    llvm::BitVector columns(width);
    for (TileStore &store : *s) {
      VectorType type = store.write.getVectorType();
      int64_t chunk = type.getShape().back();
      if (type.getRank() != rowType.getRank() ||
          type.getElementType() != rowType.getElementType() ||
          store.column + chunk > width ||
          columns.find_first_in(store.column, store.column + chunk) != -1)
        return false;
      columns.set(store.column, store.column + chunk);
    }
    if (!columns.all())
      return false;
  }
  // The tile's stores in the last k tile can go if nothing reads the tile
  // after the epilogue: its buffer is only viewed as `tile` (or is it) and
  // freed.
  bool dropStores = true;
  {
    Value root = tile;
    Operation *view = nullptr;
    if (auto sv = tile.getDefiningOp<memref::SubViewOp>()) {
      view = sv;
      root = sv.getSource();
    }
    if (!root.getDefiningOp<memref::AllocOp>())
      dropStores = false;
    for (Operation *user : root.getUsers())
      if (user != view && !isa<memref::DeallocOp>(user))
        dropStores = false;
    Block *block = e.loop->getBlock();
    for (Operation *user : tile.getUsers()) {
      Operation *at = block->findAncestorOpInBlock(*user);
      if (!at || (at != e.loop.getOperation() && e.loop->isBeforeInBlock(at)))
        dropStores = false;
    }
  }

  // The pure ops between the two (the output tile's view) go first: the
  // last k tile writes the output.
  for (Operation *op = k->getNextNode(); op != e.loop;) {
    Operation *next = op->getNextNode();
    op->moveBefore(k);
    op = next;
  }
  // Peel the last k tile: the loop runs one step less and a copy of its
  // body follows it at the last step.
  OpBuilder b(k);
  Location loc = k.getLoc();
  int64_t last = *lb + (*ub - *lb - 1) / *step * *step;
  Value lastIv = arith::ConstantIndexOp::create(b, loc, last);
  if (last > *lb) {
    auto rest = cast<scf::ForOp>(b.clone(*k));
    rest.setUpperBound(lastIv);
  }
  IRMapping map;
  map.map(k.getInductionVar(), lastIv);
  SmallVector<Operation *> peeled;
  for (Operation &op : k.getBody()->without_terminator())
    peeled.push_back(b.clone(op, map));
  k->erase();

  // The peeled body's stores: each also applies the epilogue and writes
  // the output rows.
  SmallVector<TileStore> stores;
  for (Operation *op : peeled)
    if (FailureOr<SmallVector<TileStore>> s = tileStores(op, tile, e.inDim);
        succeeded(s))
      llvm::append_range(stores, *s);
  for (TileStore &s : stores) {
    vector::TransferWriteOp write = s.write;
    OpBuilder wb(write->getContext());
    wb.setInsertionPointAfter(write);
    Location wl = write.getLoc();
    VectorType tileType = write.getVectorType();
    // The epilogue runs piece by piece: one row of the tile and at most
    // kPieceLanes columns, each piece's whole chain of ops before the next
    // piece's. Applied op by op to the whole tile (16 zmm registers for
    // 4 x 64), every op's results for all pieces were live at once: a GELU
    // spilled hundreds of registers unless LLVM's machine scheduler
    // interleaved the pieces, which AVX-512 code compiles without (the
    // driver's chooseMachineScheduler).
    ArrayRef<int64_t> tileShape = tileType.getShape();
    int64_t columns = tileShape.back();
    int64_t lanes = columns % kPieceLanes == 0 ? kPieceLanes : columns;
    SmallVector<int64_t> pieceShape(tileShape.size(), 1);
    pieceShape.back() = lanes;
    SmallVector<int64_t> unitStrides(tileShape.size(), 1);
    auto pieceType = VectorType::get(pieceShape, tileType.getElementType());
    Value result;
    // A row operand's pieces, shared by the tile's rows.
    llvm::DenseMap<std::pair<Value, int64_t>, Value> operandPieces;
    for (SmallVector<int64_t> at :
         StaticTileOffsetRange(tileShape, pieceShape)) {
      IRMapping m;
      m.map(e.read.getResult(),
            vector::ExtractStridedSliceOp::create(wb, wl, write.getVector(), at,
                                                  pieceShape, unitStrides)
                .getResult());
      for (Operation *op : e.body) {
        for (Value operand : op->getOperands()) {
          if (m.contains(operand))
            continue;
          // A value from outside the epilogue (a row: a splat constant, a
          // bias): the piece's columns of it, broadcast over its rows.
          int64_t first = s.column + at.back();
          if (Value known = operandPieces.lookup({operand, first})) {
            m.map(operand, known);
            continue;
          }
          Value v = operand;
          auto type = cast<VectorType>(v.getType());
          if (lanes != type.getShape().back()) {
            SmallVector<int64_t> offsets(type.getRank(), 0),
                sizes(type.getShape()), strides(type.getRank(), 1);
            offsets.back() = first;
            sizes.back() = lanes;
            v = vector::ExtractStridedSliceOp::create(wb, wl, v, offsets, sizes,
                                                      strides);
            type = cast<VectorType>(v.getType());
          }
          VectorType wide = pieceType.clone(type.getElementType());
          if (wide != type)
            v = vector::BroadcastOp::create(wb, wl, wide, v);
          operandPieces[{operand, first}] = v;
          m.map(operand, v);
        }
        Operation *c = wb.clone(*op, m);
        Type old = c->getResult(0).getType();
        c->getResult(0).setType(
            pieceType.clone(cast<VectorType>(old).getElementType()));
      }
      Value piece = m.lookup(e.write.getVector());
      if (!result) {
        auto resultType =
            tileType.clone(cast<VectorType>(piece.getType()).getElementType());
        result = arith::ConstantOp::create(wb, wl, resultType,
                                           wb.getZeroAttr(resultType));
      }
      result = vector::InsertStridedSliceOp::create(wb, wl, piece, result, at,
                                                    unitStrides);
    }
    Value v = result;
    // The rows along the output's row dim.
    SmallVector<int64_t> outShape(rowType.getShape());
    outShape[e.outDim] = tileType.getDimSize(e.inDim);
    outShape.back() = tileType.getShape().back();
    auto outType = VectorType::get(outShape, tileType.getElementType());
    if (outType != tileType)
      v = vector::ShapeCastOp::create(wb, wl, outType, v);
    Value row;
    for (OpFoldResult t : s.rowTerms) {
      if (isZeroInteger(t) && s.rowTerms.size() > 1)
        continue;
      Value term = getValueOrCreateConstantIndexOp(wb, wl, t);
      row = row ? arith::AddIOp::create(wb, wl, row, term).getResult() : term;
    }
    Value zero = arith::ConstantIndexOp::create(wb, wl, 0);
    if (!row)
      row = zero;
    SmallVector<Value> at(e.write.getIndices().size(), zero);
    at[e.outDim] = row;
    if (s.column)
      at.back() = arith::ConstantIndexOp::create(wb, wl, s.column);
    vector::TransferWriteOp::create(
        wb, wl, v, e.write.getBase(), at,
        ArrayRef<bool>(SmallVector<bool>(outType.getRank(), true)));
    if (dropStores)
      write->erase();
  }
  e.loop->erase();
  return true;
}

namespace {
struct AttuneEpilogueInRegistersPass
    : mlir::attune::impl::AttuneEpilogueInRegistersBase<
          AttuneEpilogueInRegistersPass> {
  void runOnOperation() override {
    // One at a time, matching again after each rewrite: a rewrite clones
    // and erases loops, which may hold other candidates. Candidates that
    // stay are marked so as not to be tried again.
    constexpr StringLiteral kTried = attune::kEpilogueTriedAttr;
    while (true) {
      std::optional<Epilogue> next;
      getOperation()->walk([&](scf::ForOp loop) {
        if (next || loop->hasAttr(kTried))
          return;
        next = matchEpilogue(loop);
      });
      if (!next)
        break;
      scf::ForOp loop = next->loop;
      if (!moveIntoRegisters(*next))
        loop->setAttr(kTried, UnitAttr::get(&getContext()));
    }
    getOperation()->walk([&](scf::ForOp loop) { loop->removeAttr(kTried); });
  }
};
} // namespace
