// torch.module: nn.TransformerEncoder(nn.TransformerEncoderLayer(d_model=768, nhead=12, dim_feedforward=3072, dropout=0.0, batch_first=True), num_layers=12, enable_nested_tensor=False)
// torch.inputs: src=f32[1,128,768]
// torch.inputs: src=f32[1,512,768]
// torch.call: module(src)
//
// Benchmark: a 12-layer BERT-base-sized encoder (post-norm, relu), weights
// bound by nn.TransformerEncoder's state_dict keys (layers.N.*).

module {
  func.func @forward(%src: tensor<?x?x768xf32> {attune.name = "src"}) -> tensor<?x?x768xf32> {
    %l0w0 = attune.weight "layers.0.self_attn.in_proj_weight" : tensor<2304x768xf32>
    %l0w1 = attune.weight "layers.0.self_attn.in_proj_bias" : tensor<2304xf32>
    %l0w2 = attune.weight "layers.0.self_attn.out_proj.weight" : tensor<768x768xf32>
    %l0w3 = attune.weight "layers.0.self_attn.out_proj.bias" : tensor<768xf32>
    %l0w4 = attune.weight "layers.0.linear1.weight" : tensor<3072x768xf32>
    %l0w5 = attune.weight "layers.0.linear1.bias" : tensor<3072xf32>
    %l0w6 = attune.weight "layers.0.linear2.weight" : tensor<768x3072xf32>
    %l0w7 = attune.weight "layers.0.linear2.bias" : tensor<768xf32>
    %l0w8 = attune.weight "layers.0.norm1.weight" : tensor<768xf32>
    %l0w9 = attune.weight "layers.0.norm1.bias" : tensor<768xf32>
    %l0w10 = attune.weight "layers.0.norm2.weight" : tensor<768xf32>
    %l0w11 = attune.weight "layers.0.norm2.bias" : tensor<768xf32>
    %h0 = attune.encoder_layer %src
        self_attn(%l0w0, %l0w1, %l0w2, %l0w3) linear1(%l0w4, %l0w5) linear2(%l0w6, %l0w7)
        norm1(%l0w8, %l0w9) norm2(%l0w10, %l0w11) {num_heads = 12 : i64}
        : (tensor<?x?x768xf32>, tensor<2304x768xf32>, tensor<2304xf32>, tensor<768x768xf32>, tensor<768xf32>, tensor<3072x768xf32>, tensor<3072xf32>, tensor<768x3072xf32>, tensor<768xf32>, tensor<768xf32>, tensor<768xf32>, tensor<768xf32>, tensor<768xf32>) -> tensor<?x?x768xf32>
    %l1w0 = attune.weight "layers.1.self_attn.in_proj_weight" : tensor<2304x768xf32>
    %l1w1 = attune.weight "layers.1.self_attn.in_proj_bias" : tensor<2304xf32>
    %l1w2 = attune.weight "layers.1.self_attn.out_proj.weight" : tensor<768x768xf32>
    %l1w3 = attune.weight "layers.1.self_attn.out_proj.bias" : tensor<768xf32>
    %l1w4 = attune.weight "layers.1.linear1.weight" : tensor<3072x768xf32>
    %l1w5 = attune.weight "layers.1.linear1.bias" : tensor<3072xf32>
    %l1w6 = attune.weight "layers.1.linear2.weight" : tensor<768x3072xf32>
    %l1w7 = attune.weight "layers.1.linear2.bias" : tensor<768xf32>
    %l1w8 = attune.weight "layers.1.norm1.weight" : tensor<768xf32>
    %l1w9 = attune.weight "layers.1.norm1.bias" : tensor<768xf32>
    %l1w10 = attune.weight "layers.1.norm2.weight" : tensor<768xf32>
    %l1w11 = attune.weight "layers.1.norm2.bias" : tensor<768xf32>
    %h1 = attune.encoder_layer %h0
        self_attn(%l1w0, %l1w1, %l1w2, %l1w3) linear1(%l1w4, %l1w5) linear2(%l1w6, %l1w7)
        norm1(%l1w8, %l1w9) norm2(%l1w10, %l1w11) {num_heads = 12 : i64}
        : (tensor<?x?x768xf32>, tensor<2304x768xf32>, tensor<2304xf32>, tensor<768x768xf32>, tensor<768xf32>, tensor<3072x768xf32>, tensor<3072xf32>, tensor<768x3072xf32>, tensor<768xf32>, tensor<768xf32>, tensor<768xf32>, tensor<768xf32>, tensor<768xf32>) -> tensor<?x?x768xf32>
    %l2w0 = attune.weight "layers.2.self_attn.in_proj_weight" : tensor<2304x768xf32>
    %l2w1 = attune.weight "layers.2.self_attn.in_proj_bias" : tensor<2304xf32>
    %l2w2 = attune.weight "layers.2.self_attn.out_proj.weight" : tensor<768x768xf32>
    %l2w3 = attune.weight "layers.2.self_attn.out_proj.bias" : tensor<768xf32>
    %l2w4 = attune.weight "layers.2.linear1.weight" : tensor<3072x768xf32>
    %l2w5 = attune.weight "layers.2.linear1.bias" : tensor<3072xf32>
    %l2w6 = attune.weight "layers.2.linear2.weight" : tensor<768x3072xf32>
    %l2w7 = attune.weight "layers.2.linear2.bias" : tensor<768xf32>
    %l2w8 = attune.weight "layers.2.norm1.weight" : tensor<768xf32>
    %l2w9 = attune.weight "layers.2.norm1.bias" : tensor<768xf32>
    %l2w10 = attune.weight "layers.2.norm2.weight" : tensor<768xf32>
    %l2w11 = attune.weight "layers.2.norm2.bias" : tensor<768xf32>
    %h2 = attune.encoder_layer %h1
        self_attn(%l2w0, %l2w1, %l2w2, %l2w3) linear1(%l2w4, %l2w5) linear2(%l2w6, %l2w7)
        norm1(%l2w8, %l2w9) norm2(%l2w10, %l2w11) {num_heads = 12 : i64}
        : (tensor<?x?x768xf32>, tensor<2304x768xf32>, tensor<2304xf32>, tensor<768x768xf32>, tensor<768xf32>, tensor<3072x768xf32>, tensor<3072xf32>, tensor<768x3072xf32>, tensor<768xf32>, tensor<768xf32>, tensor<768xf32>, tensor<768xf32>, tensor<768xf32>) -> tensor<?x?x768xf32>
    %l3w0 = attune.weight "layers.3.self_attn.in_proj_weight" : tensor<2304x768xf32>
    %l3w1 = attune.weight "layers.3.self_attn.in_proj_bias" : tensor<2304xf32>
    %l3w2 = attune.weight "layers.3.self_attn.out_proj.weight" : tensor<768x768xf32>
    %l3w3 = attune.weight "layers.3.self_attn.out_proj.bias" : tensor<768xf32>
    %l3w4 = attune.weight "layers.3.linear1.weight" : tensor<3072x768xf32>
    %l3w5 = attune.weight "layers.3.linear1.bias" : tensor<3072xf32>
    %l3w6 = attune.weight "layers.3.linear2.weight" : tensor<768x3072xf32>
    %l3w7 = attune.weight "layers.3.linear2.bias" : tensor<768xf32>
    %l3w8 = attune.weight "layers.3.norm1.weight" : tensor<768xf32>
    %l3w9 = attune.weight "layers.3.norm1.bias" : tensor<768xf32>
    %l3w10 = attune.weight "layers.3.norm2.weight" : tensor<768xf32>
    %l3w11 = attune.weight "layers.3.norm2.bias" : tensor<768xf32>
    %h3 = attune.encoder_layer %h2
        self_attn(%l3w0, %l3w1, %l3w2, %l3w3) linear1(%l3w4, %l3w5) linear2(%l3w6, %l3w7)
        norm1(%l3w8, %l3w9) norm2(%l3w10, %l3w11) {num_heads = 12 : i64}
        : (tensor<?x?x768xf32>, tensor<2304x768xf32>, tensor<2304xf32>, tensor<768x768xf32>, tensor<768xf32>, tensor<3072x768xf32>, tensor<3072xf32>, tensor<768x3072xf32>, tensor<768xf32>, tensor<768xf32>, tensor<768xf32>, tensor<768xf32>, tensor<768xf32>) -> tensor<?x?x768xf32>
    %l4w0 = attune.weight "layers.4.self_attn.in_proj_weight" : tensor<2304x768xf32>
    %l4w1 = attune.weight "layers.4.self_attn.in_proj_bias" : tensor<2304xf32>
    %l4w2 = attune.weight "layers.4.self_attn.out_proj.weight" : tensor<768x768xf32>
    %l4w3 = attune.weight "layers.4.self_attn.out_proj.bias" : tensor<768xf32>
    %l4w4 = attune.weight "layers.4.linear1.weight" : tensor<3072x768xf32>
    %l4w5 = attune.weight "layers.4.linear1.bias" : tensor<3072xf32>
    %l4w6 = attune.weight "layers.4.linear2.weight" : tensor<768x3072xf32>
    %l4w7 = attune.weight "layers.4.linear2.bias" : tensor<768xf32>
    %l4w8 = attune.weight "layers.4.norm1.weight" : tensor<768xf32>
    %l4w9 = attune.weight "layers.4.norm1.bias" : tensor<768xf32>
    %l4w10 = attune.weight "layers.4.norm2.weight" : tensor<768xf32>
    %l4w11 = attune.weight "layers.4.norm2.bias" : tensor<768xf32>
    %h4 = attune.encoder_layer %h3
        self_attn(%l4w0, %l4w1, %l4w2, %l4w3) linear1(%l4w4, %l4w5) linear2(%l4w6, %l4w7)
        norm1(%l4w8, %l4w9) norm2(%l4w10, %l4w11) {num_heads = 12 : i64}
        : (tensor<?x?x768xf32>, tensor<2304x768xf32>, tensor<2304xf32>, tensor<768x768xf32>, tensor<768xf32>, tensor<3072x768xf32>, tensor<3072xf32>, tensor<768x3072xf32>, tensor<768xf32>, tensor<768xf32>, tensor<768xf32>, tensor<768xf32>, tensor<768xf32>) -> tensor<?x?x768xf32>
    %l5w0 = attune.weight "layers.5.self_attn.in_proj_weight" : tensor<2304x768xf32>
    %l5w1 = attune.weight "layers.5.self_attn.in_proj_bias" : tensor<2304xf32>
    %l5w2 = attune.weight "layers.5.self_attn.out_proj.weight" : tensor<768x768xf32>
    %l5w3 = attune.weight "layers.5.self_attn.out_proj.bias" : tensor<768xf32>
    %l5w4 = attune.weight "layers.5.linear1.weight" : tensor<3072x768xf32>
    %l5w5 = attune.weight "layers.5.linear1.bias" : tensor<3072xf32>
    %l5w6 = attune.weight "layers.5.linear2.weight" : tensor<768x3072xf32>
    %l5w7 = attune.weight "layers.5.linear2.bias" : tensor<768xf32>
    %l5w8 = attune.weight "layers.5.norm1.weight" : tensor<768xf32>
    %l5w9 = attune.weight "layers.5.norm1.bias" : tensor<768xf32>
    %l5w10 = attune.weight "layers.5.norm2.weight" : tensor<768xf32>
    %l5w11 = attune.weight "layers.5.norm2.bias" : tensor<768xf32>
    %h5 = attune.encoder_layer %h4
        self_attn(%l5w0, %l5w1, %l5w2, %l5w3) linear1(%l5w4, %l5w5) linear2(%l5w6, %l5w7)
        norm1(%l5w8, %l5w9) norm2(%l5w10, %l5w11) {num_heads = 12 : i64}
        : (tensor<?x?x768xf32>, tensor<2304x768xf32>, tensor<2304xf32>, tensor<768x768xf32>, tensor<768xf32>, tensor<3072x768xf32>, tensor<3072xf32>, tensor<768x3072xf32>, tensor<768xf32>, tensor<768xf32>, tensor<768xf32>, tensor<768xf32>, tensor<768xf32>) -> tensor<?x?x768xf32>
    %l6w0 = attune.weight "layers.6.self_attn.in_proj_weight" : tensor<2304x768xf32>
    %l6w1 = attune.weight "layers.6.self_attn.in_proj_bias" : tensor<2304xf32>
    %l6w2 = attune.weight "layers.6.self_attn.out_proj.weight" : tensor<768x768xf32>
    %l6w3 = attune.weight "layers.6.self_attn.out_proj.bias" : tensor<768xf32>
    %l6w4 = attune.weight "layers.6.linear1.weight" : tensor<3072x768xf32>
    %l6w5 = attune.weight "layers.6.linear1.bias" : tensor<3072xf32>
    %l6w6 = attune.weight "layers.6.linear2.weight" : tensor<768x3072xf32>
    %l6w7 = attune.weight "layers.6.linear2.bias" : tensor<768xf32>
    %l6w8 = attune.weight "layers.6.norm1.weight" : tensor<768xf32>
    %l6w9 = attune.weight "layers.6.norm1.bias" : tensor<768xf32>
    %l6w10 = attune.weight "layers.6.norm2.weight" : tensor<768xf32>
    %l6w11 = attune.weight "layers.6.norm2.bias" : tensor<768xf32>
    %h6 = attune.encoder_layer %h5
        self_attn(%l6w0, %l6w1, %l6w2, %l6w3) linear1(%l6w4, %l6w5) linear2(%l6w6, %l6w7)
        norm1(%l6w8, %l6w9) norm2(%l6w10, %l6w11) {num_heads = 12 : i64}
        : (tensor<?x?x768xf32>, tensor<2304x768xf32>, tensor<2304xf32>, tensor<768x768xf32>, tensor<768xf32>, tensor<3072x768xf32>, tensor<3072xf32>, tensor<768x3072xf32>, tensor<768xf32>, tensor<768xf32>, tensor<768xf32>, tensor<768xf32>, tensor<768xf32>) -> tensor<?x?x768xf32>
    %l7w0 = attune.weight "layers.7.self_attn.in_proj_weight" : tensor<2304x768xf32>
    %l7w1 = attune.weight "layers.7.self_attn.in_proj_bias" : tensor<2304xf32>
    %l7w2 = attune.weight "layers.7.self_attn.out_proj.weight" : tensor<768x768xf32>
    %l7w3 = attune.weight "layers.7.self_attn.out_proj.bias" : tensor<768xf32>
    %l7w4 = attune.weight "layers.7.linear1.weight" : tensor<3072x768xf32>
    %l7w5 = attune.weight "layers.7.linear1.bias" : tensor<3072xf32>
    %l7w6 = attune.weight "layers.7.linear2.weight" : tensor<768x3072xf32>
    %l7w7 = attune.weight "layers.7.linear2.bias" : tensor<768xf32>
    %l7w8 = attune.weight "layers.7.norm1.weight" : tensor<768xf32>
    %l7w9 = attune.weight "layers.7.norm1.bias" : tensor<768xf32>
    %l7w10 = attune.weight "layers.7.norm2.weight" : tensor<768xf32>
    %l7w11 = attune.weight "layers.7.norm2.bias" : tensor<768xf32>
    %h7 = attune.encoder_layer %h6
        self_attn(%l7w0, %l7w1, %l7w2, %l7w3) linear1(%l7w4, %l7w5) linear2(%l7w6, %l7w7)
        norm1(%l7w8, %l7w9) norm2(%l7w10, %l7w11) {num_heads = 12 : i64}
        : (tensor<?x?x768xf32>, tensor<2304x768xf32>, tensor<2304xf32>, tensor<768x768xf32>, tensor<768xf32>, tensor<3072x768xf32>, tensor<3072xf32>, tensor<768x3072xf32>, tensor<768xf32>, tensor<768xf32>, tensor<768xf32>, tensor<768xf32>, tensor<768xf32>) -> tensor<?x?x768xf32>
    %l8w0 = attune.weight "layers.8.self_attn.in_proj_weight" : tensor<2304x768xf32>
    %l8w1 = attune.weight "layers.8.self_attn.in_proj_bias" : tensor<2304xf32>
    %l8w2 = attune.weight "layers.8.self_attn.out_proj.weight" : tensor<768x768xf32>
    %l8w3 = attune.weight "layers.8.self_attn.out_proj.bias" : tensor<768xf32>
    %l8w4 = attune.weight "layers.8.linear1.weight" : tensor<3072x768xf32>
    %l8w5 = attune.weight "layers.8.linear1.bias" : tensor<3072xf32>
    %l8w6 = attune.weight "layers.8.linear2.weight" : tensor<768x3072xf32>
    %l8w7 = attune.weight "layers.8.linear2.bias" : tensor<768xf32>
    %l8w8 = attune.weight "layers.8.norm1.weight" : tensor<768xf32>
    %l8w9 = attune.weight "layers.8.norm1.bias" : tensor<768xf32>
    %l8w10 = attune.weight "layers.8.norm2.weight" : tensor<768xf32>
    %l8w11 = attune.weight "layers.8.norm2.bias" : tensor<768xf32>
    %h8 = attune.encoder_layer %h7
        self_attn(%l8w0, %l8w1, %l8w2, %l8w3) linear1(%l8w4, %l8w5) linear2(%l8w6, %l8w7)
        norm1(%l8w8, %l8w9) norm2(%l8w10, %l8w11) {num_heads = 12 : i64}
        : (tensor<?x?x768xf32>, tensor<2304x768xf32>, tensor<2304xf32>, tensor<768x768xf32>, tensor<768xf32>, tensor<3072x768xf32>, tensor<3072xf32>, tensor<768x3072xf32>, tensor<768xf32>, tensor<768xf32>, tensor<768xf32>, tensor<768xf32>, tensor<768xf32>) -> tensor<?x?x768xf32>
    %l9w0 = attune.weight "layers.9.self_attn.in_proj_weight" : tensor<2304x768xf32>
    %l9w1 = attune.weight "layers.9.self_attn.in_proj_bias" : tensor<2304xf32>
    %l9w2 = attune.weight "layers.9.self_attn.out_proj.weight" : tensor<768x768xf32>
    %l9w3 = attune.weight "layers.9.self_attn.out_proj.bias" : tensor<768xf32>
    %l9w4 = attune.weight "layers.9.linear1.weight" : tensor<3072x768xf32>
    %l9w5 = attune.weight "layers.9.linear1.bias" : tensor<3072xf32>
    %l9w6 = attune.weight "layers.9.linear2.weight" : tensor<768x3072xf32>
    %l9w7 = attune.weight "layers.9.linear2.bias" : tensor<768xf32>
    %l9w8 = attune.weight "layers.9.norm1.weight" : tensor<768xf32>
    %l9w9 = attune.weight "layers.9.norm1.bias" : tensor<768xf32>
    %l9w10 = attune.weight "layers.9.norm2.weight" : tensor<768xf32>
    %l9w11 = attune.weight "layers.9.norm2.bias" : tensor<768xf32>
    %h9 = attune.encoder_layer %h8
        self_attn(%l9w0, %l9w1, %l9w2, %l9w3) linear1(%l9w4, %l9w5) linear2(%l9w6, %l9w7)
        norm1(%l9w8, %l9w9) norm2(%l9w10, %l9w11) {num_heads = 12 : i64}
        : (tensor<?x?x768xf32>, tensor<2304x768xf32>, tensor<2304xf32>, tensor<768x768xf32>, tensor<768xf32>, tensor<3072x768xf32>, tensor<3072xf32>, tensor<768x3072xf32>, tensor<768xf32>, tensor<768xf32>, tensor<768xf32>, tensor<768xf32>, tensor<768xf32>) -> tensor<?x?x768xf32>
    %l10w0 = attune.weight "layers.10.self_attn.in_proj_weight" : tensor<2304x768xf32>
    %l10w1 = attune.weight "layers.10.self_attn.in_proj_bias" : tensor<2304xf32>
    %l10w2 = attune.weight "layers.10.self_attn.out_proj.weight" : tensor<768x768xf32>
    %l10w3 = attune.weight "layers.10.self_attn.out_proj.bias" : tensor<768xf32>
    %l10w4 = attune.weight "layers.10.linear1.weight" : tensor<3072x768xf32>
    %l10w5 = attune.weight "layers.10.linear1.bias" : tensor<3072xf32>
    %l10w6 = attune.weight "layers.10.linear2.weight" : tensor<768x3072xf32>
    %l10w7 = attune.weight "layers.10.linear2.bias" : tensor<768xf32>
    %l10w8 = attune.weight "layers.10.norm1.weight" : tensor<768xf32>
    %l10w9 = attune.weight "layers.10.norm1.bias" : tensor<768xf32>
    %l10w10 = attune.weight "layers.10.norm2.weight" : tensor<768xf32>
    %l10w11 = attune.weight "layers.10.norm2.bias" : tensor<768xf32>
    %h10 = attune.encoder_layer %h9
        self_attn(%l10w0, %l10w1, %l10w2, %l10w3) linear1(%l10w4, %l10w5) linear2(%l10w6, %l10w7)
        norm1(%l10w8, %l10w9) norm2(%l10w10, %l10w11) {num_heads = 12 : i64}
        : (tensor<?x?x768xf32>, tensor<2304x768xf32>, tensor<2304xf32>, tensor<768x768xf32>, tensor<768xf32>, tensor<3072x768xf32>, tensor<3072xf32>, tensor<768x3072xf32>, tensor<768xf32>, tensor<768xf32>, tensor<768xf32>, tensor<768xf32>, tensor<768xf32>) -> tensor<?x?x768xf32>
    %l11w0 = attune.weight "layers.11.self_attn.in_proj_weight" : tensor<2304x768xf32>
    %l11w1 = attune.weight "layers.11.self_attn.in_proj_bias" : tensor<2304xf32>
    %l11w2 = attune.weight "layers.11.self_attn.out_proj.weight" : tensor<768x768xf32>
    %l11w3 = attune.weight "layers.11.self_attn.out_proj.bias" : tensor<768xf32>
    %l11w4 = attune.weight "layers.11.linear1.weight" : tensor<3072x768xf32>
    %l11w5 = attune.weight "layers.11.linear1.bias" : tensor<3072xf32>
    %l11w6 = attune.weight "layers.11.linear2.weight" : tensor<768x3072xf32>
    %l11w7 = attune.weight "layers.11.linear2.bias" : tensor<768xf32>
    %l11w8 = attune.weight "layers.11.norm1.weight" : tensor<768xf32>
    %l11w9 = attune.weight "layers.11.norm1.bias" : tensor<768xf32>
    %l11w10 = attune.weight "layers.11.norm2.weight" : tensor<768xf32>
    %l11w11 = attune.weight "layers.11.norm2.bias" : tensor<768xf32>
    %h11 = attune.encoder_layer %h10
        self_attn(%l11w0, %l11w1, %l11w2, %l11w3) linear1(%l11w4, %l11w5) linear2(%l11w6, %l11w7)
        norm1(%l11w8, %l11w9) norm2(%l11w10, %l11w11) {num_heads = 12 : i64}
        : (tensor<?x?x768xf32>, tensor<2304x768xf32>, tensor<2304xf32>, tensor<768x768xf32>, tensor<768xf32>, tensor<3072x768xf32>, tensor<3072xf32>, tensor<768x3072xf32>, tensor<768xf32>, tensor<768xf32>, tensor<768xf32>, tensor<768xf32>, tensor<768xf32>) -> tensor<?x?x768xf32>
    return %h11 : tensor<?x?x768xf32>
  }
}
