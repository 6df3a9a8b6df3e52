// A reproducer of an MLIR 22.1.8 crash (Debian's mlir-22-tools):
//
//   /usr/lib/llvm-22/bin/mlir-opt docs/upstream/expand-strided-metadata.mlir \
//       --expand-strided-metadata
//
// segfaults in IntegerAttr::getValue(), called from
// dispatchIndexOpFoldResult() while the pattern for memref.expand_shape
// builds a memref.reinterpret_cast: with two dynamic dims in one
// reassociation group the new strides include a null OpFoldResult. Attune's
// lowerings never build this form; attune-guard-expand-shapes reports it
// as an error before the pass runs (test/Lowering/attune-guard-expand-shapes.mlir).
func.func @two_dynamic_dims_in_one_group(%m: memref<?xf32>, %a: index, %b: index) -> memref<?x?xf32> {
  %e = memref.expand_shape %m [[0, 1]] output_shape [%a, %b] : memref<?xf32> into memref<?x?xf32>
  return %e : memref<?x?xf32>
}
