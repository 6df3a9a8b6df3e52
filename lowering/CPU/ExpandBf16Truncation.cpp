//===- ExpandBf16Truncation.cpp - f32 -> bf16 rounding in integer ops -----===//
//
// attune-expand-bf16-truncation: on a CPU without a bf16 conversion
// instruction (vcvtneps2bf16, AVX512-BF16), LLVM lowers `fptrunc` to bf16 as
// a call to `__truncsfbf2`, which neither the artifact nor GCC 12's libgcc
// defines: the model would not load. Here each `arith.truncf` to bf16 (and
// `arith.extf` from bf16) becomes upstream's integer expansion (round to
// nearest even, NaN kept quiet; a shift for the extension), which vectorizes
// like any integer code. Targets with AVX512-BF16 keep the instruction.
//
//===----------------------------------------------------------------------===//

#include "lowering/CPU/CpuTarget.h"
#include "lowering/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::attune {
#define GEN_PASS_DEF_ATTUNEEXPANDBF16TRUNCATION
#include "lowering/Passes.h.inc"
} // namespace mlir::attune

using namespace mlir;
using namespace mlir::attune;

namespace {
struct AttuneExpandBf16TruncationPass
    : attune::impl::AttuneExpandBf16TruncationBase<
          AttuneExpandBf16TruncationPass> {
  using Base::Base;

  void runOnOperation() override {
    std::string error;
    std::optional<cpu::CpuTarget> target =
        cpu::lookupCpuTarget(cpu, features, error);
    if (!target) {
      getOperation()->emitError() << error;
      return signalPassFailure();
    }
    if (target->avx512bf16)
      return;
    RewritePatternSet patterns(&getContext());
    arith::populateExpandBFloat16Patterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};
} // namespace
