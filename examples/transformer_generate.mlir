// torch.module: ref.Seq2SeqTransformer(src_vocab=53, tgt_vocab=61, d_model=32, heads=4, layers=2, ff=64)
// torch.inputs: src=i64[1,6]{3,53}, src_lengths=i64[1]{6,7}
// torch.inputs: src=i64[3,9]{3,53}, src_lengths=i64[3]{1,10}
// torch.generate: ref.greedy_seq2seq(module, src, src_lengths, bos=1, max_new_tokens=30, eos=45, pad=0)
// torch.logits: ref.forced_logits_seq2seq(module, src, src_lengths, 1, generated)
// attune.generate: --bos 1 --max-new-tokens 30 --eos 45 --pad 0
//
// An nn.Transformer translation model (scripts/attune_ref.py's
// ref.Seq2SeqTransformer: embeddings scaled by sqrt(d), sinusoidal
// positions, 2 + 2 post-norm relu layers with final norms, d_model 32, 4
// heads, a generator over 61 target tokens) decoding greedily from <bos> = 1.
// `@encode` runs once per generation: the encoder over the padded sources,
// then each decoder layer's cross-attention keys and values of the memory
// (contexts, projected once per sequence, not once per step). `@step` is the
// decoder: self-attention over its caches [B, 4, 40, 8] written in place,
// cross-attention over the contexts with the source lengths.
// Written by scripts/gen_generation_mlir.py transformer --vocab 61
// --src-vocab 53 --d-model 32 --heads 4 --layers 2 --ff 64 --capacity 40.
//
//   attune-run model.so --generate --input src=src.npy --input src_lengths=len.npy --bos 1 --eos 45
module {
  func.func @encode(%src: tensor<?x?xi64> {attune.name = "src"},
      %src_lengths: tensor<?xi64> {attune.name = "src_lengths"})
      -> (tensor<?x4x?x8xf32> {attune.context = "kmem0"},
          tensor<?x4x?x8xf32> {attune.context = "vmem0"},
          tensor<?x4x?x8xf32> {attune.context = "kmem1"},
          tensor<?x4x?x8xf32> {attune.context = "vmem1"},
          tensor<?xi64> {attune.context = "src_lengths"})
      attributes {attune.generation_encoder} {
    %semb = attune.weight "src_embed.weight" : tensor<53x32xf32>
    %se = attune.embedding %src, %semb : (tensor<?x?xi64>, tensor<53x32xf32>) -> tensor<?x?x32xf32>
    %ss = attune.scale %se {factor = 5.656854249492381 : f64} : tensor<?x?x32xf32>
    %x0 = attune.positional_encoding <sinusoidal> %ss : (tensor<?x?x32xf32>) -> tensor<?x?x32xf32>
    %ea0 = attune.weight "transformer.encoder.layers.0.self_attn.in_proj_weight" : tensor<96x32xf32>
    %eb0 = attune.weight "transformer.encoder.layers.0.self_attn.in_proj_bias" : tensor<96xf32>
    %ec0 = attune.weight "transformer.encoder.layers.0.self_attn.out_proj.weight" : tensor<32x32xf32>
    %ed0 = attune.weight "transformer.encoder.layers.0.self_attn.out_proj.bias" : tensor<32xf32>
    %ee0 = attune.weight "transformer.encoder.layers.0.linear1.weight" : tensor<64x32xf32>
    %ef0 = attune.weight "transformer.encoder.layers.0.linear1.bias" : tensor<64xf32>
    %eg0 = attune.weight "transformer.encoder.layers.0.linear2.weight" : tensor<32x64xf32>
    %eh0 = attune.weight "transformer.encoder.layers.0.linear2.bias" : tensor<32xf32>
    %ei0 = attune.weight "transformer.encoder.layers.0.norm1.weight" : tensor<32xf32>
    %ej0 = attune.weight "transformer.encoder.layers.0.norm1.bias" : tensor<32xf32>
    %ek0 = attune.weight "transformer.encoder.layers.0.norm2.weight" : tensor<32xf32>
    %em0 = attune.weight "transformer.encoder.layers.0.norm2.bias" : tensor<32xf32>
    %x1 = attune.encoder_layer %x0
        self_attn(%ea0, %eb0, %ec0, %ed0) linear1(%ee0, %ef0) linear2(%eg0, %eh0)
        norm1(%ei0, %ej0) norm2(%ek0, %em0) key_lengths(%src_lengths) {num_heads = 4 : i64}
        : (tensor<?x?x32xf32>, tensor<96x32xf32>, tensor<96xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<64x32xf32>, tensor<64xf32>, tensor<32x64xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<?xi64>) -> tensor<?x?x32xf32>
    %ea1 = attune.weight "transformer.encoder.layers.1.self_attn.in_proj_weight" : tensor<96x32xf32>
    %eb1 = attune.weight "transformer.encoder.layers.1.self_attn.in_proj_bias" : tensor<96xf32>
    %ec1 = attune.weight "transformer.encoder.layers.1.self_attn.out_proj.weight" : tensor<32x32xf32>
    %ed1 = attune.weight "transformer.encoder.layers.1.self_attn.out_proj.bias" : tensor<32xf32>
    %ee1 = attune.weight "transformer.encoder.layers.1.linear1.weight" : tensor<64x32xf32>
    %ef1 = attune.weight "transformer.encoder.layers.1.linear1.bias" : tensor<64xf32>
    %eg1 = attune.weight "transformer.encoder.layers.1.linear2.weight" : tensor<32x64xf32>
    %eh1 = attune.weight "transformer.encoder.layers.1.linear2.bias" : tensor<32xf32>
    %ei1 = attune.weight "transformer.encoder.layers.1.norm1.weight" : tensor<32xf32>
    %ej1 = attune.weight "transformer.encoder.layers.1.norm1.bias" : tensor<32xf32>
    %ek1 = attune.weight "transformer.encoder.layers.1.norm2.weight" : tensor<32xf32>
    %em1 = attune.weight "transformer.encoder.layers.1.norm2.bias" : tensor<32xf32>
    %x2 = attune.encoder_layer %x1
        self_attn(%ea1, %eb1, %ec1, %ed1) linear1(%ee1, %ef1) linear2(%eg1, %eh1)
        norm1(%ei1, %ej1) norm2(%ek1, %em1) key_lengths(%src_lengths) {num_heads = 4 : i64}
        : (tensor<?x?x32xf32>, tensor<96x32xf32>, tensor<96xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<64x32xf32>, tensor<64xf32>, tensor<32x64xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<?xi64>) -> tensor<?x?x32xf32>
    %eng = attune.weight "transformer.encoder.norm.weight" : tensor<32xf32>
    %enb = attune.weight "transformer.encoder.norm.bias" : tensor<32xf32>
    %memory = attune.layer_norm %x2 weight(%eng) bias(%enb) : (tensor<?x?x32xf32>, tensor<32xf32>, tensor<32xf32>) -> tensor<?x?x32xf32>
    %cw0 = attune.weight "transformer.decoder.layers.0.multihead_attn.in_proj_weight" : tensor<96x32xf32>
    %cb0 = attune.weight "transformer.decoder.layers.0.multihead_attn.in_proj_bias" : tensor<96xf32>
    %kw0 = attune.slice %cw0 {axis = 0 : i64, offset = 32 : i64, size = 32 : i64} : (tensor<96x32xf32>) -> tensor<32x32xf32>
    %kb0 = attune.slice %cb0 {axis = 0 : i64, offset = 32 : i64, size = 32 : i64} : (tensor<96xf32>) -> tensor<32xf32>
    %kp0 = attune.linear %memory, %kw0, %kb0 : (tensor<?x?x32xf32>, tensor<32x32xf32>, tensor<32xf32>) -> tensor<?x?x32xf32>
    %kmem0 = attune.split_heads %kp0 {num_heads = 4 : i64} : (tensor<?x?x32xf32>) -> tensor<?x4x?x8xf32>
    %vw0 = attune.slice %cw0 {axis = 0 : i64, offset = 64 : i64, size = 32 : i64} : (tensor<96x32xf32>) -> tensor<32x32xf32>
    %vb0 = attune.slice %cb0 {axis = 0 : i64, offset = 64 : i64, size = 32 : i64} : (tensor<96xf32>) -> tensor<32xf32>
    %vp0 = attune.linear %memory, %vw0, %vb0 : (tensor<?x?x32xf32>, tensor<32x32xf32>, tensor<32xf32>) -> tensor<?x?x32xf32>
    %vmem0 = attune.split_heads %vp0 {num_heads = 4 : i64} : (tensor<?x?x32xf32>) -> tensor<?x4x?x8xf32>
    %cw1 = attune.weight "transformer.decoder.layers.1.multihead_attn.in_proj_weight" : tensor<96x32xf32>
    %cb1 = attune.weight "transformer.decoder.layers.1.multihead_attn.in_proj_bias" : tensor<96xf32>
    %kw1 = attune.slice %cw1 {axis = 0 : i64, offset = 32 : i64, size = 32 : i64} : (tensor<96x32xf32>) -> tensor<32x32xf32>
    %kb1 = attune.slice %cb1 {axis = 0 : i64, offset = 32 : i64, size = 32 : i64} : (tensor<96xf32>) -> tensor<32xf32>
    %kp1 = attune.linear %memory, %kw1, %kb1 : (tensor<?x?x32xf32>, tensor<32x32xf32>, tensor<32xf32>) -> tensor<?x?x32xf32>
    %kmem1 = attune.split_heads %kp1 {num_heads = 4 : i64} : (tensor<?x?x32xf32>) -> tensor<?x4x?x8xf32>
    %vw1 = attune.slice %cw1 {axis = 0 : i64, offset = 64 : i64, size = 32 : i64} : (tensor<96x32xf32>) -> tensor<32x32xf32>
    %vb1 = attune.slice %cb1 {axis = 0 : i64, offset = 64 : i64, size = 32 : i64} : (tensor<96xf32>) -> tensor<32xf32>
    %vp1 = attune.linear %memory, %vw1, %vb1 : (tensor<?x?x32xf32>, tensor<32x32xf32>, tensor<32xf32>) -> tensor<?x?x32xf32>
    %vmem1 = attune.split_heads %vp1 {num_heads = 4 : i64} : (tensor<?x?x32xf32>) -> tensor<?x4x?x8xf32>
    return %kmem0, %vmem0, %kmem1, %vmem1, %src_lengths
        : tensor<?x4x?x8xf32>, tensor<?x4x?x8xf32>, tensor<?x4x?x8xf32>, tensor<?x4x?x8xf32>, tensor<?xi64>
  }
  func.func @step(%tokens: tensor<?x?xi64> {attune.name = "tokens"},
      %positions: tensor<?xi64> {attune.name = "positions"},
      %lengths: tensor<?xi64> {attune.name = "lengths"},
      %kmem0: tensor<?x4x?x8xf32> {attune.context = "kmem0"},
      %vmem0: tensor<?x4x?x8xf32> {attune.context = "vmem0"},
      %kmem1: tensor<?x4x?x8xf32> {attune.context = "kmem1"},
      %vmem1: tensor<?x4x?x8xf32> {attune.context = "vmem1"},
      %src_lengths: tensor<?xi64> {attune.context = "src_lengths"},
      %k0: tensor<?x4x40x8xf32> {attune.state = "k0"},
      %v0: tensor<?x4x40x8xf32> {attune.state = "v0"},
      %k1: tensor<?x4x40x8xf32> {attune.state = "k1"},
      %v1: tensor<?x4x40x8xf32> {attune.state = "v1"})
      -> (tensor<?x61xf32> {attune.name = "logits"},
          tensor<?x4x40x8xf32> {attune.state = "k0"},
          tensor<?x4x40x8xf32> {attune.state = "v0"},
          tensor<?x4x40x8xf32> {attune.state = "k1"},
          tensor<?x4x40x8xf32> {attune.state = "v1"})
      attributes {attune.generation_step} {
    %temb = attune.weight "tgt_embed.weight" : tensor<61x32xf32>
    %te = attune.embedding %tokens, %temb : (tensor<?x?xi64>, tensor<61x32xf32>) -> tensor<?x?x32xf32>
    %ts = attune.scale %te {factor = 5.656854249492381 : f64} : tensor<?x?x32xf32>
    %y0 = attune.positional_encoding <sinusoidal> %ts offsets(%positions) : (tensor<?x?x32xf32>, tensor<?xi64>) -> tensor<?x?x32xf32>
    %sw0 = attune.weight "transformer.decoder.layers.0.self_attn.in_proj_weight" : tensor<96x32xf32>
    %sb0 = attune.weight "transformer.decoder.layers.0.self_attn.in_proj_bias" : tensor<96xf32>
    %so0 = attune.weight "transformer.decoder.layers.0.self_attn.out_proj.weight" : tensor<32x32xf32>
    %sob0 = attune.weight "transformer.decoder.layers.0.self_attn.out_proj.bias" : tensor<32xf32>
    %cw0 = attune.weight "transformer.decoder.layers.0.multihead_attn.in_proj_weight" : tensor<96x32xf32>
    %cb0 = attune.weight "transformer.decoder.layers.0.multihead_attn.in_proj_bias" : tensor<96xf32>
    %co0 = attune.weight "transformer.decoder.layers.0.multihead_attn.out_proj.weight" : tensor<32x32xf32>
    %cob0 = attune.weight "transformer.decoder.layers.0.multihead_attn.out_proj.bias" : tensor<32xf32>
    %l10 = attune.weight "transformer.decoder.layers.0.linear1.weight" : tensor<64x32xf32>
    %l1b0 = attune.weight "transformer.decoder.layers.0.linear1.bias" : tensor<64xf32>
    %l20 = attune.weight "transformer.decoder.layers.0.linear2.weight" : tensor<32x64xf32>
    %l2b0 = attune.weight "transformer.decoder.layers.0.linear2.bias" : tensor<32xf32>
    %n1w0 = attune.weight "transformer.decoder.layers.0.norm1.weight" : tensor<32xf32>
    %n1b0 = attune.weight "transformer.decoder.layers.0.norm1.bias" : tensor<32xf32>
    %n2w0 = attune.weight "transformer.decoder.layers.0.norm2.weight" : tensor<32xf32>
    %n2b0 = attune.weight "transformer.decoder.layers.0.norm2.bias" : tensor<32xf32>
    %n3w0 = attune.weight "transformer.decoder.layers.0.norm3.weight" : tensor<32xf32>
    %n3b0 = attune.weight "transformer.decoder.layers.0.norm3.bias" : tensor<32xf32>
    %qkv0 = attune.linear %y0, %sw0, %sb0 : (tensor<?x?x32xf32>, tensor<96x32xf32>, tensor<96xf32>) -> tensor<?x?x96xf32>
    %qs0 = attune.slice %qkv0 {axis = -1 : i64, offset = 0 : i64, size = 32 : i64} : (tensor<?x?x96xf32>) -> tensor<?x?x32xf32>
    %qh0 = attune.split_heads %qs0 {num_heads = 4 : i64} : (tensor<?x?x32xf32>) -> tensor<?x4x?x8xf32>
    %ks0 = attune.slice %qkv0 {axis = -1 : i64, offset = 32 : i64, size = 32 : i64} : (tensor<?x?x96xf32>) -> tensor<?x?x32xf32>
    %kh0 = attune.split_heads %ks0 {num_heads = 4 : i64} : (tensor<?x?x32xf32>) -> tensor<?x4x?x8xf32>
    %vs0 = attune.slice %qkv0 {axis = -1 : i64, offset = 64 : i64, size = 32 : i64} : (tensor<?x?x96xf32>) -> tensor<?x?x32xf32>
    %vh0 = attune.split_heads %vs0 {num_heads = 4 : i64} : (tensor<?x?x32xf32>) -> tensor<?x4x?x8xf32>
    %kc0 = attune.cache_write %k0, %kh0, %positions : (tensor<?x4x40x8xf32>, tensor<?x4x?x8xf32>, tensor<?xi64>) -> tensor<?x4x40x8xf32>
    %vc0 = attune.cache_write %v0, %vh0, %positions : (tensor<?x4x40x8xf32>, tensor<?x4x?x8xf32>, tensor<?xi64>) -> tensor<?x4x40x8xf32>
    %sa0 = attune.attention %qh0, %kc0, %vc0 query_offsets(%positions) {causal} : (tensor<?x4x?x8xf32>, tensor<?x4x40x8xf32>, tensor<?x4x40x8xf32>, tensor<?xi64>) -> tensor<?x4x?x8xf32>
    %sm0 = attune.merge_heads %sa0 : (tensor<?x4x?x8xf32>) -> tensor<?x?x32xf32>
    %sp0 = attune.linear %sm0, %so0, %sob0 : (tensor<?x?x32xf32>, tensor<32x32xf32>, tensor<32xf32>) -> tensor<?x?x32xf32>
    %z1_0 = attune.layer_norm %y0 residual(%sp0) weight(%n1w0) bias(%n1b0) : (tensor<?x?x32xf32>, tensor<?x?x32xf32>, tensor<32xf32>, tensor<32xf32>) -> tensor<?x?x32xf32>
    %cqw0 = attune.slice %cw0 {axis = 0 : i64, offset = 0 : i64, size = 32 : i64} : (tensor<96x32xf32>) -> tensor<32x32xf32>
    %cqb0 = attune.slice %cb0 {axis = 0 : i64, offset = 0 : i64, size = 32 : i64} : (tensor<96xf32>) -> tensor<32xf32>
    %cq0 = attune.linear %z1_0, %cqw0, %cqb0 : (tensor<?x?x32xf32>, tensor<32x32xf32>, tensor<32xf32>) -> tensor<?x?x32xf32>
    %cqh0 = attune.split_heads %cq0 {num_heads = 4 : i64} : (tensor<?x?x32xf32>) -> tensor<?x4x?x8xf32>
    %ca0 = attune.attention %cqh0, %kmem0, %vmem0 key_lengths(%src_lengths) : (tensor<?x4x?x8xf32>, tensor<?x4x?x8xf32>, tensor<?x4x?x8xf32>, tensor<?xi64>) -> tensor<?x4x?x8xf32>
    %cm0 = attune.merge_heads %ca0 : (tensor<?x4x?x8xf32>) -> tensor<?x?x32xf32>
    %cp0 = attune.linear %cm0, %co0, %cob0 : (tensor<?x?x32xf32>, tensor<32x32xf32>, tensor<32xf32>) -> tensor<?x?x32xf32>
    %z2_0 = attune.layer_norm %z1_0 residual(%cp0) weight(%n2w0) bias(%n2b0) : (tensor<?x?x32xf32>, tensor<?x?x32xf32>, tensor<32xf32>, tensor<32xf32>) -> tensor<?x?x32xf32>
    %f0 = attune.linear %z2_0, %l10, %l1b0 {activation = #attune.activation<relu>} : (tensor<?x?x32xf32>, tensor<64x32xf32>, tensor<64xf32>) -> tensor<?x?x64xf32>
    %fp0 = attune.linear %f0, %l20, %l2b0 : (tensor<?x?x64xf32>, tensor<32x64xf32>, tensor<32xf32>) -> tensor<?x?x32xf32>
    %y1 = attune.layer_norm %z2_0 residual(%fp0) weight(%n3w0) bias(%n3b0) : (tensor<?x?x32xf32>, tensor<?x?x32xf32>, tensor<32xf32>, tensor<32xf32>) -> tensor<?x?x32xf32>
    %sw1 = attune.weight "transformer.decoder.layers.1.self_attn.in_proj_weight" : tensor<96x32xf32>
    %sb1 = attune.weight "transformer.decoder.layers.1.self_attn.in_proj_bias" : tensor<96xf32>
    %so1 = attune.weight "transformer.decoder.layers.1.self_attn.out_proj.weight" : tensor<32x32xf32>
    %sob1 = attune.weight "transformer.decoder.layers.1.self_attn.out_proj.bias" : tensor<32xf32>
    %cw1 = attune.weight "transformer.decoder.layers.1.multihead_attn.in_proj_weight" : tensor<96x32xf32>
    %cb1 = attune.weight "transformer.decoder.layers.1.multihead_attn.in_proj_bias" : tensor<96xf32>
    %co1 = attune.weight "transformer.decoder.layers.1.multihead_attn.out_proj.weight" : tensor<32x32xf32>
    %cob1 = attune.weight "transformer.decoder.layers.1.multihead_attn.out_proj.bias" : tensor<32xf32>
    %l11 = attune.weight "transformer.decoder.layers.1.linear1.weight" : tensor<64x32xf32>
    %l1b1 = attune.weight "transformer.decoder.layers.1.linear1.bias" : tensor<64xf32>
    %l21 = attune.weight "transformer.decoder.layers.1.linear2.weight" : tensor<32x64xf32>
    %l2b1 = attune.weight "transformer.decoder.layers.1.linear2.bias" : tensor<32xf32>
    %n1w1 = attune.weight "transformer.decoder.layers.1.norm1.weight" : tensor<32xf32>
    %n1b1 = attune.weight "transformer.decoder.layers.1.norm1.bias" : tensor<32xf32>
    %n2w1 = attune.weight "transformer.decoder.layers.1.norm2.weight" : tensor<32xf32>
    %n2b1 = attune.weight "transformer.decoder.layers.1.norm2.bias" : tensor<32xf32>
    %n3w1 = attune.weight "transformer.decoder.layers.1.norm3.weight" : tensor<32xf32>
    %n3b1 = attune.weight "transformer.decoder.layers.1.norm3.bias" : tensor<32xf32>
    %qkv1 = attune.linear %y1, %sw1, %sb1 : (tensor<?x?x32xf32>, tensor<96x32xf32>, tensor<96xf32>) -> tensor<?x?x96xf32>
    %qs1 = attune.slice %qkv1 {axis = -1 : i64, offset = 0 : i64, size = 32 : i64} : (tensor<?x?x96xf32>) -> tensor<?x?x32xf32>
    %qh1 = attune.split_heads %qs1 {num_heads = 4 : i64} : (tensor<?x?x32xf32>) -> tensor<?x4x?x8xf32>
    %ks1 = attune.slice %qkv1 {axis = -1 : i64, offset = 32 : i64, size = 32 : i64} : (tensor<?x?x96xf32>) -> tensor<?x?x32xf32>
    %kh1 = attune.split_heads %ks1 {num_heads = 4 : i64} : (tensor<?x?x32xf32>) -> tensor<?x4x?x8xf32>
    %vs1 = attune.slice %qkv1 {axis = -1 : i64, offset = 64 : i64, size = 32 : i64} : (tensor<?x?x96xf32>) -> tensor<?x?x32xf32>
    %vh1 = attune.split_heads %vs1 {num_heads = 4 : i64} : (tensor<?x?x32xf32>) -> tensor<?x4x?x8xf32>
    %kc1 = attune.cache_write %k1, %kh1, %positions : (tensor<?x4x40x8xf32>, tensor<?x4x?x8xf32>, tensor<?xi64>) -> tensor<?x4x40x8xf32>
    %vc1 = attune.cache_write %v1, %vh1, %positions : (tensor<?x4x40x8xf32>, tensor<?x4x?x8xf32>, tensor<?xi64>) -> tensor<?x4x40x8xf32>
    %sa1 = attune.attention %qh1, %kc1, %vc1 query_offsets(%positions) {causal} : (tensor<?x4x?x8xf32>, tensor<?x4x40x8xf32>, tensor<?x4x40x8xf32>, tensor<?xi64>) -> tensor<?x4x?x8xf32>
    %sm1 = attune.merge_heads %sa1 : (tensor<?x4x?x8xf32>) -> tensor<?x?x32xf32>
    %sp1 = attune.linear %sm1, %so1, %sob1 : (tensor<?x?x32xf32>, tensor<32x32xf32>, tensor<32xf32>) -> tensor<?x?x32xf32>
    %z1_1 = attune.layer_norm %y1 residual(%sp1) weight(%n1w1) bias(%n1b1) : (tensor<?x?x32xf32>, tensor<?x?x32xf32>, tensor<32xf32>, tensor<32xf32>) -> tensor<?x?x32xf32>
    %cqw1 = attune.slice %cw1 {axis = 0 : i64, offset = 0 : i64, size = 32 : i64} : (tensor<96x32xf32>) -> tensor<32x32xf32>
    %cqb1 = attune.slice %cb1 {axis = 0 : i64, offset = 0 : i64, size = 32 : i64} : (tensor<96xf32>) -> tensor<32xf32>
    %cq1 = attune.linear %z1_1, %cqw1, %cqb1 : (tensor<?x?x32xf32>, tensor<32x32xf32>, tensor<32xf32>) -> tensor<?x?x32xf32>
    %cqh1 = attune.split_heads %cq1 {num_heads = 4 : i64} : (tensor<?x?x32xf32>) -> tensor<?x4x?x8xf32>
    %ca1 = attune.attention %cqh1, %kmem1, %vmem1 key_lengths(%src_lengths) : (tensor<?x4x?x8xf32>, tensor<?x4x?x8xf32>, tensor<?x4x?x8xf32>, tensor<?xi64>) -> tensor<?x4x?x8xf32>
    %cm1 = attune.merge_heads %ca1 : (tensor<?x4x?x8xf32>) -> tensor<?x?x32xf32>
    %cp1 = attune.linear %cm1, %co1, %cob1 : (tensor<?x?x32xf32>, tensor<32x32xf32>, tensor<32xf32>) -> tensor<?x?x32xf32>
    %z2_1 = attune.layer_norm %z1_1 residual(%cp1) weight(%n2w1) bias(%n2b1) : (tensor<?x?x32xf32>, tensor<?x?x32xf32>, tensor<32xf32>, tensor<32xf32>) -> tensor<?x?x32xf32>
    %f1 = attune.linear %z2_1, %l11, %l1b1 {activation = #attune.activation<relu>} : (tensor<?x?x32xf32>, tensor<64x32xf32>, tensor<64xf32>) -> tensor<?x?x64xf32>
    %fp1 = attune.linear %f1, %l21, %l2b1 : (tensor<?x?x64xf32>, tensor<32x64xf32>, tensor<32xf32>) -> tensor<?x?x32xf32>
    %y2 = attune.layer_norm %z2_1 residual(%fp1) weight(%n3w1) bias(%n3b1) : (tensor<?x?x32xf32>, tensor<?x?x32xf32>, tensor<32xf32>, tensor<32xf32>) -> tensor<?x?x32xf32>
    %dng = attune.weight "transformer.decoder.norm.weight" : tensor<32xf32>
    %dnb = attune.weight "transformer.decoder.norm.bias" : tensor<32xf32>
    %dn = attune.layer_norm %y2 weight(%dng) bias(%dnb) : (tensor<?x?x32xf32>, tensor<32xf32>, tensor<32xf32>) -> tensor<?x?x32xf32>
    %last = attune.select_last %dn, %lengths : (tensor<?x?x32xf32>, tensor<?xi64>) -> tensor<?x32xf32>
    %gw = attune.weight "generator.weight" : tensor<61x32xf32>
    %gb = attune.weight "generator.bias" : tensor<61xf32>
    %logits = attune.linear %last, %gw, %gb : (tensor<?x32xf32>, tensor<61x32xf32>, tensor<61xf32>) -> tensor<?x61xf32>
    return %logits, %kc0, %vc0, %kc1, %vc1
        : tensor<?x61xf32>, tensor<?x4x40x8xf32>, tensor<?x4x40x8xf32>, tensor<?x4x40x8xf32>, tensor<?x4x40x8xf32>
  }
}
