// torch.module: nn.ModuleDict({"lstm": nn.LSTMCell(8, 16), "gru": nn.GRUCell(8, 16), "rnn": nn.RNNCell(8, 16)})
// torch.inputs: x=f32[3,8], h=f32[3,16], c=f32[3,16]
// torch.inputs: x=f32[1,8], h=f32[1,16], c=f32[1,16]
// torch.call: module["lstm"](x, (h, c)) + (module["gru"](x, h), module["rnn"](x, h))
//
// One step of each cell (decoders feed outputs back as inputs).
// RUN: %check-golden %s --work %t --atol 1e-5

func.func @forward(%x: tensor<?x8xf32> {attune.name = "x"}, %h: tensor<?x16xf32> {attune.name = "h"},
                   %c: tensor<?x16xf32> {attune.name = "c"})
    -> (tensor<?x16xf32>, tensor<?x16xf32>, tensor<?x16xf32>, tensor<?x16xf32>) {
  %li = attune.weight "lstm.weight_ih" : tensor<64x8xf32>
  %lh = attune.weight "lstm.weight_hh" : tensor<64x16xf32>
  %lbi = attune.weight "lstm.bias_ih" : tensor<64xf32>
  %lbh = attune.weight "lstm.bias_hh" : tensor<64xf32>
  %gi = attune.weight "gru.weight_ih" : tensor<48x8xf32>
  %gh = attune.weight "gru.weight_hh" : tensor<48x16xf32>
  %gbi = attune.weight "gru.bias_ih" : tensor<48xf32>
  %gbh = attune.weight "gru.bias_hh" : tensor<48xf32>
  %ri = attune.weight "rnn.weight_ih" : tensor<16x8xf32>
  %rh = attune.weight "rnn.weight_hh" : tensor<16x16xf32>
  %rbi = attune.weight "rnn.bias_ih" : tensor<16xf32>
  %rbh = attune.weight "rnn.bias_hh" : tensor<16xf32>
  %h1, %c1 = attune.lstm_cell %x, %h, %c weights(%li, %lh, %lbi, %lbh)
      : (tensor<?x8xf32>, tensor<?x16xf32>, tensor<?x16xf32>, tensor<64x8xf32>, tensor<64x16xf32>,
         tensor<64xf32>, tensor<64xf32>) -> (tensor<?x16xf32>, tensor<?x16xf32>)
  %g1 = attune.gru_cell %x, %h weights(%gi, %gh, %gbi, %gbh)
      : (tensor<?x8xf32>, tensor<?x16xf32>, tensor<48x8xf32>, tensor<48x16xf32>, tensor<48xf32>, tensor<48xf32>)
      -> tensor<?x16xf32>
  %r1 = attune.rnn_cell %x, %h weights(%ri, %rh, %rbi, %rbh)
      : (tensor<?x8xf32>, tensor<?x16xf32>, tensor<16x8xf32>, tensor<16x16xf32>, tensor<16xf32>, tensor<16xf32>)
      -> tensor<?x16xf32>
  return %h1, %c1, %g1, %r1 : tensor<?x16xf32>, tensor<?x16xf32>, tensor<?x16xf32>, tensor<?x16xf32>
}
