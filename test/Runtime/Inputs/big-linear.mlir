// One linear layer whose weight (16 MiB) dwarfs everything else the runtime
// allocates: prepared-weights.test compiles it with --weights-external.
func.func @forward(%x: tensor<?x2048xf32> {attune.name = "x"}) -> tensor<?x2048xf32> {
  %w = attune.weight "w" : tensor<2048x2048xf32>
  %b = attune.weight "b" : tensor<2048xf32>
  %y = attune.linear %x, %w, %b : (tensor<?x2048xf32>, tensor<2048x2048xf32>, tensor<2048xf32>) -> tensor<?x2048xf32>
  return %y : tensor<?x2048xf32>
}
