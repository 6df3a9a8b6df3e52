// An [N, 1] x [1, M] product: an N x M result from two small inputs
// (test/Runtime/out-of-memory.test).
func.func @forward(%a: tensor<?x1xf32> {attune.name = "a"}, %b: tensor<1x?xf32> {attune.name = "b"}) -> tensor<?x?xf32> {
  %y = attune.matmul %a, %b : (tensor<?x1xf32>, tensor<1x?xf32>) -> tensor<?x?xf32>
  return %y : tensor<?x?xf32>
}
