// torch.module: nn.Identity()
// torch.inputs: x=f32[2,3,8], y=f32[8], z=f32[3,1]
// torch.inputs: x=f32[1,3,8], y=f32[8], z=f32[3,1]
// torch.call: (F.relu(x), F.gelu(x), F.gelu(x, approximate="tanh"), torch.tanh(x), torch.sigmoid(x), F.silu(x), x + y, x * z, x * 0.5, torch.softmax(x, 1), torch.softmax(x, -1))
//
// Activations, broadcasting add/mul, scale and softmax along two axes.
// RUN: %check-golden %s --work %t --atol 1e-6

func.func @forward(%x: tensor<?x3x8xf32> {attune.name = "x"}, %y: tensor<8xf32> {attune.name = "y"},
                   %z: tensor<3x1xf32> {attune.name = "z"})
    -> (tensor<?x3x8xf32>, tensor<?x3x8xf32>, tensor<?x3x8xf32>, tensor<?x3x8xf32>, tensor<?x3x8xf32>,
        tensor<?x3x8xf32>, tensor<?x3x8xf32>, tensor<?x3x8xf32>, tensor<?x3x8xf32>, tensor<?x3x8xf32>,
        tensor<?x3x8xf32>) {
  %0 = attune.activation <relu> %x : tensor<?x3x8xf32>
  %1 = attune.activation <gelu> %x : tensor<?x3x8xf32>
  %2 = attune.activation <gelu_tanh> %x : tensor<?x3x8xf32>
  %3 = attune.activation <tanh> %x : tensor<?x3x8xf32>
  %4 = attune.activation <sigmoid> %x : tensor<?x3x8xf32>
  %5 = attune.activation <silu> %x : tensor<?x3x8xf32>
  %6 = attune.add %x, %y : (tensor<?x3x8xf32>, tensor<8xf32>) -> tensor<?x3x8xf32>
  %7 = attune.mul %x, %z : (tensor<?x3x8xf32>, tensor<3x1xf32>) -> tensor<?x3x8xf32>
  %8 = attune.scale %x {factor = 0.5 : f64} : tensor<?x3x8xf32>
  %9 = attune.softmax %x {axis = 1 : i64} : tensor<?x3x8xf32>
  %10 = attune.softmax %x : tensor<?x3x8xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10
      : tensor<?x3x8xf32>, tensor<?x3x8xf32>, tensor<?x3x8xf32>, tensor<?x3x8xf32>, tensor<?x3x8xf32>,
        tensor<?x3x8xf32>, tensor<?x3x8xf32>, tensor<?x3x8xf32>, tensor<?x3x8xf32>, tensor<?x3x8xf32>,
        tensor<?x3x8xf32>
}
