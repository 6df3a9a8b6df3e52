func.func @forward(%q: tensor<1x12x16384x64xf32> {attune.name = "q"}, %k: tensor<1x12x16384x64xf32> {attune.name = "k"}, %v: tensor<1x12x16384x64xf32> {attune.name = "v"}) -> tensor<1x12x16384x64xf32> {
  %o = attune.attention %q, %k, %v {causal} : (tensor<1x12x16384x64xf32>, tensor<1x12x16384x64xf32>, tensor<1x12x16384x64xf32>) -> tensor<1x12x16384x64xf32>
  return %o : tensor<1x12x16384x64xf32>
}
