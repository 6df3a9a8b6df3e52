// torch.module: nn.LSTM(32, 48, num_layers=2, batch_first=True)
// torch.inputs: x=f32[2,20,32]
// torch.inputs: x=f32[1,3,32]
// torch.call: (lambda o: (o[0], o[1][0], o[1][1]))(module(x))
//
// torch.nn.LSTM, 2 layers, input 32, hidden 48, zero initial state.
// x [B, T, 32] -> output [B, T, 48], h_n [2, B, 48], c_n [2, B, 48].

module {
  func.func @forward(%x: tensor<?x?x32xf32> {attune.name = "x"})
      -> (tensor<?x?x48xf32>, tensor<2x?x48xf32>, tensor<2x?x48xf32>) {
    %ih0 = attune.weight "weight_ih_l0" : tensor<192x32xf32>
    %hh0 = attune.weight "weight_hh_l0" : tensor<192x48xf32>
    %bi0 = attune.weight "bias_ih_l0" : tensor<192xf32>
    %bh0 = attune.weight "bias_hh_l0" : tensor<192xf32>
    %ih1 = attune.weight "weight_ih_l1" : tensor<192x48xf32>
    %hh1 = attune.weight "weight_hh_l1" : tensor<192x48xf32>
    %bi1 = attune.weight "bias_ih_l1" : tensor<192xf32>
    %bh1 = attune.weight "bias_hh_l1" : tensor<192xf32>
    %out, %hn, %cn = attune.lstm %x weights(%ih0, %hh0, %bi0, %bh0, %ih1, %hh1, %bi1, %bh1)
        {hidden_size = 48 : i64, num_layers = 2 : i64}
        : (tensor<?x?x32xf32>, tensor<192x32xf32>, tensor<192x48xf32>, tensor<192xf32>, tensor<192xf32>,
           tensor<192x48xf32>, tensor<192x48xf32>, tensor<192xf32>, tensor<192xf32>)
        -> (tensor<?x?x48xf32>, tensor<2x?x48xf32>, tensor<2x?x48xf32>)
    return %out, %hn, %cn : tensor<?x?x48xf32>, tensor<2x?x48xf32>, tensor<2x?x48xf32>
  }
}
