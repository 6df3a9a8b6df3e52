// torch.module: nn.MultiheadAttention(64, 4, kdim=32, vdim=32, batch_first=True)
// torch.inputs: query=f32[2,1,64], memory=f32[2,30,32]
// torch.inputs: query=f32[2,8,64], memory=f32[2,10,32]
// torch.call: module(query, memory, memory, need_weights=False)[0]
//
// torch.nn.MultiheadAttention as cross-attention over a memory of another
// width (kdim = vdim = 32): separate q/k/v projection weights. query
// [B, Lq, 64], memory [B, Lk, 32] -> [B, Lq, 64]. On CPU the first case (one
// query against 30 keys) takes the absorbed form of
// attune-absorb-kv-projections (queries projected into the memory's 32-wide
// space), the second (8 against 10) the projected one.

module {
  func.func @forward(%query: tensor<?x?x64xf32> {attune.name = "query"}, %memory: tensor<?x?x32xf32> {attune.name = "memory"}) -> tensor<?x?x64xf32> {
    %wq = attune.weight "q_proj_weight" : tensor<64x64xf32>
    %wk = attune.weight "k_proj_weight" : tensor<64x32xf32>
    %wv = attune.weight "v_proj_weight" : tensor<64x32xf32>
    %b = attune.weight "in_proj_bias" : tensor<192xf32>
    %wo = attune.weight "out_proj.weight" : tensor<64x64xf32>
    %bo = attune.weight "out_proj.bias" : tensor<64xf32>
    %y = attune.multi_head_attention %query, %memory, %memory
        q_proj_weight(%wq) k_proj_weight(%wk) v_proj_weight(%wv) in_proj_bias(%b)
        out_proj_weight(%wo) out_proj_bias(%bo) {num_heads = 4 : i64}
        : (tensor<?x?x64xf32>, tensor<?x?x32xf32>, tensor<?x?x32xf32>, tensor<64x64xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<192xf32>, tensor<64x64xf32>, tensor<64xf32>) -> tensor<?x?x64xf32>
    return %y : tensor<?x?x64xf32>
  }
}
