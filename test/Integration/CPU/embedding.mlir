// torch.module: nn.Embedding(50, 16)
// torch.inputs: ids=i64[2,7]{0,50}, ids32=i32[3]{0,50}
// torch.inputs: ids=i64[1,30]{0,50}, ids32=i32[3]{0,50}
// torch.call: (module(ids), module(ids32.long()), module(ids) + sinusoidal_positions(ids.shape[1], 16), module(ids) + module.weight[3:3 + ids.shape[1]])
//
// Embedding lookup (i64 and i32 ids), sinusoidal positions, learned
// positions with an offset.
// RUN: %check-golden %s --work %t --atol 1e-5

func.func @forward(%ids: tensor<?x?xi64> {attune.name = "ids"}, %ids32: tensor<3xi32> {attune.name = "ids32"})
    -> (tensor<?x?x16xf32>, tensor<3x16xf32>, tensor<?x?x16xf32>, tensor<?x?x16xf32>) {
  %t = attune.weight "weight" : tensor<50x16xf32>
  %0 = attune.embedding %ids, %t : (tensor<?x?xi64>, tensor<50x16xf32>) -> tensor<?x?x16xf32>
  %1 = attune.embedding %ids32, %t : (tensor<3xi32>, tensor<50x16xf32>) -> tensor<3x16xf32>
  %2 = attune.positional_encoding <sinusoidal> %0 : (tensor<?x?x16xf32>) -> tensor<?x?x16xf32>
  %3 = attune.positional_encoding <learned> %0, %t {offset = 3 : i64} : (tensor<?x?x16xf32>, tensor<50x16xf32>) -> tensor<?x?x16xf32>
  return %0, %1, %2, %3 : tensor<?x?x16xf32>, tensor<3x16xf32>, tensor<?x?x16xf32>, tensor<?x?x16xf32>
}
