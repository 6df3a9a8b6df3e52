// torch.module: nn.ModuleDict({"W1": nn.Linear(32, 24), "W2": nn.Linear(40, 24, bias=False), "v": nn.Linear(24, 1, bias=False), "Wc": nn.Linear(72, 32), "out": nn.Linear(32, 50)})
// torch.inputs: state=f32[2,1,32], encoder=f32[2,9,40], lengths=i64[2]{1,10}
// torch.inputs: state=f32[3,1,32], encoder=f32[3,4,40], lengths=i64[3]{1,5}
// torch.call: (lambda a: (torch.softmax(module["out"](torch.tanh(module["Wc"](torch.cat([a[0], state], -1)))), -1), a[1]))(ref.seq2seq("additive", state, encoder, encoder, (module["W1"].weight, module["W2"].weight, module["v"].weight, module["W1"].bias), lengths=lengths, return_weights=True))
//
// One step of a seq2seq decoder with Bahdanau (additive) attention:
//   score    e_j = v^T tanh(W1 s + b1 + W2 h_j)   (padding keys masked)
//   weights  a = softmax(e)
//   context  c = sum_j a_j h_j
//   output   o = tanh(Wc [c; s] + bc),  probs = softmax(Wout o + bout)
// state s [B, 1, 32] (decoder hidden), encoder h [B, S, 40], lengths [B]
// -> probs [B, 1, 50], attention weights [B, 1, S]. Wc [32, 72] is applied
// to the concatenation [c; s] (attune.concat), as PyTorch stores it.

module {
  func.func @forward(%state: tensor<?x1x32xf32> {attune.name = "state"},
                     %enc: tensor<?x?x40xf32> {attune.name = "encoder"},
                     %lengths: tensor<?xi64> {attune.name = "lengths"})
      -> (tensor<?x1x50xf32>, tensor<?x1x?xf32>) {
    %w1 = attune.weight "W1.weight" : tensor<24x32xf32>
    %b1 = attune.weight "W1.bias" : tensor<24xf32>
    %w2 = attune.weight "W2.weight" : tensor<24x40xf32>
    %v = attune.weight "v.weight" : tensor<1x24xf32>
    %wc = attune.weight "Wc.weight" : tensor<32x72xf32>
    %bc = attune.weight "Wc.bias" : tensor<32xf32>
    %wo = attune.weight "out.weight" : tensor<50x32xf32>
    %bo = attune.weight "out.bias" : tensor<50xf32>
    %ctx, %attn = attune.seq2seq_attention <additive> %state, %enc, %enc weights(%w1, %w2, %v, %b1)
        key_lengths(%lengths) {return_weights}
        : (tensor<?x1x32xf32>, tensor<?x?x40xf32>, tensor<?x?x40xf32>, tensor<24x32xf32>, tensor<24x40xf32>,
           tensor<1x24xf32>, tensor<24xf32>, tensor<?xi64>) -> (tensor<?x1x40xf32>, tensor<?x1x?xf32>)
    %cs = attune.concat %ctx, %state {axis = -1 : i64}
        : (tensor<?x1x40xf32>, tensor<?x1x32xf32>) -> tensor<?x1x72xf32>
    %sum = attune.linear %cs, %wc, %bc : (tensor<?x1x72xf32>, tensor<32x72xf32>, tensor<32xf32>) -> tensor<?x1x32xf32>
    %o = attune.activation <tanh> %sum : tensor<?x1x32xf32>
    %logits = attune.linear %o, %wo, %bo : (tensor<?x1x32xf32>, tensor<50x32xf32>, tensor<50xf32>) -> tensor<?x1x50xf32>
    %probs = attune.softmax %logits : tensor<?x1x50xf32>
    return %probs, %attn : tensor<?x1x50xf32>, tensor<?x1x?xf32>
  }
}
