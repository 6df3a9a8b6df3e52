// torch.module: nn.LSTM(8, 16, num_layers=2, batch_first=True)
// torch.inputs: x=f32[3,5,8], h0=f32[2,3,16], c0=f32[2,3,16]
// torch.inputs: x=f32[1,9,8], h0=f32[2,1,16], c0=f32[2,1,16]
// torch.call: (lambda o: (o[0], o[1][0], o[1][1]))(module(x, (h0, c0)))
//
// Two-layer LSTM with initial states; B and T dynamic.
// RUN: %check-golden %s --work %t --atol 1e-5

func.func @forward(%x: tensor<?x?x8xf32> {attune.name = "x"}, %h0: tensor<2x?x16xf32> {attune.name = "h0"},
                   %c0: tensor<2x?x16xf32> {attune.name = "c0"})
    -> (tensor<?x?x16xf32>, tensor<2x?x16xf32>, tensor<2x?x16xf32>) {
  %ih0 = attune.weight "weight_ih_l0" : tensor<64x8xf32>
  %hh0 = attune.weight "weight_hh_l0" : tensor<64x16xf32>
  %bi0 = attune.weight "bias_ih_l0" : tensor<64xf32>
  %bh0 = attune.weight "bias_hh_l0" : tensor<64xf32>
  %ih1 = attune.weight "weight_ih_l1" : tensor<64x16xf32>
  %hh1 = attune.weight "weight_hh_l1" : tensor<64x16xf32>
  %bi1 = attune.weight "bias_ih_l1" : tensor<64xf32>
  %bh1 = attune.weight "bias_hh_l1" : tensor<64xf32>
  %out, %hn, %cn = attune.lstm %x weights(%ih0, %hh0, %bi0, %bh0, %ih1, %hh1, %bi1, %bh1)
      initial_h(%h0) initial_c(%c0) {hidden_size = 16 : i64, num_layers = 2 : i64}
      : (tensor<?x?x8xf32>, tensor<64x8xf32>, tensor<64x16xf32>, tensor<64xf32>, tensor<64xf32>,
         tensor<64x16xf32>, tensor<64x16xf32>, tensor<64xf32>, tensor<64xf32>, tensor<2x?x16xf32>, tensor<2x?x16xf32>)
      -> (tensor<?x?x16xf32>, tensor<2x?x16xf32>, tensor<2x?x16xf32>)
  return %out, %hn, %cn : tensor<?x?x16xf32>, tensor<2x?x16xf32>, tensor<2x?x16xf32>
}
