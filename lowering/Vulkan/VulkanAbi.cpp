//===- VulkanAbi.cpp - kernel ABI, dispatch calls and SPIR-V blobs --------===//
//
// attune-vulkan-abi fixes the interface between the host code and every
// outlined kernel, and replaces each gpu.launch_func by a call into the
// Vulkan runtime:
//
//   kernel:  one `memref<?xT>` storage buffer per memref argument (bound at
//            the view's aligned base pointer), then one push-constant block
//            `memref<Nxi32>` with every scalar: the dynamic offsets, sizes
//            and strides of the views and the scalar arguments. Loads and
//            stores index the flat buffers; `spirv.entry_point_abi` carries
//            the workgroup size of the launch.
//   host:    attune_vk_dispatch(kernel id, grid x, y, z,
//                               memref<?xi64> buffer addresses,
//                               memref<?xi32> push constants)
//
// The module gets `attune.vulkan.kernels`: per kernel id, its gpu.module,
// entry name, buffer and push-constant counts and workgroup size. Globals
// the host code reads become public `attune_vk_global_<n>` symbols, listed in
// `attune.vulkan.globals`, so that the runtime can upload them once.
//
// attune-serialize-spirv then serializes each converted spirv.module into an
// `attune_vk_spirv_<gpu module>` byte array and drops the device modules.
//
//===----------------------------------------------------------------------===//

#include "lowering/Passes.h"
#include "lowering/Vulkan/KernelTable.h"

#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVOps.h"
#include "mlir/Dialect/SPIRV/IR/TargetAndABI.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Target/SPIRV/Serialization.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/Path.h"

namespace mlir::attune {
#define GEN_PASS_DEF_ATTUNEVULKANABI
#include "lowering/Passes.h.inc"
} // namespace mlir::attune

using namespace mlir;

namespace {

using mlir::attune::vulkan::kGlobalsAttr;
using mlir::attune::vulkan::kKernelsAttr;
constexpr StringLiteral kDispatch = ::attune::artifact::kVulkanDispatch;

/// Rewrites one outlined kernel and its launch.
class KernelRewriter {
public:
  KernelRewriter(gpu::LaunchFuncOp launch, gpu::GPUFuncOp kernel,
                 bool float16)
      : float16(float16), launch(launch), kernel(kernel), host(launch),
        device(OpBuilder::atBlockBegin(&kernel.front())) {}

  LogicalResult run() {
    Block &body = kernel.front();
    MLIRContext *ctx = kernel.getContext();
    // What the rewrite adds to the kernel goes in front of an anchor op:
    // the kernel's first op may be a load or store that the rewrite
    // replaces (a rank-0 copy kernel's), which must not be the insertion
    // point.
    Operation *anchor =
        arith::ConstantIndexOp::create(device, kernel.getLoc(), 0);
    device.setInsertionPoint(anchor);
    auto eraseAnchor = llvm::make_scope_exit([&] {
      if (anchor->use_empty())
        anchor->erase();
    });
    unsigned oldCount = body.getNumArguments();
    auto pushSpace =
        spirv::StorageClassAttr::get(ctx, spirv::StorageClass::PushConstant);
    // The push-constant block's length is known at the end.
    params = body.addArgument(
        MemRefType::get({0}, device.getI32Type(), MemRefLayoutAttrInterface(),
                        pushSpace),
        kernel.getLoc());
    for (unsigned i = 0; i < oldCount; ++i) {
      BlockArgument arg = body.getArgument(i);
      Value operand = launch.getKernelOperands()[i];
      if (auto memref = dyn_cast<MemRefType>(arg.getType())) {
        if (failed(rewriteBuffer(arg, memref, operand)))
          return failure();
      } else if (failed(rewriteScalar(arg, operand))) {
        return failure();
      }
    }
    // Buffers first, then the push constants, in binding order.
    body.eraseArguments(0, oldCount);
    unsigned numBuffers = body.getNumArguments() - 1;
    // Arguments are now [push constants, buffers...]: move the push
    // constants to the end, with their final length.
    // A kernel without scalars has no push-constant block (SPIR-V has no
    // empty arrays).
    if (!hostParams.empty()) {
      auto paramsType = MemRefType::get({(int64_t)hostParams.size()},
                                        device.getI32Type(),
                                        MemRefLayoutAttrInterface(), pushSpace);
      BlockArgument newParams = body.addArgument(paramsType, kernel.getLoc());
      params.replaceAllUsesWith(newParams);
    }
    body.eraseArgument(0);
    SmallVector<Type> types(body.getArgumentTypes());
    kernel.setFunctionType(FunctionType::get(ctx, types, {}));
    kernel.setAllArgAttrs(SmallVector<DictionaryAttr>(types.size(),
                                                      DictionaryAttr::get(ctx)));
    this->numBuffers = numBuffers;
    return success();
  }

  unsigned numBuffers = 0;
  SmallVector<Value> hostBuffers; // index: aligned base addresses
  SmallVector<Value> hostParams;  // i32

private:
  /// A push constant holding `hostValue` (index or integer), as an index
  /// inside the kernel.
  Value param(Value hostValue) {
    Location loc = launch.getLoc();
    Value v = hostValue;
    if (v.getType().isIndex())
      v = arith::IndexCastOp::create(host, loc, host.getI32Type(), v);
    else if (v.getType().getIntOrFloatBitWidth() < 32)
      v = arith::ExtSIOp::create(host, loc, host.getI32Type(), v);
    hostParams.push_back(v);
    Value at = arith::ConstantIndexOp::create(device, kernel.getLoc(),
                                              hostParams.size() - 1);
    Value word = memref::LoadOp::create(device, kernel.getLoc(), params, at);
    return arith::IndexCastOp::create(device, kernel.getLoc(),
                                      device.getIndexType(), word);
  }

  Value staticOr(int64_t value, llvm::function_ref<Value()> dynamic) {
    if (ShapedType::isDynamic(value))
      return dynamic();
    return arith::ConstantIndexOp::create(device, kernel.getLoc(), value);
  }

  LogicalResult rewriteBuffer(BlockArgument arg, MemRefType type,
                              Value operand) {
    Location loc = launch.getLoc();
    SmallVector<int64_t> strides;
    int64_t offset;
    if (failed(type.getStridesAndOffset(strides, offset)))
      return kernel.emitOpError()
             << "argument #" << arg.getArgNumber() << " has type " << type
             << "; expected a strided memref";
    if (type.getMemorySpace())
      return kernel.emitOpError() << "argument #" << arg.getArgNumber()
                                  << " is in memory space "
                                  << type.getMemorySpace()
                                  << "; expected the default (global) space";
    auto metadata = memref::ExtractStridedMetadataOp::create(host, loc, operand);
    hostBuffers.push_back(memref::ExtractAlignedPointerAsIndexOp::create(
        host, loc, metadata.getBaseBuffer()));
    // 64-bit integers (ids, lengths) are read as the low word of an i32
    // pair and written sign-extended, so that kernels need no Int64
    // capability; their values must fit in 32 bits.
    Type elem = type.getElementType();
    bool wide = elem.isInteger(64);
    // bf16 has no type in core Vulkan: its buffers hold the bits as i16,
    // and the kernel converts them to f32 with integer operations
    // (expandBFloat16, below).
    bool bf16 = elem.isBF16();
    if (!wide && !bf16 && !elem.isF32() && !elem.isF16() &&
        !elem.isInteger(32))
      return kernel.emitOpError()
             << "argument #" << arg.getArgNumber() << " has element type "
             << elem << "; kernels take f32, f16, bf16, i32 and i64 buffers";
    if ((elem.isF16() || bf16) && !float16)
      return kernel.emitOpError()
             << "argument #" << arg.getArgNumber() << " is an "
             << (bf16 ? "bf16" : "f16")
             << " buffer, which needs 16-bit storage buffers, shaderFloat16 "
                "and shaderInt16: compile with a --vulkan-profile that has "
                "fp16=1 (lavapipe has it)";
    Type i32 = device.getI32Type();
    Type i16 = device.getI16Type();
    BlockArgument flat = kernel.front().addArgument(
        MemRefType::get({ShapedType::kDynamic},
                        wide ? i32 : (bf16 ? i16 : elem)),
        kernel.getLoc());
    Value offsetValue =
        staticOr(offset, [&] { return param(metadata.getOffset()); });
    SmallVector<Value> strideValues;
    for (auto [d, s] : llvm::enumerate(strides))
      strideValues.push_back(
          staticOr(s, [&, d = d] { return param(metadata.getStrides()[d]); }));
    SmallVector<Value> sizeValues(type.getRank());
    auto size = [&](int64_t d) {
      if (!sizeValues[d]) {
        OpBuilder::InsertionGuard guard(device);
        device.setInsertionPointToStart(&kernel.front());
        sizeValues[d] = staticOr(type.getDimSize(d), [&] {
          return param(metadata.getSizes()[d]);
        });
      }
      return sizeValues[d];
    };

    auto linear = [&](OpBuilder &b, Location l, ValueRange indices) {
      Value sum = offsetValue;
      for (auto [i, s] : llvm::zip(indices, strideValues)) {
        Value term = arith::MulIOp::create(b, l, i, s);
        sum = arith::AddIOp::create(b, l, sum, term);
      }
      return sum;
    };
    for (Operation *user : llvm::make_early_inc_range(arg.getUsers())) {
      OpBuilder b(user);
      if (auto load = dyn_cast<memref::LoadOp>(user)) {
        Location l = load.getLoc();
        Value i = linear(b, l, load.getIndices());
        if (wide)
          i = arith::MulIOp::create(b, l, i,
                                    arith::ConstantIndexOp::create(b, l, 2));
        Value v = memref::LoadOp::create(b, l, flat, i);
        if (wide)
          v = arith::ExtSIOp::create(b, l, elem, v);
        if (bf16)
          v = arith::BitcastOp::create(b, l, elem, v);
        load.replaceAllUsesWith(v);
        load.erase();
      } else if (auto store = dyn_cast<memref::StoreOp>(user)) {
        Location l = store.getLoc();
        Value i = linear(b, l, store.getIndices());
        Value v = store.getValueToStore();
        if (bf16)
          v = arith::BitcastOp::create(b, l, i16, v);
        if (wide) {
          i = arith::MulIOp::create(b, l, i,
                                    arith::ConstantIndexOp::create(b, l, 2));
          v = arith::TruncIOp::create(b, l, i32, v);
          Value sign = arith::ShRSIOp::create(
              b, l, v, arith::ConstantIntOp::create(b, l, i32, 31));
          Value hi = arith::AddIOp::create(
              b, l, i, arith::ConstantIndexOp::create(b, l, 1));
          memref::StoreOp::create(b, l, sign, flat, hi);
        }
        memref::StoreOp::create(b, l, v, flat, i);
        store.erase();
      } else if (auto dim = dyn_cast<memref::DimOp>(user)) {
        std::optional<int64_t> d = dim.getConstantIndex();
        if (!d || *d < 0 || *d >= type.getRank())
          return dim.emitOpError()
                 << "reads a dimension that is not a constant in range";
        dim.replaceAllUsesWith(size(*d));
        dim.erase();
      } else {
        return user->emitOpError()
               << "uses a kernel buffer; kernels may only load, store and "
                  "read dims of their buffers";
      }
    }
    return success();
  }

  LogicalResult rewriteScalar(BlockArgument arg, Value operand) {
    Type type = arg.getType();
    Location loc = kernel.getLoc();
    Value value;
    if (type.isIndex()) {
      value = param(operand);
    } else if (auto it = dyn_cast<IntegerType>(type);
               it && it.getWidth() <= 32) {
      Value word = param(operand);
      value = arith::IndexCastOp::create(device, loc, type, word);
    } else if (type.isF32()) {
      Value bits = arith::BitcastOp::create(host, launch.getLoc(),
                                            host.getI32Type(), operand);
      Value word = param(bits);
      Value i32 =
          arith::IndexCastOp::create(device, loc, device.getI32Type(), word);
      value = arith::BitcastOp::create(device, loc, type, i32);
    } else {
      return kernel.emitOpError()
             << "argument #" << arg.getArgNumber() << " has type " << type
             << "; kernel scalars must be index, i1..i32 or f32";
    }
    arg.replaceAllUsesWith(value);
    return success();
  }

  bool float16; // f16 buffers allowed (the profile's fp16)
  gpu::LaunchFuncOp launch;
  gpu::GPUFuncOp kernel;
  OpBuilder host, device;
  BlockArgument params;
};

/// Kernels compute 64-bit integers (ids, lengths, index arithmetic on
/// them) in 32 bits, so that they need no Int64 capability: every i64 value
/// becomes i32, and casts between what are now equal types disappear.
/// Buffers keep their 64-bit layout (see rewriteBuffer).
/// The kernel's bf16 arithmetic (after attune-widen-half only conversions
/// to and from f32) as integer operations on the bits, which its buffers
/// hold as i16 (round to nearest even, NaN kept). A bf16 value that remains
/// is an error, never a silently different type.
LogicalResult expandBFloat16(gpu::GPUFuncOp kernel) {
  bool any = false;
  kernel.walk([&](Operation *op) {
    for (Type t : op->getResultTypes())
      any |= getElementTypeOrSelf(t).isBF16();
  });
  if (!any)
    return success();
  MLIRContext *ctx = kernel.getContext();
  // Ops that only choose bits (constants, selects) work on the i16 bits.
  Type i16 = IntegerType::get(ctx, 16);
  kernel.walk([&](Operation *op) {
    if (op->getNumResults() != 1 || !op->getResult(0).getType().isBF16())
      return;
    OpBuilder b(op);
    Location loc = op->getLoc();
    Value bits;
    if (auto c = dyn_cast<arith::ConstantOp>(op)) {
      APInt v = cast<FloatAttr>(c.getValue()).getValue().bitcastToAPInt();
      bits = arith::ConstantOp::create(b, loc, IntegerAttr::get(i16, v));
    } else if (auto select = dyn_cast<arith::SelectOp>(op)) {
      auto asBits = [&](Value v) {
        return arith::BitcastOp::create(b, loc, i16, v).getResult();
      };
      bits = arith::SelectOp::create(b, loc, select.getCondition(),
                                     asBits(select.getTrueValue()),
                                     asBits(select.getFalseValue()));
    } else {
      return;
    }
    op->getResult(0).replaceAllUsesWith(
        arith::BitcastOp::create(b, loc, op->getResult(0).getType(), bits));
    op->erase();
  });
  RewritePatternSet patterns(ctx);
  arith::populateExpandBFloat16Patterns(patterns);
  arith::BitcastOp::getCanonicalizationPatterns(patterns, ctx);
  if (failed(applyPatternsGreedily(kernel, std::move(patterns))))
    return kernel.emitOpError() << "bf16 expansion did not converge";
  WalkResult left = kernel.walk([&](Operation *op) {
    for (Type t : op->getResultTypes())
      if (getElementTypeOrSelf(t).isBF16()) {
        op->emitOpError()
            << "computes bf16 values in a Vulkan kernel, which has no bf16 "
               "type; only conversions to and from f32 are supported";
        return WalkResult::interrupt();
      }
    return WalkResult::advance();
  });
  return failure(left.wasInterrupted());
}

LogicalResult narrowI64(gpu::GPUFuncOp kernel) {
  MLIRContext *ctx = kernel.getContext();
  Type i32 = IntegerType::get(ctx, 32);
  auto narrow = [&](Value v) {
    if (v.getType().isInteger(64))
      v.setType(i32);
  };
  SmallVector<Operation *> casts;
  WalkResult result = kernel.walk([&](Operation *op) -> WalkResult {
    for (Region &r : op->getRegions())
      for (Block &b : r)
        for (BlockArgument a : b.getArguments())
          narrow(a);
    if (isa<arith::ExtSIOp, arith::ExtUIOp, arith::TruncIOp>(op))
      casts.push_back(op);
    bool touched = false;
    for (Value v : op->getResults())
      touched |= v.getType().isInteger(64);
    if (!touched)
      return WalkResult::advance();
    if (auto c = dyn_cast<arith::ConstantOp>(op)) {
      // Sentinels (INT64_MAX as "no index yet") saturate.
      int64_t value = cast<IntegerAttr>(c.getValue()).getValue().getSExtValue();
      value = std::clamp<int64_t>(value, INT32_MIN, INT32_MAX);
      c.setValueAttr(IntegerAttr::get(i32, value));
    } else if (isa<arith::ExtSIOp, arith::ExtUIOp, arith::TruncIOp>(op)) {
      // Handled below, once the operands are narrowed too.
    } else if (op->getDialect() != ctx->getLoadedDialect("arith") &&
               !isa<scf::ForOp, scf::IfOp, scf::YieldOp>(op)) {
      return op->emitOpError() << "computes 64-bit integers in a kernel",
             WalkResult::interrupt();
    }
    for (Value v : op->getResults())
      narrow(v);
    return WalkResult::advance();
  });
  if (result.wasInterrupted())
    return failure();
  for (Operation *op : casts) {
    Value in = op->getOperand(0);
    Type out = op->getResult(0).getType();
    if (in.getType() == out) {
      op->getResult(0).replaceAllUsesWith(in);
      op->erase();
    } else if (isa<arith::TruncIOp>(op) &&
               in.getType().getIntOrFloatBitWidth() <
                   out.getIntOrFloatBitWidth()) {
      OpBuilder b(op);
      op->getResult(0).replaceAllUsesWith(
          arith::ExtSIOp::create(b, op->getLoc(), out, in).getResult());
      op->erase();
    }
  }
  return success();
}

struct AttuneVulkanAbiPass
    : mlir::attune::impl::AttuneVulkanAbiBase<AttuneVulkanAbiPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    // attune-map-to-gpu has replaced the calls of the stand-ins.
    for (StringRef callee : {mlir::attune::kBarrierCallee, mlir::attune::kSubgroupAddCallee})
      if (auto decl = module.lookupSymbol<func::FuncOp>(callee);
          decl && decl.symbolKnownUseEmpty(module))
        decl.erase();
    OpBuilder mb = OpBuilder::atBlockEnd(module.getBody());
    Type i64 = mb.getI64Type(), index = mb.getIndexType();
    auto bufferArray = MemRefType::get({ShapedType::kDynamic}, i64);
    auto paramArray = MemRefType::get({ShapedType::kDynamic}, mb.getI32Type());

    // Host-side scratch arrays (the deallocation helpers' pointer and
    // ownership lists) are the only allocations the host code reads or
    // writes itself: they live on the stack, every other allocation is
    // device memory from the runtime.
    SmallVector<memref::AllocOp> hostArrays;
    module.walk([&](memref::AllocOp alloc) {
      if (alloc->getParentOfType<gpu::GPUModuleOp>())
        return;
      if (llvm::any_of(alloc->getUsers(), [](Operation *user) {
            return isa<memref::LoadOp, memref::StoreOp>(user);
          }))
        hostArrays.push_back(alloc);
    });
    for (memref::AllocOp alloc : hostArrays) {
      if (!alloc.getType().hasStaticShape()) {
        alloc.emitOpError() << "is a host array of dynamic size; the Vulkan "
                               "host code only keeps small static arrays";
        return signalPassFailure();
      }
      for (Operation *user : llvm::make_early_inc_range(alloc->getUsers()))
        if (isa<memref::DeallocOp>(user))
          user->erase();
      // At the function's entry: one array per allocation site, reused by
      // every iteration of an enclosing loop (each iteration's use ends
      // before the next begins), so the stack does not grow per step.
      auto func = alloc->getParentOfType<FunctionOpInterface>();
      OpBuilder b = func ? OpBuilder::atBlockBegin(&func.getFunctionBody().front())
                         : OpBuilder(alloc);
      auto alloca = memref::AllocaOp::create(b, alloc.getLoc(), alloc.getType(),
                                             alloc.getAlignmentAttr());
      alloc.replaceAllUsesWith(alloca.getResult());
      alloc.erase();
    }

    SmallVector<gpu::LaunchFuncOp> launches;
    module.walk([&](gpu::LaunchFuncOp op) { launches.push_back(op); });
    if (!launches.empty() && !module.lookupSymbol(kDispatch)) {
      auto decl = func::FuncOp::create(
          mb, module.getLoc(), kDispatch,
          mb.getFunctionType({i64, index, index, index, bufferArray, paramArray},
                             {}));
      decl.setPrivate();
    }

    SmallVector<Attribute> kernels;
    llvm::DenseSet<Operation *> seen;
    for (gpu::LaunchFuncOp launch : launches) {
      auto kernel = SymbolTable::lookupNearestSymbolFrom<gpu::GPUFuncOp>(
          launch, launch.getKernel());
      if (!kernel || !seen.insert(kernel).second) {
        launch.emitOpError() << "must launch its own outlined kernel";
        return signalPassFailure();
      }
      if (!launch.getAsyncDependencies().empty() || launch.getAsyncToken()) {
        launch.emitOpError() << "is asynchronous; expected a plain launch";
        return signalPassFailure();
      }
      SmallVector<int32_t> workgroup;
      for (Value v : {launch.getBlockSizeX(), launch.getBlockSizeY(),
                      launch.getBlockSizeZ()}) {
        std::optional<int64_t> c = getConstantIntValue(v);
        if (!c) {
          launch.emitOpError() << "has a workgroup size that is not a constant";
          return signalPassFailure();
        }
        workgroup.push_back(*c);
      }
      int64_t invocations =
          (int64_t)workgroup[0] * workgroup[1] * workgroup[2];
      if (invocations > maxWorkgroupInvocations) {
        launch.emitOpError()
            << "has " << invocations << " invocations per workgroup; the "
            << "profile allows " << (int64_t)maxWorkgroupInvocations;
        return signalPassFailure();
      }

      // file.mlir:line:col of the op the kernel came from.
      std::string where = "unknown";
      if (auto file = launch.getLoc()->findInstanceOf<FileLineColLoc>())
        where = (llvm::sys::path::filename(file.getFilename().getValue()) +
                 ":" + Twine(file.getLine()) + ":" + Twine(file.getColumn()))
                    .str();

      // Subgroup operations reduce over the whole workgroup: the device's
      // subgroups must hold all of its invocations.
      bool subgroups = kernel
                           .walk([](gpu::SubgroupReduceOp) {
                             return WalkResult::interrupt();
                           })
                           .wasInterrupted();

      KernelRewriter rewriter(launch, kernel, float16);
      if (failed(rewriter.run()) || failed(narrowI64(kernel)) ||
          failed(expandBFloat16(kernel)))
        return signalPassFailure();
      int64_t pushBytes = 4 * rewriter.hostParams.size();
      if (pushBytes > pushConstantBytes) {
        kernel.emitOpError()
            << "needs " << pushBytes << " bytes of push constants; the "
            << "profile allows " << (int64_t)pushConstantBytes;
        return signalPassFailure();
      }
      kernel->setAttr(
          spirv::getEntryPointABIAttrName(),
          spirv::getEntryPointABIAttr(ctx, workgroup));

      // The dispatch call.
      OpBuilder b(launch);
      Location loc = launch.getLoc();
      auto fill = [&](ArrayRef<Value> values, Type elem,
                      MemRefType dynType) -> Value {
        auto type = MemRefType::get({(int64_t)values.size()}, elem);
        Value array = memref::AllocaOp::create(b, loc, type);
        for (auto [i, v] : llvm::enumerate(values)) {
          Value at = arith::ConstantIndexOp::create(b, loc, i);
          Value word = v.getType() == elem
                           ? v
                           : arith::IndexCastOp::create(b, loc, elem, v);
          memref::StoreOp::create(b, loc, word, array, at);
        }
        return memref::CastOp::create(b, loc, dynType, array);
      };
      Value buffers = fill(rewriter.hostBuffers, i64, bufferArray);
      Value pushes = fill(rewriter.hostParams, b.getI32Type(), paramArray);
      Value id = arith::ConstantIntOp::create(b, loc, i64, kernels.size());
      func::CallOp::create(
          b, loc, kDispatch, TypeRange{},
          ValueRange{id, launch.getGridSizeX(), launch.getGridSizeY(),
                     launch.getGridSizeZ(), buffers, pushes});
      launch.erase();

      auto gpuModule = kernel->getParentOfType<gpu::GPUModuleOp>();

      kernels.push_back(mlir::attune::vulkan::kernelRecord(
          b, where, gpuModule.getName(), kernel.getName(), rewriter.numBuffers,
          rewriter.hostParams.size(), workgroup,
          subgroups ? invocations : 0));
    }
    module->setAttr(kKernelsAttr, ArrayAttr::get(ctx, kernels));

    // Globals read by the host code: public, with stable names.
    SmallVector<Attribute> globals;
    llvm::DenseMap<Operation *, StringAttr> renamed;
    WalkResult walk = module.walk([&](memref::GetGlobalOp get) -> WalkResult {
      if (get->getParentOfType<gpu::GPUModuleOp>())
        return WalkResult::advance();
      auto global = SymbolTable::lookupNearestSymbolFrom<memref::GlobalOp>(
          get, get.getNameAttr());
      if (!global)
        return get.emitOpError() << "refers to an unknown global", WalkResult::interrupt();
      StringAttr &name = renamed[global];
      if (!name) {
        // Public globals (external weights) keep their names: the runtime
        // fills them; private ones (constants) get a stable public name.
        name = global.isPublic()
                   ? global.getSymNameAttr()
                   : StringAttr::get(ctx, ::attune::artifact::kVulkanGlobalPrefix +
                                              std::to_string(globals.size()));
        MemRefType type = global.getType();
        if (!type.hasStaticShape())
          return global.emitOpError() << "has a dynamic shape", WalkResult::interrupt();
        int64_t bytes = type.getNumElements() *
                        llvm::divideCeil(type.getElementTypeBitWidth(), 8);
        OpBuilder gb(global);
        globals.push_back(mlir::attune::vulkan::globalRecord(gb, name, bytes));
        if (name != global.getSymNameAttr()) {
          if (failed(SymbolTable::replaceAllSymbolUses(global, name, module)))
            return WalkResult::interrupt();
          global.setSymName(name);
          global.setPublic();
        }
      }
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return signalPassFailure();
    module->setAttr(kGlobalsAttr, ArrayAttr::get(ctx, globals));
  }
};

} // namespace
