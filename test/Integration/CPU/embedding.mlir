// torch.module: nn.Embedding(50, 16)
// torch.inputs: ids=i64[2,7]{0,50}, ids32=i32[3]{0,50}
// torch.inputs: ids=i64[1,30]{0,50}, ids32=i32[3]{0,50}
// torch.call: (module(ids), module(ids32.long()), module(ids) + sinusoidal_positions(ids.shape[1], 16), module(ids) + module.weight[3:3 + ids.shape[1]])
//
// Embedding lookup (i64 and i32 ids), sinusoidal positions, learned
// positions with an offset.
// RUN: %check-golden %s --work %t --atol 1e-5
// An id outside [0, 50) fails the run with the op's location (the message
// names the table's range), as does a sequence that runs past the learned
// position table (offset 3 + length 48 > 50 rows); the model stays usable.
// RUN: %python -c "import numpy; numpy.save('%t/bad-ids.npy', numpy.array([[1, 50, 2]], 'int64')); numpy.save('%t/neg-ids.npy', numpy.array([[-1]], 'int64')); numpy.save('%t/long-ids.npy', numpy.zeros((1, 48), 'int64'))"
// RUN: not attune-run %t/embedding.so --input ids=%t/bad-ids.npy --input ids32=%golden/embedding/case0/ids32.npy 2>&1 | FileCheck %s --check-prefix=RANGE
// RANGE: attune-run: error: forward: {{.*}}embedding.mlir:[[@LINE+8]]:8: token id out of range: every id of attune.embedding must be in [0, 50)
// RUN: not attune-run %t/embedding.so --input ids=%t/neg-ids.npy --input ids32=%golden/embedding/case0/ids32.npy 2>&1 | FileCheck %s --check-prefix=RANGE
// RUN: not attune-run %t/embedding.so --input ids=%t/long-ids.npy --input ids32=%golden/embedding/case0/ids32.npy 2>&1 | FileCheck %s --check-prefix=LONG
// LONG: attune-run: error: forward: {{.*}}embedding.mlir:[[@LINE+8]]:8: sequence too long for the learned position table: offset 3 + length must be at most its 50 rows

func.func @forward(%ids: tensor<?x?xi64> {attune.name = "ids"}, %ids32: tensor<3xi32> {attune.name = "ids32"})
    -> (tensor<?x?x16xf32>, tensor<3x16xf32>, tensor<?x?x16xf32>, tensor<?x?x16xf32>) {
  %t = attune.weight "weight" : tensor<50x16xf32>
  %0 = attune.embedding %ids, %t : (tensor<?x?xi64>, tensor<50x16xf32>) -> tensor<?x?x16xf32>
  %1 = attune.embedding %ids32, %t : (tensor<3xi32>, tensor<50x16xf32>) -> tensor<3x16xf32>
  %2 = attune.positional_encoding <sinusoidal> %0 : (tensor<?x?x16xf32>) -> tensor<?x?x16xf32>
  %3 = attune.positional_encoding <learned> %0, %t {offset = 3 : i64} : (tensor<?x?x16xf32>, tensor<50x16xf32>) -> tensor<?x?x16xf32>
  return %0, %1, %2, %3 : tensor<?x?x16xf32>, tensor<3x16xf32>, tensor<?x?x16xf32>, tensor<?x?x16xf32>
}
