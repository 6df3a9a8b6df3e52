// torch.module: nn.ModuleDict({"embedding": nn.Embedding(1000, 64), "encoder": nn.TransformerEncoder(nn.TransformerEncoderLayer(d_model=64, nhead=4, dim_feedforward=128, dropout=0.0, batch_first=True), num_layers=2, enable_nested_tensor=False)})
// torch.inputs: ids=i64[1,32]{0,1000}
// torch.call: module["encoder"](module["embedding"](ids) + sinusoidal_positions(ids.shape[1], 64))
//
// A small BERT-style encoder, the `make run` demo: token embedding (vocabulary
// 1000, d_model 64) plus sinusoidal positions, then 2 post-norm
// nn.TransformerEncoderLayer blocks (4 heads, feed-forward 128, relu).
// Input `ids [B, L]` (i64; B and L dynamic), output `[B, L, 64]`.
// `sinusoidal_positions(L, d)` is the table of attune.positional_encoding
// <sinusoidal>: PE[pos, 2i] = sin(pos / 10000^(2i/d)), PE[pos, 2i+1] = cos(...).

module {
  func.func @forward(%ids: tensor<?x?xi64> {attune.name = "ids"}) -> tensor<?x?x64xf32> {
    %table = attune.weight "embedding.weight" : tensor<1000x64xf32>
    %tok = attune.embedding %ids, %table : (tensor<?x?xi64>, tensor<1000x64xf32>) -> tensor<?x?x64xf32>
    %x = attune.positional_encoding <sinusoidal> %tok : (tensor<?x?x64xf32>) -> tensor<?x?x64xf32>

    // The two layers, written once: iteration i reads the weights under
    // encoder.layers.{i}. (nn.TransformerEncoder's state_dict keys).
    %h = attune.repeat %x {count = 2 : i64, prefix = "encoder.layers.{i}."}
        : (tensor<?x?x64xf32>) -> tensor<?x?x64xf32> {
    ^bb0(%in: tensor<?x?x64xf32>):
      %w0 = attune.weight "self_attn.in_proj_weight" : tensor<192x64xf32>
      %w1 = attune.weight "self_attn.in_proj_bias" : tensor<192xf32>
      %w2 = attune.weight "self_attn.out_proj.weight" : tensor<64x64xf32>
      %w3 = attune.weight "self_attn.out_proj.bias" : tensor<64xf32>
      %w4 = attune.weight "linear1.weight" : tensor<128x64xf32>
      %w5 = attune.weight "linear1.bias" : tensor<128xf32>
      %w6 = attune.weight "linear2.weight" : tensor<64x128xf32>
      %w7 = attune.weight "linear2.bias" : tensor<64xf32>
      %w8 = attune.weight "norm1.weight" : tensor<64xf32>
      %w9 = attune.weight "norm1.bias" : tensor<64xf32>
      %w10 = attune.weight "norm2.weight" : tensor<64xf32>
      %w11 = attune.weight "norm2.bias" : tensor<64xf32>
      %out = attune.encoder_layer %in
          self_attn(%w0, %w1, %w2, %w3) linear1(%w4, %w5) linear2(%w6, %w7)
          norm1(%w8, %w9) norm2(%w10, %w11) {num_heads = 4 : i64}
          : (tensor<?x?x64xf32>, tensor<192x64xf32>, tensor<192xf32>, tensor<64x64xf32>, tensor<64xf32>,
             tensor<128x64xf32>, tensor<128xf32>, tensor<64x128xf32>, tensor<64xf32>,
             tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<?x?x64xf32>
      attune.yield %out : tensor<?x?x64xf32>
    }
    return %h : tensor<?x?x64xf32>
  }
}
