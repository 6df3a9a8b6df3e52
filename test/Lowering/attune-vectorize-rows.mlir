// RUN: attune-opt %s --split-input-file --convert-attune-to-linalg --attune-select-cpu-tiling=cpu=icelake-server --attune-vectorize-rows | FileCheck %s
// RUN: attune-opt %s --split-input-file --convert-attune-to-linalg --attune-select-cpu-tiling=cpu=icelake-server "--attune-vectorize-rows=parallel=true" | FileCheck %s --check-prefix=PAR

// A layer norm's row kernels run one row at a time, each row one
// vector<1x64xf32>, its sums 1-D vector reductions; the module is marked
// for the kernel schedule, which lowers the rest. With parallel=true, the
// rows of a kernel outside any loop are an scf.forall.
// CHECK:       module attributes {attune.cpu_kernels}
// CHECK-LABEL: func.func @layer_norm_rows
// CHECK:       scf.for
// CHECK:         vector.transfer_read {{.*}} : tensor<1x64xf32>, vector<1x64xf32>
// CHECK:         vector.reduction <add>, {{.*}} : vector<64xf32> into f32
// CHECK-NOT:     vector.multi_reduction
// CHECK-NOT:   linalg.generic
// CHECK:       return
// PAR-LABEL:   func.func @layer_norm_rows
// PAR:         scf.forall
// PAR:           vector.transfer_read {{.*}} : tensor<1x64xf32>, vector<1x64xf32>
func.func @layer_norm_rows(%x: tensor<?x64xf32>, %r: tensor<?x64xf32>) -> tensor<?x64xf32> {
  %y = attune.layer_norm %x residual(%r) : (tensor<?x64xf32>, tensor<?x64xf32>) -> tensor<?x64xf32>
  return %y : tensor<?x64xf32>
}

// -----

// Rows shorter than 16 stay linalg (scalar loops later); nothing to mark.
// CHECK-NOT:   attune.cpu_kernels
// CHECK-LABEL: func.func @short_rows
// CHECK-NOT:   vector.
// CHECK:       linalg.generic
func.func @short_rows(%x: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %y = attune.layer_norm %x : (tensor<?x8xf32>) -> tensor<?x8xf32>
  return %y : tensor<?x8xf32>
}

// -----

// A row's dot product (q . k_j: the scores of a decoding step's attention):
// the products as one vector, summed by a 1-D vector reduction, not a
// multi-reduction that the kernel schedule's reduction_to_contract would
// make a contraction (lowered as one dependent scalar FMA per element).
// CHECK-LABEL: func.func @dot_rows
// CHECK:       scf.for
// CHECK:         scf.for
// CHECK:           %[[P:.*]] = arith.mulf {{.*}} : vector<1x1x64xf32>
// CHECK:           %[[V:.*]] = vector.extract %[[P]][0, 0] : vector<64xf32> from vector<1x1x64xf32>
// CHECK:           vector.reduction <add>, %[[V]], %{{.*}} : vector<64xf32> into f32
// CHECK-NOT:   vector.multi_reduction
// CHECK-NOT:   vector.contract
func.func @dot_rows(%q: tensor<?x64xf32>, %k: tensor<48x64xf32>) -> tensor<?x48xf32> {
  %s = attune.matmul %q, %k {transpose_rhs} : (tensor<?x64xf32>, tensor<48x64xf32>) -> tensor<?x48xf32>
  return %s : tensor<?x48xf32>
}

// -----

// A row update (leading parallel loops, a reduction, then the row: q_h Wk_h
// of the absorbed cross-attention, each output row a sum of scaled rows of
// Wk_h): with parallel=true an scf.forall over (b, h, i), each row's update
// left as plain loops that LLVM vectorizes along the row; serial, as it was.
// CHECK-LABEL: func.func @row_updates
// CHECK-NOT:   scf.forall
// CHECK:       linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "reduction", "parallel"]} ins(%{{.*}}, %{{.*}} : tensor<?x12x?x64xf32>, tensor<12x64x768xf32>)
// PAR-LABEL:   func.func @row_updates
// PAR:         scf.forall (%[[B:.*]], %[[H:.*]], %[[I:.*]]) in (%{{.*}}, 12, %{{.*}})
// PAR:           %[[W:.*]] = tensor.extract_slice %{{.*}}[%[[H]], 0, 0] [1, 64, 768]
// PAR:           linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "reduction", "parallel"]} ins(%{{.*}}, %[[W]] : tensor<1x1x1x64xf32>, tensor<1x64x768xf32>) outs(%{{.*}} : tensor<1x1x1x768xf32>)
// PAR-NOT:       vector.
// PAR:           scf.forall.in_parallel
func.func @row_updates(%q: tensor<?x12x?x64xf32>, %w: tensor<12x64x768xf32>) -> tensor<?x12x?x768xf32> {
  %0 = attune.matmul %q, %w : (tensor<?x12x?x64xf32>, tensor<12x64x768xf32>) -> tensor<?x12x?x768xf32>
  return %0 : tensor<?x12x?x768xf32>
}

// -----

// With parallel=true a thread takes blocks of rows of about 16384 elements
// (a power of two of rows: 16 of 768, 4 of 3072), so that a kernel of a few
// rows is one block and wakes no threads (a region cost more than 16 rows
// of a layer norm). A dim of fewer rows than a block ([B, 1, 768]: a
// decoding step's beams) is taken whole and the block continues outside it.
// PAR-LABEL:   func.func @row_blocks
// PAR:         scf.forall (%{{.*}}, %{{.*}}) = (0, 0) to (%{{.*}}, 1) step (16, 1)
// PAR:           scf.for
// PAR:             vector.reduction <add>
// PAR:         scf.forall (%{{.*}}, %{{.*}}) = (0, 0) to (%{{.*}}, %{{.*}}) step (1, 4)
// PAR:           scf.for
// PAR:             arith.addf {{.*}} : vector<1x1x64xf32>
// CHECK-LABEL: func.func @row_blocks
// CHECK-NOT:   scf.forall
// CHECK:       return
func.func @row_blocks(%x: tensor<?x1x768xf32>, %r: tensor<?x1x768xf32>, %a: tensor<?x?x3072xf32>, %b: tensor<?x?x3072xf32>) -> (tensor<?x1x768xf32>, tensor<?x?x3072xf32>) {
  %y = attune.layer_norm %x residual(%r) : (tensor<?x1x768xf32>, tensor<?x1x768xf32>) -> tensor<?x1x768xf32>
  %s = attune.add %a, %b : (tensor<?x?x3072xf32>, tensor<?x?x3072xf32>) -> tensor<?x?x3072xf32>
  return %y, %s : tensor<?x1x768xf32>, tensor<?x?x3072xf32>
}

// -----

// Kernels over i1 tensors stay scalar: a vector of i1 is bit-packed in
// memory, a tensor of i1 one byte per element (a static [2, 16] bool
// key_padding_mask's bias, vectorized, read 2 bytes a row and lost the
// mask). The f32 kernel beside it is vectorized.
// CHECK-LABEL: func.func @bool_rows
// CHECK:       linalg.generic {{.*}} ins(%{{.*}} : tensor<2x16xi1>) outs(%{{.*}} : tensor<2x16xf32>)
// CHECK-NOT:   vector<1x16xi1>
// CHECK:       vector.transfer_read {{.*}} vector<1x16xf32>
func.func @bool_rows(%m: tensor<2x16xi1>, %x: tensor<2x16xf32>) -> (tensor<2x16xf32>, tensor<2x16xf32>) {
  %b = attune.mask_bias %m : tensor<2x16xi1> to tensor<2x16xf32>
  %y = attune.activation <relu> %x : tensor<2x16xf32>
  return %b, %y : tensor<2x16xf32>, tensor<2x16xf32>
}
