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

    %l0_0 = attune.weight "encoder.layers.0.self_attn.in_proj_weight" : tensor<192x64xf32>
    %l0_1 = attune.weight "encoder.layers.0.self_attn.in_proj_bias" : tensor<192xf32>
    %l0_2 = attune.weight "encoder.layers.0.self_attn.out_proj.weight" : tensor<64x64xf32>
    %l0_3 = attune.weight "encoder.layers.0.self_attn.out_proj.bias" : tensor<64xf32>
    %l0_4 = attune.weight "encoder.layers.0.linear1.weight" : tensor<128x64xf32>
    %l0_5 = attune.weight "encoder.layers.0.linear1.bias" : tensor<128xf32>
    %l0_6 = attune.weight "encoder.layers.0.linear2.weight" : tensor<64x128xf32>
    %l0_7 = attune.weight "encoder.layers.0.linear2.bias" : tensor<64xf32>
    %l0_8 = attune.weight "encoder.layers.0.norm1.weight" : tensor<64xf32>
    %l0_9 = attune.weight "encoder.layers.0.norm1.bias" : tensor<64xf32>
    %l0_10 = attune.weight "encoder.layers.0.norm2.weight" : tensor<64xf32>
    %l0_11 = attune.weight "encoder.layers.0.norm2.bias" : tensor<64xf32>
    %h0 = attune.encoder_layer %x
        self_attn(%l0_0, %l0_1, %l0_2, %l0_3) linear1(%l0_4, %l0_5) linear2(%l0_6, %l0_7)
        norm1(%l0_8, %l0_9) norm2(%l0_10, %l0_11) {num_heads = 4 : i64}
        : (tensor<?x?x64xf32>, tensor<192x64xf32>, tensor<192xf32>, tensor<64x64xf32>, tensor<64xf32>,
           tensor<128x64xf32>, tensor<128xf32>, tensor<64x128xf32>, tensor<64xf32>,
           tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<?x?x64xf32>

    %l1_0 = attune.weight "encoder.layers.1.self_attn.in_proj_weight" : tensor<192x64xf32>
    %l1_1 = attune.weight "encoder.layers.1.self_attn.in_proj_bias" : tensor<192xf32>
    %l1_2 = attune.weight "encoder.layers.1.self_attn.out_proj.weight" : tensor<64x64xf32>
    %l1_3 = attune.weight "encoder.layers.1.self_attn.out_proj.bias" : tensor<64xf32>
    %l1_4 = attune.weight "encoder.layers.1.linear1.weight" : tensor<128x64xf32>
    %l1_5 = attune.weight "encoder.layers.1.linear1.bias" : tensor<128xf32>
    %l1_6 = attune.weight "encoder.layers.1.linear2.weight" : tensor<64x128xf32>
    %l1_7 = attune.weight "encoder.layers.1.linear2.bias" : tensor<64xf32>
    %l1_8 = attune.weight "encoder.layers.1.norm1.weight" : tensor<64xf32>
    %l1_9 = attune.weight "encoder.layers.1.norm1.bias" : tensor<64xf32>
    %l1_10 = attune.weight "encoder.layers.1.norm2.weight" : tensor<64xf32>
    %l1_11 = attune.weight "encoder.layers.1.norm2.bias" : tensor<64xf32>
    %h1 = attune.encoder_layer %h0
        self_attn(%l1_0, %l1_1, %l1_2, %l1_3) linear1(%l1_4, %l1_5) linear2(%l1_6, %l1_7)
        norm1(%l1_8, %l1_9) norm2(%l1_10, %l1_11) {num_heads = 4 : i64}
        : (tensor<?x?x64xf32>, tensor<192x64xf32>, tensor<192xf32>, tensor<64x64xf32>, tensor<64xf32>,
           tensor<128x64xf32>, tensor<128xf32>, tensor<64x128xf32>, tensor<64xf32>,
           tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<?x?x64xf32>

    return %h1 : tensor<?x?x64xf32>
  }
}
