// torch.module: nn.LayerNorm(32)
// torch.inputs: x=f32[2,5,32]
// torch.inputs: x=f32[3,5,32]
// torch.inputs: x=f32[130,5,32]
// torch.call: (module(x), F.layer_norm(x, (5, 32), eps=1e-6), F.layer_norm(x * 100.0 + 1000.0, (32,)))
//
// Affine layer norm over the last dim, plain layer norm over two dims, and a
// large-mean input (the two-pass variance keeps it accurate). With
// --parallel on 2 threads: 130 x 5 rows of 32 are two blocks of rows (103
// x 5 and 27 x 5: blocks of 512 rows of 32, the dim of 5 whole), the small
// cases one block on the calling thread.
// RUN: %check-golden %s --work %t --atol 2e-5
// RUN: %check-golden %s --work %t/parallel --atol 2e-5 --compile-arg=--parallel --run-arg=--threads --run-arg=2

func.func @forward(%x: tensor<?x5x32xf32> {attune.name = "x"})
    -> (tensor<?x5x32xf32>, tensor<?x5x32xf32>, tensor<?x5x32xf32>) {
  %g = attune.weight "weight" : tensor<32xf32>
  %b = attune.weight "bias" : tensor<32xf32>
  %0 = attune.layer_norm %x weight(%g) bias(%b) : (tensor<?x5x32xf32>, tensor<32xf32>, tensor<32xf32>) -> tensor<?x5x32xf32>
  %1 = attune.layer_norm %x {epsilon = 1.0e-6 : f64, normalized_rank = 2 : i64} : (tensor<?x5x32xf32>) -> tensor<?x5x32xf32>
  %s = attune.scale %x {factor = 100.0 : f64} : tensor<?x5x32xf32>
  %c = arith.constant dense<1000.0> : tensor<1xf32>
  %shifted = attune.add %s, %c : (tensor<?x5x32xf32>, tensor<1xf32>) -> tensor<?x5x32xf32>
  %2 = attune.layer_norm %shifted : (tensor<?x5x32xf32>) -> tensor<?x5x32xf32>
  return %0, %1, %2 : tensor<?x5x32xf32>, tensor<?x5x32xf32>, tensor<?x5x32xf32>
}
