//===- Passes.td - attune -> attune passes -----------------*- tablegen -*-===//

#ifndef ATTUNE_PASSES_TD
#define ATTUNE_PASSES_TD

include "mlir/Pass/PassBase.td"

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

#endif // ATTUNE_PASSES_TD
