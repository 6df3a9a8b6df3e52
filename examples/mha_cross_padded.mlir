// torch.module: nn.MultiheadAttention(64, 4, batch_first=True)
// torch.inputs: query=f32[3,2,64], memory=f32[3,40,64], lengths=i64[3]{1,41}
// torch.inputs: query=f32[2,9,64], memory=f32[2,12,64], lengths=i64[2]{1,13}
// torch.inputs: query=f32[2,2,64], memory=f32[2,40,64], lengths=i64[2]{0,1}
// torch.call: (lambda o: torch.where(o.isnan(), module.out_proj.bias.expand_as(o), o))(module(query, memory, memory, key_padding_mask=torch.arange(memory.shape[1])[None, :] >= lengths[:, None], need_weights=False)[0])
//
// torch.nn.MultiheadAttention as cross-attention over a padded memory (one
// packed in_proj_weight; K and V share one GEMM over the memory). query
// [B, Lq, 64], memory [B, Lk, 64], lengths [B] -> [B, Lq, 64]. On CPU the
// first case (2 queries against 40 keys) takes the absorbed form of
// attune-absorb-kv-projections, the second (9 against 12) the projected one,
// and so does the third, whose memories are empty (length 0): its rows are
// out_proj.bias (Attune's attention gives zeros for a row with no visible
// key, where PyTorch gives NaN; the call maps NaN rows to the bias).

module {
  func.func @forward(%query: tensor<?x?x64xf32> {attune.name = "query"}, %memory: tensor<?x?x64xf32> {attune.name = "memory"}, %lengths: tensor<?xi64> {attune.name = "lengths"}) -> tensor<?x?x64xf32> {
    %w = attune.weight "in_proj_weight" : tensor<192x64xf32>
    %b = attune.weight "in_proj_bias" : tensor<192xf32>
    %wo = attune.weight "out_proj.weight" : tensor<64x64xf32>
    %bo = attune.weight "out_proj.bias" : tensor<64xf32>
    %y = attune.multi_head_attention %query, %memory, %memory in_proj_weight(%w) in_proj_bias(%b)
        out_proj_weight(%wo) out_proj_bias(%bo) key_lengths(%lengths) {num_heads = 4 : i64}
        : (tensor<?x?x64xf32>, tensor<?x?x64xf32>, tensor<?x?x64xf32>, tensor<192x64xf32>, tensor<192xf32>, tensor<64x64xf32>, tensor<64xf32>, tensor<?xi64>) -> tensor<?x?x64xf32>
    return %y : tensor<?x?x64xf32>
  }
}
