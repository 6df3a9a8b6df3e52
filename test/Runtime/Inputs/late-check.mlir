// A shape check that fails after the model has allocated an intermediate
// (x xᵀ, N x N) and before it frees it (test/Runtime/leak-on-error.test).
func.func @forward(%x: tensor<?x64xf32> {attune.name = "x"}, %y: tensor<?x64xf32> {attune.name = "y"}) -> tensor<?x64xf32> {
  %a = attune.matmul %x, %x {transpose_rhs} : (tensor<?x64xf32>, tensor<?x64xf32>) -> tensor<?x?xf32>
  %b = attune.matmul %a, %y : (tensor<?x?xf32>, tensor<?x64xf32>) -> tensor<?x64xf32>
  return %b : tensor<?x64xf32>
}
