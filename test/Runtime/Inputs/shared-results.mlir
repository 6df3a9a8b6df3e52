// Two results that are one buffer, and an input returned as a result
// (test/Runtime/shared-results.test).
func.func @forward(%x: tensor<4x32xf32> {attune.name = "x"}) -> (tensor<4x32xf32>, tensor<4x32xf32>, tensor<4x32xf32>) {
  %y = attune.add %x, %x : (tensor<4x32xf32>, tensor<4x32xf32>) -> tensor<4x32xf32>
  return %y, %y, %x : tensor<4x32xf32>, tensor<4x32xf32>, tensor<4x32xf32>
}
