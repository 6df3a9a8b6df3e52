// torch.module: nn.GRU(8, 12, bidirectional=True, batch_first=True)
// torch.inputs: x=f32[2,6,8]
// torch.inputs: x=f32[3,1,8]
// torch.call: (lambda o: (o[0], o[1]))(module(x))
//
// Bidirectional GRU without initial state: the reverse direction fills the
// upper half of the features; final states indexed layer * 2 + direction.
// RUN: %check-golden %s --work %t --atol 1e-5

func.func @forward(%x: tensor<?x?x8xf32> {attune.name = "x"}) -> (tensor<?x?x24xf32>, tensor<2x?x12xf32>) {
  %ih = attune.weight "weight_ih_l0" : tensor<36x8xf32>
  %hh = attune.weight "weight_hh_l0" : tensor<36x12xf32>
  %bi = attune.weight "bias_ih_l0" : tensor<36xf32>
  %bh = attune.weight "bias_hh_l0" : tensor<36xf32>
  %ihr = attune.weight "weight_ih_l0_reverse" : tensor<36x8xf32>
  %hhr = attune.weight "weight_hh_l0_reverse" : tensor<36x12xf32>
  %bir = attune.weight "bias_ih_l0_reverse" : tensor<36xf32>
  %bhr = attune.weight "bias_hh_l0_reverse" : tensor<36xf32>
  %out, %hn = attune.gru %x weights(%ih, %hh, %bi, %bh, %ihr, %hhr, %bir, %bhr) {hidden_size = 12 : i64, bidirectional}
      : (tensor<?x?x8xf32>, tensor<36x8xf32>, tensor<36x12xf32>, tensor<36xf32>, tensor<36xf32>,
         tensor<36x8xf32>, tensor<36x12xf32>, tensor<36xf32>, tensor<36xf32>) -> (tensor<?x?x24xf32>, tensor<2x?x12xf32>)
  return %out, %hn : tensor<?x?x24xf32>, tensor<2x?x12xf32>
}
