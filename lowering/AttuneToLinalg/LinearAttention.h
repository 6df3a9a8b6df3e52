//===- LinearAttention.h - pieces shared by linear attention's forms -*- C++
//-*-===//

#ifndef ATTUNE_LOWERING_ATTUNETOLINALG_LINEARATTENTION_H
#define ATTUNE_LOWERING_ATTUNETOLINALG_LINEARATTENTION_H

#include "mlir/IR/Builders.h"

namespace mlir::attune {

/// The feature map phi(x) = elu(x) + 1 of attune.linear_attention, on a
/// scalar.
Value linearAttentionFeature(OpBuilder &b, Location loc, Value x);

/// num / (den + eps), 0 where den + eps is 0 (a query that sees no key).
Value linearAttentionQuotient(OpBuilder &b, Location loc, Value num, Value den,
                              double eps);

class KernelBuilder;

/// The run-time checks of attune.linear_attention's dynamic extents, shared
/// by its three lowerings: batches and key lengths agree, causal keys are as
/// many as the queries, the state's batch is the queries'.
void assertLinearAttentionExtents(OpBuilder &b, Location loc, Value q, Value k,
                                  Value v, Value lengths, ValueRange state,
                                  bool causal);

/// phi(q) and phi(k) as element-wise linalg ops on tensors, phi(k) zero at
/// keys j >= lengths[b] (when `lengths` is given).
std::pair<Value, Value> linearAttentionFeatures(KernelBuilder &kb, Value q,
                                                Value k, Value lengths);

} // namespace mlir::attune

#endif // ATTUNE_LOWERING_ATTUNETOLINALG_LINEARATTENTION_H
