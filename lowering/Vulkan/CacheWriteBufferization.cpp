//===- CacheWriteBufferization.cpp - attune.cache_write as a device scatter ===//
//
// On Vulkan `attune.cache_write` survives convert-attune-to-linalg (after
// its capacity check) and one-shot bufferization writes it in place into
// the cache's buffer as one kernel: an invocation per element (b, h, t, d)
// of the update stores it at row positions[b] + t. The host code cannot
// place slices as the CPU lowering does (an scf.for of insert_slices at
// offsets read from `positions`): the positions are device data.
//
// Why an interface model and not a kernel built on tensors (as
// attune-gpu-attention builds its kernels): the kernel writes a buffer that
// a tensor already names, and a `to_buffer` of the cache with a
// `to_tensor` after the kernel lets the canonicalizer rewrite later loads
// through it into reads of the old tensor, which one-shot bufferization
// then keeps by copying the cache. Bufferized as what it is (an
// insert_slice-like op: the result is the cache's buffer, the cache is
// read and written), the cache is written in place or, if its old value is
// read afterwards, attune-drop-state-results says so.
//
//===----------------------------------------------------------------------===//

#include "lowering/Passes.h"

#include "dialect/AttuneOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::attune;
using namespace mlir::bufferization;

namespace {

struct CacheWriteModel
    : BufferizableOpInterface::ExternalModel<CacheWriteModel, CacheWriteOp> {
  // The update and positions are read; the cache too (the rows not written
  // are the result's), and written.
  bool bufferizesToMemoryRead(Operation *, OpOperand &,
                              const AnalysisState &) const {
    return true;
  }
  bool bufferizesToMemoryWrite(Operation *op, OpOperand &operand,
                               const AnalysisState &) const {
    return &operand == &cast<CacheWriteOp>(op).getCacheMutable();
  }
  AliasingValueList getAliasingValues(Operation *op, OpOperand &operand,
                                      const AnalysisState &) const {
    if (&operand != &cast<CacheWriteOp>(op).getCacheMutable())
      return {};
    return {{op->getResult(0), BufferRelation::Equivalent}};
  }

  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const BufferizationOptions &options,
                          BufferizationState &state) const {
    auto write = cast<CacheWriteOp>(op);
    Location loc = op->getLoc();
    FailureOr<Value> cache =
        getBuffer(rewriter, write.getCache(), options, state);
    FailureOr<Value> update =
        getBuffer(rewriter, write.getUpdate(), options, state);
    FailureOr<Value> positions =
        getBuffer(rewriter, write.getPositions(), options, state);
    if (failed(cache) || failed(update) || failed(positions))
      return failure();
    auto index = [&](int64_t x) {
      return arith::ConstantIndexOp::create(rewriter, loc, x).getResult();
    };
    auto dim = [&](Value v, int64_t d) {
      return memref::DimOp::create(rewriter, loc, v, d).getResult();
    };
    Value c0 = index(0), c1 = index(1);
    Value capacity = dim(*cache, 2);
    scf::ParallelOp::create(
        rewriter, loc, ValueRange{c0, c0, c0, c0},
        ValueRange{dim(*update, 0), dim(*update, 1), dim(*update, 2),
                   dim(*update, 3)},
        ValueRange{c1, c1, c1, c1},
        [&](OpBuilder &b, Location l, ValueRange ivs) {
          Value raw = memref::LoadOp::create(b, l, *positions, ivs[0]);
          Value first =
              arith::IndexCastOp::create(b, l, b.getIndexType(), raw);
          Value row = arith::AddIOp::create(b, l, first, ivs[2]);
          // A row outside the cache is not written (the capacity check
          // fails the run): nothing past the buffer is touched.
          Value inside = arith::AndIOp::create(
              b, l,
              arith::CmpIOp::create(b, l, arith::CmpIPredicate::sge, first,
                                    arith::ConstantIndexOp::create(b, l, 0)),
              arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, row,
                                    capacity));
          scf::IfOp::create(b, l, inside, [&](OpBuilder &b2, Location l2) {
            Value x = memref::LoadOp::create(b2, l2, *update, ivs);
            memref::StoreOp::create(b2, l2, x, *cache,
                                    ValueRange{ivs[0], ivs[1], row, ivs[3]});
            scf::YieldOp::create(b2, l2);
          });
        });
    replaceOpWithBufferizedValues(rewriter, op, *cache);
    return success();
  }
};

} // namespace

void mlir::attune::registerBufferizationModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, AttuneDialect *) {
    CacheWriteOp::attachInterface<CacheWriteModel>(*ctx);
  });
}
