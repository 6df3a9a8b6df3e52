// torch.module: nn.Identity()
// torch.inputs: x=f32[2,5,12]
// torch.inputs: x=f32[1,3,12]
// torch.call: (x.permute(2, 0, 1), x.view(x.shape[0], x.shape[1], 3, 4).transpose(1, 2), x * 1.5, x[:, :, 4:9], x.unsqueeze(1), x.unsqueeze(-1).squeeze(-1) * 2.0)
//
// Shape ops: transpose, split_heads, merge_heads (of scaled heads: a merge of
// a split alone folds away), slice, expand_dims and squeeze.
// RUN: %check-golden %s --work %t --atol 0

func.func @forward(%x: tensor<?x?x12xf32> {attune.name = "x"})
    -> (tensor<12x?x?xf32>, tensor<?x3x?x4xf32>, tensor<?x?x12xf32>, tensor<?x?x5xf32>, tensor<?x1x?x12xf32>,
        tensor<?x?x12xf32>) {
  %0 = attune.transpose %x {permutation = array<i64: 2, 0, 1>} : (tensor<?x?x12xf32>) -> tensor<12x?x?xf32>
  %1 = attune.split_heads %x {num_heads = 3 : i64} : (tensor<?x?x12xf32>) -> tensor<?x3x?x4xf32>
  %s = attune.scale %1 {factor = 1.5 : f64} : tensor<?x3x?x4xf32>
  %2 = attune.merge_heads %s : (tensor<?x3x?x4xf32>) -> tensor<?x?x12xf32>
  %3 = attune.slice %x {axis = -1 : i64, offset = 4 : i64, size = 5 : i64} : (tensor<?x?x12xf32>) -> tensor<?x?x5xf32>
  %4 = attune.expand_dims %x {axis = 1 : i64} : (tensor<?x?x12xf32>) -> tensor<?x1x?x12xf32>
  %e = attune.expand_dims %x {axis = -1 : i64} : (tensor<?x?x12xf32>) -> tensor<?x?x12x1xf32>
  %sc = attune.scale %e {factor = 2.0 : f64} : tensor<?x?x12x1xf32>
  %5 = attune.squeeze %sc {axis = -1 : i64} : (tensor<?x?x12x1xf32>) -> tensor<?x?x12xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<12x?x?xf32>, tensor<?x3x?x4xf32>, tensor<?x?x12xf32>, tensor<?x?x5xf32>,
                                   tensor<?x1x?x12xf32>, tensor<?x?x12xf32>
}
