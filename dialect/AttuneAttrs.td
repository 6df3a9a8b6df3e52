//===- AttuneAttrs.td - attune enum attributes -------------*- tablegen -*-===//

#ifndef ATTUNE_ATTRS_TD
#define ATTUNE_ATTRS_TD

include "mlir/IR/EnumAttr.td"
include "dialect/AttuneDialect.td"

class Attune_EnumAttr<EnumAttrInfo info, string mnemonic>
    : EnumAttr<Attune_Dialect, info, mnemonic> {
  let assemblyFormat = "`<` $value `>`";
}

def Attune_Activation : I32EnumAttr<"Activation", "activation function", [
    I32EnumAttrCase<"relu", 0>,
    I32EnumAttrCase<"gelu", 1>,       // exact: x * 0.5 * (1 + erf(x / sqrt(2)))
    I32EnumAttrCase<"gelu_tanh", 2>,  // PyTorch gelu(approximate="tanh")
    I32EnumAttrCase<"tanh", 3>,
    I32EnumAttrCase<"sigmoid", 4>,
    I32EnumAttrCase<"silu", 5>]> {
  let cppNamespace = "::mlir::attune";
  let genSpecializedAttr = 0;
}
def Attune_ActivationAttr : Attune_EnumAttr<Attune_Activation, "activation">;

def Attune_ScoreKind : I32EnumAttr<"ScoreKind", "attention score function", [
    I32EnumAttrCase<"dot", 0>,
    I32EnumAttrCase<"scaled_dot", 1>]> {
  let cppNamespace = "::mlir::attune";
  let genSpecializedAttr = 0;
}
def Attune_ScoreKindAttr : Attune_EnumAttr<Attune_ScoreKind, "score">;

def Attune_Selection : I32EnumAttr<"Selection", "soft or hard attention", [
    I32EnumAttrCase<"soft", 0>,
    I32EnumAttrCase<"hard", 1>]> {
  let cppNamespace = "::mlir::attune";
  let genSpecializedAttr = 0;
}
def Attune_SelectionAttr : Attune_EnumAttr<Attune_Selection, "selection">;

def Attune_MaskAlign : I32EnumAttr<"MaskAlign",
    "alignment of query positions to key positions when Lq != Lk", [
    I32EnumAttrCase<"top_left", 0>,
    I32EnumAttrCase<"bottom_right", 1>]> {
  let cppNamespace = "::mlir::attune";
  let genSpecializedAttr = 0;
}
def Attune_MaskAlignAttr : Attune_EnumAttr<Attune_MaskAlign, "align">;

def Attune_PositionalKind : I32EnumAttr<"PositionalKind",
    "positional encoding kind", [
    I32EnumAttrCase<"sinusoidal", 0>,
    I32EnumAttrCase<"learned", 1>]> {
  let cppNamespace = "::mlir::attune";
  let genSpecializedAttr = 0;
}
def Attune_PositionalKindAttr
    : Attune_EnumAttr<Attune_PositionalKind, "positional">;

def Attune_Seq2SeqScore : I32EnumAttr<"Seq2SeqScore",
    "score function of the classic seq2seq attention literature", [
    I32EnumAttrCase<"dot", 0>,        // Luong dot:      s . h
    I32EnumAttrCase<"general", 1>,    // Luong general:  s^T W h
    I32EnumAttrCase<"additive", 2>,   // Bahdanau:       v^T tanh(W1 s + W2 h)
    I32EnumAttrCase<"location", 3>]> { // Luong location: W s
  let cppNamespace = "::mlir::attune";
  let genSpecializedAttr = 0;
}
def Attune_Seq2SeqScoreAttr
    : Attune_EnumAttr<Attune_Seq2SeqScore, "seq2seq_score">;

#endif // ATTUNE_ATTRS_TD
