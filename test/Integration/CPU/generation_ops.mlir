// torch.module: nn.Embedding(16, 8)
// torch.inputs: cache=f32[2,3,6,4], update=f32[2,3,2,4], positions=i64[2]{0,5}, x=f32[2,5,8], lengths=i64[2]{1,6}, q=f32[2,4,3,8], k=f32[2,2,10,8], v=f32[2,2,10,8], offsets=i64[2]{0,9}, klen=i64[2]{1,11}, pos=i64[2]{0,12}
// torch.inputs: cache=f32[3,3,6,4], update=f32[3,3,1,4], positions=i64[3]{0,6}, x=f32[3,1,8], lengths=i64[3]{1,2}, q=f32[3,4,1,8], k=f32[3,2,70,8], v=f32[3,2,70,8], offsets=i64[3]{0,70}, klen=i64[3]{1,71}, pos=i64[3]{0,16}
// torch.inputs: cache=f32[2,3,6,4], update=f32[2,3,2,4], positions=i64[2]{0,5}, x=f32[2,5,8], lengths=i64[2]{1,6}, q=f32[2,4,20,8], k=f32[2,2,40,8], v=f32[2,2,40,8], offsets=i64[2]{0,21}, klen=i64[2]{1,41}, pos=i64[2]{0,12}
// torch.call: (ref.cache_write(cache, update, positions), ref.select_last(x, lengths), ref.attention(q, k, v, causal=True, query_offsets=offsets), ref.attention(q, k, v, causal=True, query_offsets=offsets, lengths=klen), ref.attention(q, k, v, causal=True, window=4, query_offsets=offsets), ref.learned_positions(x, module.weight, pos), x + ref.sinusoidal_positions(30, 8)[pos[:, None] + torch.arange(x.shape[1])])
//
// The ops of a generation step on their own, against naive references:
// attune.cache_write (an update of T = 2 and of T = 1 at per-row
// positions), attune.select_last, attention with query_offsets (grouped
// heads; with key lengths; with a causal window; a prefill chunk of 3
// queries and decoding steps over 70 cached keys, where the tiled kernel
// visits only the keys up to each query, and 20 queries over 40 keys, which
// take the static tiled form), and positional encodings with per-row
// offsets (learned and sinusoidal).
// RUN: %check-golden %s --work %t --atol 1e-5

module {
  func.func @forward(%cache: tensor<?x3x6x4xf32> {attune.name = "cache"},
                     %update: tensor<?x3x?x4xf32> {attune.name = "update"},
                     %positions: tensor<?xi64> {attune.name = "positions"},
                     %x: tensor<?x?x8xf32> {attune.name = "x"},
                     %lengths: tensor<?xi64> {attune.name = "lengths"},
                     %q: tensor<?x4x?x8xf32> {attune.name = "q"},
                     %k: tensor<?x2x?x8xf32> {attune.name = "k"},
                     %v: tensor<?x2x?x8xf32> {attune.name = "v"},
                     %offsets: tensor<?xi64> {attune.name = "offsets"},
                     %klen: tensor<?xi64> {attune.name = "klen"},
                     %pos: tensor<?xi64> {attune.name = "pos"})
      -> (tensor<?x3x6x4xf32>, tensor<?x8xf32>, tensor<?x4x?x8xf32>, tensor<?x4x?x8xf32>,
          tensor<?x4x?x8xf32>, tensor<?x?x8xf32>, tensor<?x?x8xf32>) {
    %table = attune.weight "weight" : tensor<16x8xf32>
    %c = attune.cache_write %cache, %update, %positions
        : (tensor<?x3x6x4xf32>, tensor<?x3x?x4xf32>, tensor<?xi64>) -> tensor<?x3x6x4xf32>
    %last = attune.select_last %x, %lengths : (tensor<?x?x8xf32>, tensor<?xi64>) -> tensor<?x8xf32>
    %a0 = attune.attention %q, %k, %v query_offsets(%offsets) {causal}
        : (tensor<?x4x?x8xf32>, tensor<?x2x?x8xf32>, tensor<?x2x?x8xf32>, tensor<?xi64>) -> tensor<?x4x?x8xf32>
    %a1 = attune.attention %q, %k, %v key_lengths(%klen) query_offsets(%offsets) {causal}
        : (tensor<?x4x?x8xf32>, tensor<?x2x?x8xf32>, tensor<?x2x?x8xf32>, tensor<?xi64>, tensor<?xi64>) -> tensor<?x4x?x8xf32>
    %a2 = attune.attention %q, %k, %v query_offsets(%offsets) {causal, window = 4 : i64}
        : (tensor<?x4x?x8xf32>, tensor<?x2x?x8xf32>, tensor<?x2x?x8xf32>, tensor<?xi64>) -> tensor<?x4x?x8xf32>
    %p0 = attune.positional_encoding <learned> %x, %table offsets(%pos)
        : (tensor<?x?x8xf32>, tensor<16x8xf32>, tensor<?xi64>) -> tensor<?x?x8xf32>
    %p1 = attune.positional_encoding <sinusoidal> %x offsets(%pos)
        : (tensor<?x?x8xf32>, tensor<?xi64>) -> tensor<?x?x8xf32>
    return %c, %last, %a0, %a1, %a2, %p0, %p1
        : tensor<?x3x6x4xf32>, tensor<?x8xf32>, tensor<?x4x?x8xf32>, tensor<?x4x?x8xf32>,
          tensor<?x4x?x8xf32>, tensor<?x?x8xf32>, tensor<?x?x8xf32>
  }
}
