//===- AttuneDialect.td - The attune dialect ---------------*- tablegen -*-===//

#ifndef ATTUNE_DIALECT_TD
#define ATTUNE_DIALECT_TD

include "mlir/IR/OpBase.td"

def Attune_Dialect : Dialect {
  let name = "attune";
  let cppNamespace = "::mlir::attune";
  let summary = "Attention and transformer models, from PyTorch semantics to kernels.";
  let description = [{
    The `attune` dialect describes attention and transformer models at the level
    a PyTorch user writes them: attention with index-computed masks, layer norm,
    feed-forward blocks, embeddings, positional encodings, encoder and decoder
    layers and recurrent layers. Every op works on ranked tensors of `f32`, `f16`
    or `bf16` (mixing element types in one op is an error); batch and sequence
    dimensions may be dynamic (`?`). Results are inferred from operands and
    attributes; a written result type must be compatible with the inferred one
    (a static extent may refine a dynamic one).

    Ops come in two layers. *Primitive* ops (`linear`, `matmul`, `attention`,
    `softmax`, `layer_norm`, ...) are what the lowerings consume. *Composite*
    ops (`multi_head_attention`, `feed_forward`, `encoder_layer`,
    `decoder_layer`, `seq2seq_attention`) have exactly the semantics of the
    PyTorch modules they are named after at inference time (dropout is the
    identity), and `--attune-decompose` rewrites them into primitive ops.

    Parameters enter through `attune.weight "state_dict.key"`, bound at compile
    time from a safetensors file by PyTorch `state_dict` key name.

    Broadcasting (for `add`, `mul`, `matmul` batch dims and attention bias)
    follows NumPy: shapes are aligned at the trailing dimension and a static
    extent of 1 stretches. A dynamic extent is never broadcast: at run time it
    must equal the other operand's extent unless that extent is a static 1
    (compiled models check this and report a mismatch as an error).

    Attributes an op does not define are rejected unless their name carries
    a dialect prefix (`foo.bar`), so a misspelt attribute is an error rather
    than an ignored annotation.
  }];
  let useDefaultAttributePrinterParser = 1;
  let hasConstantMaterializer = 1;
  // The generation contract's attributes (attune.state, attune.name,
  // attune.generation_step) on functions and their arguments and results.
  let hasOperationAttrVerify = 1;
  let hasRegionArgAttrVerify = 1;
  let hasRegionResultAttrVerify = 1;
  // Folded constants are arith.constants.
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

// Rejects attributes that are neither inherent to the op nor prefixed by a
// dialect name (`{casual}` for `{causal}` is an error, not an annotation).
def Attune_NoUnknownAttributes : NativeOpTrait<"NoUnknownAttributes"> {
  let cppNamespace = "::mlir::attune::OpTrait";
}

class Attune_Op<string mnemonic, list<Trait> traits = []>
    : Op<Attune_Dialect, mnemonic, traits # [Attune_NoUnknownAttributes]>;

#endif // ATTUNE_DIALECT_TD
