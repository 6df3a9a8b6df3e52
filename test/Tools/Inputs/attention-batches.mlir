func.func @f(%q: tensor<?x2x?x8xf32> {attune.name = "q"}, %k: tensor<?x2x?x8xf32> {attune.name = "k"}) -> tensor<?x2x?x8xf32> {
  %0 = attune.attention %q, %k, %k : (tensor<?x2x?x8xf32>, tensor<?x2x?x8xf32>, tensor<?x2x?x8xf32>) -> tensor<?x2x?x8xf32>
  return %0 : tensor<?x2x?x8xf32>
}
