//===- AttuneToLinalg.h - attune -> linalg on tensors -----------*- C++ -*-===//

#ifndef ATTUNE_LOWERING_ATTUNETOLINALG_ATTUNETOLINALG_H
#define ATTUNE_LOWERING_ATTUNETOLINALG_ATTUNETOLINALG_H

namespace mlir {
class Operation;
class RewriterBase;
class RewritePatternSet;
class Value;
namespace attune {

/// What the lowering does about embedding ids outside the table.
enum class IndexChecks {
  None,     // zero rows (the gather reads nothing out of bounds)
  Assert,   // a located run-time error before the gather (cf.assert: the
            // code reads the ids on the host, as CPU code does)
  Deferred, // the ids are checked where they are (a kernel on the device)
            // and the run fails after it completes: a call of
            // attune_vk_check with the flag, the message in the module's
            // kDeferredCheckMessagesAttr
};

/// The module attribute (an array of strings) holding the messages of
/// deferred checks, by id; attune-lower-runtime-checks emits it as the
/// artifact's kVulkanCheckMessages.
inline constexpr const char kDeferredCheckMessagesAttr[] =
    "attune.deferred_check_messages";

/// The run-time check of attune.attention's global token positions
/// `globals [B, G]`: each in [0, lk) and distinct within a row (nothing
/// with IndexChecks::None).
void checkGlobalPositions(RewriterBase &rewriter, Operation *op,
                          IndexChecks checks, Value globals, Value lk);

/// Patterns lowering every primitive attune op except `attune.weight` to
/// linalg on tensors (with tensor, arith, math and scf).
void populateAttuneToLinalgConversionPatterns(
    RewritePatternSet &patterns, IndexChecks checks = IndexChecks::None);

/// The recurrent ops and cells (part of the above): `scf.for` over time with
/// the state carried, rolled.
void populateRecurrentToLinalgConversionPatterns(RewritePatternSet &patterns);

/// attune.linear_attention (part of the above): the batched form, causal
/// in chunks (see LinearAttention.cpp).
void populateLinearAttentionConversionPatterns(RewritePatternSet &patterns);

} // namespace attune
} // namespace mlir

#endif // ATTUNE_LOWERING_ATTUNETOLINALG_ATTUNETOLINALG_H
