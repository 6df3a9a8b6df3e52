// torch.module: ref.Seq2SeqRNN(src_vocab=53, tgt_vocab=61, embed=24, hidden=32, attention="additive")
// torch.inputs: src=i64[1,6]{3,53}, src_lengths=i64[1]{6,7}
// torch.inputs: src=i64[3,9]{3,53}, src_lengths=i64[3]{1,10}
// torch.generate: ref.greedy_rnn(module, src, src_lengths, bos=1, max_new_tokens=25, eos=2, pad=0)
// torch.logits: ref.forced_logits_rnn(module, src, src_lengths, 1, generated)
// attune.generate: --bos 1 --max-new-tokens 25 --eos 2 --pad 0
//
// The classic RNN encoder-decoder with Bahdanau (additive) attention
// (scripts/attune_ref.py's ref.Seq2SeqRNN), greedy from <bos> = 1 to
// <eos> = 2: a GRU encoder (embedding 24, hidden 32); the decoder's hidden
// state is the generation state `h`, initialized by `@encode` with the
// encoder's state after each source's last token (attune.select_last over
// the padded batch); each step scores the encoder outputs against the
// previous state (e_j = v^T tanh(W1 s + b + W2 h_j), padding masked), feeds
// [embedding; context] to a GRU cell, and outputs W_out tanh(W_c [c; s]);
// the new state overwrites the old in place (attune.overwrite).
// Written by scripts/gen_generation_mlir.py rnn --vocab 61 --src-vocab 53
// --embed 24 --hidden 32 --attention additive.

module {
  func.func @encode(%src: tensor<?x?xi64> {attune.name = "src"},
      %src_lengths: tensor<?xi64> {attune.name = "src_lengths"})
      -> (tensor<?x?x32xf32> {attune.context = "encoder"},
          tensor<?xi64> {attune.context = "src_lengths"},
          tensor<?x32xf32> {attune.state = "h"})
      attributes {attune.generation_encoder} {
    %semb = attune.weight "src_embed.weight" : tensor<53x24xf32>
    %se = attune.embedding %src, %semb : (tensor<?x?xi64>, tensor<53x24xf32>) -> tensor<?x?x24xf32>
    %weight_ih_l0 = attune.weight "encoder.weight_ih_l0" : tensor<96x24xf32>
    %weight_hh_l0 = attune.weight "encoder.weight_hh_l0" : tensor<96x32xf32>
    %bias_ih_l0 = attune.weight "encoder.bias_ih_l0" : tensor<96xf32>
    %bias_hh_l0 = attune.weight "encoder.bias_hh_l0" : tensor<96xf32>
    %enc, %hn = attune.gru %se weights(%weight_ih_l0, %weight_hh_l0, %bias_ih_l0, %bias_hh_l0) {hidden_size = 32 : i64}
        : (tensor<?x?x24xf32>, tensor<96x24xf32>, tensor<96x32xf32>, tensor<96xf32>, tensor<96xf32>) -> (tensor<?x?x32xf32>, tensor<1x?x32xf32>)
    // The state after each source's last valid token (the GRU ran on
    // through the padding).
    %h0 = attune.select_last %enc, %src_lengths : (tensor<?x?x32xf32>, tensor<?xi64>) -> tensor<?x32xf32>
    return %enc, %src_lengths, %h0 : tensor<?x?x32xf32>, tensor<?xi64>, tensor<?x32xf32>
  }
  func.func @step(%tokens: tensor<?x1xi64> {attune.name = "tokens"},
      %positions: tensor<?xi64> {attune.name = "positions"},
      %lengths: tensor<?xi64> {attune.name = "lengths"},
      %enc: tensor<?x?x32xf32> {attune.context = "encoder"},
      %src_lengths: tensor<?xi64> {attune.context = "src_lengths"},
      %h: tensor<?x32xf32> {attune.state = "h"})
      -> (tensor<?x61xf32> {attune.name = "logits"}, tensor<?x32xf32> {attune.state = "h"})
      attributes {attune.generation_step} {
    %temb = attune.weight "tgt_embed.weight" : tensor<61x24xf32>
    %te = attune.embedding %tokens, %temb : (tensor<?x1xi64>, tensor<61x24xf32>) -> tensor<?x1x24xf32>
    %e = attune.squeeze %te {axis = 1 : i64} : (tensor<?x1x24xf32>) -> tensor<?x24xf32>
    %c_weight_ih = attune.weight "cell.weight_ih" : tensor<96x56xf32>
    %c_weight_hh = attune.weight "cell.weight_hh" : tensor<96x32xf32>
    %c_bias_ih = attune.weight "cell.bias_ih" : tensor<96xf32>
    %c_bias_hh = attune.weight "cell.bias_hh" : tensor<96xf32>
    %q = attune.expand_dims %h {axis = 1 : i64} : (tensor<?x32xf32>) -> tensor<?x1x32xf32>
    %w1 = attune.weight "W1.weight" : tensor<32x32xf32>
    %b1 = attune.weight "W1.bias" : tensor<32xf32>
    %w2 = attune.weight "W2.weight" : tensor<32x32xf32>
    %v = attune.weight "v.weight" : tensor<1x32xf32>
    %c3 = attune.seq2seq_attention <additive> %q, %enc, %enc weights(%w1, %w2, %v, %b1) key_lengths(%src_lengths)
        : (tensor<?x1x32xf32>, tensor<?x?x32xf32>, tensor<?x?x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<1x32xf32>, tensor<32xf32>, tensor<?xi64>) -> tensor<?x1x32xf32>
    %ctx = attune.squeeze %c3 {axis = 1 : i64} : (tensor<?x1x32xf32>) -> tensor<?x32xf32>
    %x = attune.concat %e, %ctx {axis = -1 : i64} : (tensor<?x24xf32>, tensor<?x32xf32>) -> tensor<?x56xf32>
    %h1 = attune.gru_cell %x, %h weights(%c_weight_ih, %c_weight_hh, %c_bias_ih, %c_bias_hh) : (tensor<?x56xf32>, tensor<?x32xf32>, tensor<96x56xf32>, tensor<96x32xf32>, tensor<96xf32>, tensor<96xf32>) -> tensor<?x32xf32>
    %wc = attune.weight "Wc.weight" : tensor<32x64xf32>
    %bc = attune.weight "Wc.bias" : tensor<32xf32>
    %wo = attune.weight "out.weight" : tensor<61x32xf32>
    %bo = attune.weight "out.bias" : tensor<61xf32>
    %cs = attune.concat %ctx, %h1 {axis = -1 : i64} : (tensor<?x32xf32>, tensor<?x32xf32>) -> tensor<?x64xf32>
    %o = attune.linear %cs, %wc, %bc {activation = #attune.activation<tanh>} : (tensor<?x64xf32>, tensor<32x64xf32>, tensor<32xf32>) -> tensor<?x32xf32>
    %logits = attune.linear %o, %wo, %bo : (tensor<?x32xf32>, tensor<61x32xf32>, tensor<61xf32>) -> tensor<?x61xf32>
    %hnew = attune.overwrite %h, %h1 : (tensor<?x32xf32>, tensor<?x32xf32>) -> tensor<?x32xf32>
    return %logits, %hnew : tensor<?x61xf32>, tensor<?x32xf32>
  }
}
