//===- Passes.h - attune -> attune passes -----------------------*- C++ -*-===//

#ifndef ATTUNE_PASSES_PASSES_H
#define ATTUNE_PASSES_PASSES_H

#include "dialect/AttuneOps.h"
#include "mlir/Pass/Pass.h"

#include <optional>
#include <string>
#include <vector>

namespace mlir {
class RewritePatternSet;
namespace arith {
class ConstantOp;
} // namespace arith
namespace tensor {
class PadOp;
} // namespace tensor

namespace attune {

#define GEN_PASS_DECL
#include "passes/Passes.h.inc"

/// Whether `v` is a weight: a tensor constant (a bound weight) or an
/// external weight's global read as a tensor.
bool isWeightValue(Value v);

/// The artifact dtype name of an element type ("f32", "f16", "bf16", "i32",
/// "i64", "bool" for i1, from attune/artifact.h's table), or null for any
/// other type.
const char *artifactDtypeName(Type type);

/// The bytes of a constant float tensor (`arith.constant` of a
/// `dense_resource` blob, as bound weights are, or of inline dense data,
/// splats expanded, or a static unit-stride `tensor.extract_slice` of one,
/// such as the Q or K/V rows of a packed in_proj weight), or nullopt when
/// `v` is no constant whose data is at hand. For compile-time weight
/// transformations (packing, transposition).
std::optional<std::vector<char>> constantBytes(Value v);
/// The stored bytes of a static `arith.constant` tensor (a `dense_resource`
/// blob, or inline dense data that is not a splat), without copying them;
/// nullopt when they are not stored element by element.
std::optional<ArrayRef<char>> constantData(arith::ConstantOp cst);
/// The resource key of a `dense_resource` constant (a bound weight's
/// state_dict key; a slice's adds its offsets), else `fallback`: names for
/// derived constants.
std::string constantKey(Value v, StringRef fallback);
/// `v` zero-padded at the end of each dim to `sizes` (a static size larger
/// than the dim's; dynamic dims and equal sizes stay): a new constant for
/// constant data, else a tensor.pad whose region makes its own zero (which
/// constantBytes reads through once its source is a constant), or `v`
/// itself when nothing is padded.
Value padWithZeros(OpBuilder &b, Location loc, Value v,
                   ArrayRef<int64_t> sizes);
/// Whether `pad` pads with a constant zero (of any element type).
bool isZeroPadding(tensor::PadOp pad);


/// Rewrites of composite ops into primitive attune ops, one per op.
void populateDecomposeMultiHeadAttentionPatterns(RewritePatternSet &patterns);
void populateDecomposeFeedForwardPatterns(RewritePatternSet &patterns);
void populateDecomposeEncoderLayerPatterns(RewritePatternSet &patterns);
void populateDecomposeDecoderLayerPatterns(RewritePatternSet &patterns);
void populateDecomposeSeq2SeqAttentionPatterns(RewritePatternSet &patterns);
/// All of the above: what `--attune-decompose` applies.
void populateAttuneDecomposePatterns(RewritePatternSet &patterns);

#define GEN_PASS_REGISTRATION
#include "passes/Passes.h.inc"

} // namespace attune
} // namespace mlir

#endif // ATTUNE_PASSES_PASSES_H
