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
