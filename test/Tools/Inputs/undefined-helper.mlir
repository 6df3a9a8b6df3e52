// A model whose compiled code calls a function nothing defines: the link
// must fail at compile time, not when a program loads the artifact.
func.func private @attune_no_such_helper(f32) -> f32
func.func @forward(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %e = tensor.extract %x[%c0] : tensor<4xf32>
  %r = func.call @attune_no_such_helper(%e) : (f32) -> f32
  %y = tensor.insert %r into %x[%c0] : tensor<4xf32>
  return %y : tensor<4xf32>
}
