// torch.module: ref.Seq2SeqRNN(src_vocab=13, tgt_vocab=13, embed=32, hidden=64, attention="general")
// torch.inputs: src=i64[2,9]{3,13}, src_lengths=i64[2]{5,10}, tgt_in=i64[2,10]{1,13}
// torch.inputs: src=i64[1,7]{3,13}, src_lengths=i64[1]{7,8}, tgt_in=i64[1,8]{1,13}
// torch.call: ref.forced_luong(module, src, src_lengths, tgt_in)
//
// An RNN encoder-decoder with Luong (general) attention, teacher-forced:
// the model scripts/train_reversal.py trains to write words backwards
// (vocabulary: <pad> <bos> <eos> a..j). A GRU encoder over the source
// embeddings; the decoder GRU over the decoder's inputs (<bos>, then the
// reversed word), started from the encoder's state after each source's
// last letter; at every step, scores over the encoder outputs
// (e_j = s_t^T Wa h_j, padding masked) and the output
// W_out tanh(W_c [c_t; s_t]). src [B, S], src_lengths [B], tgt_in [B, T]
// -> logits [B, T, 13]; compiled with --attention-maps, also attn.Wa
// [B, T, S], the attention weights of each decoding step (the header's
// second result).
//
// The picture of the README: the trained model's attention lies on the
// anti-diagonal (step t looks at source position S - 1 - t):
//   scripts/attention-example.sh build

module {
  func.func @forward(%src: tensor<?x?xi64> {attune.name = "src"},
                     %src_lengths: tensor<?xi64> {attune.name = "src_lengths"},
                     %tgt_in: tensor<?x?xi64> {attune.name = "tgt_in"}) -> tensor<?x?x13xf32> {
    %semb = attune.weight "src_embed.weight" : tensor<13x32xf32>
    %se = attune.embedding %src, %semb : (tensor<?x?xi64>, tensor<13x32xf32>) -> tensor<?x?x32xf32>
    %ewih = attune.weight "encoder.weight_ih_l0" : tensor<192x32xf32>
    %ewhh = attune.weight "encoder.weight_hh_l0" : tensor<192x64xf32>
    %ebih = attune.weight "encoder.bias_ih_l0" : tensor<192xf32>
    %ebhh = attune.weight "encoder.bias_hh_l0" : tensor<192xf32>
    %enc, %hn = attune.gru %se weights(%ewih, %ewhh, %ebih, %ebhh) {hidden_size = 64 : i64}
        : (tensor<?x?x32xf32>, tensor<192x32xf32>, tensor<192x64xf32>, tensor<192xf32>, tensor<192xf32>)
        -> (tensor<?x?x64xf32>, tensor<1x?x64xf32>)
    // The state after each source's last letter (the GRU ran on through
    // the padding) starts the decoder.
    %last = attune.select_last %enc, %src_lengths : (tensor<?x?x64xf32>, tensor<?xi64>) -> tensor<?x64xf32>
    %h0 = attune.expand_dims %last {axis = 0 : i64} : (tensor<?x64xf32>) -> tensor<1x?x64xf32>
    %temb = attune.weight "tgt_embed.weight" : tensor<13x32xf32>
    %te = attune.embedding %tgt_in, %temb : (tensor<?x?xi64>, tensor<13x32xf32>) -> tensor<?x?x32xf32>
    %cwih = attune.weight "cell.weight_ih" : tensor<192x32xf32>
    %cwhh = attune.weight "cell.weight_hh" : tensor<192x64xf32>
    %cbih = attune.weight "cell.bias_ih" : tensor<192xf32>
    %cbhh = attune.weight "cell.bias_hh" : tensor<192xf32>
    %dec, %hd = attune.gru %te weights(%cwih, %cwhh, %cbih, %cbhh) initial_h(%h0) {hidden_size = 64 : i64}
        : (tensor<?x?x32xf32>, tensor<192x32xf32>, tensor<192x64xf32>, tensor<192xf32>, tensor<192xf32>, tensor<1x?x64xf32>)
        -> (tensor<?x?x64xf32>, tensor<1x?x64xf32>)
    %wa = attune.weight "Wa.weight" : tensor<64x64xf32>
    %ctx = attune.seq2seq_attention <general> %dec, %enc, %enc weights(%wa) key_lengths(%src_lengths)
        : (tensor<?x?x64xf32>, tensor<?x?x64xf32>, tensor<?x?x64xf32>, tensor<64x64xf32>, tensor<?xi64>) -> tensor<?x?x64xf32>
    %cs = attune.concat %ctx, %dec {axis = -1 : i64} : (tensor<?x?x64xf32>, tensor<?x?x64xf32>) -> tensor<?x?x128xf32>
    %wc = attune.weight "Wc.weight" : tensor<64x128xf32>
    %bc = attune.weight "Wc.bias" : tensor<64xf32>
    %o = attune.linear %cs, %wc, %bc {activation = #attune.activation<tanh>}
        : (tensor<?x?x128xf32>, tensor<64x128xf32>, tensor<64xf32>) -> tensor<?x?x64xf32>
    %wo = attune.weight "out.weight" : tensor<13x64xf32>
    %bo = attune.weight "out.bias" : tensor<13xf32>
    %logits = attune.linear %o, %wo, %bo : (tensor<?x?x64xf32>, tensor<13x64xf32>, tensor<13xf32>) -> tensor<?x?x13xf32>
    return %logits : tensor<?x?x13xf32>
  }
}
