// torch.module: nn.Linear(16, 8)
// torch.inputs: x=f32[2,5,16]
// torch.inputs: x=f32[3,1,16]
// torch.call: module(x)
//
// nn.Linear over a [B, L, 16] input with dynamic B and L: one binary serves
// both cases.
// RUN: %check-golden %s --work %t --atol 1e-5

func.func @forward(%x: tensor<?x?x16xf32> {attune.name = "x"}) -> tensor<?x?x8xf32> {
  %w = attune.weight "weight" : tensor<8x16xf32>
  %b = attune.weight "bias" : tensor<8xf32>
  %y = attune.linear %x, %w, %b : (tensor<?x?x16xf32>, tensor<8x16xf32>, tensor<8xf32>) -> tensor<?x?x8xf32>
  return %y : tensor<?x?x8xf32>
}
