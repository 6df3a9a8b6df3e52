//===- AttuneOps.td - attune operations --------------------*- tablegen -*-===//

#ifndef ATTUNE_OPS_TD
#define ATTUNE_OPS_TD

include "dialect/AttuneDialect.td"
include "dialect/AttuneAttrs.td"
include "mlir/IR/OpAsmInterface.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

//===----------------------------------------------------------------------===//
// Type constraints and op classes
//===----------------------------------------------------------------------===//

def Attune_FloatTensor : RankedTensorOf<[F32, F16, BF16]>;
def Attune_IndexTensor : RankedTensorOf<[I32, I64]>;
// Floats and integers: what comparisons, choices and gathers take.
def Attune_NumericTensor : RankedTensorOf<[F32, F16, BF16, I32, I64]>;
// What the pure data-movement ops (no arithmetic) move: floats, integers and
// booleans (masks).
def Attune_DataTensor : RankedTensorOf<[F32, F16, BF16, I32, I64, I1]>;

// An op whose result types are inferred from its operands and attributes. The
// C++ verifier and the type inference share one function per op (see
// AttuneOps.cpp), so every shape rule is checked in one place.
class Attune_InferOp<string mnemonic, list<Trait> traits = []>
    : Attune_Op<mnemonic, traits # [Pure, InferTypeOpAdaptorWithIsCompatible]> {
  let hasVerifier = 1;
}

// A shape-preserving op with one tensor operand.
class Attune_SameTypeOp<string mnemonic, list<Trait> traits = []>
    : Attune_Op<mnemonic, traits # [Pure, SameOperandsAndResultType]> {
  let results = (outs Attune_FloatTensor:$result);
}

// Attributes of the index-computed masks, shared by attention, mask and the
// composite attention ops.
defvar Attune_MaskAttrs = (ins
  UnitAttr:$causal,
  DefaultValuedAttr<Attune_MaskAlignAttr,
                    "::mlir::attune::MaskAlign::top_left">:$align,
  OptionalAttr<I64Attr>:$window);

defvar Attune_MaskDoc = [{
    **Masks** are computed from indices and never materialized. With query
    index `i` in `[0, Lq)` and key index `j` in `[0, Lk)`, the query's position
    in key coordinates is `p = i` for `align = top_left` (the default) and
    `p = i + Lk - Lq` for `align = bottom_right`. Key `j` is visible to query `i`
    iff all of these hold:
    - `causal`: `j <= p` (no look-ahead);
    - `window = w` (w >= 1): `p - j < w`, and without `causal` also `j - p < w`
      (a symmetric band of width `2w - 1`; with `causal`, the `w` most recent keys);
    - `key_lengths` (an integer tensor `[B]`): `j < key_lengths[b]`.
}];

//===----------------------------------------------------------------------===//
// Parameters
//===----------------------------------------------------------------------===//

def Attune_WeightOp : Attune_Op<"weight", [Pure]> {
  let summary = "A named model parameter, bound at compile time";
  let description = [{
    Produces the parameter stored under `name` in the model's safetensors file,
    where `name` is the PyTorch `state_dict` key (for example
    `"self_attn.in_proj_weight"`). The result type is the declared type; when the
    weights are bound, the stored tensor's shape and dtype must equal it exactly.
    The shape must be static. Small constants may instead be written inline with
    `arith.constant`.

    ```mlir
    %w = attune.weight "linear1.weight" : tensor<128x64xf32>
    ```
  }];
  let arguments = (ins StrAttr:$name);
  let results = (outs Attune_FloatTensor:$result);
  let assemblyFormat = "$name attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Attune_RepeatOp : Attune_Op<"repeat", [
    RecursiveMemoryEffects,
    SingleBlockImplicitTerminator<"::mlir::attune::YieldOp">]> {
  let summary = "A layer N times, each with its own weights";
  let description = [{
    The body, `count` times in a row: iteration `i` (from 0) takes the
    values the previous one yielded (the first takes `inits`), and the op's
    results are what the last one yields. Every `attune.weight` in the body
    names its weight relative to the iteration: its name is appended to
    `prefix` with `{i}` replaced by `i`, so a stack of PyTorch layers is
    written once (`nn.TransformerEncoder`'s keys are
    `layers.{i}.self_attn.in_proj_weight`, ...). Values from outside the
    body (a key-padding mask, a weight all iterations share) may be used
    in it.

    The body's block arguments and its `attune.yield` operands have the
    types of `inits`, which are the result types; `count` is in
    `[1, 4096]`; `prefix` contains `{i}`. The driver expands the op before it binds the weights
    (`attune-unroll-repeat`); the iterations, then the same computation
    with different weights, are compiled once (`attune-outline-layers`).

    ```mlir
    %y = attune.repeat %x {count = 12 : i64, prefix = "layers.{i}."}
        : (tensor<?x?x768xf32>) -> tensor<?x?x768xf32> {
    ^bb0(%h: tensor<?x?x768xf32>):
      %w = attune.weight "self_attn.in_proj_weight" : tensor<2304x768xf32>
      ...
      %o = attune.encoder_layer %h self_attn(%w, ...) ...
      attune.yield %o : tensor<?x?x768xf32>
    }
    ```
  }];
  let arguments = (ins Variadic<AnyRankedTensor>:$inits, I64Attr:$count,
                       StrAttr:$prefix);
  let results = (outs Variadic<AnyRankedTensor>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $inits attr-dict `:` functional-type($inits, $results) $body
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The weight name `name` has in iteration `index`.
    std::string weightName(int64_t index, ::llvm::StringRef name);
  }];
}

def Attune_YieldOp : Attune_Op<"yield", [
    Pure, Terminator, HasParent<"RepeatOp">]> {
  let summary = "The values an iteration of attune.repeat passes on";
  let description = [{
    Terminates the body of `attune.repeat`: its operands are the next
    iteration's block arguments, and after the last iteration the repeat's
    results.
  }];
  let arguments = (ins Variadic<AnyRankedTensor>:$values);
  let assemblyFormat = "($values^ `:` type($values))? attr-dict";
  let builders = [OpBuilder<(ins), [{ build($_builder, $_state, ValueRange()); }]>];
}

//===----------------------------------------------------------------------===//
// Linear algebra
//===----------------------------------------------------------------------===//

def Attune_LinearOp : Attune_InferOp<"linear"> {
  let summary = "Affine map over the last dimension: y = x W^T + b";
  let description = [{
    `y[..., o] = sum_k x[..., k] * weight[o, k] + bias[o]`, the semantics of
    `torch.nn.Linear` with PyTorch's weight layout `[out, in]`.

    With `activation`, the result is `act(y)` (the activation applied
    elementwise as by `attune.activation`): the epilogue
    `--attune-fuse-epilogues` folds in, computed on each output tile of the
    GEMM while it is still in cache.

    Shapes: `input [..., In]` (rank >= 1, leading dims may be dynamic),
    `weight [Out, In]`, optional `bias [Out]`; result `[..., Out]`.

    ```mlir
    %y = attune.linear %x, %w, %b
        : (tensor<?x16x64xf32>, tensor<128x64xf32>, tensor<128xf32>) -> tensor<?x16x128xf32>
    %z = attune.linear %x, %w, %b {activation = #attune.activation<gelu>}
        : (tensor<?x16x64xf32>, tensor<128x64xf32>, tensor<128xf32>) -> tensor<?x16x128xf32>
    ```
  }];
  let arguments = (ins Attune_FloatTensor:$input, Attune_FloatTensor:$weight,
                       Optional<Attune_FloatTensor>:$bias,
                       OptionalAttr<Attune_ActivationAttr>:$activation);
  let results = (outs Attune_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $weight (`,` $bias^)? attr-dict `:` functional-type(operands, results)
  }];
}

def Attune_MatmulOp : Attune_InferOp<"matmul"> {
  let summary = "Batched matrix product with optional transposes";
  let description = [{
    `result[..., m, n] = sum_k A[..., m, k] * B[..., k, n]` where `A = lhs`, or
    `lhs` with its last two dims swapped when `transpose_lhs` is set, and
    likewise `B` for `rhs` and `transpose_rhs`.

    Both operands have rank >= 2. The leading (batch) dims broadcast NumPy-style
    (different ranks allowed, static 1 stretches); the result's batch dims are
    the broadcast shape. Any dim may be dynamic; the contraction extents must
    agree.

    ```mlir
    %s = attune.matmul %q, %k {transpose_rhs}
        : (tensor<2x4x?x16xf32>, tensor<2x4x?x16xf32>) -> tensor<2x4x?x?xf32>
    ```
  }];
  let arguments = (ins Attune_FloatTensor:$lhs, Attune_FloatTensor:$rhs,
                       UnitAttr:$transpose_lhs, UnitAttr:$transpose_rhs);
  let results = (outs Attune_FloatTensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` functional-type(operands, results)
  }];
}

//===----------------------------------------------------------------------===//
// Shape manipulation
//===----------------------------------------------------------------------===//

def Attune_TransposeOp : Attune_InferOp<"transpose"> {
  let summary = "Permutes dimensions";
  let description = [{
    `result[j_0, ..., j_(r-1)] = input[i_0, ..., i_(r-1)]` with `j_d = i_(permutation[d])`, that is,
    result dim `d` is input dim `permutation[d]` (the convention of
    `torch.permute` and `linalg.transpose`). `permutation` must be a
    permutation of `[0, rank)`. An identity permutation folds away and two
    transposes in a row fold into one.

    ```mlir
    %t = attune.transpose %x {permutation = array<i64: 0, 2, 1, 3>}
        : (tensor<?x?x4x16xf32>) -> tensor<?x4x?x16xf32>
    ```
  }];
  let arguments = (ins Attune_FloatTensor:$input,
                       DenseI64ArrayAttr:$permutation);
  let results = (outs Attune_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Attune_SplitHeadsOp : Attune_InferOp<"split_heads"> {
  let summary = "[B, L, H*D] -> [B, H, L, D]";
  let description = [{
    `result[b, h, l, d] = input[b, l, h * D + d]`: the head split of multi-head
    attention, `x.view(B, L, H, D).transpose(1, 2)` in PyTorch. The last dim
    must be static and divisible by `num_heads`; `B` and `L` may be dynamic.

    ```mlir
    %h = attune.split_heads %x {num_heads = 4 : i64}
        : (tensor<?x?x64xf32>) -> tensor<?x4x?x16xf32>
    ```
  }];
  let arguments = (ins Attune_FloatTensor:$input, I64Attr:$num_heads);
  let results = (outs Attune_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

def Attune_MergeHeadsOp : Attune_InferOp<"merge_heads"> {
  let summary = "[B, H, L, D] -> [B, L, H*D]";
  let description = [{
    `result[b, l, h * D + d] = input[b, h, l, d]`, the inverse of
    `attune.split_heads`. `H` and `D` must be static. `merge_heads` of
    `split_heads` folds to the original value.

    ```mlir
    %x = attune.merge_heads %h : (tensor<?x4x?x16xf32>) -> tensor<?x?x64xf32>
    ```
  }];
  let arguments = (ins Attune_FloatTensor:$input);
  let results = (outs Attune_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
}

def Attune_SliceOp : Attune_InferOp<"slice"> {
  let summary = "Static slice along one dimension";
  let description = [{
    `result[..., i, ...] = input[..., offset + i, ...]` for `i` in `[0, size)`
    along dim `axis` (negative counts from the end); other dims are kept.
    `offset >= 0`, `size >= 1`, and `offset + size` must not exceed the extent
    when it is static. A slice of the whole extent folds away. Used to split
    packed projection weights (`in_proj_weight`) and packed Q/K/V activations.

    ```mlir
    %k = attune.slice %qkv {axis = -1 : i64, offset = 64 : i64, size = 64 : i64}
        : (tensor<?x?x192xf32>) -> tensor<?x?x64xf32>
    ```
  }];
  let arguments = (ins Attune_FloatTensor:$input, I64Attr:$axis,
                       I64Attr:$offset, I64Attr:$size);
  let results = (outs Attune_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
}

def Attune_ConcatOp : Attune_InferOp<"concat"> {
  let summary = "Concatenation along one dimension (torch.cat)";
  let description = [{
    `torch.cat(inputs, dim=axis)`: the inputs one after the other along dim
    `axis` (negative counts from the end). All inputs have the same rank and
    element type, and the same extent in every other dim (equal where both
    are static, checked at run time where one is dynamic); the result's
    extent along `axis` is the sum of theirs. Used for the concatenations
    of the classic attention decoders (`tanh(W [context; state])`), and by
    importers for ONNX `Concat`. One input folds away.

    ```mlir
    %cs = attune.concat %context, %state {axis = -1 : i64}
        : (tensor<?x64xf32>, tensor<?x32xf32>) -> tensor<?x96xf32>
    ```
  }];
  let arguments = (ins Variadic<Attune_FloatTensor>:$inputs, I64Attr:$axis);
  let results = (outs Attune_FloatTensor:$result);
  let assemblyFormat = "$inputs attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
}

def Attune_ExpandDimsOp : Attune_InferOp<"expand_dims"> {
  let summary = "Inserts a unit dimension";
  let description = [{
    Inserts a dim of extent 1 at position `axis` in `[0, rank]` (negative
    values count from `rank + 1`), as `torch.unsqueeze`.

    ```mlir
    %y = attune.expand_dims %x {axis = 2 : i64}
        : (tensor<?x?x32xf32>) -> tensor<?x?x1x32xf32>
    ```
  }];
  let arguments = (ins Attune_DataTensor:$input, I64Attr:$axis);
  let results = (outs Attune_DataTensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

def Attune_ReshapeOp : Attune_Op<"reshape", [Pure]> {
  let summary = "Row-major reshape";
  let description = [{
    The input's elements, in row-major order, in the result's shape
    (`torch.reshape`, ONNX `Reshape`). Any element type; the result has the
    input's.

    Without `sizes`, the dynamic dims are carried over: the input and the
    result have the same number of dynamic dims, the `k`-th dynamic dim of
    the result is the `k`-th of the input, and between two consecutive
    dynamic dims (and before the first, after the last) the static dims of
    the input and of the result have equal products: `[?, ?, 768]` becomes
    `[?, ?, 12, 64]`, `[2, 3, 4]` becomes `[4, 6]`.

    With `sizes` (one `index` per dynamic dim of the result, in order),
    the result's extents are given: dynamic dims may merge or split
    (`[?, ?, 768]` to `[?, 768]`, `[?, 50257]` to `[?, ?, 50257]`). The run
    fails with the op's location when the element counts differ.

    ```mlir
    %h = attune.reshape %x : tensor<?x?x768xf32> to tensor<?x?x12x64xf32>
    %f = attune.reshape %y sizes(%n) : tensor<?x?x768xf32> to tensor<?x768xf32>
    ```
  }];
  let arguments = (ins Attune_DataTensor:$input, Variadic<Index>:$sizes);
  let results = (outs Attune_DataTensor:$result);
  let assemblyFormat = [{
    $input (`sizes` `(` $sizes^ `)`)? attr-dict `:` type($input) `to` type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Attune_BroadcastOp : Attune_Op<"broadcast", [Pure]> {
  let summary = "Broadcasts a tensor to a larger shape (torch.expand)";
  let description = [{
    `result[i...] = input[j...]` where the input's dims align with the
    result's trailing dims and a dim of extent 1 is read at 0 (NumPy
    broadcasting; `Tensor.expand`, ONNX `Expand`). Each input dim is 1 or
    equals the result's aligned dim. `sizes` holds one `index` per dynamic
    dim of the result, in order (its extent at run time); an input dim
    other than 1 aligned with a dynamic result dim is checked against it at
    run time (the run fails with the op's location). Any element type; the result
    has the input's.

    ```mlir
    %cls = attune.broadcast %token sizes(%b) : tensor<1x1x768xf32> to tensor<?x1x768xf32>
    ```
  }];
  let arguments = (ins Attune_DataTensor:$input, Variadic<Index>:$sizes);
  let results = (outs Attune_DataTensor:$result);
  let assemblyFormat = [{
    $input (`sizes` `(` $sizes^ `)`)? attr-dict `:` type($input) `to` type($result)
  }];
  let hasVerifier = 1;
}

def Attune_SqueezeOp : Attune_InferOp<"squeeze"> {
  let summary = "Removes a unit dimension";
  let description = [{
    Removes dim `axis` (negative counts from the end), whose extent must be a
    static 1, as `torch.squeeze(x, axis)`. `squeeze` of `expand_dims` on the
    same axis folds to the original value.

    ```mlir
    %y = attune.squeeze %x {axis = -1 : i64}
        : (tensor<?x?x?x1xf32>) -> tensor<?x?x?xf32>
    ```
  }];
  let arguments = (ins Attune_DataTensor:$input, I64Attr:$axis);
  let results = (outs Attune_DataTensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Elementwise and normalization
//===----------------------------------------------------------------------===//

def Attune_CastOp : Attune_Op<"cast", [Pure]> {
  let summary = "Elementwise conversion between element types";
  let description = [{
    Converts every element to the result's element type; the shapes are
    equal. Between floating-point types (`f32`, `f16`, `bf16`) it rounds to
    nearest, ties to even (widening to `f32` is exact), as `Tensor.to(dtype)`;
    values beyond the narrow type's range become infinities. An integer
    (`i32`, `i64`) converts to the nearest float, a boolean (`i1`) to 0 or 1.
    Float to integer is not a cast this op makes (the verifier rejects it).

    Casts are how a model mixes precisions: weights stored in `f16` or
    `bf16` widened for `f32` activations, or an `f32` result narrowed for a
    half-precision output. A cast to the input's type folds away, and a
    narrowing cast of an exact widening folds to one cast (or none).

    ```mlir
    %w = attune.weight "fc.weight" : tensor<64x32xbf16>
    %wf = attune.cast %w : tensor<64x32xbf16> to tensor<64x32xf32>
    ```
  }];
  let arguments = (ins RankedTensorOf<[F32, F16, BF16, I32, I64, I1]>:$input);
  let results = (outs Attune_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `to` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}


def Attune_ActivationOp : Attune_SameTypeOp<"activation"> {
  let summary = "Elementwise activation function";
  let description = [{
    Applies `kind` elementwise:
    - `relu`: `max(x, 0)`
    - `gelu`: `0.5 * x * (1 + erf(x / sqrt(2)))` (PyTorch's default GELU)
    - `gelu_tanh`: `0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3)))`
    - `tanh`, `sigmoid`: `1 / (1 + exp(-x))`, `silu`: `x * sigmoid(x)`

    Any shape, dynamic dims allowed; the result has the input's type.

    ```mlir
    %y = attune.activation <gelu> %x : tensor<?x128xf32>
    ```
  }];
  let arguments = (ins Attune_ActivationAttr:$kind, Attune_FloatTensor:$input);
  let assemblyFormat = "$kind $input attr-dict `:` type($input)";
}

def Attune_UnaryOp : Attune_SameTypeOp<"unary"> {
  let summary = "Elementwise math function";
  let description = [{
    Applies `fn` elementwise (the result has the input's type):
    - `erf`, `sqrt`, `exp`, `log` (natural), `abs`;
    - `neg`: `-x`; `reciprocal`: `1 / x`.

    IEEE semantics: `sqrt` and `log` of negative values give NaN, `log(0)`
    gives -inf and `reciprocal(0)` +-inf, as in PyTorch. Used by importers
    for ONNX `Erf`, `Sqrt`, `Exp`, `Log`, `Neg`, `Abs` and `Reciprocal`
    outside the patterns that raise to larger ops.

    ```mlir
    %y = attune.unary <erf> %x : tensor<?x128xf32>
    ```
  }];
  let arguments = (ins Attune_UnaryFnAttr:$fn, Attune_FloatTensor:$input);
  let assemblyFormat = "$fn $input attr-dict `:` type($input)";
}

def Attune_BinaryOp : Attune_InferOp<"binary"> {
  let summary = "Elementwise binary function with broadcasting";
  let description = [{
    `result = fn(lhs, rhs)`, broadcasting NumPy-style (see the dialect
    description); the result shape is the broadcast shape:
    - `sub`: `lhs - rhs`; `div`: `lhs / rhs` (IEEE: `x / 0` is +-inf or NaN);
    - `pow`: `lhs ^ rhs` (C's `powf`: a negative base with an integral
      exponent has the exponent's parity sign, with any other exponent NaN);
    - `max`, `min`: propagate NaN (`torch.maximum`, ONNX `Max`).

    ```mlir
    %y = attune.binary <div> %x, %n : (tensor<?x64xf32>, tensor<?x1xf32>) -> tensor<?x64xf32>
    ```
  }];
  let arguments = (ins Attune_BinaryFnAttr:$fn, Attune_FloatTensor:$lhs,
                       Attune_FloatTensor:$rhs);
  let results = (outs Attune_FloatTensor:$result);
  let assemblyFormat = "$fn $lhs `,` $rhs attr-dict `:` functional-type(operands, results)";
}

def Attune_CompareOp : Attune_InferOp<"compare"> {
  let summary = "Elementwise comparison with broadcasting, to booleans";
  let description = [{
    `result = lhs <predicate> rhs` (`eq`, `ne`, `lt`, `le`, `gt`, `ge`), an
    `i1` tensor of the broadcast shape. The operands have one element type:
    float (as in PyTorch, a NaN operand makes every predicate false except
    `ne`, which it makes true) or integer (`i32`, `i64`, signed), so masks
    computed from token ids (`ids == pad`) stay in the model. Used by
    importers for ONNX `Equal`, `Less`, `LessOrEqual`, `Greater`,
    `GreaterOrEqual`, and `Cast` to `BOOL` (`x != 0`).

    ```mlir
    %m = attune.compare <eq> %ids, %pad : (tensor<?x?xi64>, tensor<i64>) -> tensor<?x?xi1>
    ```
  }];
  let arguments = (ins Attune_ComparePredicateAttr:$predicate,
                       Attune_NumericTensor:$lhs, Attune_NumericTensor:$rhs);
  let results = (outs RankedTensorOf<[I1]>:$result);
  let assemblyFormat = "$predicate $lhs `,` $rhs attr-dict `:` functional-type(operands, results)";
}

def Attune_SelectOp : Attune_InferOp<"select"> {
  let summary = "Elementwise choice by a boolean condition, with broadcasting";
  let description = [{
    `result = condition ? lhs : rhs` (`torch.where`, ONNX `Where`), the
    three operands broadcast NumPy-style to the result's shape. `condition`
    is `i1`; `lhs` and `rhs` have one element type (float or integer), the
    result's.

    ```mlir
    %y = attune.select %m, %x, %fill
        : (tensor<?x1x1x?xi1>, tensor<?x4x?x?xf32>, tensor<f32>) -> tensor<?x4x?x?xf32>
    ```
  }];
  let arguments = (ins RankedTensorOf<[I1]>:$condition,
                       Attune_NumericTensor:$lhs, Attune_NumericTensor:$rhs);
  let results = (outs Attune_NumericTensor:$result);
  let assemblyFormat = "$condition `,` $lhs `,` $rhs attr-dict `:` functional-type(operands, results)";
}

def Attune_ReduceOp : Attune_InferOp<"reduce"> {
  let summary = "Reduction over a set of dimensions";
  let description = [{
    Reduces `input` over the dims in `axes` (distinct, each in
    `[-rank, rank)`, negative counting from the end; empty reduces no dim,
    and the op is the identity) with `kind`: `sum`, `mean`, `max`, `min`
    or `prod`. With `keep_dims` the reduced dims stay as extents of 1
    (`torch.sum(x, dims, keepdim=True)`), else they are removed. Any dims
    may be dynamic. An empty reduction gives the kind's identity (0, 1,
    -inf, +inf; `mean` of nothing is NaN, as in PyTorch). `max` and `min`
    propagate NaN. Accumulates in `f32` for `f16` and `bf16` inputs.

    ```mlir
    %m = attune.reduce <mean> %x {axes = array<i64: -1>, keep_dims}
        : (tensor<?x?x64xf32>) -> tensor<?x?x1xf32>
    ```
  }];
  let arguments = (ins Attune_ReduceKindAttr:$kind, Attune_FloatTensor:$input,
                       DenseI64ArrayAttr:$axes, UnitAttr:$keep_dims);
  let results = (outs Attune_FloatTensor:$result);
  let assemblyFormat = "$kind $input attr-dict `:` functional-type(operands, results)";
}

def Attune_GatherOp : Attune_InferOp<"gather"> {
  let summary = "Gathers slices along one dimension by index (ONNX Gather)";
  let description = [{
    `result[p..., q..., s...] = input[p..., indices[q...], s...]` with `p`
    the dims before `axis` and `s` those after (`torch.index_select` for a
    rank-1 `indices`, ONNX `Gather` in general): the result's shape is
    `input.shape[:axis] + indices.shape + input.shape[axis+1:]`. `axis` is in
    `[-rank, rank)` (negative counts from the end); the input holds floats
    or integers; `indices` is `i32` or `i64`, any shape (rank 0 removes the dim). An index `i < 0` counts from
    the end (`i + n`, `n` the extent along `axis`); one outside `[-n, n)`
    fails the run with the op's location, as `attune.embedding` (lowered
    without checks, it reads zeros, never outside the input).

    ```mlir
    %y = attune.gather %x, %idx {axis = 1 : i64}
        : (tensor<?x16x64xf32>, tensor<3xi64>) -> tensor<?x3x64xf32>
    ```
  }];
  let arguments = (ins Attune_NumericTensor:$input,
                       Attune_IndexTensor:$indices, I64Attr:$axis);
  let results = (outs Attune_NumericTensor:$result);
  let assemblyFormat = "$input `,` $indices attr-dict `:` functional-type(operands, results)";
}

def Attune_TriluOp : Attune_SameTypeOp<"trilu"> {
  let summary = "Keeps the upper or lower triangle of the last two dims";
  let description = [{
    Over the last two dims `[M, N]` (rank >= 2; leading dims are batches),
    element `(i, j)` is kept when `j - i >= diagonal` with `upper`
    (`torch.triu(x, diagonal)`) or `j - i <= diagonal` without
    (`torch.tril`); every other element becomes 0 (`false` for `i1`: ONNX
    `Trilu` on a bool mask). Floats, integers or `i1`.

    ```mlir
    %y = attune.trilu %x {upper, diagonal = 1 : i64} : tensor<?x?x?xf32>
    ```
  }];
  let arguments = (ins Attune_DataTensor:$input, UnitAttr:$upper,
                       DefaultValuedAttr<I64Attr, "0">:$diagonal);
  let results = (outs Attune_DataTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasVerifier = 1;
}

def Attune_MaskBiasOp : Attune_Op<"mask_bias", [Pure]> {
  let summary = "Additive attention bias from a boolean mask";
  let description = [{
    `result = mask ? -inf : 0`, elementwise: PyTorch's convention for a
    boolean `key_padding_mask` or `attn_mask` (`true` hides the position),
    as an additive `bias` for `attune.attention` or
    `attune.multi_head_attention`, which broadcasts it to `[B, H, Lq, Lk]`
    (a key padding mask `[B, Lk]` reshaped to `[B, 1, 1, Lk]`). Every mask
    pattern is exact, not only suffix padding (for those, `key_lengths`
    is cheaper). The result has the mask's shape (any rank, dynamic dims
    allowed) and a float element type.

    ```mlir
    %b = attune.mask_bias %m : tensor<?x?xi1> to tensor<?x?xf32>
    ```
  }];
  let arguments = (ins RankedTensorOf<[I1]>:$mask);
  let results = (outs Attune_FloatTensor:$result);
  let assemblyFormat = "$mask attr-dict `:` type($mask) `to` type($result)";
  let hasVerifier = 1;
}

def Attune_ScaleOp : Attune_SameTypeOp<"scale"> {
  let summary = "Multiplication by a constant";
  let description = [{
    `result = input * factor`. A factor of 1 folds away and two scales in a
    row combine into one.

    ```mlir
    %y = attune.scale %x {factor = 8.0 : f64} : tensor<?x64xf32>
    ```
  }];
  let arguments = (ins Attune_FloatTensor:$input, F64Attr:$factor);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Attune_SoftmaxOp : Attune_SameTypeOp<"softmax"> {
  let summary = "Numerically stable softmax along one dimension";
  let description = [{
    `result = exp(x - max) / sum(exp(x - max))` along `axis` (negative counts
    from the end; default -1), with `max` the maximum along `axis`, so large
    inputs do not overflow. A slice whose elements are all `-inf` (every
    position masked) gives zeros rather than NaN.

    ```mlir
    %p = attune.softmax %s {axis = -1 : i64} : tensor<?x4x?x?xf32>
    ```
  }];
  let arguments = (ins Attune_FloatTensor:$input,
                       DefaultValuedAttr<I64Attr, "-1">:$axis);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasVerifier = 1;
}

def Attune_AddOp : Attune_InferOp<"add"> {
  let summary = "Elementwise sum with broadcasting";
  let description = [{
    `result = lhs + rhs`, broadcasting NumPy-style (see the dialect
    description). The result shape is the broadcast shape.

    ```mlir
    %y = attune.add %x, %r : (tensor<?x16x64xf32>, tensor<?x16x64xf32>) -> tensor<?x16x64xf32>
    ```
  }];
  let arguments = (ins Attune_FloatTensor:$lhs, Attune_FloatTensor:$rhs);
  let results = (outs Attune_FloatTensor:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)";
}

def Attune_MulOp : Attune_InferOp<"mul"> {
  let summary = "Elementwise product with broadcasting";
  let description = [{
    `result = lhs * rhs`, broadcasting NumPy-style (see the dialect
    description). The result shape is the broadcast shape.

    ```mlir
    %y = attune.mul %x, %g : (tensor<?x16x64xf32>, tensor<64xf32>) -> tensor<?x16x64xf32>
    ```
  }];
  let arguments = (ins Attune_FloatTensor:$lhs, Attune_FloatTensor:$rhs);
  let results = (outs Attune_FloatTensor:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)";
}

def Attune_LayerNormOp : Attune_InferOp<"layer_norm", [AttrSizedOperandSegments]> {
  let summary = "Layer normalization over the trailing dimensions";
  let description = [{
    Normalizes over the last `normalized_rank` dims (default 1), as
    `torch.nn.LayerNorm(normalized_shape, eps)`:
    `result = (x - mean) / sqrt(var + epsilon) * weight + bias`, where `mean`
    and the biased variance `var` are taken over the normalized dims.

    `weight` (gamma) and `bias` (beta) are optional, each with the shape of the
    normalized dims, which must be static. Leading dims may be dynamic.
    `epsilon` (default 1e-5) must be positive.

    With `residual` (the post-norm transformer's `norm(x + sublayer(x))`,
    which `--attune-fuse-epilogues` folds in), `x = input + residual` is
    normalized; the sum is never stored. `residual` has exactly the input's
    type.

    ```mlir
    %y = attune.layer_norm %x weight(%g) bias(%b) {epsilon = 1.0e-05 : f64}
        : (tensor<?x16x64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<?x16x64xf32>
    %z = attune.layer_norm %x residual(%r) weight(%g) bias(%b)
        : (tensor<?x16x64xf32>, tensor<?x16x64xf32>, tensor<64xf32>, tensor<64xf32>)
        -> tensor<?x16x64xf32>
    ```
  }];
  let arguments = (ins Attune_FloatTensor:$input,
                       Optional<Attune_FloatTensor>:$residual,
                       Optional<Attune_FloatTensor>:$weight,
                       Optional<Attune_FloatTensor>:$bias,
                       DefaultValuedAttr<F64Attr, "1e-5">:$epsilon,
                       DefaultValuedAttr<I64Attr, "1">:$normalized_rank);
  let results = (outs Attune_FloatTensor:$result);
  let assemblyFormat = [{
    $input (`residual` `(` $residual^ `)`)? (`weight` `(` $weight^ `)`)?
    (`bias` `(` $bias^ `)`)? attr-dict
    `:` functional-type(operands, results)
  }];
}

//===----------------------------------------------------------------------===//
// Embeddings
//===----------------------------------------------------------------------===//

def Attune_EmbeddingOp : Attune_InferOp<"embedding"> {
  let summary = "Table lookup: ids -> rows";
  let description = [{
    `result[..., e] = table[ids[...], e]`, as `torch.nn.Embedding`. `ids` is an
    `i32` or `i64` tensor of any shape (dims may be dynamic); `table` is
    `[V, E]` and static. An id outside `[0, V)` fails the run with the op's
    location, as PyTorch raises an error (on the CPU before the gather; on
    Vulkan the ids are checked on the device and the run fails when it
    completes). Lowered without checks, such ids give rows of zeros and
    never read outside the table.

    ```mlir
    %x = attune.embedding %ids, %table
        : (tensor<?x?xi64>, tensor<1000x64xf32>) -> tensor<?x?x64xf32>
    ```
  }];
  let arguments = (ins Attune_IndexTensor:$ids, Attune_FloatTensor:$table);
  let results = (outs Attune_FloatTensor:$result);
  let assemblyFormat = "$ids `,` $table attr-dict `:` functional-type(operands, results)";
}

def Attune_PositionalEncodingOp
    : Attune_InferOp<"positional_encoding", [AttrSizedOperandSegments]> {
  let summary = "Adds positional encodings to a sequence";
  let description = [{
    `result[..., l, e] = input[..., l, e] + PE[offset + l, e]` for an input of
    shape `[..., L, E]` (rank >= 2; `L` and leading dims may be dynamic, `E`
    static).

    - `sinusoidal` (no table): `PE[pos, 2i] = sin(pos / 10000^(2i/E))`,
      `PE[pos, 2i+1] = cos(pos / 10000^(2i/E))` (Vaswani et al.).
    - `learned`: `PE` is the `table` operand `[maxLen, E]`, for example a
      `torch.nn.Embedding(maxLen, E)` weight. `offset + L <= maxLen` is checked
      when `L` is static, else when the model runs (a located error).

    `offset` (default 0) is the position of the first element, for decoding
    one step at a time. `offsets` (an integer tensor `[B]`, for an input
    `[B, L, E]`; exclusive with a non-zero `offset`) gives each sequence its
    own first position, `PE[offsets[b] + l]`: the positions of a generation
    step whose sequences have different lengths. With a learned table, every
    `offsets[b]` must be in `[0, maxLen - L]` (checked when the model runs).

    ```mlir
    %y = attune.positional_encoding <sinusoidal> %x
        : (tensor<?x?x64xf32>) -> tensor<?x?x64xf32>
    %z = attune.positional_encoding <learned> %x, %pe
        : (tensor<?x?x64xf32>, tensor<512x64xf32>) -> tensor<?x?x64xf32>
    %s = attune.positional_encoding <learned> %x, %pe offsets(%pos)
        : (tensor<?x1x64xf32>, tensor<512x64xf32>, tensor<?xi64>) -> tensor<?x1x64xf32>
    ```
  }];
  let arguments = (ins Attune_PositionalKindAttr:$kind,
                       Attune_FloatTensor:$input,
                       Optional<Attune_FloatTensor>:$table,
                       Optional<Attune_IndexTensor>:$offsets,
                       DefaultValuedAttr<I64Attr, "0">:$offset);
  let results = (outs Attune_FloatTensor:$result);
  let assemblyFormat = [{
    $kind $input (`,` $table^)? (`offsets` `(` $offsets^ `)`)? attr-dict `:`
    functional-type(operands, results)
  }];
}

//===----------------------------------------------------------------------===//
// Attention
//===----------------------------------------------------------------------===//

def Attune_AttentionOp : Attune_InferOp<"attention", [AttrSizedOperandSegments]> {
  let summary = "Scaled dot-product attention with index-computed masks";
  let description = !strconcat([{
    Shapes: `query [B, H, Lq, D]`, `key [B, Hk, Lk, D]`, `value [B, Hk, Lk, Dv]`
    with `Hk` dividing `H` (multi-query and grouped-query attention: query head
    `h` reads key/value head `h / (H / Hk)`); result `[B, H, Lq, Dv]`. `B`, `Lq`
    and `Lk` may be dynamic; heads and head dims are static.

    Scores: `s[b,h,i,j] = scale * sum_d query[b,h,i,d] * key[b,h',j,d] + bias[b,h,i,j]`
    where `scale` is 1 for `score = dot` and for `score = scaled_dot` (the
    default) the `scale` attribute if given, else `1/sqrt(D)`. `bias` is an
    optional additive tensor broadcastable to `[B, H, Lq, Lk]` (for example
    relative-position biases or a float `attn_mask`).
  }], Attune_MaskDoc, [{
    Masked scores are `-inf`.

    `query_offsets` (an integer tensor `[B]`, exclusive with
    `align = bottom_right`) places the queries of batch `b` at key positions
    `p = query_offsets[b] + i`: the queries of a decoding step over a key/value
    cache (`attune.cache_write`) whose first new token sits at
    `query_offsets[b]`. With `causal`, a query then sees the cache up to its
    own position and nothing after it, whatever the cache holds there, so no
    `key_lengths` is needed; the kernels visit only the visible keys.

    **Local + global** (Longformer, Beltagy et al. 2020): `globals(%g)`, an
    integer tensor `[B, G]` (`G` static) of token positions, adds global
    tokens to a sliding `window` (required: without one every key is
    visible already). A global token attends to every key and every query
    attends to it: key `j` is visible to query `i` iff the key-padding and
    causal conditions hold and `p - j < w` (and `j - p < w` without
    `causal`) **or** `p` or `j` is one of `g[b, :]` (with `p` the query's
    position as above). The positions of a row must be distinct and in
    `[0, Lk)`: the verifier checks constant ones, the model checks the
    others when it runs (a located error). With `window = w` and no
    `causal`, a query sees the `2w - 1` keys around it and the `G` global
    ones: the tiled kernels visit those and, for the tiles holding a global
    query, all keys; no `[Lq, Lk]` tensor exists (`return_weights` aside).
    Not with `query_offsets`.

    **Dilated windows** (Longformer): `dilation = d` (with a `window = w`)
    spaces the window's keys `d` apart: key `j` is in the window of a query
    at position `p` iff `|p - j| <= (w - 1) d` (`0 <= p - j` with `causal`)
    and `p - j` is a multiple of `d`, so the window still holds `2w - 1`
    keys (`w` with `causal`) over `2 (w - 1) d + 1` positions. Global tokens
    are seen whatever the dilation.

    **Sparse attention** (Child et al. 2019; BigBird's block rules):
    `sparse = #attune.sparse<...>` adds a block-sparse layout (see
    `#attune.sparse`): key `j` is visible to query `i` iff the masks above
    hold **and** the layout lets query block `floor(p / block)` see key
    block `floor(j / block)` in this query head. Not with `globals` (the
    layout's `global` blocks play their part).

    Selection: `soft` (default) computes `w = softmax_j(s)` and
    `result[b,h,i,:] = sum_j w[b,h,i,j] * value[b,h',j,:]`. `hard` selects the
    single most relevant visible key (one-hot argmax of `s`, the lowest `j` on
    ties), so `result[b,h,i,:] = value[b,h',argmax_j s,:]`. A query with no
    visible key gives a zero row. With `return_weights`, a second result
    `[B, H, Lq, Lk]` holds `w` (or the one-hot selection) for visualization.

    ```mlir
    %o = attune.attention %q, %k, %v key_lengths(%len) {causal}
        : (tensor<?x8x?x64xf32>, tensor<?x2x?x64xf32>, tensor<?x2x?x64xf32>, tensor<?xi64>)
        -> tensor<?x8x?x64xf32>
    %o3 = attune.attention %q, %k, %v globals(%g) {window = 256 : i64}
        : (tensor<1x12x?x64xf32>, tensor<1x12x?x64xf32>, tensor<1x12x?x64xf32>, tensor<1x16xi64>)
        -> tensor<1x12x?x64xf32>
    %o4 = attune.attention %q, %k, %v
        {causal, sparse = #attune.sparse<block = 64, local = 4, stride = 4>}
        : (tensor<1x8x?x64xf32>, tensor<1x8x?x64xf32>, tensor<1x8x?x64xf32>)
        -> tensor<1x8x?x64xf32>
    %o2, %w = attune.attention %q, %k, %v
        {selection = #attune.selection<hard>, return_weights, window = 4 : i64}
        : (tensor<1x8x32x64xf32>, tensor<1x8x32x64xf32>, tensor<1x8x32x64xf32>)
        -> (tensor<1x8x32x64xf32>, tensor<1x8x32x32xf32>)
    ```
  }]);
  let arguments = !con((ins Attune_FloatTensor:$query, Attune_FloatTensor:$key,
                            Attune_FloatTensor:$value,
                            Optional<Attune_IndexTensor>:$key_lengths,
                            Optional<Attune_IndexTensor>:$query_offsets,
                            Optional<Attune_FloatTensor>:$bias,
                            Optional<Attune_IndexTensor>:$global_indices,
                            DefaultValuedAttr<Attune_ScoreKindAttr,
                              "::mlir::attune::ScoreKind::scaled_dot">:$score,
                            OptionalAttr<F64Attr>:$scale,
                            DefaultValuedAttr<Attune_SelectionAttr,
                              "::mlir::attune::Selection::soft">:$selection,
                            UnitAttr:$return_weights),
                       Attune_MaskAttrs,
                       (ins OptionalAttr<Attune_SparseLayoutAttr>:$sparse,
                            OptionalAttr<I64Attr>:$dilation));
  let results = (outs Attune_FloatTensor:$result,
                      Optional<Attune_FloatTensor>:$weights);
  let assemblyFormat = [{
    $query `,` $key `,` $value (`key_lengths` `(` $key_lengths^ `)`)?
    (`query_offsets` `(` $query_offsets^ `)`)?
    (`bias` `(` $bias^ `)`)? (`globals` `(` $global_indices^ `)`)?
    attr-dict `:` functional-type(operands, results)
  }];
  let extraClassDeclaration = [{
    /// The factor applied to q.k: 1, the `scale` attribute, or 1/sqrt(D).
    double getEffectiveScale();
    /// The keys a window spans on each side of a query, the query's own
    /// included: `(w - 1) d + 1` for `window = w` and `dilation = d`
    /// (1 by default); none without a window.
    std::optional<int64_t> getWindowSpan();
    /// The `dilation` attribute, 1 when absent.
    int64_t getDilationOrOne();
  }];
}

def Attune_MaskOp : Attune_InferOp<"mask"> {
  let summary = "Sets masked attention scores to -inf";
  let description = !strconcat([{
    For scores of shape `[..., Lq, Lk]` (rank >= 2; with `key_lengths`, rank >= 3
    and dim 0 is the batch `B`), returns the scores with every position that
    the mask hides set to `-inf`; visible positions are unchanged. Used where
    scores are computed by other ops (seq2seq attention) before a softmax.
  }], Attune_MaskDoc, [{
    A mask with no condition folds to its input.

    ```mlir
    %m = attune.mask %s key_lengths(%len) : (tensor<?x1x?xf32>, tensor<?xi64>) -> tensor<?x1x?xf32>
    ```
  }]);
  let arguments = !con((ins Attune_FloatTensor:$input,
                            Optional<Attune_IndexTensor>:$key_lengths),
                       Attune_MaskAttrs);
  let results = (outs Attune_FloatTensor:$result);
  let assemblyFormat = [{
    $input (`key_lengths` `(` $key_lengths^ `)`)? attr-dict `:` functional-type(operands, results)
  }];
  let hasFolder = 1;
}

def Attune_LinearAttentionOp
    : Attune_InferOp<"linear_attention", [AttrSizedOperandSegments]> {
  let summary = "Linear attention with the elu + 1 feature map (Katharopoulos et al. 2020)";
  let description = [{
    Shapes as `attune.attention`: `query [B, H, Lq, D]`, `key [B, Hk, Lk, D]`,
    `value [B, Hk, Lk, Dv]`, `Hk` dividing `H` (query head `h` reads
    key/value head `h / (H / Hk)`); result `[B, H, Lq, Dv]`. `B`, `Lq` and
    `Lk` may be dynamic; heads and head dims are static.

    The softmax kernel `exp(q.k)` is replaced by `phi(q).phi(k)` with the
    feature map `phi(x) = elu(x) + 1` (`x + 1` for `x > 0`, else `exp(x)`;
    always positive), so that the sums over keys factor out of the queries:

        result[b,h,i,:] = phi(q_i) S / (phi(q_i) . z + eps)
        S = sum_{j visible} phi(k_j)^T v_j   [D, Dv]
        z = sum_{j visible} phi(k_j)         [D]

    Non-causal: one pass over the keys builds `S` and `z`, a second applies
    them to every query. With `causal` (self-attention: `Lq = Lk`, checked
    when the model runs) key `j` is visible to query `i` iff `j <= i`, and the
    sums are running prefix sums; the kernels work in chunks of queries
    (within a chunk the masked `phi(Q) phi(K)^T` block, before it the sums of
    the chunks so far), so time is linear in `L` and memory `O(L)`: no
    `[Lq, Lk]` tensor exists. `key_lengths` (an integer tensor `[B]`) hides
    keys `j >= key_lengths[b]`. `eps` (default `1e-6`, the value of the
    authors' code) keeps the division finite; a query that sees no key
    gives a zero row. There is no scale: `phi` is applied to `q` and `k` as
    they are.

    Masks that cannot be written as sums over keys are rejected by the
    verifier: a `window` (the sums would have to forget keys), and there is
    no additive `bias` operand.

    **State** (decoding): with `state(%kv, %ksum)` (`kv [B, Hk, D, Dv]` and
    `ksum [B, Hk, D]`, f32: the sums `S` and `z` of every earlier key), the
    keys of the call come after the state's keys: every query also sees
    them, and two more results give the state after the call's visible
    keys. A causal decoding step with one token then costs
    `O(D Dv)`, whatever the length of the context: the running sums are
    the whole cache. A zero state is the empty prefix.

    ```mlir
    %o = attune.linear_attention %q, %k, %v key_lengths(%len) {causal}
        : (tensor<?x8x?x64xf32>, tensor<?x2x?x64xf32>, tensor<?x2x?x64xf32>, tensor<?xi64>)
        -> tensor<?x8x?x64xf32>
    %o1, %kv1, %z1 = attune.linear_attention %q, %k, %v state(%kv, %z) {causal}
        : (tensor<?x8x1x64xf32>, tensor<?x2x1x64xf32>, tensor<?x2x1x64xf32>,
           tensor<?x2x64x64xf32>, tensor<?x2x64xf32>)
        -> (tensor<?x8x1x64xf32>, tensor<?x2x64x64xf32>, tensor<?x2x64xf32>)
    ```
  }];
  let arguments = (ins Attune_FloatTensor:$query, Attune_FloatTensor:$key,
                       Attune_FloatTensor:$value,
                       Optional<Attune_IndexTensor>:$key_lengths,
                       Variadic<Attune_FloatTensor>:$state,
                       UnitAttr:$causal,
                       OptionalAttr<I64Attr>:$window,
                       DefaultValuedAttr<F64Attr, "1e-6">:$eps);
  let results = (outs Attune_FloatTensor:$result,
                      Variadic<Attune_FloatTensor>:$next_state);
  let assemblyFormat = [{
    $query `,` $key `,` $value (`key_lengths` `(` $key_lengths^ `)`)?
    (`state` `(` $state^ `)`)? attr-dict `:` functional-type(operands, results)
  }];
}

//===----------------------------------------------------------------------===//
// Generation state
//===----------------------------------------------------------------------===//

def Attune_CacheWriteOp : Attune_InferOp<"cache_write"> {
  let summary = "Writes a step's keys or values into a key/value cache";
  let description = [{
    `cache [B, H, C, D]` holds up to `C` positions per sequence; `update
    [B, H, T, D]` holds the keys (or values) of `T` new tokens; `positions
    [B]` (integer) gives each sequence's position of its first new token.
    The result is the cache with `result[b, h, positions[b] + t, d] =
    update[b, h, t, d]` for `t < T`, every other element unchanged.
    `0 <= positions[b] <= C - T` is checked when the model runs (a located
    error naming the capacity).

    The result takes the cache's place: it is written in place, never a
    copy, when the cache is a generation state (a function argument marked
    `attune.state`, see the generation contract in docs/design.md) or the
    result of another `cache_write`, and nothing reads the old value after
    the write. A decoding step then writes `T x H x D` elements per cache,
    whatever the number of tokens before it. `C` may be dynamic (a capacity
    chosen when the model runs); `H` and `D` are static.

    ```mlir
    %k1 = attune.cache_write %kcache, %k, %pos
        : (tensor<?x4x128x16xf32>, tensor<?x4x?x16xf32>, tensor<?xi64>)
        -> tensor<?x4x128x16xf32>
    ```
  }];
  let arguments = (ins Attune_FloatTensor:$cache, Attune_FloatTensor:$update,
                       Attune_IndexTensor:$positions);
  let results = (outs Attune_FloatTensor:$result);
  let assemblyFormat = [{
    $cache `,` $update `,` $positions attr-dict `:` functional-type(operands, results)
  }];
}

def Attune_OverwriteOp : Attune_InferOp<"overwrite"> {
  let summary = "A state's whole new value, written into its buffer";
  let description = [{
    `result = value`, computed into `dest`'s buffer: the new value of a
    generation state that is not written row by row (a recurrent decoder's
    hidden state `[B, H]`), which then takes the state's place in the
    caller's buffer (`attune-drop-state-results`) at the cost of one copy of
    `value`. `dest` and `value` have the same element type and compatible
    shapes.

    ```mlir
    %h1 = attune.overwrite %h, %next : (tensor<?x64xf32>, tensor<?x64xf32>) -> tensor<?x64xf32>
    ```
  }];
  let arguments = (ins Attune_FloatTensor:$dest, Attune_FloatTensor:$value);
  let results = (outs Attune_FloatTensor:$result);
  let assemblyFormat = [{
    $dest `,` $value attr-dict `:` functional-type(operands, results)
  }];
}

def Attune_SelectLastOp : Attune_InferOp<"select_last"> {
  let summary = "Each sequence's last valid element";
  let description = [{
    For `input [B, L, ...]` and integer `lengths [B]`, `result[b, ...] =
    input[b, lengths[b] - 1, ...]`: the state after each sequence's last
    valid token, for example the hidden state whose logits choose the next
    token when the prompts of a batch have different lengths. Every
    `lengths[b]` must be in `[1, L]` (checked when the model runs).

    ```mlir
    %h = attune.select_last %x, %lengths
        : (tensor<?x?x64xf32>, tensor<?xi64>) -> tensor<?x64xf32>
    ```
  }];
  let arguments = (ins Attune_FloatTensor:$input, Attune_IndexTensor:$lengths);
  let results = (outs Attune_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $lengths attr-dict `:` functional-type(operands, results)
  }];
}

def Attune_MultiHeadAttentionOp
    : Attune_InferOp<"multi_head_attention", [AttrSizedOperandSegments]> {
  let summary = "torch.nn.MultiheadAttention (composite)";
  let description = !strconcat([{
    The forward pass of `torch.nn.MultiheadAttention(E, num_heads,
    batch_first=True)` at inference, returning the attention output.

    Shapes: `query [B, Lq, E]`, `key [B, Lk, Ek]`, `value [B, Lk, Ev]`; the
    same SSA value for all three is self-attention, anything else is
    cross-attention. Result `[B, Lq, E]`. `E` must be divisible by `num_heads`;
    head dim `D = E / num_heads`. With `num_kv_heads = Hk` (default
    `num_heads`; must divide it), keys and values have `Hk` heads of dim `D`
    (grouped-query attention).

    Projections, PyTorch names and layouts: either `in_proj_weight`
    `[E + 2*Hk*D, E]` (packed Q, K, V; requires `Ek = Ev = E`) or the separate
    `q_proj_weight [E, E]`, `k_proj_weight [Hk*D, Ek]`,
    `v_proj_weight [Hk*D, Ev]`; optional `in_proj_bias [E + 2*Hk*D]` in both
    cases; `out_proj_weight [E, E]` and optional `out_proj_bias [E]`.
    `bias` is an optional additive float mask broadcastable to
    `[B, num_heads, Lq, Lk]` (PyTorch's float `attn_mask`).
  }], Attune_MaskDoc, [{
    `key_lengths` expresses PyTorch's `key_padding_mask` (key `j` of batch `b`
    is padding iff `j >= key_lengths[b]`); `causal` expresses a causal
    `attn_mask`.

    `--attune-decompose` rewrites it into `linear`, `slice`, `split_heads`,
    `attention`, `merge_heads` and `linear`; in self-attention with a packed
    weight, Q, K and V come from one GEMM.

    ```mlir
    %y = attune.multi_head_attention %x, %x, %x
        in_proj_weight(%w) in_proj_bias(%b) out_proj_weight(%wo) out_proj_bias(%bo)
        {num_heads = 4 : i64, causal}
        : (tensor<?x?x64xf32>, tensor<?x?x64xf32>, tensor<?x?x64xf32>,
           tensor<192x64xf32>, tensor<192xf32>, tensor<64x64xf32>, tensor<64xf32>)
        -> tensor<?x?x64xf32>
    ```
  }]);
  let arguments = !con((ins Attune_FloatTensor:$query, Attune_FloatTensor:$key,
                            Attune_FloatTensor:$value,
                            Optional<Attune_FloatTensor>:$in_proj_weight,
                            Optional<Attune_FloatTensor>:$q_proj_weight,
                            Optional<Attune_FloatTensor>:$k_proj_weight,
                            Optional<Attune_FloatTensor>:$v_proj_weight,
                            Optional<Attune_FloatTensor>:$in_proj_bias,
                            Attune_FloatTensor:$out_proj_weight,
                            Optional<Attune_FloatTensor>:$out_proj_bias,
                            Optional<Attune_IndexTensor>:$key_lengths,
                            Optional<Attune_FloatTensor>:$bias,
                            I64Attr:$num_heads,
                            OptionalAttr<I64Attr>:$num_kv_heads),
                       Attune_MaskAttrs);
  let results = (outs Attune_FloatTensor:$result);
  let assemblyFormat = [{
    $query `,` $key `,` $value
    (`in_proj_weight` `(` $in_proj_weight^ `)`)?
    (`q_proj_weight` `(` $q_proj_weight^ `)`)?
    (`k_proj_weight` `(` $k_proj_weight^ `)`)?
    (`v_proj_weight` `(` $v_proj_weight^ `)`)?
    (`in_proj_bias` `(` $in_proj_bias^ `)`)?
    `out_proj_weight` `(` $out_proj_weight `)`
    (`out_proj_bias` `(` $out_proj_bias^ `)`)?
    (`key_lengths` `(` $key_lengths^ `)`)?
    (`bias` `(` $bias^ `)`)?
    attr-dict `:` functional-type(operands, results)
  }];
  let extraClassDeclaration = [{
    int64_t getNumKvHeadsOrDefault() {
      return getNumKvHeads().value_or(getNumHeads());
    }
  }];
}

def Attune_Seq2SeqAttentionOp
    : Attune_InferOp<"seq2seq_attention", [AttrSizedOperandSegments]> {
  let summary = "Luong and Bahdanau attention (composite)";
  let description = [{
    Attention of a decoder state over encoder outputs with the score functions
    of the classic seq2seq literature. Shapes: `query [B, Lq, Dq]` (decoder
    states; `Lq = 1` for one decoding step), `keys [B, Lk, Dk]`,
    `values [B, Lk, Dv]` (often the same value as `keys`). Results:
    `output [B, Lq, Dv]` (the context vectors) and, with `return_weights`, the weights `[B, Lq, Lk]`.

    `score` and its `weights` operands (PyTorch `nn.Linear` layouts):
    - `dot` (Luong): `s[i,j] = q_i . k_j`; no weights; `Dq = Dk`.
    - `general` (Luong): `s[i,j] = q_i^T W k_j`; `W [Dq, Dk]` (the weight of
      `nn.Linear(Dk, Dq, bias=False)`).
    - `additive` (Bahdanau, "concat"): `s[i,j] = v^T tanh(W1 q_i + W2 k_j + b)`;
      `W1 [A, Dq]`, `W2 [A, Dk]`, `v [1, A]`, and optionally `b [A]`
      (the bias of the `W1` linear).
    - `location` (Luong): `s[i,j] = (W q_i + b)[j]`; `W [Lk, Dq]`, optional
      `b [Lk]`; `Lk` must be static. `keys` only give `Lk`.

    Then `w = softmax_j(s)` over the visible keys (`key_lengths [B]`, optional,
    hides `j >= key_lengths[b]`) and `context[i] = sum_j w[i,j] * values[j]`.

    The score functions are one op with an enum rather than four ops because
    everything after the score is shared; `--attune-decompose` rewrites each
    into `linear`/`matmul`/`add`/`activation`, then `mask`, `softmax` and
    `matmul`.

    ```mlir
    %ctx, %w = attune.seq2seq_attention <additive> %s, %h, %h weights(%w1, %w2, %v)
        {return_weights}
        : (tensor<?x1x32xf32>, tensor<?x?x48xf32>, tensor<?x?x48xf32>,
           tensor<40x32xf32>, tensor<40x48xf32>, tensor<1x40xf32>)
        -> (tensor<?x1x48xf32>, tensor<?x1x?xf32>)
    ```
  }];
  let arguments = (ins Attune_Seq2SeqScoreAttr:$score,
                       Attune_FloatTensor:$query, Attune_FloatTensor:$keys,
                       Attune_FloatTensor:$values,
                       Variadic<Attune_FloatTensor>:$weights,
                       Optional<Attune_IndexTensor>:$key_lengths,
                       UnitAttr:$return_weights);
  let results = (outs Attune_FloatTensor:$output,
                      Optional<Attune_FloatTensor>:$attention_weights);
  let assemblyFormat = [{
    $score $query `,` $keys `,` $values (`weights` `(` $weights^ `)`)?
    (`key_lengths` `(` $key_lengths^ `)`)? attr-dict
    `:` functional-type(operands, results)
  }];
}

//===----------------------------------------------------------------------===//
// Transformer blocks (composite)
//===----------------------------------------------------------------------===//

def Attune_FeedForwardOp
    : Attune_InferOp<"feed_forward", [AttrSizedOperandSegments]> {
  let summary = "linear -> activation -> linear (composite)";
  let description = [{
    `result = linear2(act(linear1(x)))`: `input [..., E]`, `weight1 [F, E]`,
    optional `bias1 [F]`, `weight2 [E2, F]`, optional `bias2 [E2]`; result
    `[..., E2]`. `activation` defaults to `relu`. This is the feed-forward
    block of `torch.nn.TransformerEncoderLayer` (weights `linear1.*`,
    `linear2.*`).

    ```mlir
    %y = attune.feed_forward %x linear1(%w1, %b1) linear2(%w2, %b2)
        {activation = #attune.activation<gelu>}
        : (tensor<?x?x64xf32>, tensor<128x64xf32>, tensor<128xf32>,
           tensor<64x128xf32>, tensor<64xf32>) -> tensor<?x?x64xf32>
    ```
  }];
  let arguments = (ins Attune_FloatTensor:$input,
                       Attune_FloatTensor:$weight1,
                       Optional<Attune_FloatTensor>:$bias1,
                       Attune_FloatTensor:$weight2,
                       Optional<Attune_FloatTensor>:$bias2,
                       DefaultValuedAttr<Attune_ActivationAttr,
                         "::mlir::attune::Activation::relu">:$activation);
  let results = (outs Attune_FloatTensor:$result);
  let assemblyFormat = [{
    $input `linear1` `(` $weight1 (`,` $bias1^)? `)`
    `linear2` `(` $weight2 (`,` $bias2^)? `)` attr-dict
    `:` functional-type(operands, results)
  }];
}

defvar Attune_LayerAttrs = (ins
  I64Attr:$num_heads,
  DefaultValuedAttr<Attune_ActivationAttr,
                    "::mlir::attune::Activation::relu">:$activation,
  UnitAttr:$norm_first,
  DefaultValuedAttr<F64Attr, "1e-5">:$epsilon);

def Attune_EncoderLayerOp : Attune_InferOp<"encoder_layer"> {
  let summary = "torch.nn.TransformerEncoderLayer (composite)";
  let description = [{
    Exactly `torch.nn.TransformerEncoderLayer(E, num_heads, F, dropout=0,
    activation, layer_norm_eps=epsilon, batch_first=True, norm_first)` at
    inference.
    `src [B, L, E]` -> `[B, L, E]`. With `sa` the self-attention block
    (`multi_head_attention` with the `self_attn.*` weights) and `ff` the
    feed-forward block (`linear1.*`, `activation`, `linear2.*`):
    - post-norm (default): `x = norm1(x + sa(x)); x = norm2(x + ff(x))`
    - `norm_first`: `x = x + sa(norm1(x)); x = x + ff(norm2(x))`

    Weights (PyTorch layouts): `self_attn(in_proj_weight [3E, E],
    in_proj_bias [3E], out_proj.weight [E, E], out_proj.bias [E])`,
    `linear1(weight [F, E], bias [F])`, `linear2(weight [E, F], bias [E])`,
    `norm1(weight [E], bias [E])`, `norm2(weight [E], bias [E])`.
    `activation` is `relu` (default) or `gelu` (exact), as PyTorch allows.
    `key_lengths [B]` is `src_key_padding_mask`; `causal` is a causal
    `src_mask`.

    ```mlir
    %y = attune.encoder_layer %x
        self_attn(%ipw, %ipb, %opw, %opb) linear1(%w1, %b1) linear2(%w2, %b2)
        norm1(%n1w, %n1b) norm2(%n2w, %n2b) {num_heads = 4 : i64}
        : (tensor<?x?x64xf32>, tensor<192x64xf32>, tensor<192xf32>, tensor<64x64xf32>,
           tensor<64xf32>, tensor<128x64xf32>, tensor<128xf32>, tensor<64x128xf32>,
           tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>)
        -> tensor<?x?x64xf32>
    ```
  }];
  let arguments = !con((ins Attune_FloatTensor:$src,
      Attune_FloatTensor:$in_proj_weight, Attune_FloatTensor:$in_proj_bias,
      Attune_FloatTensor:$out_proj_weight, Attune_FloatTensor:$out_proj_bias,
      Attune_FloatTensor:$linear1_weight, Attune_FloatTensor:$linear1_bias,
      Attune_FloatTensor:$linear2_weight, Attune_FloatTensor:$linear2_bias,
      Attune_FloatTensor:$norm1_weight, Attune_FloatTensor:$norm1_bias,
      Attune_FloatTensor:$norm2_weight, Attune_FloatTensor:$norm2_bias,
      Optional<Attune_IndexTensor>:$key_lengths,
      UnitAttr:$causal), Attune_LayerAttrs);
  let results = (outs Attune_FloatTensor:$result);
  let assemblyFormat = [{
    $src
    `self_attn` `(` $in_proj_weight `,` $in_proj_bias `,` $out_proj_weight `,` $out_proj_bias `)`
    `linear1` `(` $linear1_weight `,` $linear1_bias `)`
    `linear2` `(` $linear2_weight `,` $linear2_bias `)`
    `norm1` `(` $norm1_weight `,` $norm1_bias `)`
    `norm2` `(` $norm2_weight `,` $norm2_bias `)`
    (`key_lengths` `(` $key_lengths^ `)`)? attr-dict
    `:` functional-type(operands, results)
  }];
}

def Attune_DecoderLayerOp
    : Attune_InferOp<"decoder_layer", [AttrSizedOperandSegments]> {
  let summary = "torch.nn.TransformerDecoderLayer (composite)";
  let description = [{
    Exactly `torch.nn.TransformerDecoderLayer(E, num_heads, F, dropout=0,
    activation, layer_norm_eps=epsilon, batch_first=True, norm_first)` at
    inference.
    `tgt [B, Lt, E]`, `memory [B, Ls, E]` -> `[B, Lt, E]`. With `sa` masked
    self-attention (`self_attn.*`), `ca` cross-attention over `memory`
    (`multihead_attn.*`) and `ff` the feed-forward block:
    - post-norm: `x = norm1(x + sa(x)); x = norm2(x + ca(x, mem)); x = norm3(x + ff(x))`
    - `norm_first`: `x = x + sa(norm1(x)); x = x + ca(norm2(x), mem); x = x + ff(norm3(x))`

    `causal` is the causal `tgt_mask` (`generate_square_subsequent_mask`);
    `tgt_key_lengths` and `memory_key_lengths` (`[B]`) are the key padding
    masks. Weight layouts as in `attune.encoder_layer`, plus
    `cross_attn(in_proj_weight [3E, E], in_proj_bias [3E], out_proj.weight,
    out_proj.bias)` and `norm3(weight, bias)`.

    ```mlir
    %y = attune.decoder_layer %t, %m
        self_attn(%a0, %a1, %a2, %a3) cross_attn(%c0, %c1, %c2, %c3)
        linear1(%w1, %b1) linear2(%w2, %b2)
        norm1(%n1w, %n1b) norm2(%n2w, %n2b) norm3(%n3w, %n3b)
        {num_heads = 4 : i64, causal}
        : (tensor<?x?x64xf32>, tensor<?x?x64xf32>,
           tensor<192x64xf32>, tensor<192xf32>, tensor<64x64xf32>, tensor<64xf32>,
           tensor<192x64xf32>, tensor<192xf32>, tensor<64x64xf32>, tensor<64xf32>,
           tensor<128x64xf32>, tensor<128xf32>, tensor<64x128xf32>, tensor<64xf32>,
           tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>,
           tensor<64xf32>, tensor<64xf32>) -> tensor<?x?x64xf32>
    ```
  }];
  let arguments = !con((ins Attune_FloatTensor:$tgt, Attune_FloatTensor:$memory,
      Attune_FloatTensor:$sa_in_proj_weight, Attune_FloatTensor:$sa_in_proj_bias,
      Attune_FloatTensor:$sa_out_proj_weight, Attune_FloatTensor:$sa_out_proj_bias,
      Attune_FloatTensor:$ca_in_proj_weight, Attune_FloatTensor:$ca_in_proj_bias,
      Attune_FloatTensor:$ca_out_proj_weight, Attune_FloatTensor:$ca_out_proj_bias,
      Attune_FloatTensor:$linear1_weight, Attune_FloatTensor:$linear1_bias,
      Attune_FloatTensor:$linear2_weight, Attune_FloatTensor:$linear2_bias,
      Attune_FloatTensor:$norm1_weight, Attune_FloatTensor:$norm1_bias,
      Attune_FloatTensor:$norm2_weight, Attune_FloatTensor:$norm2_bias,
      Attune_FloatTensor:$norm3_weight, Attune_FloatTensor:$norm3_bias,
      Optional<Attune_IndexTensor>:$tgt_key_lengths,
      Optional<Attune_IndexTensor>:$memory_key_lengths,
      UnitAttr:$causal), Attune_LayerAttrs);
  let results = (outs Attune_FloatTensor:$result);
  let assemblyFormat = [{
    $tgt `,` $memory
    `self_attn` `(` $sa_in_proj_weight `,` $sa_in_proj_bias `,` $sa_out_proj_weight `,` $sa_out_proj_bias `)`
    `cross_attn` `(` $ca_in_proj_weight `,` $ca_in_proj_bias `,` $ca_out_proj_weight `,` $ca_out_proj_bias `)`
    `linear1` `(` $linear1_weight `,` $linear1_bias `)`
    `linear2` `(` $linear2_weight `,` $linear2_bias `)`
    `norm1` `(` $norm1_weight `,` $norm1_bias `)`
    `norm2` `(` $norm2_weight `,` $norm2_bias `)`
    `norm3` `(` $norm3_weight `,` $norm3_bias `)`
    (`tgt_key_lengths` `(` $tgt_key_lengths^ `)`)?
    (`memory_key_lengths` `(` $memory_key_lengths^ `)`)? attr-dict
    `:` functional-type(operands, results)
  }];
}

//===----------------------------------------------------------------------===//
// Recurrent layers
//===----------------------------------------------------------------------===//

defvar Attune_RecurrentDoc = [{
    Over a whole sequence, with PyTorch's equations, gate order and weight
    names, `batch_first=True`: `input [B, T, I]`; for layer `l` and direction
    `d` the weights follow the `state_dict` order `weight_ih_l{l}[_reverse]
    [G*H, I_l]`, `weight_hh_l{l}[_reverse] [G*H, H]`, then, unless
    `has_biases = false`, `bias_ih_l{l}[_reverse] [G*H]` and
    `bias_hh_l{l}[_reverse] [G*H]`, layers outer and directions inner. `I_0 = I`,
    `I_l = dirs * H` above; `H = hidden_size`; `dirs` is 2 with `bidirectional`.
    Layer `l > 0` reads the concatenated outputs of layer `l - 1`.

    Results: `output [B, T, dirs*H]` (the last layer; the reverse direction in
    the upper half of the features), and the final states `[num_layers*dirs, B, H]`
    indexed `l * dirs + d`. The optional initial states have that shape and
    default to zeros. `B` and `T` may be dynamic; `T = 0` is not allowed at run
    time. Projections (`proj_size`) are not supported.
}];

class Attune_RecurrentOp<string mnemonic, int gates>
    : Attune_InferOp<mnemonic, [AttrSizedOperandSegments]> {
  let extraClassDeclaration =
      "static constexpr int64_t kNumGates = " # gates # ";";
}

def Attune_RNNOp : Attune_RecurrentOp<"rnn", 1> {
  let summary = "torch.nn.RNN over a sequence";
  let description = !strconcat([{
    `h_t = act(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh)` with
    `act = nonlinearity` (`tanh`, the default, or `relu`); `G = 1`.
  }], Attune_RecurrentDoc, [{
    ```mlir
    %out, %hn = attune.rnn %x weights(%wih, %whh, %bih, %bhh) {hidden_size = 32 : i64}
        : (tensor<?x?x16xf32>, tensor<32x16xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<32xf32>)
        -> (tensor<?x?x32xf32>, tensor<1x?x32xf32>)
    ```
  }]);
  let arguments = (ins Attune_FloatTensor:$input,
                       Variadic<Attune_FloatTensor>:$weights,
                       Optional<Attune_FloatTensor>:$initial_h,
                       I64Attr:$hidden_size,
                       DefaultValuedAttr<I64Attr, "1">:$num_layers,
                       UnitAttr:$bidirectional,
                       DefaultValuedAttr<BoolAttr, "true">:$has_biases,
                       DefaultValuedAttr<Attune_ActivationAttr,
                         "::mlir::attune::Activation::tanh">:$nonlinearity);
  let results = (outs Attune_FloatTensor:$output, Attune_FloatTensor:$final_h);
  let assemblyFormat = [{
    $input `weights` `(` $weights `)` (`initial_h` `(` $initial_h^ `)`)? attr-dict
    `:` functional-type(operands, results)
  }];
}

def Attune_LSTMOp : Attune_RecurrentOp<"lstm", 4> {
  let summary = "torch.nn.LSTM over a sequence";
  let description = !strconcat([{
    Gates in PyTorch's order `i, f, g, o` (rows of the weights; `G = 4`):
    `i = sigmoid(.)`, `f = sigmoid(.)`, `g = tanh(.)`, `o = sigmoid(.)` of
    `x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh`; `c_t = f * c_{t-1} + i * g`,
    `h_t = o * tanh(c_t)`. A third result holds the final cell states.
  }], Attune_RecurrentDoc, [{
    ```mlir
    %out, %hn, %cn = attune.lstm %x weights(%wih, %whh, %bih, %bhh) {hidden_size = 32 : i64}
        : (tensor<?x?x16xf32>, tensor<128x16xf32>, tensor<128x32xf32>, tensor<128xf32>, tensor<128xf32>)
        -> (tensor<?x?x32xf32>, tensor<1x?x32xf32>, tensor<1x?x32xf32>)
    ```
  }]);
  let arguments = (ins Attune_FloatTensor:$input,
                       Variadic<Attune_FloatTensor>:$weights,
                       Optional<Attune_FloatTensor>:$initial_h,
                       Optional<Attune_FloatTensor>:$initial_c,
                       I64Attr:$hidden_size,
                       DefaultValuedAttr<I64Attr, "1">:$num_layers,
                       UnitAttr:$bidirectional,
                       DefaultValuedAttr<BoolAttr, "true">:$has_biases);
  let results = (outs Attune_FloatTensor:$output, Attune_FloatTensor:$final_h,
                      Attune_FloatTensor:$final_c);
  let assemblyFormat = [{
    $input `weights` `(` $weights `)` (`initial_h` `(` $initial_h^ `)`)?
    (`initial_c` `(` $initial_c^ `)`)? attr-dict
    `:` functional-type(operands, results)
  }];
}

def Attune_GRUOp : Attune_RecurrentOp<"gru", 3> {
  let summary = "torch.nn.GRU over a sequence";
  let description = !strconcat([{
    Gates in PyTorch's order `r, z, n` (`G = 3`):
    `r = sigmoid(x W_ir^T + b_ir + h W_hr^T + b_hr)`,
    `z = sigmoid(x W_iz^T + b_iz + h W_hz^T + b_hz)`,
    `n = tanh(x W_in^T + b_in + r * (h W_hn^T + b_hn))`,
    `h_t = (1 - z) * n + z * h_{t-1}`.
  }], Attune_RecurrentDoc, [{
    ```mlir
    %out, %hn = attune.gru %x weights(%wih, %whh, %bih, %bhh) {hidden_size = 32 : i64}
        : (tensor<?x?x16xf32>, tensor<96x16xf32>, tensor<96x32xf32>, tensor<96xf32>, tensor<96xf32>)
        -> (tensor<?x?x32xf32>, tensor<1x?x32xf32>)
    ```
  }]);
  let arguments = (ins Attune_FloatTensor:$input,
                       Variadic<Attune_FloatTensor>:$weights,
                       Optional<Attune_FloatTensor>:$initial_h,
                       I64Attr:$hidden_size,
                       DefaultValuedAttr<I64Attr, "1">:$num_layers,
                       UnitAttr:$bidirectional,
                       DefaultValuedAttr<BoolAttr, "true">:$has_biases);
  let results = (outs Attune_FloatTensor:$output, Attune_FloatTensor:$final_h);
  let assemblyFormat = [{
    $input `weights` `(` $weights `)` (`initial_h` `(` $initial_h^ `)`)? attr-dict
    `:` functional-type(operands, results)
  }];
}

defvar Attune_CellDoc = [{
    One time step, as the PyTorch cell module (`nn.RNNCell`, `nn.LSTMCell`,
    `nn.GRUCell`): `input [B, I]`, state `[B, H]`, `weights(weight_ih [G*H, I],
    weight_hh [G*H, H][, bias_ih [G*H], bias_hh [G*H]])`, with the equations
    and gate order of the sequence op. `B` may be dynamic. Used by decoders that
    feed each output back as the next input.
}];

class Attune_CellOp<string mnemonic, int gates>
    : Attune_InferOp<mnemonic> {
  let extraClassDeclaration =
      "static constexpr int64_t kNumGates = " # gates # ";";
}

def Attune_RNNCellOp : Attune_CellOp<"rnn_cell", 1> {
  let summary = "torch.nn.RNNCell: one step";
  let description = !strconcat(Attune_CellDoc, [{
    ```mlir
    %h1 = attune.rnn_cell %x, %h weights(%wih, %whh)
        : (tensor<?x16xf32>, tensor<?x32xf32>, tensor<32x16xf32>, tensor<32x32xf32>) -> tensor<?x32xf32>
    ```
  }]);
  let arguments = (ins Attune_FloatTensor:$input, Attune_FloatTensor:$h,
                       Variadic<Attune_FloatTensor>:$weights,
                       DefaultValuedAttr<Attune_ActivationAttr,
                         "::mlir::attune::Activation::tanh">:$nonlinearity);
  let results = (outs Attune_FloatTensor:$next_h);
  let assemblyFormat = [{
    $input `,` $h `weights` `(` $weights `)` attr-dict `:` functional-type(operands, results)
  }];
}

def Attune_LSTMCellOp : Attune_CellOp<"lstm_cell", 4> {
  let summary = "torch.nn.LSTMCell: one step";
  let description = !strconcat(Attune_CellDoc, [{
    ```mlir
    %h1, %c1 = attune.lstm_cell %x, %h, %c weights(%wih, %whh, %bih, %bhh)
        : (tensor<?x16xf32>, tensor<?x32xf32>, tensor<?x32xf32>, tensor<128x16xf32>,
           tensor<128x32xf32>, tensor<128xf32>, tensor<128xf32>) -> (tensor<?x32xf32>, tensor<?x32xf32>)
    ```
  }]);
  let arguments = (ins Attune_FloatTensor:$input, Attune_FloatTensor:$h,
                       Attune_FloatTensor:$c,
                       Variadic<Attune_FloatTensor>:$weights);
  let results = (outs Attune_FloatTensor:$next_h, Attune_FloatTensor:$next_c);
  let assemblyFormat = [{
    $input `,` $h `,` $c `weights` `(` $weights `)` attr-dict `:` functional-type(operands, results)
  }];
}

def Attune_GRUCellOp : Attune_CellOp<"gru_cell", 3> {
  let summary = "torch.nn.GRUCell: one step";
  let description = !strconcat(Attune_CellDoc, [{
    ```mlir
    %h1 = attune.gru_cell %x, %h weights(%wih, %whh, %bih, %bhh)
        : (tensor<?x16xf32>, tensor<?x32xf32>, tensor<96x16xf32>, tensor<96x32xf32>,
           tensor<96xf32>, tensor<96xf32>) -> tensor<?x32xf32>
    ```
  }]);
  let arguments = (ins Attune_FloatTensor:$input, Attune_FloatTensor:$h,
                       Variadic<Attune_FloatTensor>:$weights);
  let results = (outs Attune_FloatTensor:$next_h);
  let assemblyFormat = [{
    $input `,` $h `weights` `(` $weights `)` attr-dict `:` functional-type(operands, results)
  }];
}

#endif // ATTUNE_OPS_TD
