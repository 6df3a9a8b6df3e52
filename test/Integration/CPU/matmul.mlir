// torch.module: nn.Identity()
// torch.inputs: a=f32[2,3,5,7], b=f32[3,7,4], c=f32[2,1,6,7]
// torch.inputs: a=f32[2,3,1,7], b=f32[3,7,4], c=f32[2,1,6,7]
// torch.call: (torch.matmul(a, b), torch.matmul(a, c.transpose(-1, -2)), torch.matmul(a.transpose(-1, -2), a))
//
// Batched matmul: broadcast batch dims (different ranks, static 1 against
// dynamic), transposed operands, dynamic M.
// RUN: %check-golden %s --work %t --atol 1e-5

func.func @forward(%a: tensor<?x3x?x7xf32> {attune.name = "a"}, %b: tensor<3x7x4xf32> {attune.name = "b"},
                   %c: tensor<2x1x6x7xf32> {attune.name = "c"})
    -> (tensor<?x3x?x4xf32>, tensor<2x3x?x6xf32>, tensor<?x3x7x7xf32>) {
  %0 = attune.matmul %a, %b : (tensor<?x3x?x7xf32>, tensor<3x7x4xf32>) -> tensor<?x3x?x4xf32>
  %1 = attune.matmul %a, %c {transpose_rhs} : (tensor<?x3x?x7xf32>, tensor<2x1x6x7xf32>) -> tensor<2x3x?x6xf32>
  %2 = attune.matmul %a, %a {transpose_lhs} : (tensor<?x3x?x7xf32>, tensor<?x3x?x7xf32>) -> tensor<?x3x7x7xf32>
  return %0, %1, %2 : tensor<?x3x?x4xf32>, tensor<2x3x?x6xf32>, tensor<?x3x7x7xf32>
}
