// torch.module: nn.ModuleDict({"fc": nn.Linear(16, 24), "long": nn.Linear(30000, 4), "ln": nn.LayerNorm(16), "emb": nn.Embedding(50, 16), "pos": nn.Embedding(32, 16), "lstm": nn.LSTM(16, 8, batch_first=True), "gru": nn.GRU(16, 8, batch_first=True), "rnn": nn.RNN(16, 8, batch_first=True), "lstm_cell": nn.LSTMCell(16, 8), "gru_cell": nn.GRUCell(16, 8), "rnn_cell": nn.RNNCell(16, 8)}).half()
// torch.inputs: x=f16[2,5,16], y=f16[2,5,16], ids=i64[2,5]{0,50}, big=f16[2,30011], xl=f16[2,30000], q=f16[1,2,3,8], kl=f16[1,2,30000,8], vl=f16[1,2,30000,8], s=f16[2,2,5,7], h=f16[2,8], c=f16[2,8]
// torch.call: (lambda m, X, Y, B, XL, Q, KL, VL, S, H, C: (F.linear(X, m["fc"].weight, m["fc"].bias), F.linear(XL, m["long"].weight, m["long"].bias), X @ Y.transpose(-1, -2), X.permute(0, 2, 1), X.view(2, 5, 4, 4).transpose(1, 2), X[:, :, 4:9], torch.cat([X, Y], -1), X.unsqueeze(1), X * 1.5, X, F.relu(X), F.gelu(X), F.gelu(X, approximate="tanh"), torch.tanh(X), torch.sigmoid(X), F.silu(X), X * 0.5, torch.softmax(B, -1), torch.softmax(ref.in_f32((big + 20).to(big.dtype)), -1), X + Y, X * Y, m["ln"](X), F.layer_norm(ref.in_f32((big + 5).to(big.dtype)), (30011,)), m["emb"].weight[ids], X + sinusoidal_positions(5, 16), X + m["pos"].weight[:5], ref.attention(Q, KL, VL), ref.attention(Q, KL[:, :, :9], VL[:, :, :9], causal=True, align="bottom_right"), ref.mask(S, causal=True)) + m["lstm"](X)[0:1] + m["lstm"](X)[1] + m["gru"](X) + m["rnn"](X) + m["lstm_cell"](X[:, 0], (H, C)) + (m["gru_cell"](X[:, 0], H), m["rnn_cell"](X[:, 0], H)))(ref.in_f32(module), *map(ref.in_f32, (x, y, big, xl, q, kl, vl, s, h, c)))
//
// Every primitive op in f16 (storage) against PyTorch computing in f32 on
// the same f16 inputs and weights, unrounded: each op computes in f32
// (attune-widen-half) and rounds its result once, so the error is at most
// half an ulp of the result plus f32 rounding. The tolerance is 2 eps of
// f16 on unit-scale data (rtol = atol = 2^-10; atol also covers
// results near zero), the same for the long reductions (softmax and layer
// norm over 30,011 elements, a linear with K = 30,000, attention over
// 30,000 keys) and for values far from zero (softmax at +20, layer norm
// at +5).
// RUN: %check-golden %s --work %t --atol 0.001953125 --rtol 0.001953125

!x = tensor<2x5x16xf16>
func.func @forward(%x: !x {attune.name = "x"}, %y: !x {attune.name = "y"},
                   %ids: tensor<2x5xi64> {attune.name = "ids"},
                   %big: tensor<2x30011xf16> {attune.name = "big"},
                   %xl: tensor<2x30000xf16> {attune.name = "xl"},
                   %q: tensor<1x2x3x8xf16> {attune.name = "q"},
                   %kl: tensor<1x2x30000x8xf16> {attune.name = "kl"},
                   %vl: tensor<1x2x30000x8xf16> {attune.name = "vl"},
                   %s: tensor<2x2x5x7xf16> {attune.name = "s"},
                   %h: tensor<2x8xf16> {attune.name = "h"},
                   %c: tensor<2x8xf16> {attune.name = "c"})
    -> (tensor<2x5x24xf16>, tensor<2x4xf16>, tensor<2x5x5xf16>, tensor<2x16x5xf16>, tensor<2x4x5x4xf16>,
        tensor<2x5x5xf16>, tensor<2x5x32xf16>, tensor<2x1x5x16xf16>, !x, tensor<2x5x16xf32>,
        !x, !x, !x, !x, !x, !x, !x,
        tensor<2x30011xf16>, tensor<2x30011xf16>, !x, !x, !x, tensor<2x30011xf16>,
        !x, !x, !x, tensor<1x2x3x8xf16>, tensor<1x2x3x8xf16>, tensor<2x2x5x7xf16>,
        tensor<2x5x8xf16>, tensor<1x2x8xf16>, tensor<1x2x8xf16>,
        tensor<2x5x8xf16>, tensor<1x2x8xf16>, tensor<2x5x8xf16>, tensor<1x2x8xf16>,
        tensor<2x8xf16>, tensor<2x8xf16>, tensor<2x8xf16>, tensor<2x8xf16>) {
  %fcw = attune.weight "fc.weight" : tensor<24x16xf16>
  %fcb = attune.weight "fc.bias" : tensor<24xf16>
  %lw = attune.weight "long.weight" : tensor<4x30000xf16>
  %lb = attune.weight "long.bias" : tensor<4xf16>
  %0 = attune.linear %x, %fcw, %fcb : (!x, tensor<24x16xf16>, tensor<24xf16>) -> tensor<2x5x24xf16>
  %1 = attune.linear %xl, %lw, %lb : (tensor<2x30000xf16>, tensor<4x30000xf16>, tensor<4xf16>) -> tensor<2x4xf16>
  %2 = attune.matmul %x, %y {transpose_rhs} : (!x, !x) -> tensor<2x5x5xf16>
  %3 = attune.transpose %x {permutation = array<i64: 0, 2, 1>} : (!x) -> tensor<2x16x5xf16>
  %4 = attune.split_heads %x {num_heads = 4 : i64} : (!x) -> tensor<2x4x5x4xf16>
  %5 = attune.slice %x {axis = -1 : i64, offset = 4 : i64, size = 5 : i64} : (!x) -> tensor<2x5x5xf16>
  %6 = attune.concat %x, %y {axis = -1 : i64} : (!x, !x) -> tensor<2x5x32xf16>
  %7 = attune.expand_dims %x {axis = 1 : i64} : (!x) -> tensor<2x1x5x16xf16>
  %e = attune.expand_dims %x {axis = -1 : i64} : (!x) -> tensor<2x5x16x1xf16>
  %es = attune.scale %e {factor = 1.5 : f64} : tensor<2x5x16x1xf16>
  %8 = attune.squeeze %es {axis = -1 : i64} : (tensor<2x5x16x1xf16>) -> !x
  %9 = attune.cast %x : !x to tensor<2x5x16xf32>
  %a0 = attune.activation <relu> %x : !x
  %a1 = attune.activation <gelu> %x : !x
  %a2 = attune.activation <gelu_tanh> %x : !x
  %a3 = attune.activation <tanh> %x : !x
  %a4 = attune.activation <sigmoid> %x : !x
  %a5 = attune.activation <silu> %x : !x
  %10 = attune.scale %x {factor = 0.5 : f64} : !x
  %11 = attune.softmax %big : tensor<2x30011xf16>
  %c20 = arith.constant dense<20.0> : tensor<1xf16>
  %big20 = attune.add %big, %c20 : (tensor<2x30011xf16>, tensor<1xf16>) -> tensor<2x30011xf16>
  %12 = attune.softmax %big20 : tensor<2x30011xf16>
  %13 = attune.add %x, %y : (!x, !x) -> !x
  %14 = attune.mul %x, %y : (!x, !x) -> !x
  %lnw = attune.weight "ln.weight" : tensor<16xf16>
  %lnb = attune.weight "ln.bias" : tensor<16xf16>
  %15 = attune.layer_norm %x weight(%lnw) bias(%lnb) : (!x, tensor<16xf16>, tensor<16xf16>) -> !x
  %c5 = arith.constant dense<5.0> : tensor<1xf16>
  %big5 = attune.add %big, %c5 : (tensor<2x30011xf16>, tensor<1xf16>) -> tensor<2x30011xf16>
  %16 = attune.layer_norm %big5 : (tensor<2x30011xf16>) -> tensor<2x30011xf16>
  %emb = attune.weight "emb.weight" : tensor<50x16xf16>
  %17 = attune.embedding %ids, %emb : (tensor<2x5xi64>, tensor<50x16xf16>) -> !x
  %18 = attune.positional_encoding <sinusoidal> %x : (!x) -> !x
  %pos = attune.weight "pos.weight" : tensor<32x16xf16>
  %19 = attune.positional_encoding <learned> %x, %pos : (!x, tensor<32x16xf16>) -> !x
  %20 = attune.attention %q, %kl, %vl : (tensor<1x2x3x8xf16>, tensor<1x2x30000x8xf16>, tensor<1x2x30000x8xf16>) -> tensor<1x2x3x8xf16>
  %k9 = attune.slice %kl {axis = 2 : i64, offset = 0 : i64, size = 9 : i64} : (tensor<1x2x30000x8xf16>) -> tensor<1x2x9x8xf16>
  %v9 = attune.slice %vl {axis = 2 : i64, offset = 0 : i64, size = 9 : i64} : (tensor<1x2x30000x8xf16>) -> tensor<1x2x9x8xf16>
  %21 = attune.attention %q, %k9, %v9 {causal, align = #attune.align<bottom_right>} : (tensor<1x2x3x8xf16>, tensor<1x2x9x8xf16>, tensor<1x2x9x8xf16>) -> tensor<1x2x3x8xf16>
  %22 = attune.mask %s {causal} : (tensor<2x2x5x7xf16>) -> tensor<2x2x5x7xf16>
  %li = attune.weight "lstm.weight_ih_l0" : tensor<32x16xf16>
  %lh = attune.weight "lstm.weight_hh_l0" : tensor<32x8xf16>
  %lbi = attune.weight "lstm.bias_ih_l0" : tensor<32xf16>
  %lbh = attune.weight "lstm.bias_hh_l0" : tensor<32xf16>
  %lo, %lhn, %lcn = attune.lstm %x weights(%li, %lh, %lbi, %lbh) {hidden_size = 8 : i64}
      : (!x, tensor<32x16xf16>, tensor<32x8xf16>, tensor<32xf16>, tensor<32xf16>)
      -> (tensor<2x5x8xf16>, tensor<1x2x8xf16>, tensor<1x2x8xf16>)
  %gi = attune.weight "gru.weight_ih_l0" : tensor<24x16xf16>
  %gh = attune.weight "gru.weight_hh_l0" : tensor<24x8xf16>
  %gbi = attune.weight "gru.bias_ih_l0" : tensor<24xf16>
  %gbh = attune.weight "gru.bias_hh_l0" : tensor<24xf16>
  %go, %ghn = attune.gru %x weights(%gi, %gh, %gbi, %gbh) {hidden_size = 8 : i64}
      : (!x, tensor<24x16xf16>, tensor<24x8xf16>, tensor<24xf16>, tensor<24xf16>)
      -> (tensor<2x5x8xf16>, tensor<1x2x8xf16>)
  %ri = attune.weight "rnn.weight_ih_l0" : tensor<8x16xf16>
  %rh = attune.weight "rnn.weight_hh_l0" : tensor<8x8xf16>
  %rbi = attune.weight "rnn.bias_ih_l0" : tensor<8xf16>
  %rbh = attune.weight "rnn.bias_hh_l0" : tensor<8xf16>
  %ro, %rhn = attune.rnn %x weights(%ri, %rh, %rbi, %rbh) {hidden_size = 8 : i64}
      : (!x, tensor<8x16xf16>, tensor<8x8xf16>, tensor<8xf16>, tensor<8xf16>)
      -> (tensor<2x5x8xf16>, tensor<1x2x8xf16>)
  %x0 = attune.slice %x {axis = 1 : i64, offset = 0 : i64, size = 1 : i64} : (!x) -> tensor<2x1x16xf16>
  %x1 = attune.squeeze %x0 {axis = 1 : i64} : (tensor<2x1x16xf16>) -> tensor<2x16xf16>
  %ci = attune.weight "lstm_cell.weight_ih" : tensor<32x16xf16>
  %ch = attune.weight "lstm_cell.weight_hh" : tensor<32x8xf16>
  %cbi = attune.weight "lstm_cell.bias_ih" : tensor<32xf16>
  %cbh = attune.weight "lstm_cell.bias_hh" : tensor<32xf16>
  %h1, %c1 = attune.lstm_cell %x1, %h, %c weights(%ci, %ch, %cbi, %cbh)
      : (tensor<2x16xf16>, tensor<2x8xf16>, tensor<2x8xf16>, tensor<32x16xf16>, tensor<32x8xf16>,
         tensor<32xf16>, tensor<32xf16>) -> (tensor<2x8xf16>, tensor<2x8xf16>)
  %gci = attune.weight "gru_cell.weight_ih" : tensor<24x16xf16>
  %gch = attune.weight "gru_cell.weight_hh" : tensor<24x8xf16>
  %gcbi = attune.weight "gru_cell.bias_ih" : tensor<24xf16>
  %gcbh = attune.weight "gru_cell.bias_hh" : tensor<24xf16>
  %g1 = attune.gru_cell %x1, %h weights(%gci, %gch, %gcbi, %gcbh)
      : (tensor<2x16xf16>, tensor<2x8xf16>, tensor<24x16xf16>, tensor<24x8xf16>, tensor<24xf16>, tensor<24xf16>)
      -> tensor<2x8xf16>
  %rci = attune.weight "rnn_cell.weight_ih" : tensor<8x16xf16>
  %rch = attune.weight "rnn_cell.weight_hh" : tensor<8x8xf16>
  %rcbi = attune.weight "rnn_cell.bias_ih" : tensor<8xf16>
  %rcbh = attune.weight "rnn_cell.bias_hh" : tensor<8xf16>
  %r1 = attune.rnn_cell %x1, %h weights(%rci, %rch, %rcbi, %rcbh)
      : (tensor<2x16xf16>, tensor<2x8xf16>, tensor<8x16xf16>, tensor<8x8xf16>, tensor<8xf16>, tensor<8xf16>)
      -> tensor<2x8xf16>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %a0, %a1, %a2, %a3, %a4, %a5, %10, %11, %12, %13, %14,
         %15, %16, %17, %18, %19, %20, %21, %22, %lo, %lhn, %lcn, %go, %ghn, %ro, %rhn, %h1, %c1, %g1, %r1
      : tensor<2x5x24xf16>, tensor<2x4xf16>, tensor<2x5x5xf16>, tensor<2x16x5xf16>, tensor<2x4x5x4xf16>,
        tensor<2x5x5xf16>, tensor<2x5x32xf16>, tensor<2x1x5x16xf16>, !x, tensor<2x5x16xf32>,
        !x, !x, !x, !x, !x, !x, !x,
        tensor<2x30011xf16>, tensor<2x30011xf16>, !x, !x, !x, tensor<2x30011xf16>,
        !x, !x, !x, tensor<1x2x3x8xf16>, tensor<1x2x3x8xf16>, tensor<2x2x5x7xf16>,
        tensor<2x5x8xf16>, tensor<1x2x8xf16>, tensor<1x2x8xf16>,
        tensor<2x5x8xf16>, tensor<1x2x8xf16>, tensor<2x5x8xf16>, tensor<1x2x8xf16>,
        tensor<2x8xf16>, tensor<2x8xf16>, tensor<2x8xf16>, tensor<2x8xf16>
}
