//===- CpuKernels.cpp - building blocks of the CPU kernel passes ----------===//

#include "lowering/CPU/CpuKernels.h"
#include "passes/Passes.h"

#include "attune/artifact.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StructuredOpsUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/Interfaces/LoopLikeInterface.h"

namespace mlir::attune::cpu {

namespace {
/// The marks the lowering and attune-tile-attention put on ops for the
/// kernel passes, and those the passes put on each other's ops.
constexpr StringLiteral kMarks[] = {
    kGemmAttr,      kEpilogueAttr,      kGemmCacheTileAttr,
    kInitTileAttr,  kHeadsInitAttr,     kTileGemmAttr,
    kVectorizeAttr, kVectorize1DAttr,   kTransposeTilesAttr,
    kTilingAttr,    kPanelRoundingAttr, kPairInterleaveAttr};
} // namespace

GemmTilingAttr tilingOf(Operation *op) {
  return op->getAttrOfType<GemmTilingAttr>(kTilingAttr);
}

bool hasKernelMark(Operation *op) {
  return llvm::any_of(kMarks, [&](StringRef m) { return op->hasAttr(m); });
}

void removeKernelMarks(Operation *op) {
  for (StringRef attr : kMarks)
    op->removeAttr(attr);
}

bool hasCpuKernels(ModuleOp module) {
  return module->hasAttr(kCpuKernelsAttr);
}

Value splitColumns(OpBuilder &b, Location loc, Value v, int64_t width) {
  auto type = cast<RankedTensorType>(v.getType());
  int64_t rank = type.getRank();
  SmallVector<int64_t> shape(type.getShape());
  shape.back() /= width;
  shape.push_back(width);
  SmallVector<ReassociationIndices> groups;
  for (int64_t d = 0; d + 1 < rank; ++d)
    groups.push_back({d});
  groups.push_back({rank - 1, rank});
  SmallVector<OpFoldResult> sizes;
  for (int64_t d = 0; d < rank + 1; ++d)
    sizes.push_back(ShapedType::isDynamic(shape[d])
                        ? OpFoldResult(tensor::DimOp::create(b, loc, v, d).getResult())
                        : OpFoldResult(b.getIndexAttr(shape[d])));
  return tensor::ExpandShapeOp::create(
      b, loc, RankedTensorType::get(shape, type.getElementType()), v, groups,
      sizes);
}

Value joinColumns(OpBuilder &b, Location loc, Value v) {
  int64_t rank = cast<RankedTensorType>(v.getType()).getRank();
  SmallVector<ReassociationIndices> groups;
  for (int64_t d = 0; d + 2 < rank; ++d)
    groups.push_back({d});
  groups.push_back({rank - 2, rank - 1});
  return tensor::CollapseShapeOp::create(b, loc, v, groups);
}

/// `panels` (f32) as `storage` elements: a linalg.generic of arith.truncf
/// (a weight preparation, folded on constants where it is hoisted).
static Value narrowPanels(OpBuilder &b, Location loc, Value panels,
                          Type storage) {
  auto type = cast<RankedTensorType>(panels.getType());
  if (!storage || storage == type.getElementType())
    return panels;
  Value empty = tensor::EmptyOp::create(b, loc, type.getShape(), storage);
  AffineMap id = b.getMultiDimIdentityMap(type.getRank());
  auto rounding = linalg::GenericOp::create(
      b, loc, TypeRange{empty.getType()}, ValueRange{panels}, ValueRange{empty},
      ArrayRef<AffineMap>{id, id},
      SmallVector<utils::IteratorType>(type.getRank(),
                                       utils::IteratorType::parallel),
      [&](OpBuilder &nb, Location l, ValueRange args) {
        Value narrow = arith::TruncFOp::create(nb, l, storage, args[0]);
        linalg::YieldOp::create(nb, l, narrow);
      });
  rounding->setAttr(kPanelRoundingAttr, UnitAttr::get(b.getContext()));
  return rounding.getResult(0);
}

std::string panelStorageChoices() {
  std::string text;
  for (auto [i, name] : llvm::enumerate(kPanelStorageNames)) {
    if (i)
      text += i + 1 == std::size(kPanelStorageNames) ? " or " : ", ";
    text += name.str();
  }
  return text;
}

Type panelStorage(Operation *root, StringRef pass, StringRef name) {
  MLIRContext *ctx = root->getContext();
  if (name == "f32")
    return Float32Type::get(ctx);
  if (name == "bf16")
    return BFloat16Type::get(ctx);
  if (name == "f16")
    return Float16Type::get(ctx);
  root->emitError() << pass << ": weight-type=" << name << ": expected "
                    << panelStorageChoices();
  return {};
}

std::optional<float> firstOutOfRange(ArrayRef<float> data, Type storage) {
  if (!storage || !storage.isF16())
    return std::nullopt;
  for (float v : data)
    if (::attune::artifact::roundsToF16Infinity(v))
      return v;
  return std::nullopt;
}

std::optional<float> firstOutOfRange(ArrayRef<char> f32Bytes, Type storage) {
  return firstOutOfRange(
      ArrayRef<float>(reinterpret_cast<const float *>(f32Bytes.data()),
                      f32Bytes.size() / sizeof(float)),
      storage);
}

/// widenNarrowOperands for input `operand`, stored as `stored`.
static void widenOperand(linalg::GenericOp gemm, unsigned operand,
                         Type stored) {
  Block &body = gemm.getRegion().front();
  BlockArgument arg = body.getArgument(operand);
  if (arg.getType() == stored)
    return;
  Type wide = arg.getType();
  arg.setType(stored);
  OpBuilder b = OpBuilder::atBlockBegin(&body);
  Location loc = gemm.getLoc();
  Value w;
  Operation *first;
  if (stored.isBF16() && wide.isF32()) {
    // bf16 is the upper half of an f32: shifted into place (vpmovzxwd +
    // vpslld on vectors; LLVM scalarizes an fpext from bf16).
    Value bits = arith::BitcastOp::create(b, loc, b.getI16Type(), arg);
    first = bits.getDefiningOp();
    Value word = arith::ExtUIOp::create(b, loc, b.getI32Type(), bits);
    Value shifted = arith::ShLIOp::create(
        b, loc, word, arith::ConstantIntOp::create(b, loc, 16, 32));
    w = arith::BitcastOp::create(b, loc, wide, shifted);
  } else {
    // f16: vcvtph2ps (F16C, every x86-64-v3 CPU; libgcc's __extendhfsf2
    // on a CPU without it).
    w = arith::ExtFOp::create(b, loc, wide, arg);
    first = w.getDefiningOp();
  }
  arg.replaceAllUsesExcept(w, first);
}

void widenNarrowOperands(linalg::GenericOp gemm) {
  for (auto [i, input] : llvm::enumerate(gemm.getDpsInputs()))
    widenOperand(gemm, i,
                 cast<RankedTensorType>(input.getType()).getElementType());
}

/// Panels [NB, K, W] (K even) as k-pairs [NB, K/2, W, 2].
static Value pairPanels(OpBuilder &b, Location loc, Value panels) {
  auto type = cast<RankedTensorType>(panels.getType());
  int64_t nb = type.getDimSize(0), k = type.getDimSize(1),
          width = type.getDimSize(2);
  Value split = tensor::ExpandShapeOp::create(
      b, loc,
      RankedTensorType::get({nb, k / 2, 2, width}, type.getElementType()),
      panels, ArrayRef<ReassociationIndices>{{0}, {1, 2}, {3}});
  Value init = tensor::EmptyOp::create(b, loc, {nb, k / 2, width, 2},
                                       type.getElementType());
  return linalg::TransposeOp::create(b, loc, split, init,
                                     ArrayRef<int64_t>{0, 1, 3, 2})
      ->getResult(0);
}

/// A [B, M, K] (K even) viewed as [B, M, K/2, 2].
static Value viewAsPairs(OpBuilder &b, Location loc, Value a) {
  auto type = cast<RankedTensorType>(a.getType());
  int64_t k = type.getDimSize(2);
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, a);
  return tensor::ExpandShapeOp::create(
      b, loc,
      RankedTensorType::get({type.getDimSize(0), type.getDimSize(1), k / 2, 2},
                            type.getElementType()),
      a, ArrayRef<ReassociationIndices>{{0}, {1}, {2, 3}},
      ArrayRef<OpFoldResult>{sizes[0], sizes[1], b.getIndexAttr(k / 2),
                             b.getIndexAttr(2)});
}

Value pairsFor(OpBuilder &b, Location loc, Value a, GemmTilingAttr t) {
  return t.getBf16Dot() ? roundToPairs(b, loc, a) : viewAsPairs(b, loc, a);
}

Value roundToPairs(OpBuilder &b, Location loc, Value a) {
  auto type = cast<RankedTensorType>(a.getType());
  int64_t k = type.getDimSize(2);
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, a);
  Value pairs = viewAsPairs(b, loc, a);
  Value empty = tensor::EmptyOp::create(
      b, loc,
      ArrayRef<OpFoldResult>{sizes[0], sizes[1], b.getIndexAttr(k / 2),
                             b.getIndexAttr(2)},
      b.getBF16Type());
  AffineMap id = b.getMultiDimIdentityMap(4);
  auto rounding = linalg::GenericOp::create(
      b, loc, TypeRange{empty.getType()}, ValueRange{pairs}, ValueRange{empty},
      ArrayRef<AffineMap>{id, id},
      SmallVector<utils::IteratorType>(4, utils::IteratorType::parallel),
      [&](OpBuilder &nb, Location l, ValueRange args) {
        linalg::YieldOp::create(
            nb, l,
            arith::TruncFOp::create(nb, l, nb.getBF16Type(), args[0])
                .getResult());
      });
  // Vectorized 8 pairs (16 floats) at a time, or the largest power of two
  // that divides K/2: a whole row as one vector of K floats took LLVM 35 s
  // to optimize in one encoder layer (attune-tile-gemm).
  int64_t step = std::min<int64_t>(8, (k / 2) & -(k / 2));
  rounding->setAttr(kPairRoundingAttr, b.getI64IntegerAttr(step));
  return rounding.getResult(0);
}

/// Packed weights `data` (the f32 values of `type`) as a constant named
/// `key`, stored as `storage`: rounded to it at compile time (with
/// `keepF32`, rounded but kept as f32 values). A value beyond the storage
/// type's range (f16) leaves the rounding an op on the f32 constant, which
/// attune-hoist-weight-preparation reports with the value.
static Value packedConstant(OpBuilder &b, Location loc, RankedTensorType type,
                            StringRef key, ArrayRef<float> data, Type storage,
                            bool keepF32 = false) {
  Type f32 = type.getElementType();
  bool fits = !firstOutOfRange(data, storage);
  if (!storage || storage == f32 || !fits) {
    auto attr = DenseResourceElementsAttr::get(
        type, key, HeapAsmResourceBlob::allocateAndCopyInferAlign(data));
    Value packed = arith::ConstantOp::create(b, loc, type, attr);
    return fits ? packed : narrowPanels(b, loc, packed, storage);
  }
  std::vector<char> narrow = convertFloatData(
      ArrayRef<char>(reinterpret_cast<const char *>(data.data()),
                     data.size() * sizeof(float)),
      cast<FloatType>(f32), cast<FloatType>(storage));
  if (keepF32)
    narrow = convertFloatData(narrow, cast<FloatType>(storage),
                              cast<FloatType>(f32));
  auto storedType = keepF32 ? type : type.clone(storage);
  auto attr = DenseResourceElementsAttr::get(
      storedType, (key + "_" + attune::artifactDtypeName(storage)).str(),
      HeapAsmResourceBlob::allocateAndCopyWithAlign(ArrayRef<char>(narrow),
                                                    64));
  return arith::ConstantOp::create(b, loc, storedType, attr);
}

Value packPanels(OpBuilder &b, Location loc, Value w, int64_t width,
                 Type storage, bool pairs) {
  if (pairs)
    storage = b.getBF16Type();
  auto type = cast<RankedTensorType>(w.getType());
  int64_t k = type.getDimSize(0), n = type.getDimSize(1);
  int64_t padded = llvm::alignTo(n, width);
  auto packedType =
      pairs ? RankedTensorType::get({padded / width, k / 2, width, 2},
                                    type.getElementType())
            : RankedTensorType::get({padded / width, k, width},
                                    type.getElementType());
  if (std::optional<std::vector<char>> bytes = attune::constantBytes(w);
      bytes && type.getElementType().isF32()) {
    const float *src = reinterpret_cast<const float *>(bytes->data());
    // Columns past n (the last panel's padding) are zeros.
    std::vector<float> dst(k * padded, 0.0f);
    for (int64_t nb = 0; nb < padded / width; ++nb)
      for (int64_t kk = 0; kk < k; ++kk)
        for (int64_t r = 0; r < width && nb * width + r < n; ++r)
          dst[pairs ? ((nb * (k / 2) + kk / 2) * width + r) * 2 + kk % 2
                    : (nb * k + kk) * width + r] = src[kk * n + nb * width + r];
    std::string key = attune::constantKey(w, "weight") + "_p" +
                      std::to_string(width) + (pairs ? "x2" : "");
    return packedConstant(b, loc, packedType, key, dst, storage);
  }
  Value init = tensor::EmptyOp::create(
      b, loc, ArrayRef<int64_t>{padded / width, k, width},
      packedType.getElementType());
  // B = W^T computed at run time: one transpose of W [N, K] (zero-padded
  // to whole panels) as [N/W, W, K].
  if (auto t = w.getDefiningOp<linalg::TransposeOp>();
      t && t.getPermutation() == ArrayRef<int64_t>{1, 0}) {
    Value wn = attune::padWithZeros(b, loc, t.getInput(), {padded, k});
    Value split = tensor::ExpandShapeOp::create(
        b, loc,
        RankedTensorType::get({padded / width, width, k},
                              type.getElementType()),
        wn, ArrayRef<ReassociationIndices>{{0, 1}, {2}});
    Value panels = linalg::TransposeOp::create(b, loc, split, init,
                                               ArrayRef<int64_t>{0, 2, 1})
                       ->getResult(0);
    return narrowPanels(b, loc, pairs ? pairPanels(b, loc, panels) : panels,
                        storage);
  }
  Value split = splitColumns(
      b, loc, attune::padWithZeros(b, loc, w, {k, padded}), width); // [K, N/W, W]
  Value panels = linalg::TransposeOp::create(b, loc, split, init,
                                             ArrayRef<int64_t>{1, 0, 2})
                     ->getResult(0);
  return narrowPanels(b, loc, pairs ? pairPanels(b, loc, panels) : panels,
                      storage);
}

std::pair<Value, Value> packDotWeights(OpBuilder &b, Location loc, Value w,
                                       int64_t lanes, Type storage) {
  auto type = cast<RankedTensorType>(w.getType());
  Type f32 = type.getElementType();
  int64_t k = type.getDimSize(0), n = type.getDimSize(1);
  int64_t kMain = k / lanes * lanes, kRest = k - kMain;
  auto mainType = RankedTensorType::get({n, kMain / lanes, lanes}, f32);
  auto restType = RankedTensorType::get({n, kRest}, f32);
  if (std::optional<std::vector<char>> bytes = attune::constantBytes(w);
      bytes && f32.isF32()) {
    const float *src = reinterpret_cast<const float *>(bytes->data());
    std::string key = attune::constantKey(w, "weight") + "_dot";
    // W^T's rows [0, kMain) and [kMain, K), each a constant. The last
    // K mod L columns (at most 15 x N values, read by scalar code) stay
    // f32, holding the storage type's values: a scalar widening per
    // product is not worth their bytes.
    auto constant = [&](RankedTensorType t, int64_t from, int64_t to,
                        StringRef suffix, bool keepF32) {
      std::vector<float> dst;
      dst.reserve(n * (to - from));
      for (int64_t c = 0; c < n; ++c)
        for (int64_t kk = from; kk < to; ++kk)
          dst.push_back(src[kk * n + c]);
      return packedConstant(b, loc, t, key + suffix.str(), dst, storage,
                            keepF32);
    };
    return {constant(mainType, 0, kMain, "_main", false),
            kRest ? constant(restType, kMain, k, "_rest", true) : Value()};
  }
  // At run time (an outlined layer's weights before
  // attune-hoist-weight-preparation, external weights): W^T is the
  // transpose's input where B is one, else one transpose.
  Value wt;
  if (auto t = w.getDefiningOp<linalg::TransposeOp>();
      t && t.getPermutation() == ArrayRef<int64_t>{1, 0}) {
    wt = t.getInput();
  } else {
    Value init = tensor::EmptyOp::create(b, loc, ArrayRef<int64_t>{n, k}, f32);
    wt = linalg::TransposeOp::create(b, loc, w, init, ArrayRef<int64_t>{1, 0})
             ->getResult(0);
  }
  auto slice = [&](int64_t from, int64_t size) {
    return tensor::ExtractSliceOp::create(
               b, loc, RankedTensorType::get({n, size}, f32), wt, ValueRange{},
               ValueRange{}, ValueRange{}, b.getDenseI64ArrayAttr({0, from}),
               b.getDenseI64ArrayAttr({n, size}),
               b.getDenseI64ArrayAttr({1, 1}))
        .getResult();
  };
  Value main = tensor::ExpandShapeOp::create(
      b, loc, mainType, kRest ? slice(0, kMain) : wt,
      ArrayRef<ReassociationIndices>{{0}, {1, 2}});
  return {narrowPanels(b, loc, main, storage),
          kRest ? narrowPanels(b, loc, slice(kMain, kRest), storage) : Value()};
}

Value padColumns(OpBuilder &b, Location loc, Value v, int64_t columns) {
  auto type = cast<RankedTensorType>(v.getType());
  if (type.getDimSize(type.getRank() - 1) == columns)
    return v;
  Operation *def = v.getDefiningOp();
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, v);
  sizes.back() = b.getIndexAttr(columns);
  // A fill or a bias broadcast is made again at the new width (both stay
  // fusable into the GEMM's tiles); anything else is padded.
  if (auto fill = dyn_cast_or_null<linalg::FillOp>(def)) {
    Value empty = tensor::EmptyOp::create(b, loc, sizes, type.getElementType());
    return linalg::FillOp::create(b, loc, fill.getInputs()[0], empty)
        .getResult(0);
  }
  if (isa_and_nonnull<tensor::EmptyOp>(def))
    return tensor::EmptyOp::create(b, loc, sizes, type.getElementType());
  if (Value bias = broadcastBias(def)) {
    Value empty = tensor::EmptyOp::create(b, loc, sizes, type.getElementType());
    Value padded = attune::padWithZeros(b, loc, bias, {columns});
    return clone(b, def, TypeRange{empty.getType()}, ValueRange{padded, empty})
        ->getResult(0);
  }
  SmallVector<int64_t> shape(type.getShape());
  shape.back() = columns;
  return attune::padWithZeros(b, loc, v, shape);
}

Value dropPadding(OpBuilder &b, Location loc, Value v, int64_t columns) {
  auto type = cast<RankedTensorType>(v.getType());
  int64_t rank = type.getRank();
  if (type.getDimSize(rank - 1) == columns)
    return v;
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, v);
  sizes.back() = b.getIndexAttr(columns);
  return tensor::ExtractSliceOp::create(
      b, loc, v, SmallVector<OpFoldResult>(rank, b.getIndexAttr(0)), sizes,
      SmallVector<OpFoldResult>(rank, b.getIndexAttr(1)));
}

Value broadcastBias(Operation *op) {
  auto bcast = dyn_cast_or_null<linalg::GenericOp>(op);
  if (!bcast || bcast.getNumDpsInputs() != 1 || bcast.getNumDpsInits() != 1 ||
      bcast.getNumLoops() != 3)
    return nullptr;
  MLIRContext *ctx = op->getContext();
  Value bias = bcast.getDpsInputs()[0];
  auto biasType = dyn_cast<RankedTensorType>(bias.getType());
  auto yield = cast<linalg::YieldOp>(bcast.getBody()->getTerminator());
  if (!biasType || biasType.getRank() != 1 || biasType.isDynamicDim(0) ||
      bcast.getIndexingMapsArray()[0] !=
          AffineMap::get(3, 0, getAffineDimExpr(2, ctx)) ||
      !bcast.getIndexingMapsArray()[1].isIdentity() ||
      yield.getValues().size() != 1 ||
      yield.getValues()[0] != bcast.getBody()->getArgument(0))
    return nullptr;
  return bias;
}

linalg::GenericOp panelBias(OpBuilder &b, Location loc, Value bias,
                                   int64_t offset, int64_t size, int64_t width,
                                   Value empty, unsigned panelDim) {
  MLIRContext *ctx = b.getContext();
  auto biasType = cast<RankedTensorType>(bias.getType());
  Value part = bias;
  if (offset != 0 || size != biasType.getDimSize(0))
    part = tensor::ExtractSliceOp::create(
        b, loc, bias, ArrayRef<OpFoldResult>{b.getIndexAttr(offset)},
        ArrayRef<OpFoldResult>{b.getIndexAttr(size)},
        ArrayRef<OpFoldResult>{b.getIndexAttr(1)});
  Value bias2 = tensor::ExpandShapeOp::create(
      b, loc,
      RankedTensorType::get({size / width, width}, biasType.getElementType()),
      part, ArrayRef<ReassociationIndices>{{0, 1}});
  AffineExpr panel = getAffineDimExpr(panelDim, ctx),
             column = getAffineDimExpr(3, ctx);
  return linalg::GenericOp::create(
      b, loc, TypeRange{empty.getType()}, ValueRange{bias2}, ValueRange{empty},
      ArrayRef<AffineMap>{AffineMap::get(4, 0, {panel, column}, ctx),
                          b.getMultiDimIdentityMap(4)},
      SmallVector<utils::IteratorType>(4, utils::IteratorType::parallel),
      [](OpBuilder &nb, Location l, ValueRange args) {
        linalg::YieldOp::create(nb, l, args[0]);
      });
}

linalg::GenericOp createPackedGemm(OpBuilder &b, Location loc, Value a,
                                   Value panels, Value init, bool panelMajor,
                                   bool pairs) {
  MLIRContext *ctx = b.getContext();
  using Iter = utils::IteratorType;
  if (pairs) {
    AffineExpr d0, d1, d2, d3, d4, d5;
    bindDims(ctx, d0, d1, d2, d3, d4, d5);
    AffineMap out = panelMajor ? AffineMap::get(6, 0, {d0, d2, d1, d3}, ctx)
                               : AffineMap::get(6, 0, {d0, d1, d2, d3}, ctx);
    return linalg::GenericOp::create(
        b, loc, TypeRange{init.getType()}, ValueRange{a, panels},
        ValueRange{init},
        ArrayRef<AffineMap>{AffineMap::get(6, 0, {d0, d1, d4, d5}, ctx),
                            AffineMap::get(6, 0, {d2, d4, d3, d5}, ctx), out},
        ArrayRef<Iter>{Iter::parallel, Iter::parallel, Iter::parallel,
                       Iter::parallel, Iter::reduction, Iter::reduction});
  }
  AffineExpr d0, d1, d2, d3, d4;
  bindDims(ctx, d0, d1, d2, d3, d4);
  AffineMap out = panelMajor ? AffineMap::get(5, 0, {d0, d2, d1, d3}, ctx)
                             : AffineMap::get(5, 0, {d0, d1, d2, d3}, ctx);
  return linalg::GenericOp::create(
      b, loc, TypeRange{init.getType()}, ValueRange{a, panels},
      ValueRange{init},
      ArrayRef<AffineMap>{AffineMap::get(5, 0, {d0, d1, d4}, ctx),
                          AffineMap::get(5, 0, {d2, d4, d3}, ctx), out},
      ArrayRef<Iter>{Iter::parallel, Iter::parallel, Iter::parallel,
                     Iter::parallel, Iter::reduction});
}

Value headsInit(OpBuilder &b, Location loc, Value init, Value empty,
                       ArrayRef<OpFoldResult> offsets,
                       ArrayRef<OpFoldResult> extents, int64_t offset,
                       int64_t size, int64_t width) {
  MLIRContext *ctx = b.getContext();
  Operation *def = init.getDefiningOp();
  if (auto fill = dyn_cast_or_null<linalg::FillOp>(def)) {
    auto f = linalg::FillOp::create(b, loc, fill.getInputs()[0], empty);
    f->setAttr(kHeadsInitAttr, UnitAttr::get(ctx));
    return f.getResult(0);
  }
  if (Value bias = broadcastBias(def)) {
    linalg::GenericOp g =
        panelBias(b, loc, bias, offset, size, width, empty, /*panelDim=*/1);
    g->setAttr(kHeadsInitAttr, UnitAttr::get(ctx));
    return g.getResult(0);
  }
  Value part = tensor::ExtractSliceOp::create(
      b, loc, init,
      ArrayRef<OpFoldResult>{offsets[0], offsets[1], b.getIndexAttr(offset)},
      ArrayRef<OpFoldResult>{extents[0], extents[1], b.getIndexAttr(size)},
      SmallVector<OpFoldResult>(3, b.getIndexAttr(1)));
  return linalg::TransposeOp::create(b, loc, splitColumns(b, loc, part, width),
                                     empty, ArrayRef<int64_t>{0, 2, 1, 3})
      ->getResult(0);
}

FailureOr<scf::SCFTileAndFuseResult>
tileAndFuse(RewriterBase &rewriter, Operation *op, ArrayRef<int64_t> sizes,
            bool forall, scf::SCFTileAndFuseOptions::ControlFnTy fuse) {
  scf::SCFTileAndFuseOptions options;
  options.tilingOptions.setTileSizes(
      getAsIndexOpFoldResult(rewriter.getContext(), sizes));
  if (forall)
    options.tilingOptions.setLoopType(
        scf::SCFTilingOptions::LoopType::ForallOp);
  options.setFusionControlFn(std::move(fuse));
  rewriter.setInsertionPoint(op);
  return scf::tileConsumerAndFuseProducersUsingSCF(
      rewriter, cast<TilingInterface>(op), options);
}

FailureOr<scf::SCFTileAndFuseResult>
tileAndFuseDestination(RewriterBase &rewriter, linalg::GenericOp op,
                       Operation *producer, ArrayRef<int64_t> sizes,
                       bool forall) {
  FailureOr<scf::SCFTileAndFuseResult> r = tileAndFuse(
      rewriter, op, sizes, forall,
      [&](tensor::ExtractSliceOp, OpResult p, bool isDestination)
          -> std::optional<scf::SCFTileAndFuseOptions::ControlFnResult> {
        if (!isDestination || p.getOwner() != producer)
          return std::nullopt;
        return scf::SCFTileAndFuseOptions::ControlFnResult{};
      });
  if (succeeded(r))
    rewriter.replaceOp(op, r->replacements.lookup(op.getResult(0)));
  return r;
}

SmallVector<Operation *> tileAndReplace(RewriterBase &rewriter,
                                               Operation *op,
                                               ArrayRef<int64_t> sizes,
                                               bool forall) {
  scf::SCFTilingOptions options;
  options.setTileSizes(getAsIndexOpFoldResult(op->getContext(), sizes));
  if (forall)
    options.setLoopType(scf::SCFTilingOptions::LoopType::ForallOp);
  rewriter.setInsertionPoint(op);
  FailureOr<scf::SCFTilingResult> tiled =
      scf::tileUsingSCF(rewriter, cast<TilingInterface>(op), options);
  if (failed(tiled))
    return {};
  rewriter.replaceOp(op, tiled->replacements);
  return SmallVector<Operation *>(tiled->tiledOps);
}

bool vectorizeInPlace(RewriterBase &rewriter, Operation *op) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp || linalgOp.hasDynamicShape() ||
      failed(linalg::vectorizeOpPrecondition(op)))
    return false;
  rewriter.setInsertionPoint(op);
  FailureOr<linalg::VectorizationResult> vec = linalg::vectorize(rewriter, op);
  if (failed(vec))
    return false;
  rewriter.replaceOp(op, vec->replacements);
  return true;
}

bool parallelRows(Operation *op, bool parallel) {
  return parallel && !op->getParentOfType<LoopLikeOpInterface>();
}

bool isShapePreserving(scf::ForOp loop, unsigned index) {
  Value arg = loop.getRegionIterArgs()[index];
  Value v = loop.getYieldedValues()[index];
  while (v != arg) {
    Operation *def = v.getDefiningOp();
    if (!def)
      return false;
    if (auto write = dyn_cast<vector::TransferWriteOp>(def))
      v = write.getBase();
    else if (auto insert = dyn_cast<tensor::InsertSliceOp>(def))
      v = insert.getDest();
    else if (auto inner = dyn_cast<scf::ForOp>(def)) {
      unsigned i = cast<OpResult>(v).getResultNumber();
      if (!isShapePreserving(inner, i))
        return false;
      v = inner.getInitArgs()[i];
    } else if (auto dps = dyn_cast<DestinationStyleOpInterface>(def))
      v = dps.getTiedOpOperand(cast<OpResult>(v))->get();
    else
      return false;
  }
  return true;
}

/// The one user of `op`'s result other than tensor.dim ops, if there is
/// exactly one.
static Operation *onlyUser(Operation *op) {
  Operation *only = nullptr;
  for (Operation *user : op->getResult(0).getUsers()) {
    if (isa<tensor::DimOp>(user))
      continue;
    if (only)
      return nullptr;
    only = user;
  }
  return only;
}

/// The transposes through which the attention heads read `gemm`'s output
/// C [B, M, N], if that is all that reads it: each use an extract_slice of
/// `width`-aligned columns, reshaped to [B, M, S/W, W] and transposed to
/// [B, S/W, M, W] (split_heads with head size W); else none.
SmallVector<linalg::TransposeOp> headUses(linalg::GenericOp gemm,
                                          int64_t width) {
  SmallVector<linalg::TransposeOp> heads;
  for (Operation *user : gemm.getResult(0).getUsers()) {
    if (isa<tensor::DimOp>(user))
      continue;
    auto slice = dyn_cast<tensor::ExtractSliceOp>(user);
    if (!slice || slice.getSourceType().getRank() != 3 ||
        slice.getResultType().getRank() != 3 || !slice.hasUnitStride())
      return {};
    std::optional<int64_t> offset =
        getConstantIntValue(slice.getMixedOffsets()[2]);
    std::optional<int64_t> size = getConstantIntValue(slice.getMixedSizes()[2]);
    if (!offset || !size || *offset % width || *size % width || *size == 0)
      return {};
    auto expand = dyn_cast_or_null<tensor::ExpandShapeOp>(onlyUser(slice));
    if (!expand ||
        expand.getReassociationIndices() !=
            SmallVector<ReassociationIndices>{{0}, {1}, {2, 3}} ||
        expand.getResultType().getDimSize(3) != width)
      return {};
    auto transpose = dyn_cast_or_null<linalg::TransposeOp>(onlyUser(expand));
    if (!transpose || transpose.getInput() != expand.getResult() ||
        transpose.getPermutation() != ArrayRef<int64_t>{0, 2, 1, 3})
      return {};
    heads.push_back(transpose);
  }
  return heads;
}

} // namespace mlir::attune::cpu
