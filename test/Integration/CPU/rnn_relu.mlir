// torch.module: nn.RNN(6, 10, num_layers=2, nonlinearity="relu", bias=False, batch_first=True, bidirectional=True)
// torch.inputs: x=f32[2,5,6], h0=f32[4,2,10]
// torch.call: (lambda o: (o[0], o[1]))(module(x, h0))
//
// Two-layer bidirectional ReLU RNN without biases, with an initial state:
// layer 1 reads both directions of layer 0.
// RUN: %check-golden %s --work %t --atol 1e-5

func.func @forward(%x: tensor<?x?x6xf32> {attune.name = "x"}, %h0: tensor<4x?x10xf32> {attune.name = "h0"})
    -> (tensor<?x?x20xf32>, tensor<4x?x10xf32>) {
  %a = attune.weight "weight_ih_l0" : tensor<10x6xf32>
  %b = attune.weight "weight_hh_l0" : tensor<10x10xf32>
  %c = attune.weight "weight_ih_l0_reverse" : tensor<10x6xf32>
  %d = attune.weight "weight_hh_l0_reverse" : tensor<10x10xf32>
  %e = attune.weight "weight_ih_l1" : tensor<10x20xf32>
  %f = attune.weight "weight_hh_l1" : tensor<10x10xf32>
  %g = attune.weight "weight_ih_l1_reverse" : tensor<10x20xf32>
  %h = attune.weight "weight_hh_l1_reverse" : tensor<10x10xf32>
  %out, %hn = attune.rnn %x weights(%a, %b, %c, %d, %e, %f, %g, %h) initial_h(%h0)
      {hidden_size = 10 : i64, num_layers = 2 : i64, bidirectional, has_biases = false,
       nonlinearity = #attune.activation<relu>}
      : (tensor<?x?x6xf32>, tensor<10x6xf32>, tensor<10x10xf32>, tensor<10x6xf32>, tensor<10x10xf32>,
         tensor<10x20xf32>, tensor<10x10xf32>, tensor<10x20xf32>, tensor<10x10xf32>, tensor<4x?x10xf32>)
      -> (tensor<?x?x20xf32>, tensor<4x?x10xf32>)
  return %out, %hn : tensor<?x?x20xf32>, tensor<4x?x10xf32>
}
