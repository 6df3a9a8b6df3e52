// torch.module: nn.GRU(32, 48, batch_first=True)
// torch.inputs: x=f32[2,20,32]
// torch.inputs: x=f32[1,3,32]
// torch.call: (lambda o: (o[0], o[1]))(module(x))
//
// torch.nn.GRU, one layer, input 32, hidden 48, zero initial state.
// x [B, T, 32] -> output [B, T, 48], h_n [1, B, 48].

module {
  func.func @forward(%x: tensor<?x?x32xf32> {attune.name = "x"}) -> (tensor<?x?x48xf32>, tensor<1x?x48xf32>) {
    %ih = attune.weight "weight_ih_l0" : tensor<144x32xf32>
    %hh = attune.weight "weight_hh_l0" : tensor<144x48xf32>
    %bi = attune.weight "bias_ih_l0" : tensor<144xf32>
    %bh = attune.weight "bias_hh_l0" : tensor<144xf32>
    %out, %hn = attune.gru %x weights(%ih, %hh, %bi, %bh) {hidden_size = 48 : i64}
        : (tensor<?x?x32xf32>, tensor<144x32xf32>, tensor<144x48xf32>, tensor<144xf32>, tensor<144xf32>)
        -> (tensor<?x?x48xf32>, tensor<1x?x48xf32>)
    return %out, %hn : tensor<?x?x48xf32>, tensor<1x?x48xf32>
  }
}
