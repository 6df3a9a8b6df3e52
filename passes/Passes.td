//===- Passes.td - attune -> attune passes -----------------*- tablegen -*-===//
//
// Rewrites within the attune dialect: decomposition, fusions, weights.
// Alphabetical by flag.
//
//===----------------------------------------------------------------------===//

#ifndef ATTUNE_PASSES_TD
#define ATTUNE_PASSES_TD

include "mlir/Pass/PassBase.td"

def AttuneAbsorbKvProjections : Pass<"attune-absorb-kv-projections"> {
  let summary = "Few queries against a long memory: fold the K and V projections into the queries";
  let description = [{
    Cross-attention of `Lq` queries over a memory `X [B, Lk, Ek]` whose keys
    and values are projections of `X` (`K = X Wk^T + bk`, `V = X Wv^T + bv`,
    `H` heads of dim `D`) costs two GEMMs over the whole memory,
    `2 Lk Ek (H D)` multiply-adds, even for one decoding step (`Lq = 1`).
    By associativity the projections can move to the query side instead:

    ```
    s[h,i,j] = scale * (q_h[i] Wk_h) . X[j]   (+ scale * q_h[i] . bk_h, the same
                                                for every key: softmax drops it)
    o[h,i]   = (sum_j w[h,i,j] X[j]) Wv_h^T + bv_h   (the weights sum to 1)
    ```

    where `Wk_h = Wk[hD : hD+D, :]`. The rewrite computes `q_h Wk_h`
    (`[B, H, Lq, Ek]`), runs one single-head attention of the `H Lq` rows
    over the raw memory with head dim `Ek` and the original scale, and
    projects the result with `Wv_h`, adding `bv`. That attention carries
    `attune.tile_q_cap = 16`: its rows are few (a BERT-sized decoding
    step's 12), and 16-query tiles pad them less. It is exact in real
    arithmetic; in floating point only the order of the sums changes.

    Cost rule (multiply-adds per head, decided at run time with an `scf.if`
    that canonicalization folds when `Lq` and `Lk` are static): the absorbed
    form does `Lq Ek (D + Lk)`, the projected form `Lk D (Ek + Lq)`; the
    absorbed form is taken when it does at most a quarter of the work, since
    its products are matrix-vector shaped and run at a fraction of the GEMM's
    throughput. For a BERT-sized decoding step (`Ek = 768`, `H = 12`,
    `Lk = 512`, `Lq = 1`) that is 57x less work.

    Applies to soft `scaled_dot` or `dot` attention with `H == Hk` and no
    `bias`, `causal` or `window` (a mask that can hide every key of a row
    would break `sum_j w = 1`: such a row is zero in the projected form but
    `bv` here). With `key_lengths`, the run-time test also requires every
    length to be positive (a loop over the `B` lengths) and the absorbed
    attention keeps them. The projections must be `attune.linear` ops
    without an activation over the same memory (separate, or one packed GEMM
    sliced into K and V) in the attention's block whose results feed
    nothing else. Self-attention (the queries
    projected from the same input) is left alone. With `explain`, each rewrite
    and each rejected cross-attention is a remark.

    Before:
    ```mlir
    %kv = attune.linear %mem, %wkv, %bkv : (...) -> tensor<?x?x128xf32>
    %k = attune.slice %kv {axis = -1 : i64, offset = 0 : i64, size = 64 : i64} : ...
    %v = attune.slice %kv {axis = -1 : i64, offset = 64 : i64, size = 64 : i64} : ...
    %kh = attune.split_heads %k {num_heads = 4 : i64} : ...
    %vh = attune.split_heads %v {num_heads = 4 : i64} : ...
    %o = attune.attention %qh, %kh, %vh : (...) -> tensor<?x4x?x16xf32>
    ```
    After (the `else` branch holds the ops above, moved):
    ```mlir
    %o = scf.if %absorb -> (tensor<?x4x?x16xf32>) {
      %wk = tensor.expand_shape %wk2 [[0, 1], [2]] output_shape [4, 16, 64] : ...
      %qk = attune.matmul %qh, %wk : (...) -> tensor<?x4x?x64xf32>
      ...
      %a = attune.attention %q1, %m1, %m1 {attune.tile_q_cap = 16 : i64, scale = 2.500000e-01 : f64} : ...
      ...
      %p = attune.matmul %ah, %wv {transpose_rhs} : (...) -> tensor<?x4x?x16xf32>
      %r = attune.add %p, %bv : (...) -> tensor<?x4x?x16xf32>
      scf.yield %r : tensor<?x4x?x16xf32>
    } else { ... }
    ```
  }];
  let options = [
    Option<"explain", "explain", "bool", /*default=*/"false",
           "Report each rewrite and each rejected cross-attention as a remark">,
  ];
  let dependentDialects = ["::mlir::attune::AttuneDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect"];
}

def AttuneBindWeights : Pass<"attune-bind-weights", "::mlir::ModuleOp"> {
  let summary = "Bind attune.weight ops to constants from a safetensors file";
  let description = [{
    Replaces each `attune.weight "name" : tensor<...>` with an
    `arith.constant dense_resource<name>` holding the tensor stored under
    `name` in the safetensors `file` (a PyTorch `state_dict` saved with
    `safetensors.torch.save_file` or Attune's own writer). The stored dtype and
    shape must equal the declared type exactly; a missing name is an error
    that lists the closest names in the file. Tensors in the file that the
    model does not use are ignored.

    Before:
    ```mlir
    %w = attune.weight "linear1.weight" : tensor<128x64xf32>
    ```
    After:
    ```mlir
    %w = arith.constant dense_resource<linear1.weight> : tensor<128x64xf32>
    ```
  }];
  let options = [
    Option<"file", "file", "std::string", /*default=*/"\"\"",
           "Path of the safetensors file">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def AttuneDecompose : Pass<"attune-decompose"> {
  let summary = "Rewrite composite attune ops into primitive attune ops";
  let description = [{
    Rewrites `attune.encoder_layer`, `attune.decoder_layer`,
    `attune.multi_head_attention`, `attune.feed_forward` and
    `attune.seq2seq_attention` into the primitive ops the lowerings consume
    (`linear`, `slice`, `split_heads`, `attention`, `merge_heads`, `add`,
    `layer_norm`, `activation`, `matmul`, `mask`, `softmax`, ...), with exactly
    the semantics of the composite op. Primitive ops are left alone. In
    self-attention with a packed `in_proj_weight`, Q, K and V come from one
    GEMM; in cross-attention, K and V share one GEMM over the memory.

    Each rewrite is also available on its own through a
    `populateDecompose<Op>Patterns` function.

    Before:
    ```mlir
    %y = attune.feed_forward %x linear1(%w1, %b1) linear2(%w2, %b2)
        {activation = #attune.activation<gelu>}
        : (tensor<?x16x64xf32>, tensor<128x64xf32>, tensor<128xf32>,
           tensor<64x128xf32>, tensor<64xf32>) -> tensor<?x16x64xf32>
    ```
    After:
    ```mlir
    %0 = attune.linear %x, %w1, %b1
        : (tensor<?x16x64xf32>, tensor<128x64xf32>, tensor<128xf32>) -> tensor<?x16x128xf32>
    %1 = attune.activation <gelu> %0 : tensor<?x16x128xf32>
    %y = attune.linear %1, %w2, %b2
        : (tensor<?x16x128xf32>, tensor<64x128xf32>, tensor<64xf32>) -> tensor<?x16x64xf32>
    ```
  }];
  let dependentDialects = ["::mlir::attune::AttuneDialect"];
}

def AttuneExposeAttentionMaps
    : Pass<"attune-expose-attention-maps", "::mlir::ModuleOp"> {
  let summary = "Return the attention weights of the model as outputs";
  let description = [{
    What `attune-compile --attention-maps[=SELECTION]` runs before the
    outputs are read: the encoder and decoder layers and the multi-head
    attentions of each public function are decomposed, so that their
    attentions are ops of the function's body; then each such
    `attune.attention` and `attune.seq2seq_attention` (a *site*, numbered
    from 0 in order) that `select` names also returns its weights
    (`return_weights`, the materialized form: the other attentions keep
    their fused kernels), and the function returns them after its own
    results:

    - `attn.<site>`: the weights, `[B, H, Lq, Lk]` (`[B, Lq, Lk]` for a
      seq2seq attention), as PyTorch's `need_weights=True,
      average_attn_weights=False`;
    - `attn.<site>.mean`: their average over the heads, `[B, Lq, Lk]`
      (`average_attn_weights=True`), for multi-head weights.

    A site is named after the module path of the weight its queries are
    projected with (`decoder.layers.0.multihead_attn.in_proj_weight` names
    `decoder.layers.0.multihead_attn`), else `attention<N>`. `select` is a
    comma-separated list of site numbers, names or path prefixes
    (`decoder` selects every site under `decoder.`); empty selects all. A
    selection that matches no site is an error that lists the sites.
    Attentions inside loops (a generation's decoding loop) are not sites.

    Before:
    ```mlir
    %o = attune.attention %q, %k, %v : (...) -> tensor<2x4x8x16xf32>
    return %o : tensor<2x4x8x16xf32>
    ```
    After:
    ```mlir
    %o, %w = attune.attention %q, %k, %v {return_weights} : (...) -> (tensor<2x4x8x16xf32>, tensor<2x4x8x8xf32>)
    %m = attune.reduce <mean> %w {axes = array<i64: 1>} : (tensor<2x4x8x8xf32>) -> tensor<2x8x8xf32>
    return %o, %w, %m : ...   // results named "attn.attention0", "attn.attention0.mean"
    ```
  }];
  let options = [
    Option<"select", "select", "std::string", /*default=*/"\"\"",
           "Sites to expose: numbers, names or path prefixes, comma-separated "
           "(empty: all)">,
  ];
  let dependentDialects = ["::mlir::attune::AttuneDialect"];
}

def AttuneExternalizeWeights
    : Pass<"attune-externalize-weights", "::mlir::ModuleOp"> {
  let summary = "Turn attune.weight ops into globals filled when the model loads";
  let description = [{
    For large models (`attune-compile --weights-external`): each distinct
    weight name becomes one exported, uninitialized, 64-byte aligned
    `memref.global @attune_weight_<k>` carrying the `state_dict` key in
    `attune.weight_name`, and every use reads it through
    `memref.get_global` + `bufferization.to_tensor restrict`. The library
    then holds no weight data (the globals live in `.bss`); the runtime fills
    them from the safetensors file when it opens the model.

    Before:
    ```mlir
    %w = attune.weight "linear1.weight" : tensor<128x64xf32>
    ```
    After:
    ```mlir
    memref.global @attune_weight_0 : memref<128x64xf32> = uninitialized
        {alignment = 64 : i64, attune.weight_name = "linear1.weight"}
    ...
    %0 = memref.get_global @attune_weight_0 : memref<128x64xf32>
    %w = bufferization.to_tensor %0 restrict : memref<128x64xf32> to tensor<128x64xf32>
    ```
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect",
                           "::mlir::bufferization::BufferizationDialect"];
}

def AttuneFuseAttention : Pass<"attune-fuse-attention"> {
  let summary = "Raise matmul-softmax-matmul chains into attune.attention";
  let description = [{
    Finds attention written out op by op, however it was written or imported,
    and replaces it with one `attune.attention`, which the lowerings turn
    into a fused kernel:

    ```
    s = matmul(q, k^T)                 k^T: {transpose_rhs}, or a transpose
                                       swapping the last two dims
    s = s * c | s / c                  attune.scale, attune.mul or arith.mulf /
                                       arith.divf by a splat constant (optional)
    s = s + bias                       attune.add (optional; after the scale)
    s = mask(s)                        attune.mask (optional)
    p = softmax(s, axis = -1)
    o = matmul(p, v)
    ```

    Scores of rank 3 (`[B*H, L, D]`) are fused with one head (expand_dims /
    squeeze around the attention). Nothing is fused where an intermediate has
    another use (the probabilities may be returned; the scores may feed
    something else), where the softmax is not over the keys, or where a bias
    comes before the scale. With `explain`, each fusion and each rejected
    candidate (a softmax fed by a score matmul) is reported as a remark saying
    why.

    Before:
    ```mlir
    %s = attune.matmul %q, %k {transpose_rhs} : (...) -> tensor<2x4x16x16xf32>
    %t = attune.scale %s {factor = 0.125 : f64} : tensor<2x4x16x16xf32>
    %p = attune.softmax %t : tensor<2x4x16x16xf32>
    %o = attune.matmul %p, %v : (...) -> tensor<2x4x16x64xf32>
    ```
    After:
    ```mlir
    %o = attune.attention %q, %k, %v {scale = 0.125 : f64} : (...) -> tensor<2x4x16x64xf32>
    ```
  }];
  let options = [
    Option<"explain", "explain", "bool", /*default=*/"false",
           "Report each fusion and each rejected candidate as a remark">,
  ];
  let dependentDialects = ["::mlir::attune::AttuneDialect"];
}

def AttuneFuseEpilogues : Pass<"attune-fuse-epilogues"> {
  let summary = "Fold bias adds, activations and residual adds into the ops "
                "around them";
  let description = [{
    Folds element-wise work into the op that produces or consumes it, so the
    intermediate tensor is never stored:

    - `attune.add(attune.linear(x, W), b)` with `b` of shape `[Out]`, on a
      linear without a bias: `b` becomes the linear's bias;
    - `attune.activation(attune.linear(...))`: the activation becomes the
      linear's `activation` epilogue, which `--attune-tile-gemm` computes on
      each output tile of the GEMM while it is in cache;
    - `attune.layer_norm(attune.add(x, r))` with `x`, `r` and the sum of one
      type: the norm's `residual` (post-norm transformers'
      `norm(x + sublayer(x))`).

    Each fusion requires that the intermediate has no other use: in a
    pre-norm transformer the residual sum feeds both the next norm and the
    next residual, and stays. With `explain`, each fusion and each rejected
    candidate is reported as a remark saying why.

    Before:
    ```mlir
    %h = attune.linear %x, %w1, %b1 : (tensor<?x16x64xf32>, tensor<128x64xf32>, tensor<128xf32>) -> tensor<?x16x128xf32>
    %a = attune.activation <gelu> %h : tensor<?x16x128xf32>
    %y = attune.linear %a, %w2, %b2 : (tensor<?x16x128xf32>, tensor<64x128xf32>, tensor<64xf32>) -> tensor<?x16x64xf32>
    %s = attune.add %x, %y : (tensor<?x16x64xf32>, tensor<?x16x64xf32>) -> tensor<?x16x64xf32>
    %n = attune.layer_norm %s weight(%g) bias(%beta) : (tensor<?x16x64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<?x16x64xf32>
    ```
    After:
    ```mlir
    %h = attune.linear %x, %w1, %b1 {activation = #attune.activation<gelu>} : (...) -> tensor<?x16x128xf32>
    %y = attune.linear %h, %w2, %b2 : (...) -> tensor<?x16x64xf32>
    %n = attune.layer_norm %x residual(%y) weight(%g) bias(%beta) : (...) -> tensor<?x16x64xf32>
    ```
  }];
  let options = [
    Option<"explain", "explain", "bool", /*default=*/"false",
           "Report each fusion and each rejected candidate as a remark">,
  ];
  let dependentDialects = ["::mlir::attune::AttuneDialect"];
}

def AttuneOutlineLayers : Pass<"attune-outline-layers", "::mlir::ModuleOp"> {
  let summary = "Compile identical layers once: one function called per layer";
  let description = [{
    Layer ops (`attune.encoder_layer`, `attune.decoder_layer`) of a function
    that are the same computation with different weights (the same
    attributes, operand and result types, and the same operands weights)
    become one private function taking every operand as an argument (the
    weights marked `attune.weight`), called once per layer. The pipeline then
    decomposes, fuses, lowers and generates code for the layer once: a
    12-layer encoder compiles about as fast as one layer.
    `attune-hoist-weight-preparation` later moves the function's work on
    its weights alone (transposes, packing) into the callers, where it folds
    into each layer's constants, so that the layer still reads weights
    prepared at compile time.

    Before:
    ```mlir
    %h0 = attune.encoder_layer %src self_attn(%w0, ...) ... : (...) -> tensor<?x?x768xf32>
    %h1 = attune.encoder_layer %h0 self_attn(%v0, ...) ... : (...) -> tensor<?x?x768xf32>
    ```
    After:
    ```mlir
    %h0 = call @forward_encoder_layer(%src, %w0, ...) : (...) -> tensor<?x?x768xf32>
    %h1 = call @forward_encoder_layer(%h0, %v0, ...) : (...) -> tensor<?x?x768xf32>
    func.func private @forward_encoder_layer(%x: tensor<?x?x768xf32>,
        %in_proj: tensor<2304x768xf32> {attune.weight}, ...) -> tensor<?x?x768xf32> {
      %h = attune.encoder_layer %x self_attn(%in_proj, ...) ...
      return %h : tensor<?x?x768xf32>
    }
    ```
  }];
}

def AttunePackProjections : Pass<"attune-pack-projections"> {
  let summary = "One GEMM for the linear layers that read the same input";
  let description = [{
    Linear layers in one block that read the same input (the query, key and
    value projections of a model that writes them separately, such as
    Hugging Face's `q_proj` / `k_proj` / `v_proj`) become one `attune.linear`
    whose weight is the concatenation of theirs along the output dim
    (`[sum Out_i, In]`, a new compile-time constant), followed by one
    `attune.slice` per original layer. A missing bias is packed as zeros
    when another layer has one. The input is read once and one larger GEMM
    runs instead of several small ones.

    The weights must be compile-time constants (run it after
    `attune-bind-weights`; `attune-compile` does): weights loaded at run time
    (`--weights-external`) or not yet bound stay separate, as does a layer
    with an activation epilogue. With `explain`, each packing and each
    rejected group is reported as a remark.

    Before:
    ```mlir
    %q = attune.linear %x, %wq, %bq : (tensor<?x16x64xf32>, tensor<64x64xf32>, tensor<64xf32>) -> tensor<?x16x64xf32>
    %k = attune.linear %x, %wk : (tensor<?x16x64xf32>, tensor<64x64xf32>) -> tensor<?x16x64xf32>
    ```
    After:
    ```mlir
    %qk = attune.linear %x, %wqk, %bqk : (tensor<?x16x64xf32>, tensor<128x64xf32>, tensor<128xf32>) -> tensor<?x16x128xf32>
    %q = attune.slice %qk {axis = 2 : i64, offset = 0 : i64, size = 64 : i64} : (tensor<?x16x128xf32>) -> tensor<?x16x64xf32>
    %k = attune.slice %qk {axis = 2 : i64, offset = 64 : i64, size = 64 : i64} : (tensor<?x16x128xf32>) -> tensor<?x16x64xf32>
    ```
  }];
  let options = [
    Option<"explain", "explain", "bool", /*default=*/"false",
           "Report each packing and each rejected group as a remark">,
  ];
  let dependentDialects = ["::mlir::attune::AttuneDialect",
                           "::mlir::arith::ArithDialect"];
}

def AttuneUnrollRepeat : Pass<"attune-unroll-repeat"> {
  let summary = "Expand attune.repeat into its iterations, weights named per iteration";
  let description = [{
    Each `attune.repeat` becomes `count` copies of its body in a row, the
    values each yields feeding the next, and every `attune.weight` in copy
    `i` renamed to the repeat's `prefix` (with `{i}` replaced by `i`)
    followed by its own name. Nested repeats compose their prefixes, the
    outer one first. The driver runs it before binding the weights;
    `attune-outline-layers` later compiles the copies once.

    Before:
    ```mlir
    %y = attune.repeat %x {count = 2 : i64, prefix = "layers.{i}."}
        : (tensor<?x8xf32>) -> tensor<?x8xf32> {
    ^bb0(%h: tensor<?x8xf32>):
      %w = attune.weight "weight" : tensor<8x8xf32>
      %o = attune.linear %h, %w : (tensor<?x8xf32>, tensor<8x8xf32>) -> tensor<?x8xf32>
      attune.yield %o : tensor<?x8xf32>
    }
    ```
    After:
    ```mlir
    %w0 = attune.weight "layers.0.weight" : tensor<8x8xf32>
    %h1 = attune.linear %x, %w0 : (tensor<?x8xf32>, tensor<8x8xf32>) -> tensor<?x8xf32>
    %w1 = attune.weight "layers.1.weight" : tensor<8x8xf32>
    %y = attune.linear %h1, %w1 : (tensor<?x8xf32>, tensor<8x8xf32>) -> tensor<?x8xf32>
    ```
  }];
  let dependentDialects = ["::mlir::attune::AttuneDialect"];
}

def AttuneWidenHalf : Pass<"attune-widen-half"> {
  let summary = "Half-precision ops compute in f32: f16/bf16 are storage formats";
  let description = [{
    Every `attune` op that computes (all but data movement: `transpose`,
    `split_heads`, `merge_heads`, `slice`, `concat`, `expand_dims`,
    `squeeze`, `embedding`, `cast`, `weight`) and has an `f16` or `bf16`
    operand or result is rewritten to take `f32` operands (an `attune.cast`
    of each half-precision one) and produce `f32` results, cast back to the
    original types. So every reduction (softmax, norms, attention, GEMM, the
    recurrent cells) accumulates in `f32`, transcendental functions are
    evaluated in `f32`, and each op's result is rounded once to its storage
    type, as PyTorch does for half tensors. Data movement stays in half
    precision, exactly.

    ```mlir
    %y = attune.softmax %x : tensor<4x30011xf16>
    // becomes
    %0 = attune.cast %x : tensor<4x30011xf16> to tensor<4x30011xf32>
    %1 = attune.softmax %0 : tensor<4x30011xf32>
    %y = attune.cast %1 : tensor<4x30011xf32> to tensor<4x30011xf16>
    ```

    The pipelines run it after the fusions (which then see the ops the
    model wrote) and before the lowering, on both targets. Casts of
    constants fold, so half-precision weights become `f32` constants in the
    artifact.
  }];
}

#endif // ATTUNE_PASSES_TD
