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

def Attune_UnaryFn : I32EnumAttr<"UnaryFn", "elementwise math function", [
    I32EnumAttrCase<"erf", 0>,
    I32EnumAttrCase<"sqrt", 1>,
    I32EnumAttrCase<"exp", 2>,
    I32EnumAttrCase<"log", 3>,
    I32EnumAttrCase<"neg", 4>,
    I32EnumAttrCase<"abs", 5>,
    I32EnumAttrCase<"reciprocal", 6>]> {
  let cppNamespace = "::mlir::attune";
  let genSpecializedAttr = 0;
}
def Attune_UnaryFnAttr : Attune_EnumAttr<Attune_UnaryFn, "unary_fn">;

def Attune_BinaryFn : I32EnumAttr<"BinaryFn", "elementwise binary function", [
    I32EnumAttrCase<"sub", 0>,
    I32EnumAttrCase<"div", 1>,
    I32EnumAttrCase<"pow", 2>,
    I32EnumAttrCase<"max", 3>,
    I32EnumAttrCase<"min", 4>]> {
  let cppNamespace = "::mlir::attune";
  let genSpecializedAttr = 0;
}
def Attune_BinaryFnAttr : Attune_EnumAttr<Attune_BinaryFn, "binary_fn">;

def Attune_ComparePredicate : I32EnumAttr<"ComparePredicate",
    "elementwise comparison", [
    I32EnumAttrCase<"eq", 0>,
    I32EnumAttrCase<"lt", 1>,
    I32EnumAttrCase<"le", 2>,
    I32EnumAttrCase<"gt", 3>,
    I32EnumAttrCase<"ge", 4>,
    I32EnumAttrCase<"ne", 5>]> {
  let cppNamespace = "::mlir::attune";
  let genSpecializedAttr = 0;
}
def Attune_ComparePredicateAttr
    : Attune_EnumAttr<Attune_ComparePredicate, "compare_predicate">;

def Attune_ReduceKind : I32EnumAttr<"ReduceKind", "reduction", [
    I32EnumAttrCase<"sum", 0>,
    I32EnumAttrCase<"mean", 1>,
    I32EnumAttrCase<"max", 2>,
    I32EnumAttrCase<"min", 3>,
    I32EnumAttrCase<"prod", 4>]> {
  let cppNamespace = "::mlir::attune";
  let genSpecializedAttr = 0;
}
def Attune_ReduceKindAttr : Attune_EnumAttr<Attune_ReduceKind, "reduce_kind">;

//===----------------------------------------------------------------------===//
// Code generation decisions
//===----------------------------------------------------------------------===//

def Attune_GemmTilingAttr : AttrDef<Attune_Dialect, "GemmTiling"> {
  let mnemonic = "gemm_tiling";
  let summary = "How the CPU code tiles one GEMM";
  let description = [{
    The tiling decision for one GEMM of the CPU code generation, written by
    `--attune-select-cpu-tiling` as the discardable attribute `attune.tiling`
    on a linear layer's contraction (`attune.gemm`), its epilogue and, later,
    its cache tiles, and on tiled attention's tile contractions
    (`attune.tile_gemm`); the GEMM passes (`--attune-pack-gemms`,
    `--attune-fuse-gemm-inits`, `--attune-tile-gemm`) read it. Choosing is
    separate from applying: a cost model of the target changes this
    attribute, not the passes.

    - `panel`: the columns of a weight panel and of a register tile (the
      weights are packed as `[N / panel, K, panel]`);
    - `rows`: the rows of a register tile (`rows x panel` accumulators);
    - `k_tile`: the depth of a cache tile (one panel's `k_tile x panel`
      slice stays in L1 while the register tiles stream past it);
    - `cache_rows`: the rows of a cache tile (and of a parallel tile);
    - `forall_panels`: the panels of a parallel (`scf.forall`) tile;
    - `bf16_dot` (default false): the bf16 compute mode (`--gemm-compute=bf16`):
      both operands rounded to bf16, the weights packed as k-pairs
      `[N / panel, K / 2, panel, 2]`, each k-pair step one `vdpbf16ps` per
      accumulator vector (accumulated in f32); `k_tile` counts k, not pairs;
    - `widen_pairs` (default false): bf16 weights (`--gemm-weights=bf16`) in
      `bf16_dot`'s k-pair panels, A in f32 (not rounded): each 32-bit word
      of a panel row holds a pair, widened in registers by a shift and a
      mask (no cross-lane widening), two FMAs per pair; the products are
      those of the bf16 weights and f32 activations, as without it;
    - `dot` (default false): for N narrower than half a vector (a score or
      classifier head of 1 to 8 columns), where a panel of whole vectors
      would be mostly padding: dot products along K instead. The weights
      are packed as `[N, K / panel, panel]` (`panel`: the lanes of a
      vector), each register tile `rows` rows x all N columns x `panel`
      partial sums, reduced across the lanes after the k loop; `k_tile`
      and `forall_panels` are 0, `cache_rows` the rows of a parallel tile.

    A tile contraction of tiled attention has register tiles only:
    `k_tile`, `cache_rows` and `forall_panels` are 0.

    ```mlir
    %c = linalg.generic {...} ins(%a, %b : ...) outs(%init : ...)
        attrs = {attune.gemm, attune.tiling = #attune.gemm_tiling<panel = 64,
                 rows = 4, k_tile = 128, cache_rows = 128, forall_panels = 2>}
    ```
  }];
  let parameters = (ins "int64_t":$panel, "int64_t":$rows, "int64_t":$k_tile,
                        "int64_t":$cache_rows, "int64_t":$forall_panels,
                        DefaultValuedParameter<"bool", "false">:$bf16_dot,
                        DefaultValuedParameter<"bool", "false">:$dot,
                        DefaultValuedParameter<"bool", "false">:$widen_pairs);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

//===----------------------------------------------------------------------===//
// Sparse attention layouts
//===----------------------------------------------------------------------===//

def Attune_SparseLayoutAttr : AttrDef<Attune_Dialect, "SparseLayout"> {
  let mnemonic = "sparse";
  let summary = "A block-sparse attention layout given by a rule";
  let description = [{
    Which blocks of keys a block of queries may see, as a rule over block
    indices that extends to any sequence length (the layout is never a
    table sized for one length). With `block = b`, query position `p` lies
    in query block `I = floor(p / b)` and key `j` in key block
    `J = floor(j / b)`; with `d = |I - J|` the pair is visible iff any of
    the given components holds:

    - `local = w`: `d < w` (the `2w - 1` blocks around the diagonal; with
      `causal`, the `w` most recent);
    - `stride = s`: `d mod s == 0` (every `s`-th block back);
    - `fixed = s`: `floor(I / s) == floor(J / s)` (the query's own segment
      of `s` blocks), and with `summary = c` (`1 <= c <= s`) also
      `J mod s >= s - c` (the last `c` blocks of every segment);
    - `global = g`: `I < g` or `J < g` (the first `g` blocks attend to all
      and are attended by all, as BigBird's and ETC's global blocks).

    The sparse factorizations of Child et al. 2019 are, with the paper's
    `l` and `c` counted in blocks: **strided** `local = l, stride = l` and
    **fixed** `fixed = l, summary = c`, both with `causal` for the paper's
    autoregressive form (with `block = 1` they are the paper's formulas over
    single positions). By default each head attends to the union of the two
    factors (the paper's "merged head"); with `split = true` the paper's
    multi-head form splits them across heads: even query heads use the
    first factor (`local`, `fixed`'s own segment), odd heads the second
    (`stride`, `summary`); `global` blocks hold in both.

    The tiled kernels visit only the visible (query tile, key tile) pairs:
    with a block that is a multiple of the tiles (for example 64) the work
    is proportional to the visible pairs.

    ```mlir
    #attune.sparse<block = 64, local = 4, stride = 4>          // strided
    #attune.sparse<block = 64, fixed = 8, summary = 1>         // fixed
    #attune.sparse<block = 64, local = 2, global = 1>          // BigBird-like
    ```
  }];
  let parameters = (ins "int64_t":$block,
                        DefaultValuedParameter<"int64_t", "0">:$local,
                        DefaultValuedParameter<"int64_t", "0">:$stride,
                        DefaultValuedParameter<"int64_t", "0">:$fixed,
                        DefaultValuedParameter<"int64_t", "0">:$summary,
                        DefaultValuedParameter<"int64_t", "0">:$global,
                        DefaultValuedParameter<"bool", "false">:$split);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

#endif // ATTUNE_ATTRS_TD
